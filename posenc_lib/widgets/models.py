"""Explorer of what a real model's config does to each RoPE pair at a chosen context length: one
panel per kind of layer, each pair a dot at its wavelength coloured by its class.

Notebook: 09_rope_in_todays_models.
"""

from __future__ import annotations

from collections.abc import Hashable

import ipywidgets
import numpy as np
from matplotlib.artist import Artist

from posenc_lib._checks import check_choice, check_int
from posenc_lib.model_pairs import (
    PAIR_CLASSES,
    _span,
    _window,
    classify_config_pairs,
    config_layer_kinds,
)
from posenc_lib.plots._common import CLASS_COLOURS, NOT_ROTATED_Y
from posenc_lib.presets import PRESETS
from posenc_lib.widgets._base import Explorer, check_slider_range

__all__ = ["ModelPairsExplorer"]

MIN_LOG2, MAX_LOG2 = 8, 23  # context lengths 256 .. 8M
# two panels: the presets with at most two kinds of layer (DeepSeek-V4 has three)
_SHOWN_PRESETS = [name for name, config in PRESETS.items() if len(config_layer_kinds(config)) <= 2]


class ModelPairsExplorer(Explorer):
    """Wavelength and class of every pair of a model preset, with preset and length controls."""

    def __init__(self, preset: str = "llama-3.1-8b", length: int = 8192) -> None:
        preset = check_choice("preset", preset, _SHOWN_PRESETS)
        length = check_int("length", length, minimum=2)
        check_slider_range("length", length, 2**MIN_LOG2, 2**MAX_LOG2, "[2**8, 2**23]")
        super().__init__(figsize=(8.0, 5.0))
        with self.style():
            self.axes = tuple(self.figure.subplots(2, 1, sharey=True))
            self.class_lines = []
            self.context_lines = []
            self.panel_titles = []
            for ax in self.axes:
                lines = [ax.plot([], [], linestyle="none", marker="o", markersize=4,
                                 color=colour, label=name)[0]
                         for name, colour in zip(PAIR_CLASSES, CLASS_COLOURS, strict=True)]
                self.class_lines.append(lines)
                self.context_lines.append(ax.axhline(length, color="#333333", linestyle="--",
                                                     linewidth=1.0, label="L, or the window"))
                ax.axhspan(NOT_ROTATED_Y / 3, NOT_ROTATED_Y * 3, color="#eeeeee", zorder=0)
                ax.set_yscale("log")
                ax.set_ylim(1.0, NOT_ROTATED_Y * 3)
                ax.set_ylabel(r"Wavelength $\lambda_i$")
                # fixed y: the title is drawn alone over the kept background
                self.panel_titles.append(ax.set_title("", fontsize=9, loc="left", y=1.0))
            # beside the panels, never over the dots
            self.axes[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)
            self.title = self.figure.suptitle("", fontsize=10, fontweight="bold")
        self.add_control("preset", ipywidgets.Dropdown(options=_SHOWN_PRESETS, value=preset,
                                                       description="model"))
        self.add_control("length", ipywidgets.FloatLogSlider(
            value=length, base=2, min=MIN_LOG2, max=MAX_LOG2, step=1, description="context L"))
        self.refresh()

    def background_key(self) -> Hashable:
        # which panels show, and their x range: presets with as many pairs share a background
        return tuple((ax.get_visible(), ax.get_xlim()) for ax in self.axes)

    def changing_artists(self) -> list[Artist]:
        shown = [row for row, ax in enumerate(self.axes) if ax.get_visible()]
        return [
            *(line for row in shown for line in self.class_lines[row]),
            *(self.context_lines[row] for row in shown),
            *(self.panel_titles[row] for row in shown),
            self.title,
        ]

    def update(self, preset: str, length: float) -> None:  # type: ignore[override]
        config = PRESETS[preset]
        context = int(round(length))
        kinds = config_layer_kinds(config)
        shown = list(kinds)  # at most two kinds (_SHOWN_PRESETS)
        n_layers = sum(kinds.values())
        for row, ax in enumerate(self.axes):
            kind = shown[row] if row < len(shown) else None
            ax.set_visible(kind is not None)
            # the x label under the lowest panel shown
            ax.set_xlabel("Pair index $i$ (rotated dims first)" if row == len(shown) - 1 else "")
            if kind is None:
                continue
            wavelengths, classes = classify_config_pairs(config, context, layer_kind=kind)
            x = np.arange(wavelengths.size)
            y = np.where(np.isinf(wavelengths), NOT_ROTATED_Y, wavelengths)
            counts = np.bincount(classes, minlength=len(PAIR_CLASSES))
            for k, line in enumerate(self.class_lines[row]):
                line.set_data(x[classes == k], y[classes == k])
            ax.set_xlim(-1.0, float(wavelengths.size))
            parts = ", ".join(f"{n} {name}" for n, name in zip(counts, PAIR_CLASSES, strict=True)
                              if n)
            window = _window(config, kind)
            seen = f", window {window:,}" if window else ""
            # the dashed line: the distance the pairs were classified against, min(L, window)
            reach = _span(config, context, kind)
            self.context_lines[row].set_ydata([reach, reach])
            self.panel_titles[row].set_text(
                f"{kind} ({kinds[kind]} of {n_layers} layers{seen}): {parts}"
            )
        self.title.set_text(f"{preset} at L = {context:,}")

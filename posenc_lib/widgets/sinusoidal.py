"""Explorers of the sinusoidal encoding: its heatmap and its stacked waves.

Notebook: 02_sinusoidal_formula.
"""

from __future__ import annotations

import ipywidgets
import numpy as np

from posenc_lib._checks import check_even, check_float, check_int
from posenc_lib.frequencies import inverse_frequencies, wavelengths
from posenc_lib.plots import draw_encoding_heatmap, draw_stacked_waves
from posenc_lib.sinusoidal import sinusoidal_encoding, sinusoidal_encoding_at
from posenc_lib.widgets._base import Explorer, check_slider_range
from posenc_lib.widgets._raster import PixelRaster

__all__ = ["EncodingHeatmapExplorer", "StackedWavesExplorer"]

SITE_D_MODELS = (8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 320, 384, 448, 512, 576, 640, 768, 896,
                 1024)
"""The d_model values the offline site draws (also notebook 03's explorer)."""


class EncodingHeatmapExplorer(Explorer):
    """The encoding as a heatmap, sine columns then cosine columns (``layout="concat"``).
    The split order avoids the false stripes alternate slow sin/cos columns draw on a screen
    with fewer pixels than columns. Controls: ``d_model``, ``base`` and ``length``.
    """

    site_values = {"d_model": SITE_D_MODELS, "base": tuple(10.0 ** (k / 5) for k in range(5, 31)),
        "length": (*range(10, 101, 10), 120, 150, 200, 250, 300, 400, 500)}

    def __init__(self, d_model: int = 512, base: float = 10000.0, length: int = 100) -> None:
        d_model = check_even("d_model", d_model, minimum=8)
        base = check_float("base", base, greater_than=1.0)
        length = check_int("length", length, minimum=2)
        super().__init__(figsize=(7.0, 4.0))
        with self.style():
            ax = self.figure.add_subplot()
            # the colour bar reads the heatmap's norm, pinned to [-1, 1] by update(): it is
            # part of the kept background, redrawn only with it, never per slider tick
            self.heatmap = draw_encoding_heatmap(ax, sinusoidal_encoding(length, d_model, base,
                layout="concat"), colorbar=True, dimension_label="sine columns | cosine columns")
            self.colorbar = self.heatmap.colorbar
            self.halves = ax.axvline(d_model / 2 - 0.5, color="black", linewidth=1.0)
            self.title = ax.set_title("", fontsize=9, y=1.0)  # fixed y: drawn alone
        self.raster = PixelRaster(self.heatmap)  # paints the heatmap without resampling it
        self.ax = ax
        self.changing = [ax]  # the whole axes, its ticks included, over the kept colour bar
        self.add_control(
            "d_model",
            # redrawn on release when dragged: each value redraws the axes (~0.1 s at 2x pixels)
            ipywidgets.IntSlider(
                value=d_model, min=8, max=1024, step=8, description="d_model",
                continuous_update=False,
            ),
        )
        self.add_control("base", ipywidgets.FloatLogSlider(value=base, base=10, min=1, max=6,
            step=0.1, description="base"))
        self.add_control("length", ipywidgets.IntSlider(value=length, min=10, max=500, step=10,
            description="length", continuous_update=False))
        self.freeze_layout(d_model=1024, length=500)  # the longest tick labels: 4 and 3 digits
        self.refresh()

    def update(self, d_model: int, base: float, length: int) -> None:  # type: ignore[override]
        self.heatmap.set_data(sinusoidal_encoding(length, d_model, base, layout="concat"))
        self.halves.set_xdata([d_model / 2 - 0.5, d_model / 2 - 0.5])
        extent = (-0.5, d_model - 0.5, length - 0.5, -0.5)
        self.heatmap.set_extent(extent)
        self.heatmap.set_clim(-1.0, 1.0)
        self.ax.set_xlim(extent[0], extent[1])
        self.ax.set_ylim(extent[2], extent[3])
        lam = wavelengths(inverse_frequencies(d_model, base))
        turned = int(np.sum(lam <= length - 1))
        self.title.set_text(
            f"base {base:.0f}: {turned} of {d_model // 2} pairs turn fully; "
            f"longest wavelength {lam[-1]:.3g}"
        )


class StackedWavesExplorer(Explorer):
    """The sine and cosine waves of ``n_pairs`` pairs from pair ``i`` (the control), stacked,
    with the values the tokens at positions 0 .. n_tokens - 1 take marked.
    """

    def __init__(self, d_model: int = 64, n_tokens: int = 8, n_pairs: int = 2,
            base: float = 10000.0) -> None:
        d_model = check_even("d_model", d_model, minimum=4)
        n_tokens = check_int("n_tokens", n_tokens, minimum=2)
        n_pairs = check_slider_range("n_pairs", check_int("n_pairs", n_pairs), 1, d_model // 2)
        self.base = check_float("base", base, greater_than=1.0)
        super().__init__(figsize=(7.0, 4.2))
        self.d_model, self.n_pairs = d_model, n_pairs
        self.x = np.linspace(0.0, n_tokens - 1, 60 * n_tokens)
        self.curves = sinusoidal_encoding_at(self.x, d_model, self.base)
        self.tokens = sinusoidal_encoding(n_tokens, d_model, self.base)
        dims = self._dims(0)
        with self.style():
            ax = self.figure.add_subplot()
            self.art = draw_stacked_waves(ax, self.x, self.curves[:, dims],
                token_positions=np.arange(n_tokens), token_values=self.tokens[:, dims],
                labels=self._labels())
            self.title = ax.set_title("", y=1.0)  # fixed y: drawn alone
        self.ax = ax
        self.changing = [*self.art.waves, *self.art.tokens, self.title]
        self.add_control("pair", ipywidgets.IntSlider(value=0, min=0, max=d_model // 2 - n_pairs,
            description="first pair i"))
        self.refresh()

    def _dims(self, pair: int) -> list[int]:
        return list(range(2 * pair, 2 * (pair + self.n_pairs)))

    def _labels(self) -> list[str]:
        names = ["2i", "2i+1"] + [f"2(i+{p})" + suffix for p in range(1,
            self.n_pairs) for suffix in ("", "+1")]
        return [f"{'sin' if k % 2 == 0 else 'cos'}, dim {name}" for k, name in enumerate(names)]

    def update(self, pair: int) -> None:  # type: ignore[override]
        for k, j in enumerate(self._dims(pair)):
            offset = self.art.offsets[k]
            self.art.waves[k].set_ydata(self.curves[:, j] + offset)
            self.art.tokens[k].set_ydata(self.tokens[:, j] + offset)
        lam = wavelengths(inverse_frequencies(self.d_model, self.base))
        shown = ", ".join(f"{lam[i]:.3g}" for i in range(pair, pair + self.n_pairs))
        self.title.set_text(
            f"i = {pair} (dims {2 * pair}..{2 * (pair + self.n_pairs) - 1} of {self.d_model}): "
            f"wavelengths {shown}"
        )

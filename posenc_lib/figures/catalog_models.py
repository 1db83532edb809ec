"""The registered figures of notebooks 07 (biases) and 09 (RoPE in today's models), drawn as
those notebooks draw them, with their example as defaults.

Notebook: 11_figure_gallery.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from posenc_lib import plots
from posenc_lib._checks import check_choice, check_int
from posenc_lib.attention import causal_mask
from posenc_lib.bias import alibi_bias, alibi_slopes, t5_bias, t5_relative_position_bucket
from posenc_lib.figures.catalog import _one_axes_figure
from posenc_lib.figures.registry import register
from posenc_lib.frequencies import wavelengths
from posenc_lib.model_pairs import (
    PAIR_CLASSES,
    UNROTATED_KINDS,
    _span,
    classify_config_pairs,
    config_layer_kinds,
)
from posenc_lib.models import rope_frequencies_from_config
from posenc_lib.plots._common import CLASS_COLOURS, NOT_ROTATED_Y, OKABE_ITO
from posenc_lib.presets import PRESETS
from posenc_lib.rope_variants import mrope_axes

__all__: list[str] = []

AXIS_NAMES = ("t (time)", "h (height)", "w (width)")
MROPE_PRESETS = tuple(name for name, config in PRESETS.items()
                      if "mrope_section" in (config.get("rope_scaling") or {}))


@register("alibi_bias_matrix", source="notebook 07",
    description="ALiBi's bias -m_h (i - j) for two heads: the steepest and the gentlest slope.",
    look_for="Each row falls linearly to the left of the diagonal, by m per token back; "
    "head 1 falls 128 times faster than head 8, and the keys after the query are masked.")
def alibi_bias_matrix(*, n_heads: int = 8, length: int = 12, heads: tuple[int, ...] = (1, 8),
        figsize: tuple[float, float] = (8.0, 3.6)) -> Figure:
    """Notebook 07: ``alibi_bias`` of the listed heads (1-based), each with its colour bar."""
    slopes = alibi_slopes(n_heads)
    bias = alibi_bias(slopes, length)
    for head in heads:
        if not 1 <= check_int("heads", head) <= n_heads:
            raise ValueError(f"heads must lie in 1..n_heads ({n_heads}); got {head}")
    fig, axes = plots.new_figure(1, len(heads), figsize=figsize, squeeze=False)
    for ax, head in zip(axes[0], heads, strict=True):
        plots.draw_bias_matrix(ax, bias[head - 1], colorbar=True)
        ax.set_title(f"ALiBi head {head}: m = 1/{1 / slopes[head - 1]:.0f}")
    return fig


@register("t5_bias_matrix", source="notebook 07",
    description="T5's bias of one head from a random bucket table, encoder and causal decoder.",
    look_for="Near the diagonal each offset has its own colour; further away whole bands "
    "share one bucket, and in the encoder the two sides of the diagonal use different buckets.")
def t5_bias_matrix(*, length: int = 40, n_heads: int = 12, seed: int = 0,
        figsize: tuple[float, float] = (8.0, 3.6)) -> Figure:
    """Notebook 07: ``t5_bias`` of head 0 with a table drawn from N(0, 1), as if learned."""
    seed = check_int("seed", seed, minimum=0)
    table = np.random.default_rng(seed).normal(size=(32, check_int("n_heads", n_heads)))
    encoder = t5_bias(table, length)[0]
    decoder = np.where(causal_mask(length), t5_bias(table, length, bidirectional=False)[0],
        -np.inf)
    fig, axes = plots.new_figure(1, 2, figsize=figsize)
    for ax, bias, name in zip(axes, (encoder, decoder), ("encoder", "decoder, masked"),
                              strict=True):
        plots.draw_bias_matrix(ax, bias, vmin=table[:, 0].min(), vmax=table[:, 0].max())
        ax.set_title(f"T5 bias of head 0, {name}")
    return fig


@register("t5_buckets", source="notebook 07",
    description="T5's 32 buckets against the relative position, for the encoder and the decoder.",
    look_for="One bucket per offset near 0, then ever wider buckets; the last bucket of "
    "each side starts before max_distance (dashed): at 91 in the encoder, 113 in the decoder.")
def t5_buckets(*, max_offset: int = 160, num_buckets: int = 32, max_distance: int = 128,
        figsize: tuple[float, float] = (7.0, 3.4)) -> Figure:
    """Notebook 07: ``t5_relative_position_bucket`` over -max_offset .. max_offset."""
    offsets = np.arange(-check_int("max_offset", max_offset), max_offset + 1)
    buckets = {f"{name}": t5_relative_position_bucket(offsets, bidirectional=both,
        num_buckets=num_buckets, max_distance=max_distance)
        for name, both in (("encoder (bidirectional)", True), ("decoder (causal)", False))}
    fig = _one_axes_figure(figsize, f"T5's {num_buckets} buckets: exact near the query, "
        "logarithmic further away", plots.draw_curves, offsets, buckets, drawstyle="steps-mid",
        xlabel="Relative position $j - i$ (key minus query)", ylabel="Bucket")
    plots.draw_reference_lines(fig.axes[0], vertical={"-D": -float(max_distance),
        "D": float(max_distance)})
    return fig


@register("mrope_wavelengths", source="notebook 09",
    description="Which pairs M-RoPE gives to time, height and width, contiguous and interleaved.",
    look_for="Contiguous sections give time the fastest pairs and width the slowest, so "
    "height and width see very different wavelengths; interleaved, all three span the range.")
def mrope_wavelengths(*, preset: str = "qwen3-vl-4b",
        figsize: tuple[float, float] = (8.0, 5.0)) -> Figure:
    """Notebook 09: each pair's wavelength, coloured by the axis ``mrope_axes`` gives it."""
    config = PRESETS[check_choice("preset", preset, MROPE_PRESETS)]
    section = config["rope_scaling"]["mrope_section"]
    lam = wavelengths(rope_frequencies_from_config(config)[0])
    pairs = np.arange(lam.size)
    fig, axes = plots.new_figure(2, 1, figsize=figsize, sharex=True, sharey=True)
    for ax, interleaved in zip(axes, (False, True), strict=True):
        axis = mrope_axes(section, interleaved=interleaved)
        for k, name in enumerate(AXIS_NAMES):  # one call per axis: its own pairs and colour
            plots.draw_curves(ax, pairs[axis == k], {name: lam[axis == k]}, yscale="log",
                legend=False, linestyle="none", marker="o", markersize=3, color=OKABE_ITO[k],
                ylabel=r"Wavelength $\lambda_i$")
        ax.set_title(f"{preset}, mrope_section {list(section)}, "
            f"{'interleaved' if interleaved else 'contiguous'}", fontsize=10)
    axes[1].set_xlabel("Pair index $i$")
    axes[0].legend(loc="upper left", fontsize=8)
    return fig


@register("model_pairs", source="notebook 09",
    description="A model's pairs at its wavelength, classed: rotated, under one turn, "
    "interpolated, not rotated.",
    look_for="The dashed line is the distance the pairs are judged against, the context "
    "or the window: pairs under it turn fully; above it the config's rope_scaling decides.")
def model_pairs(*, preset: str = "gemma-3-27b", length: int = 32768,
        figsize: tuple[float, float] = (8.0, 5.0)) -> Figure:
    """Notebook 09's explorer as a figure: one panel per kind of layer with RoPE."""
    config = PRESETS[check_choice("preset", preset, PRESETS)]
    kinds = [kind for kind in config_layer_kinds(config) if kind not in UNROTATED_KINDS]
    fig, axes = plots.new_figure(len(kinds), 1, figsize=figsize, sharey=True, squeeze=False)
    for ax, kind in zip(axes[:, 0], kinds, strict=True):
        lam, classes = classify_config_pairs(config, length, layer_kind=kind)
        # as in the explorer: pairs that never turn drawn at NOT_ROTATED_Y, above every wavelength
        y = np.where(np.isinf(lam), NOT_ROTATED_Y, lam)
        for k, name in enumerate(PAIR_CLASSES):
            if np.any(classes == k):
                plots.draw_curves(ax, np.flatnonzero(classes == k), {name: y[classes == k]},
                    yscale="log", legend=False, linestyle="none", marker="o", markersize=3,
                    color=CLASS_COLOURS[k], ylabel=r"Wavelength $\lambda_i$")
        reach = _span(config, length, kind)  # min(L, window), as the explorer's dashed line
        plots.draw_reference_lines(ax, horizontal={f"{reach:,}": float(reach)})
        counts = np.bincount(classes, minlength=len(PAIR_CLASSES))
        parts = ", ".join(f"{n} {name}" for n, name in zip(counts, PAIR_CLASSES, strict=True) if n)
        ax.set_title(f"{preset}, {kind}, L = {length:,}: {parts}", fontsize=9)
    axes[-1, 0].set_xlabel("Pair index $i$ (rotated dims first)")
    axes[0, 0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)
    return fig


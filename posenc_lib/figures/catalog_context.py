"""The registered figures of notebooks 06 and 08, drawn as those notebooks draw them, with their
running example as defaults; a grid's empty panels are dropped.

Notebook: 11_figure_gallery.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from posenc_lib import plots
from posenc_lib._checks import check_choice, check_float, check_int
from posenc_lib.analysis import (
    DERIVED_METHODS,
    extension_positions,
    method_unseen_mask,
    unseen_angle_mask,
)
from posenc_lib.figures.catalog import _one_axes_figure
from posenc_lib.figures.registry import register
from posenc_lib.frequencies import inverse_frequencies, wavelengths
from posenc_lib.precision import angle_error, sincos_error, spacing_at
from posenc_lib.scaling import llama3_inv_freq, ntk_inv_freq, yarn_correction_range, yarn_inv_freq

__all__: list[str] = []


@register("unseen_angles", source="notebook 06",
    description="Past the trained length L, the slow pairs reach angles training never showed.",
    look_for="The vermillion cells start at the dashed line L and lie in the slow pairs "
    "(the top rows) only: the fast pairs turned full circles in training and meet nothing new.")
def unseen_angles(*, head_dim: int = 128, base: float = 10000.0, trained_length: int = 4096,
        factor: float = 8.0, n_positions: int = 512,
        figsize: tuple[float, float] = (7.0, 3.4)) -> Figure:
    """Notebook 06: unseen (position, pair) cells of unscaled RoPE up to L' = sL."""
    positions = extension_positions(trained_length, factor, n_positions)
    theta = inverse_frequencies(head_dim, base)
    unseen = unseen_angle_mask(positions, theta, theta, trained_length)
    return _one_axes_figure(figsize, "Trained frequencies past L: vermillion = never seen",
        plots.draw_unseen_angles, unseen, positions, trained_length=trained_length)


@register("unseen_by_method", source="notebook 06",
    description="The unseen-angle map of every context-extension method at the target length sL.",
    look_for="PI (linear), YaRN and Llama 3 leave unseen only a sliver at the last "
    "positions; NTK-aware and dynamic NTK leave the slowest pairs unseen far past L; unscaled "
    "RoPE (default) fails from L on.")
def unseen_by_method(*, head_dim: int = 128, base: float = 10000.0, trained_length: int = 4096,
        factor: float = 8.0, n_positions: int = 512, methods: tuple[str, ...] = DERIVED_METHODS,
        figsize: tuple[float, float] = (10.0, 5.4)) -> Figure:
    """Notebook 06: :func:`method_unseen_mask` for each method, in a grid with no empty panel."""
    positions = extension_positions(trained_length, factor, n_positions)
    for method in methods:
        check_choice("methods", method, DERIVED_METHODS)
    columns = math.ceil(len(methods) / 2) if len(methods) > 1 else 1
    fig, axes = plots.new_figure(math.ceil(len(methods) / columns), columns, figsize=figsize,
        sharex=True, sharey=True, squeeze=False)
    for ax, method in zip(axes.flat, methods, strict=False):
        mask = method_unseen_mask(method, positions, head_dim, base, factor, trained_length)
        plots.draw_unseen_angles(ax, mask, positions, trained_length=trained_length,
            xlabel=None, ylabel=None)
        ax.set_title(f"{method}: {100 * mask.mean():.1f} % unseen", fontsize=10)
    for ax in axes.flat[len(methods):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("Pair index $i$")
    for ax in axes[-1, :]:
        ax.set_xlabel("Position $m$")
    return fig


@register("yarn_code_vs_paper", source="notebook 06",
    description="YaRN's ramp as its code writes it (linear in the pair index) and as its paper "
    "does.",
    look_for="Left of low both ramps keep the pair (ratio 1) and right of high both "
    "divide it by s; over most of the ramp the paper's ratio lies below the code's: it "
    "interpolates more.")
def yarn_code_vs_paper(*, head_dim: int = 128, base: float = 10000.0, trained_length: int = 4096,
        factor: float = 8.0, beta_fast: float = 32.0, beta_slow: float = 1.0,
        figsize: tuple[float, float] = (7.0, 3.6)) -> Figure:
    """Notebook 06: theta'_i / theta_i for YaRN's code, YaRN's paper (Eq. 18) and NTK-aware."""
    theta = inverse_frequencies(head_dim, base)
    low, high = yarn_correction_range(head_dim, base, trained_length, beta_fast, beta_slow)
    code = yarn_inv_freq(head_dim, base, factor, trained_length, beta_fast, beta_slow)
    # the paper's ramp, linear in the turns r_i between beta_slow and beta_fast, is Llama 3's
    # rule with those band edges (notebook 06 checks the two agree)
    paper = llama3_inv_freq(head_dim, base, factor, beta_slow, beta_fast, trained_length)
    curves = {"YaRN, code": code / theta, "YaRN, paper": paper / theta,
              "NTK-aware": ntk_inv_freq(head_dim, base, factor) / theta}
    fig = _one_axes_figure(figsize, f"NTK-by-parts, s = {factor:g}: the code's ramp and the "
        "paper's", plots.draw_curves, np.arange(head_dim // 2), curves,
        xlabel="Pair index $i$", ylabel=r"$\theta'_i/\theta_i$", yscale="log")
    plots.draw_reference_lines(fig.axes[0], vertical={"low": low, "high": high})
    return fig


@register("llama3_bands", source="notebook 06",
    description="Llama 3.1's rule against the trained wavelength: keep, blend, divide by the "
    "factor.",
    look_for="Wavelengths shorter than L/4 keep ratio 1, those longer than L are "
    "divided by the factor, and only the few pairs between the two dashed lines are blended.")
def llama3_bands(*, head_dim: int = 128, base: float = 500000.0, factor: float = 8.0,
        low_freq_factor: float = 1.0, high_freq_factor: float = 4.0, trained_length: int = 8192,
        figsize: tuple[float, float] = (7.0, 3.4)) -> Figure:
    """Notebook 06: Llama 3.1's frequency ratio per pair, on its trained wavelength."""
    theta = inverse_frequencies(head_dim, base)
    scaled = llama3_inv_freq(head_dim, base, factor, low_freq_factor, high_freq_factor,
        trained_length)
    fig = _one_axes_figure(figsize, f"Llama 3.1: keep, blend, divide by {factor:g} "
        f"(base {base:g}, L = {trained_length})", plots.draw_curves, wavelengths(theta),
        {r"$\theta'_i/\theta_i$": scaled / theta}, marker=".",
        xlabel=r"Trained wavelength $\lambda_i$ (positions)", ylabel="Frequency ratio",
        xscale="log", yscale="log")
    plots.draw_reference_lines(fig.axes[0], vertical={
        f"L/{high_freq_factor:g}": trained_length / high_freq_factor,
        f"L/{low_freq_factor:g}": trained_length / low_freq_factor})
    return fig


@register("float_spacing", source="notebook 08",
    description="The gap between neighbouring numbers of float16, bfloat16 and float32.",
    look_for="Each gap doubles at every power of two. It reaches 1 at 1024 in float16 and "
    "128 in bfloat16, so past 2048 and 256 not every integer fits; float32 only past 2^24.")
def float_spacing(*, formats: tuple[str, ...] = ("float16", "bfloat16", "float32"),
        max_log2: float = 20.0, figsize: tuple[float, float] = (7.0, 3.4)) -> Figure:
    """Notebook 08: ``spacing_at`` for each format; float16 stops at its largest, 65504."""
    max_log2 = check_float("max_log2", max_log2, greater_than=0.0)
    magnitudes = 2.0 ** np.linspace(0.0, max_log2, 401)
    gaps = {name: spacing_at(magnitudes, name) for name in formats}
    if "float16" in gaps:  # past 65504 float16 overflows: a gap in the curve
        gaps["float16"] = np.where(magnitudes <= 65504, gaps["float16"], np.inf)
    fig = _one_axes_figure(figsize, "The gap between neighbouring numbers doubles at every power "
        "of two", plots.draw_error_curves, magnitudes, gaps, xlabel="Magnitude $|x|$",
        ylabel="Gap to the next number")
    plots.draw_reference_lines(fig.axes[0], horizontal={"gap 1": 1.0})
    return fig


@register("angle_precision", source="notebook 08",
    description="Worst angle error and sin/cos error of RoPE's angles computed in a narrow format.",
    look_for="The angle error grows in proportion to the position (slope 1 on these log "
    "axes); the sin/cos error follows it until it saturates near 2, once the angle is wrong by "
    "about pi.")
def angle_precision(*, head_dim: int = 32, base: float = 10000.0,
        formats: tuple[str, ...] = ("float16", "bfloat16", "float32"),
        max_position: float = 1.1e7, n_samples: int = 401,
        figsize: tuple[float, float] = (9.0, 3.6)) -> Figure:
    """Notebook 08: for each format, the worst pair's error at log-spaced sample positions."""
    max_position = check_float("max_position", max_position, greater_than=1.0)
    samples = np.geomspace(1.0, max_position, check_int("n_samples", n_samples, minimum=2))
    positions = np.unique(np.round(samples)).astype(np.int64)
    theta = inverse_frequencies(head_dim, base)
    fig, axes = plots.new_figure(1, 2, figsize=figsize)
    for ax, error, ylabel in ((axes[0], angle_error, "Angle error (rad)"),
                              (axes[1], sincos_error, "sin/cos error")):
        worst = {}
        for name in formats:
            fits = positions <= (65504 if name == "float16" else np.inf)  # float16 overflows
            worst[name] = np.full(positions.shape, np.inf)
            worst[name][fits] = error(positions[fits], theta, name).max(axis=1)
        plots.draw_error_curves(ax, positions, worst, ylabel=ylabel)
    plots.draw_reference_lines(axes[0], horizontal={"pi": np.pi})
    axes[0].set_title(f"Angle error, worst pair of d = {head_dim}")
    axes[1].set_title("Resulting sin/cos error")
    return fig

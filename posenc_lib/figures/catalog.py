"""The registered figures of the source write-ups (``shared/seeds/README.md``: 000 visual
walk-through, 001 study notes, 002 notebook, 003 blog post) and the course's own; defaults
reproduce the source figure where the source shows how it was drawn (002 does).

Notebook: 11_figure_gallery.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MultipleLocator

from posenc_lib import analysis, binary, plots, rope, shift, sinusoidal
from posenc_lib._checks import check_float, check_int
from posenc_lib.analysis import DERIVED_METHODS, method_frequency_ratios
from posenc_lib.figures.registry import register
from posenc_lib.frequencies import angles, inverse_frequencies
from posenc_lib.plots.heatmaps import SOURCE_HEATMAPS

__all__: list[str] = []


SOURCE_002_TICKS = (5, 1)  # write-up 002's x ticks: major every 5 positions, minor every 1


def _one_axes_figure(figsize: tuple[float, float], title: str, draw: Callable[..., object],
        *data: Any, **options: Any) -> Figure:
    """A figure of one axes: ``draw(ax, *data, **options)``, then ``title`` unless it is empty."""
    fig, ax = plots.new_figure(figsize=figsize)
    draw(ax, *data, **options)
    if title:
        ax.set_title(title)
    return fig


def _position_rows_figure(positions: tuple[int, ...], rows: Callable[[np.ndarray], np.ndarray],
        draw: Callable[..., object], title: str, figsize: tuple[float, float],
        **options: Any) -> Figure:
    """One row per position, ``rows(positions)``, drawn by ``draw`` with positions as labels."""
    where = np.asarray(positions, dtype=np.int64)
    return _one_axes_figure(figsize, title, draw, rows(where), positions=where.tolist(), **options)


def _encoding_figure(n_positions: int, d_model: int, base: float, title: str,
        figsize: tuple[float, float], draw: Callable[..., object] = plots.draw_encoding_heatmap,
        layout: str = "interleaved", **options: Any) -> Figure:
    """The encoding of ``n_positions`` positions drawn by ``draw`` (a heatmap by default)."""
    encoding = sinusoidal.sinusoidal_encoding(n_positions, d_model, base, layout=layout)
    return _one_axes_figure(figsize, title, draw, encoding, **options)


_H000, _H002, _H003 = (SOURCE_HEATMAPS[f"heatmap_00{i}"] for i in (0, 2, 3))


@register("embedding_schematic", source="000 fig 1",
    description="Each word's embedding e_n plus its orange position vector p_n is the input w_n.")
def embedding_schematic(*, sentence: str = "the cat was chasing the mouse", d_model: int = 16,
        base: float = 10000.0, seed: int = 0, figsize: tuple[float, float] = (9.0, 3.2)) -> Figure:
    """The embedding + position-vector schematic: w_n = e_n + p_n (write-up 000, figure 1)."""
    tokens = sentence.split()
    seed = check_int("seed", seed, minimum=0)
    if not tokens:
        raise ValueError(f"sentence must contain at least one word; got {sentence!r}")
    encodings = sinusoidal.sinusoidal_encoding(len(tokens), d_model, base)
    embeddings = np.random.default_rng(seed).normal(0.0, 0.5, size=encodings.shape)
    return _one_axes_figure(figsize, f"Input = word embedding + position encoding (d = {d_model})",
        plots.draw_embedding_schematic, embeddings, encodings, tokens=tokens)


@register("division_term", source="000 fig 2",
          description="The division term 1/10000^(2i/d) against the pair index i, for d = 512.")
def division_term(*, d_model: int = 512, base: float = 10000.0,
        figsize: tuple[float, float] = (7.0, 4.0)) -> Figure:
    """Step 1 of write-up 000: the division term falls from 1 towards 1/base."""
    return _one_axes_figure(figsize, f"Division term, d = {d_model}", plots.draw_division_term,
        inverse_frequencies(d_model, base), ylabel=f"$1/{base:g}^{{2i/d}}$")


@register("theta_offsets", source="000 fig 3",
          description="The angle phi = pos / 10000^(2i/d) against i (the source names it theta).")
def theta_offsets(*, d_model: int = 512, base: float = 10000.0, positions: tuple[int, ...] = (0, 1,
        2, 3, 4), figsize: tuple[float, float] = (7.0, 4.0)) -> Figure:
    """Step 2 of write-up 000: each position scales the division term, starting at phi = pos."""
    return _position_rows_figure(positions, lambda where: angles(where,
        inverse_frequencies(d_model, base)), plots.draw_angles,
        f"Angle phi = pos theta_i per pair, d = {d_model}", figsize,
        ylabel=rf"$\phi = pos / {base:g}^{{2i/d}}$")


@register("even_sin_odd_cos", source="000 fig 4",
          description="sin(theta) at the even indices and cos(theta) at the odd ones, against i.")
def even_sin_odd_cos(*, d_model: int = 512, base: float = 10000.0, positions: tuple[int, ...] = (0,
        1, 2, 3, 4), figsize: tuple[float, float] = (7.0, 4.0)) -> Figure:
    """Step 3 of write-up 000: even columns tend to 0 and odd columns to 1 as i grows."""
    return _position_rows_figure(positions, lambda where: sinusoidal.sinusoidal_encoding_at(where,
        d_model, base), plots.draw_even_odd,
        f"Sine at even indices 2i, cosine at odd indices 2i+1, d = {d_model}", figsize,
        markersize=2.5)


@register("value_by_dimension", source="000 fig 5.1",
          description="The encoding value against the dimension, sine and cosine columns apart.")
def value_by_dimension(*, d_model: int = 512, base: float = 10000.0,
        positions: tuple[int, ...] = (0, 1, 2, 3, 4), figsize: tuple[float, float] = (7.0,
        5.0)) -> Figure:
    """Step 4 of write-up 000: each position's vector; sine columns on top, cosine below
    (on the source's single axes they alternate and fill the band between them)."""
    where = np.asarray(positions, dtype=np.int64)
    encoding = sinusoidal.sinusoidal_encoding_at(where, d_model, base)
    fig, axes = plots.new_figure(2, 1, figsize=figsize, sharex=True)
    for ax, columns in zip(axes, ("sin", "cos"), strict=True):
        plots.draw_values_by_dimension(ax, encoding, positions=where.tolist(), columns=columns,
            legend=columns == "sin", xlabel="Dimension $j$" if columns == "cos" else None,
            ylabel=f"{columns} columns", linewidth=0.9)
    axes[0].set_title(f"Positional encoding value per dimension, d = {d_model}")
    return fig


@register("heatmap_000", source="000 fig 5.2",
          description="Heatmap of the encoding for 100 positions x 512 dimensions.")
def heatmap_000(*, n_positions: int = _H000["n_positions"], d_model: int = _H000["d_model"],
        base: float = 10000.0, layout: str = "interleaved", cmap: str = _H000["cmap"],
        figsize: tuple[float, float] = (7.0, 4.0)) -> Figure:
    """Step 5 of write-up 000: one row per position, dimensions along x (diverging colormap)."""
    title = f"Positional encoding, {n_positions} positions x {d_model} dimensions"
    # 512 columns in about 540 pixels: filtered, or "nearest" would draw moiré stripes
    return _encoding_figure(n_positions, d_model, base, title, figsize, layout=layout, cmap=cmap,
        colorbar=True, interpolation="antialiased")


@register("stacked_waves", source="001 sine/cosine waves",
    description="One sine or cosine wave per dimension, stacked, with the token positions marked.")
def stacked_waves(*, d_model: int = 4, base: float = 10000.0, n_tokens: int = 3,
        length: float = 10.0, figsize: tuple[float, float] = (7.0, 4.5)) -> Figure:
    """Write-up 001: token p reads dimension j off wave j at x = p; each wave's formula is
    written inside the axes, right of its end."""
    length = check_float("length", length, greater_than=0.0)
    n_tokens = check_int("n_tokens", n_tokens)
    x = np.linspace(0.0, length, 501)
    theta = inverse_frequencies(d_model, base)
    fig, ax = plots.new_figure(figsize=figsize)
    art = plots.draw_stacked_waves(ax, x, sinusoidal.sinusoidal_encoding_at(x, d_model, base),
        token_positions=np.arange(n_tokens), token_values=sinusoidal.sinusoidal_encoding(n_tokens,
        d_model, base), labels=[f"dim {j}" for j in range(d_model)])
    for j, offset in enumerate(art.offsets):
        formula = f"{'sin' if j % 2 == 0 else 'cos'}({theta[j // 2]:.3g} pos)"
        ax.text(1.03 * length, offset, formula, ha="left", va="center", fontsize=9,
                backgroundcolor="white")
    ticks = [tick for tick in ax.get_xticks() if 0.0 <= tick <= length]
    ax.set_xlim(-0.05 * length, 1.3 * length)  # room for the formulas right of the waves
    ax.set_xticks(ticks)
    ax.spines["bottom"].set_bounds(0.0, length)
    ax.set_title(f"Sine/cosine waves of d_model = {d_model}, tokens at positions 0..{n_tokens - 1}")
    return fig


@register(
    "table_d_model_4", source="001 d_model=4 table",
    description="The worked d_model = 4 table; the last row is position 3 (the source says pos 4).",
)
def table_d_model_4(*, n_positions: int = 4, d_model: int = 4, base: float = 10000.0,
        digits: int = 8, figsize: tuple[float, float] = (7.0, 2.2)) -> Figure:
    """Write-up 001's table, computed, with every row labelled by its true position."""
    digits = check_int("digits", digits, minimum=0)
    return _encoding_figure(n_positions, d_model, base,
        f"PE for d_model = {d_model}, positions 0..{n_positions - 1}", figsize,
        plots.draw_value_table, row_labels=[f"pos {p}" for p in range(n_positions)],
        col_labels=[f"{'sin' if j % 2 == 0 else 'cos'}, i={j // 2}" for j in range(d_model)],
        fmt=f"{{:.{digits}f}}")


def _binary_figure(n_positions: int, n_bits: int, columns: int, by_rate: bool,
        figsize: tuple[float, float], title: str) -> Figure:
    bits = binary.binary_table(n_positions, n_bits)
    columns = check_int("columns", columns)
    if columns > n_positions:
        raise ValueError(f"columns must be <= n_positions ({n_positions}); got {columns}")
    periods = binary.bit_periods(bits.shape[1]) if by_rate else None
    fig, axes = plots.new_figure(1, columns, figsize=figsize, squeeze=False)
    blocks = np.array_split(np.arange(n_positions), columns)
    for ax, rows in zip(axes[0], blocks, strict=True):
        plots.draw_binary_table(ax, bits[rows], periods=periods, row_labels=[str(p) for p in rows],
            ylabel="Position" if rows[0] == 0 else None)
    fig.suptitle(title)
    return fig


@register("binary_table", source="001 binary table",
          description="Positions 0..15 written in 4 bits, most significant bit first.")
def binary_table(*, n_positions: int = 16, n_bits: int = 4, columns: int = 1,
        figsize: tuple[float, float] = (3.0, 5.0)) -> Figure:
    """Write-up 001's 0..15 table: bit k repeats with period 2^(k+1)."""
    return _binary_figure(n_positions, n_bits, columns, False, figsize,
        f"Positions 0..{n_positions - 1} in binary")


@register("heatmap_002", source="002 heatmap",
          description="encoding.T for 100 positions x 300 dimensions, coolwarm with a colorbar.")
def heatmap_002(*, n_positions: int = _H002["n_positions"], d_model: int = _H002["d_model"],
        base: float = 10000.0, cmap: str = _H002["cmap"], aspect: float = 0.3,
        figsize: tuple[float, float] = (10.0, 10.0)) -> Figure:
    """Write-up 002: dimension on y, position on x, as the source draws it (10 x 10 inches,
    aspect 0.3, no interpolation, ticks every 5); its x label "Text length" becomes "Position"."""
    fig = _encoding_figure(n_positions, d_model, base, "", figsize, transpose=True, cmap=cmap,
        colorbar=True, aspect=aspect, interpolation="none", position_label="Position",
        dimension_label="Dimension")
    heatmap = fig.axes[0]  # the colorbar's axes comes second
    heatmap.xaxis.set_major_locator(MultipleLocator(SOURCE_002_TICKS[0]))
    heatmap.xaxis.set_minor_locator(MultipleLocator(SOURCE_002_TICKS[1]))
    return fig


@register("heatmap_003", source="003 figure 2",
          description="The 128-dimensional encoding for 50 positions, one row per position vector.")
def heatmap_003(*, n_positions: int = _H003["n_positions"], d_model: int = _H003["d_model"],
        base: float = 10000.0, cmap: str = _H003["cmap"],
        figsize: tuple[float, float] = (7.0, 4.0)) -> Figure:
    """Write-up 003, figure 2: each row is the vector p_t of one position t."""
    title = f"{d_model}-dimensional encoding, {n_positions} positions"
    return _encoding_figure(n_positions, d_model, base, title, figsize, cmap=cmap, colorbar=True,
        origin="lower")


@register("binary_bit_rate", source="003 binary table",
    description="Positions 0..15 in binary, each set bit coloured by how fast its column flips.")
def binary_bit_rate(*, n_positions: int = 16, n_bits: int = 4, columns: int = 2,
        figsize: tuple[float, float] = (5.0, 3.6)) -> Figure:
    """Write-up 003's table in two blocks: fast bits dark red, slow bits light orange."""
    return _binary_figure(n_positions, n_bits, columns, True, figsize,
        "Bits coloured by rate of change (period 2, 4, 8, 16)")


@register("dot_product_matrix", source="003 figure 3",
    description="PE(t)·PE(t') for all pairs of positions: symmetric, a function of t'-t only.")
def dot_product_matrix(*, n_positions: int = 50, d_model: int = 128, base: float = 10000.0,
        cmap: str = "viridis", figsize: tuple[float, float] = (5.5, 4.5)) -> Figure:
    """Write-up 003, figure 3: the dot products decay with distance, symmetrically."""
    return _encoding_figure(n_positions, d_model, base,
        f"Dot product of position encodings, d = {d_model}", figsize,
        lambda ax, encoding: plots.draw_similarity_matrix(ax, analysis.similarity_matrix(encoding),
        cmap=cmap))


@register(
    "frequency_ratio",
    source="course",
    description="Scaled / original RoPE frequency per pair for every context-extension method.",
)
def frequency_ratio(
    *,
    head_dim: int = 128,
    base: float = 10000.0,
    factor: float = 8.0,
    trained_length: int = 4096,
    methods: tuple[str, ...] = DERIVED_METHODS,
    figsize: tuple[float, float] = (8.0, 4.4),
) -> Figure:
    """Notebook 06's key picture: where each method interpolates and where it extrapolates.

    The defaults are notebook 06's example, and the curves come from the same function,
    :func:`posenc_lib.analysis.method_frequency_ratios` (dynamic NTK with factor 1 at the target
    length, llama3 with band edges 1 and 4; LongRoPE's searched factors are not derived).
    """
    ratios = method_frequency_ratios(head_dim, base, factor, trained_length, tuple(methods))
    title = (
        f"Frequency ratio per pair: d = {head_dim}, base = {base:g}, "
        f"L = {trained_length}, s = {factor:g}"
    )
    fig = _one_axes_figure(figsize, title, plots.draw_frequency_ratios, ratios, factor=factor)
    fig.axes[0].legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig


@register("rope_decay_bound", source="course",
    description="RoFormer's long-term decay bound against relative distance; it is not monotonic.")
def rope_decay_bound(*, head_dim: int = 128, base: float = 10000.0, max_distance: int = 1024,
        figsize: tuple[float, float] = (7.0, 4.0)) -> Figure:
    """Notebook 05: (1/(d/2)) sum_j |S_j| falls with distance, with bounces."""
    distances = np.arange(check_int("max_distance", max_distance) + 1)
    return _one_axes_figure(figsize,
        f"RoPE long-term decay bound, d = {head_dim}, base = {base:g}",
        plots.draw_decay_bound, distances, rope.rope_decay_bound(distances, head_dim, base))


@register("unit_circle_rotation", source="course",
          description="The point at angle theta*t rotated by theta*k lands at theta*(t+k).")
def unit_circle_rotation(*, theta: float = 0.5, position: float = 1.0, offset: float = 2.0,
        figsize: tuple[float, float] = (4.5, 4.5)) -> Figure:
    """Notebook 04: shifting by k positions is a rotation by theta*k that ignores t."""
    # angle = theta * t
    angle = theta * position
    start = shift.rotation_matrix(angle) @ np.array([1.0, 0.0])
    end = shift.rotation_matrix(theta * offset) @ start
    return _one_axes_figure(figsize,
        rf"Shift by k = {offset:g}: rotate by $\theta k$ = {theta * offset:g}",
        plots.draw_unit_circle, start, end, point_label=rf"$\theta t$ = {angle:g}",
        rotated_label=rf"$\theta(t+k)$ = {theta * (position + offset):g}")

"""Sinusoid pictures: the frequencies, angles and values of the (sin, cos) pairs, and waves.

Notebooks: 01_binary_counting, 02_sinusoidal_formula, 04_rotation_proof and 11_figure_gallery.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import check_choice, check_float
from posenc_lib.plots._common import (
    BLUE,
    GUIDE_GREY,
    OKABE_ITO,
    VERMILLION,
    as_matrix,
    as_vector,
    check_axes,
    legend_markers,
    row_labels,
    set_labels,
)

__all__ = [
    "draw_angles", "draw_division_term", "draw_even_odd", "draw_pair_waves", "draw_stacked_waves",
    "draw_values_by_dimension",
]

_COLUMNS = {"all": slice(None), "sin": slice(0, None, 2), "cos": slice(1, None, 2)}
"""The columns ``draw_values_by_dimension`` draws for each choice."""


def draw_division_term(
    ax: Axes,
    division_term: ArrayLike,
    *,
    ylabel: str | None = r"Division term $1/10000^{2i/d}$",
    **style: Any,
) -> Line2D:
    """Draw the frequency theta_i = base^(-2i/d) of every pair against i (step 1 of the formula).

    ``division_term`` is ``inverse_frequencies(d_model, base)``, shape (d_model // 2,).
    Returns the line (x = i).
    """
    ax = check_axes(ax)
    values = as_vector("division_term", division_term)
    (line,) = ax.plot(np.arange(values.size), values, **style)
    set_labels(ax, "Pair index $i$", ylabel)
    return line


def _curve_per_row(
    ax: Axes,
    name: str,
    rows: ArrayLike,
    positions: Sequence[Any] | None,
    xlabel: str | None,
    ylabel: str | None,
    columns: slice = slice(None),
    **style: Any,
) -> tuple[list[Line2D], list[str]]:
    """One line per row of ``rows`` (the ``columns`` chosen, each at its index), with labels."""
    ax = check_axes(ax)
    full = as_matrix(name, rows)
    labels = row_labels("positions", positions, full.shape[0], "pos")
    index = np.arange(full.shape[1])[columns]
    lines = [
        ax.plot(index, row, label=label, **style)[0]
        for row, label in zip(full[:, columns], labels, strict=True)
    ]
    set_labels(ax, xlabel, ylabel)
    return lines, labels


def draw_angles(
    ax: Axes,
    angles: ArrayLike,
    positions: Sequence[Any] | None = None,
    *,
    ylabel: str | None = r"$\phi = pos / 10000^{2i/d}$",
    **style: Any,
) -> list[Line2D]:
    """Draw the angle phi = pos * theta_i against i, one line per position (step 2)."""
    lines, _ = _curve_per_row(ax, "angles", angles, positions, "Pair index $i$", ylabel, **style)
    ax.legend(loc="upper right")
    return lines


def draw_even_odd(
    ax: Axes,
    encoding: ArrayLike,
    positions: Sequence[Any] | None = None,
    **style: Any,
) -> tuple[list[Line2D], list[Line2D]]:
    """Draw sin at the even columns and cos at the odd columns against i (step 3).
    PE(pos, 2i) = sin(pos theta_i) tends to 0 as i grows, PE(pos, 2i+1) = cos(pos theta_i) to 1.
    """
    ax = check_axes(ax)
    matrix = as_matrix("encoding", encoding)
    if matrix.shape[1] % 2:
        raise ValueError(
            "encoding must have an even number of columns (sin/cos pairs); "
            f"got shape {matrix.shape}"
        )
    labels = row_labels("positions", positions, matrix.shape[0], "pos")
    index = np.arange(matrix.shape[1] // 2)
    style.setdefault("linestyle", "none")
    sin_lines: list[Line2D] = []
    cos_lines: list[Line2D] = []
    for row, label in zip(matrix, labels, strict=True):
        (sin_line,) = ax.plot(index, row[0::2], marker="o", label=f"{label}: sin", **style)
        (cos_line,) = ax.plot(index, row[1::2], marker="x", color=sin_line.get_color(),
                              label=f"{label}: cos", **style)
        sin_lines.append(sin_line)
        cos_lines.append(cos_line)
    set_labels(ax, "Pair index $i$", "Value")
    handles = legend_markers([line.get_color() for line in sin_lines], "s")
    handles += legend_markers(["black"], "o") + legend_markers(["black"], "x")
    ax.legend(handles, [*labels, "sin, even index 2i", "cos, odd index 2i+1"], loc="upper left",
              bbox_to_anchor=(1.0, 1.0))
    return sin_lines, cos_lines


def draw_values_by_dimension(
    ax: Axes,
    encoding: ArrayLike,
    positions: Sequence[Any] | None = None,
    *,
    columns: str = "all",
    legend: bool = True,
    xlabel: str | None = "Dimension $j$",
    ylabel: str | None = "PE(pos, $j$)",
    **style: Any,
) -> list[Line2D]:
    """Draw each position's encoding vector as a curve of value against dimension (step 4)."""
    choice = check_choice("columns", columns, tuple(_COLUMNS))
    style.setdefault("linewidth", 1.0)
    lines, labels = _curve_per_row(
        ax, "encoding", encoding, positions, xlabel, ylabel, columns=_COLUMNS[choice], **style
    )
    if legend:
        ax.legend(loc="lower right", ncols=2 if len(labels) > 4 else 1)
    return lines


class StackedWaves(NamedTuple):
    """Artists of ``draw_stacked_waves``: wave j's curve (y = ``waves[:, j] + offsets[j]``), its
    markers at the token positions (none without tokens) and its vertical offset."""

    waves: list[Line2D]
    tokens: list[Line2D]
    offsets: list[float]


def draw_stacked_waves(
    ax: Axes,
    x: ArrayLike,
    waves: ArrayLike,
    *,
    token_positions: ArrayLike | None = None,
    token_values: ArrayLike | None = None,
    labels: Sequence[str] | None = None,
    spacing: float = 2.5,
    **style: Any,
) -> StackedWaves:
    """Draw one wave per dimension, stacked bottom-up, with the token positions marked."""
    ax = check_axes(ax)
    samples, matrix, marks = _stack_data(x, waves, token_positions, token_values)
    gap = check_float("spacing", spacing, greater_than=0.0)
    n_waves = matrix.shape[1]
    names = row_labels("labels", labels, n_waves, "" if labels is not None else "dim")
    art = StackedWaves([], [], [j * gap for j in range(n_waves)])
    for j, offset in enumerate(art.offsets):
        ax.axhline(offset, color=GUIDE_GREY, linewidth=0.6, zorder=0)
        (wave,) = ax.plot(samples, matrix[:, j] + offset, **style)
        art.waves.append(wave)
        if marks is not None:
            where, values = marks
            (dots,) = ax.plot(where, values[:, j] + offset, linestyle="none", marker="o",
                              markersize=6, color=wave.get_color(), markeredgecolor="black",
                              zorder=3)
            art.tokens.append(dots)
    for position in [] if marks is None else marks[0]:
        ax.axvline(position, color="#888888", linestyle=":", linewidth=0.8, zorder=0)
    ax.set_yticks(art.offsets, names)
    ax.grid(False, axis="y")
    ax.set_xlabel("Position")
    return art


def _stack_data(
    x: ArrayLike, waves: ArrayLike, token_positions: ArrayLike | None,
    token_values: ArrayLike | None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], tuple[NDArray[np.float64], ...] | None]:
    """The samples, the waves there and (None without tokens) the token positions and values."""
    samples = as_vector("x", x)
    matrix = as_matrix("waves", waves)
    if matrix.shape[0] != samples.size:
        raise ValueError(
            f"waves must have one row per sample of x ({samples.size}); got shape {matrix.shape}"
        )
    if (token_positions is None) != (token_values is None):
        raise ValueError("token_positions and token_values must be given together")
    if token_positions is None:
        return samples, matrix, None
    where = as_vector("token_positions", token_positions)
    values = as_matrix("token_values", token_values)
    if values.shape != (where.size, matrix.shape[1]):
        raise ValueError(
            f"token_values must have shape {(where.size, matrix.shape[1])} (tokens, waves); "
            f"got {values.shape}"
        )
    return samples, matrix, (where, values)


@dataclass
class PairWaves:
    """Artists of :func:`draw_pair_waves` (``now`` and ``later``: the sine and cosine values at t
    and t + k); ``update`` moves them in place."""

    sine: Line2D
    cosine: Line2D
    now: Line2D
    later: Line2D
    now_line: Line2D
    later_line: Line2D
    positions: NDArray[np.float64]

    def update(self, omega: float, t: float, k: float) -> None:
        """Redraw the waves for the frequency ``omega``; move the markers to ``t`` and ``t + k``."""
        w = check_float("omega", omega)
        start = check_float("t", t)
        end = start + check_float("k", k)
        self.sine.set_ydata(np.sin(w * self.positions))
        self.cosine.set_ydata(np.cos(w * self.positions))
        self.now.set_data([start, start], [np.sin(w * start), np.cos(w * start)])
        self.later.set_data([end, end], [np.sin(w * end), np.cos(w * end)])
        self.now_line.set_xdata([start, start])
        self.later_line.set_xdata([end, end])


def draw_pair_waves(
    ax: Axes,
    positions: ArrayLike,
    omega: float,
    t: float,
    k: float,
) -> PairWaves:
    """Draw one (sin, cos) pair as two waves, with markers at positions t and t + k.
    The markers show sin(theta t), cos(theta t) and sin(theta (t+k)), cos(theta (t+k)): the
    values the matrix M_k maps onto each other.
    """
    ax = check_axes(ax)
    x = as_vector("positions", positions)
    if x.size < 2:
        raise ValueError(f"positions must hold at least 2 samples; got {x.size}")
    (sine,) = ax.plot(x, np.zeros_like(x), color=OKABE_ITO[2], label=r"$\sin(\theta t)$")
    (cosine,) = ax.plot(x, np.zeros_like(x), color=OKABE_ITO[1], label=r"$\cos(\theta t)$")
    now_line = ax.axvline(0.0, color=BLUE, linewidth=0.8, linestyle=":")
    later_line = ax.axvline(0.0, color=VERMILLION, linewidth=0.8, linestyle=":")
    (now,) = ax.plot([0.0, 0.0], [0.0, 0.0], "o", color=BLUE, markersize=7, label="$t$")
    (later,) = ax.plot([0.0, 0.0], [0.0, 0.0], "o", color=VERMILLION, markersize=7,
                       label="$t+k$")
    art = PairWaves(sine, cosine, now, later, now_line, later_line, x)
    art.update(omega, t, k)
    ax.set_ylim(-1.15, 1.8)
    ax.set_xlim(float(x.min()), float(x.max()))
    set_labels(ax, "Position", "Value")
    ax.legend(loc="upper center", ncols=4, fontsize=8)
    return art

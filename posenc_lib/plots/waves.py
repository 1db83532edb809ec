"""Sinusoid pictures: the frequencies, angles and values of the (sin, cos) pairs, and waves.

Notebooks: 01_binary_counting, 02_sinusoidal_formula, 04_rotation_proof and 11_figure_gallery.

The step-by-step picture of the sinusoidal formula (division term, angles, sine at the even and
cosine at the odd columns, the value against dimension), one wave per dimension stacked with
the token positions marked, and one pair as two waves with markers at t and t + k. Each
``draw_*`` takes an ``Axes`` and data already computed with the math modules, draws it and
returns the artists it created, so an explorer can update them in place.
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
    OKABE_ITO,
    as_matrix,
    as_vector,
    check_axes,
    row_labels,
    set_labels,
)

__all__ = [
    "PairWaves",
    "StackedWaves",
    "draw_angles",
    "draw_division_term",
    "draw_even_odd",
    "draw_pair_waves",
    "draw_stacked_waves",
    "draw_values_by_dimension",
]


def draw_division_term(
    ax: Axes,
    division_term: ArrayLike,
    *,
    xlabel: str | None = "Pair index $i$",
    ylabel: str | None = r"Division term $1/10000^{2i/d}$",
    **style: Any,
) -> Line2D:
    """Draw the division term (the frequency) of every sine/cosine pair against its index i.

    Step 1 of the step-by-step picture of the formula.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    division_term : array_like, shape (d_model // 2,)
        ``inverse_frequencies(d_model, base)``: the frequency theta_i = 1 / base^(2i/d_model).
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to ``Axes.plot``.

    Returns
    -------
    matplotlib.lines.Line2D
        x is i = 0 .. d_model/2 - 1 and y is ``division_term``.

    Notes
    -----
    ``theta_i = base^(-2i/d)`` falls geometrically from 1 at i = 0 to base^(-(d-2)/d) at the last
    pair.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> line = draw_division_term(ax, 10000.0 ** (-np.arange(4) / 4))
    >>> np.round(line.get_ydata(), 4)
    array([1.  , 0.1 , 0.01 , 0.001])
    """
    ax = check_axes(ax)
    values = as_vector("division_term", division_term)
    (line,) = ax.plot(np.arange(values.size), values, **style)
    set_labels(ax, xlabel, ylabel)
    return line


def _position_labels(matrix: np.ndarray, positions: Sequence[Any] | None) -> list[str]:
    """Legend labels of the rows of ``matrix``: "pos p" for each of ``positions``."""
    return row_labels("positions", positions, matrix.shape[0], "pos")


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
    """One line per row of the matrix ``rows`` against its column index, labelled by position.

    Only the columns selected by ``columns`` are drawn, each at its own index. Returns the lines
    and their legend labels.
    """
    ax = check_axes(ax)
    full = as_matrix(name, rows)
    labels = _position_labels(full, positions)
    index = np.arange(full.shape[1])[columns]
    matrix = full[:, columns]
    lines = [
        ax.plot(index, row, label=label, **style)[0]
        for row, label in zip(matrix, labels, strict=True)
    ]
    set_labels(ax, xlabel, ylabel)
    return lines, labels


def draw_angles(
    ax: Axes,
    angles: ArrayLike,
    positions: Sequence[Any] | None = None,
    *,
    legend: bool = True,
    xlabel: str | None = "Pair index $i$",
    ylabel: str | None = r"$\phi = pos / 10000^{2i/d}$",
    **style: Any,
) -> list[Line2D]:
    """Draw the angle phi = pos * theta_i against i, one line per position.

    Step 2 of the step-by-step picture: the position as an offset.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    angles : array_like, shape (n_positions, d_model // 2)
        ``angles(positions, inverse_frequencies(d_model, base))``.
    positions : sequence, optional
        Legend labels of the rows (the positions); ``0 .. n-1`` when omitted.
    legend : bool, default True
        Add a legend of the positions, upper right.
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to the ``Axes.plot`` call of each position.

    Returns
    -------
    list of matplotlib.lines.Line2D
        One line per row of ``angles``; line p has y = ``angles[p]``.

    Notes
    -----
    ``phi(pos, i) = pos * theta_i = pos * base^(-2i/d)``: at i = 0 the angle equals pos itself,
    and every curve decays towards 0 as i grows.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> lines = draw_angles(ax, np.outer([1, 2], [1.0, 0.1]), positions=[1, 2])
    >>> [line.get_label() for line in lines], lines[1].get_ydata().tolist()
    (['pos 1', 'pos 2'], [2.0, 0.2])
    """
    lines, _ = _curve_per_row(ax, "angles", angles, positions, xlabel, ylabel, **style)
    if legend:
        ax.legend(loc="upper right")
    return lines


def draw_even_odd(
    ax: Axes,
    encoding: ArrayLike,
    positions: Sequence[Any] | None = None,
    *,
    legend: bool = True,
    xlabel: str | None = "Pair index $i$",
    ylabel: str | None = "Value",
    **style: Any,
) -> tuple[list[Line2D], list[Line2D]]:
    """Draw sin at the even columns and cos at the odd columns against i, for each position.

    Step 3 of the step-by-step picture: sine at 2i, cosine at 2i+1.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    encoding : array_like, shape (n_positions, d_model)
        Rows of an interleaved encoding, one per position to show (for example
        ``sinusoidal_encoding(5, 512)``).
    positions : sequence, optional
        Legend labels of the rows; ``0 .. n-1`` when omitted.
    legend : bool, default True
        Add a legend outside the axes, on the right: one colour per position, round markers
        for sin and crosses for cos.
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to every ``Axes.plot`` call (markers only, no connecting line, by default).

    Returns
    -------
    sin_lines, cos_lines : list of matplotlib.lines.Line2D
        For row p: ``sin_lines[p]`` has y = ``encoding[p, 0::2]`` (round markers) and
        ``cos_lines[p]`` has y = ``encoding[p, 1::2]`` (cross markers), both against i.

    Notes
    -----
    ``PE(pos, 2i) = sin(phi)`` and ``PE(pos, 2i+1) = cos(phi)`` with the angle
    ``phi = pos * theta_i``; as i grows phi -> 0, so the even columns tend to 0 and the odd
    ones to 1.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> sines, cosines = draw_even_odd(ax, [[0.0, 1.0, 0.0, 1.0]])
    >>> sines[0].get_ydata().tolist(), cosines[0].get_ydata().tolist()
    ([0.0, 0.0], [1.0, 1.0])
    """
    ax = check_axes(ax)
    matrix = as_matrix("encoding", encoding)
    if matrix.shape[1] % 2:
        raise ValueError(
            "encoding must have an even number of columns (sin/cos pairs); "
            f"got shape {matrix.shape}"
        )
    labels = _position_labels(matrix, positions)
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
    set_labels(ax, xlabel, ylabel)
    if legend:
        _even_odd_legend(ax, sin_lines, labels)
    return sin_lines, cos_lines


def _even_odd_legend(ax: Axes, sin_lines: list[Line2D], labels: Sequence[str]) -> None:
    """One colour per position, then the two marker shapes (sin round, cos cross)."""
    handles = [
        Line2D([], [], color=line.get_color(), marker="s", linestyle="none")
        for line in sin_lines
    ]
    handles += [
        Line2D([], [], color="black", marker="o", linestyle="none"),
        Line2D([], [], color="black", marker="x", linestyle="none"),
    ]
    ax.legend(
        handles,
        [*labels, "sin, even index 2i", "cos, odd index 2i+1"],
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
    )


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
    """Draw each position's encoding vector as a curve of value against dimension.

    Step 4 of the step-by-step picture: the value against dimension.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    encoding : array_like, shape (n_positions, d_model)
        One row per position to show (interleaved: sine in the even columns).
    positions : sequence, optional
        Legend labels of the rows; ``0 .. n-1`` when omitted.
    columns : {"all", "sin", "cos"}, default "all"
        Which columns to draw, each at its own dimension j: every column, the sine columns
        (j even) or the cosine columns (j odd). Drawn together, the interleaved columns zigzag
        between the sine (tending to 0) and the cosine (tending to 1) and fill the band between
        them; draw "sin" and "cos" on two axes to read them.
    legend : bool, default True
        Add a legend of the positions, lower right (two columns beyond four).
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to every ``Axes.plot`` call (line width 1 unless given).

    Returns
    -------
    list of matplotlib.lines.Line2D
        Line p has x = the chosen dimensions j and y = ``encoding[p, j]``.

    Notes
    -----
    ``PE(pos, 2i) = sin(pos theta_i)`` and ``PE(pos, 2i+1) = cos(pos theta_i)`` with
    ``theta_i = base^(-2i/d)``.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> lines = draw_values_by_dimension(ax, [[0.0, 1.0], [0.5, 0.8]], positions=[0, 1])
    >>> len(lines), lines[1].get_ydata().tolist()
    (2, [0.5, 0.8])
    >>> [line.get_xdata().tolist() for line in draw_values_by_dimension(
    ...     ax, [[0.0, 1.0, 0.1, 0.9]], columns="cos", legend=False)]
    [[1, 3]]
    """
    choice = check_choice("columns", columns, tuple(_COLUMNS))
    style.setdefault("linewidth", 1.0)
    lines, labels = _curve_per_row(
        ax, "encoding", encoding, positions, xlabel, ylabel, columns=_COLUMNS[choice], **style
    )
    if legend:
        ax.legend(loc="lower right", ncols=2 if len(labels) > 4 else 1)
    return lines


_COLUMNS = {"all": slice(None), "sin": slice(0, None, 2), "cos": slice(1, None, 2)}
"""The columns ``draw_values_by_dimension`` draws for each choice."""


class StackedWaves(NamedTuple):
    """Artists of ``draw_stacked_waves``: one curve and one marker line per wave."""

    waves: list[Line2D]
    """Wave j: x = the sample positions, y = ``waves[:, j] + j * spacing``."""
    tokens: list[Line2D]
    """Markers of wave j at the token positions (empty when no tokens are given)."""
    offsets: list[float]
    """Vertical offset of each wave (subtract it from ``get_ydata()`` to get the values)."""


def draw_stacked_waves(
    ax: Axes,
    x: ArrayLike,
    waves: ArrayLike,
    *,
    token_positions: ArrayLike | None = None,
    token_values: ArrayLike | None = None,
    labels: Sequence[str] | None = None,
    spacing: float = 2.5,
    xlabel: str | None = "Position",
    **style: Any,
) -> StackedWaves:
    """Draw one wave per dimension, stacked bottom-up, with the token positions marked.

    The stacked-waves picture of write-up 001.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    x : array_like, shape (n_samples,)
        Positions where the continuous waves are sampled (fractional positions allowed).
    waves : array_like, shape (n_samples, n_waves)
        Wave j is column j (for example ``sinusoidal_encoding_at(x, d_model)``); wave 0 is
        drawn at the bottom.
    token_positions : array_like, shape (n_tokens,), optional
        Integer token positions to mark on every wave.
    token_values : array_like, shape (n_tokens, n_waves), optional
        The encoding at the token positions; required with ``token_positions``.
    labels : sequence of str, optional
        One y tick label per wave; ``dim 0 .. n_waves-1`` when omitted.
    spacing : float, default 2.5
        Vertical distance between the zero lines of consecutive waves (waves lie in [-1, 1]).
    xlabel : str or None
        x axis label; None leaves it unchanged.
    **style
        Passed on to the ``Axes.plot`` call of every wave.

    Returns
    -------
    StackedWaves
        ``waves``, ``tokens`` (lists of Line2D, one per wave) and the vertical ``offsets``.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> x = np.linspace(0, 3, 31)
    >>> waves = np.stack([np.sin(x), np.cos(x)], axis=1)
    >>> art = draw_stacked_waves(ax, x, waves, token_positions=[0, 1, 2],
    ...                          token_values=np.stack([np.sin([0, 1, 2]), np.cos([0, 1, 2])], 1))
    >>> len(art.waves), art.offsets, np.round(art.tokens[1].get_ydata() - art.offsets[1], 4)
    (2, [0.0, 2.5], array([ 1.    ,  0.5403, -0.4161]))
    """
    ax = check_axes(ax)
    samples, matrix = _sampled_waves(x, waves)
    gap = check_float("spacing", spacing, greater_than=0.0)
    n_waves = matrix.shape[1]
    names = row_labels("labels", labels, n_waves, "" if labels is not None else "dim")
    marks = _token_marks(token_positions, token_values, n_waves)
    offsets = [j * gap for j in range(n_waves)]
    wave_lines: list[Line2D] = []
    token_lines: list[Line2D] = []
    for j, offset in enumerate(offsets):
        ax.axhline(offset, color="#BBBBBB", linewidth=0.6, zorder=0)
        (line,) = ax.plot(samples, matrix[:, j] + offset, **style)
        wave_lines.append(line)
        if marks is not None:
            (dots,) = ax.plot(marks[0], marks[1][:, j] + offset, linestyle="none", marker="o",
                              markersize=6, color=line.get_color(), markeredgecolor="black",
                              zorder=3)
            token_lines.append(dots)
    if marks is not None:
        for position in marks[0]:
            ax.axvline(position, color="#888888", linestyle=":", linewidth=0.8, zorder=0)
    ax.set_yticks(offsets, names)
    ax.grid(False, axis="y")
    set_labels(ax, xlabel, None)
    return StackedWaves(wave_lines, token_lines, offsets)


def _sampled_waves(x: ArrayLike, waves: ArrayLike) -> tuple[NDArray[np.float64],
                                                             NDArray[np.float64]]:
    """The sample positions and the waves there (one row per sample), checked."""
    samples = as_vector("x", x)
    matrix = as_matrix("waves", waves)
    if matrix.shape[0] != samples.size:
        raise ValueError(
            f"waves must have one row per sample of x ({samples.size}); got shape {matrix.shape}"
        )
    return samples, matrix


def _token_marks(
    token_positions: ArrayLike | None, token_values: ArrayLike | None, n_waves: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """The token positions and the encoding there, checked; None when no tokens are given."""
    if (token_positions is None) != (token_values is None):
        raise ValueError("token_positions and token_values must be given together")
    if token_positions is None:
        return None
    where = as_vector("token_positions", token_positions)
    values = as_matrix("token_values", token_values)
    if values.shape != (where.size, n_waves):
        raise ValueError(
            f"token_values must have shape {(where.size, n_waves)} (tokens, waves); "
            f"got {values.shape}"
        )
    return where, values


@dataclass
class PairWaves:
    """Artists of :func:`draw_pair_waves`; ``update`` moves them in place."""

    sine: Line2D
    cosine: Line2D
    now: Line2D
    """The two values at position t (sine and cosine)."""
    later: Line2D
    """The two values at position t + k."""
    now_line: Line2D
    later_line: Line2D
    positions: NDArray[np.float64]

    def update(self, omega: float, t: float, k: float) -> None:
        """Redraw the waves for the frequency ``omega``; move the markers to ``t`` and ``t + k``.

        Parameters
        ----------
        omega : float
            The frequency theta_i of the pair, in radians per position.
        t : float
            Position of the first marker.
        k : float
            Offset of the second marker.

        Returns
        -------
        None
        """
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
    *,
    xlabel: str | None = "Position",
    ylabel: str | None = "Value",
) -> PairWaves:
    """Draw one (sin, cos) pair as two waves, with markers at positions t and t + k.

    The second panel of the rotation explorer.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw; the y limits are set to [-1.15, 1.8], leaving room for the legend.
    positions : array_like, shape (n,)
        Where the waves are sampled (fractional positions give smooth curves).
    omega : float
        The frequency theta_i of the pair, in radians per position.
    t : float
        Position of the first pair of markers (drawn in blue).
    k : float
        Offset: the second pair of markers (vermillion) sits at ``t + k``.
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.

    Returns
    -------
    PairWaves
        The two waves, the markers and the vertical lines; ``PairWaves.update`` moves them.

    Notes
    -----
    With theta = ``omega``, the markers show ``sin(theta t), cos(theta t)`` and
    ``sin(theta (t+k)), cos(theta (t+k))``: the values the matrix M_k maps onto each other.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> art = draw_pair_waves(ax, np.linspace(0, 10, 101), 0.5, 2.0, 3.0)
    >>> np.round(art.later.get_ydata(), 6).tolist()
    [0.598472, -0.801144]
    """
    ax = check_axes(ax)
    x = as_vector("positions", positions)
    if x.size < 2:
        raise ValueError(f"positions must hold at least 2 samples; got {x.size}")
    blue, vermillion = OKABE_ITO[0], OKABE_ITO[3]
    (sine,) = ax.plot(x, np.zeros_like(x), color=OKABE_ITO[2], label=r"$\sin(\theta t)$")
    (cosine,) = ax.plot(x, np.zeros_like(x), color=OKABE_ITO[1], label=r"$\cos(\theta t)$")
    now_line = ax.axvline(0.0, color=blue, linewidth=0.8, linestyle=":")
    later_line = ax.axvline(0.0, color=vermillion, linewidth=0.8, linestyle=":")
    (now,) = ax.plot([0.0, 0.0], [0.0, 0.0], "o", color=blue, markersize=7, label="$t$")
    (later,) = ax.plot([0.0, 0.0], [0.0, 0.0], "o", color=vermillion, markersize=7,
                       label="$t+k$")
    art = PairWaves(sine, cosine, now, later, now_line, later_line, x)
    art.update(omega, t, k)
    ax.set_ylim(-1.15, 1.8)
    ax.set_xlim(float(x.min()), float(x.max()))
    set_labels(ax, xlabel, ylabel)
    ax.legend(loc="upper center", ncols=4, fontsize=8)
    return art

"""Drawing the properties of the sinusoidal encoding and the pieces of the rotation proof.

Introduced in notebooks 03_properties and 04_rotation_proof. Import the functions from this
module (``from posenc_lib.plots.properties import draw_offset_curve``).

Every ``draw_*`` function takes an ``Axes`` and data already computed with the math modules,
draws it and returns the artists, so that an explorer can keep them and change them in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import check_array, check_bool, check_float
from posenc_lib.plots._common import (
    OKABE_ITO,
    as_matrix,
    as_vector,
    check_axes,
    figure_of,
    set_labels,
)

__all__ = [
    "OffsetCurve",
    "PairWaves",
    "draw_dimension_range",
    "draw_offset_curve",
    "draw_pair_waves",
    "draw_probe",
    "draw_signed_matrix",
]


def _indices(name: str, value: Any, size: int) -> NDArray[np.int64]:
    """A 1-D array of integer indices into an array of length ``size``, or raise."""
    array = check_array(name, value, ndim=1)
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"{name} must hold integer indices; got dtype {array.dtype}")
    index = array.astype(np.int64)
    if index.size and (index.min() < 0 or index.max() >= size):
        raise ValueError(f"{name} must be indices in [0, {size - 1}]; got {index.tolist()}")
    return index


@dataclass
class OffsetCurve:
    """Artists of :func:`draw_offset_curve`; ``update`` changes them in place."""

    line: Line2D
    """x = the offsets, y = the dot products."""
    bounces: Line2D
    """Markers at the local minima (where the curve turns back up)."""

    def update(self, offsets: ArrayLike, values: ArrayLike, bounces: ArrayLike = ()) -> None:
        """Give the curve new data and move the bounce markers, without new artists.

        Parameters
        ----------
        offsets : array_like, shape (n,)
            New x values.
        values : array_like, shape (n,)
            New y values.
        bounces : array_like of int, shape (m,)
            Indices into ``offsets`` to mark; empty hides every marker.

        Returns
        -------
        None
        """
        x, y, where = _curve_data(offsets, values, bounces)
        self.line.set_data(x, y)
        self.bounces.set_data(x[where], y[where])


def _curve_data(
    offsets: ArrayLike, values: ArrayLike, bounces: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    x = as_vector("offsets", offsets)
    y = as_vector("values", values)
    if x.shape != y.shape:
        raise ValueError(f"values must have the shape of offsets {x.shape}; got {y.shape}")
    return x, y, _indices("bounces", bounces, x.size)


def draw_offset_curve(
    ax: Axes,
    offsets: ArrayLike,
    values: ArrayLike,
    bounces: ArrayLike = (),
    *,
    label: str | None = None,
    bounce_label: str | None = "bounce (local minimum)",
    xlabel: str | None = "Offset $k$",
    ylabel: str | None = r"$PE(t)\cdot PE(t+k)$",
    **style: Any,
) -> OffsetCurve:
    """Draw the dot product of two encodings against their offset, bounces marked.

    Introduced in notebook 03_properties.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    offsets : array_like, shape (n,)
        Offsets k.
    values : array_like, shape (n,)
        ``offset_similarity(offsets, d_model, base)`` (or a normalised version of it).
    bounces : array_like of int, shape (m,), default ()
        Indices into ``offsets`` where the curve has a local minimum; each gets a marker.
    label : str, optional
        Legend label of the curve.
    bounce_label : str or None, default "bounce (local minimum)"
        Legend label of the markers; None keeps them out of the legend.
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to the ``Axes.plot`` call of the curve.

    Returns
    -------
    OffsetCurve
        ``line`` and ``bounces`` (Line2D); ``OffsetCurve.update`` changes them.

    Notes
    -----
    PE(t)·PE(t+k) = sum_i cos(omega_i k): it falls from d/2 at k = 0, but the fast pairs make it
    turn back up now and then, so it is not monotonic.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> art = draw_offset_curve(ax, [0, 1, 2, 3], [4.0, 2.0, 3.0, 1.0], bounces=[1])
    >>> art.bounces.get_xydata().tolist()
    [[1.0, 2.0]]
    """
    ax = check_axes(ax)
    x, y, where = _curve_data(offsets, values, bounces)
    (line,) = ax.plot(x, y, label=label, **style)
    if bounce_label is not None and not isinstance(bounce_label, str):
        raise TypeError(f"bounce_label must be a str or None; got {bounce_label!r}")
    (marks,) = ax.plot(
        x[where], y[where], "v", color=OKABE_ITO[3], markersize=6,
        label="_nolegend_" if bounce_label is None else bounce_label,
    )
    set_labels(ax, xlabel, ylabel)
    return OffsetCurve(line, marks)


def draw_dimension_range(
    ax: Axes,
    ranges: ArrayLike,
    *,
    log: bool = True,
    xlabel: str | None = "Dimension $j$",
    ylabel: str | None = "Range of PE(pos, $j$) over the positions",
    **style: Any,
) -> list[Line2D]:
    """Draw how much each dimension varies over a sentence, sines and cosines apart.

    Introduced in notebook 03_properties (where the position information lives).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    ranges : array_like, shape (d_model,)
        ``np.ptp(encoding, axis=0)``: max minus min of each column over the positions.
        Interleaved layout: even entries are sine columns, odd entries cosine columns.
    log : bool, default True
        Logarithmic y axis (the ranges span many orders of magnitude).
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to both ``Axes.plot`` calls.

    Returns
    -------
    list of matplotlib.lines.Line2D
        Two lines: the sine columns (x = 0, 2, 4, ...) and the cosine columns (x = 1, 3, ...).

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> sines, cosines = draw_dimension_range(ax, [2.0, 1.5, 0.1, 0.01])
    >>> sines.get_xdata().tolist(), cosines.get_ydata().tolist()
    ([0, 2], [1.5, 0.01])
    """
    ax = check_axes(ax)
    values = as_vector("ranges", ranges)
    if values.size < 2 or values.size % 2:
        raise ValueError(
            f"ranges must have an even length >= 2 (one per column); got {values.size}"
        )
    log = check_bool("log", log)
    if log and values.min() <= 0:
        raise ValueError("ranges must be > 0 on a log axis (use log=False)")
    index = np.arange(values.size)
    style.setdefault("linewidth", 1.2)
    (sines,) = ax.plot(index[0::2], values[0::2], label="sine columns (even $j$)", **style)
    (cosines,) = ax.plot(index[1::2], values[1::2], label="cosine columns (odd $j$)", **style)
    if log:
        ax.set_yscale("log")
    set_labels(ax, xlabel, ylabel)
    ax.legend(loc="lower left")
    return [sines, cosines]


def draw_probe(
    ax: Axes,
    true_positions: ArrayLike,
    predicted: ArrayLike,
    *,
    label: str | None = None,
    diagonal_label: str | None = "perfect",
    xlabel: str | None = "True position",
    ylabel: str | None = "Predicted position",
    **style: Any,
) -> tuple[PathCollection, Line2D]:
    """Scatter a probe's predicted positions against the true ones, with the ideal diagonal.

    Introduced in notebook 03_properties (the linear probe on ``e + p``).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    true_positions : array_like, shape (n,)
        The positions.
    predicted : array_like, shape (n,)
        What the probe predicts for each.
    label : str, optional
        Legend label of the points.
    diagonal_label : str or None, default "perfect"
        Legend label of the diagonal; None keeps it out of the legend (for a second probe
        drawn on the same axes).
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to ``Axes.scatter``.

    Returns
    -------
    points : matplotlib.collections.PathCollection
    diagonal : matplotlib.lines.Line2D
        The line predicted = true.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> points, diagonal = draw_probe(ax, [0, 1, 2], [0.1, 1.2, 1.9])
    >>> points.get_offsets().shape, diagonal.get_xdata().tolist()
    ((3, 2), [0.0, 2.0])
    """
    ax = check_axes(ax)
    x = as_vector("true_positions", true_positions)
    y = as_vector("predicted", predicted)
    if x.shape != y.shape or x.size == 0:
        raise ValueError(
            f"predicted must have the shape of true_positions {x.shape} (not empty); got {y.shape}"
        )
    if diagonal_label is not None and not isinstance(diagonal_label, str):
        raise TypeError(f"diagonal_label must be a str or None; got {diagonal_label!r}")
    style.setdefault("s", 8)
    style.setdefault("alpha", 0.4)
    points = ax.scatter(x, y, label=label, **style)
    low, high = float(x.min()), float(x.max())
    (diagonal,) = ax.plot([low, high], [low, high], color="#444444", linewidth=1.0,
                          linestyle="--",
                          label="_nolegend_" if diagonal_label is None else diagonal_label)
    set_labels(ax, xlabel, ylabel)
    return points, diagonal


def draw_signed_matrix(
    ax: Axes,
    matrix: ArrayLike,
    *,
    limit: float | None = None,
    annotate: bool = False,
    cmap: str = "RdBu_r",
    colorbar: bool = False,
    xlabel: str | None = "Column",
    ylabel: str | None = "Row",
    **style: Any,
) -> AxesImage:
    """Draw a matrix with a diverging colormap centred on zero (blocks of a rotation, a fit).

    Introduced in notebook 04_rotation_proof (the block-diagonal shift matrix M_k).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    matrix : array_like, shape (rows, cols)
        The matrix (finite).
    limit : float, optional
        Colour range [-limit, limit]; the largest absolute entry when omitted (1 if all are 0).
    annotate : bool, default False
        Write every entry (2 decimals) in its cell; meant for small matrices.
    cmap : str, default "RdBu_r"
        A diverging colormap name.
    colorbar : bool, default False
        Add a colorbar (reachable afterwards as ``image.colorbar``).
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to ``Axes.imshow``.

    Returns
    -------
    matplotlib.image.AxesImage
        Its array is ``matrix``.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> image = draw_signed_matrix(ax, [[0.5, -1.0], [1.0, 0.5]], annotate=True)
    >>> image.get_clim(), len(ax.texts)
    ((-1.0, 1.0), 4)
    """
    ax = check_axes(ax)
    data = as_matrix("matrix", matrix)
    annotate = check_bool("annotate", annotate)
    colorbar = check_bool("colorbar", colorbar)
    if limit is None:
        peak = float(np.abs(data).max()) if data.size else 0.0
        limit = peak if peak > 0 else 1.0
    limit = check_float("limit", limit, greater_than=0.0)
    style.setdefault("interpolation", "nearest")
    image = ax.imshow(data, cmap=cmap, vmin=-limit, vmax=limit, **style)
    ax.grid(False)
    if annotate:
        for (row, col), value in np.ndenumerate(data):
            shade = "white" if abs(value) > 0.6 * limit else "black"
            ax.text(col, row, f"{value:.2f}", ha="center", va="center", color=shade, fontsize=8)
    set_labels(ax, xlabel, ylabel)
    if colorbar:
        figure_of(ax).colorbar(image, ax=ax, fraction=0.046, pad=0.03)
    return image


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
        """Redraw the waves for ``omega`` and move the markers to ``t`` and ``t + k``.

        Parameters
        ----------
        omega : float
            Angular frequency of the pair.
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

    Introduced in notebook 04_rotation_proof (the rotation explorer's second panel).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw; the y limits are set to [-1.15, 1.8], leaving room for the legend.
    positions : array_like, shape (n,)
        Where the waves are sampled (fractional positions give smooth curves).
    omega : float
        Angular frequency of the pair.
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
    The markers show sin(omega t), cos(omega t) and sin(omega (t+k)), cos(omega (t+k)): the
    values the matrix M_k maps onto each other.

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
    (sine,) = ax.plot(x, np.zeros_like(x), color=OKABE_ITO[2], label=r"$\sin(\omega t)$")
    (cosine,) = ax.plot(x, np.zeros_like(x), color=OKABE_ITO[1], label=r"$\cos(\omega t)$")
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


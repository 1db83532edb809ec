"""Drawing functions for RoPE and context extension (notebooks 05 and 06).

Each ``draw_*`` takes an ``Axes`` and data already computed with ``posenc_lib.rope`` or
``posenc_lib.scaling``, draws it and returns the artists it created, so an explorer can keep
them and change them in place (``line.set_ydata``, ``image.set_data``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from numpy.typing import ArrayLike

from posenc_lib._checks import check_array, check_bool, check_choice, check_float
from posenc_lib.plots._common import OKABE_ITO, as_vector, check_axes, set_labels

__all__ = [
    "UNSEEN_COLOURS",
    "draw_circle_points",
    "draw_curves",
    "draw_reference_lines",
    "draw_unseen_angles",
    "draw_vectors_2d",
]

_SCALES = ("linear", "log")
_LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 1)))
UNSEEN_COLOURS: tuple[str, str] = ("#F2F2F2", OKABE_ITO[3])
"""Colours of :func:`draw_unseen_angles`: seen in training (light grey), never seen (vermillion)."""


def _check_mapping(name: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping) or not value:
        raise TypeError(f"{name} must be a non-empty mapping of label to data; got {value!r}")
    return value



def draw_curves(
    ax: Axes,
    x: ArrayLike,
    curves: Mapping[str, ArrayLike],
    *,
    xlabel: str | None = None,
    ylabel: str | None = None,
    xscale: str = "linear",
    yscale: str = "linear",
    legend: bool = True,
    **style: Any,
) -> dict[str, Line2D]:
    """Draw several named curves that share one x axis (one line per curve).

    Introduced in notebook 05_rope (score against distance) and used throughout 06.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    x : array_like, shape (n,)
        Shared x values (distances, pair indices, lengths, ...).
    curves : mapping of str to array_like, each of shape (n,)
        Label -> y values. Labels starting with ``"_"`` stay out of the legend.
    xlabel, ylabel : str or None
        Axis labels; None leaves a label unchanged.
    xscale, yscale : {"linear", "log"}
        Axis scales.
    legend : bool, default True
        Add a legend (only if at least one label is public).
    **style
        Passed on to every ``Axes.plot`` call.

    Returns
    -------
    dict of str to matplotlib.lines.Line2D
        One line per curve, in the order of ``curves``.

    Notes
    -----
    Colours follow the course cycle and line styles differ too, so a printout in grey still
    tells the curves apart.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> lines = draw_curves(ax, [0, 1, 2], {"a": [1.0, 2.0, 3.0], "b": [3.0, 2.0, 1.0]})
    >>> list(lines), lines["b"].get_ydata().tolist()
    (['a', 'b'], [3.0, 2.0, 1.0])
    """
    ax = check_axes(ax)
    xs = as_vector("x", x)
    series = _check_mapping("curves", curves)
    xscale = check_choice("xscale", xscale, _SCALES)
    yscale = check_choice("yscale", yscale, _SCALES)
    legend = check_bool("legend", legend)
    vectors = {str(label): as_vector(f"curves[{label!r}]", ys) for label, ys in series.items()}
    for label, ys in vectors.items():
        if ys.shape != xs.shape:
            raise ValueError(
                f"curves[{label!r}] must have the shape of x {xs.shape}; got {ys.shape}"
            )
        if yscale == "log" and np.any(ys <= 0):
            raise ValueError(f"curves[{label!r}] must be > 0 on a log y axis")
    if xscale == "log" and np.any(xs <= 0):
        raise ValueError("x must be > 0 on a log x axis")
    lines: dict[str, Line2D] = {}
    for k, (label, ys) in enumerate(vectors.items()):
        options = {"linestyle": _LINESTYLES[k % len(_LINESTYLES)], **style}
        (lines[label],) = ax.plot(xs, ys, label=label, **options)
    ax.set_xscale(xscale)
    ax.set_yscale(yscale)
    set_labels(ax, xlabel, ylabel)
    if legend and any(not label.startswith("_") for label in vectors):
        ax.legend()
    return lines


def draw_reference_lines(
    ax: Axes,
    *,
    vertical: Mapping[str, float] | None = None,
    horizontal: Mapping[str, float] | None = None,
    **style: Any,
) -> dict[str, Line2D]:
    """Draw labelled dashed reference lines (a trained length, a threshold, zero).

    Introduced in notebook 06_context_extension.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    vertical : mapping of str to float, optional
        Label -> x position of a vertical line.
    horizontal : mapping of str to float, optional
        Label -> y position of a horizontal line.
    **style
        Passed on to ``Axes.axvline`` / ``Axes.axhline`` (default: grey, dashed, thin).

    Returns
    -------
    dict of str to matplotlib.lines.Line2D
        One line per label; the label is also written next to the line (empty labels are not).

    Notes
    -----
    Vertical labels sit at the top of the axes, horizontal ones at the right end, so they
    stay in place when the data limits change.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> lines = draw_reference_lines(ax, vertical={"L": 4096.0}, horizontal={"": 0.0})
    >>> lines["L"].get_xdata()[0]
    4096.0
    """
    ax = check_axes(ax)
    options = {"color": "#666666", "linestyle": "--", "linewidth": 0.9, "zorder": 1, **style}
    lines: dict[str, Line2D] = {}
    for label, value in (vertical or {}).items():
        xv = check_float(f"vertical[{label!r}]", value)
        lines[label] = ax.axvline(xv, **options)
        if label:
            ax.text(
                xv, 0.98, f" {label}", transform=ax.get_xaxis_transform(),
                va="top", ha="left", fontsize=8, color=options["color"],
            )
    for label, value in (horizontal or {}).items():
        yv = check_float(f"horizontal[{label!r}]", value)
        lines[label] = ax.axhline(yv, **options)
        if label:
            ax.text(
                0.99, yv, label, transform=ax.get_yaxis_transform(),
                va="bottom", ha="right", fontsize=8, color=options["color"],
            )
    if not lines:
        raise ValueError("draw_reference_lines needs at least one vertical or horizontal line")
    return lines


def draw_vectors_2d(
    ax: Axes,
    vectors: Mapping[str, ArrayLike],
    *,
    limit: float | None = None,
    **style: Any,
) -> dict[str, Line2D]:
    """Draw 2-D vectors as segments from the origin with a dot at the tip.

    Introduced in notebook 05_rope (a query and a key, before and after their rotation).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw; the aspect is set to equal.
    vectors : mapping of str to array_like of shape (2,)
        Label -> (x, y).
    limit : float, optional
        Half-width of the square view; by default 1.2 times the longest vector.
    **style
        Passed on to every ``Axes.plot`` call.

    Returns
    -------
    dict of str to matplotlib.lines.Line2D
        One line per vector, with x data ``[0, x]`` and y data ``[0, y]``.

    Notes
    -----
    Rotating a vector keeps its length, so a vector and its rotated copy end on the same circle.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> lines = draw_vectors_2d(ax, {"q": [1.0, 0.0], "R q": [0.0, 1.0]})
    >>> lines["R q"].get_ydata().tolist()
    [0.0, 1.0]
    """
    ax = check_axes(ax)
    series = _check_mapping("vectors", vectors)
    points: dict[str, np.ndarray] = {}
    for label, value in series.items():
        point = np.asarray(check_array(f"vectors[{label!r}]", value, ndim=1), dtype=np.float64)
        if point.shape != (2,):
            raise ValueError(f"vectors[{label!r}] must have shape (2,); got {point.shape}")
        points[str(label)] = point
    longest = max(float(np.hypot(*p)) for p in points.values())
    half = 1.2 * longest if limit is None else check_float("limit", limit, greater_than=0.0)
    if half == 0.0:
        half = 1.0
    lines: dict[str, Line2D] = {}
    for label, (px, py) in points.items():
        (lines[label],) = ax.plot([0.0, px], [0.0, py], marker="o", markevery=[1], label=label,
                                  **style)
    ax.axhline(0.0, color="#BBBBBB", linewidth=0.6, zorder=0)
    ax.axvline(0.0, color="#BBBBBB", linewidth=0.6, zorder=0)
    ax.set_aspect("equal")
    ax.set_xlim(-half, half)
    ax.set_ylim(-half, half)
    ax.legend(loc="lower left")
    return lines


def draw_circle_points(
    ax: Axes,
    angles: Mapping[str, ArrayLike],
    *,
    annotate: bool = True,
    **style: Any,
) -> dict[str, Line2D]:
    """Draw points at given angles on nested circles, one circle per series.

    Introduced in notebook 06_context_extension (Position Interpolation packs neighbouring
    positions closer together on the circle of a fast pair).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw; the aspect is set to equal.
    angles : mapping of str to array_like, shape (n,)
        Label -> angles in radians (for example ``m * theta_0`` for m = 0..n-1). Series k is
        drawn on the circle of radius ``1 - 0.2 k``.
    annotate : bool, default True
        Write the index of each point (the position m) next to it.
    **style
        Passed on to the ``Axes.plot`` call of every series.

    Returns
    -------
    dict of str to matplotlib.lines.Line2D
        The points of each series (marker only).

    Notes
    -----
    A point at angle phi on the circle of radius rho is ``(rho cos phi, rho sin phi)``.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> points = draw_circle_points(ax, {"a": [0.0, np.pi / 2]}, annotate=False)
    >>> np.round(points["a"].get_xydata(), 6).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    ax = check_axes(ax)
    series = _check_mapping("angles", angles)
    annotate = check_bool("annotate", annotate)
    if len(series) > 4:
        raise ValueError(f"angles must hold at most 4 series (nested circles); got {len(series)}")
    sweep = np.linspace(0.0, 2.0 * np.pi, 361)
    points: dict[str, Line2D] = {}
    for k, (label, value) in enumerate(series.items()):
        phi = as_vector(f"angles[{label!r}]", value)
        radius = 1.0 - 0.2 * k
        colour = OKABE_ITO[k % len(OKABE_ITO)]
        ax.plot(radius * np.cos(sweep), radius * np.sin(sweep), color="#CCCCCC", linewidth=0.8)
        # (rho cos phi, rho sin phi)
        xs, ys = radius * np.cos(phi), radius * np.sin(phi)
        options = {"marker": "o", "linestyle": "none", "color": colour, "markersize": 6, **style}
        (points[str(label)],) = ax.plot(xs, ys, label=str(label), **options)
        if annotate:
            for m, (px, py) in enumerate(zip(xs, ys, strict=True)):
                ax.text(1.13 * px, 1.13 * py, str(m), ha="center", va="center", fontsize=7,
                        color=colour)
    ax.set_aspect("equal")
    ax.set_xlim(-1.3, 1.3)
    ax.set_ylim(-1.3, 1.3)
    ax.grid(False)
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.legend(loc="lower left", fontsize=8)
    return points


def draw_unseen_angles(
    ax: Axes,
    unseen: ArrayLike,
    positions: ArrayLike,
    *,
    trained_length: float | None = None,
    xlabel: str | None = "Position $m$",
    ylabel: str | None = "Pair index $i$",
    **style: Any,
) -> AxesImage:
    """Draw where the rotation angle of a pair lies outside the arc seen in training.

    Introduced in notebook 06_context_extension.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    unseen : array_like of bool or 0/1, shape (n_positions, n_pairs)
        ``unseen_angle_mask(positions, inv_freq, trained_inv_freq, trained_length)``.
    positions : array_like, shape (n_positions,)
        Increasing positions of the rows of ``unseen`` (evenly spaced for a faithful picture).
    trained_length : float, optional
        Draw a dashed vertical line at the trained length ``L``.
    xlabel, ylabel : str or None
        Axis labels; None leaves a label unchanged.
    **style
        Passed on to ``Axes.imshow``.

    Returns
    -------
    matplotlib.image.AxesImage
        Its array is ``unseen.T`` as floats (pairs on the vertical axis, pair 0 at the bottom);
        its extent spans the positions.

    Notes
    -----
    Pair ``i`` at position ``m`` is unseen when training only covered the arc
    ``[0, (L - 1) theta_i]`` of less than a full turn and ``m theta'_i mod 2 pi`` lies beyond it.
    Grey cells were seen in training, vermillion cells never were.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> image = draw_unseen_angles(ax, [[False, False], [False, True]], [0, 10])
    >>> image.get_array().shape
    (2, 2)
    """
    ax = check_axes(ax)
    mask = np.asarray(unseen)
    if mask.dtype == np.bool_:
        mask = mask.astype(np.float64)
    values = np.asarray(check_array("unseen", mask, ndim=2), dtype=np.float64)
    pos = as_vector("positions", positions)
    if pos.shape[0] != values.shape[0]:
        raise ValueError(
            f"positions must have one entry per row of unseen ({values.shape[0]}); "
            f"got shape {pos.shape}"
        )
    if pos.size > 1 and np.any(np.diff(pos) <= 0):
        raise ValueError("positions must be strictly increasing")
    last = pos[-1] if pos[-1] > pos[0] else pos[0] + 1.0
    options = {
        "cmap": ListedColormap(list(UNSEEN_COLOURS)),
        "vmin": 0.0,
        "vmax": 1.0,
        "aspect": "auto",
        "origin": "lower",
        "interpolation": "nearest",
        "extent": (float(pos[0]), float(last), -0.5, values.shape[1] - 0.5),
        **style,
    }
    image = ax.imshow(values.T, **options)
    ax.grid(False)
    if trained_length is not None:
        length = check_float("trained_length", trained_length, greater_than=0.0)
        ax.axvline(length, color="#333333", linestyle="--", linewidth=1.0)
    set_labels(ax, xlabel, ylabel)
    return image

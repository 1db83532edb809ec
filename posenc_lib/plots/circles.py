"""Circles: points and vectors in the plane, on the unit circle or on nested circles.

Notebooks: 04_rotation_proof, 05_rope, 06_context_extension, 08_numerical_precision and
11_figure_gallery.

The unit circle with a point and its rotated copy, 2-D vectors from the origin, and points at
given angles on nested circles. Each ``draw_*`` takes an ``Axes`` and data already computed with
the math modules, draws it and returns the artists it created, so an explorer can move them in
place (``UnitCircle.update``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.text import Text
from numpy.typing import ArrayLike

from posenc_lib._checks import check_array, check_bool, check_float
from posenc_lib.plots._common import OKABE_ITO, as_vector, check_axes, check_mapping, set_labels

__all__ = [
    "UnitCircle",
    "draw_circle_points",
    "draw_unit_circle",
    "draw_vectors_2d",
]


def _as_point(name: str, value: Any) -> np.ndarray:
    point = np.asarray(check_array(name, value, ndim=1), dtype=np.float64)
    if point.shape != (2,):
        raise ValueError(f"{name} must be a point (x, y) of shape (2,); got shape {point.shape}")
    return point


def _arc(start: np.ndarray, end: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    a = np.arctan2(start[1], start[0])
    b = np.arctan2(end[1], end[0])
    # turn = (b - a) wrapped to (-pi, pi]
    turn = -((a - b + np.pi) % (2.0 * np.pi) - np.pi)
    sweep = a + np.linspace(0.0, 1.0, 50) * turn
    return radius * np.cos(sweep), radius * np.sin(sweep)


def _place_label(label: Text, point: np.ndarray) -> None:
    """Put a point's label just outside the circle, aligned away from the point.

    The text starts 0.15 beyond the point along its radius and grows outwards (left of a point
    on the left, below a point at the bottom), so it never covers the marker.
    """
    x, y = point
    label.set_position((1.15 * x, 1.15 * y))
    label.set_horizontalalignment("left" if x > 0.3 else "right" if x < -0.3 else "center")
    label.set_verticalalignment("bottom" if y > 0.3 else "top" if y < -0.3 else "center")


@dataclass
class UnitCircle:
    """Artists of ``draw_unit_circle``; ``update`` moves both points in place."""

    circle: Line2D
    point: Line2D
    point_radius: Line2D
    rotated: Line2D
    rotated_radius: Line2D
    arc: Line2D
    labels: list[Text]

    def update(self, point: ArrayLike, rotated: ArrayLike | None = None) -> None:
        """Move the point (and the rotated point, hidden when None) without redrawing.

        Parameters
        ----------
        point : array_like, shape (2,)
            New (x, y) of the first point.
        rotated : array_like, shape (2,), optional
            New (x, y) of the rotated point.

        Returns
        -------
        None
        """
        start = _as_point("point", point)
        self.point.set_data([start[0]], [start[1]])
        self.point_radius.set_data([0.0, start[0]], [0.0, start[1]])
        _place_label(self.labels[0], start)
        visible = rotated is not None
        for artist in (self.rotated, self.rotated_radius, self.arc, self.labels[1]):
            artist.set_visible(visible)
        if rotated is not None:
            end = _as_point("rotated", rotated)
            self.rotated.set_data([end[0]], [end[1]])
            self.rotated_radius.set_data([0.0, end[0]], [0.0, end[1]])
            self.arc.set_data(*_arc(start, end, 0.3))
            _place_label(self.labels[1], end)


def draw_unit_circle(
    ax: Axes,
    point: ArrayLike,
    rotated: ArrayLike | None = None,
    *,
    point_label: str = r"$\theta t$",
    rotated_label: str = r"$\theta (t+k)$",
    **style: Any,
) -> UnitCircle:
    """Draw the unit circle with a point on it and, optionally, the point after a rotation.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw; its aspect is set to equal.
    point : array_like, shape (2,)
        (x, y) = (cos(theta t), sin(theta t)): the point at the angle phi = theta t.
    rotated : array_like, shape (2,), optional
        The point after the rotation, ``rotation_matrix(theta * k) @ point``.
    point_label, rotated_label : str
        Texts written next to the two points.
    **style
        Passed on to the ``Axes.plot`` call of the circle.

    Returns
    -------
    UnitCircle
        The circle, the two points, their radii, the arc between them and the two labels;
        ``UnitCircle.update(point, rotated)`` moves them.

    Notes
    -----
    Rotating by the angle theta k maps ``(cos(theta t), sin(theta t))`` to
    ``(cos(theta (t+k)), sin(theta (t+k)))``: the shift by k positions is a rotation that does
    not depend on t.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> art = draw_unit_circle(ax, [1.0, 0.0], [0.0, 1.0])
    >>> art.rotated.get_xydata().tolist()
    [[0.0, 1.0]]
    >>> art.update([0.0, 1.0], [-1.0, 0.0]); art.point.get_xydata().tolist()
    [[0.0, 1.0]]
    """
    ax = check_axes(ax)
    start = _as_point("point", point)
    sweep = np.linspace(0.0, 2.0 * np.pi, 361)
    style.setdefault("color", "#555555")
    style.setdefault("linewidth", 1.0)
    (circle,) = ax.plot(np.cos(sweep), np.sin(sweep), **style)
    ax.axhline(0.0, color="#BBBBBB", linewidth=0.6, zorder=0)
    ax.axvline(0.0, color="#BBBBBB", linewidth=0.6, zorder=0)
    blue, vermillion = OKABE_ITO[0], OKABE_ITO[3]
    (start_radius,) = ax.plot([0.0, 0.0], [0.0, 0.0], color=blue)
    (start_point,) = ax.plot([0.0], [0.0], "o", color=blue, markersize=8)
    (end_radius,) = ax.plot([0.0, 0.0], [0.0, 0.0], color=vermillion)
    (end_point,) = ax.plot([0.0], [0.0], "o", color=vermillion, markersize=8)
    (arc,) = ax.plot([0.0], [0.0], color=vermillion, linewidth=1.2)
    labels = [
        ax.text(0.0, 0.0, point_label, color=blue, ha="center", va="center"),
        ax.text(0.0, 0.0, rotated_label, color=vermillion, ha="center", va="center"),
    ]
    artists = UnitCircle(circle, start_point, start_radius, end_point, end_radius, arc, labels)
    artists.update(start, rotated)
    ax.set_aspect("equal")
    ax.set_xlim(-1.6, 1.6)
    ax.set_ylim(-1.6, 1.6)
    set_labels(ax, "$x$", "$y$")
    return artists


def draw_vectors_2d(
    ax: Axes,
    vectors: Mapping[str, ArrayLike],
    *,
    limit: float | None = None,
    **style: Any,
) -> dict[str, Line2D]:
    """Draw 2-D vectors as segments from the origin with a dot at the tip.

    For example a query and a key, before and after their rotation.

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
    series = check_mapping("vectors", vectors)
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

    For example Position Interpolation, which packs neighbouring positions closer together on
    the circle of a fast pair.

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
    series = check_mapping("angles", angles)
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

"""Circles: points and vectors in the plane, on the unit circle or on nested circles.

Notebooks: 04_rotation_proof, 05_rope, 06_context_extension, 08_numerical_precision and
11_figure_gallery.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.text import Text
from numpy.typing import ArrayLike

from posenc_lib._checks import check_array
from posenc_lib.plots._common import (
    BLUE,
    OKABE_ITO,
    VERMILLION,
    as_vector,
    check_axes,
    check_series,
    hide_frame,
    set_labels,
    square_view,
    zero_cross,
)

__all__ = ["draw_circle_points", "draw_unit_circle", "draw_vectors_2d"]

_SWEEP = np.linspace(0.0, 2.0 * np.pi, 361)
"""Angles of the points that draw a full circle."""


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
    """Put a label 0.15 beyond its point along the radius, growing outwards (never on it)."""
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
        """Move the point to (x, y) and the rotated point too (hidden when None)."""
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

    def spread_labels(self) -> None:
        """Move both labels to radius 1.12 at least 0.6 rad apart (an explorer's points come close):
        with wrapped gap g = b - a < 0.6, to a + g/2 -+ 0.3 sign(g)."""
        radius, spread = 1.12, 0.6
        (x0, y0), (x1, y1) = (np.asarray(p.get_xydata())[0] for p in (self.point, self.rotated))
        a, b = math.atan2(y0, x0), math.atan2(y1, x1)
        gap = (b - a + math.pi) % (2.0 * math.pi) - math.pi
        if abs(gap) < spread:
            middle, side = a + gap / 2.0, 1.0 if gap >= 0 else -1.0
            a, b = middle - side * spread / 2.0, middle + side * spread / 2.0
        for label, angle in zip(self.labels, (a, b), strict=True):
            label.set_position((radius * math.cos(angle), radius * math.sin(angle)))


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
    The rotation by theta k maps (cos(theta t), sin(theta t)) to (cos(theta (t+k)),
    sin(theta (t+k))): the shift by k positions is a rotation that does not depend on t.
    """
    ax = check_axes(ax)
    start = _as_point("point", point)
    (circle,) = ax.plot(np.cos(_SWEEP), np.sin(_SWEEP),
                        **{"color": "#555555", "linewidth": 1.0, **style})
    zero_cross(ax)
    (start_radius,) = ax.plot([0.0, 0.0], [0.0, 0.0], color=BLUE)
    (start_point,) = ax.plot([0.0], [0.0], "o", color=BLUE, markersize=8)
    (end_radius,) = ax.plot([0.0, 0.0], [0.0, 0.0], color=VERMILLION)
    (end_point,) = ax.plot([0.0], [0.0], "o", color=VERMILLION, markersize=8)
    (arc,) = ax.plot([0.0], [0.0], color=VERMILLION, linewidth=1.2)
    labels = [
        ax.text(0.0, 0.0, point_label, color=BLUE, ha="center", va="center"),
        ax.text(0.0, 0.0, rotated_label, color=VERMILLION, ha="center", va="center"),
    ]
    artists = UnitCircle(circle, start_point, start_radius, end_point, end_radius, arc, labels)
    artists.update(start, rotated)
    square_view(ax, 1.6)
    set_labels(ax, "$x$", "$y$")
    return artists


def draw_vectors_2d(
    ax: Axes,
    vectors: Mapping[str, ArrayLike],
    **style: Any,
) -> dict[str, Line2D]:
    """Draw 2-D vectors (a query and a key, rotated or not) from the origin, a dot at the tip."""
    ax = check_axes(ax)
    points = {str(label): _as_point(f"vectors[{label!r}]", value)
              for label, value in check_series("vectors", vectors).items()}
    longest = max(float(np.hypot(*p)) for p in points.values())
    half = 1.2 * longest
    lines: dict[str, Line2D] = {}
    for label, (px, py) in points.items():
        (lines[label],) = ax.plot([0.0, px], [0.0, py], marker="o", markevery=[1], label=label,
                                  **style)
    zero_cross(ax)
    square_view(ax, half if half != 0.0 else 1.0)
    ax.legend(loc="lower left")
    return lines


def draw_circle_points(
    ax: Axes,
    angles: Mapping[str, ArrayLike],
    **style: Any,
) -> dict[str, Line2D]:
    """Draw points at given angles on nested circles, one circle per series (at most 4).
    For example Position Interpolation packing neighbouring positions closer on a fast pair.
    """
    ax = check_axes(ax)
    series = check_series("angles", angles)
    if len(series) > 4:
        raise ValueError(f"angles must hold at most 4 series (nested circles); got {len(series)}")
    points: dict[str, Line2D] = {}
    for k, (label, value) in enumerate(series.items()):
        phi = as_vector(f"angles[{label!r}]", value)
        radius = 1.0 - 0.2 * k
        colour = OKABE_ITO[k % len(OKABE_ITO)]
        ax.plot(radius * np.cos(_SWEEP), radius * np.sin(_SWEEP), color="#CCCCCC", linewidth=0.8)
        # (rho cos phi, rho sin phi)
        xs, ys = radius * np.cos(phi), radius * np.sin(phi)
        options = {"marker": "o", "linestyle": "none", "color": colour, "markersize": 6, **style}
        (points[str(label)],) = ax.plot(xs, ys, label=str(label), **options)
        for m, (px, py) in enumerate(zip(xs, ys, strict=True)):
            ax.text(1.13 * px, 1.13 * py, str(m), ha="center", va="center", fontsize=7,
                    color=colour)
    square_view(ax, 1.3)
    hide_frame(ax)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.legend(loc="lower left", fontsize=8)
    return points

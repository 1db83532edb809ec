"""Drawing relative-position quantities: PE·PEᵀ and the rotation on the unit circle.

Introduced in notebooks 03_properties and 04_rotation_proof.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.text import Text
from numpy.typing import ArrayLike

from posenc_lib._checks import check_array, check_bool
from posenc_lib.plots._common import OKABE_ITO, as_matrix, check_axes, figure_of, set_labels

__all__ = ["UnitCircle", "draw_similarity_matrix", "draw_unit_circle"]


def draw_similarity_matrix(
    ax: Axes,
    similarity: ArrayLike,
    *,
    cmap: str = "viridis",
    colorbar: bool = True,
    xlabel: str | None = "Position $t'$",
    ylabel: str | None = "Position $t$",
    **style: Any,
) -> AxesImage:
    """Draw the matrix of dot products PE(t)·PE(t') between all positions.

    Introduced in notebook 03_properties.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    similarity : array_like, shape (n_positions, n_positions)
        ``similarity_matrix(sinusoidal_encoding(n, d))``.
    cmap : str, default "viridis"
        Colormap name.
    colorbar : bool, default True
        Add a colorbar (reachable afterwards as ``image.colorbar``).
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to ``Axes.imshow``.

    Returns
    -------
    matplotlib.image.AxesImage
        Its array is ``similarity``.

    Notes
    -----
    PE(t)·PE(t+k) = sum_i cos(omega_i k) depends only on k: the matrix is symmetric and
    Toeplitz, with d/2 on the diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> image = draw_similarity_matrix(ax, np.eye(3))
    >>> image.get_array().shape, image.colorbar is not None
    ((3, 3), True)
    """
    ax = check_axes(ax)
    matrix = as_matrix("similarity", similarity)
    if matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"similarity must be a square matrix; got shape {matrix.shape}")
    colorbar = check_bool("colorbar", colorbar)
    style.setdefault("interpolation", "nearest")
    image = ax.imshow(matrix, cmap=cmap, **style)
    ax.grid(False)
    set_labels(ax, xlabel, ylabel)
    if colorbar:
        figure_of(ax).colorbar(image, ax=ax, fraction=0.046, pad=0.03)
    return image


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
        self.labels[0].set_position((1.12 * start[0], 1.12 * start[1]))
        visible = rotated is not None
        for artist in (self.rotated, self.rotated_radius, self.arc, self.labels[1]):
            artist.set_visible(visible)
        if rotated is not None:
            end = _as_point("rotated", rotated)
            self.rotated.set_data([end[0]], [end[1]])
            self.rotated_radius.set_data([0.0, end[0]], [0.0, end[1]])
            self.arc.set_data(*_arc(start, end, 0.3))
            self.labels[1].set_position((1.12 * end[0], 1.12 * end[1]))


def draw_unit_circle(
    ax: Axes,
    point: ArrayLike,
    rotated: ArrayLike | None = None,
    *,
    point_label: str = r"$\omega t$",
    rotated_label: str = r"$\omega (t+k)$",
    **style: Any,
) -> UnitCircle:
    """Draw the unit circle with a point on it and, optionally, the point after a rotation.

    Introduced in notebook 04_rotation_proof.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw; its aspect is set to equal.
    point : array_like, shape (2,)
        (x, y) = (cos(omega t), sin(omega t)).
    rotated : array_like, shape (2,), optional
        The point after the rotation, ``rotation_matrix(omega * k) @ point``.
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
    Rotating by the angle omega k maps (cos(omega t), sin(omega t)) to
    (cos(omega (t+k)), sin(omega (t+k))): the shift by k positions is a rotation that does not
    depend on t.

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
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(-1.35, 1.35)
    set_labels(ax, "$x$", "$y$")
    return artists

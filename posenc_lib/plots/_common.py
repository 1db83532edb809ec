"""Small shared helpers of the drawing functions: validation, labels, axis styling, palette.

Notebooks: 00_why_position to 11_figure_gallery, through every drawing module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.path import Path
from matplotlib.patheffects import AbstractPathEffect
from matplotlib.text import Text
from matplotlib.transforms import IdentityTransform
from numpy.typing import NDArray

from posenc_lib._checks import check_array

OKABE_ITO: tuple[str, ...] = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
)
"""The colour-blind friendly palette of the course style, in cycle order."""

BLUE, VERMILLION = OKABE_ITO[0], OKABE_ITO[3]
# the pair classes of posenc_lib.model_pairs.PAIR_CLASSES (notebook 09's explorer and figure)
CLASS_COLOURS = (OKABE_ITO[0], OKABE_ITO[1], OKABE_ITO[2], "#999999")
NOT_ROTATED_Y = 3e9  # where the pairs that never turn are drawn (above every wavelength)
GUIDE_GREY = "#BBBBBB"
"""Colour of the thin guide lines behind the data (zero lines, number lines)."""


def check_axes(ax: Any) -> Axes:
    """Return ``ax`` if it is a matplotlib Axes, else raise naming ``ax``."""
    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes; got {type(ax).__name__}")
    return ax


def as_matrix(name: str, value: Any) -> NDArray[np.float64]:
    """A finite 2-D float array, or an error naming ``name``."""
    return np.asarray(check_array(name, value, ndim=2), dtype=np.float64)


def as_vector(name: str, value: Any) -> NDArray[np.float64]:
    """A finite 1-D float array, or an error naming ``name``."""
    return np.asarray(check_array(name, value, ndim=1), dtype=np.float64)


def named_vectors(
    name: str, curves: Any, like: tuple[str, NDArray[np.float64]] | None = None,
    convert: Callable[[str, Any], NDArray[np.float64]] = as_vector,
) -> dict[str, NDArray[np.float64]]:
    """``{label: 1-D array}`` of a non-empty mapping, each of the shape of ``like = (name, x)``,
    or all of one length without ``like``."""
    vectors = {
        str(label): convert(f"{name}[{label!r}]", ys)
        for label, ys in check_series(name, curves).items()
    }
    sizes = sorted({ys.size for ys in vectors.values()})
    if like is None and len(sizes) != 1:
        raise ValueError(f"{name} must all have the same length; got lengths {sizes}")
    for label, ys in vectors.items():
        if like is not None and ys.shape != like[1].shape:
            raise ValueError(
                f"{name}[{label!r}] must have the shape of {like[0]} {like[1].shape}; "
                f"got {ys.shape}"
            )
    return vectors


def row_labels(name: str, labels: Sequence[Any] | None, n_rows: int, prefix: str) -> list[str]:
    """Labels of ``n_rows`` rows: ``prefix label`` for each of ``labels``, or ``prefix 0..n-1``."""
    if labels is None:
        return [f"{prefix} {row}" for row in range(n_rows)]
    return [f"{prefix} {label}" if prefix else label
            for label in check_labels(name, labels, n_rows)]


def set_labels(ax: Axes, xlabel: str | None, ylabel: str | None) -> None:
    """Set the axis labels; ``None`` leaves that label as it is."""
    pairs = (("xlabel", xlabel, ax.set_xlabel), ("ylabel", ylabel, ax.set_ylabel))
    for name, value, setter in pairs:
        if value is None:
            continue
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str or None; got {value!r}")
        setter(value)


def check_labels(name: str, labels: Any, expected: int) -> list[str]:
    """``expected`` labels as text, or an error naming ``name``."""
    if isinstance(labels, str) or not isinstance(labels, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of {expected} labels; got {labels!r}")
    if len(labels) != expected:
        raise ValueError(f"{name} must have {expected} entries; got {len(labels)}")
    return [str(label) for label in labels]


def check_series(name: str, value: Any) -> Mapping[str, Any]:
    """A non-empty mapping of label to data, or an error naming ``name``."""
    if not isinstance(value, Mapping) or not value:
        raise TypeError(f"{name} must be a non-empty mapping of label to data; got {value!r}")
    return value


def hide_frame(ax: Axes) -> None:
    """No grid and no spines (a table or a diagram drawn in data coordinates)."""
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)


def zero_cross(ax: Axes) -> None:
    """Thin grey lines through the origin, behind the data."""
    ax.axhline(0.0, color=GUIDE_GREY, linewidth=0.6, zorder=0)
    ax.axvline(0.0, color=GUIDE_GREY, linewidth=0.6, zorder=0)


def square_view(ax: Axes, half: float) -> None:
    """Equal aspect and the square [-half, half]^2."""
    ax.set_aspect("equal")
    ax.set_xlim(-half, half)
    ax.set_ylim(-half, half)


def cell_texts(ax: Axes, strings: Any, dark: Any = None, **style: Any) -> list[Text]:
    """One centred text per cell (r, c) of ``strings``, row by row; white where ``dark``."""
    rows, cols = np.shape(strings)
    texts = []
    for r in range(rows):
        for c in range(cols):
            if dark is not None:
                style["color"] = "white" if dark[r][c] else "black"
            texts.append(ax.text(c, r, strings[r][c], ha="center", va="center", **style))
    return texts


def legend_markers(colours: Sequence[Any], marker: str) -> list[Line2D]:
    """Legend handles: one marker (no line) per colour."""
    return [Line2D([], [], color=colour, marker=marker, linestyle="none") for colour in colours]


STRAIGHT_TOLERANCE = 1e-6
"""Pixels: a vertex this close to the straight line its run follows is left out of the stroke."""


def _run_end(xy: NDArray[np.float64], anchor: int, tolerance: float) -> int:
    """The last vertex of the straight run that starts at ``anchor``.

    The run follows the direction u from the anchor a to the next vertex; a vertex p continues
    it while it lies ahead of the one before it (along u) and within ``tolerance`` of the line
    through a along u (the distance |u x (p - a)| / |u|). Vertices are checked in windows that
    double, so a long run costs a few numpy calls."""
    u = xy[anchor + 1] - xy[anchor]
    length = float(np.hypot(u[0], u[1]))
    first, window = anchor + 2, 64
    while length > 0.0 and first < len(xy):
        block = xy[first:first + window]
        offset = block - xy[anchor]
        across = np.abs(u[0] * offset[:, 1] - u[1] * offset[:, 0])  # |u x (p - a)|
        ahead = np.diff(xy[first - 1:first + len(block)], axis=0) @ u > 0.0
        broken = np.flatnonzero((across > tolerance * length) | ~ahead)
        if broken.size:
            return first + int(broken[0]) - 1
        first, window = first + len(block), 2 * window
    return min(first, len(xy)) - 1 if length > 0.0 else anchor + 1


def _straight_run_ends(xy: NDArray[np.float64], tolerance: float) -> list[int]:
    """Indices of the vertices to keep: the first, the last, and the ends of straight runs
    (:func:`_run_end`); every dropped vertex lies within 2 * tolerance of the chord that
    replaces it (within ``tolerance`` of the run's line, as is the chord's far end)."""
    keep = [0]
    while keep[-1] < len(xy) - 1:
        keep.append(_run_end(xy, keep[-1], tolerance))
    return keep


class StraightRuns(AbstractPathEffect):
    """Stroke a line without the vertices that lie on a straight run (within
    :data:`STRAIGHT_TOLERANCE` pixels): the line's data stay as they are.

    Why: Agg joins two segments that are collinear to the last bits through the intersection of
    two nearly parallel lines, whose position swings with a last-bit change of a vertex. A
    straight line on a log axis (a geometric sequence: NTK's frequency ratios, ALiBi's weights)
    gets its vertices from numpy's log10, whose AVX-512 path and scalar path differ in the last
    bit for about one value in five, so a picture moved by one level in a few dozen pixels from
    one CPU to another. Without those joins the last bits no longer reach a pixel: the
    tolerance is millions of times a coordinate's last bit (2e-13 pixel at 1000 pixels) and
    about a four-thousandth of Agg's 1/256-pixel grid, too little to see.
    """

    def draw_path(self, renderer: Any, gc: Any, tpath: Path, affine: Any,
                  rgbFace: Any = None) -> None:
        xy = affine.transform(tpath.vertices)
        steps = np.diff(xy, axis=0)
        # a step line (horizontal and vertical segments only) has no nearly collinear join: two
        # segments along one axis share that coordinate exactly; matplotlib may snap it as it is
        rectilinear = bool(np.all((steps[:, 0] == 0.0) | (steps[:, 1] == 0.0)))
        if tpath.codes is None and len(xy) > 2 and np.isfinite(xy).all() and not rectilinear:
            xy = xy[_straight_run_ends(xy, STRAIGHT_TOLERANCE)]
            tpath, affine = Path(xy), IdentityTransform()
        renderer.draw_path(gc, tpath, affine, rgbFace)


def stroke_straight_runs(line: Line2D) -> Line2D:
    """Give ``line`` the :class:`StraightRuns` effect unless it has markers (which the effect
    would draw one by one); returns ``line``."""
    if line.get_marker() in (None, "None", "none", "", " "):
        line.set_path_effects([StraightRuns()])
    return line

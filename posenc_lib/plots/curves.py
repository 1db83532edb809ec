"""Line charts: named curves, reference lines, ratios, RoFormer's decay bound (Su et al. 2021,
arXiv:2104.09864, section 3.4.3) and error curves.

Notebooks: 00_why_position to 03_properties, 05_rope to 08_numerical_precision and
11_figure_gallery.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import check_array, check_bool, check_choice, check_float
from posenc_lib.plots._common import (
    OKABE_ITO,
    VERMILLION,
    as_vector,
    check_axes,
    named_vectors,
    set_labels,
    stroke_straight_runs,
)

__all__ = [
    "draw_columns", "draw_curves", "draw_decay_bound", "draw_error_curves", "draw_frequency_ratios",
    "draw_offset_curve", "draw_reference_lines", "for_log_axis",
]


_SCALES = ("linear", "log")
_LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 1)))
# frequency ratios: the course colours without yellow, which is too pale on white for a thin line
_RATIO_COLORS = tuple(color for color in OKABE_ITO if color.upper() != "#F0E442")


def _styled_lines(
    ax: Axes,
    x: NDArray[Any],
    curves: Mapping[str, NDArray[np.float64]],
    linestyles: Sequence[Any],
    style: Mapping[str, Any],
    colors: Sequence[str] | None = None,
) -> dict[str, Line2D]:
    """One labelled line per curve, cycling ``linestyles`` and ``colors`` (``style`` wins)."""
    lines: dict[str, Line2D] = {}
    for k, (label, ys) in enumerate(curves.items()):
        options: dict[str, Any] = {"linestyle": linestyles[k % len(linestyles)]}
        if colors:
            options["color"] = colors[k % len(colors)]
        options.update(style)
        (lines[label],) = ax.plot(x, ys, label=label, **options)
        stroke_straight_runs(lines[label])  # the same pixels on every CPU
    return lines


def _public_legend(ax: Axes, legend: bool, labels: Any) -> None:
    """A legend when asked and at least one label does not start with "_"."""
    if legend and any(not str(label).startswith("_") for label in labels):
        ax.legend()


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
    """Draw several named curves that share one x axis, in colours and line styles that differ."""
    ax = check_axes(ax)
    xs = as_vector("x", x)
    xscale = check_choice("xscale", xscale, _SCALES)
    yscale = check_choice("yscale", yscale, _SCALES)
    legend = check_bool("legend", legend)
    vectors = named_vectors("curves", curves, ("x", xs))
    for label, ys in vectors.items():
        if yscale == "log" and np.any(ys <= 0):
            raise ValueError(f"curves[{label!r}] must be > 0 on a log y axis")
    if xscale == "log" and np.any(xs <= 0):
        raise ValueError("x must be > 0 on a log x axis")
    lines = _styled_lines(ax, xs, vectors, _LINESTYLES, style)
    ax.set_xscale(xscale)
    ax.set_yscale(yscale)
    set_labels(ax, xlabel, ylabel)
    _public_legend(ax, legend, vectors)
    return lines


def draw_columns(
    ax: Axes,
    x: ArrayLike,
    values: ArrayLike,
    *,
    xlabel: str | None = None,
    ylabel: str | None = None,
    yscale: str = "linear",
    **style: Any,
) -> dict[str, Line2D]:
    """Draw every column of ``values``, shape (len(x),) or (len(x), k), against ``x``: one
    unlabelled line per column. A build step's ``beside`` draws a result that is a curve (the
    frequencies of a head, the bucket of each offset) this way; on a log y axis a value <= 0
    leaves a gap."""
    ax = check_axes(ax)
    xs = as_vector("x", x)
    matrix = np.asarray(check_array("values", values, finite=False), dtype=np.float64)
    matrix = matrix[:, None] if matrix.ndim == 1 else matrix
    if matrix.ndim != 2 or matrix.shape[0] != xs.size:
        raise ValueError(f"values must have shape ({xs.size},) or ({xs.size}, k), one row per "
                         f"x; got shape {np.shape(values)}")
    yscale = check_choice("yscale", yscale, _SCALES)
    if yscale == "log":
        matrix = for_log_axis(matrix)
    curves = {f"_column {j}": matrix[:, j] for j in range(matrix.shape[1])}
    lines = _styled_lines(ax, xs, curves, _LINESTYLES, style)
    ax.set_yscale(yscale)
    set_labels(ax, xlabel, ylabel)
    return lines


def draw_reference_lines(
    ax: Axes,
    *,
    vertical: Mapping[str, float] | None = None,
    horizontal: Mapping[str, float] | None = None,
    **style: Any,
) -> dict[str, Line2D]:
    """Draw labelled reference lines (a trained length, a threshold, zero): grey, dashed, thin."""
    ax = check_axes(ax)
    options = {"color": "#666666", "linestyle": "--", "linewidth": 0.9, "zorder": 1, **style}
    lines: dict[str, Line2D] = {}
    text = {"fontsize": 8, "color": options["color"]}
    for label, value in (vertical or {}).items():
        x = check_float(f"vertical[{label!r}]", value)
        lines[label] = ax.axvline(x, **options)
        if label:
            ax.text(x, 0.98, f" {label}", transform=ax.get_xaxis_transform(), va="top",
                    ha="left", **text)
    for label, value in (horizontal or {}).items():
        y = check_float(f"horizontal[{label!r}]", value)
        lines[label] = ax.axhline(y, **options)
        if label:
            ax.text(0.99, y, label, transform=ax.get_yaxis_transform(), va="bottom",
                    ha="right", **text)
    if not lines:
        raise ValueError("draw_reference_lines needs at least one vertical or horizontal line")
    return lines


def draw_frequency_ratios(
    ax: Axes,
    ratios: Mapping[str, ArrayLike],
    *,
    factor: float | None = None,
    **style: Any,
) -> dict[str, Line2D]:
    """Draw the per-pair frequency ratio (scaled / original) of several context-extension methods.
    A ratio of 1 leaves the pair as trained (extrapolation); 1/s interpolates it fully (PI).
    The colours skip the course's pale yellow; the line styles differ too.
    """
    ax = check_axes(ax)
    vectors = named_vectors("ratios", ratios)
    if any(np.any(vector <= 0) for vector in vectors.values()):
        raise ValueError("ratios must be > 0 on a log scale")
    if factor is not None:
        factor = check_float("factor", factor, at_least=1.0)
    index = np.arange(next(iter(vectors.values())).size)
    lines = _styled_lines(ax, index, vectors, _LINESTYLES[:6], style, _RATIO_COLORS)
    ax.set_yscale("log")
    if factor is not None and factor > 1.0:
        # ticks at 1, 1/2, 1/4, ... above 1/s, one labelled 1/s, and a dotted line there
        halvings = [2.0**-k for k in range(64) if 2.0**-k > 1.0 / factor * 1.15]
        labels = [f"1/{round(1 / t):d}" if t < 1 else "1" for t in halvings]
        ax.set_yticks([*halvings, 1.0 / factor], labels=[*labels, f"1/s = 1/{factor:g}"])
        ax.set_yticks([], minor=True)
        ax.axhline(1.0 / factor, color="#444444", linestyle=":", linewidth=0.9, zorder=1)
    set_labels(ax, "Pair index $i$", r"Frequency ratio $\theta_i' / \theta_i$")
    ax.legend(loc="lower left")
    return lines


def _pair_of_vectors(names: tuple[str, str], x: ArrayLike, y: ArrayLike) -> tuple[
    NDArray[np.float64], NDArray[np.float64]
]:
    """Two 1-D arrays of one shape; the error names the second after the first."""
    xs, ys = as_vector(names[0], x), as_vector(names[1], y)
    if xs.shape != ys.shape:
        raise ValueError(f"{names[1]} must have the shape of {names[0]} {xs.shape}; got {ys.shape}")
    return xs, ys


def draw_decay_bound(
    ax: Axes,
    distances: ArrayLike,
    bound: ArrayLike,
    *,
    xlabel: str | None = "Relative distance $m$",
    **style: Any,
) -> Line2D:
    """Draw RoFormer's long-term decay bound against the relative distance m.

    ``bound`` is ``rope_decay_bound(distances, head_dim, base)``, shape of ``distances``:
    B(m) = (1/(d/2)) sum_{j=1}^{d/2} |S_j| with S_j = sum_{k<j} exp(i m theta_k), which decays
    with m but not monotonically. Returns the line.
    """
    ax = check_axes(ax)
    x, y = _pair_of_vectors(("distances", "bound"), distances, bound)
    (line,) = ax.plot(x, y, **style)
    set_labels(ax, xlabel, r"Bound $\frac{1}{d/2}\sum_j |S_j|$")
    return line


@dataclass
class OffsetCurve:
    """Artists of :func:`draw_offset_curve` (the curve, and markers at its local minima, where it
    turns back up); ``update`` changes them in place."""

    line: Line2D
    bounces: Line2D

    def update(self, offsets: ArrayLike, values: ArrayLike, bounces: ArrayLike = ()) -> None:
        """New data for the curve and the bounce markers (indices into ``offsets``)."""
        x, y, where = _curve_data(offsets, values, bounces)
        self.line.set_data(x, y)
        self.bounces.set_data(x[where], y[where])


def _curve_data(
    offsets: ArrayLike, values: ArrayLike, bounces: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    x, y = _pair_of_vectors(("offsets", "values"), offsets, values)
    where = check_array("bounces", bounces, ndim=1)
    if where.size and not np.issubdtype(where.dtype, np.integer):
        raise TypeError(f"bounces must hold integer indices; got dtype {where.dtype}")
    index = where.astype(np.int64)
    if index.size and (index.min() < 0 or index.max() >= x.size):
        raise ValueError(f"bounces must be indices in [0, {x.size - 1}]; got {index.tolist()}")
    return x, y, index


def draw_offset_curve(
    ax: Axes,
    offsets: ArrayLike,
    values: ArrayLike,
    bounces: ArrayLike = (),
    *,
    label: str | None = None,
    bounce_label: str | None = "bounce (local minimum)",
    ylabel: str | None = r"$PE(t)\cdot PE(t+k)$",
    **style: Any,
) -> OffsetCurve:
    """Draw the dot product of two encodings against their offset k, bounces marked.
    PE(t)·PE(t+k) = sum_i cos(theta_i k) falls from d/2 at k = 0, but the fast pairs make it
    turn back up now and then: it is not monotonic.
    """
    ax = check_axes(ax)
    x, y, where = _curve_data(offsets, values, bounces)
    (line,) = ax.plot(x, y, label=label, **style)
    if bounce_label is not None and not isinstance(bounce_label, str):
        raise TypeError(f"bounce_label must be a str or None; got {bounce_label!r}")
    (marks,) = ax.plot(
        x[where], y[where], "v", color=VERMILLION, markersize=6,
        label="_nolegend_" if bounce_label is None else bounce_label,
    )
    set_labels(ax, "Offset $k$", ylabel)
    return OffsetCurve(line, marks)


def for_log_axis(values: ArrayLike) -> NDArray[np.float64]:
    """Values ready for a log axis: zeros, negatives, NaN and infinities become NaN (gaps).
    An exact result (error 0) or an overflow (inf) is left out of the line rather than breaking
    it. Returns a float64 array of the same shape.
    """
    array = np.asarray(check_array("values", values, finite=False), dtype=np.float64)
    return np.where(np.isfinite(array) & (array > 0), array, np.nan)


def draw_error_curves(
    ax: Axes,
    positions: ArrayLike,
    errors: Mapping[str, ArrayLike],
    *,
    xlabel: str | None = "Position",
    ylabel: str | None = "Absolute error",
    **style: Any,
) -> dict[str, Line2D]:
    """Draw errors against position on log-log axes (x in base 2), one line per label."""
    ax = check_axes(ax)
    xs = as_vector("positions", positions)
    if np.any(xs <= 0):
        raise ValueError("positions must be > 0 on a log axis")
    vectors = named_vectors("errors", errors, ("positions", xs),
                            lambda _, values: for_log_axis(values))
    lines = _styled_lines(ax, xs, vectors, _LINESTYLES[:4], style)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    set_labels(ax, xlabel, ylabel)
    _public_legend(ax, True, errors)
    return lines

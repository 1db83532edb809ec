"""Line charts: named curves, reference lines, ratios, bounds and error curves.

Notebooks: 00_why_position, 01_binary_counting, 02_sinusoidal_formula, 03_properties,
05_rope, 06_context_extension, 07_other_schemes, 08_numerical_precision and 11_figure_gallery.

Generic drawers (:func:`draw_curves`, :func:`draw_reference_lines`) and the course's named line
charts: frequency ratios of the context-extension methods, RoFormer's decay bound, the offset
curve of the dot product and errors on log-log axes. Bars, dots and scatter plots are in
:mod:`posenc_lib.plots.bars`.
Each ``draw_*`` takes an ``Axes`` and data already computed with the math modules, draws it and
returns the artists it created, so an explorer can update them in place (``line.set_ydata``).
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
    as_vector,
    check_axes,
    check_mapping,
    set_labels,
)

__all__ = [
    "OffsetCurve",
    "draw_curves",
    "draw_decay_bound",
    "draw_error_curves",
    "draw_frequency_ratios",
    "draw_offset_curve",
    "draw_reference_lines",
    "for_log_axis",
]


_SCALES = ("linear", "log")
_LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 1)))
_RATIO_LINESTYLES = _LINESTYLES[:6]  # frequency ratios cycle through the first six
_ERROR_LINESTYLES = _LINESTYLES[:4]  # error curves through the first four
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
    """One labelled line per curve against ``x``, cycling ``linestyles`` and ``colors``.

    ``colors`` None keeps the axes' colour cycle; ``style`` wins over both.
    """
    lines: dict[str, Line2D] = {}
    for k, (label, ys) in enumerate(curves.items()):
        options: dict[str, Any] = {"linestyle": linestyles[k % len(linestyles)]}
        if colors:
            options["color"] = colors[k % len(colors)]
        options.update(style)
        (lines[label],) = ax.plot(x, ys, label=label, **options)
    return lines


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

    For example the RoPE score against the distance, or a quantity against the context length.

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
    series = check_mapping("curves", curves)
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
    lines = _styled_lines(ax, xs, vectors, _LINESTYLES, style)
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


def draw_frequency_ratios(
    ax: Axes,
    ratios: Mapping[str, ArrayLike],
    *,
    log_scale: bool = True,
    legend: bool = True,
    factor: float | None = None,
    xlabel: str | None = "Pair index $i$",
    ylabel: str | None = r"Frequency ratio $\theta_i' / \theta_i$",
    **style: Any,
) -> dict[str, Line2D]:
    """Draw the per-dimension frequency ratio (scaled / original) of several methods.

    The key picture of context extension: every method on one chart.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    ratios : mapping of str to array_like, each of shape (head_dim // 2,)
        Method name -> ``frequency_ratio(head_dim, base, rope_scaling)``; all the same length.
    log_scale : bool, default True
        Logarithmic y axis (ratios such as 1/s are then evenly spaced).
    legend : bool, default True
        Add a legend of the methods, lower left.
    factor : float or None, default None
        The scale ``s`` >= 1. When given (and ``log_scale``), the y axis gets a tick labelled
        ``1/s`` with a dotted line at it, and ticks at the powers of 1/2 down to it.
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to every ``Axes.plot`` call; a ``linestyle`` or ``color`` here replaces the
        cycle.

    Returns
    -------
    dict of str to matplotlib.lines.Line2D
        One line per method, in the order of ``ratios``; y = the ratios, x = i.

    Notes
    -----
    A ratio of 1 leaves the pair as trained (extrapolation); 1/s interpolates it fully (PI).
    Colours follow the course cycle without its pale yellow, and line styles differ too, so the
    chart reads in grey.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> lines = draw_frequency_ratios(ax, {"linear": np.full(4, 0.25), "default": np.ones(4)})
    >>> list(lines), lines["linear"].get_ydata().tolist()
    (['linear', 'default'], [0.25, 0.25, 0.25, 0.25])
    """
    ax = check_axes(ax)
    if not isinstance(ratios, Mapping) or not ratios:
        raise TypeError(
            f"ratios must be a non-empty mapping of method name to array; got {ratios!r}"
        )
    vectors = {str(name): as_vector(f"ratios[{name!r}]", value) for name, value in ratios.items()}
    sizes = {vector.size for vector in vectors.values()}
    if len(sizes) != 1:
        raise ValueError(f"ratios must all have the same length; got lengths {sorted(sizes)}")
    if log_scale and any(np.any(vector <= 0) for vector in vectors.values()):
        raise ValueError("ratios must be > 0 on a log scale")
    if factor is not None:
        factor = check_float("factor", factor, at_least=1.0)
    index = np.arange(sizes.pop())
    lines = _styled_lines(ax, index, vectors, _RATIO_LINESTYLES, style, _RATIO_COLORS)
    if log_scale:
        ax.set_yscale("log")
        if factor is not None and factor > 1.0:
            _mark_inverse_factor(ax, factor)
    set_labels(ax, xlabel, ylabel)
    if legend:
        ax.legend(loc="lower left")
    return lines


def _mark_inverse_factor(ax: Axes, factor: float) -> None:
    """Ticks at 1, 1/2, 1/4, ... above ``1/s``, one labelled ``1/s``, and a dotted line there."""
    halvings = [2.0**-k for k in range(64) if 2.0**-k > 1.0 / factor * 1.15]
    ticks = [*halvings, 1.0 / factor]
    labels = [f"1/{round(1 / t):d}" if t < 1 else "1" for t in halvings]
    labels.append(f"1/s = 1/{factor:g}")
    ax.set_yticks(ticks, labels=labels)
    ax.set_yticks([], minor=True)
    ax.axhline(1.0 / factor, color="#444444", linestyle=":", linewidth=0.9, zorder=1)


def draw_decay_bound(
    ax: Axes,
    distances: ArrayLike,
    bound: ArrayLike,
    *,
    xlabel: str | None = "Relative distance $m$",
    ylabel: str | None = r"Bound $\frac{1}{d/2}\sum_j |S_j|$",
    **style: Any,
) -> Line2D:
    """Draw RoFormer's long-term decay bound against the relative distance.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    distances : array_like, shape (n,)
        Relative distances m.
    bound : array_like, shape (n,)
        ``rope_decay_bound(distances, head_dim, base)``.
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to the ``Axes.plot`` call of the bound.

    Returns
    -------
    matplotlib.lines.Line2D
        x = ``distances``, y = ``bound``.

    Notes
    -----
    B(m) = (1/(d/2)) * sum_{j=1}^{d/2} |S_j| with S_j = sum_{k=0}^{j-1} exp(i m theta_k)
    (Su et al., RoFormer, section 3.4.3). It decays with m but not monotonically.

    References
    ----------
    Su, J. et al. (2021). RoFormer: Enhanced Transformer with Rotary Position Embedding.
    arXiv:2104.09864.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> line = draw_decay_bound(ax, [0, 1, 2], [5.0, 4.0, 4.5])
    >>> line.get_ydata().tolist()
    [5.0, 4.0, 4.5]
    """
    ax = check_axes(ax)
    x = as_vector("distances", distances)
    y = as_vector("bound", bound)
    if x.shape != y.shape:
        raise ValueError(f"bound must have the shape of distances {x.shape}; got {y.shape}")
    (line,) = ax.plot(x, y, **style)
    set_labels(ax, xlabel, ylabel)
    return line


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
    ``PE(t)·PE(t+k) = sum_i cos(theta_i k)``: it falls from d/2 at k = 0, but the fast pairs make it
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


def for_log_axis(values: ArrayLike) -> NDArray[np.float64]:
    """Values ready for a log axis: zeros, negatives, NaN and infinities become NaN (gaps).

    Parameters
    ----------
    values : array_like, any shape
        Errors or sizes; an exact result (error 0) or an overflow (inf) has no place on a log
        axis, so it is left out of the line rather than breaking it.

    Returns
    -------
    numpy.ndarray, same shape, float64

    Examples
    --------
    >>> for_log_axis([0.0, 0.5, np.inf, 2.0]).tolist()
    [nan, 0.5, nan, 2.0]
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
    legend: bool = True,
    **style: Any,
) -> dict[str, Line2D]:
    """Draw errors against position on log-log axes, one line per label.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw; both axes are set to log scale.
    positions : array_like, shape (n,)
        Positive positions (x values).
    errors : mapping of str to array_like, each shape (n,)
        Label -> errors. Zeros (exact) and infinities (overflow) leave gaps, see
        :func:`for_log_axis`. Labels starting with ``"_"`` stay out of the legend.
    xlabel, ylabel : str or None
        Axis labels; None leaves a label unchanged.
    legend : bool, default True
        Add a legend (labels starting with ``"_"`` left out).
    **style
        Passed on to every ``Axes.plot`` call.

    Returns
    -------
    dict of str to matplotlib.lines.Line2D
        One line per label; update one with ``line.set_ydata(for_log_axis(new))``.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> lines = draw_error_curves(ax, [1, 10, 100], {"float16": [0.0, 1e-3, np.inf]})
    >>> lines["float16"].get_ydata().tolist()
    [nan, 0.001, nan]
    """
    ax = check_axes(ax)
    xs = as_vector("positions", positions)
    if np.any(xs <= 0):
        raise ValueError("positions must be > 0 on a log axis")
    if not isinstance(errors, Mapping) or not errors:
        raise TypeError(f"errors must be a non-empty mapping of label to array; got {errors!r}")
    legend = check_bool("legend", legend)
    vectors: dict[str, NDArray[np.float64]] = {}
    for label, values in errors.items():
        vectors[str(label)] = ys = for_log_axis(values)
        if ys.shape != xs.shape:
            raise ValueError(
                f"errors[{label!r}] must have the shape of positions {xs.shape}; got {ys.shape}"
            )
    lines = _styled_lines(ax, xs, vectors, _ERROR_LINESTYLES, style)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    set_labels(ax, xlabel, ylabel)
    if legend and any(not str(label).startswith("_") for label in errors):
        ax.legend()
    return lines

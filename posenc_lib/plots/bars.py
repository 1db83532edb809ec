"""Bar, dot and scatter charts: grouped bars, dots on number lines, wavelengths, probes.

Notebooks: 00_why_position, 01_binary_counting, 02_sinusoidal_formula and 03_properties.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.container import BarContainer
from matplotlib.lines import Line2D
from numpy.typing import ArrayLike

from posenc_lib._checks import check_array, check_bool
from posenc_lib.plots._common import (
    GUIDE_GREY,
    OKABE_ITO,
    as_vector,
    check_axes,
    check_labels,
    named_vectors,
    set_labels,
)

__all__ = [
    "draw_dimension_range", "draw_dot_rows", "draw_grouped_bars", "draw_probe", "draw_wavelengths",
]

_DARK_GREY = "#444444"


def draw_grouped_bars(
    ax: Axes,
    series: Mapping[str, ArrayLike],
    *,
    legend: bool = True,
    xlabel: str | None = None,
    ylabel: str | None = None,
    **style: Any,
) -> list[BarContainer]:
    """Draw several series of numbers as bars side by side, one group (0.8 wide) per category."""
    ax = check_axes(ax)
    arrays = named_vectors("series", series)
    n = next(iter(arrays.values())).size
    legend = check_bool("legend", legend)
    step = 0.8 / len(arrays)
    x = np.arange(n, dtype=np.float64)
    containers = []
    for k, (name, values) in enumerate(arrays.items()):
        offset = -0.4 + step * (k + 0.5)
        containers.append(ax.bar(x + offset, values, width=step, label=name, **style))
    ax.set_xticks(x, [str(t) for t in range(n)])
    ax.axhline(0.0, color=_DARK_GREY, linewidth=0.8)
    set_labels(ax, xlabel, ylabel)
    if legend:
        ax.legend(loc="best")
    return containers


def draw_dot_rows(
    ax: Axes,
    rows: Sequence[ArrayLike],
    *,
    labels: Sequence[str],
    xlabel: str | None = "Code value",
    **style: Any,
) -> list[Line2D]:
    """Draw each row of numbers as dots on its own horizontal number line, row 0 on top."""
    ax = check_axes(ax)
    if isinstance(rows, np.ndarray) and rows.ndim == 2:
        rows = list(rows)
    if not isinstance(rows, Sequence) or not rows:
        raise TypeError(f"rows must be a non-empty sequence of 1-D arrays; got {rows!r}")
    values = [as_vector(f"rows[{k}]", row) for k, row in enumerate(rows)]
    names = check_labels("labels", labels, len(values))
    style = {"linestyle": "none", "marker": "o", "markersize": 6, **style}
    n = len(values)
    lines = []
    for k, row in enumerate(values):
        height = float(n - 1 - k)
        ax.axhline(height, color=GUIDE_GREY, linewidth=0.8, zorder=0)
        lines.append(ax.plot(row, np.full(row.size, height), **style)[0])
    ax.set_yticks([n - 1 - k for k in range(n)], names)
    ax.set_ylim(-0.6, n - 0.3)
    ax.grid(False, axis="y")
    set_labels(ax, xlabel, None)
    return lines


@dataclass
class WavelengthChart:
    """Artists of :func:`draw_wavelengths`: the wavelength line; per sentence length L, the
    markers of the pairs that turn fully and the horizontal line at L - 1."""

    line: Line2D
    turned: list[Line2D]
    thresholds: list[Line2D]


def draw_wavelengths(
    ax: Axes,
    wavelengths: ArrayLike,
    sentence_lengths: Sequence[int] = (),
    **style: Any,
) -> WavelengthChart:
    """Draw each pair's wavelength (log scale) with the span of a few sentence lengths.
    lambda_i = 2 pi base^(2i/d) is geometric: a straight line on a log axis.
    """
    ax = check_axes(ax)
    lam = as_vector("wavelengths", wavelengths)
    if np.any(lam <= 0):
        raise ValueError("wavelengths must all be > 0")
    if isinstance(sentence_lengths, (str, bytes)) or not isinstance(
        sentence_lengths, (Sequence, np.ndarray)
    ):
        raise TypeError(f"sentence_lengths must be a sequence of ints; got {sentence_lengths!r}")
    lengths = check_array("sentence_lengths", np.asarray(sentence_lengths, dtype=np.int64), ndim=1)
    if np.any(lengths < 2):
        raise ValueError(f"sentence_lengths must all be >= 2; got {lengths.tolist()}")
    index = np.arange(lam.size)
    (line,) = ax.plot(index, lam, label=r"$\lambda_i$", **{"color": _DARK_GREY, **style})
    ax.set_yscale("log")
    chart = WavelengthChart(line, [], [])
    for k, length in enumerate(lengths.tolist()):
        colour = OKABE_ITO[(k + 1) % len(OKABE_ITO)]
        span = float(length - 1)
        chart.thresholds.append(ax.axhline(span, color=colour, linestyle="--", linewidth=1.0))
        full = index[lam <= span]
        (marks,) = ax.plot(
            full, lam[full], linestyle="none", marker="o", markersize=4, color=colour,
            label=f"L = {length}: {full.size} pairs turn fully",
            zorder=3.0 + 1.0 / length,  # shorter sentences (fewer marks) on top
        )
        chart.turned.append(marks)
    set_labels(ax, "Pair index $i$", r"Wavelength $\lambda_i$ (positions)")
    ax.legend(loc="upper left")
    return chart


def draw_dimension_range(
    ax: Axes,
    ranges: ArrayLike,
    **style: Any,
) -> list[Line2D]:
    """Draw how much each dimension varies over a sentence, sine and cosine columns apart."""
    ax = check_axes(ax)
    values = as_vector("ranges", ranges)
    if values.size < 2 or values.size % 2:
        raise ValueError(
            f"ranges must have an even length >= 2 (one per column); got {values.size}"
        )
    if values.min() <= 0:
        raise ValueError("ranges must be > 0 on a log axis")
    index = np.arange(values.size)
    style.setdefault("linewidth", 1.2)
    (sines,) = ax.plot(index[0::2], values[0::2], label="sine columns (even $j$)", **style)
    (cosines,) = ax.plot(index[1::2], values[1::2], label="cosine columns (odd $j$)", **style)
    ax.set_yscale("log")
    set_labels(ax, "Dimension $j$", "Range of PE(pos, $j$) over the positions")
    ax.legend(loc="lower left")
    return [sines, cosines]


def draw_probe(
    ax: Axes,
    true_positions: ArrayLike,
    predicted: ArrayLike,
    *,
    label: str | None = None,
    diagonal_label: str | None = "perfect",
    **style: Any,
) -> tuple[PathCollection, Line2D]:
    """Scatter a probe's predicted positions against the true ones, with the ideal diagonal."""
    ax = check_axes(ax)
    x = as_vector("true_positions", true_positions)
    y = as_vector("predicted", predicted)
    if x.shape != y.shape or x.size == 0:
        raise ValueError(
            f"predicted must have the shape of true_positions {x.shape} (not empty); got {y.shape}"
        )
    if diagonal_label is not None and not isinstance(diagonal_label, str):
        raise TypeError(f"diagonal_label must be a str or None; got {diagonal_label!r}")
    points = ax.scatter(x, y, label=label, **{"s": 8, "alpha": 0.4, **style})
    low, high = float(x.min()), float(x.max())
    (diagonal,) = ax.plot([low, high], [low, high], color=_DARK_GREY, linewidth=1.0,
                          linestyle="--",
                          label="_nolegend_" if diagonal_label is None else diagonal_label)
    set_labels(ax, "True position", "Predicted position")
    return points, diagonal

"""Tables: numbers, bits and float32 bit patterns written cell by cell.

Notebooks: 01_binary_counting, 02_sinusoidal_formula, 08_numerical_precision and
11_figure_gallery.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap, LogNorm, to_rgba
from matplotlib.image import AxesImage
from matplotlib.table import Table
from matplotlib.text import Text
from numpy.typing import ArrayLike

from posenc_lib._checks import check_array
from posenc_lib.plots._common import (
    OKABE_ITO,
    as_matrix,
    cell_texts,
    check_axes,
    check_labels,
    hide_frame,
    set_labels,
)
from posenc_lib.precision import float32_bits

__all__ = ["draw_binary_table", "draw_float32_bits", "draw_value_table"]

_PLAIN_CMAP = ListedColormap(["#FFFFFF", "#9CC9E8"], name="posenc_bits")
_HEADER_GREY = "#E8E8E8"


def draw_value_table(
    ax: Axes,
    values: ArrayLike,
    *,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    fmt: str = "{:.8f}",
    **style: Any,
) -> Table:
    """Render a matrix of numbers as a table filling ``ax`` (the axes frame is hidden)."""
    ax = check_axes(ax)
    matrix = as_matrix("values", values)
    n_rows, n_cols = matrix.shape
    rows = check_labels("row_labels", row_labels, n_rows)
    cols = check_labels("col_labels", col_labels, n_cols)
    if not isinstance(fmt, str):
        raise TypeError(f"fmt must be a format string such as '{{:.4f}}'; got {fmt!r}")
    try:
        cells = [[fmt.format(value) for value in row] for row in matrix]
    except (ValueError, IndexError, KeyError) as err:
        raise ValueError(f"fmt must format one number, such as '{{:.4f}}'; got {fmt!r}") from err
    style = {"loc": "center", "cellLoc": "right", "colColours": [_HEADER_GREY] * n_cols,
             "rowColours": [_HEADER_GREY] * n_rows, **style}
    table = ax.table(cellText=cells, rowLabels=rows, colLabels=cols, **style)
    table.auto_set_font_size(False)
    table.set_fontsize(10.0)
    table.scale(1.0, 1.6)
    ax.set_axis_off()
    return table


class BinaryTable(NamedTuple):
    """Artists of ``draw_binary_table``: the cell colours (``bits``, or ``bits / periods`` masked
    where the bit is 0) and one digit per cell, row by row (``digits[r * n_bits + c]``)."""

    image: AxesImage
    digits: list[Text]


def draw_binary_table(
    ax: Axes,
    bits: ArrayLike,
    *,
    periods: ArrayLike | None = None,
    row_labels: Sequence[str] | None = None,
    ylabel: str | None = "Position",
    **style: Any,
) -> BinaryTable:
    """Draw a table of bits, one row per position, optionally coloured by each bit's rate.
    Column j holds bit k = n_bits - 1 - j, which flips every 2^k steps: rate 1 / 2^(k+1).
    """
    ax = check_axes(ax)
    table = check_array("bits", bits, ndim=2)
    if not np.all((table == 0) | (table == 1)):
        raise ValueError("bits must contain only 0 and 1")
    n_rows, n_bits = table.shape
    places = [f"$2^{n_bits - 1 - c}$" for c in range(n_bits)]
    rows = check_labels("row_labels", range(n_rows) if row_labels is None else row_labels, n_rows)
    data = _bit_colours(table, periods, style)
    image = ax.imshow(data, **{"aspect": "auto", **style})
    digits = cell_texts(ax, table.astype(int).astype(str), fontsize=9)
    _cell_grid(ax, rows, places)
    set_labels(ax, None, ylabel)
    return BinaryTable(image, digits)


def _cell_grid(ax: Axes, rows: list[str], cols: list[str]) -> None:
    """Row labels on the left, column labels on top, thin lines between the cells, no frame."""
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xticks(range(len(cols)), cols)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    ax.set_xticks(np.arange(-0.5, len(cols)), minor=True)
    ax.set_yticks(np.arange(-0.5, len(rows)), minor=True)
    hide_frame(ax)
    ax.grid(True, which="minor", color="#999999", linewidth=0.6)


def _bit_colours(table: np.ndarray, periods: ArrayLike | None, style: dict[str, Any]) -> np.ndarray:
    """The image data of the bits; sets its colour defaults in ``style``."""
    if periods is None:
        style.setdefault("cmap", _PLAIN_CMAP.with_extremes(bad="white"))
        style.setdefault("vmin", 0.0)
        style.setdefault("vmax", 1.0)
        return table.astype(np.float64)
    n_bits = table.shape[1]
    period = np.asarray(check_array("periods", periods, ndim=1), dtype=np.float64)
    if period.shape != (n_bits,) or np.any(period <= 0):
        raise ValueError(
            f"periods must hold {n_bits} positive numbers (one per bit column); got {period!r}"
        )
    rate = 1.0 / period
    style.setdefault("cmap", matplotlib.colormaps["YlOrRd"].with_extremes(bad="white"))
    style.setdefault("norm", LogNorm(vmin=rate.min() / 2.5, vmax=rate.max()))
    # rate_j = 1 / period_j (set bits; clear bits are masked)
    return np.ma.masked_equal(table * rate[None, :], 0.0)


@dataclass
class BitRows:
    """Artists of :func:`draw_float32_bits`: the bit image and the digit texts."""

    image: AxesImage
    digits: list[Text]


def draw_float32_bits(
    ax: Axes,
    values: ArrayLike,
    *,
    labels: Sequence[str] | None = None,
) -> BitRows:
    """Draw the float32 bit pattern of each value, coloured by field, with the 16 bits bfloat16
    drops faded. Sign vermillion, exponent blue, fraction green; clear bits pale.
    """
    ax = check_axes(ax)
    bits = float32_bits(values)
    kept = 16  # bfloat16 keeps the sign, the 8 exponent bits and the first 7 fraction bits
    n = bits.shape[0]
    if labels is None:
        labels = [f"{v:.8g}" for v in np.asarray(values, dtype=np.float32).tolist()]
    names = check_labels("labels", labels, n)
    field = np.array([3] + [0] * 8 + [2] * 23)  # Okabe-Ito index: sign, exponent, fraction
    colours = np.array([to_rgba(OKABE_ITO[i]) for i in field])  # (32, 4)
    rgba = np.repeat(colours[None, :, :], n, axis=0)
    strength = np.where(bits == 1, 1.0, 0.25)[:, :, None]
    faded = np.where(np.arange(32) < kept, 1.0, 0.35)[None, :, None]
    # colour = white - (white - field colour) * strength * fade
    rgba[..., :3] = 1.0 - (1.0 - rgba[..., :3]) * strength * faded
    image = ax.imshow(rgba, aspect="auto", interpolation="nearest")
    strong = (bits == 1) & (np.arange(32) < kept)[None, :]  # white digits on these cells
    digits = cell_texts(ax, bits.astype(str), strong, fontsize=7)
    ax.axvline(kept - 0.5, color="#000000", linewidth=1.2)
    ax.set_yticks(range(n), names)
    ax.set_xticks([0, 1, 8, 9, 31])
    ax.set_xlabel("Bit (0 = sign, 1-8 = exponent, 9-31 = fraction)")
    ax.grid(False)
    return BitRows(image, digits)

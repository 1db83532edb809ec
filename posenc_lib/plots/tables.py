"""Tables: numbers, bits and float32 bit patterns written cell by cell.

Notebooks: 01_binary_counting, 02_sinusoidal_formula, 08_numerical_precision and
11_figure_gallery.

A matrix of numbers rendered as a table (the worked d_model = 4 table of write-up 001), the
binary position table (write-ups 001 and 003) and the float32 bit pattern of numbers, coloured
by field. Each ``draw_*`` takes an ``Axes`` and data already computed with the math modules,
draws it and returns the artists it created.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap, LogNorm
from matplotlib.image import AxesImage
from matplotlib.table import Table
from matplotlib.text import Text
from numpy.typing import ArrayLike

from posenc_lib._checks import check_array, check_int
from posenc_lib.plots._common import OKABE_ITO, as_matrix, check_axes, set_labels
from posenc_lib.precision import float32_bits

__all__ = [
    "BinaryTable",
    "BitRows",
    "draw_binary_table",
    "draw_float32_bits",
    "draw_value_table",
]


def draw_value_table(
    ax: Axes,
    values: ArrayLike,
    *,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    fmt: str = "{:.8f}",
    font_size: float = 10.0,
    **style: Any,
) -> Table:
    """Render a matrix of numbers as a table filling ``ax`` (the axes frame is hidden).

    For example the worked d_model = 4 table.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw; its frame and ticks are switched off.
    values : array_like, shape (n_rows, n_cols)
        The numbers, for example ``sinusoidal_encoding(4, 4)``.
    row_labels : sequence of str, length n_rows
        Row headers (for example ``"pos 0"`` .. ``"pos 3"``).
    col_labels : sequence of str, length n_cols
        Column headers (for example ``"sin, i=0"``).
    fmt : str, default "{:.8f}"
        ``str.format`` pattern of every cell.
    font_size : float, default 10
        Text size of the cells, in points.
    **style
        Passed on to ``Axes.table`` (for example ``colColours``).

    Returns
    -------
    matplotlib.table.Table
        Cell (r + 1, c) holds ``fmt.format(values[r, c])``; row 0 holds the column headers and
        column -1 the row headers.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> table = draw_value_table(ax, [[0.0, 1.0]], row_labels=["pos 0"], col_labels=["a", "b"],
    ...                          fmt="{:.2f}")
    >>> table[1, 1].get_text().get_text(), table[1, -1].get_text().get_text()
    ('1.00', 'pos 0')
    """
    ax = check_axes(ax)
    matrix = as_matrix("values", values)
    n_rows, n_cols = matrix.shape
    expected_labels = (("row_labels", row_labels, n_rows), ("col_labels", col_labels, n_cols))
    for name, labels, expected in expected_labels:
        if isinstance(labels, str) or len(labels) != expected:
            raise ValueError(f"{name} must be a sequence of {expected} labels; got {labels!r}")
    if not isinstance(fmt, str):
        raise TypeError(f"fmt must be a format string such as '{{:.4f}}'; got {fmt!r}")
    try:
        cells = [[fmt.format(value) for value in row] for row in matrix]
    except (ValueError, IndexError, KeyError) as err:
        raise ValueError(f"fmt must format one number, such as '{{:.4f}}'; got {fmt!r}") from err
    style.setdefault("loc", "center")
    style.setdefault("cellLoc", "right")
    style.setdefault("colColours", ["#E8E8E8"] * n_cols)
    style.setdefault("rowColours", ["#E8E8E8"] * n_rows)
    table = ax.table(
        cellText=cells,
        rowLabels=[str(label) for label in row_labels],
        colLabels=[str(label) for label in col_labels],
        **style,
    )
    table.auto_set_font_size(False)
    table.set_fontsize(font_size)
    table.scale(1.0, 1.6)
    ax.set_axis_off()
    return table


_PLAIN_CMAP = ListedColormap(["#FFFFFF", "#9CC9E8"], name="posenc_bits")


class BinaryTable(NamedTuple):
    """Artists of ``draw_binary_table``."""

    image: AxesImage
    """The cell colours (see ``draw_binary_table`` for what the array holds)."""
    digits: list[Text]
    """One text per cell, row by row: ``digits[r * n_bits + c]`` shows ``bits[r, c]``."""


def draw_binary_table(
    ax: Axes,
    bits: ArrayLike,
    *,
    periods: ArrayLike | None = None,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    cmap: str = "YlOrRd",
    xlabel: str | None = None,
    ylabel: str | None = "Position",
    **style: Any,
) -> BinaryTable:
    """Draw a table of bits, one row per position, optionally coloured by each bit's rate.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    bits : array_like of 0/1, shape (n_positions, n_bits)
        ``binary_table(n_positions, n_bits)``, most significant bit first.
    periods : array_like, shape (n_bits,), optional
        ``bit_periods(n_bits)``. When given, a set bit is coloured by its column's rate of
        change 1/period (fast bits dark red, slow bits light orange) and clear bits stay white;
        when omitted, set bits are light blue.
    row_labels, col_labels : sequence of str, optional
        Tick labels; positions ``0 .. n-1`` and ``2^k`` (the bit's place value) by default.
    cmap : str, default "YlOrRd"
        Colormap for the rate colouring.
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to ``Axes.imshow``.

    Returns
    -------
    BinaryTable
        ``image``: its array equals ``bits`` without periods, and ``bits / periods`` (masked
        where the bit is 0) with periods. ``digits``: the cell texts.

    Notes
    -----
    Column j holds bit k = n_bits - 1 - j, which flips every 2^k steps: period 2^(k+1), rate
    1 / 2^(k+1).

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> bits = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> art = draw_binary_table(ax, bits, periods=[4, 2])
    >>> art.image.get_array().filled(0).tolist(), art.digits[3].get_text()
    ([[0.0, 0.0], [0.0, 0.5], [0.25, 0.0], [0.25, 0.5]], '1')
    """
    ax = check_axes(ax)
    table = check_array("bits", bits, ndim=2)
    if not np.all((table == 0) | (table == 1)):
        raise ValueError("bits must contain only 0 and 1")
    n_rows, n_bits = table.shape
    data = _bit_colours(table, periods, cmap, style)
    style.setdefault("aspect", "auto")
    image = ax.imshow(data, **style)
    digits = [
        ax.text(c, r, str(int(table[r, c])), ha="center", va="center", fontsize=9)
        for r in range(n_rows)
        for c in range(n_bits)
    ]
    _label_cells(ax, n_rows, n_bits, row_labels, col_labels)
    set_labels(ax, xlabel, ylabel)
    return BinaryTable(image, digits)


def _bit_colours(table: np.ndarray, periods: ArrayLike | None, cmap: str,
                 style: dict[str, Any]) -> np.ndarray:
    """The image data of the bits, and its colour defaults set in ``style``."""
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
    style.setdefault("cmap", matplotlib.colormaps[cmap].with_extremes(bad="white"))
    style.setdefault("norm", LogNorm(vmin=rate.min() / 2.5, vmax=rate.max()))
    # rate_j = 1 / period_j (set bits; clear bits are masked)
    return np.ma.masked_equal(table * rate[None, :], 0.0)


def _label_cells(ax: Axes, n_rows: int, n_bits: int, row_labels: Sequence[str] | None,
                 col_labels: Sequence[str] | None) -> None:
    """Positions down the side, place values 2^k on top, thin lines between the cells."""
    rows = [str(r) for r in range(n_rows)] if row_labels is None else list(row_labels)
    places = [f"$2^{n_bits - 1 - c}$" for c in range(n_bits)]
    cols = places if col_labels is None else list(col_labels)
    if len(rows) != n_rows:
        raise ValueError(f"row_labels must have {n_rows} entries; got {len(rows)}")
    if len(cols) != n_bits:
        raise ValueError(f"col_labels must have {n_bits} entries; got {len(cols)}")
    ax.set_yticks(range(n_rows), rows)
    ax.set_xticks(range(n_bits), cols)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    ax.set_xticks(np.arange(-0.5, n_bits), minor=True)
    ax.set_yticks(np.arange(-0.5, n_rows), minor=True)
    ax.grid(False)
    ax.grid(True, which="minor", color="#999999", linewidth=0.6)
    for spine in ax.spines.values():
        spine.set_visible(False)


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
    kept_bits: int = 16,
) -> BitRows:
    """Draw the float32 bit pattern of each value, coloured by field, with dropped bits faded.

    bfloat16 keeps the first 16 bits of a float32.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    values : array_like, shape (n,)
        Finite numbers, rounded to float32.
    labels : sequence of str, length n, optional
        Row labels; the values themselves (8 significant digits) when omitted.
    kept_bits : int, default 16
        Bits kept by the narrow format (16 for bfloat16); the others are drawn faded.

    Returns
    -------
    BitRows
        The image (shape (n, 32)) and the 0/1 texts written in the cells.

    Notes
    -----
    Colours: sign (vermillion), exponent (blue), fraction (green); the bits past
    ``kept_bits`` are lighter: they are what bfloat16 drops.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> rows = draw_float32_bits(ax, [1.0, -2.0])
    >>> rows.image.get_array().shape, rows.digits[32].get_text()
    ((2, 32, 4), '1')
    """
    ax = check_axes(ax)
    bits = float32_bits(values)
    kept = check_int("kept_bits", kept_bits, minimum=1)
    if kept > 32:
        raise ValueError(f"kept_bits must be in 1..32; got {kept}")
    n = bits.shape[0]
    if labels is None:
        names = [f"{v:.8g}" for v in np.asarray(values, dtype=np.float32).tolist()]
    else:
        if isinstance(labels, str) or len(labels) != n:
            raise ValueError(f"labels must be a sequence of {n} strings; got {labels!r}")
        names = [str(label) for label in labels]
    field = np.array([3] + [0] * 8 + [2] * 23)  # Okabe-Ito index: sign, exponent, fraction
    colours = np.array([_rgba(OKABE_ITO[i]) for i in field])  # (32, 4)
    rgba = np.repeat(colours[None, :, :], n, axis=0)
    strength = np.where(bits == 1, 1.0, 0.25)[:, :, None]
    faded = np.where(np.arange(32) < kept, 1.0, 0.35)[None, :, None]
    rgba[..., :3] = 1.0 - (1.0 - rgba[..., :3]) * strength * faded
    image = ax.imshow(rgba, aspect="auto", interpolation="nearest")
    # white digits on the strong (kept, set) cells, black elsewhere
    strong = (bits == 1) & (np.arange(32) < kept)[None, :]
    digits = [
        ax.text(k, r, str(bits[r, k]), ha="center", va="center", fontsize=7,
                color="white" if strong[r, k] else "black")
        for r in range(n)
        for k in range(32)
    ]
    ax.axvline(kept - 0.5, color="#000000", linewidth=1.2)
    ax.set_yticks(range(n), names)
    ax.set_xticks([0, 1, 8, 9, 31])
    ax.set_xlabel("Bit (0 = sign, 1-8 = exponent, 9-31 = fraction)")
    ax.grid(False)
    return BitRows(image, digits)


def _rgba(colour: str) -> tuple[float, float, float, float]:
    value = int(colour.lstrip("#"), 16)
    return ((value >> 16) / 255.0, ((value >> 8) & 255) / 255.0, (value & 255) / 255.0, 1.0)

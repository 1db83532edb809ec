"""Drawing the binary position table (notebook 01; figures of write-ups 001 and 003)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap, LogNorm
from matplotlib.image import AxesImage
from matplotlib.text import Text
from numpy.typing import ArrayLike

from posenc_lib._checks import check_array
from posenc_lib.plots._common import check_axes, set_labels

__all__ = ["BinaryTable", "draw_binary_table"]

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

    Introduced in notebook 01_binary_counting.

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
    if periods is None:
        data: np.ndarray = table.astype(np.float64)
        style.setdefault("cmap", _PLAIN_CMAP.with_extremes(bad="white"))
        style.setdefault("vmin", 0.0)
        style.setdefault("vmax", 1.0)
    else:
        period = np.asarray(check_array("periods", periods, ndim=1), dtype=np.float64)
        if period.shape != (n_bits,) or np.any(period <= 0):
            raise ValueError(
                f"periods must hold {n_bits} positive numbers (one per bit column); got {period!r}"
            )
        rate = 1.0 / period
        # rate_j = 1 / period_j (set bits; clear bits are masked)
        data = np.ma.masked_equal(table * rate[None, :], 0.0)
        style.setdefault("cmap", matplotlib.colormaps[cmap].with_extremes(bad="white"))
        style.setdefault("norm", LogNorm(vmin=rate.min() / 2.5, vmax=rate.max()))
    style.setdefault("aspect", "auto")
    image = ax.imshow(data, **style)
    digits = [
        ax.text(c, r, str(int(table[r, c])), ha="center", va="center", fontsize=9)
        for r in range(n_rows)
        for c in range(n_bits)
    ]
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
    set_labels(ax, xlabel, ylabel)
    return BinaryTable(image, digits)

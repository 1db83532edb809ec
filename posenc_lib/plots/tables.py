"""A table of numbers drawn as a figure (the worked d_model=4 table of write-up 001)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.axes import Axes
from matplotlib.table import Table
from numpy.typing import ArrayLike

from posenc_lib.plots._common import as_matrix, check_axes

__all__ = ["draw_value_table"]


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

    Introduced in notebook 02_sinusoidal_formula (the worked d_model = 4 table).

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

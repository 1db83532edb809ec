"""Drawing functions of notebooks 00-02 that the topic modules do not provide.

Attention weights with word labels (00), grouped bars (00, 01), codes on number lines (00),
labelled curves (00, 02) and wavelengths against sentence lengths (02). As everywhere in
``posenc_lib.plots``, each function takes an ``Axes`` and data already computed, draws it and
returns the artists it created, so an explorer can update them in place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.container import BarContainer
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.text import Text
from numpy.typing import ArrayLike

from posenc_lib._checks import check_array, check_bool
from posenc_lib.plots._common import (
    OKABE_ITO,
    as_matrix,
    as_vector,
    check_axes,
    figure_of,
    set_labels,
)
from posenc_lib.plots.context import draw_curves  # re-exported: one curve drawer

__all__ = [
    "AttentionMap",
    "WavelengthChart",
    "draw_attention_weights",
    "draw_curves",
    "draw_dot_rows",
    "draw_grouped_bars",
    "draw_wavelengths",
]


def _check_labels(name: str, labels: Any, expected: int) -> list[str]:
    if isinstance(labels, str) or not isinstance(labels, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of {expected} labels; got {labels!r}")
    if len(labels) != expected:
        raise ValueError(f"{name} must have {expected} entries; got {len(labels)}")
    return [str(label) for label in labels]


@dataclass
class AttentionMap:
    """Artists of :func:`draw_attention_weights`; :meth:`update` changes them in place."""

    image: AxesImage
    """The weights, array shape (n_queries, n_keys)."""
    values: list[Text]
    """One text per cell, row by row (empty when drawn without numbers)."""
    query_texts: list[Text]
    """The words of the rows, left of the image."""
    key_texts: list[Text]
    """The words of the columns, above the image."""

    def artists(self) -> list[Any]:
        """Every artist that :meth:`update` may change (for redrawing only those)."""
        return [self.image, *self.values, *self.query_texts, *self.key_texts]

    def update(
        self,
        weights: ArrayLike,
        query_labels: Sequence[str] | None = None,
        key_labels: Sequence[str] | None = None,
    ) -> None:
        """Show new weights (same shape) and, optionally, new words.

        Parameters
        ----------
        weights : array_like, shape (n_queries, n_keys)
            The new attention weights; the shape must not change.
        query_labels, key_labels : sequence of str, optional
            New words of the rows and columns; unchanged when None.
        """
        matrix = as_matrix("weights", weights)
        old = self.image.get_array()
        if old is None or matrix.shape != old.shape:
            raise ValueError(
                f"weights must keep the shape {None if old is None else old.shape}; "
                f"got {matrix.shape}"
            )
        self.image.set_data(matrix)
        for text, value in zip(self.values, matrix.ravel(), strict=False):
            text.set_text(f"{value:.2f}")
            text.set_color("white" if value > 0.6 else "black")
        for texts, labels, name in (
            (self.query_texts, query_labels, "query_labels"),
            (self.key_texts, key_labels, "key_labels"),
        ):
            if labels is not None:
                for text, label in zip(texts, _check_labels(name, labels, len(texts)), strict=True):
                    text.set_text(label)


def draw_attention_weights(
    ax: Axes,
    weights: ArrayLike,
    *,
    query_labels: Sequence[str],
    key_labels: Sequence[str] | None = None,
    numbers: bool = True,
    cmap: str = "Blues",
    colorbar: bool = False,
    xlabel: str | None = None,
    ylabel: str | None = None,
    **style: Any,
) -> AttentionMap:
    """Draw an attention-weight matrix with the words on both axes.

    Introduced in notebook 00_why_position.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    weights : array_like, shape (n_queries, n_keys)
        Attention weights (rows sum to 1), for example the second output of
        ``posenc_lib.attention.self_attention``.
    query_labels : sequence of str, length n_queries
        The words of the rows (the queries), written left of the image.
    key_labels : sequence of str, length n_keys, optional
        The words of the columns (the keys), written above the image; ``query_labels`` when
        omitted (self-attention).
    numbers : bool, default True
        Write each weight in its cell (two decimals).
    cmap : str, default "Blues"
        Colormap; the colour limits are fixed to [0, 1].
    colorbar : bool, default False
        Add a colorbar.
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to ``Axes.imshow``.

    Returns
    -------
    AttentionMap
        ``image`` (array = ``weights``), the cell ``values`` texts and the words
        (``query_texts`` left of the rows, ``key_texts`` above the columns).

    Notes
    -----
    Row q shows softmax(q·k_j / sqrt(d)) over the keys j: how much query q takes from each word.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> art = draw_attention_weights(ax, [[0.25, 0.75], [0.5, 0.5]], query_labels=["a", "b"])
    >>> art.image.get_array().shape, art.values[1].get_text(), art.key_texts[0].get_text()
    ((2, 2), '0.75', 'a')
    """
    ax = check_axes(ax)
    matrix = as_matrix("weights", weights)
    n_rows, n_cols = matrix.shape
    rows = _check_labels("query_labels", query_labels, n_rows)
    cols = rows if key_labels is None else _check_labels("key_labels", key_labels, n_cols)
    if key_labels is None and n_rows != n_cols:
        raise ValueError(
            f"key_labels are needed when weights are not square; got shape {matrix.shape}"
        )
    if not isinstance(numbers, bool) or not isinstance(colorbar, bool):
        raise TypeError(f"numbers and colorbar must be bools; got {numbers!r}, {colorbar!r}")
    style.setdefault("interpolation", "nearest")
    style.setdefault("aspect", "equal")
    image = ax.imshow(matrix, cmap=cmap, vmin=0.0, vmax=1.0, **style)
    ax.grid(False)
    texts: list[Text] = []
    if numbers:
        for (r, c), value in np.ndenumerate(matrix):
            colour = "white" if value > 0.6 else "black"
            texts.append(
                ax.text(c, r, f"{value:.2f}", ha="center", va="center", fontsize=8, color=colour)
            )
    # the words are texts (not tick labels) so that they can change without a full redraw
    query_texts = [ax.text(-0.65, r, word, ha="right", va="center") for r, word in enumerate(rows)]
    key_texts = [
        ax.text(c, -0.65, word, ha="left", va="bottom", rotation=45, rotation_mode="anchor")
        for c, word in enumerate(cols)
    ]
    ax.set_xticks([])
    ax.set_yticks([])
    set_labels(ax, xlabel, ylabel)
    if colorbar:
        figure_of(ax).colorbar(image, ax=ax, fraction=0.046, pad=0.03)
    return AttentionMap(image, texts, query_texts, key_texts)


def draw_grouped_bars(
    ax: Axes,
    series: Mapping[str, ArrayLike],
    *,
    categories: Sequence[Any] | None = None,
    width: float = 0.8,
    legend: bool = True,
    xlabel: str | None = None,
    ylabel: str | None = None,
    **style: Any,
) -> list[BarContainer]:
    """Draw several series of numbers as bars side by side, one group per category.

    Introduced in notebook 00_why_position (the output of one word in two sentences) and used
    in 01_binary_counting (neighbour distances).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    series : mapping of str to array_like, each shape (n_categories,)
        Legend label -> values, drawn in the order given.
    categories : sequence, length n_categories, optional
        x tick labels; ``0 .. n-1`` when omitted.
    width : float, default 0.8
        Total width of a group, in (0, 1].
    legend : bool, default True
        Add a legend.
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to every ``Axes.bar`` call.

    Returns
    -------
    list of matplotlib.container.BarContainer
        One per series; update a bar in place with ``container.patches[j].set_height(v)``.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> bars = draw_grouped_bars(ax, {"a": [1.0, 2.0], "b": [3.0, 4.0]}, categories=["x", "y"])
    >>> [float(p.get_height()) for p in bars[1].patches]
    [3.0, 4.0]
    """
    ax = check_axes(ax)
    if not isinstance(series, Mapping) or not series:
        raise TypeError(f"series must be a non-empty mapping of label -> values; got {series!r}")
    arrays = {str(name): as_vector(f"series[{name!r}]", v) for name, v in series.items()}
    sizes = {a.size for a in arrays.values()}
    if len(sizes) != 1:
        raise ValueError(f"series must all have the same length; got lengths {sorted(sizes)}")
    n = sizes.pop()
    ticks = list(range(n)) if categories is None else _check_labels("categories", categories, n)
    total = float(width)
    if isinstance(width, bool) or not 0.0 < total <= 1.0:
        raise ValueError(f"width must be in (0, 1]; got {width!r}")
    legend = check_bool("legend", legend)
    step = total / len(arrays)
    x = np.arange(n, dtype=np.float64)
    containers = []
    for k, (name, values) in enumerate(arrays.items()):
        offset = -total / 2 + step * (k + 0.5)
        containers.append(ax.bar(x + offset, values, width=step, label=name, **style))
    ax.set_xticks(x, [str(t) for t in ticks])
    ax.axhline(0.0, color="#444444", linewidth=0.8)
    set_labels(ax, xlabel, ylabel)
    if legend:
        ax.legend(loc="best")
    return containers


def draw_dot_rows(
    ax: Axes,
    rows: Sequence[ArrayLike],
    *,
    labels: Sequence[str],
    annotate: bool = False,
    xlabel: str | None = "Code value",
    **style: Any,
) -> list[Line2D]:
    """Draw each row of numbers as dots on its own horizontal number line.

    Introduced in notebook 00_why_position (the normalised index of sentences of several
    lengths).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    rows : sequence of array_like, each shape (n_k,)
        The values of row k (rows may have different lengths); row 0 is drawn at the top.
    labels : sequence of str, one per row
        y tick labels.
    annotate : bool, default False
        Write the index of each dot (its position) above it.
    xlabel : str or None
        x axis label; None leaves it unchanged.
    **style
        Passed on to every ``Axes.plot`` call.

    Returns
    -------
    list of matplotlib.lines.Line2D
        Line k has x = ``rows[k]`` and y = its row height.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> lines = draw_dot_rows(ax, [[0.0, 0.5, 1.0], [0.0, 1.0]], labels=["n=3", "n=2"])
    >>> lines[0].get_xdata().tolist(), lines[1].get_ydata().tolist()
    ([0.0, 0.5, 1.0], [0.0, 0.0])
    """
    ax = check_axes(ax)
    if isinstance(rows, np.ndarray) and rows.ndim == 2:
        rows = list(rows)
    if not isinstance(rows, Sequence) or not rows:
        raise TypeError(f"rows must be a non-empty sequence of 1-D arrays; got {rows!r}")
    values = [as_vector(f"rows[{k}]", row) for k, row in enumerate(rows)]
    names = _check_labels("labels", labels, len(values))
    annotate = check_bool("annotate", annotate)
    style.setdefault("linestyle", "none")
    style.setdefault("marker", "o")
    style.setdefault("markersize", 6)
    n = len(values)
    lines = []
    for k, row in enumerate(values):
        height = float(n - 1 - k)
        ax.axhline(height, color="#BBBBBB", linewidth=0.8, zorder=0)
        (line,) = ax.plot(row, np.full(row.size, height), **style)
        lines.append(line)
        if annotate:
            for index, value in enumerate(row):
                ax.text(value, height + 0.18, str(index), ha="center", va="bottom", fontsize=8)
    ax.set_yticks([n - 1 - k for k in range(n)], names)
    ax.set_ylim(-0.6, n - 0.3)
    ax.grid(False, axis="y")
    set_labels(ax, xlabel, None)
    return lines


@dataclass
class WavelengthChart:
    """Artists of :func:`draw_wavelengths`."""

    line: Line2D
    """Wavelength of pair i against i."""
    turned: list[Line2D]
    """For each sentence length, the markers of the pairs that complete a full turn."""
    thresholds: list[Line2D]
    """One horizontal line per sentence length, at L - 1 positions."""


def draw_wavelengths(
    ax: Axes,
    wavelengths: ArrayLike,
    sentence_lengths: Sequence[int] = (),
    *,
    xlabel: str | None = "Pair index $i$",
    ylabel: str | None = r"Wavelength $\lambda_i$ (positions)",
    **style: Any,
) -> WavelengthChart:
    """Draw each pair's wavelength (log scale) with the span of a few sentence lengths.

    Introduced in notebook 02_sinusoidal_formula.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    wavelengths : array_like, shape (d_model // 2,)
        ``wavelengths(inverse_frequencies(d_model, base))``, all > 0.
    sentence_lengths : sequence of int
        Lengths L >= 2. A sentence of L tokens spans L - 1 steps, so pair i completes a full
        turn within it when ``wavelengths[i] <= L - 1``; those pairs are marked.
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to the ``Axes.plot`` call of the wavelength curve.

    Returns
    -------
    WavelengthChart
        The curve, the markers of the turned pairs and the threshold lines.

    Notes
    -----
    lambda_i = 2 pi base^(2i/d) is a geometric progression: a straight line on a log axis.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> chart = draw_wavelengths(ax, 2 * np.pi * 10.0 ** np.arange(4), [100])
    >>> chart.turned[0].get_xdata().tolist(), [float(y) for y in chart.thresholds[0].get_ydata()]
    ([0, 1], [99.0, 99.0])
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
    style.setdefault("color", "#444444")
    (line,) = ax.plot(index, lam, label=r"$\lambda_i$", **style)
    ax.set_yscale("log")
    turned, thresholds = [], []
    for k, length in enumerate(lengths.tolist()):
        colour = OKABE_ITO[(k + 1) % len(OKABE_ITO)]
        span = float(length - 1)
        thresholds.append(ax.axhline(span, color=colour, linestyle="--", linewidth=1.0))
        full = index[lam <= span]
        (marks,) = ax.plot(
            full,
            lam[full],
            linestyle="none",
            marker="o",
            markersize=4,
            color=colour,
            label=f"L = {length}: {full.size} pairs turn fully",
            zorder=3.0 + 1.0 / length,  # shorter sentences (fewer marks) on top
        )
        turned.append(marks)
    set_labels(ax, xlabel, ylabel)
    ax.legend(loc="upper left")
    return WavelengthChart(line, turned, thresholds)

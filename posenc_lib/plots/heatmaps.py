"""Heatmaps: a matrix drawn as an image, one cell per entry.

Notebooks: 00_why_position, 01_binary_counting, 02_sinusoidal_formula, 03_properties,
04_rotation_proof, 05_rope, 06_context_extension, 07_other_schemes and 11_figure_gallery.

The encoding matrix, the dot products between positions, a signed matrix centred on zero, an
attention bias with masked keys, attention weights with the words on both axes and the map of
rotation angles never seen in training. Each ``draw_*`` takes an ``Axes`` and data already
computed with the math modules, draws it and returns the artists it created, so an explorer can
update them in place (``image.set_data``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.image import AxesImage
from matplotlib.text import Text
from matplotlib.ticker import MaxNLocator
from numpy.typing import ArrayLike

from posenc_lib._checks import check_array, check_bool, check_float
from posenc_lib.plots._common import (
    OKABE_ITO,
    as_matrix,
    as_vector,
    check_axes,
    check_labels,
    figure_of,
    set_labels,
)

__all__ = [
    "AttentionMap",
    "DIVERGING_CMAP",
    "MASKED_COLOUR",
    "UNSEEN_COLOURS",
    "draw_attention_weights",
    "draw_bias_matrix",
    "draw_encoding_heatmap",
    "draw_signed_matrix",
    "draw_similarity_matrix",
    "draw_unseen_angles",
    "masked_bias",
]


DIVERGING_CMAP = "RdBu_r"
"""Colormap of signed data centred on zero: blue below 0, white at 0, red above."""
MASKED_COLOUR = "#D9D9D9"
"""Colour of masked entries (``-inf``: a key the query may not see)."""
UNSEEN_COLOURS: tuple[str, str] = ("#F2F2F2", OKABE_ITO[3])
"""Colours of :func:`draw_unseen_angles`: seen in training (light grey), never seen (vermillion)."""


def _show_image(
    ax: Axes,
    data: Any,
    *,
    colorbar: bool,
    xlabel: str | None,
    ylabel: str | None,
    **imshow: Any,
) -> AxesImage:
    """``ax.imshow(data, **imshow)`` (nearest cells by default) without grid, labelled.

    ``colorbar`` adds a colorbar next to ``ax``, reachable afterwards as ``image.colorbar``.
    """
    imshow.setdefault("interpolation", "nearest")
    image = ax.imshow(data, **imshow)
    ax.grid(False)
    set_labels(ax, xlabel, ylabel)
    if colorbar:
        figure_of(ax).colorbar(image, ax=ax, fraction=0.046, pad=0.03)
    return image


def draw_encoding_heatmap(
    ax: Axes,
    encoding: ArrayLike,
    *,
    transpose: bool = False,
    cmap: str = DIVERGING_CMAP,
    vmin: float = -1.0,
    vmax: float = 1.0,
    colorbar: bool = False,
    position_label: str | None = "Position",
    dimension_label: str | None = "Dimension",
    **style: Any,
) -> AxesImage:
    """Draw a positional-encoding matrix as an image, one row per position.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    encoding : array_like, shape (n_positions, d_model)
        For example ``sinusoidal_encoding(100, 512)``.
    transpose : bool, default False
        False: positions on the y axis and dimensions on the x axis (the image array is
        ``encoding``). True: "dimension on y", the image array is ``encoding.T``, shape
        (d_model, n_positions), as in write-up 002.
    cmap : str, default :data:`DIVERGING_CMAP`
        Colormap name. The default is diverging: with the default limits 0 is white, negative
        values blue and positive values red (a sequential map such as viridis would hide the
        sign).
    vmin, vmax : float, default -1, 1
        Colour limits (sines and cosines lie in [-1, 1]; symmetric limits centre the colormap
        on 0).
    colorbar : bool, default False
        Add a colorbar next to ``ax`` (reachable afterwards as ``image.colorbar``).
    position_label, dimension_label : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to ``Axes.imshow`` (for example ``aspect=0.3`` or ``origin="lower"``).
        Defaults: ``aspect="auto"``, ``interpolation="nearest"`` (sharp cells, and the fastest
        redraw for an explorer); pass ``interpolation="antialiased"`` for a static picture with
        more columns than pixels.

    Returns
    -------
    matplotlib.image.AxesImage
        Its array has shape (n_positions, d_model), or (d_model, n_positions) when transposed;
        update it with ``image.set_data(new_encoding)``.

    Notes
    -----
    Drawn with ``"nearest"``, 512 interleaved sine and cosine columns in about 500 pixels keep
    only some of the columns, and the kept ones beat into stripes (moiré) that are not in the
    data. ``interpolation="antialiased"`` filters the image when a cell covers fewer than three
    pixels (and keeps sharp cells otherwise); drawing the columns in the concatenated order
    (``encoding[:, split_permutation(d)]``) removes the alternation altogether.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> image = draw_encoding_heatmap(ax, np.zeros((5, 8)), transpose=True, colorbar=True)
    >>> image.get_array().shape, ax.get_xlabel(), image.colorbar is not None
    ((8, 5), 'Position', True)
    """
    ax = check_axes(ax)
    matrix = as_matrix("encoding", encoding)
    low, high = _colour_limits(vmin, vmax)
    transpose = check_bool("transpose", transpose)
    colorbar = check_bool("colorbar", colorbar)
    style.setdefault("aspect", "auto")
    if transpose:
        data, xlabel, ylabel = matrix.T, position_label, dimension_label
    else:
        data, xlabel, ylabel = matrix, dimension_label, position_label
    return _show_image(
        ax, data, colorbar=colorbar, xlabel=xlabel, ylabel=ylabel,
        cmap=cmap, vmin=low, vmax=high, **style,
    )


def _colour_limits(vmin: Any, vmax: Any) -> tuple[float, float]:
    low, high = check_float("vmin", vmin), check_float("vmax", vmax)
    if not low < high:
        raise ValueError(f"vmin must be < vmax; got vmin={low}, vmax={high}")
    return low, high


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
    ``PE(t)·PE(t+k) = sum_i cos(theta_i k)`` depends only on k: the matrix is symmetric and
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
    return _show_image(
        ax, matrix, colorbar=colorbar, xlabel=xlabel, ylabel=ylabel, cmap=cmap, **style
    )


def draw_signed_matrix(
    ax: Axes,
    matrix: ArrayLike,
    *,
    limit: float | None = None,
    annotate: bool = False,
    cmap: str = DIVERGING_CMAP,
    colorbar: bool = False,
    xlabel: str | None = "Column",
    ylabel: str | None = "Row",
    **style: Any,
) -> AxesImage:
    """Draw a matrix with a diverging colormap centred on zero (blocks of a rotation, a fit).

    For example the block-diagonal shift matrix M_k.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    matrix : array_like, shape (rows, cols)
        The matrix (finite).
    limit : float, optional
        Colour range [-limit, limit]; the largest absolute entry when omitted (1 if all are 0).
    annotate : bool, default False
        Write every entry (2 decimals) in its cell; meant for small matrices.
    cmap : str, default :data:`DIVERGING_CMAP`
        A diverging colormap name.
    colorbar : bool, default False
        Add a colorbar (reachable afterwards as ``image.colorbar``).
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to ``Axes.imshow``.

    Returns
    -------
    matplotlib.image.AxesImage
        Its array is ``matrix``.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> image = draw_signed_matrix(ax, [[0.5, -1.0], [1.0, 0.5]], annotate=True)
    >>> image.get_clim(), len(ax.texts)
    ((-1.0, 1.0), 4)
    """
    ax = check_axes(ax)
    data = as_matrix("matrix", matrix)
    annotate = check_bool("annotate", annotate)
    colorbar = check_bool("colorbar", colorbar)
    if limit is None:
        peak = float(np.abs(data).max()) if data.size else 0.0
        limit = peak if peak > 0 else 1.0
    limit = check_float("limit", limit, greater_than=0.0)
    image = _show_image(
        ax, data, colorbar=colorbar, xlabel=xlabel, ylabel=ylabel,
        cmap=cmap, vmin=-limit, vmax=limit, **style,
    )
    for axis in (ax.xaxis, ax.yaxis):  # rows and columns are whole numbers: no tick at 2.5
        axis.set_major_locator(MaxNLocator(integer=True))
    if annotate:
        for (row, col), value in np.ndenumerate(data):
            shade = "white" if abs(value) > 0.6 * limit else "black"
            ax.text(col, row, f"{value:.2f}", ha="center", va="center", color=shade, fontsize=8)
    return image


def masked_bias(bias: ArrayLike) -> np.ma.MaskedArray:
    """A 2-D bias matrix as a masked array: ``-inf`` entries (masked keys) are hidden.

    Parameters
    ----------
    bias : array_like, shape (n_queries, n_keys)
        Finite values or ``-inf`` (NaN and ``+inf`` are rejected).

    Returns
    -------
    numpy.ma.MaskedArray, shape (n_queries, n_keys), float64
        Masked where ``bias`` is ``-inf``.

    Examples
    --------
    >>> masked_bias([[0.0, -np.inf], [-1.0, 0.0]]).mask.tolist()
    [[False, True], [False, False]]
    """
    values = np.asarray(check_array("bias", bias, ndim=2, finite=False), dtype=np.float64)
    if np.isnan(values).any() or np.isposinf(values).any():
        raise ValueError("bias must not contain NaN or +inf (-inf marks a masked key)")
    return np.ma.masked_invalid(np.where(np.isneginf(values), np.nan, values))


def draw_bias_matrix(
    ax: Axes,
    bias: ArrayLike,
    *,
    vmin: float | None = None,
    vmax: float = 0.0,
    cmap: str = "viridis",
    colorbar: bool = False,
    xlabel: str | None = "Key position $j$",
    ylabel: str | None = "Query position $i$",
    **style: Any,
) -> AxesImage:
    """Draw an attention bias matrix (ALiBi, T5, ...) with masked keys in light grey.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    bias : array_like, shape (n_queries, n_keys)
        One head's bias, e.g. ``alibi_bias(slopes, n)[h]``; ``-inf`` entries are masked.
    vmin : float, optional
        Lower colour limit; the smallest finite entry when omitted.
    vmax : float, default 0.0
        Upper colour limit (ALiBi's biases are <= 0).
    cmap : str, default "viridis"
        Colormap name; masked entries use :data:`MASKED_COLOUR`.
    colorbar : bool, default False
        Add a colorbar (reachable as ``image.colorbar``).
    xlabel, ylabel : str or None
        Axis labels; None leaves a label unchanged.
    **style
        Passed on to ``Axes.imshow``.

    Returns
    -------
    matplotlib.image.AxesImage
        Its array is :func:`masked_bias` of ``bias``; update it with
        ``image.set_data(masked_bias(new))`` and ``image.set_clim(...)``.

    Notes
    -----
    Row ``i`` is what query ``i`` adds to its scores before the softmax: the further the key,
    the darker the cell for ALiBi.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> image = draw_bias_matrix(ax, [[0.0, -np.inf], [-0.5, 0.0]])
    >>> image.get_clim(), bool(image.get_array().mask[0, 1])
    ((-0.5, 0.0), True)
    """
    ax = check_axes(ax)
    data = masked_bias(bias)
    high = check_float("vmax", vmax)
    if vmin is None:
        finite = data.compressed()
        low = float(finite.min()) if finite.size else high - 1.0
        if low >= high:
            low = high - 1.0
    else:
        low = check_float("vmin", vmin)
        if not low < high:
            raise ValueError(f"vmin must be < vmax; got vmin={low}, vmax={high}")
    colorbar = check_bool("colorbar", colorbar)
    colours = matplotlib.colormaps[cmap].with_extremes(bad=MASKED_COLOUR)
    return _show_image(
        ax, data, colorbar=colorbar, xlabel=xlabel, ylabel=ylabel,
        cmap=colours, vmin=low, vmax=high, **style,
    )


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
                for text, label in zip(texts, check_labels(name, labels, len(texts)), strict=True):
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
    rows = check_labels("query_labels", query_labels, n_rows)
    cols = rows if key_labels is None else check_labels("key_labels", key_labels, n_cols)
    if key_labels is None and n_rows != n_cols:
        raise ValueError(
            f"key_labels are needed when weights are not square; got shape {matrix.shape}"
        )
    if not isinstance(numbers, bool) or not isinstance(colorbar, bool):
        raise TypeError(f"numbers and colorbar must be bools; got {numbers!r}, {colorbar!r}")
    style.setdefault("aspect", "equal")
    image = _show_image(
        ax, matrix, colorbar=colorbar, xlabel=xlabel, ylabel=ylabel,
        cmap=cmap, vmin=0.0, vmax=1.0, **style,
    )
    texts = _weight_texts(ax, matrix) if numbers else []
    query_texts, key_texts = _word_texts(ax, rows, cols)
    ax.set_xticks([])
    ax.set_yticks([])
    return AttentionMap(image, texts, query_texts, key_texts)


def _weight_texts(ax: Axes, matrix: np.ndarray) -> list[Text]:
    """Each weight written in its cell, two decimals, white on the dark cells."""
    texts: list[Text] = []
    for (r, c), value in np.ndenumerate(matrix):
        colour = "white" if value > 0.6 else "black"
        texts.append(
            ax.text(c, r, f"{value:.2f}", ha="center", va="center", fontsize=8, color=colour)
        )
    return texts


def _word_texts(ax: Axes, rows: Sequence[str], cols: Sequence[str]) -> tuple[list[Text],
                                                                           list[Text]]:
    """The query words left of the rows and the key words above the columns."""
    # the words are texts (not tick labels) so that they can change without a full redraw
    query_texts = [ax.text(-0.65, r, word, ha="right", va="center") for r, word in enumerate(rows)]
    key_texts = [
        ax.text(c, -0.65, word, ha="left", va="bottom", rotation=45, rotation_mode="anchor")
        for c, word in enumerate(cols)
    ]
    return query_texts, key_texts


def draw_unseen_angles(
    ax: Axes,
    unseen: ArrayLike,
    positions: ArrayLike,
    *,
    trained_length: float | None = None,
    xlabel: str | None = "Position $m$",
    ylabel: str | None = "Pair index $i$",
    **style: Any,
) -> AxesImage:
    """Draw where the rotation angle of a pair lies outside the arc seen in training.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    unseen : array_like of bool or 0/1, shape (n_positions, n_pairs)
        ``unseen_angle_mask(positions, inv_freq, trained_inv_freq, trained_length)``.
    positions : array_like, shape (n_positions,)
        Increasing positions of the rows of ``unseen`` (evenly spaced for a faithful picture).
    trained_length : float, optional
        Draw a dashed vertical line at the trained length ``L``.
    xlabel, ylabel : str or None
        Axis labels; None leaves a label unchanged.
    **style
        Passed on to ``Axes.imshow``.

    Returns
    -------
    matplotlib.image.AxesImage
        Its array is ``unseen.T`` as floats (pairs on the vertical axis, pair 0 at the bottom);
        its extent spans the positions.

    Notes
    -----
    Pair ``i`` at position ``m`` is unseen when training only covered the arc
    ``[0, (L - 1) theta_i]`` of less than a full turn and ``m theta'_i mod 2 pi`` lies beyond it.
    Grey cells were seen in training, vermillion cells never were.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> image = draw_unseen_angles(ax, [[False, False], [False, True]], [0, 10])
    >>> image.get_array().shape
    (2, 2)
    """
    ax = check_axes(ax)
    mask = np.asarray(unseen)
    if mask.dtype == np.bool_:
        mask = mask.astype(np.float64)
    values = np.asarray(check_array("unseen", mask, ndim=2), dtype=np.float64)
    pos = as_vector("positions", positions)
    if pos.shape[0] != values.shape[0]:
        raise ValueError(
            f"positions must have one entry per row of unseen ({values.shape[0]}); "
            f"got shape {pos.shape}"
        )
    if pos.size > 1 and np.any(np.diff(pos) <= 0):
        raise ValueError("positions must be strictly increasing")
    last = pos[-1] if pos[-1] > pos[0] else pos[0] + 1.0
    options = {
        "cmap": ListedColormap(list(UNSEEN_COLOURS)),
        "vmin": 0.0,
        "vmax": 1.0,
        "aspect": "auto",
        "origin": "lower",
        "interpolation": "nearest",
        "extent": (float(pos[0]), float(last), -0.5, values.shape[1] - 0.5),
        **style,
    }
    image = _show_image(ax, values.T, colorbar=False, xlabel=xlabel, ylabel=ylabel, **options)
    if trained_length is not None:
        length = check_float("trained_length", trained_length, greater_than=0.0)
        ax.axvline(length, color="#333333", linestyle="--", linewidth=1.0)
    return image

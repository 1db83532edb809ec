"""Heatmaps: a matrix drawn as an image, one cell per entry.

Notebooks: 00_why_position to 07_other_schemes and 11_figure_gallery.
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
    cell_texts,
    check_axes,
    check_labels,
    set_labels,
)

__all__ = [
    "SOURCE_HEATMAPS", "draw_attention_weights", "draw_bias_matrix", "draw_encoding_heatmap",
    "draw_signed_matrix", "draw_similarity_matrix", "draw_unseen_angles",
]


SOURCE_HEATMAPS: dict[str, dict[str, Any]] = {
    # the write-ups' three heatmaps: their defaults, read by the figure functions and the
    # gallery's explorer; positions along x (transpose) or y, and rows drawn bottom-up (flip)
    "heatmap_000": {"n_positions": 100, "d_model": 512, "cmap": "coolwarm", "transpose": False,
                    "flip": False},
    "heatmap_002": {"n_positions": 100, "d_model": 300, "cmap": "coolwarm", "transpose": True,
                    "flip": False},
    "heatmap_003": {"n_positions": 50, "d_model": 128, "cmap": "RdBu", "transpose": False,
                    "flip": True},
}
"""How figures.catalog and widgets.gallery draw write-ups 000, 002 and 003's heatmaps."""

_DIVERGING_CMAP = "RdBu_r"
"""Colormap of signed data centred on zero: blue below 0, white at 0, red above."""
_MASKED_COLOUR = "#D9D9D9"
"""Colour of masked entries (``-inf``: a key the query may not see)."""
_UNSEEN_COLOURS: tuple[str, str] = ("#F2F2F2", OKABE_ITO[3])
"""Colours of :func:`draw_unseen_angles`: seen in training (light grey), never seen (vermillion)."""


def _show_image(
    ax: Axes, data: Any, colorbar: Any, xlabel: str | None, ylabel: str | None, **imshow: Any
) -> AxesImage:
    """``ax.imshow`` (nearest cells by default) without grid, labelled, with an optional colorbar.

    The colorbar is reachable afterwards as ``image.colorbar``.
    """
    colorbar = check_bool("colorbar", colorbar)
    imshow.setdefault("interpolation", "nearest")
    image = ax.imshow(data, **imshow)
    ax.grid(False)
    set_labels(ax, xlabel, ylabel)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.03)
    return image


def draw_encoding_heatmap(
    ax: Axes,
    encoding: ArrayLike,
    *,
    transpose: bool = False,
    cmap: str = _DIVERGING_CMAP,
    colorbar: bool = False,
    position_label: str | None = "Position",
    dimension_label: str | None = "Dimension",
    **style: Any,
) -> AxesImage:
    """Draw a positional-encoding matrix as an image (colour limits [-1, 1]), one row per position.
    512 interleaved columns drawn "nearest" in ~500 pixels beat into moiré stripes: pass
    ``interpolation="antialiased"`` or reorder the columns with ``split_permutation(d)``.
    """
    ax = check_axes(ax)
    matrix = as_matrix("encoding", encoding)
    style.setdefault("aspect", "auto")
    if check_bool("transpose", transpose):
        data, xlabel, ylabel = matrix.T, position_label, dimension_label
    else:
        data, xlabel, ylabel = matrix, dimension_label, position_label
    return _show_image(ax, data, colorbar, xlabel, ylabel, cmap=cmap, vmin=-1.0, vmax=1.0,
                       **style)


def draw_similarity_matrix(
    ax: Axes,
    similarity: ArrayLike,
    *,
    cmap: str = "viridis",
    xlabel: str | None = "Position $t'$",
    ylabel: str | None = "Position $t$",
    **style: Any,
) -> AxesImage:
    """Draw the square matrix of dot products PE(t)·PE(t') between all positions.

    ``similarity`` is ``similarity_matrix(sinusoidal_encoding(n, d))``, shape (n, n); it is
    symmetric and Toeplitz, since PE(t)·PE(t+k) = sum_i cos(theta_i k) depends only on k.
    Returns the image, with its ``image.colorbar``.
    """
    ax = check_axes(ax)
    matrix = as_matrix("similarity", similarity)
    if matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"similarity must be a square matrix; got shape {matrix.shape}")
    return _show_image(ax, matrix, True, xlabel, ylabel, cmap=cmap, **style)


def draw_signed_matrix(
    ax: Axes,
    matrix: ArrayLike,
    *,
    annotate: bool = False,
    colorbar: bool = False,
    xlabel: str | None = "Column",
    ylabel: str | None = "Row",
    **style: Any,
) -> AxesImage:
    """Draw a matrix with a diverging colormap centred on zero (the shift matrix M_k, a fit)."""
    ax = check_axes(ax)
    data = as_matrix("matrix", matrix)
    annotate = check_bool("annotate", annotate)
    peak = float(np.abs(data).max()) if data.size else 0.0
    limit = peak if peak > 0 else 1.0
    image = _show_image(ax, data, colorbar, xlabel, ylabel, cmap=_DIVERGING_CMAP, vmin=-limit,
                        vmax=limit, **style)
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(integer=True))
    if annotate:
        strings = [[f"{value:.2f}" for value in row] for row in data]
        cell_texts(ax, strings, np.abs(data) > 0.6 * limit, fontsize=8)
    return image


def draw_bias_matrix(
    ax: Axes,
    bias: ArrayLike,
    *,
    vmin: float | None = None,
    vmax: float = 0.0,
    colorbar: bool = False,
    **style: Any,
) -> AxesImage:
    """Draw one head's attention bias (ALiBi, T5, ...) with masked keys in light grey."""
    ax = check_axes(ax)
    values = np.asarray(check_array("bias", bias, ndim=2, finite=False), dtype=np.float64)
    if np.isnan(values).any() or np.isposinf(values).any():
        raise ValueError("bias must not contain NaN or +inf (-inf marks a masked key)")
    data = np.ma.masked_invalid(np.where(np.isneginf(values), np.nan, values))  # -inf masked
    if vmin is None:
        high = check_float("vmax", vmax)
        finite = data.compressed()
        low = float(finite.min()) if finite.size else high - 1.0
        if low >= high:
            low = high - 1.0
    else:
        low, high = check_float("vmin", vmin), check_float("vmax", vmax)
        if not low < high:
            raise ValueError(f"vmin must be < vmax; got vmin={low}, vmax={high}")
    colours = matplotlib.colormaps["viridis"].with_extremes(bad=_MASKED_COLOUR)
    return _show_image(ax, data, colorbar, "Key position $j$", "Query position $i$", cmap=colours,
                       vmin=low, vmax=high, **style)


@dataclass
class AttentionMap:
    """Artists of :func:`draw_attention_weights`: the image, one number per cell row by row (none
    when drawn without), the words left of the rows and above the columns; :meth:`update` changes
    them in place."""

    image: AxesImage
    values: list[Text]
    query_texts: list[Text]
    key_texts: list[Text]

    def artists(self) -> list[Any]:
        """Every artist that :meth:`update` may change (for redrawing only those)."""
        return [self.image, *self.values, *self.query_texts, *self.key_texts]

    def update(self, weights: ArrayLike, words: Sequence[str] | None = None) -> None:
        """Show new weights of the same shape and, unless None, new words (rows and columns)."""
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
        if words is not None:
            labels = check_labels("words", words, len(self.query_texts))
            for text, label in zip([*self.query_texts, *self.key_texts], labels * 2, strict=True):
                text.set_text(label)


def draw_attention_weights(
    ax: Axes,
    weights: ArrayLike,
    *,
    query_labels: Sequence[str],
    numbers: bool = True,
    colorbar: bool = False,
    xlabel: str | None = None,
    **style: Any,
) -> AttentionMap:
    """Draw a square attention-weight matrix (colour limits [0, 1]) with the words on both axes:
    the query's row by row, the same words over the key columns."""
    ax = check_axes(ax)
    matrix = as_matrix("weights", weights)
    if matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"weights must be a square matrix; got shape {matrix.shape}")
    rows = cols = check_labels("query_labels", query_labels, matrix.shape[0])
    numbers = check_bool("numbers", numbers)
    style.setdefault("aspect", "equal")
    image = _show_image(ax, matrix, colorbar, xlabel, None, cmap="Blues", vmin=0.0, vmax=1.0,
                        **style)
    strings = [[f"{value:.2f}" for value in row] for row in matrix]
    texts = cell_texts(ax, strings, matrix > 0.6, fontsize=8) if numbers else []
    # words as texts, not tick labels, so that they change without a full redraw
    query_texts = [ax.text(-0.65, r, word, ha="right", va="center") for r, word in enumerate(rows)]
    key_texts = [
        ax.text(c, -0.65, word, ha="left", va="bottom", rotation=45, rotation_mode="anchor")
        for c, word in enumerate(cols)
    ]
    ax.set_xticks([])
    ax.set_yticks([])
    return AttentionMap(image, texts, query_texts, key_texts)


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
    """Draw where a pair's rotation angle lies outside the arc seen in training.
    Pair i at position m is unseen when training covered only the arc [0, (L - 1) theta_i] of
    less than a turn and m theta'_i mod 2 pi lies beyond it: vermillion; seen cells are grey.
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
        "cmap": ListedColormap(list(_UNSEEN_COLOURS)),
        "vmin": 0.0,
        "vmax": 1.0,
        "aspect": "auto",
        "origin": "lower",
        "extent": (float(pos[0]), float(last), -0.5, values.shape[1] - 0.5),
        **style,
    }
    image = _show_image(ax, values.T, False, xlabel, ylabel, **options)
    if trained_length is not None:
        length = check_float("trained_length", trained_length, greater_than=0.0)
        ax.axvline(length, color="#333333", linestyle="--", linewidth=1.0)
    return image

"""The embedding + position-vector schematic: w_n = e_n + p_n (write-up 000, figure 1).

Notebooks: 02_sinusoidal_formula and 11_figure_gallery.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from matplotlib.axes import Axes
from matplotlib.image import AxesImage
from matplotlib.text import Text
from numpy.typing import ArrayLike

from posenc_lib.plots._common import as_matrix, check_axes, check_labels

__all__ = ["draw_embedding_schematic"]


class EmbeddingSchematic(NamedTuple):
    """Artists of ``draw_embedding_schematic``: per token, the (d, 1) columns of e_n, p_n (orange)
    and w_n = e_n + p_n; and the texts (words, vector names, + and = signs)."""

    embeddings: list[AxesImage]
    positions: list[AxesImage]
    sums: list[AxesImage]
    texts: list[Text]


def _draw_column(ax: Axes, values: np.ndarray, left: float, cmap: str, limit: float) -> AxesImage:
    """One vector as a column of cells, 0.6 wide and 3 high, from x = ``left``."""
    return ax.imshow(
        values[:, None],
        cmap=cmap,
        vmin=-limit,
        vmax=limit,
        extent=(left, left + 0.6, 0.0, 3.0),
        aspect="auto",
        interpolation="nearest",
    )


def draw_embedding_schematic(
    ax: Axes,
    embeddings: ArrayLike,
    encodings: ArrayLike,
    *,
    tokens: Sequence[str],
) -> EmbeddingSchematic:
    """Draw, for each token, its embedding column plus its position column equals the input.
    w_n = e_n + p_n: the input at position n is the word's embedding plus the position vector of
    n, so both need the same dimension d.
    """
    ax = check_axes(ax)
    words = as_matrix("embeddings", embeddings)
    places = as_matrix("encodings", encodings)
    if words.shape != places.shape:
        raise ValueError(
            f"encodings must have the shape of embeddings {words.shape}; got {places.shape}"
        )
    tokens = check_labels("tokens", tokens, words.shape[0])
    # w_n = e_n + p_n
    inputs = words + places
    limit = float(max(np.abs(words).max(), np.abs(places).max(), 1e-12))
    sum_limit = float(max(np.abs(inputs).max(), 1e-12))
    result = EmbeddingSchematic([], [], [], [])
    step = 4.2
    for n, word in enumerate(tokens):
        left = n * step
        result.embeddings.append(_draw_column(ax, words[n], left, "Blues", limit))
        result.positions.append(_draw_column(ax, places[n], left + 1.2, "Oranges", limit))
        result.sums.append(_draw_column(ax, inputs[n], left + 2.4, "Greens", sum_limit))
        for x, text in ((left + 0.9, "+"), (left + 2.1, "=")):
            result.texts.append(ax.text(x, 1.5, text, ha="center", va="center", fontsize=14))
        for x, text in ((left, "e"), (left + 1.2, "p"), (left + 2.4, "w")):
            result.texts.append(
                ax.text(x + 0.3, 3.25, f"${text}_{{{n}}}$", ha="center", va="bottom")
            )
        result.texts.append(
            ax.text(left + 1.5, -0.3, str(word), ha="center", va="top", fontsize=11, weight="bold")
        )
    ax.set_xlim(-0.4, (len(tokens) - 1) * step + 3.4)
    ax.set_ylim(-1.0, 3.9)
    ax.set_axis_off()
    return result

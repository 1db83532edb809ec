"""Training-free position remapping: Self-Extend and Dual Chunk Attention keep RoPE's
frequencies and change the positions, so every distance RoPE sees stays below the trained length.

References: Self-Extend arXiv 2401.01325; Dual Chunk Attention arXiv 2402.17463 (vLLM).

Notebook: 06_context_extension.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_array, check_int

__all__ = ["self_extend_distances", "dual_chunk_distances"]


def _positions(query: Any, keys: Any) -> tuple[int, NDArray[np.int64]]:
    i = check_int("query", query, minimum=0)
    j = check_array("keys", keys, ndim=1)
    if not np.issubdtype(j.dtype, np.integer) or j.min(initial=0) < 0 or j.max(initial=0) > i:
        raise ValueError(f"keys must be integer positions from 0 to query={i}; got {keys!r:.60}")
    return i, j.astype(np.int64)


def self_extend_distances(query: int, keys: Any, *, group: int, window: int) -> NDArray[np.int64]:
    """The distance RoPE sees between ``query`` and each key under Self-Extend, shape (n_keys,).

    Parameters
    ----------
    query, keys : int, array_like of int, shape (n_keys,)
        Positions i and j, 0 <= j <= i.
    group, window : int
        Group size G (far keys share a position); neighbour window w (keeps true distances).

    Returns
    -------
    numpy.ndarray of int64, shape (n_keys,)

    Notes
    -----
    ``i - j`` when ``i - j < w``; else ``floor(i/G) - floor(j/G) + w - floor(w/G)``: a model
    trained on L positions reaches about ``(L - w) G + w`` tokens.

    Examples
    --------
    >>> self_extend_distances(20, [20, 17, 16, 0], group=4, window=4)
    array([0, 3, 4, 8])
    """
    i, j = _positions(query, keys)
    group, window = check_int("group", group), check_int("window", window)
    grouped = i // group - j // group + window - window // group   # shifted grouped distance
    return np.where(i - j < window, i - j, grouped)


def dual_chunk_distances(query: int, keys: Any, *, chunk_size: int,
                         local_size: int) -> NDArray[np.int64]:
    """The distance RoPE sees between ``query`` and each key under Dual Chunk Attention.

    Parameters
    ----------
    query, keys : int, array_like of int, shape (n_keys,)
        Positions i and j, 0 <= j <= i.
    chunk_size, local_size : int
        The largest distance RoPE may see; the part kept for the next chunk (chunks are
        ``c = chunk_size - local_size`` long).

    Returns
    -------
    numpy.ndarray of int64, shape (n_keys,)

    Notes
    -----
    Keys sit at ``j mod c``; the query at ``i mod c`` for its own chunk, ``min(i mod c + c,
    chunk_size)`` for the chunk before, ``min(2c - 1, chunk_size)`` further back.

    Examples
    --------
    >>> dual_chunk_distances(9, [9, 5, 3, 0], chunk_size=5, local_size=1)
    array([0, 4, 2, 5])
    """
    i, j = _positions(query, keys)
    chunk_size = check_int("chunk_size", chunk_size)
    local_size = check_int("local_size", local_size)
    c = chunk_size - local_size
    if c < 1:
        raise ValueError(f"local_size must be < chunk_size={chunk_size}; got {local_size}")
    apart = i // c - j // c                                        # chunks between them
    q_pos = np.select([apart == 0, apart == 1],
                      [i % c, min(i % c + c, chunk_size)], default=min(2 * c - 1, chunk_size))
    return np.asarray(q_pos - j % c, dtype=np.int64)

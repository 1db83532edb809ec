"""Relative schemes that act inside attention: ALiBi, T5's bucketed bias, Shaw's embeddings.

They see the offset ``j - i`` (key minus query) only; query ``i`` sits at ``query_offset + i``.
References: ALiBi arXiv 2108.12409; T5 arXiv 1910.10683; Shaw et al. arXiv 1803.02155.

Notebook: 07_other_schemes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_array, check_bool, check_even, check_frequencies, check_int
from posenc_lib.attention import scaled_dot_product_attention, softmax

__all__ = [
    "alibi_weights_by_distance", "alibi_slopes", "alibi_bias", "relative_position_matrix",
    "t5_relative_position_bucket", "t5_exact_buckets", "t5_bias", "shaw_relative_index",
    "shaw_relative_embeddings", "shaw_attention",
]

Array = NDArray[np.float64]


def _power_of_two_slopes(n_heads: int) -> list[float]:
    # m_h = 2^(-8 h / H), h = 1 .. H
    return [2.0 ** (-8.0 * h / n_heads) for h in range(1, n_heads + 1)]


def alibi_slopes(n_heads: int) -> Array:
    """ALiBi's head-specific slopes ``m_h = 2^(-8h/H)``, with the paper's rule for any ``H``.

    Parameters
    ----------
    n_heads : int
        Number of heads ``H``, >= 1.

    Returns
    -------
    numpy.ndarray, shape (n_heads,), float64

    Notes
    -----
    ``m_h = 2**(-8h/H)`` for ``h = 1 .. H`` when ``H`` is a power of two. Otherwise, with ``c``
    the largest power of two below ``H``: the ``c`` slopes for ``c`` heads, then the first
    ``H - c`` odd-numbered slopes of the sequence for ``2c`` heads.

    Examples
    --------
    >>> np.round(np.log2(alibi_slopes(12)), 6)
    array([-1. , -2. , -3. , -4. , -5. , -6. , -7. , -8. , -0.5, -1.5, -2.5, -3.5])
    """
    n_heads = check_int("n_heads", n_heads)
    closest = 1 << (n_heads.bit_length() - 1)
    slopes = _power_of_two_slopes(closest)
    if closest != n_heads:
        # the odd-numbered slopes (h = 1, 3, 5, ...) of the sequence for 2c heads
        slopes += _power_of_two_slopes(2 * closest)[0::2][: n_heads - closest]
    return np.asarray(slopes, dtype=np.float64)


def alibi_bias(slopes: Any, length: int, *, causal: bool = True) -> Array:
    """ALiBi's bias matrices, one per head: ``-m_h (i - j)`` added to the score of query i, key j.

    Parameters
    ----------
    slopes : array_like, shape (n_heads,)
        Positive slopes, usually ``alibi_slopes(n_heads)``.
    length : int
    causal : bool, default True
        ``-inf`` for future keys; False gives the symmetric encoder variant.

    Returns
    -------
    numpy.ndarray, shape (n_heads, length, length), float64

    Notes
    -----
    ``bias[h, i, j] = -m_h (i - j)`` for ``j <= i`` (``-m_h |i - j|`` when not causal).

    Examples
    --------
    >>> alibi_bias([0.5], 3)[0]
    array([[ 0. , -inf, -inf],
           [-0.5,  0. , -inf],
           [-1. , -0.5,  0. ]])
    """
    m = check_frequencies("slopes", slopes)
    length = check_int("length", length)
    causal = check_bool("causal", causal)
    # r = j - i (key minus query)
    rel = relative_position_matrix(length).astype(np.float64)[None]
    slope = m[:, None, None]
    if causal:
        # bias = -m (i - j) = m r for j <= i, -inf for j > i
        return np.asarray(np.where(rel <= 0, slope * rel, -np.inf), dtype=np.float64)
    # bias = -m |i - j|
    return np.asarray(0.0 - slope * np.abs(rel), dtype=np.float64)


def alibi_weights_by_distance(n_heads: int, length: int) -> Array:
    """Return the last query's attention weights on the keys behind it, when content is equal.

    Parameters
    ----------
    n_heads, length : int
        Number of heads (slopes from :func:`alibi_slopes`) and of keys.

    Returns
    -------
    weights : ndarray of float64, shape (n_heads, length)

    Notes
    -----
    ``w[h, r] = exp(-m_h r) / sum_r' exp(-m_h r')`` on the key ``r`` tokens back.

    Examples
    --------
    >>> np.round(alibi_weights_by_distance(1, 3), 6)
    array([[0.334636, 0.333333, 0.332031]])
    """
    bias = alibi_bias(alibi_slopes(n_heads), check_int("length", length))
    # w[h, r] = softmax_j(-m_h (i - j)) for the last query i, read by r = i - j
    return softmax(bias[:, -1, :], axis=-1)[:, ::-1]


def relative_position_matrix(
    n_queries: int, n_keys: int | None = None, *, query_offset: int = 0
) -> NDArray[np.int64]:
    """Key position minus query position for every query-key pair.

    Parameters
    ----------
    n_queries, n_keys : int, n_keys default n_queries
        Queries at ``query_offset + i``, keys at ``0 .. n_keys - 1``.
    query_offset : int, default 0
        Position of the first query (a decoding step with a KV cache).

    Returns
    -------
    numpy.ndarray, shape (n_queries, n_keys), int64

    Notes
    -----
    ``r[i, j] = j - (query_offset + i)``, constant along every diagonal.

    Examples
    --------
    >>> relative_position_matrix(1, 4, query_offset=3)
    array([[-3, -2, -1,  0]])
    """
    n_q = check_int("n_queries", n_queries)
    n_k = n_q if n_keys is None else check_int("n_keys", n_keys)
    queries = check_int("query_offset", query_offset, minimum=0) + np.arange(n_q, dtype=np.int64)
    # r_ij = j - i
    return np.asarray(np.arange(n_k, dtype=np.int64)[None, :] - queries[:, None], dtype=np.int64)


def t5_relative_position_bucket(
    relative_position: Any, *, bidirectional: bool = True, num_buckets: int = 32,
    max_distance: int = 128,
) -> NDArray[np.int64]:
    """T5's bucket number of every relative position, as in Mesh TensorFlow and Hugging Face.

    Parameters
    ----------
    relative_position : array_like of int, any shape
        Key position minus query position.
    bidirectional : bool, default True
        True (encoder): half the buckets for later keys; False: future keys in bucket 0.
    num_buckets, max_distance : int, default 32 and 128
        Even number >= 4; distances from ``max_distance`` on share the last bucket.

    Returns
    -------
    numpy.ndarray, same shape as ``relative_position``, int64

    Notes
    -----
    ``B = num_buckets``. Bidirectional: ``B <- B/2``, keys after the query get ``+B`` and
    ``n = |r|``; causal: ``n = max(-r, 0)``. With ``E = B // 2`` and ``D = max_distance``,
    ``b(n) = n`` for ``n < E``, else ``min(B - 1, E + floor(ln(n/E) / ln(D/E) (B - E)))``,
    the logarithm in float32 as in the references.

    Examples
    --------
    >>> t5_relative_position_bucket([-200, -20, -8, -7, 0, 7, 8, 20, 200])
    array([15, 10,  8,  7,  0, 23, 24, 26, 31])
    """
    position = _check_relative_positions(relative_position)
    bidirectional = check_bool("bidirectional", bidirectional)
    num_buckets = check_even("num_buckets", num_buckets, minimum=4)
    max_distance = check_int("max_distance", max_distance)
    max_exact = t5_exact_buckets(num_buckets, bidirectional=bidirectional)
    if bidirectional:
        num_buckets //= 2
        # keys after the query use the upper half: + B/2
        bucket = (position > 0).astype(np.int64) * num_buckets
        n = np.abs(position)
    else:
        # n = max(-r, 0): every future key counts as offset 0
        bucket, n = np.zeros(position.shape, dtype=np.int64), np.maximum(-position, 0)
    if max_distance <= max_exact:
        raise ValueError(f"max_distance must be > {max_exact} (the last exact offset + 1 for "
                         f"num_buckets={2 * num_buckets if bidirectional else num_buckets}, "
                         f"bidirectional={bidirectional}); got {max_distance}")
    # only n >= E reach the log; clamping the others keeps log() away from 0
    ratio = np.maximum(n, max_exact).astype(np.float32) / np.float32(max_exact)
    # E + trunc(ln(n/E) / ln(D/E) * (B - E)), in float32 as the references; ln correctly rounded
    # to float32 (float64, rounded once), since numpy's float32 log depends on the CPU's SIMD path
    log_ratio = np.log(ratio.astype(np.float64)).astype(np.float32)
    spread = log_ratio / np.float32(math.log(max_distance / max_exact))
    spread = spread * np.float32(num_buckets - max_exact)
    large = np.minimum(max_exact + spread.astype(np.int64), num_buckets - 1)
    # b(n) = n below E exact buckets, logarithmic from E on
    return np.asarray(bucket + np.where(n < max_exact, n, large), dtype=np.int64)


def _check_relative_positions(relative_position: Any) -> NDArray[np.int64]:
    position = check_array("relative_position", relative_position)
    if not np.issubdtype(position.dtype, np.integer):
        raise TypeError(f"relative_position must hold integers (key - query positions); got "
                        f"dtype {position.dtype}")
    if position.size and (int(position.min()) <= -(2**62) or int(position.max()) >= 2**62):
        raise ValueError(f"relative_position must lie strictly between -2**62 and 2**62; got "
                         f"values in [{position.min()}, {position.max()}]")
    return position.astype(np.int64)


def t5_exact_buckets(num_buckets: int = 32, *, bidirectional: bool = True) -> int:
    """How many of T5's buckets hold a single offset each (the rest are logarithmic).

    Parameters
    ----------
    num_buckets, bidirectional : int, bool, default 32 and True
        As for :func:`t5_relative_position_bucket`.

    Returns
    -------
    int

    Notes
    -----
    ``B' = B/2`` when bidirectional, else ``B``; offsets ``0 .. B'/2 - 1`` get their own.

    Examples
    --------
    >>> t5_exact_buckets(32), t5_exact_buckets(32, bidirectional=False)
    (8, 16)
    """
    num_buckets = check_even("num_buckets", num_buckets, minimum=4)
    # B' = B / 2 per side when bidirectional; B' / 2 exact buckets
    return (num_buckets // 2 if check_bool("bidirectional", bidirectional) else num_buckets) // 2


def t5_bias(table: Any, n_queries: int, n_keys: int | None = None, *, bidirectional: bool = True,
            max_distance: int = 128, query_offset: int = 0) -> Array:
    """T5's relative attention bias: one learned scalar per head and per bucket of offsets.

    Parameters
    ----------
    table : array_like, shape (num_buckets, n_heads)
        The learned biases (Hugging Face's ``relative_attention_bias`` weight).
    n_queries, n_keys, query_offset
        As in :func:`relative_position_matrix`.
    bidirectional, max_distance
        As in :func:`t5_relative_position_bucket`.

    Returns
    -------
    numpy.ndarray, shape (n_heads, n_queries, n_keys), float64

    Notes
    -----
    ``B[h, i, j] = table[b(j - i), h]``.

    Examples
    --------
    >>> t5_bias(np.arange(64.0).reshape(32, 2), 3)[1]
    array([[ 1., 35., 37.],
           [ 3.,  1., 35.],
           [ 5.,  3.,  1.]])
    """
    weights = check_array("table", table, ndim=2).astype(np.float64)
    rel = relative_position_matrix(n_queries, n_keys, query_offset=query_offset)
    buckets = t5_relative_position_bucket(
        rel, bidirectional=bidirectional, num_buckets=weights.shape[0], max_distance=max_distance
    )
    # B[h, i, j] = table[b(j - i), h]
    return np.asarray(np.moveaxis(weights[buckets], -1, 0), dtype=np.float64)


def shaw_relative_index(n_queries: int, n_keys: int | None = None, *, max_relative_position: int,
                        query_offset: int = 0) -> NDArray[np.int64]:
    """Row of Shaw's relative-embedding table used by every query-key pair.

    Parameters
    ----------
    n_queries, n_keys, query_offset
        As in :func:`relative_position_matrix`.
    max_relative_position : int
        The clipping distance ``k`` >= 1.

    Returns
    -------
    numpy.ndarray, shape (n_queries, n_keys), int64
        In ``0 .. 2k`` (row ``k`` is offset 0).

    Notes
    -----
    ``index[i, j] = clip(j - i, -k, k) + k``.

    Examples
    --------
    >>> shaw_relative_index(3, max_relative_position=1)
    array([[1, 2, 2],
           [0, 1, 2],
           [0, 0, 1]])
    """
    k = check_int("max_relative_position", max_relative_position)
    rel = relative_position_matrix(n_queries, n_keys, query_offset=query_offset)
    # clip(j - i, -k, k) + k
    return np.asarray(np.clip(rel, -k, k) + k, dtype=np.int64)


def shaw_relative_embeddings(
    table: Any, n_queries: int, n_keys: int | None = None, *, query_offset: int = 0
) -> Array:
    """Shaw's relative embedding ``a_ij`` of every query-key pair, looked up in ``table``.

    Parameters
    ----------
    table : array_like, shape (2k + 1, d)
        Learned vectors ``w_{-k} .. w_k`` (row ``k`` is offset 0).
    n_queries, n_keys, query_offset
        As in :func:`relative_position_matrix`.

    Returns
    -------
    numpy.ndarray, shape (n_queries, n_keys, d), float64

    Notes
    -----
    ``a[i, j] = w[clip(j - i, -k, k)]``.

    Examples
    --------
    >>> shaw_relative_embeddings(np.array([[-1.0], [0.0], [1.0]]), 3)[..., 0]
    array([[ 0.,  1.,  1.],
           [-1.,  0.,  1.],
           [-1., -1.,  0.]])
    """
    weights = check_array("table", table, ndim=2).astype(np.float64)
    if weights.shape[0] < 3 or weights.shape[0] % 2 == 0:
        raise ValueError(f"table must have 2k + 1 rows (k >= 1, offsets -k..k); got shape "
                         f"{weights.shape}")
    index = shaw_relative_index(n_queries, n_keys, max_relative_position=weights.shape[0] // 2,
                                query_offset=query_offset)
    # a_ij = w[clip(j - i, -k, k) + k]
    return np.asarray(weights[index], dtype=np.float64)


def shaw_attention(
    q: Any, k: Any, v: Any, table_k: Any, table_v: Any = None, *, causal: bool = False,
    query_offset: int = 0,
) -> tuple[Array, Array]:
    """Single-head attention with Shaw's relative position representations.

    Parameters
    ----------
    q, k, v : array_like, shapes (n_queries, d), (n_keys, d), (n_keys, d_v)
    table_k, table_v : array_like, shapes (2K + 1, d) and (2K' + 1, d_v); table_v optional
        Relative embeddings added to the keys and to the values.
    causal : bool, default False
    query_offset : int, default 0

    Returns
    -------
    output : numpy.ndarray, shape (n_queries, d_v), float64
    weights : numpy.ndarray, shape (n_queries, n_keys), float64

    Notes
    -----
    ``e_ij = q_i . (k_j + a^K_ij) / sqrt(d)``, ``alpha_ij = softmax_j(e_ij)`` and
    ``z_i = sum_j alpha_ij (v_j + a^V_ij)``.

    Examples
    --------
    >>> q = k = np.zeros((2, 2))
    >>> out, w = shaw_attention(q, k, np.array([[1.0], [3.0]]), np.zeros((3, 2)))
    >>> out.ravel(), w[0]
    (array([2., 2.]), array([0.5, 0.5]))
    """
    q_arr = check_array("q", q, ndim=2).astype(np.float64)
    k_arr = check_array("k", k, ndim=2)
    causal = check_bool("causal", causal)
    n_q, n_k, d = q_arr.shape[0], k_arr.shape[0], q_arr.shape[1]
    rel_k = shaw_relative_embeddings(table_k, n_q, n_k, query_offset=query_offset)
    if rel_k.shape[-1] != d:
        raise ValueError(f"table_k must have d = {d} columns (as q); got {rel_k.shape[-1]}")
    # e_ij = (q_i . k_j + q_i . a^K_ij) / sqrt(d): the second term is an additive bias
    bias = np.einsum("id,ijd->ij", q_arr, rel_k) / np.sqrt(max(d, 1))
    mask = relative_position_matrix(n_q, n_k, query_offset=query_offset) <= 0 if causal else None
    output, weights = scaled_dot_product_attention(q_arr, k_arr, v, mask=mask, bias=bias)
    if table_v is not None:
        rel_v = shaw_relative_embeddings(table_v, n_q, n_k, query_offset=query_offset)
        if rel_v.shape[-1] != output.shape[-1]:
            raise ValueError(f"table_v must have d_v = {output.shape[-1]} columns (as v); got "
                             f"{rel_v.shape[-1]}")
        # z_i = sum_j alpha_ij v_j + sum_j alpha_ij a^V_ij
        output = output + np.einsum("ij,ijd->id", weights, rel_v)
    return output, weights

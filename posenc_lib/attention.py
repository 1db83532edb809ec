"""A tiny NumPy softmax attention for the demonstrations.

Reference: Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.2.1.

Notebooks: 00_why_position, 04_rotation_proof and 07_other_schemes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_array, check_int

__all__ = [
    "VOCAB", "word_order_model", "softmax", "scaled_dot_product_attention", "self_attention",
    "causal_mask", "permutation_equivariance_gap",
]

Array = NDArray[np.float64]


def _check_scores(name: str, value: Any, *, min_ndim: int = 1) -> Array:
    """A float array that may hold -inf (masked entries) but no NaN and no +inf."""
    array = check_array(name, value, min_ndim=min_ndim, finite=False).astype(np.float64)
    if np.isnan(array).any() or np.isposinf(array).any():
        raise ValueError(f"{name} must not contain NaN or +inf (-inf marks masked entries)")
    return array


def softmax(scores: Any, axis: int = -1) -> Array:
    """Numerically stable softmax along ``axis``.

    Parameters
    ----------
    scores : array_like, shape (..., n)
        ``-inf`` entries get weight 0 (masked); each slice needs one finite entry.
    axis : int, default -1
        The axis whose entries are turned into weights.

    Returns
    -------
    numpy.ndarray, same shape as ``scores``, float64
        Non-negative weights that sum to 1 along ``axis``.

    Notes
    -----
    ``softmax(s)_j = exp(s_j - max s) / sum_l exp(s_l - max s)``: the maximum subtracted
    changes nothing but keeps ``exp`` from overflowing.

    Examples
    --------
    >>> np.round(softmax([1.0, 2.0, 3.0]), 6)
    array([0.090031, 0.244728, 0.665241])
    >>> np.round(softmax([1000.0, 1000.0, -np.inf]), 6)
    array([0.5, 0.5, 0. ])
    """
    array = _check_scores("scores", scores)
    axis = check_int("axis", axis, minimum=None)
    if not -array.ndim <= axis < array.ndim:
        raise ValueError(f"axis must be in [{-array.ndim}, {array.ndim - 1}] for scores of "
                         f"shape {array.shape}; got {axis}")
    if array.shape[axis] == 0:
        raise ValueError(f"scores must have at least one entry along axis {axis}; got shape "
                         f"{array.shape}")
    peak = np.max(array, axis=axis, keepdims=True)
    if np.isneginf(peak).any():
        raise ValueError("scores must have at least one finite entry along axis (a fully "
                         "masked row)")
    # softmax(s)_j = exp(s_j - max s) / sum_l exp(s_l - max s)
    with np.errstate(over="ignore", under="ignore"):
        shifted = np.exp(array - peak)
    return np.asarray(shifted / np.sum(shifted, axis=axis, keepdims=True), dtype=np.float64)


def scaled_dot_product_attention(
    q: Any, k: Any, v: Any, *, mask: Any = None, bias: Any = None
) -> tuple[Array, Array]:
    """Scaled dot-product attention with an optional boolean mask and additive bias.

    Parameters
    ----------
    q, k, v : array_like, shapes (..., n_q, d), (..., n_k, d), (..., n_k, d_v)
        Queries, keys and values, one row per token.
    mask : array_like of bool, broadcastable to (..., n_q, n_k), optional
        True where query ``i`` may attend to key ``j``.
    bias : array_like, broadcastable to (..., n_q, n_k), optional
        Added to the scaled scores (ALiBi, T5).

    Returns
    -------
    output, weights : ndarray of float64, shapes (..., n_q, d_v) and (..., n_q, n_k)
        Each query's weighted mean of the values; the weights (each row sums to 1).

    Notes
    -----
    ``Attention(Q, K, V) = softmax(Q K^T / sqrt(d) + B) V``, ``-inf`` where the mask is False.

    Examples
    --------
    >>> q, k = np.array([[1.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> out, w = scaled_dot_product_attention(q, k, np.array([[10.0], [20.0]]))
    >>> np.round(w, 6), np.round(out, 6)
    (array([[0.669762, 0.330238]]), array([[13.302385]]))
    """
    q, k, v, bias, allowed = _checked_attention_inputs(q, k, v, mask, bias)
    with np.errstate(over="ignore", invalid="ignore"):
        # S = Q K^T / sqrt(d) + B, and S_ij = -inf where the mask is False
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]) + bias
        scores = np.where(allowed, scores, -np.inf)
        if np.isnan(scores).any() or np.isposinf(scores).any():
            raise ValueError("the scores q k^T / sqrt(d) + bias overflow float64: q and k (or "
                             "the bias) are too large")
        weights = softmax(scores, axis=-1)
        # out = softmax(S) V
        output = weights @ v
    if not np.isfinite(output).all():
        raise ValueError("v values are too large: the output overflows float64")
    return output, weights


def _checked_attention_inputs(
    q: Any, k: Any, v: Any, mask: Any, bias: Any
) -> tuple[Array, Array, Array, Array, NDArray[np.bool_]]:
    """q, k, v as float64, bias (0 if None) and mask (True if None), or a clear error."""
    q, k, v = (check_array(name, value, min_ndim=2).astype(np.float64, copy=False)
               for name, value in (("q", q), ("k", k), ("v", v)))
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must have the same last axis d; got q {q.shape} and k "
                         f"{k.shape}")
    if q.shape[-1] == 0:
        raise ValueError(f"q must have a last axis d >= 1; got shape {q.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"v must have as many rows as k (n_k = {k.shape[-2]}); got v {v.shape}")
    try:
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError as err:
        raise ValueError(f"q, k and v batch axes must broadcast; got q {q.shape}, k {k.shape}, "
                         f"v {v.shape}") from err
    score_shape = (*batch, q.shape[-2], k.shape[-2])
    bias_arr = np.zeros(()) if bias is None else _check_scores("bias", bias, min_ndim=0)
    _check_broadcast("bias", bias_arr.shape, score_shape)
    allowed = np.ones((), dtype=np.bool_) if mask is None else _check_mask(mask)
    _check_broadcast("mask", allowed.shape, score_shape)
    if not np.broadcast_to(allowed, score_shape).any(axis=-1).all():
        raise ValueError("mask must allow at least one key for every query (a row is all False)")
    return q, k, v, bias_arr, allowed


def _check_mask(mask: Any) -> NDArray[np.bool_]:
    array = np.asarray(mask)
    if array.dtype != np.bool_:
        raise TypeError(f"mask must be a boolean array (True = may attend); got dtype "
                        f"{array.dtype}")
    return array


def _check_broadcast(name: str, shape: tuple[int, ...], target: tuple[int, ...]) -> None:
    try:
        full = np.broadcast_shapes(shape, target)
    except ValueError:
        full = ()
    if full != target:
        raise ValueError(f"{name} of shape {shape} must broadcast to the scores {target}")


def self_attention(
    x: Any, w_q: Any, w_k: Any, w_v: Any, *, mask: Any = None, bias: Any = None
) -> tuple[Array, Array]:
    """Single-head self-attention of a sequence of token vectors.

    Parameters
    ----------
    x : array_like, shape (n, d_model)
        The token vectors, one row per position.
    w_q, w_k, w_v : array_like, shapes (d_model, d_head) twice and (d_model, d_v)
        The query, key and value projections.
    mask, bias : optional
        As in :func:`scaled_dot_product_attention`.

    Returns
    -------
    output, weights : ndarray of float64, shapes (n, d_v) and (n, n)
        As :func:`scaled_dot_product_attention` returns them for ``x W_q``, ``x W_k``, ``x W_v``.

    Notes
    -----
    ``out = softmax(Q K^T / sqrt(d_head) + B) V`` with ``Q = X W_q``, ``K = X W_k``, ``V = X W_v``.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    >>> out, w = self_attention(x, np.eye(2), np.eye(2), np.eye(2))
    >>> bool(np.allclose(out[0], out[2]))  # two copies of one token get one output
    True
    """
    x_arr = check_array("x", x, ndim=2)
    w = {name: check_array(name, value, ndim=2)
         for name, value in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v))}
    for name, w_arr in w.items():
        if w_arr.shape[0] != x_arr.shape[1]:
            raise ValueError(f"{name} must have d_model = {x_arr.shape[1]} rows (x has shape "
                             f"{x_arr.shape}); got shape {w_arr.shape}")
    if w["w_q"].shape != w["w_k"].shape:
        raise ValueError(f"w_k must have the same shape as w_q {w['w_q'].shape}; got shape "
                         f"{w['w_k'].shape}")
    # Q = X W_q, K = X W_k, V = X W_v
    q, k, v = x_arr @ w["w_q"], x_arr @ w["w_k"], x_arr @ w["w_v"]
    return scaled_dot_product_attention(q, k, v, mask=mask, bias=bias)


def causal_mask(n: int) -> NDArray[np.bool_]:
    """Lower-triangular mask: query ``i`` may attend to key ``j`` iff ``j <= i``.

    Parameters
    ----------
    n : int
        Number of positions (queries and keys alike), at least 1.

    Returns
    -------
    numpy.ndarray, shape (n, n), bool
        True where the query (row) may attend to the key (column).

    Notes
    -----
    ``mask[i, j] = (j <= i)``.

    Examples
    --------
    >>> causal_mask(3)
    array([[ True, False, False],
           [ True,  True, False],
           [ True,  True,  True]])
    """
    n = check_int("n", n)
    # mask_ij = (j <= i)
    return np.tril(np.ones((n, n), dtype=bool))


def permutation_equivariance_gap(x: Any, w_q: Any, w_k: Any, w_v: Any, permutation: Any) -> float:
    """How far self-attention is from permutation-equivariant on ``x`` (~1e-16 without positions).

    Parameters
    ----------
    x, w_q, w_k, w_v : array_like
        As in :func:`self_attention`.
    permutation : array_like of int, shape (n,)
        A reordering of the rows of ``x``: row ``t`` of ``P x`` is ``x[permutation[t]]``.

    Returns
    -------
    float
        The largest entry of ``|f(P x) - P f(x)|``; 0 up to rounding for an equivariant layer.

    Notes
    -----
    ``gap = max |f(P X) - P f(X)|`` over all entries, for the permutation matrix ``P``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x, w = rng.normal(size=(5, 4)), rng.normal(size=(4, 4))
    >>> permutation_equivariance_gap(x, w, w, w, [4, 2, 0, 1, 3]) < 1e-12
    True
    """
    x_arr = check_array("x", x, ndim=2)
    perm = check_array("permutation", permutation, ndim=1)
    n = x_arr.shape[0]
    if not np.issubdtype(perm.dtype, np.integer) or not np.array_equal(np.sort(perm), np.arange(n)):
        raise ValueError(f"permutation must be a permutation of 0..{n - 1} (integers); got {perm}")
    original, _ = self_attention(x_arr, w_q, w_k, w_v)
    permuted, _ = self_attention(x_arr[perm], w_q, w_k, w_v)
    # gap = max |f(P X) - P f(X)|
    return float(np.max(np.abs(permuted - original[perm])))


VOCAB: tuple[str, ...] = ("the", "cat", "was", "chasing", "mouse")
"""The words of notebook 00's sentences, one embedding row each in :func:`word_order_model`."""


def word_order_model(d_model: int = 8, seed: int = 0) -> tuple[Array, Array, Array, Array]:
    """Return notebook 00's toy model: embeddings of :data:`VOCAB` and W_q, W_k, W_v.

    Parameters
    ----------
    d_model, seed : int, default 8 and 0
        Width of the embeddings and projections; seed of the generator.

    Returns
    -------
    table, w_q, w_k, w_v : ndarray, shapes (len(VOCAB), d_model) and (d_model, d_model)
        One embedding row per word of :data:`VOCAB`; the three projections.

    Notes
    -----
    ``table ~ N(0, 1)`` and ``W ~ N(0, 1/d_model)`` from one seeded generator.

    Examples
    --------
    >>> table, w_q, w_k, w_v = word_order_model()
    >>> table.shape, w_v.shape
    ((5, 8), (8, 8))
    """
    d_model = check_int("d_model", d_model)
    rng = np.random.default_rng(check_int("seed", seed, minimum=0))
    table = rng.normal(size=(len(VOCAB), d_model))
    w_q, w_k, w_v = rng.normal(size=(3, d_model, d_model)) / np.sqrt(d_model)
    return table, w_q, w_k, w_v

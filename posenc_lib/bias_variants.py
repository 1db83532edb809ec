"""Newer relative schemes beside ALiBi and T5: FIRE, KERPLE, xPos, CoPE and FlexAttention's
``score_mod``, for one causal head with learned parameters passed in. References: FIRE arXiv
2310.04418; KERPLE 2205.09921; xPos 2212.10554; CoPE 2405.18719; PyTorch ``flex_attention``.

Notebook: 07_other_schemes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_array, check_choice, check_even, check_float, check_int

# fire_inputs and kerple_log_kernel, the formulas for any array module, serve the lab (not
# listed: learners call fire_bias and kerple_bias)
__all__ = ["fire_bias", "kerple_bias", "xpos_decay", "cope_positions", "cope_bias", "flex_scores"]

Array = NDArray[np.float64]
_XPOS_GAMMA, _XPOS_SCALE_BASE = 0.4, 512.0  # torchscale's published xPos constants


def _causal_distance(length: int) -> NDArray[np.int64]:
    """``dist[i, j] = max(i - j, 0)``: how far key ``j`` is behind query ``i`` (0 above the
    diagonal, which the caller masks), shape (length, length), int64."""
    length = check_int("length", length)
    offsets = np.subtract.outer(np.arange(length), np.arange(length))
    return np.maximum(offsets, 0)


def kerple_bias(length: int, r1: float, r2: float, *, kind: str = "log") -> Array:
    """KERPLE's bias of one head for a causal model of ``length`` tokens, shape (n, n).

    Parameters
    ----------
    length : int
    r1, r2 : float
        The head's learned parameters, both > 0 (``kind="power"`` needs ``r2 <= 2``).
    kind : {"log", "power"}

    Returns
    -------
    numpy.ndarray, shape (length, length)
        ``-inf`` above the diagonal (the causal mask).

    Notes
    -----
    With ``t = i - j``: log, ``b = -r1 ln(1 + r2 t)``; power, ``b = -r1 t^r2`` (ALiBi: ``r2 = 1``).

    Examples
    --------
    >>> kerple_bias(3, 1.0, 1.0, kind="power")[2]
    array([-2., -1., -0.])
    """
    kind = check_choice("kind", kind, ("log", "power"))
    r1 = check_float("r1", r1, greater_than=0.0)
    r2 = check_float("r2", r2, greater_than=0.0)
    if kind == "power" and r2 > 2:
        raise ValueError(f"r2 must be in (0, 2] for the power kernel; got {r2}")
    t = _causal_distance(length).astype(np.float64)
    bias = kerple_log_kernel(t, r1, r2) if kind == "log" else -r1 * t**r2  # power: -r1 t^r2
    return np.where(np.tril(np.ones((length, length), dtype=bool)), bias, -np.inf)


def fire_bias(length: int, mlp: Callable[[Array], Array], *, c: float = 1.0) -> Array:
    """FIRE's bias of one head for a causal model of ``length`` tokens, shape (n, n).

    Parameters
    ----------
    length : int
    mlp : callable
        The learned function f, applied elementwise to an array of normalised distances.
    c : float, default 1.0
        The log transform's scale, > 0.

    Returns
    -------
    numpy.ndarray, shape (length, length)
        ``-inf`` above the diagonal.

    Notes
    -----
    ``b(i, j) = f(psi(i - j) / psi(i))``, ``psi(x) = ln(c x + 1)``: inputs stay in [0, 1] at any
    length (query 0 gets ``f(0)``; FIRE's learned threshold is left at 0).

    Examples
    --------
    >>> fire_bias(3, lambda x: -x)[2].round(4)
    array([-1.    , -0.6309, -0.    ])
    """
    length = check_int("length", length)
    c = check_float("c", c, greater_than=0.0)
    bias = np.asarray(mlp(fire_inputs(length, c)), dtype=np.float64)
    return np.where(np.tril(np.ones((length, length), dtype=bool)), bias, -np.inf)


def kerple_log_kernel(distance: Any, r1: Any, r2: Any, xp: Any = np) -> Any:
    """KERPLE's log kernel ``-r1 ln(1 + r2 t)`` at distances ``t``, elementwise in the array
    module ``xp`` (NumPy, or ``jax.numpy`` for the lab's learned ``r1``, ``r2``); no checks:
    :func:`kerple_bias` is the entry point that validates."""
    return -r1 * xp.log1p(r2 * distance)  # -r1 ln(1 + r2 t)


def fire_inputs(length: int, c: Any, xp: Any = np) -> Any:
    """FIRE's normalised distances ``psi(i - j) / psi(i)``, ``psi(x) = ln(c x + 1)``, 0 for
    query 0 and above the diagonal, shape (length, length) broadcast against ``c``, in the
    array module ``xp`` (NumPy, or ``jax.numpy`` for the lab's learned ``c``); no checks:
    :func:`fire_bias` is the entry point that validates."""
    query = xp.arange(length)[:, None]
    dist = xp.maximum(query - xp.arange(length)[None, :], 0)  # max(i - j, 0)
    denominator = xp.log1p(c * query)  # psi(i) = ln(c i + 1)
    safe = xp.where(denominator > 0, denominator, 1.0)
    # psi(i - j) / psi(i), 0 / 0 read as 0 (a where, so no NaN reaches a gradient)
    return xp.where(denominator > 0, xp.log1p(c * dist) / safe, 0.0)


def xpos_decay(head_dim: int, distance: Any) -> Array:
    """xPos's factor on each rotary pair's score at ``distance`` tokens, shape (len, head_dim/2).

    Parameters
    ----------
    head_dim : int
    distance : array_like of float
        Query position minus key position, ``n - m``.

    Returns
    -------
    numpy.ndarray, shape (len(distance), head_dim // 2)

    Notes
    -----
    ``zeta_i = (2i/d + gamma) / (1 + gamma)``, gamma 0.4; query n scaled by ``zeta_i^(n/512)``,
    key m by ``zeta_i^(-m/512)``: pair i's score times ``zeta_i^((n - m)/512)``, beside RoPE.

    Examples
    --------
    >>> xpos_decay(4, [0, 512]).round(4)
    array([[1.    , 1.    ],
           [0.2857, 0.6429]])
    """
    head_dim = check_even("head_dim", head_dim)
    dist = check_array("distance", distance, ndim=1)
    # zeta_i = (2i/d + gamma) / (1 + gamma)
    zeta = (np.arange(0, head_dim, 2) / head_dim + _XPOS_GAMMA) / (1 + _XPOS_GAMMA)
    return np.asarray(zeta[None, :] ** (dist[:, None] / _XPOS_SCALE_BASE), dtype=np.float64)


def cope_positions(scores: Any) -> Array:
    """CoPE's contextual positions of a causal head: counts of the gates, shape (n, n).

    Parameters
    ----------
    scores : array_like, shape (n, n)
        The content scores ``q_i . k_j`` of one head.

    Returns
    -------
    numpy.ndarray, shape (n, n), 0 above the diagonal

    Notes
    -----
    ``p_ij = sum_{t=j..i} g_it``, ``g_ij = sigmoid(q_i . k_j)``: how many keys from j on "count".

    Examples
    --------
    >>> cope_positions(np.full((3, 3), 50.0)).round(3)
    array([[1., 0., 0.],
           [2., 1., 0.],
           [3., 2., 1.]])
    """
    s = check_array("scores", scores, ndim=2)
    if s.shape[0] != s.shape[1]:
        raise ValueError(f"scores must be square (n, n); got shape {s.shape}")
    # g_ij = sigmoid(q_i . k_j) = (1 + tanh(s/2)) / 2 (no overflow), masked above the diagonal
    gates = np.tril(0.5 * (1.0 + np.tanh(s / 2.0)))
    # p_ij = sum_{t >= j} g_it: a cumulative sum from the right
    return np.asarray(np.cumsum(gates[:, ::-1], axis=1)[:, ::-1], dtype=np.float64)


def cope_bias(queries: Any, positions: Any, embeddings: Any) -> Array:
    """CoPE's bias ``q_i . e[p_ij]``, with e interpolated at fractional positions, shape (n, n).

    Parameters
    ----------
    queries, positions : array_like, shapes (n, d) and (n, n)
        The head's queries and :func:`cope_positions`.
    embeddings : array_like, shape (p_max, d)
        One learned vector per integer position (positions clipped to ``p_max - 1``).

    Returns
    -------
    numpy.ndarray, shape (n, n)

    Notes
    -----
    ``z = q_i . e[p]`` at the integers; at ``p`` between them,
    ``(p - floor p) z[ceil p] + (1 - (p - floor p)) z[floor p]``.

    Examples
    --------
    >>> cope_bias(np.ones((1, 2)), [[0.5]], np.array([[0.0, 0.0], [1.0, 1.0]]))
    array([[1.]])
    """
    q = check_array("queries", queries, ndim=2)
    e = check_array("embeddings", embeddings, ndim=2)
    p = check_array("positions", positions, ndim=2)
    if e.shape[1] != q.shape[1] or p.shape[0] != q.shape[0]:
        raise ValueError(f"queries {q.shape}, positions {p.shape} and embeddings {e.shape} "
                         "must share n and d")
    p = np.clip(p, 0, e.shape[0] - 1)
    at_integers = q @ e.T                                   # z[i, k] = q_i . e[k]
    floor, ceil = np.floor(p).astype(np.int64), np.ceil(p).astype(np.int64)
    weight = p - floor
    rows = np.arange(q.shape[0])[:, None]
    # (p - floor p) z[ceil p] + (1 - (p - floor p)) z[floor p]
    return np.asarray(weight * at_integers[rows, ceil] + (1 - weight) * at_integers[rows, floor],
                      dtype=np.float64)


_ScoreMod = Callable[[Array, Any, Any, Any, Any], Array]


def flex_scores(queries: Any, keys: Any, score_mod: _ScoreMod, *, block: int = 16) -> Array:
    """Scores ``score_mod(q . k / sqrt(d), b, h, q_idx, kv_idx)`` computed tile by tile.

    Parameters
    ----------
    queries, keys : array_like, shape (batch, heads, n, d)
    score_mod : callable
        ``(score, b, h, q_idx, kv_idx) -> score``, elementwise over one tile's arrays.
    block : int, default 16
        Tile size.

    Returns
    -------
    numpy.ndarray, shape (batch, heads, n, n)
        The modified scores (before the softmax).

    Notes
    -----
    Each ``block x block`` tile of ``q k^T / sqrt(d)`` goes through ``score_mod`` with its index
    grids, so a bias written there (ALiBi's ``- m_h (q_idx - kv_idx)``) exists one tile at a time.

    Examples
    --------
    >>> q = k = np.ones((1, 1, 2, 4))
    >>> flex_scores(q, k, lambda s, b, h, qi, ki: s - (qi - ki))[0, 0]
    array([[2., 3.],
           [1., 2.]])
    """
    q = check_array("queries", queries, ndim=4)
    k = check_array("keys", keys, ndim=4)
    block = check_int("block", block)
    if q.shape[:2] != k.shape[:2] or q.shape[3] != k.shape[3]:
        raise ValueError(f"queries {q.shape} and keys {k.shape} must share batch, heads and d")
    batch, heads, n_q, d = q.shape
    out = np.empty((batch, heads, n_q, k.shape[2]))
    b_idx = np.arange(batch)[:, None, None, None]
    h_idx = np.arange(heads)[None, :, None, None]
    for r0 in range(0, n_q, block):
        for c0 in range(0, k.shape[2], block):
            rows = np.arange(r0, min(r0 + block, n_q))
            cols = np.arange(c0, min(c0 + block, k.shape[2]))
            tile = q[:, :, rows] @ np.swapaxes(k[:, :, cols], -1, -2) / np.sqrt(d)
            q_idx, kv_idx = rows[None, None, :, None], cols[None, None, None, :]
            out[:, :, rows[:, None], cols[None, :]] = np.broadcast_to(
                score_mod(tile, b_idx, h_idx, q_idx, kv_idx), tile.shape)
    return out

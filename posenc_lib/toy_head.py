"""Train one attention head to look k tokens back, by gradient descent (NumPy only).

Two heads read positions only; both scores are linear in their weights, so one loop trains them:

- additive sinusoidal: s(i, j) = PE(i)^T W PE(j), W of shape (d, d);
- RoPE: s(i, j) = sum_p a_p cos(theta_p (i - j)) + b_p sin(theta_p (i - j)), d numbers. A RoPE
  head whose query and key carry no content, q_i = R_i u and k_j = R_j v, scores
  u^T R_(j-i) v, which is of this form with (a_p, b_p) set by u and v.

The loss is the mean over queries i >= k of -log softmax_(j <= i) s(i, j) taken at j = i - k; its
gradient is sum_j (P_ij - Y_ij) ds(i, j)/dw. A step along pair p changes a query's scores by an
amount that varies over its keys only as much as that pair's key features (sin theta_p j,
cos theta_p j) vary, and softmax ignores what all keys share: notebook 04's conditioning argument
predicts that pairs whose features barely vary over the window learn slowly.

Notebook: 04_rotation_proof (Going further).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_choice, check_even, check_float, check_int
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.sinusoidal import sinusoidal_encoding

__all__ = ["TrainedHead", "pair_spread", "train_lookback_head"]

Array = NDArray[np.float64]


@dataclass(frozen=True)
class TrainedHead:
    """A head after training: its weights before and after, and what it attends to.

    ``start`` and ``weights`` have shape (d, d) (additive) or (d,) (RoPE); ``pair_movement[p]``
    is the norm of the change of the weights that read key pair p (W[:, 2p:2p+2], or
    (a_p, b_p)); ``attention_on_target`` is the mean softmax weight on key i - k.
    """

    kind: str
    k: int
    start: Array
    weights: Array
    attention_on_target: float
    pair_movement: Array


def pair_spread(n_positions: int, d_model: int, k: int) -> Array:
    """How much each key pair's features vary over the keys a query sees, lambda_p.

    Parameters
    ----------
    n_positions : int
        Length of the training window.
    d_model : int
        Even width of the encoding.
    k : int
        How far back the head looks; the queries are i = k, ..., n_positions - 1.

    Returns
    -------
    numpy.ndarray, shape (d_model // 2,)

    Notes
    -----
    lambda_p = mean over queries i of [var_(j<=i) sin(theta_p j) + var_(j<=i) cos(theta_p j)]:
    the curvature of the loss along pair p at a uniform start, the eigenvalue of notebook 04.

    Examples
    --------
    >>> spread = pair_spread(32, 16, 3)
    >>> bool(spread[0] > 0.9 and spread[-1] < 1e-5)
    True
    """
    n_positions = check_int("n_positions", n_positions, minimum=2)
    d_model = check_even("d_model", d_model)
    k = _check_k(k, n_positions)
    pe = sinusoidal_encoding(n_positions, d_model)
    per_query = [pe[: i + 1].var(axis=0) for i in range(k, n_positions)]  # keys j <= i
    return np.mean(per_query, axis=0).reshape(-1, 2).sum(axis=1)


def _check_k(k: Any, n_positions: int) -> int:
    k = check_int("k", k, minimum=1)
    if k >= n_positions:
        raise ValueError(f"k must be below n_positions = {n_positions}; got {k}")
    return k


def _features(kind: str, n_positions: int, d_model: int, k: int) -> Array:
    """ds(i, j)/dw for every query i >= k and key j: shape (queries, keys, parameters)."""
    queries, keys = np.arange(k, n_positions), np.arange(n_positions)
    if kind == "additive":
        pe = sinusoidal_encoding(n_positions, d_model)
        return np.einsum("qa,jb->qjab", pe[queries], pe).reshape(len(queries), n_positions, -1)
    offset = np.subtract.outer(queries, keys)[..., None]
    angle = offset * inverse_frequencies(d_model)  # theta_p (i - j)
    return np.stack([np.cos(angle), np.sin(angle)], axis=-1).reshape(len(queries), n_positions, -1)


def _masked_softmax(scores: Array, allowed: NDArray[np.bool_]) -> Array:
    """Softmax over the allowed keys of each query (row): exp(s_ij - max) / sum."""
    scores = np.where(allowed, scores, -np.inf)
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def train_lookback_head(kind: str, *, k: int = 3, n_positions: int = 32, d_model: int = 16,
                        steps: int = 2000, learning_rate: float = 1.0, init_scale: float = 0.5,
                        seed: int = 0) -> TrainedHead:
    """Train a head to attend from every query i to the key i - k, by full-batch gradient descent.

    Parameters
    ----------
    kind : {"additive", "rope"}
    k : int, default 3
    n_positions : int, default 32
        The training window: queries k..n_positions - 1, causal keys j <= i.
    d_model : int, default 16
    steps : int, default 2000
    learning_rate : float, default 1.0
        In (0, 100].
    init_scale : float, default 0.5
        Standard deviation of the random start, in [0, 10].
    seed : int, default 0
        Seed of the start.

    Returns
    -------
    TrainedHead

    Notes
    -----
    w <- w - learning_rate * mean_i sum_j (softmax_j s(i, j) - [j = i - k]) ds(i, j)/dw, from
    w ~ N(0, init_scale^2), with s as in the module's docstring.

    Examples
    --------
    >>> head = train_lookback_head("rope", steps=300)
    >>> bool(head.attention_on_target > 0.9)
    True
    """
    kind = check_choice("kind", kind, ("additive", "rope"))
    n_positions = check_int("n_positions", n_positions, minimum=2)
    d_model, k = check_even("d_model", d_model), _check_k(k, n_positions)
    steps, seed = check_int("steps", steps, minimum=0), check_int("seed", seed, minimum=0)
    learning_rate = check_float("learning_rate", learning_rate, greater_than=0.0)
    init_scale = check_float("init_scale", init_scale, at_least=0.0)
    if learning_rate > 100 or init_scale > 10:
        raise ValueError("learning_rate must be in (0, 100] and init_scale in [0, 10]; got "
                         f"{learning_rate} and {init_scale}")
    features = _features(kind, n_positions, d_model, k)
    queries = np.arange(k, n_positions)
    allowed = np.arange(n_positions) <= queries[:, None]  # causal: key j <= query i
    target = (np.arange(n_positions) == (queries - k)[:, None]).astype(float)
    start = np.asarray(np.random.default_rng(seed).normal(0.0, init_scale, size=features.shape[-1]))
    w = start.copy()
    for _ in range(steps):
        error = _masked_softmax(features @ w, allowed) - target  # P - Y
        w -= learning_rate * np.einsum("qj,qjf->f", error, features) / len(queries)
    p = _masked_softmax(features @ w, allowed)
    shape = (d_model, d_model) if kind == "additive" else (d_model,)
    change = (w - start).reshape(shape)
    movement = np.linalg.norm(change.reshape(-1, d_model // 2, 2), axis=(0, 2))  # per key pair
    return TrainedHead(kind, k, start.reshape(shape), w.reshape(shape),
                       float(np.mean(np.sum(p * target, axis=1))), movement)

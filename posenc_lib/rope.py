"""Rotary position embedding (RoPE): rotate queries and keys by position-dependent angles.

Pair ``i`` turns by ``m theta_i`` at position ``m``, so ``<R_m q, R_n k>`` depends on ``n - m``
only. Reference: Su et al., "RoFormer", arXiv 2104.09864.

Notebook: 05_rope.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import check_array, check_choice, check_even, check_float, check_positions
from posenc_lib.frequencies import angles, inverse_frequencies

__all__ = ["PAIRINGS", "rotate_half", "rotate_interleaved", "apply_rope", "apply_rope_angles",
           "rope_matrix", "relative_scores", "rope_decay_bound", "normalised_score_curves"]

PAIRINGS: tuple[str, ...] = ("interleaved", "half")
"""The two pair layouts: ``"interleaved"`` = (2i, 2i+1), ``"half"`` = (i, i + d/2)."""


def _check_pairs(name: str, x: Any) -> NDArray[Any]:
    array = check_array(name, x, min_ndim=1)
    if array.shape[-1] < 2 or array.shape[-1] % 2:
        raise ValueError(
            f"{name} must have an even last axis head_dim >= 2 (pairs); got shape {array.shape}")
    return array


def rotate_half(x: ArrayLike) -> NDArray[Any]:
    """Return the quarter turn of every split pair: ``[x1, x2] -> [-x2, x1]``.

    Parameters
    ----------
    x : array_like, shape (..., head_dim)
        Vectors in the split layout: pair i is ``(x[..., i], x[..., i + head_dim/2])``.

    Returns
    -------
    rotated : ndarray, shape (..., head_dim)
        ``x`` with its two halves swapped and the new first half negated: each pair turned
        by +90 degrees, still in the split layout.

    Notes
    -----
    ``rotated[..., i] = -x[..., i + d/2]``, ``rotated[..., i + d/2] = x[..., i]``.

    Examples
    --------
    >>> rotate_half(np.array([1.0, 2.0, 3.0, 4.0]))
    array([-3., -4.,  1.,  2.])
    """
    return _quarter_turn(_check_pairs("x", x), "half")


def rotate_interleaved(x: ArrayLike) -> NDArray[Any]:
    """Return the quarter turn of every interleaved pair: ``(a, b) -> (-b, a)``.

    Parameters
    ----------
    x : array_like, shape (..., head_dim)
        Vectors in the interleaved layout: pair i is ``(x[..., 2i], x[..., 2i + 1])``.

    Returns
    -------
    rotated : ndarray, shape (..., head_dim)
        Every pair turned by +90 degrees, in the same interleaved layout.

    Notes
    -----
    ``rotated[..., 2i] = -x[..., 2i+1]``, ``rotated[..., 2i+1] = x[..., 2i]``.

    Examples
    --------
    >>> rotate_interleaved(np.array([1.0, 2.0, 3.0, 4.0]))
    array([-2.,  1., -4.,  3.])
    """
    return _quarter_turn(_check_pairs("x", x), "interleaved")


def _quarter_turn(x: NDArray[Any], pairing: str) -> NDArray[Any]:
    """Pair ``(a, b)`` -> ``(-b, a)`` along the last axis, pairs laid out as ``pairing`` says."""
    if pairing == "half":
        half = x.shape[-1] // 2
        # (x1, x2) -> (-x2, x1)
        return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    out = np.empty_like(x)
    # (a, b) -> (-b, a) for a = x[2i], b = x[2i + 1]
    out[..., 0::2] = -x[..., 1::2]
    out[..., 1::2] = x[..., 0::2]
    return out


def _rotate_pairs(x: NDArray[Any], cos: NDArray[Any], sin: NDArray[Any]) -> NDArray[Any]:
    """Interleaved pairs ``(a, b) -> (a cos - b sin, a sin + b cos)``, with (seq, d/2) tables:
    the same numbers as ``x cos(phi) + rotate(x) sin(phi)``, in fewer passes."""
    pairs = x.reshape(*x.shape[:-1], x.shape[-1] // 2, 2)
    a, b = pairs[..., 0], pairs[..., 1]
    out = np.empty_like(pairs)
    np.multiply(a, cos, out=out[..., 0])
    out[..., 0] -= b * sin
    np.multiply(a, sin, out=out[..., 1])
    out[..., 1] += b * cos
    return out.reshape(x.shape)


def _on_both_members(per_pair: NDArray[np.float64], pairing: str) -> NDArray[np.float64]:
    """Repeat a (seq, d/2) table onto both members of each pair: (seq, d)."""
    if pairing == "interleaved":
        return np.repeat(per_pair, 2, axis=-1)
    return np.concatenate([per_pair, per_pair], axis=-1)


def apply_rope(x: ArrayLike, positions: ArrayLike, inv_freq: ArrayLike, *,
               pairing: str = "interleaved") -> NDArray[Any]:
    """Rotate every pair of ``x`` by the angle ``position * inv_freq[i]``.

    Parameters
    ----------
    x : array_like, shape (..., seq, head_dim)
        Queries or keys; ``head_dim`` even.
    positions : array_like, shape (seq,)
        Position of each row (floats allowed).
    inv_freq : array_like, shape (head_dim // 2,)
        Each pair's frequency ``theta_i``, radians per position.
    pairing : {"interleaved", "half"}, default "interleaved"
        Pairs ``(2i, 2i+1)`` or ``(i, i + d/2)`` (GPT-NeoX, Hugging Face).

    Returns
    -------
    rotated : ndarray, shape (..., seq, head_dim)
        The floating dtype of ``x``; integers give float64.

    Notes
    -----
    ``x' = x cos(phi) + rotate(x) sin(phi)``, ``phi = m theta_i`` (RoFormer eq. 34); angles in
    float64, cos and sin cast to the dtype of ``x`` (float16 computed in float32).

    Examples
    --------
    >>> np.round(apply_rope([[1.0, 0.0, 1.0, 0.0]], [1], [np.pi / 2, 0.0]), 6)
    array([[0., 1., 1., 0.]])
    """
    pairing = check_choice("pairing", pairing, PAIRINGS)
    array = _check_pairs("x", x)
    if array.ndim < 2:
        raise ValueError(f"x must have shape (..., seq, head_dim); got shape {array.shape}")
    phi = angles(positions, inv_freq)  # (seq, head_dim // 2), float64
    if phi.shape != (array.shape[-2], array.shape[-1] // 2):
        raise ValueError(f"positions and inv_freq must have lengths seq = {array.shape[-2]} and "
                         f"head_dim // 2 = {array.shape[-1] // 2} for x of shape {array.shape}; "
                         f"got {phi.shape[0]} and {phi.shape[1]}")
    out_dtype = array.dtype if np.issubdtype(array.dtype, np.floating) else np.dtype(np.float64)
    work = array.astype(np.promote_types(out_dtype, np.float32), copy=False)
    return _rotate(work, phi, pairing).astype(out_dtype, copy=False)


def _rotate(x: NDArray[Any], phi: NDArray[np.float64], pairing: str) -> NDArray[Any]:
    """Turn pair i of row m of x by phi[m, i], in the dtype of x."""
    try:
        with np.errstate(over="raise", invalid="raise"):
            if pairing == "interleaved":  # on the pairs' own axis: no (seq, d) tables
                return _rotate_pairs(x, np.cos(phi).astype(x.dtype), np.sin(phi).astype(x.dtype))
            cos = _on_both_members(np.cos(phi), pairing).astype(x.dtype)
            sin = _on_both_members(np.sin(phi), pairing).astype(x.dtype)
            # x' = x cos(phi) + rotate(x) sin(phi)
            return x * cos + _quarter_turn(x, pairing) * sin
    except FloatingPointError as err:
        raise ValueError(f"x values are too large: the rotation overflows {x.dtype}") from err


def apply_rope_angles(x: ArrayLike, angles: ArrayLike, *,
                      pairing: str = "interleaved") -> NDArray[np.float64]:
    """Rotate pair ``i`` of row ``m`` of ``x`` by its own angle ``angles[m, i]``.

    Parameters
    ----------
    x, pairing
        As for :func:`apply_rope`.
    angles : array_like, shape (seq, head_dim // 2)
        Angle of every pair at every row (axial or M-RoPE: :mod:`posenc_lib.rope_variants`).

    Returns
    -------
    rotated : ndarray of float64, shape (..., seq, head_dim)
        ``x`` with every pair turned by its angle, in the same pairing.

    Notes
    -----
    ``x' = x cos(phi) + rotate(x) sin(phi)`` with ``phi = angles``.

    Examples
    --------
    >>> apply_rope_angles([[1.0, 0.0, 1.0, 0.0]], [[np.pi / 2, 0.0]]).round(6)
    array([[0., 1., 1., 0.]])
    """
    pairing = check_choice("pairing", pairing, PAIRINGS)
    array = _check_pairs("x", x).astype(np.float64, copy=False)
    phi = check_array("angles", angles, ndim=2).astype(np.float64, copy=False)
    if array.ndim < 2 or phi.shape != (array.shape[-2], array.shape[-1] // 2):
        raise ValueError(f"angles must have shape (seq, head_dim // 2) for x of shape "
                         f"{array.shape}; got {phi.shape}")
    return _rotate(array, phi, pairing)


def rope_matrix(position: float, inv_freq: ArrayLike, *,
                pairing: str = "interleaved") -> NDArray[np.float64]:
    """Return the rotation matrix ``R_m`` of shape (head_dim, head_dim).

    Parameters
    ----------
    position : float
        The position ``m`` whose rotation is built (fractional or negative allowed).
    inv_freq, pairing
        As for :func:`apply_rope`.

    Returns
    -------
    R : ndarray of float64, shape (head_dim, head_dim)
        Orthogonal; ``apply_rope(x, [m], inv_freq)[0] == R @ x[0]``.

    Notes
    -----
    Pair ``i`` gets the block ``[[cos(m theta_i), -sin(m theta_i)], [sin(m theta_i),
    cos(m theta_i)]]`` (RoFormer eq. 15).

    Examples
    --------
    >>> np.round(rope_matrix(1, [np.pi / 2]), 6)
    array([[ 0., -1.],
           [ 1.,  0.]])
    """
    pairing = check_choice("pairing", pairing, PAIRINGS)
    m = check_float("position", position)
    phi = angles([m], inv_freq)[0]
    n_pairs = phi.shape[0]
    first = np.arange(n_pairs) * 2 if pairing == "interleaved" else np.arange(n_pairs)
    second = first + 1 if pairing == "interleaved" else first + n_pairs
    matrix = np.zeros((2 * n_pairs, 2 * n_pairs))
    # [[cos(m theta_i), -sin(m theta_i)], [sin(m theta_i), cos(m theta_i)]] on pair i
    matrix[first, first] = np.cos(phi)
    matrix[first, second] = -np.sin(phi)
    matrix[second, first] = np.sin(phi)
    matrix[second, second] = np.cos(phi)
    return matrix


def _as_complex_pairs(v: NDArray[np.float64], pairing: str) -> NDArray[np.complex128]:
    half = v.shape[-1] // 2
    if pairing == "interleaved":
        return v[0::2] + 1j * v[1::2]
    return v[:half] + 1j * v[half:]


def relative_scores(q: ArrayLike, k: ArrayLike, distances: ArrayLike, inv_freq: ArrayLike, *,
                    pairing: str = "interleaved") -> NDArray[np.float64]:
    """Return the score ``<R_m q, R_(m+r) k>`` for every distance ``r`` (it does not depend on m).

    Parameters
    ----------
    q, k : array_like, shape (head_dim,)
        One query and one key (before rotation).
    distances : array_like, shape (n,)
        Distances ``r = n - m`` (key minus query position).
    inv_freq, pairing
        As for :func:`apply_rope`.

    Returns
    -------
    scores : ndarray of float64, shape (n,)
        The dot product of the rotated query and key at each distance.

    Notes
    -----
    With complex pairs ``q_i``, ``k_i``: ``<R_m q, R_n k> = Re sum_i conj(q_i) k_i
    exp(i (n - m) theta_i)``, a function of ``n - m`` only (RoFormer eq. 16).

    Examples
    --------
    >>> q = k = np.array([1.0, 0.0])
    >>> np.round(relative_scores(q, k, [0, 1, 2], [np.pi / 2]), 6)
    array([ 1.,  0., -1.])
    """
    pairing = check_choice("pairing", pairing, PAIRINGS)
    qv = _check_pairs("q", q)
    kv = _check_pairs("k", k)
    r = check_positions("distances", distances)
    phi = angles(r, inv_freq)  # (n, head_dim // 2)
    if qv.ndim != 1 or kv.shape != qv.shape or phi.shape[1] != qv.shape[0] // 2:
        raise ValueError(
            f"q and k must be vectors of one shape (head_dim,) with head_dim = 2 len(inv_freq) "
            f"= {2 * phi.shape[1]}; got shapes {qv.shape} and {kv.shape}")
    qc = _as_complex_pairs(qv.astype(np.float64), pairing)
    kc = _as_complex_pairs(kv.astype(np.float64), pairing)
    # score(r) = Re sum_i conj(q_i) k_i exp(i r theta_i)
    return np.real(np.exp(1j * phi) @ (np.conj(qc) * kc))


def rope_decay_bound(distances: ArrayLike, head_dim: int,
                     base: float = 10000.0) -> NDArray[np.float64]:
    """Return RoFormer's long-term decay bound ``(1/(d/2)) sum_j |S_j|`` for each distance.

    Parameters
    ----------
    distances : array_like, shape (n,)
        Distances ``r`` between the query and the key positions.
    head_dim, base : int, float (default 10000.0)
        Rotary dimension (even); frequency base (> 1).

    Returns
    -------
    bound : ndarray of float64, shape (n,)
        The bound at each distance (it is ``d/4 + 1/2`` at ``r = 0``, then falls on average).

    Notes
    -----
    ``bound = (1/(d/2)) sum_{j=1}^{d/2} |S_j|``, ``S_j = sum_{k<j} exp(i r theta_k)``, RoFormer's
    Abel-summation bound (section 3.4.3): it decays on average, not monotonically.

    Examples
    --------
    >>> np.round(rope_decay_bound([0, 10, 100], 128), 4)
    array([32.5   , 17.9541, 10.2273])
    """
    r = check_positions("distances", distances)
    phi = angles(r, inverse_frequencies(check_even("head_dim", head_dim), base))
    # S_j = sum_{k<j} exp(i r theta_k), j = 1..d/2
    partial_sums = np.cumsum(np.exp(1j * phi), axis=-1)
    # bound = (1/(d/2)) sum_j |S_j|
    return np.mean(np.abs(partial_sums), axis=-1)


def normalised_score_curves(
    distances: ArrayLike, head_dim: int, base: float = 10000.0
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Return the score of aligned pairs and RoFormer's bound on it, both divided by ``d``.

    Parameters
    ----------
    distances, head_dim, base
        As for :func:`rope_decay_bound`.

    Returns
    -------
    score, bound : ndarray of float64, shape (n,)
        The score of an all-ones query and key, over ``d``; :func:`rope_decay_bound` at the
        same distances.

    Notes
    -----
    ``score = <R_m 1, R_(m+r) 1> / d = sum_i cos(r theta_i) / (d/2)``; Abel summation bounds
    ``|score|`` by ``rope_decay_bound(r)``.

    Examples
    --------
    >>> score, bound = normalised_score_curves([0, 1], 4, 100.0)
    >>> np.round(score, 6), np.round(bound, 6)
    (array([1.      , 0.767653]), array([1.5     , 1.400447]))
    """
    inv_freq = inverse_frequencies(check_even("head_dim", head_dim), base)
    ones = np.ones(inv_freq.shape[0] * 2)
    # score(r) = <R_m 1, R_(m+r) 1> / d
    score = relative_scores(ones, ones, distances, inv_freq) / ones.shape[0]
    # bound(r) = max_j |h_(j-1) - h_j| sum_j |S_j| / d = rope_decay_bound(r)
    return score, rope_decay_bound(distances, head_dim, base)


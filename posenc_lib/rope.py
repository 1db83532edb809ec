"""Rotary position embedding (RoPE): rotate queries and keys by position-dependent angles.

RoPE splits a head vector of even size ``d`` into ``d/2`` pairs and turns pair ``i`` of the
vector at position ``m`` by the angle ``m * theta_i``, with ``theta_i = base**(-2i/d)``.
Because rotations compose, the score ``<R_m q, R_n k>`` only depends on the offset ``n - m``.

Two layouts of the pairs are in use, and this module names the one it uses everywhere:

- ``pairing="interleaved"``: pairs ``(2i, 2i+1)``, as in RoFormer, GPT-J and Meta's Llama code;
- ``pairing="half"``: pairs ``(i, i + d/2)``, as in GPT-NeoX and Hugging Face ``rotate_half``.

Both give the same scores once the query/key features are permuted with
:func:`half_to_interleaved_permutation`.

Shapes: the position axis comes before the feature axis, ``x`` is ``(..., seq, head_dim)``.
Introduced in notebook 05_rope.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import check_array, check_choice, check_even, check_float, check_positions

__all__ = [
    "PAIRINGS",
    "default_inv_freq",
    "rope_angles",
    "rotate_half",
    "rotate_interleaved",
    "apply_rope",
    "rope_matrix",
    "half_to_interleaved_permutation",
    "relative_scores",
    "rope_decay_bound",
    "clear_rope_cache",
]

PAIRINGS: tuple[str, ...] = ("interleaved", "half")
"""The two pair layouts: ``"interleaved"`` = (2i, 2i+1), ``"half"`` = (i, i + d/2)."""

_CACHE_SIZE = 8
_TABLE_CACHE: OrderedDict[tuple[Any, ...], tuple[NDArray[Any], NDArray[Any]]] = OrderedDict()


# --------------------------------------------------------------------------- validation helpers


def _check_inv_freq(inv_freq: Any, name: str = "inv_freq") -> NDArray[np.float64]:
    array = check_array(name, inv_freq, ndim=1)
    if array.size == 0:
        raise ValueError(
            f"{name} must have at least one entry (head_dim // 2 >= 1); got shape (0,)"
        )
    return array.astype(np.float64, copy=False)


def _check_vector(name: str, value: Any) -> NDArray[np.float64]:
    array = check_array(name, value, ndim=1)
    if array.size < 2 or array.size % 2:
        raise ValueError(
            f"{name} must be a vector of even length head_dim >= 2 (pairs); got shape {array.shape}"
        )
    return array.astype(np.float64, copy=False)


def _check_head_vectors(name: str, x: Any) -> NDArray[Any]:
    """Validate ``x`` of shape (..., seq, head_dim) with an even head_dim, finite values."""
    array = check_array(name, x, min_ndim=2, finite=False)
    head_dim = array.shape[-1]
    if head_dim < 2 or head_dim % 2:
        raise ValueError(
            f"{name} must have an even last axis head_dim >= 2 (pairs); got shape {array.shape}"
        )
    if np.issubdtype(array.dtype, np.floating) and array.size:
        # Fast path: the sum of the entries is finite iff every entry is (unless it overflows).
        with np.errstate(over="ignore", invalid="ignore"):
            total = array.sum()
        if not np.isfinite(total) and not np.all(np.isfinite(array)):
            raise ValueError(f"{name} must contain only finite numbers; got NaN or inf")
    return array


# --------------------------------------------------------------------------- frequencies, angles


def default_inv_freq(head_dim: int, base: float = 10000.0) -> NDArray[np.float64]:
    """Return the RoPE inverse frequencies ``theta_i = base**(-2i/head_dim)``.

    Parameters
    ----------
    head_dim : int
        Size of one attention head, even and >= 2.
    base : float, default 10000.0
        The base (``rope_theta`` in Hugging Face configs), > 1.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
        Angular speed of pair ``i`` in radians per position, from 1 down to about ``1/base``.

    Notes
    -----
    ``theta_i = base**(-2i/d)`` for ``i = 0 .. d/2 - 1``. A large ``theta_i`` turns fast (short
    wavelength ``2 pi / theta_i``); a small one turns slowly. Introduced in notebook 05_rope.

    References
    ----------
    Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding", arXiv 2104.09864,
    eq. (15).

    Examples
    --------
    >>> np.round(default_inv_freq(8, 10000.0), 6)
    array([1.   , 0.1  , 0.01 , 0.001])
    """
    head_dim = check_even("head_dim", head_dim)
    base = check_float("base", base, greater_than=1.0)
    # theta_i = base^(-2i/d)
    return np.power(base, -np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)


def rope_angles(positions: ArrayLike, inv_freq: ArrayLike) -> NDArray[np.float64]:
    """Return the rotation angles ``m * theta_i`` for every position and pair, in float64.

    Parameters
    ----------
    positions : array_like, shape (seq,)
        Token positions (integers, or floats for interpolated positions; may be negative).
    inv_freq : array_like, shape (head_dim // 2,)
        Inverse frequencies ``theta_i`` (for example from :func:`default_inv_freq`).

    Returns
    -------
    angles : ndarray of float64, shape (seq, head_dim // 2)
        ``angles[m, i] = positions[m] * inv_freq[i]``.

    Notes
    -----
    The angles are always computed in float64, so that large positions keep their precision
    before any cast. Introduced in notebook 05_rope.

    Examples
    --------
    >>> rope_angles([0, 1, 2], [1.0, 0.5])
    array([[0. , 0. ],
           [1. , 0.5],
           [2. , 1. ]])
    """
    pos = check_positions("positions", positions).astype(np.float64, copy=False)
    theta = _check_inv_freq(inv_freq)
    # angle[m, i] = m * theta_i
    return np.multiply.outer(pos, theta)


# --------------------------------------------------------------------------- rotations of pairs


def rotate_half(x: ArrayLike) -> NDArray[Any]:
    """Return ``[-x2, x1]`` where ``x1, x2`` are the two halves of the last axis.

    Parameters
    ----------
    x : array_like, shape (..., head_dim)
        Vectors with an even last axis.

    Returns
    -------
    rotated : ndarray, shape (..., head_dim)
        ``rotated[..., i] = -x[..., i + d/2]`` and ``rotated[..., i + d/2] = x[..., i]``.

    Notes
    -----
    With pairs ``(i, i + d/2)`` the rotation by ``phi`` is
    ``x * cos(phi) + rotate_half(x) * sin(phi)`` (GPT-NeoX, Hugging Face). This is a quarter
    turn of every pair. Introduced in notebook 05_rope.

    Examples
    --------
    >>> rotate_half(np.array([1.0, 2.0, 3.0, 4.0]))
    array([-3., -4.,  1.,  2.])
    """
    array = _check_last_axis_even("x", x)
    half = array.shape[-1] // 2
    return np.concatenate([-array[..., half:], array[..., :half]], axis=-1)


def rotate_interleaved(x: ArrayLike) -> NDArray[Any]:
    """Return the quarter turn of every interleaved pair: ``(a, b) -> (-b, a)``.

    Parameters
    ----------
    x : array_like, shape (..., head_dim)
        Vectors with an even last axis.

    Returns
    -------
    rotated : ndarray, shape (..., head_dim)
        ``rotated[..., 2i] = -x[..., 2i+1]`` and ``rotated[..., 2i+1] = x[..., 2i]``.

    Notes
    -----
    With pairs ``(2i, 2i+1)`` the rotation by ``phi`` is
    ``x * cos(phi) + rotate_interleaved(x) * sin(phi)`` (RoFormer, GPT-J, Meta Llama). In the
    complex view ``x_{2i} + i x_{2i+1}`` it is the multiplication by ``i``.
    Introduced in notebook 05_rope.

    Examples
    --------
    >>> rotate_interleaved(np.array([1.0, 2.0, 3.0, 4.0]))
    array([-2.,  1., -4.,  3.])
    """
    array = _check_last_axis_even("x", x)
    out = np.empty_like(array)
    out[..., 0::2] = -array[..., 1::2]
    out[..., 1::2] = array[..., 0::2]
    return out


def _check_last_axis_even(name: str, x: Any) -> NDArray[Any]:
    array = check_array(name, x, min_ndim=1)
    if array.shape[-1] < 2 or array.shape[-1] % 2:
        raise ValueError(
            f"{name} must have an even last axis head_dim >= 2 (pairs); got shape {array.shape}"
        )
    return array


# --------------------------------------------------------------------------- apply_rope


def clear_rope_cache() -> None:
    """Empty the cache of cos/sin tables used by :func:`apply_rope`.

    Returns
    -------
    None

    Notes
    -----
    :func:`apply_rope` keeps the last few cos/sin tables (keyed on the bytes of ``positions`` and
    ``inv_freq``, the dtype and the pairing), so repeated calls with the same positions do not
    recompute them. Introduced in notebook 05_rope.

    Examples
    --------
    >>> clear_rope_cache()
    """
    _TABLE_CACHE.clear()


def _compute_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """float32/float64 stay; float16 is computed in float32; integers in float64."""
    if dtype == np.float16:
        return np.dtype(np.float32)
    if np.issubdtype(dtype, np.floating):
        return dtype
    return np.dtype(np.float64)


def _rope_tables(
    positions: NDArray[Any], inv_freq: NDArray[np.float64], dtype: np.dtype[Any], pairing: str
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Return read-only tables (cos_full, signed_sin), each of shape (seq, head_dim).

    The rotation is ``x * cos_full + swap(x) * signed_sin`` where ``swap`` exchanges the two
    members of each pair (no sign change) and ``signed_sin`` carries ``-sin`` on the first member
    and ``+sin`` on the second.
    """
    key = (positions.dtype.str, positions.tobytes(), inv_freq.tobytes(), dtype.str, pairing)
    cached = _TABLE_CACHE.get(key)
    if cached is not None:
        _TABLE_CACHE.move_to_end(key)
        return cached
    # angle[m, i] = m * theta_i, in float64
    angles = np.multiply.outer(positions.astype(np.float64), inv_freq)
    cos, sin = np.cos(angles), np.sin(angles)
    if pairing == "interleaved":
        cos_full = np.repeat(cos, 2, axis=-1)
        signed_sin = np.stack([-sin, sin], axis=-1).reshape(cos_full.shape)
    else:
        cos_full = np.concatenate([cos, cos], axis=-1)
        signed_sin = np.concatenate([-sin, sin], axis=-1)
    tables = (cos_full.astype(dtype), signed_sin.astype(dtype))
    for table in tables:
        table.setflags(write=False)
    _TABLE_CACHE[key] = tables
    while len(_TABLE_CACHE) > _CACHE_SIZE:
        _TABLE_CACHE.popitem(last=False)
    return tables


def apply_rope(
    x: ArrayLike,
    positions: ArrayLike,
    inv_freq: ArrayLike,
    *,
    pairing: str = "interleaved",
) -> NDArray[Any]:
    """Rotate every pair of features of ``x`` by the angle ``position * inv_freq[i]``.

    Parameters
    ----------
    x : array_like, shape (..., seq, head_dim)
        Queries or keys (never values). ``head_dim`` must be even.
    positions : array_like, shape (seq,)
        Position of each row of ``x`` (integers, or floats for interpolated positions).
    inv_freq : array_like, shape (head_dim // 2,)
        Angular speed ``theta_i`` of each pair, e.g. from :func:`default_inv_freq` or
        :func:`posenc_lib.scaling.rope_frequencies`.
    pairing : {"interleaved", "half"}, default "interleaved"
        ``"interleaved"``: pairs ``(2i, 2i+1)`` (RoFormer, GPT-J, Meta Llama).
        ``"half"``: pairs ``(i, i + d/2)`` (GPT-NeoX, Hugging Face ``rotate_half``).

    Returns
    -------
    rotated : ndarray, shape (..., seq, head_dim)
        Same floating dtype as ``x`` (float32 in, float32 out; integers give float64).

    Notes
    -----
    For pair ``(a, b)`` of the vector at position ``m`` and ``phi = m * theta_i``::

        a' = a cos(phi) - b sin(phi)
        b' = a sin(phi) + b cos(phi)

    that is ``(a + i b) * exp(i phi)`` in complex form, or ``R_m x`` with the block-diagonal
    matrix of :func:`rope_matrix`. The angles are computed in float64 and the cos/sin tables cast
    to the dtype of ``x``; the last few tables are cached (read-only) and reused when the same
    positions, frequencies, dtype and pairing come back. Introduced in notebook 05_rope.

    References
    ----------
    Su et al., "RoFormer", arXiv 2104.09864, eq. (34). Hugging Face ``apply_rotary_pos_emb``.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0, 1.0, 0.0]])
    >>> np.round(apply_rope(x, [1], [np.pi / 2, 0.0]), 6)
    array([[0., 1., 1., 0.]])
    >>> np.round(apply_rope(x, [1], [np.pi / 2, 0.0], pairing="half"), 6)
    array([[0., 0., 1., 1.]])
    """
    pairing = check_choice("pairing", pairing, PAIRINGS)
    array = _check_head_vectors("x", x)
    pos = check_positions("positions", positions)
    theta = _check_inv_freq(inv_freq)
    seq, head_dim = array.shape[-2], array.shape[-1]
    if pos.shape[0] != seq:
        raise ValueError(
            f"positions must have one entry per row of x: expected length x.shape[-2] = {seq}; "
            f"got shape {pos.shape}"
        )
    if theta.shape[0] != head_dim // 2:
        raise ValueError(
            f"inv_freq must have length head_dim // 2 = {head_dim // 2} for x of shape "
            f"{array.shape}; got shape {theta.shape}"
        )
    out_dtype = array.dtype if np.issubdtype(array.dtype, np.floating) else np.dtype(np.float64)
    work_dtype = _compute_dtype(array.dtype)
    work = array.astype(work_dtype, copy=False)
    cos_full, signed_sin = _rope_tables(pos, theta, work_dtype, pairing)

    # out = x * cos + swap(x) * signed_sin
    out = np.multiply(work, cos_full)
    swapped = np.empty_like(work)
    if pairing == "interleaved":
        swapped[..., 0::2] = work[..., 1::2]
        swapped[..., 1::2] = work[..., 0::2]
    else:
        half = head_dim // 2
        swapped[..., :half] = work[..., half:]
        swapped[..., half:] = work[..., :half]
    swapped *= signed_sin
    out += swapped
    return out.astype(out_dtype, copy=False)


def rope_matrix(
    position: float, inv_freq: ArrayLike, *, pairing: str = "interleaved"
) -> NDArray[np.float64]:
    """Return the explicit rotation matrix ``R_m`` of shape (head_dim, head_dim).

    Parameters
    ----------
    position : float
        The position ``m`` (an integer or a float).
    inv_freq : array_like, shape (head_dim // 2,)
        Angular speed ``theta_i`` of each pair.
    pairing : {"interleaved", "half"}, default "interleaved"
        Which coordinates form pair ``i``: ``(2i, 2i+1)`` or ``(i, i + d/2)``.

    Returns
    -------
    R : ndarray of float64, shape (head_dim, head_dim)
        Orthogonal, block diagonal (for ``"interleaved"``; a permuted block diagonal for
        ``"half"``), with ``apply_rope(x, [m], inv_freq)[0] == R @ x[0]``.

    Notes
    -----
    Each pair ``(a, b)`` gets the 2x2 block ``[[cos(m theta_i), -sin(m theta_i)],
    [sin(m theta_i), cos(m theta_i)]]``. The element-wise :func:`apply_rope` gives the same
    numbers without building this matrix. Introduced in notebook 05_rope.

    References
    ----------
    Su et al., "RoFormer", arXiv 2104.09864, eq. (15).

    Examples
    --------
    >>> np.round(rope_matrix(1, [np.pi / 2]), 6)
    array([[ 0., -1.],
           [ 1.,  0.]])
    """
    pairing = check_choice("pairing", pairing, PAIRINGS)
    m = check_float("position", position)
    theta = _check_inv_freq(inv_freq)
    n_pairs = theta.shape[0]
    # phi_i = m * theta_i
    phi = m * theta
    cos, sin = np.cos(phi), np.sin(phi)
    first = np.arange(n_pairs) * 2 if pairing == "interleaved" else np.arange(n_pairs)
    second = first + 1 if pairing == "interleaved" else first + n_pairs
    matrix = np.zeros((2 * n_pairs, 2 * n_pairs))
    # [[cos, -sin], [sin, cos]] on each pair
    matrix[first, first] = cos
    matrix[first, second] = -sin
    matrix[second, first] = sin
    matrix[second, second] = cos
    return matrix


def half_to_interleaved_permutation(head_dim: int) -> NDArray[np.intp]:
    """Return ``perm`` with ``q_half = q_interleaved[..., perm]``.

    Parameters
    ----------
    head_dim : int
        Size of one head, even and >= 2.

    Returns
    -------
    perm : ndarray of int, shape (head_dim,)
        ``[0, 2, 4, ..., d-2, 1, 3, ..., d-1]``: the first members of the interleaved pairs,
        then the second members.

    Notes
    -----
    Interleaved pair ``i`` is ``(2i, 2i+1)``; half pair ``i`` is ``(i, i + d/2)``. Moving
    coordinate ``2i`` to ``i`` and ``2i+1`` to ``i + d/2`` maps one layout onto the other, so for
    any vector ``q`` and position ``m``::

        apply_rope(q, m, pairing="interleaved")[..., perm]
            == apply_rope(q[..., perm], m, pairing="half")

    and the scores of permuted queries and keys are equal. This is the permutation applied to
    the rows of ``W_q`` and ``W_k`` when converting Meta Llama weights to the Hugging Face
    layout. The inverse is ``np.argsort(perm)``: ``q_interleaved = q_half[..., np.argsort(perm)]``.
    Introduced in notebook 05_rope.

    Examples
    --------
    >>> half_to_interleaved_permutation(8)
    array([0, 2, 4, 6, 1, 3, 5, 7])
    """
    head_dim = check_even("head_dim", head_dim)
    return np.concatenate([np.arange(0, head_dim, 2), np.arange(1, head_dim, 2)]).astype(np.intp)


def _as_complex_pairs(v: NDArray[np.float64], pairing: str) -> NDArray[np.complex128]:
    half = v.shape[-1] // 2
    if pairing == "interleaved":
        return v[0::2] + 1j * v[1::2]
    return v[:half] + 1j * v[half:]


def relative_scores(
    q: ArrayLike,
    k: ArrayLike,
    distances: ArrayLike,
    inv_freq: ArrayLike,
    *,
    pairing: str = "interleaved",
) -> NDArray[np.float64]:
    """Return the RoPE score ``<R_m q, R_(m+dist) k>`` for every distance (it does not depend on m).

    Parameters
    ----------
    q, k : array_like, shape (head_dim,)
        One query and one key vector (before rotation).
    distances : array_like, shape (n,)
        Relative distances ``n - m`` (key position minus query position), may be negative.
    inv_freq : array_like, shape (head_dim // 2,)
        Angular speed ``theta_i`` of each pair.
    pairing : {"interleaved", "half"}, default "interleaved"
        The pair layout of ``q`` and ``k``.

    Returns
    -------
    scores : ndarray of float64, shape (n,)
        ``scores[j] = <R_m q, R_(m + distances[j]) k>`` for any ``m``.

    Notes
    -----
    With the complex pairs ``q_c = q_a + i q_b`` and ``k_c`` likewise::

        <R_m q, R_n k> = Re sum_i conj(q_c,i) k_c,i exp(i (n - m) theta_i)

    which depends on ``n - m`` only: this is the relative property of RoPE.
    Introduced in notebook 05_rope.

    References
    ----------
    Su et al., "RoFormer", arXiv 2104.09864, eq. (16) and section 3.4.3.

    Examples
    --------
    >>> q = k = np.array([1.0, 0.0])
    >>> np.round(relative_scores(q, k, [0, 1, 2], [np.pi / 2]), 6)
    array([ 1.,  0., -1.])
    """
    pairing = check_choice("pairing", pairing, PAIRINGS)
    qv = _check_vector("q", q)
    kv = _check_vector("k", k)
    dist = check_positions("distances", distances).astype(np.float64, copy=False)
    theta = _check_inv_freq(inv_freq)
    if kv.shape != qv.shape:
        raise ValueError(f"k must have the same shape as q {qv.shape}; got shape {kv.shape}")
    if theta.shape[0] != qv.shape[0] // 2:
        raise ValueError(
            f"inv_freq must have length head_dim // 2 = {qv.shape[0] // 2}; got shape {theta.shape}"
        )
    qc = _as_complex_pairs(qv, pairing)
    kc = _as_complex_pairs(kv, pairing)
    # score(dist) = Re sum_i conj(q_i) k_i exp(i dist theta_i)
    phases = np.exp(1j * np.multiply.outer(dist, theta))
    return np.real(phases @ (np.conj(qc) * kc))


def rope_decay_bound(
    distances: ArrayLike, head_dim: int, base: float = 10000.0
) -> NDArray[np.float64]:
    """Return RoFormer's long-term decay bound ``(1/(d/2)) sum_j |S_j|`` for each distance.

    Parameters
    ----------
    distances : array_like, shape (n,)
        Relative distances ``m - n`` (the bound is even in the distance).
    head_dim : int
        Size of one head, even and >= 2.
    base : float, default 10000.0
        RoPE base, > 1.

    Returns
    -------
    bound : ndarray of float64, shape (n,)
        ``(1/(d/2)) * sum_{j=1}^{d/2} |S_j|`` with ``S_j = sum_{k=0}^{j-1} exp(i r theta_k)``
        and ``r`` the distance.

    Notes
    -----
    RoFormer writes the score as ``Re sum_i h_i exp(i r theta_i)`` and, by Abel summation,
    bounds it by ``(max_i |h_(i+1) - h_i|) * sum_j |S_j|``. The mean ``(1/(d/2)) sum_j |S_j|``
    is the curve of its Figure 2. At distance 0 every ``S_j = j``, so the bound is
    ``(d/2 + 1)/2``. It decays with the distance on average, but not monotonically: it rises
    again in places. Introduced in notebook 05_rope.

    References
    ----------
    Su et al., "RoFormer", arXiv 2104.09864, section 3.4.3 and Figure 2.

    Examples
    --------
    >>> np.round(rope_decay_bound([0, 10, 100], 128), 4)
    array([32.5   , 17.9541, 10.2273])
    """
    dist = check_positions("distances", distances).astype(np.float64, copy=False)
    theta = default_inv_freq(head_dim, base)
    # S_j = sum_{k<j} exp(i r theta_k), j = 1..d/2
    partial_sums = np.cumsum(np.exp(1j * np.multiply.outer(dist, theta)), axis=-1)
    # bound = (1/(d/2)) sum_j |S_j|
    return np.mean(np.abs(partial_sums), axis=-1)

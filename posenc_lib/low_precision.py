"""Real low-precision arrays: bfloat16 and the two float8 formats of today's accelerators.

The real types of ``ml_dtypes`` and what they do to attention: RoPE in a narrow format, a
narrow KV cache, FlashMLA's tile-scaled e4m3 cache. References: "FP8 Formats for Deep
Learning", arXiv 2209.05433; vLLM "Quantized KV Cache"; FlashMLA ``quantize_k_cache``.

Notebook: 08_numerical_precision.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import check_array, check_choice, check_float, check_int, check_positions
from posenc_lib.frequencies import angles
from posenc_lib.rope import (
    PAIRINGS,
    _check_pairs,
    _on_both_members,
    rotate_half,
    rotate_interleaved,
)

__all__ = ["low_precision_limits", "to_low_precision", "rope_scores_at_offset",
           "cached_key_scores", "tile_scaled_e4m3"]

_LOW_PRECISION_NAMES = ("float64", "float32", "bfloat16", "float8_e4m3fn", "float8_e5m2")
"""Formats of :func:`to_low_precision`: NumPy's own and the ``ml_dtypes`` ones."""
_ANGLE_DTYPES = ("float32", "float64")


def _numpy_dtype(dtype_name: str) -> np.dtype[Any]:
    """The NumPy dtype of a format name; ml_dtypes is imported only when a format needs it."""
    if dtype_name in ("float64", "float32"):
        return np.dtype(dtype_name)
    import ml_dtypes  # compiled; loaded on first use, so `import posenc_lib` stays light

    return np.dtype(getattr(ml_dtypes, dtype_name))


def _cast(name: str, array: NDArray[Any], dtype_name: str) -> NDArray[Any]:
    """``array`` rounded to the format (a real ml_dtypes array); raise if a value overflows."""
    dtype = _numpy_dtype(dtype_name)
    with np.errstate(all="ignore"):
        out = np.asarray(array, dtype=np.float64).astype(dtype)
    if not np.all(np.isfinite(out.astype(np.float64))):
        largest = float(_finfo(dtype_name)[1])
        raise ValueError(
            f"{name} must lie within the finite range of {dtype_name} (|x| <= {largest:g}, "
            f"float8_e4m3fn has no inf); got a largest |value| of {np.max(np.abs(array)):g}"
        )
    return out


def _finfo(dtype_name: str) -> tuple[float, float, float]:
    import ml_dtypes  # its finfo also knows NumPy's own float32 and float64

    info = ml_dtypes.finfo(_numpy_dtype(dtype_name))
    return float(info.eps), float(info.max), float(info.smallest_normal)


def low_precision_limits(dtype_name: str) -> tuple[float, float, float]:
    """Return a format's machine epsilon, largest finite value and smallest normal value.

    Parameters
    ----------
    dtype_name : one of :data:`_LOW_PRECISION_NAMES`

    Returns
    -------
    epsilon, largest, smallest_normal : float

    Notes
    -----
    ``epsilon = 2**-p`` (``p`` fraction bits: bfloat16 7, e4m3 3, e5m2 2), smallest normal
    ``2**emin``.

    Examples
    --------
    >>> low_precision_limits("float8_e4m3fn")
    (0.125, 448.0, 0.015625)
    """
    return _finfo(check_choice("dtype_name", dtype_name, _LOW_PRECISION_NAMES))


def to_low_precision(x: Any, dtype_name: str) -> NDArray[Any]:
    """Return ``x`` as a real low-precision NumPy array (``ml_dtypes``), rounded to nearest even.

    Parameters
    ----------
    x : array_like
        Finite values within the format's range.
    dtype_name : one of :data:`_LOW_PRECISION_NAMES`

    Returns
    -------
    numpy.ndarray, same shape as ``x``, dtype ``dtype_name``

    Notes
    -----
    ``fl(x)``, the representable number nearest to ``x``, ties to even.

    Examples
    --------
    >>> to_low_precision([0.3, 17.0], "float8_e4m3fn").astype(float)
    array([ 0.3125, 16.    ])
    """
    array = check_array("x", x)
    return _cast("x", array, check_choice("dtype_name", dtype_name, _LOW_PRECISION_NAMES))


def _low_precision_rope(x: NDArray[Any], positions: NDArray[Any], theta: NDArray[Any],
                        dtype_name: str, pairing: str, angle_dtype: str) -> NDArray[np.float64]:
    """RoPE with cos/sin and the rotation in ``dtype_name`` (inputs already validated)."""
    if angle_dtype == "float32":
        with np.errstate(all="ignore"):
            # phi = fl32(fl32(m) fl32(theta_i)), as transformers computes it
            phi = np.multiply.outer(positions.astype(np.float32), theta.astype(np.float32))
    else:
        phi = angles(positions, theta)
    if not np.all(np.isfinite(phi)):
        raise ValueError(f"positions * inv_freq overflows {angle_dtype}; use smaller positions")
    # cos and sin of phi correctly rounded to phi's format: float64, then rounded once (numpy's
    # own float32 cos/sin take CPU-dependent SIMD paths and can differ in the last bit)
    cos = np.cos(phi.astype(np.float64)).astype(phi.dtype).astype(np.float64)
    sin = np.sin(phi.astype(np.float64)).astype(phi.dtype).astype(np.float64)
    cos = _cast("cos", _on_both_members(cos, pairing), dtype_name)
    sin = _cast("sin", _on_both_members(sin, pairing), dtype_name)
    low = _cast("x", x, dtype_name)
    rotate = rotate_interleaved if pairing == "interleaved" else rotate_half
    # the quarter turn only moves and negates values: exact in any format
    turned = _cast("x", rotate(low.astype(np.float64)), dtype_name)
    with np.errstate(all="ignore"):
        # x' = fl(fl(x cos) + fl(rotate(x) sin)), every product and the sum rounded
        rotated = low * cos + turned * sin
    out = rotated.astype(np.float64)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"x values are too large: the rotation overflows {dtype_name}")
    return out


def rope_scores_at_offset(q: ArrayLike, k: ArrayLike, offset: int, positions: ArrayLike,
                          inv_freq: ArrayLike, dtype_name: str = "bfloat16", *,
                          pairing: str = "half",
                          angle_dtype: str = "float32") -> NDArray[np.float64]:
    """Return RoPE scores ``<R_(m+offset) q, R_m k>`` with the rotation done in a narrow format.

    Parameters
    ----------
    q, k : array_like, shape (head_dim,)
    offset : int
        Query position minus key position.
    positions, inv_freq : array_like, shapes (n,) and (head_dim // 2,)
        Key positions ``m`` >= 0; frequencies.
    dtype_name : one of :data:`_LOW_PRECISION_NAMES`, default "bfloat16"
        Format of q, k, cos, sin and of every step of the rotation.
    pairing : {"half", "interleaved"}, default "half"
    angle_dtype : {"float32", "float64"}, default "float32"
        Format of the angles (transformers: float32).

    Returns
    -------
    scores : ndarray of float64, shape (n,)
        Summed in float64, so only the rotation's rounding shows.

    Notes
    -----
    Exactly ``s(m) = q^T R_(-offset) k``; with ``x' = fl(fl(x cos phi) + fl(rotate(x) sin phi))``
    it depends on the absolute position.

    Examples
    --------
    >>> q, k, theta = [1.0, 0.5], [0.25, 2.0], [0.1]
    >>> bf16 = rope_scores_at_offset(q, k, 3, [0, 10, 100], theta, "bfloat16")
    >>> bool(np.ptp(bf16) > 1e-3)
    True
    """
    query = _check_pairs("q", q)
    key = _check_pairs("k", k)
    if query.ndim != 1 or query.shape != key.shape:
        raise ValueError(f"q and k must be 1-D with the same even length; got {query.shape} and "
                         f"{key.shape}")
    shift = check_int("offset", offset, minimum=None)
    pos = check_positions("positions", positions)
    if np.any(pos < 0) or np.any(pos + shift < 0):
        raise ValueError("positions and positions + offset must be >= 0")
    theta = check_array("inv_freq", inv_freq, ndim=1)
    if theta.shape != (query.shape[0] // 2,):
        raise ValueError(f"inv_freq must have head_dim // 2 = {query.shape[0] // 2} entries; got "
                         f"{theta.shape[0]}")
    name = check_choice("dtype_name", dtype_name, _LOW_PRECISION_NAMES)
    pairing = check_choice("pairing", pairing, PAIRINGS)
    angle_dtype = check_choice("angle_dtype", angle_dtype, _ANGLE_DTYPES)
    n = pos.shape[0]
    q_rot = _low_precision_rope(np.broadcast_to(query, (n, query.shape[0])), pos + shift, theta,
                                name, pairing, angle_dtype)
    k_rot = _low_precision_rope(np.broadcast_to(key, (n, key.shape[0])), pos, theta, name,
                                pairing, angle_dtype)
    # s(m) = sum_j (R_(m+offset) q)_j (R_m k)_j, summed in float64
    return np.asarray(np.einsum("nd,nd->n", q_rot, k_rot), dtype=np.float64)


def cached_key_scores(
    queries: ArrayLike, keys: ArrayLike, dtype_name: str, *, scale: float = 1.0
) -> NDArray[np.float64]:
    """Return the scores ``q . k`` when the (rotated) keys are stored in a narrow KV cache.

    Parameters
    ----------
    queries, keys : array_like, shapes (n_queries, head_dim) and (n_keys, head_dim)
        Queries kept exact; keys stored as ``fl(k / scale)``.
    dtype_name : one of :data:`_LOW_PRECISION_NAMES`
    scale : float, default 1.0
        Per-tensor scale of the cache, > 0.

    Returns
    -------
    scores : ndarray of float64, shape (n_queries, n_keys)

    Notes
    -----
    ``s_mn = q_m . (c fl(k_n / c))``, so ``|s - s_exact| <= (eps / 2) sum_j |q_j k_j|``.

    Examples
    --------
    >>> cached_key_scores([[1.0, 1.0]], [[0.3, 17.0]], "float8_e4m3fn")
    array([[16.3125]])
    """
    q = check_array("queries", queries, ndim=2).astype(np.float64, copy=False)
    k = check_array("keys", keys, ndim=2).astype(np.float64, copy=False)
    if q.shape[1] != k.shape[1]:
        raise ValueError(f"queries and keys must have the same head_dim; got {q.shape} and "
                         f"{k.shape}")
    name = check_choice("dtype_name", dtype_name, _LOW_PRECISION_NAMES)
    c = check_float("scale", scale, greater_than=0.0)
    with np.errstate(all="ignore"):
        scaled = k / c
    if not np.all(np.isfinite(scaled)):
        raise ValueError(f"keys / scale overflows float64; got scale {c:g}")
    # K_cache = c fl(K / c)
    stored = _cast("keys / scale", scaled, name).astype(np.float64) * c
    with np.errstate(all="ignore"):
        # s = Q K_cache^T
        scores = q @ stored.T
    if not np.all(np.isfinite(scores)):
        raise ValueError("the scores overflow float64; scale the queries or keys down")
    return np.asarray(scores, dtype=np.float64)


_E4M3_LARGEST = 448.0


def tile_scaled_e4m3(x: ArrayLike, tile: int = 128) -> NDArray[np.float64]:
    """Return ``x`` as read back from an e4m3 cache with one power-of-two scale per tile.

    Parameters
    ----------
    x : array_like, shape (n_rows, n_columns)
        One cached vector per row; ``n_columns`` a multiple of ``tile``.
    tile : int, default 128

    Returns
    -------
    stored : ndarray of float64, shape (n_rows, n_columns)

    Notes
    -----
    ``c_T fl_e4m3(x / c_T)`` per tile, ``c_T = 2**ceil(log2(max(max_T |x_j| / 448, 1e-4)))``: a
    power of two, so only the cast errs (at most ``|x_j| / 16``).

    Examples
    --------
    >>> tile_scaled_e4m3([[1000.0, 3.0]], tile=2)
    array([[1024.,    3.]])
    """
    values = check_array("x", x, ndim=2).astype(np.float64, copy=False)
    size = check_int("tile", tile, minimum=1)
    if values.shape[1] % size:
        raise ValueError(
            f"x must have a multiple of tile = {size} columns; got shape {values.shape}"
        )
    tiles = values.reshape(values.shape[0], -1, size)
    largest = np.abs(tiles).max(axis=-1, keepdims=True)
    # c_T = 2**ceil(log2(max(amax_T / 448, 1e-4)))
    scale = 2.0 ** np.ceil(np.log2(np.maximum(largest / _E4M3_LARGEST, 1e-4)))
    stored = _cast("x / scale", tiles / scale, "float8_e4m3fn").astype(np.float64) * scale
    return np.asarray(stored.reshape(values.shape), dtype=np.float64)

"""Emulating float16 / bfloat16 rounding in NumPy to see angles go wrong.

The four formats, by significand bits p (stored fraction bits) and smallest normal exponent:

=========  ==  =======  ==================
format      p  emin     machine epsilon
=========  ==  =======  ==================
float16    10  -14      2**-10 ~ 9.8e-4
bfloat16    7  -126     2**-7  ~ 7.8e-3
float32    23  -126     2**-23 ~ 1.2e-7
float64    52  -1022    2**-52 ~ 2.2e-16
=========  ==  =======  ==================

bfloat16 is float32 with the low 16 bits of the bit pattern removed: the same exponent range,
only 7 fraction bits. NumPy has no bfloat16 type, so it is emulated on ``uint32`` bit patterns.
Non-finite inputs (NaN, inf) are rejected; finite values beyond a format's range become
``+-inf``, as the hardware does.

Notebook: 08_numerical_precision.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import (
    check_array,
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_positions,
)
from posenc_lib.frequencies import angles
from posenc_lib.rope import (
    PAIRINGS,
    _check_pairs,
    _on_both_members,
    rotate_half,
    rotate_interleaved,
)

__all__ = [
    "DTYPE_NAMES",
    "round_to_bfloat16",
    "round_to_dtype",
    "machine_epsilon",
    "spacing_at",
    "rounded_angles",
    "angle_error",
    "sincos_error",
    "float32_bits",
    "LOW_PRECISION_NAMES",
    "low_precision_limits",
    "to_low_precision",
    "rope_scores_at_offset",
    "cached_key_scores",
]

DTYPE_NAMES = ("float16", "bfloat16", "float32", "float64")
ROUNDING_MODES = ("nearest", "truncate")
_FRACTION_BITS = {"float16": 10, "bfloat16": 7, "float32": 23, "float64": 52}
_MIN_EXPONENT = {"float16": -14, "bfloat16": -126, "float32": -126, "float64": -1022}
_LOW_16 = np.uint32(0xFFFF)
_HIGH_16 = np.uint32(0xFFFF0000)


def round_to_bfloat16(x: Any, *, mode: str = "nearest") -> NDArray[np.float32]:
    """Round values to bfloat16, returned as float32 (the low 16 bits zero).

    Parameters
    ----------
    x : array_like
        Finite real values (any shape). They are first cast to float32 (exact for float32 input).
    mode : {"nearest", "truncate"}, default "nearest"
        "nearest": round to nearest, ties to even (what hardware conversions do).
        "truncate": drop the low 16 bits (round toward zero).

    Returns
    -------
    numpy.ndarray, same shape as ``x``, float32
        Every value is exactly representable in bfloat16.

    Notes
    -----
    With ``u`` the float32 bit pattern as uint32:

    truncate: ``u & 0xFFFF0000``; nearest:
    ``(u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000``, where ``u`` is the float32 bit pattern.

    A carry out of the fraction correctly bumps the exponent. For float64 input the cast to
    float32 rounds first; in rare exact-tie cases this double rounding can differ from a direct
    float64 -> bfloat16 rounding by one bfloat16 step.

    Examples
    --------
    >>> round_to_bfloat16([1 + 2**-8], mode="truncate")
    array([1.], dtype=float32)
    >>> round_to_bfloat16([1 + 3 * 2**-9, 3.14159265])
    array([1.0078125, 3.140625 ], dtype=float32)
    """
    array = check_array("x", x)
    mode = check_choice("mode", mode, ROUNDING_MODES)
    with np.errstate(over="ignore"):
        single = np.array(array, dtype=np.float32)
    bits = single.view(np.uint32)
    if mode == "nearest":
        # u + 0x7FFF + ((u >> 16) & 1): round half to even on bit 16
        bits = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    # keep the high 16 bits: u & 0xFFFF0000
    bits = bits & _HIGH_16
    return np.asarray(bits).view(np.float32)


def _check_dtype_name(dtype_name: Any) -> str:
    return check_choice("dtype_name", dtype_name, DTYPE_NAMES)


def _round(array: NDArray[Any], dtype_name: str) -> NDArray[np.float64]:
    """``array`` (already validated) rounded to ``dtype_name``, as float64."""
    if dtype_name == "bfloat16":
        return round_to_bfloat16(array).astype(np.float64)
    with np.errstate(over="ignore"):
        return np.asarray(array, dtype=np.float64).astype(dtype_name).astype(np.float64)


def round_to_dtype(x: Any, dtype_name: str) -> NDArray[np.float64]:
    """The value of ``x`` after rounding to a storage format, returned as float64.

    Parameters
    ----------
    x : array_like
        Finite real values (any shape).
    dtype_name : {"float16", "bfloat16", "float32", "float64"}
        The format to round to (round to nearest, ties to even).

    Returns
    -------
    numpy.ndarray, same shape as ``x``, float64
        ``fl(x)``: the nearest value representable in ``dtype_name``.

    Notes
    -----
    ``fl(x)`` is the representable number nearest to ``x``: ``|fl(x) - x| <= spacing / 2``.

    Examples
    --------
    >>> [float(v) for v in round_to_dtype([2049, 2051, 0.1], "float16")]
    [2048.0, 2052.0, 0.0999755859375]
    """
    array = check_array("x", x)
    return _round(array, _check_dtype_name(dtype_name))


def machine_epsilon(dtype_name: str) -> float:
    """Gap between 1 and the next representable number in a format.

    Parameters
    ----------
    dtype_name : {"float16", "bfloat16", "float32", "float64"}

    Returns
    -------
    float
        ``2**-p`` with ``p`` fraction bits: 2**-10, 2**-7, 2**-23, 2**-52.

    Notes
    -----
    ``eps = 2**(-p)``.

    Examples
    --------
    >>> machine_epsilon("bfloat16")
    0.0078125
    """
    dtype_name = _check_dtype_name(dtype_name)
    # eps = 2 ** -p
    return 2.0 ** -_FRACTION_BITS[dtype_name]


def spacing_at(x: Any, dtype_name: str) -> NDArray[np.float64]:
    """Gap between adjacent representable numbers of a format at magnitude ``|x|``.

    Parameters
    ----------
    x : array_like
        Finite real values (any shape); only ``|x|`` matters.
    dtype_name : {"float16", "bfloat16", "float32", "float64"}

    Returns
    -------
    numpy.ndarray, same shape as ``x``, float64
        ``2**(e - p)`` where ``2**e <= |x| < 2**(e+1)`` (the binade of ``|x|``); in the
        subnormal range (and at 0) the constant ``2**(emin - p)``.

    Notes
    -----
    ``spacing(x) = 2**(max(floor(log2 |x|), e_min) - p)``.

    The largest possible rounding error when storing ``x`` is half of this.

    Examples
    --------
    >>> [float(v) for v in spacing_at([1.0, 2048.0, 3000.0], "float16")]
    [0.0009765625, 2.0, 2.0]
    """
    array = np.abs(check_array("x", x).astype(np.float64))
    dtype_name = _check_dtype_name(dtype_name)
    _, exponent = np.frexp(array)
    # floor(log2 |x|) = frexp exponent - 1, clipped below at emin
    binade = np.maximum(exponent - 1, _MIN_EXPONENT[dtype_name])
    binade = np.where(array == 0.0, _MIN_EXPONENT[dtype_name], binade)
    # spacing = 2 ** (e - p)
    return np.asarray(np.ldexp(1.0, binade - _FRACTION_BITS[dtype_name]), dtype=np.float64)


def _checked_angles(positions: ArrayLike, inv_freq: ArrayLike,
                    dtype_name: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The exact angles and the rounded ones; raise if the rounded ones overflow."""
    rounded = rounded_angles(positions, inv_freq, dtype_name)
    for name, values in (("positions", positions), ("inv_freq", inv_freq)):
        if not np.all(np.isfinite(_round(np.asarray(values, dtype=np.float64), dtype_name))):
            raise ValueError(f"{name} must fit in {dtype_name}: some values overflow to inf")
    if not np.all(np.isfinite(rounded)):
        raise ValueError(f"positions * inv_freq must fit in {dtype_name}: some angles overflow "
                         "to inf")
    # phi = m theta, the float64 reference
    return angles(positions, inv_freq), rounded


def rounded_angles(positions: ArrayLike, inv_freq: ArrayLike,
                   dtype_name: str) -> NDArray[np.float64]:
    """Return the angle ``m theta_i`` as a narrow format computes it, ``fl(fl(m) fl(theta_i))``.

    Parameters
    ----------
    positions : array_like, shape (n,)
        Positions ``m`` (integers or finite floats).
    inv_freq : array_like, shape (n_pairs,)
        Frequencies ``theta_i`` (finite).
    dtype_name : {"float16", "bfloat16", "float32", "float64"}
        Format in which the position, the frequency and the product are stored.

    Returns
    -------
    angle : ndarray of float64, shape (n, n_pairs)
        ``inf`` where the position or the product overflows the format (float16 past 65504).

    Notes
    -----
    ``phi_hat = fl(fl(m) fl(theta_i))``. The float64 product of two rounded narrow values is
    exact (at most 2 x 24 significant bits), so one more rounding gives the correctly rounded
    product in the narrow format.

    Examples
    --------
    >>> rounded_angles([1857], [0.5623413251903491], "float16")
    array([[1045.]])
    """
    pos = check_positions("positions", positions)
    theta = check_array("inv_freq", inv_freq, ndim=1)
    name = _check_dtype_name(dtype_name)
    with np.errstate(over="ignore", invalid="ignore"):
        product = np.multiply.outer(_round(pos, name), _round(theta, name))
    fits = np.isfinite(product)
    # phi_hat = fl(fl(m) fl(theta_i)), inf where the format overflows
    return np.where(fits, _round(np.where(fits, product, 0.0), name), np.inf)


def angle_error(positions: ArrayLike, inv_freq: ArrayLike, dtype_name: str) -> NDArray[np.float64]:
    """Return the absolute error of the angle ``m theta_i`` computed in a narrow format.

    Parameters
    ----------
    positions, inv_freq, dtype_name : array_like, array_like, str
        As for :func:`rounded_angles`.

    Returns
    -------
    numpy.ndarray, shape (n, m), float64
        ``|fl(fl(m) fl(theta_i)) - m theta_i|``; 0 for "float64" (the reference is float64).
        It grows roughly like ``m theta_i eps``.

    Notes
    -----
    ``e = |phi_hat - phi|`` with ``phi = m theta_i`` and ``phi_hat`` from :func:`rounded_angles`.

    Examples
    --------
    >>> angle_error([1000, 3000], [1.0], "float16")
    array([[0.],
           [0.]])
    >>> angle_error([2049, 4099], [1.0], "float16")
    array([[1.],
           [1.]])
    """
    exact, rounded = _checked_angles(positions, inv_freq, dtype_name)
    # e = |phi_hat - phi|
    return np.abs(rounded - exact)


def sincos_error(
    positions: ArrayLike, inv_freq: ArrayLike, dtype_name: str, *, round_result: bool = False
) -> NDArray[np.float64]:
    """Error of ``sin`` and ``cos`` evaluated at the angle computed in a narrow format.

    Parameters
    ----------
    positions, inv_freq, dtype_name : array_like, array_like, str
        The angles ``m theta_i`` and the format they are computed in, as for
        :func:`angle_error`.
    round_result : bool, default False
        Also round the sin/cos values to ``dtype_name`` (as when they are stored in that
        format). This adds an error floor of about half an epsilon.

    Returns
    -------
    numpy.ndarray, shape (n, m), float64
        ``max(|sin(phi_hat) - sin(phi)|, |cos(phi_hat) - cos(phi)|)`` with sin/cos of
        the rounded angle evaluated in float64. Bounded by the angle error (``|sin'| <= 1``)
        and by 2.

    Notes
    -----
    ``e = max(|sin(phi_hat) - sin(phi)|, |cos(phi_hat) - cos(phi)|)``.

    Examples
    --------
    >>> float(sincos_error([2**20], [1.0], "float32")[0, 0])
    0.0
    >>> float(np.round(sincos_error([2049], [1.0], "float16")[0, 0], 6))
    0.943085
    """
    round_result = check_bool("round_result", round_result)
    name = _check_dtype_name(dtype_name)
    exact, rounded = _checked_angles(positions, inv_freq, name)
    sin_hat, cos_hat = np.sin(rounded), np.cos(rounded)
    if round_result:
        sin_hat, cos_hat = _round(sin_hat, name), _round(cos_hat, name)
    # e = max(|sin(phi_hat) - sin(phi)|, |cos(phi_hat) - cos(phi)|)
    error = np.maximum(np.abs(sin_hat - np.sin(exact)), np.abs(cos_hat - np.cos(exact)))
    return np.asarray(error, dtype=np.float64)


def float32_bits(values: ArrayLike) -> NDArray[np.int64]:
    """Return the 32 bits of each value stored as float32, the sign bit first.

    Parameters
    ----------
    values : array_like, shape (n,)
        Finite numbers; they are rounded to float32 first.

    Returns
    -------
    bits : ndarray of int64, shape (n, 32)
        Bit 0 is the sign, bits 1-8 the exponent, bits 9-31 the fraction.

    Notes
    -----
    ``u = float32(x)`` read as an unsigned 32-bit integer; bit ``k`` from the left is
    ``(u >> (31 - k)) & 1``. bfloat16 keeps bits 0-15.

    Examples
    --------
    >>> "".join(map(str, float32_bits([1.0])[0]))
    '00111111100000000000000000000000'
    """
    with np.errstate(over="ignore"):  # beyond float32's range a value is stored as +-inf
        array = np.asarray(check_array("values", values, ndim=1), dtype=np.float32)
    words = array.view(np.uint32).astype(np.int64)
    # bit k from the left = (u >> (31 - k)) & 1
    return (words[:, None] >> np.arange(31, -1, -1)[None, :]) & 1


# --------------------------------------------------------------------------- real low-precision
# arrays (ml_dtypes): bfloat16 and the two float8 formats of today's accelerators

LOW_PRECISION_NAMES = ("float64", "float32", "bfloat16", "float8_e4m3fn", "float8_e5m2")
"""Formats of :func:`to_low_precision`: NumPy's own and the ``ml_dtypes`` ones."""
ANGLE_DTYPES = ("float32", "float64")


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
    if dtype_name in ("float64", "float32"):
        info = np.finfo(dtype_name)
    else:
        import ml_dtypes

        info = ml_dtypes.finfo(_numpy_dtype(dtype_name))
    return float(info.eps), float(info.max), float(info.smallest_normal)


def low_precision_limits(dtype_name: str) -> tuple[float, float, float]:
    """Return a format's machine epsilon, largest finite value and smallest normal value.

    Parameters
    ----------
    dtype_name : {"float64", "float32", "bfloat16", "float8_e4m3fn", "float8_e5m2"}
        The format.

    Returns
    -------
    epsilon, largest, smallest_normal : float
        ``2**-p`` for ``p`` fraction bits, the largest finite value, ``2**emin``.

    Notes
    -----
    ``epsilon = 2**-p``: bfloat16 ``p = 7``, e4m3 ``p = 3`` (largest 448, no inf), e5m2
    ``p = 2`` (largest 57344, with inf). Read from ``ml_dtypes.finfo``.

    Examples
    --------
    >>> low_precision_limits("float8_e4m3fn")
    (0.125, 448.0, 0.015625)
    """
    return _finfo(check_choice("dtype_name", dtype_name, LOW_PRECISION_NAMES))


def to_low_precision(x: Any, dtype_name: str) -> NDArray[Any]:
    """Return ``x`` as a real low-precision NumPy array (``ml_dtypes``), rounded to nearest even.

    Parameters
    ----------
    x : array_like
        Finite real values (any shape), within the format's finite range.
    dtype_name : {"float64", "float32", "bfloat16", "float8_e4m3fn", "float8_e5m2"}
        The format; the three last are ``ml_dtypes`` types, which NumPy computes with
        (each operation rounds its result back to the format).

    Returns
    -------
    numpy.ndarray, same shape as ``x``, dtype ``dtype_name``
        ``fl(x)``; ``.astype(np.float64)`` gives its exact values.

    Notes
    -----
    ``fl(x)`` is the representable number nearest to ``x``, ties to even. For float32 input
    and bfloat16 it equals the bit-pattern rounding of :func:`round_to_bfloat16`. A value
    beyond the largest finite one raises a ValueError (e4m3fn would give NaN, the others inf).

    References
    ----------
    ``ml_dtypes`` (JAX / OpenXLA); Micikevicius et al., "FP8 Formats for Deep Learning",
    arXiv 2209.05433.

    Examples
    --------
    >>> to_low_precision([1.0, 3.14159, 300.0], "bfloat16")
    array([1, 3.14062, 300], dtype=bfloat16)
    >>> to_low_precision([0.3, 17.0], "float8_e4m3fn").astype(float)
    array([ 0.3125, 16.    ])
    """
    array = check_array("x", x)
    return _cast("x", array, check_choice("dtype_name", dtype_name, LOW_PRECISION_NAMES))


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
    cos = _cast("cos", _on_both_members(np.cos(phi).astype(np.float64), pairing), dtype_name)
    sin = _cast("sin", _on_both_members(np.sin(phi).astype(np.float64), pairing), dtype_name)
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


def rope_scores_at_offset(
    q: ArrayLike,
    k: ArrayLike,
    offset: int,
    positions: ArrayLike,
    inv_freq: ArrayLike,
    dtype_name: str = "bfloat16",
    *,
    pairing: str = "half",
    angle_dtype: str = "float32",
) -> NDArray[np.float64]:
    """Return RoPE scores ``<R_(m+offset) q, R_m k>`` with the rotation done in a narrow format.

    Parameters
    ----------
    q, k : array_like, shape (head_dim,)
        One query and one key (finite, within the format's range).
    offset : int
        Query position minus key position.
    positions : array_like, shape (n,)
        Key positions ``m`` (>= 0); the query sits at ``m + offset``.
    inv_freq : array_like, shape (head_dim // 2,)
        RoPE frequencies ``theta_i``.
    dtype_name : {"float64", "float32", "bfloat16", "float8_e4m3fn", "float8_e5m2"}
        Format of q, k, cos, sin and of every product and sum of the rotation.
    pairing : {"half", "interleaved"}, default "half"
        Pair layout (Hugging Face uses "half").
    angle_dtype : {"float32", "float64"}, default "float32"
        Format the angles ``m theta_i`` and their cos/sin are computed in before the cast
        (transformers: float32).

    Returns
    -------
    scores : ndarray of float64, shape (n,)
        ``s(m)``; the dot product of the rotated vectors is summed in float64 (GPUs accumulate
        in float32), so only the rotation's rounding shows.

    Notes
    -----
    In exact arithmetic ``s(m) = q^T R_(m+offset)^T R_m k = q^T R_(-offset) k`` does not depend
    on ``m``: RoPE's relative property. With ``x' = fl(fl(x cos phi) + fl(rotate(x) sin phi))``
    each rotated vector carries a rounding error of about ``eps |x|`` that changes with ``m``, and
    the angle computed in float32 is off by about ``m theta_i 2**-24``; together they make
    ``s(m)`` depend on the absolute position.

    References
    ----------
    Hugging Face ``LlamaRotaryEmbedding`` (float32 angles, cos/sin cast to the model dtype) and
    ``apply_rotary_pos_emb``; Su et al., "RoFormer", arXiv 2104.09864.

    Examples
    --------
    >>> q, k, theta = [1.0, 0.5], [0.25, 2.0], [0.1]
    >>> exact = rope_scores_at_offset(q, k, 3, [0, 10, 100], theta, "float64",
    ...                               angle_dtype="float64")
    >>> bool(np.ptp(exact) < 1e-12)
    True
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
    name = check_choice("dtype_name", dtype_name, LOW_PRECISION_NAMES)
    pairing = check_choice("pairing", pairing, PAIRINGS)
    angle_dtype = check_choice("angle_dtype", angle_dtype, ANGLE_DTYPES)
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
    queries : array_like, shape (n_queries, head_dim)
        Queries, kept exact (float64).
    keys : array_like, shape (n_keys, head_dim)
        Keys as computed (already rotated); they are stored as ``fl(k / scale)``.
    dtype_name : {"float64", "float32", "bfloat16", "float8_e4m3fn", "float8_e5m2"}
        Format of the cache.
    scale : float, default 1.0
        Per-tensor scale (> 0) of the cache: keys are divided by it before the cast and
        multiplied by it when read, as FP8 KV caches do to use the format's range.

    Returns
    -------
    scores : ndarray of float64, shape (n_queries, n_keys)
        ``Q (scale fl(K / scale))^T``, summed in float64.

    Notes
    -----
    ``s_mn = q_m . (c fl(k_n / c))``. Each stored entry has a relative error of at most
    ``eps / 2`` (e4m3: 1/16, e5m2: 1/8), so ``|s - s_exact| <= (eps / 2) sum_j |q_j k_j|``.

    References
    ----------
    vLLM documentation, "Quantized KV Cache" (FP8 E4M3 / E5M2 with per-tensor scales);
    Micikevicius et al., "FP8 Formats for Deep Learning", arXiv 2209.05433.

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
    name = check_choice("dtype_name", dtype_name, LOW_PRECISION_NAMES)
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

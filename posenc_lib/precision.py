"""Emulating float16 / bfloat16 rounding in NumPy to see angles go wrong.

Fraction bits p and smallest normal exponent emin: float16 10, -14; bfloat16 7, -126;
float32 23, -126; float64 52, -1022. bfloat16 is float32 without the low 16 bits, emulated on
``uint32`` bit patterns. NaN and inf inputs are rejected; finite values beyond a format's
range become ``+-inf``, as the hardware does.

Notebook: 08_numerical_precision.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import (
    check_array,
    check_bool,
    check_choice,
    check_float,
    check_frequencies,
    check_int,
    check_positions,
)
from posenc_lib.frequencies import angles

__all__ = ["round_to_bfloat16", "round_to_dtype", "machine_epsilon", "spacing_at",
           "rounded_angles", "angle_error", "sincos_error", "first_position_above", "float32_bits"]

_DTYPE_NAMES = ("float16", "bfloat16", "float32", "float64")
_ROUNDING_MODES = ("nearest", "truncate")
_FRACTION_BITS = {"float16": 10, "bfloat16": 7, "float32": 23, "float64": 52}
_MIN_EXPONENT = {"float16": -14, "bfloat16": -126, "float32": -126, "float64": -1022}
_HIGH_16 = np.uint32(0xFFFF0000)


def round_to_bfloat16(x: Any, *, mode: str = "nearest") -> NDArray[np.float32]:
    """Round values to bfloat16, returned as float32 (the low 16 bits zero).

    Parameters
    ----------
    x : array_like
        Finite values, first cast to float32.
    mode : {"nearest", "truncate"}, default "nearest"
        Nearest with ties to even, or toward zero.

    Returns
    -------
    numpy.ndarray, same shape as ``x``, float32
        Each value as bfloat16 stores it, exactly representable in float32.

    Notes
    -----
    With ``u`` the float32 bit pattern as uint32, truncate is ``u & 0xFFFF0000`` and nearest is
    ``(u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000`` (float64 input is rounded twice).

    Examples
    --------
    >>> round_to_bfloat16([1 + 3 * 2**-9, 3.14159265])
    array([1.0078125, 3.140625 ], dtype=float32)
    """
    array = check_array("x", x)
    mode = check_choice("mode", mode, _ROUNDING_MODES)
    with np.errstate(over="ignore"):
        single = np.array(array, dtype=np.float32)
    bits = single.view(np.uint32)
    if mode == "nearest":
        # u + 0x7FFF + ((u >> 16) & 1): round half to even on bit 16
        bits = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    # keep the high 16 bits: u & 0xFFFF0000
    bits = bits & _HIGH_16
    return np.asarray(bits).view(np.float32)


def round_to_dtype(x: Any, dtype_name: str) -> NDArray[np.float64]:
    """The value of ``x`` after rounding to a storage format, returned as float64.

    Parameters
    ----------
    x : array_like
        The exact values to store.
    dtype_name : {"float16", "bfloat16", "float32", "float64"}
        The storage format they are rounded to.

    Returns
    -------
    numpy.ndarray, same shape as ``x``, float64
        The value each element keeps once stored, widened back to float64 without change.

    Notes
    -----
    ``fl(x)``, the nearest representable number (ties to even): ``|fl(x) - x| <= spacing / 2``.

    Examples
    --------
    >>> [float(v) for v in round_to_dtype([2049, 2051, 0.1], "float16")]
    [2048.0, 2052.0, 0.0999755859375]
    """
    array = check_array("x", x)
    if check_choice("dtype_name", dtype_name, _DTYPE_NAMES) == "bfloat16":
        return round_to_bfloat16(array).astype(np.float64)
    with np.errstate(over="ignore"):
        return np.asarray(array, dtype=np.float64).astype(dtype_name).astype(np.float64)


def machine_epsilon(dtype_name: str) -> float:
    """Gap between 1 and the next representable number in a format.

    Parameters
    ----------
    dtype_name : {"float16", "bfloat16", "float32", "float64"}
        The format.

    Returns
    -------
    float
        ``eps``, the spacing of the format's numbers in ``[1, 2)``.

    Notes
    -----
    ``eps = 2**(-p)``.

    Examples
    --------
    >>> machine_epsilon("bfloat16")
    0.0078125
    """
    dtype_name = check_choice("dtype_name", dtype_name, _DTYPE_NAMES)
    # eps = 2 ** -p
    return 2.0 ** -_FRACTION_BITS[dtype_name]


def spacing_at(x: Any, dtype_name: str) -> NDArray[np.float64]:
    """Gap between adjacent representable numbers of a format at magnitude ``|x|``.

    Parameters
    ----------
    x : array_like
        The magnitudes at which the gap is measured (the sign is ignored).
    dtype_name : {"float16", "bfloat16", "float32", "float64"}
        The storage format.

    Returns
    -------
    numpy.ndarray, same shape as ``x``, float64
        The gap between consecutive numbers of the format near ``|x|`` (in the power-of-two
        range holding ``|x|``; below the smallest normal number, the subnormal gap).

    Notes
    -----
    ``spacing(x) = 2**(max(floor(log2 |x|), e_min) - p)``; storing ``x`` errs by half of it.

    Examples
    --------
    >>> [float(v) for v in spacing_at([1.0, 2048.0, 3000.0], "float16")]
    [0.0009765625, 2.0, 2.0]
    """
    array = np.abs(check_array("x", x).astype(np.float64))
    dtype_name = check_choice("dtype_name", dtype_name, _DTYPE_NAMES)
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
        if not np.all(np.isfinite(round_to_dtype(values, dtype_name))):
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
        The positions ``m``, exact before rounding.
    inv_freq : array_like, shape (n_pairs,)
        Each pair's frequency ``theta_i``, exact before rounding.
    dtype_name : {"float16", "bfloat16", "float32", "float64"}
        Format of the position, the frequency and the product.

    Returns
    -------
    angle : ndarray of float64, shape (n, n_pairs)
        ``inf`` where the format overflows (float16 past 65504).

    Notes
    -----
    ``phi_hat = fl(fl(m) fl(theta_i))``, the float64 product of two narrow values exact.

    Examples
    --------
    >>> rounded_angles([1857], [0.5623413251903491], "float16")
    array([[1045.]])
    """
    pos = check_positions("positions", positions)
    theta = check_array("inv_freq", inv_freq, ndim=1)
    name = check_choice("dtype_name", dtype_name, _DTYPE_NAMES)
    with np.errstate(over="ignore", invalid="ignore"):
        product = np.multiply.outer(round_to_dtype(pos, name), round_to_dtype(theta, name))
    fits = np.isfinite(product)
    # phi_hat = fl(fl(m) fl(theta_i)), inf where the format overflows
    return np.where(fits, round_to_dtype(np.where(fits, product, 0.0), name), np.inf)


def angle_error(positions: ArrayLike, inv_freq: ArrayLike, dtype_name: str) -> NDArray[np.float64]:
    """Return the absolute error of the angle ``m theta_i`` computed in a narrow format.

    Parameters
    ----------
    positions, inv_freq, dtype_name : array_like, array_like, str
        As for :func:`rounded_angles`.

    Returns
    -------
    numpy.ndarray, shape (n, n_pairs), float64
        ``|phi_hat - phi|`` in radians, one row per position and one column per pair.

    Notes
    -----
    ``e = |phi_hat - phi|``, ``phi = m theta_i``; it grows roughly like ``m theta_i eps``.

    Examples
    --------
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
        As for :func:`rounded_angles`.
    round_result : bool, default False
        Also round the sin/cos values to ``dtype_name`` (an error floor of ~eps/2).

    Returns
    -------
    numpy.ndarray, shape (n, n_pairs), float64

    Notes
    -----
    ``e = max(|sin(phi_hat) - sin(phi)|, |cos(phi_hat) - cos(phi)|)``, sin/cos evaluated in
    float64; bounded by the angle error and by 2.

    Examples
    --------
    >>> float(sincos_error([2**20], [1.0], "float32")[0, 0])
    0.0
    >>> float(np.round(sincos_error([2049], [1.0], "float16")[0, 0], 6))
    0.943085
    """
    round_result = check_bool("round_result", round_result)
    exact, rounded = _checked_angles(positions, inv_freq, dtype_name)  # checks dtype_name too
    sin_hat, cos_hat = np.sin(rounded), np.cos(rounded)
    if round_result:
        sin_hat, cos_hat = round_to_dtype(sin_hat, dtype_name), round_to_dtype(cos_hat, dtype_name)
    # e = max(|sin(phi_hat) - sin(phi)|, |cos(phi_hat) - cos(phi)|)
    error = np.maximum(np.abs(sin_hat - np.sin(exact)), np.abs(cos_hat - np.cos(exact)))
    return np.asarray(error, dtype=np.float64)


def first_position_above(inv_freq: ArrayLike, dtype_name: str, threshold: float, stop: int, *,
                         error_function: Callable[..., Any] | None = None) -> int | None:
    """Return the first position ``0 <= m < stop`` whose sin/cos error exceeds ``threshold``.

    Parameters
    ----------
    inv_freq, dtype_name : array_like, shape (n_pairs,), and str
        As for :func:`rounded_angles`.
    threshold, stop : float, int
        Error to exceed (> 0); positions scanned, ``0 .. stop - 1``, every one.
    error_function : callable, optional
        ``f(positions, inv_freq, dtype_name)``, default :func:`sincos_error`.

    Returns
    -------
    int or None
        None if no position exceeds it.

    Notes
    -----
    ``|sin a - sin b| <= |a - b|``, so only positions whose angle error exceeds ``threshold``
    are passed to ``error_function``; three roundings bound that error by ``((1 + u)^3 - 1) m
    theta_i`` (``u = eps / 2``), so pairs below it over a chunk are skipped there.

    Examples
    --------
    >>> first_position_above([1.0, 0.1], "float16", 0.1, 4096)
    2049
    """
    theta = check_frequencies("inv_freq", inv_freq)
    name = check_choice("dtype_name", dtype_name, _DTYPE_NAMES)
    limit = check_float("threshold", threshold, greater_than=0.0)
    end = check_int("stop", stop)
    step = 2**18  # positions evaluated at once, at most
    error_function = sincos_error if error_function is None else error_function
    u = machine_epsilon(name) / 2
    start, size = 0, min(step, 1024)
    while start < end:
        positions = np.arange(start, min(start + size, end))
        start, size = start + size, min(2 * size, step)   # small chunks first: early answers
        # |phi_hat - phi| <= ((1 + u)^3 - 1) m theta_i: pairs that cannot exceed the threshold
        live = theta[((1 + u) ** 3 - 1) * positions[-1] * theta > limit]
        if live.size == 0:
            continue
        stored = round_to_dtype(positions, name)
        beyond = np.zeros(positions.shape, dtype=bool)
        with np.errstate(over="ignore", invalid="ignore"):
            for pair in live:   # one pair at a time: short rows reduce slowly in NumPy
                # |fl(fl(m) fl(theta_i)) - m theta_i|, inf where the format overflows
                phi_hat = round_to_dtype(stored * round_to_dtype(pair, name), name)
                beyond |= np.abs(phi_hat - positions * pair) > limit
        candidates = positions[beyond]
        if candidates.size == 0:
            continue
        above = np.asarray(error_function(candidates, live, name)).max(axis=1) > limit
        if above.any():
            return int(candidates[np.argmax(above)])
    return None


def float32_bits(values: ArrayLike) -> NDArray[np.int64]:
    """Return the 32 bits of each value stored as float32, the sign bit first.

    Parameters
    ----------
    values : array_like, shape (n,)
        Finite numbers, rounded to float32 first.

    Returns
    -------
    bits : ndarray of int64, shape (n, 32)
        Bit 0 is the sign, bits 1-8 the exponent, bits 9-31 the fraction.

    Notes
    -----
    With ``u = float32(x)`` as uint32, bit ``k`` from the left is ``(u >> (31 - k)) & 1``.

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

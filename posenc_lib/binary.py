"""Counting in binary: the intuition behind sinusoidal position encodings.

Bit tables put the most significant bit first (5 in four bits is ``0 1 0 1``), so column ``j``
of an ``n_bits`` table holds bit ``k = n_bits - 1 - j``.

Notebook: 01_binary_counting.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_int, check_positions

__all__ = ["bits_needed", "binary_table", "bit_periods", "bit_wave", "smooth_bit_wave",
           "hamming_distance", "hamming_matrix"]

_MAX_BITS = 62  # positions and periods stay exact in int64


def bits_needed(n_positions: int) -> int:
    """Fewest bits that can write every position ``0 .. n_positions - 1`` (at least 1).

    Parameters
    ----------
    n_positions : int
        Number of positions to write, at least 1.

    Returns
    -------
    int
        The width ``n_bits`` of the smallest binary table that holds them all.

    Notes
    -----
    ``n_bits = max(1, ceil(log2(n_positions)))``.

    Examples
    --------
    >>> bits_needed(16), bits_needed(17), bits_needed(1)
    (4, 5, 1)
    """
    n_positions = check_int("n_positions", n_positions)
    return max(1, (n_positions - 1).bit_length())


def binary_table(n_positions: int, n_bits: int | None = None) -> NDArray[np.int64]:
    """Positions ``0 .. n_positions - 1`` written in binary, one row per position.

    Parameters
    ----------
    n_positions : int
        Number of positions (rows), at least 1.
    n_bits : int or None, default None
        Number of bit columns, up to 62; None: :func:`bits_needed`.

    Returns
    -------
    numpy.ndarray, shape (n_positions, n_bits), int64
        Row ``p`` holds the bits of ``p``, 0 or 1, most significant bit first.

    Notes
    -----
    ``table[p, j] = floor(p / 2**k) mod 2`` with ``k = n_bits - 1 - j``.

    Examples
    --------
    >>> binary_table(3)
    array([[0, 0],
           [0, 1],
           [1, 0]])
    """
    needed = bits_needed(n_positions)
    n_bits = needed if n_bits is None else check_int("n_bits", n_bits, maximum=_MAX_BITS)
    if n_bits < needed:
        raise ValueError(f"n_bits must be >= {needed} to write position {n_positions - 1}; "
                         f"got {n_bits}")
    positions = np.arange(n_positions, dtype=np.int64)
    shifts = np.arange(n_bits - 1, -1, -1, dtype=np.int64)
    # table[p, j] = (p >> k) & 1 with k = n_bits - 1 - j
    return (positions[:, None] >> shifts[None, :]) & 1


def bit_periods(n_bits: int) -> NDArray[np.int64]:
    """Period of every column of an ``n_bits`` binary table, in the written order.

    Parameters
    ----------
    n_bits : int
        Number of columns of the table, the most significant bit first.

    Returns
    -------
    numpy.ndarray, shape (n_bits,), int64
        The number of positions after which each column repeats.

    Notes
    -----
    ``T_k = 2**(k + 1)`` for column ``j``'s bit ``k = n_bits - 1 - j``.

    Examples
    --------
    >>> bit_periods(4)
    array([16,  8,  4,  2])
    """
    n_bits = check_int("n_bits", n_bits, maximum=_MAX_BITS - 1)
    k = np.arange(n_bits - 1, -1, -1, dtype=np.int64)
    # T_k = 2 ** (k + 1)
    return np.left_shift(np.int64(2), k)


def bit_wave(positions: Any, bit: int) -> NDArray[np.float64]:
    """Bit ``k`` as a square wave of a (possibly fractional) position.

    Parameters
    ----------
    positions : array_like, shape (n,)
        Where the wave is read: integer or fractional positions.
    bit : int
        Bit index ``k >= 0`` (0 is the fastest bit).

    Returns
    -------
    numpy.ndarray of 0.0 and 1.0, shape (n,)
        The value of bit ``k`` at each position (a fractional position takes its floor's).

    Notes
    -----
    ``b_k(x) = floor(x / 2**k) mod 2``.

    Examples
    --------
    >>> bit_wave([0, 1, 2, 3, 4, 4.5], bit=1)
    array([0., 0., 1., 1., 0., 0.])
    """
    positions = check_positions("positions", positions).astype(np.float64)
    bit = check_int("bit", bit, minimum=0, maximum=_MAX_BITS)
    # b_k(x) = floor(x / 2^k) mod 2
    return np.asarray(np.mod(np.floor(positions / 2.0**bit), 2.0), dtype=np.float64)


def smooth_bit_wave(positions: Any, bit: int) -> NDArray[np.float64]:
    """The sinusoidal cousin of bit ``k``: same period, values in [0, 1].

    Parameters
    ----------
    positions, bit : array_like, int
        As for :func:`bit_wave`.

    Returns
    -------
    numpy.ndarray, shape (n,), float64
        A sinusoid of period ``2**(k + 1)`` between 0 and 1 at each position.

    Notes
    -----
    ``s_k(x) = 1/2 - 1/2 sin(pi (x + 1/2) / 2**k)``; ``round(s_k(p))`` is bit ``k`` of ``p``.

    Examples
    --------
    >>> np.round(smooth_bit_wave([0, 1, 2, 3], bit=1), 6)
    array([0.146447, 0.146447, 0.853553, 0.853553])
    """
    positions = check_positions("positions", positions).astype(np.float64)
    bit = check_int("bit", bit, minimum=0, maximum=_MAX_BITS)
    # phase = pi (x + 1/2) / 2^k
    with np.errstate(over="ignore"):
        phase = np.pi * (positions + 0.5) / 2.0**bit
    if not np.all(np.isfinite(phase)):
        raise ValueError("positions must be small enough that pi * (position + 0.5) is finite")
    # s_k(x) = 1/2 - 1/2 sin(phase)
    return np.asarray(0.5 - 0.5 * np.sin(phase), dtype=np.float64)


def hamming_distance(a: int, b: int) -> int:
    """Number of bits in which two non-negative integer positions differ.

    Parameters
    ----------
    a, b : int
        The two positions, non-negative integers.

    Returns
    -------
    int
        How many bits differ between their binary codes.

    Notes
    -----
    ``H(a, b) = popcount(a XOR b)``.

    Examples
    --------
    >>> hamming_distance(7, 8), hamming_distance(7, 6)
    (4, 1)
    """
    a = check_int("a", a, minimum=0)
    b = check_int("b", b, minimum=0)
    # H(a, b) = popcount(a XOR b)
    return bin(a ^ b).count("1")


def hamming_matrix(n_positions: int) -> NDArray[np.int64]:
    """Hamming distance between every pair of positions ``0 .. n_positions - 1``.

    Parameters
    ----------
    n_positions : int
        Number of positions, counted from 0.

    Returns
    -------
    numpy.ndarray, shape (n_positions, n_positions), int64
        The number of bits in which positions ``a`` (row) and ``b`` (column) differ.

    Notes
    -----
    ``H[a, b] = popcount(a XOR b)``.

    Examples
    --------
    >>> hamming_matrix(3)
    array([[0, 1, 1],
           [1, 0, 2],
           [1, 2, 0]])
    """
    n_bits = bits_needed(n_positions)
    positions = np.arange(n_positions, dtype=np.int64)
    xor = positions[:, None] ^ positions[None, :]
    counts = np.zeros_like(xor)
    for k in range(n_bits):
        # H_ab = sum_k ((a XOR b) >> k) & 1
        counts += (xor >> k) & 1
    return counts

"""The formulas that the sinusoidal encoding and RoPE share: frequencies, wavelengths, angles.

Pair ``i`` sits in columns ``(2i, 2i+1)`` (interleaved) or ``(i, i + d/2)`` (split, GPT-NeoX).
References: Vaswani et al. 2017, section 3.5; Su et al., "RoFormer", arXiv 2104.09864.

Notebooks: 02_sinusoidal_formula and 05_rope.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import (
    check_array,
    check_even,
    check_float,
    check_frequencies,
    check_int,
    check_positions,
)

__all__ = ["inverse_frequencies", "wavelengths", "turns_in_context", "angles", "split_permutation"]


def inverse_frequencies(dim: int, base: float = 10000.0) -> NDArray[np.float64]:
    """Return the frequency of every pair, ``theta_i = base**(-2i/dim)``.

    Parameters
    ----------
    dim, base : int, float, default base 10000.0
        ``d_model`` or RoPE's rotary ``head_dim`` (even); ``rope_theta`` (> 1).

    Returns
    -------
    inv_freq : ndarray of float64, shape (dim // 2,)
        Radians per position of each pair, from 1 (pair 0) down towards ``1/base``.

    Notes
    -----
    ``theta_i = base**(-2i/d)`` for ``i = 0 .. d/2 - 1`` (Hugging Face's ``inv_freq``).

    Examples
    --------
    >>> inverse_frequencies(8, 10000.0)
    array([1.   , 0.1  , 0.01 , 0.001])
    """
    dim = check_even("dim", dim)
    base = check_float("base", base, greater_than=1.0)
    # theta_i = base^(-2i/d)
    return np.power(base, -np.arange(0, dim, 2, dtype=np.float64) / dim)


def wavelengths(inv_freq: ArrayLike) -> NDArray[np.float64]:
    """Return the wavelength of every pair, ``lambda_i = 2 pi / theta_i``, in positions.

    Parameters
    ----------
    inv_freq : array_like, shape (n_pairs,)
        Each pair's frequency ``theta_i``, radians per position (positive).

    Returns
    -------
    wavelength : ndarray of float64, shape (n_pairs,)
        The positions pair ``i`` needs to make one full turn (large for slow pairs).

    Notes
    -----
    ``lambda_i = 2 pi / theta_i``.

    Examples
    --------
    >>> np.round(wavelengths([1.0, 0.01]), 4)
    array([  6.2832, 628.3185])
    """
    theta = check_frequencies("inv_freq", inv_freq)
    if np.any(theta < 2.0 * np.pi / np.finfo(np.float64).max):
        raise ValueError(f"inv_freq must be >= {2.0 * np.pi / np.finfo(np.float64).max:.3g} so "
                         f"that the wavelength 2 pi / theta is finite; got min {theta.min():.3g}")
    # lambda_i = 2 pi / theta_i
    return 2.0 * np.pi / theta


def turns_in_context(inv_freq: ArrayLike, length: int) -> NDArray[np.float64]:
    """Return how many full turns each pair makes in ``length`` positions, ``r_i = L / lambda_i``.

    Parameters
    ----------
    inv_freq, length : array_like, shape (n_pairs,), and int
        Each pair's frequency ``theta_i`` (positive); the context length ``L`` in positions.

    Returns
    -------
    turns : ndarray of float64, shape (n_pairs,)
        The number of full turns (possibly fractional) each pair makes over ``L`` positions.

    Notes
    -----
    ``r_i = L / lambda_i = L theta_i / (2 pi)``; pairs with ``r_i < 1`` never complete a turn.

    Examples
    --------
    >>> np.round(turns_in_context([1.0, 0.001], 4096), 4)
    array([651.8986,   0.6519])
    """
    theta = check_frequencies("inv_freq", inv_freq)
    length = check_int("length", length)
    # r_i = L / lambda_i = L theta_i / (2 pi)
    return length * theta / (2.0 * np.pi)


def angles(positions: ArrayLike, inv_freq: ArrayLike) -> NDArray[np.float64]:
    """Return the angle of every pair at every position, ``m * theta_i``, in float64.

    Parameters
    ----------
    positions, inv_freq : array_like, shapes (n,) and (n_pairs,)
        The positions ``m``; each pair's frequency ``theta_i``, radians per position.

    Returns
    -------
    angle : ndarray of float64, shape (n, n_pairs)
        The angle of pair ``i`` (column) at position ``m`` (row), in radians, not wrapped.

    Notes
    -----
    ``phi_(m,i) = m theta_i``, formed in float64 whatever the inputs are.

    Examples
    --------
    >>> angles([0, 1, 2], [1.0, 0.01])
    array([[0.  , 0.  ],
           [1.  , 0.01],
           [2.  , 0.02]])
    """
    pos = check_positions("positions", positions).astype(np.float64, copy=False)
    theta = check_array("inv_freq", inv_freq, ndim=1).astype(np.float64, copy=False)
    if theta.size == 0:
        raise ValueError("inv_freq must have at least one entry (one pair); got shape (0,)")
    with np.errstate(over="ignore"):
        largest = np.max(np.abs(pos), initial=0.0) * np.max(np.abs(theta))
    if largest == np.inf:
        raise ValueError(f"positions * inv_freq must stay finite in float64; got |positions| up to "
                         f"{np.max(np.abs(pos)):g} and |inv_freq| up to {np.max(np.abs(theta)):g}")
    # phi[m, i] = m * theta_i
    return np.multiply.outer(pos, theta)


def split_permutation(dim: int) -> NDArray[np.intp]:
    """Return the column order that turns the interleaved layout into the split layout.

    Parameters
    ----------
    dim : int
        Width of the vectors (even): ``dim / 2`` pairs.

    Returns
    -------
    perm : ndarray of int, shape (dim,)
        The interleaved column that lands at each split column.

    Notes
    -----
    ``perm = [0, 2, ..., d-2, 1, 3, ..., d-1]``: ``split = interleaved[..., perm]``.

    Examples
    --------
    >>> split_permutation(8)
    array([0, 2, 4, 6, 1, 3, 5, 7])
    """
    dim = check_even("dim", dim)
    # first members of the pairs, then second members
    return np.concatenate([np.arange(0, dim, 2), np.arange(1, dim, 2)]).astype(np.intp)

"""The formulas that the sinusoidal encoding and RoPE share: frequencies, wavelengths, angles.

Symbols, the same in every module, notebook and figure of the course:

- ``theta_i = base**(-2i/d)`` is the *frequency* of pair ``i`` (radians per position);
- ``m * theta_i`` is the *angle* of pair ``i`` at position ``m``;
- ``lambda_i = 2 pi / theta_i`` is the *wavelength* of pair ``i`` (positions per full turn);
- ``r_i = L / lambda_i`` is the number of full turns pair ``i`` makes in ``L`` positions.

Pairs are laid out in one of two ways: *interleaved*, pair ``i`` in columns ``(2i, 2i+1)``, as
in the paper and in RoFormer; or *split*, pair ``i`` in columns ``(i, i + d/2)``, as in
tensor2tensor's [sin | cos] encoding and in GPT-NeoX / Hugging Face RoPE.
:func:`split_permutation` takes one to the other.

The sinusoidal encoding and RoPE both build on these functions.

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

__all__ = [
    "inverse_frequencies",
    "wavelengths",
    "turns_in_context",
    "angles",
    "split_permutation",
]


def inverse_frequencies(dim: int, base: float = 10000.0) -> NDArray[np.float64]:
    """Return the frequency of every pair, ``theta_i = base**(-2i/dim)``.

    Parameters
    ----------
    dim : int
        ``d_model`` of the sinusoidal encoding, or the rotary ``head_dim`` of RoPE; even, >= 2.
    base : float, default 10000.0
        The base of the geometric progression (``rope_theta`` in model configs), > 1.

    Returns
    -------
    inv_freq : ndarray of float64, shape (dim // 2,)
        Radians per position, from ``theta_0 = 1`` down to ``base**(-(dim-2)/dim)``.

    Notes
    -----
    ``theta_i = base**(-2i/d) = exp(-(2i/d) ln base)`` for ``i = 0 .. d/2 - 1``. A large
    ``theta_i`` turns fast (short wavelength); a small one turns slowly. The paper writes it as
    the "division term" ``1 / base**(2i/d)``; Hugging Face calls the array ``inv_freq``.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, section 3.5; Su et al., "RoFormer",
    arXiv 2104.09864, eq. (15).

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
        Frequencies ``theta_i`` > 0, for example from :func:`inverse_frequencies`.

    Returns
    -------
    wavelength : ndarray of float64, shape (n_pairs,)
        Positions per full turn of each pair.

    Notes
    -----
    ``lambda_i = 2 pi / theta_i``. With the default frequencies the wavelengths grow
    geometrically from ``2 pi`` to about ``2 pi base``.

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
    inv_freq : array_like, shape (n_pairs,)
        Frequencies ``theta_i`` > 0.
    length : int
        A context length ``L`` >= 1 (for example the trained length).

    Returns
    -------
    turns : ndarray of float64, shape (n_pairs,)

    Notes
    -----
    ``r_i = L / lambda_i = L theta_i / (2 pi)``. A pair with ``r_i < 1`` never completes a turn
    within ``L``, so positions past ``L`` show it angles it has never seen. YaRN's
    ``beta_fast`` and ``beta_slow`` are thresholds on ``r``.

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
    positions : array_like, shape (n,)
        Positions ``m``: integers, or floats for interpolated positions; may be negative.
    inv_freq : array_like, shape (n_pairs,)
        Frequencies ``theta_i``.

    Returns
    -------
    angle : ndarray of float64, shape (n, n_pairs)
        ``angle[m, i] = positions[m] * inv_freq[i]``.

    Notes
    -----
    ``phi_(m,i) = m theta_i``. The product is formed in float64 whatever the inputs are, so
    large positions keep their precision before any cast (notebook 08).

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
        Number of columns, even and >= 2.

    Returns
    -------
    perm : ndarray of int, shape (dim,)
        ``[0, 2, 4, ..., dim-2, 1, 3, ..., dim-1]``.

    Notes
    -----
    Interleaved pair ``i`` sits in columns ``(2i, 2i+1)``; split pair ``i`` in ``(i, i + d/2)``.
    So ``split = interleaved[..., perm]`` and ``interleaved = split[..., np.argsort(perm)]``.
    It maps the paper's sinusoidal encoding onto tensor2tensor's [sin | cos] layout, and Meta's
    interleaved RoPE weights onto Hugging Face's ``rotate_half`` layout.

    Examples
    --------
    >>> split_permutation(8)
    array([0, 2, 4, 6, 1, 3, 5, 7])
    """
    dim = check_even("dim", dim)
    # first members of the pairs, then second members
    return np.concatenate([np.arange(0, dim, 2), np.arange(1, dim, 2)]).astype(np.intp)

"""The shift operator M_k: a shift by k positions of the sinusoidal encoding is a rotation.

A pair is ordered as in the paper, ``p(t) = [sin(theta t), cos(theta t)]``, so ``M_k`` turns it
clockwise by ``theta k``. Proof: A. Kazemnejad, "Transformer Architecture: The Positional
Encoding", 2019.

Notebook: 04_rotation_proof.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_array, check_even, check_float
from posenc_lib.frequencies import inverse_frequencies

__all__ = ["rotation_matrix", "pair_shift_matrix", "shift_matrix", "fit_linear_map"]


def rotation_matrix(angle: float) -> NDArray[np.float64]:
    """Return the counter-clockwise rotation of the plane by ``angle`` radians.

    Parameters
    ----------
    angle : float
        The turn, in radians (positive is counter-clockwise).

    Returns
    -------
    R : ndarray of float64, shape (2, 2)
        The matrix that turns a column vector ``(x, y)`` by ``angle``.

    Notes
    -----
    ``R(a) = [[cos a, -sin a], [sin a, cos a]]``.

    Examples
    --------
    >>> np.round(rotation_matrix(np.pi / 2), 6) + 0.0
    array([[ 0., -1.],
           [ 1.,  0.]])
    """
    angle = check_float("angle", angle)
    c, s = np.cos(angle), np.sin(angle)
    # R = [[cos a, -sin a], [sin a, cos a]]
    return np.array([[c, -s], [s, c]], dtype=np.float64)


def pair_shift_matrix(k: float, theta: float) -> NDArray[np.float64]:
    """Return the 2x2 matrix that shifts one (sin, cos) pair of frequency ``theta`` by ``k``.

    Parameters
    ----------
    k, theta : float
        Offset in positions (negative allowed); frequency.

    Returns
    -------
    M_k : ndarray of float64, shape (2, 2)
        The matrix that takes the pair's (sin, cos) at position ``t`` to the one at ``t + k``.

    Notes
    -----
    ``M_k = [[cos(theta k), sin(theta k)], [-sin(theta k), cos(theta k)]] = R(-theta k)``.

    Examples
    --------
    >>> t, k, theta = 2.0, 3.0, 0.5
    >>> pair = np.array([np.sin(theta * t), np.cos(theta * t)])
    >>> shifted = pair_shift_matrix(k, theta) @ pair
    >>> bool(np.allclose(shifted, [np.sin(theta * (t + k)), np.cos(theta * (t + k))]))
    True
    """
    k = check_float("k", k)
    theta = check_float("theta", theta)
    if not np.isfinite(theta * k):
        raise ValueError(f"theta * k must be finite; got theta={theta:g}, k={k:g}")
    # M_k = R(-theta k) = [[cos(theta k), sin(theta k)], [-sin(theta k), cos(theta k)]]
    return rotation_matrix(-theta * k)


def shift_matrix(k: float, d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    """Return the block-diagonal shift operator of a whole interleaved encoding vector.

    Parameters
    ----------
    k, d_model, base : float, int, float (default 10000.0)
        Offset in positions (negative allowed); model width (even); frequency base (> 1).

    Returns
    -------
    M_k : ndarray of float64, shape (d_model, d_model)
        One :func:`pair_shift_matrix` per pair on the diagonal: ``M_k PE(t) = PE(t + k)``.

    Notes
    -----
    ``M_k = diag(M_k^(0), ..., M_k^(d/2-1))`` with blocks ``pair_shift_matrix(k, theta_i)``, so
    ``M_k PE(t) = PE(t + k)``.

    Examples
    --------
    >>> from posenc_lib.sinusoidal import sinusoidal_encoding
    >>> pe = sinusoidal_encoding(10, 8)
    >>> bool(np.allclose(shift_matrix(3, 8) @ pe[2], pe[5]))
    True
    """
    k = check_float("k", k)
    theta = inverse_frequencies(check_even("d_model", d_model), base)
    c, s = np.cos(theta * k), np.sin(theta * k)
    matrix = np.zeros((d_model, d_model), dtype=np.float64)
    even = np.arange(0, d_model, 2)
    # block i = [[cos(theta_i k), sin(theta_i k)], [-sin(theta_i k), cos(theta_i k)]]
    matrix[even, even] = c
    matrix[even, even + 1] = s
    matrix[even + 1, even] = -s
    matrix[even + 1, even + 1] = c
    return matrix


def fit_linear_map(inputs: Any, targets: Any) -> tuple[NDArray[np.float64], float]:
    """Return the least-squares linear map ``M`` with ``targets ≈ inputs @ M.T``.

    Parameters
    ----------
    inputs : array_like, shape (n, a)
        One input vector per row.
    targets : array_like, shape (n, b)
        The vector each input row should be mapped to, row for row.

    Returns
    -------
    matrix, residual : ndarray of float64, shape (b, a), and float
        Minimum-norm when underdetermined; the root-mean-square error.

    Notes
    -----
    ``M = argmin_M ||X M^T - Y||_F^2``, ``residual = sqrt(||X M^T - Y||_F^2 / (n b))``.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> m, res = fit_linear_map(x, x @ np.array([[0.0, 2.0], [3.0, 0.0]]).T)
    >>> np.round(m, 6) + 0.0, round(res, 6)
    (array([[0., 2.],
           [3., 0.]]), 0.0)
    """
    x = check_array("inputs", inputs, ndim=2).astype(np.float64, copy=False)
    y = check_array("targets", targets, ndim=2).astype(np.float64, copy=False)
    if y.shape[0] != x.shape[0]:
        raise ValueError(f"targets must have as many rows as inputs ({x.shape[0]}); got shape "
                         f"{y.shape}")
    if x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(f"inputs must have at least one row and column; got shape {x.shape}")
    with np.errstate(over="ignore", invalid="ignore"):
        solution, *_ = np.linalg.lstsq(x, y, rcond=None)
        # residual = sqrt(mean((X M^T - Y)^2)), with M^T = solution
        residual = float(np.sqrt(np.mean((x @ solution - y) ** 2)))
    if not (np.isfinite(residual) and np.isfinite(solution).all()):
        raise ValueError("inputs or targets values are too large: the fit overflows float64")
    return np.asarray(solution.T, dtype=np.float64), residual



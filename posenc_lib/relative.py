"""Relative position from absolute sinusoids: the shift operator M_k and least-squares fits.

Introduced in notebooks 03_properties and 04_rotation_proof.

Sign convention of the course. A (sin, cos) pair is ordered as in the paper,
``p(t) = [sin(w t), cos(w t)]``. The angle-addition formulas give

    sin(w(t+k)) =  cos(wk) sin(wt) + sin(wk) cos(wt)
    cos(w(t+k)) = -sin(wk) sin(wt) + cos(wk) cos(wt)

so the shift by ``k`` positions is

    M_k = [[ cos(wk), sin(wk)],
           [-sin(wk), cos(wk)]]        with  M_k @ p(t) = p(t + k).

With this (sin, cos) ordering ``M_k`` is the standard counter-clockwise rotation by ``-wk``,
i.e. a CLOCKWISE rotation by ``wk``: the point ``(sin, cos)`` walks clockwise. Texts that order a
pair as ``(cos, sin)`` (the unit-circle and complex-number picture, RoPE) get the usual
counter-clockwise matrix ``[[cos, -sin], [sin, cos]]`` instead. Both are the same rotation of the
same circle seen with the two axes swapped; only the ordering differs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_array, check_float
from posenc_lib.sinusoidal import angles, frequencies

__all__ = [
    "rotation_matrix",
    "pair_shift_matrix",
    "shift_matrix",
    "similarity_matrix",
    "offset_similarity",
    "fit_linear_map",
    "fit_position_probe",
]


def rotation_matrix(angle: float) -> NDArray[np.float64]:
    """Standard counter-clockwise rotation of the plane by ``angle`` radians.

    Introduced in notebook 04_rotation_proof.

    Parameters
    ----------
    angle : float
        Rotation angle in radians (finite).

    Returns
    -------
    numpy.ndarray, shape (2, 2), float64

    Notes
    -----
    .. math:: R(\\alpha) = \\begin{bmatrix} \\cos\\alpha & -\\sin\\alpha \\\\
              \\sin\\alpha & \\cos\\alpha \\end{bmatrix}

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


def pair_shift_matrix(k: float, omega: float) -> NDArray[np.float64]:
    """The 2x2 matrix that shifts one (sin, cos) pair of frequency ``omega`` by ``k`` positions.

    Introduced in notebook 04_rotation_proof.

    Parameters
    ----------
    k : float
        Offset in positions (any finite real, negative allowed).
    omega : float
        Angular frequency of the pair (finite).

    Returns
    -------
    numpy.ndarray, shape (2, 2), float64
        ``M_k`` with ``M_k @ [sin(w t), cos(w t)] == [sin(w(t+k)), cos(w(t+k))]``.
        It does not depend on ``t``. Equal to ``rotation_matrix(-omega * k)``.

    Notes
    -----
    .. math:: M_k = \\begin{bmatrix} \\cos\\omega k & \\sin\\omega k \\\\
              -\\sin\\omega k & \\cos\\omega k \\end{bmatrix}

    References
    ----------
    A. Kazemnejad, "Transformer Architecture: The Positional Encoding", 2019 (the proof).

    Examples
    --------
    >>> t, k, w = 2.0, 3.0, 0.5
    >>> pair = np.array([np.sin(w * t), np.cos(w * t)])
    >>> shifted = pair_shift_matrix(k, w) @ pair
    >>> bool(np.allclose(shifted, [np.sin(w * (t + k)), np.cos(w * (t + k))]))
    True
    """
    k = check_float("k", k)
    omega = check_float("omega", omega)
    if not np.isfinite(omega * k):
        raise ValueError(f"omega * k must be finite; got omega={omega:g}, k={k:g}")
    c, s = np.cos(omega * k), np.sin(omega * k)
    # M_k = [[cos wk, sin wk], [-sin wk, cos wk]]
    return np.array([[c, s], [-s, c]], dtype=np.float64)


def shift_matrix(k: float, d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    """Block-diagonal shift operator for the whole interleaved encoding vector.

    Introduced in notebook 04_rotation_proof.

    Parameters
    ----------
    k : float
        Offset in positions (any finite real, negative allowed).
    d_model : int
        Model width, even and >= 2.
    base : float, default 10000.0
        Base of the frequencies, > 1.

    Returns
    -------
    numpy.ndarray, shape (d_model, d_model), float64
        Block ``i`` (rows and columns ``2i, 2i+1``) is ``pair_shift_matrix(k, omega_i)``, so
        ``shift_matrix(k, d) @ PE(t) == PE(t + k)`` for every row ``PE(t)`` of
        ``sinusoidal_encoding`` (interleaved layout).

    Notes
    -----
    .. math:: M_k = \\operatorname{diag}\\left(M_k^{(0)}, \\ldots, M_k^{(d/2-1)}\\right)

    Examples
    --------
    >>> from posenc_lib.sinusoidal import sinusoidal_encoding
    >>> pe = sinusoidal_encoding(10, 8)
    >>> bool(np.allclose(shift_matrix(3, 8) @ pe[2], pe[5]))
    True
    """
    k = check_float("k", k)
    omega = frequencies(d_model, base)
    c, s = np.cos(omega * k), np.sin(omega * k)
    matrix = np.zeros((d_model, d_model), dtype=np.float64)
    even = np.arange(0, d_model, 2)
    # block i = [[cos w_i k, sin w_i k], [-sin w_i k, cos w_i k]]
    matrix[even, even] = c
    matrix[even, even + 1] = s
    matrix[even + 1, even] = -s
    matrix[even + 1, even + 1] = c
    return matrix


def similarity_matrix(encoding: Any) -> NDArray[np.float64]:
    """All pairwise dot products of encoding rows.

    Introduced in notebook 03_properties.

    Parameters
    ----------
    encoding : array_like, shape (n_positions, d_model)
        One encoding vector per row (finite).

    Returns
    -------
    numpy.ndarray, shape (n_positions, n_positions), float64
        ``S[a, b] = PE(a) . PE(b)``; symmetric.

    Notes
    -----
    .. math:: S = PE \\, PE^{\\top}

    Examples
    --------
    >>> from posenc_lib.sinusoidal import sinusoidal_encoding
    >>> np.round(similarity_matrix(sinusoidal_encoding(3, 4)), 6)
    array([[2.      , 1.540252, 0.583653],
           [1.540252, 2.      , 1.540252],
           [0.583653, 1.540252, 2.      ]])
    """
    encoding = check_array("encoding", encoding, ndim=2).astype(np.float64, copy=False)
    # S = PE @ PE^T
    with np.errstate(over="ignore", invalid="ignore"):
        product = encoding @ encoding.T
    return _finite("encoding", product)


def offset_similarity(offsets: Any, d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    """Closed-form dot product ``PE(t) . PE(t + k)`` as a function of the offset ``k`` alone.

    Introduced in notebook 03_properties.

    Parameters
    ----------
    offsets : array_like, shape (m,)
        Offsets ``k`` (ints or finite floats, negative allowed).
    d_model : int
        Model width, even and >= 2.
    base : float, default 10000.0
        Base of the frequencies, > 1.

    Returns
    -------
    numpy.ndarray, shape (m,), float64
        The same for every ``t``: the diagonals of :func:`similarity_matrix` (a Toeplitz matrix).
        Equals ``d_model / 2`` at ``k = 0`` and is even in ``k``.

    Notes
    -----
    .. math:: PE(t) \\cdot PE(t+k) = \\sum_i \\left[\\sin\\omega_i t \\sin\\omega_i (t+k)
              + \\cos\\omega_i t \\cos\\omega_i (t+k)\\right] = \\sum_i \\cos(\\omega_i k)

    Examples
    --------
    >>> np.round(offset_similarity([0, 1, 2], 4), 6)
    array([2.      , 1.540252, 0.583653])
    """
    theta = angles(check_array("offsets", offsets, ndim=1), d_model, base)
    # PE(t) . PE(t+k) = sum_i cos(omega_i k)
    return np.asarray(np.cos(theta).sum(axis=1), dtype=np.float64)


def _finite(name: str, result: Any) -> NDArray[np.float64]:
    """Return ``result`` as float64, or raise if it overflowed (values of ``name`` too large)."""
    array = np.asarray(result, dtype=np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} values are too large: the result overflows float64")
    return array


def _check_rows(name_a: str, a: NDArray[Any], name_b: str, b: NDArray[Any]) -> None:
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"{name_b} must have as many rows as {name_a} ({a.shape[0]}); got shape {b.shape}"
        )
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise ValueError(f"{name_a} must have at least one row and column; got shape {a.shape}")


def fit_linear_map(inputs: Any, targets: Any) -> tuple[NDArray[np.float64], float]:
    """Least-squares linear map ``M`` with ``targets ≈ inputs @ M.T``.

    Introduced in notebook 04_rotation_proof: learn ``M_k`` from pairs ``(PE(t), PE(t+k))``,
    and show that the sine channels alone admit no linear shift.

    Parameters
    ----------
    inputs : array_like, shape (n, a)
        One input vector per row (finite).
    targets : array_like, shape (n, b)
        One target vector per row (finite), same ``n``.

    Returns
    -------
    matrix : numpy.ndarray, shape (b, a), float64
        The fitted map (minimum-norm solution from ``np.linalg.lstsq`` when underdetermined).
    residual : float
        Root-mean-square error ``sqrt(mean((inputs @ M.T - targets) ** 2))``.

    Notes
    -----
    .. math:: M = \\arg\\min_M \\lVert X M^{\\top} - Y \\rVert_F^2, \\qquad
              \\text{residual} = \\sqrt{\\tfrac{1}{nb} \\lVert X M^{\\top} - Y \\rVert_F^2}

    A residual near 0 only means something when ``n`` is larger than ``a`` (more equations than
    unknowns per output); with ``n <= a`` any targets can be fitted exactly.

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
    _check_rows("inputs", x, "targets", y)
    with np.errstate(over="ignore", invalid="ignore"):
        solution, *_ = np.linalg.lstsq(x, y, rcond=None)
        # residual = sqrt(mean((X M^T - Y)^2)), with M^T = solution
        residual = float(np.sqrt(np.mean((x @ solution - y) ** 2)))
    if not np.isfinite(residual):
        raise ValueError("inputs or targets values are too large: the fit overflows float64")
    return _finite("inputs", solution.T), residual


def fit_position_probe(
    features: Any, positions: Any
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Linear probe with a bias that predicts the position from feature vectors.

    Introduced in notebook 03_properties (recover the position from ``e + p``).

    Parameters
    ----------
    features : array_like, shape (n, d)
        One feature vector per position (finite), e.g. ``embeddings + encoding``.
    positions : array_like, shape (n,)
        The position of each row (finite).

    Returns
    -------
    weights : numpy.ndarray, shape (d + 1,), float64
        Least-squares weights; the LAST entry is the bias.
    predictions : numpy.ndarray, shape (n,), float64
        ``features @ weights[:-1] + weights[-1]``.

    Notes
    -----
    .. math:: \\hat{w} = \\arg\\min_w \\lVert [X \\; \\mathbf{1}] w - \\text{pos} \\rVert^2

    Examples
    --------
    >>> feats = np.array([[0.0], [2.0], [4.0]])
    >>> w, pred = fit_position_probe(feats, [1, 2, 3])
    >>> np.round(w, 6), np.round(pred, 6)
    (array([0.5, 1. ]), array([1., 2., 3.]))
    """
    x = check_array("features", features, ndim=2).astype(np.float64, copy=False)
    y = check_array("positions", positions, ndim=1).astype(np.float64, copy=False)
    _check_rows("features", x, "positions", y)
    design = np.hstack([x, np.ones((x.shape[0], 1))])
    with np.errstate(over="ignore", invalid="ignore"):
        weights, *_ = np.linalg.lstsq(design, y, rcond=None)
        # pos_hat = [X 1] w
        predictions = design @ weights
    return _finite("features", weights), _finite("features", predictions)

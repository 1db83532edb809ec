"""Measurements the notebooks make on the formulas: dot products, probes, unseen angles.

Notebook 03 measures the sinusoidal encoding; notebook 06 measures each context-extension
method's slowed pairs, unseen angles past the trained length ``L`` and kept resolution.

Notebooks: 03_properties and 06_context_extension.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import (
    check_array,
    check_bool,
    check_choice,
    check_even,
    check_float,
    check_fraction,
    check_frequencies,
    check_int,
    check_positions,
)
from posenc_lib.frequencies import angles, inverse_frequencies
from posenc_lib.scaling import SCALING_METHODS, rope_frequencies
from posenc_lib.shift import fit_linear_map

__all__ = [
    "max_trained_angle", "unseen_angle_mask", "frequency_ratio", "step_angle", "DERIVED_METHODS",
    "method_rope_scaling", "method_frequencies", "method_frequency_ratios", "extension_positions",
    "method_unseen_mask", "local_minima", "similarity_matrix", "offset_similarity",
    "directions_for_variance", "fit_position_probe",
]


DERIVED_METHODS: tuple[str, ...] = tuple(m for m in SCALING_METHODS if m != "longrope")
"""The methods whose frequencies follow from ``s``, ``L`` and the base (not LongRoPE's): those of
:data:`~posenc_lib.scaling.SCALING_METHODS`, where a method is enrolled by name."""


def max_trained_angle(inv_freq: ArrayLike, trained_length: int) -> NDArray[np.float64]:
    """Return the largest angle each pair reaches in training, ``(L - 1) theta_i``.

    Parameters
    ----------
    inv_freq : array_like, shape (n_pairs,)
    trained_length : int
        Trained length ``L``.

    Returns
    -------
    angle : ndarray of float64, shape (n_pairs,)

    Notes
    -----
    ``A_i = (L - 1) theta_i``. A pair with ``A_i < 2 pi`` saw only the arc ``[0, A_i]``.

    Examples
    --------
    >>> np.round(max_trained_angle([1.0, 0.001], 11), 4)
    array([10.  ,  0.01])
    """
    theta = check_frequencies("inv_freq", inv_freq)
    length = check_int("trained_length", trained_length)
    # A_i = (L - 1) theta_i
    return (length - 1) * theta


def unseen_angle_mask(positions: ArrayLike, inv_freq: ArrayLike, trained_inv_freq: ArrayLike,
                      trained_length: int) -> NDArray[np.bool_]:
    """Return where pair ``i`` at position ``m`` shows an angle never seen in training.

    Parameters
    ----------
    positions : array_like, shape (n,)
    inv_freq, trained_inv_freq : array_like, shape (n_pairs,)
        Frequencies used now and in training.
    trained_length : int

    Returns
    -------
    unseen : ndarray of bool, shape (n, n_pairs)

    Notes
    -----
    Unseen when ``A_i < 2 pi`` and ``(m theta'_i mod 2 pi) > A_i``, ``A_i = (L - 1) theta_i``.

    Examples
    --------
    >>> unseen_angle_mask([0, 5, 20], [1.0, 0.01], [1.0, 0.01], 11)
    array([[False, False],
           [False, False],
           [False,  True]])
    """
    pos = check_positions("positions", positions, nonnegative=True)
    trained = max_trained_angle(trained_inv_freq, trained_length)
    theta = check_array("inv_freq", inv_freq, ndim=1)
    if theta.shape != trained.shape:
        raise ValueError(f"trained_inv_freq must have the shape of inv_freq {theta.shape}; "
                         f"got {trained.shape}")
    # phase = m theta'_i mod 2 pi
    phase = np.mod(angles(pos, theta), 2.0 * math.pi)
    return (trained < 2.0 * math.pi) & (phase > trained)


def frequency_ratio(head_dim: int, base: float, rope_scaling: dict[str, Any] | None,
                    seq_len: int | None = None) -> NDArray[np.float64]:
    """Return ``theta'_i / theta_i``: how much a method slows each pair down.

    Parameters
    ----------
    head_dim, base, rope_scaling, seq_len
        As for :func:`posenc_lib.scaling.rope_frequencies`.

    Returns
    -------
    ratio : ndarray of float64, shape (head_dim // 2,)

    Notes
    -----
    ``ratio_i = theta'_i / theta_i``.

    Examples
    --------
    >>> np.round(frequency_ratio(4, 100.0, {"rope_type": "ntk", "factor": 4.0}), 6)
    array([1.  , 0.25])
    """
    scaled, _ = rope_frequencies(head_dim, base, rope_scaling, seq_len=seq_len)
    # ratio_i = theta'_i / theta_i
    return scaled / inverse_frequencies(head_dim, base)


def step_angle(inv_freq: ArrayLike) -> NDArray[np.float64]:
    """Return the angle, in radians, between each pair's codes at positions ``m`` and ``m + 1``.

    Parameters
    ----------
    inv_freq : array_like, shape (n_pairs,)
        Each pair's frequency ``theta'_i`` in radians per position (a method's, scaled or not).

    Returns
    -------
    delta : ndarray of float64, shape (n_pairs,), in ``[0, pi]``
        The smallest angle between a pair's codes one position apart, wrap-around included.

    Notes
    -----
    ``delta_i = min(theta'_i mod 2 pi, 2 pi - (theta'_i mod 2 pi))``; a method's ``delta_i``
    over training's is the share of the trained resolution it keeps.

    Examples
    --------
    >>> np.round(step_angle([1.0, 0.125, 5.0]), 6)
    array([1.      , 0.125   , 1.283185])
    """
    theta = check_frequencies("inv_freq", inv_freq)
    wrapped = np.mod(theta, 2.0 * math.pi)
    # delta_i = min(theta_i mod 2 pi, 2 pi - theta_i mod 2 pi)
    return np.minimum(wrapped, 2.0 * math.pi - wrapped)


def method_rope_scaling(method: str, factor: float,
                        original_max_position_embeddings: int) -> dict[str, Any] | None:
    """Return notebook 06's illustrative ``rope_scaling`` dict that stretches ``L`` by ``factor``.

    Parameters
    ----------
    method : str
        One of :data:`DERIVED_METHODS`.
    factor, original_max_position_embeddings : float, int
        Scale ``s = L' / L`` >= 1 and trained length ``L``.

    Returns
    -------
    dict or None
        None for ``"default"``; llama3 uses Llama 3.1's band edges (1 and 4).

    Notes
    -----
    ``"dynamic"`` gets factor 1: ``s_eff = factor l / L - (factor - 1) = l / L``.

    Examples
    --------
    >>> method_rope_scaling("yarn", 4.0, 4096)
    {'rope_type': 'yarn', 'factor': 4.0, 'original_max_position_embeddings': 4096}
    """
    if method == "longrope":
        raise ValueError("method 'longrope' has no factors that follow from s and L (they are "
                         "searched per model); read a real config, e.g. "
                         "rope_frequencies_from_config(PRESETS['phi-3.5-mini'])")
    method = check_choice("method", method, DERIVED_METHODS)
    factor = check_float("factor", factor, at_least=1.0)
    length = check_int("original_max_position_embeddings", original_max_position_embeddings)
    if method == "default":
        return None
    if method in ("linear", "ntk"):
        return {"rope_type": method, "factor": factor}
    config: dict[str, Any] = {"rope_type": method, "factor": 1.0 if method == "dynamic" else factor}
    if method == "llama3":
        config.update(low_freq_factor=1.0, high_freq_factor=4.0)
    config["original_max_position_embeddings"] = length
    return config


def method_frequencies(method: str, head_dim: int, base: float, factor: float,
                       trained_length: int,
                       seq_len: int | None = None) -> tuple[NDArray[np.float64], float]:
    """Return ``(inv_freq, attention_factor)`` of a method's illustrative config.

    Parameters
    ----------
    method, head_dim, base, factor, trained_length : str, int, float, float, int
        As for :func:`method_frequency_ratios`.
    seq_len : int or None, default None
        Current length; None means the target ``s L``.

    Returns
    -------
    inv_freq, attention_factor : ndarray of float64, shape (head_dim // 2,), and float

    Notes
    -----
    ``rope_frequencies(head_dim, base, method_rope_scaling(...), seq_len=seq_len)``.

    Examples
    --------
    >>> method_frequencies("linear", 4, 100.0, 2.0, 10)
    (array([0.5 , 0.05]), 1.0)
    """
    trained_length = check_int("trained_length", trained_length)
    config = method_rope_scaling(method, factor, trained_length)
    if seq_len is None:
        seq_len = max(1, round(float(factor) * int(trained_length)))
    return rope_frequencies(head_dim, base, config, seq_len=seq_len)


def method_frequency_ratios(head_dim: int, base: float, factor: float, trained_length: int,
                            methods: tuple[str, ...] = DERIVED_METHODS) -> dict[str, Any]:
    """Return ``theta'_i / theta_i`` of every method at the target length ``s L``.

    Parameters
    ----------
    head_dim, base, factor, trained_length : int, float, float, int
        Rotary dimension, base, scale ``s`` and trained length ``L``.
    methods : tuple of str, default :data:`DERIVED_METHODS`

    Returns
    -------
    ratios : dict of str to ndarray of float64, shape (head_dim // 2,)
        Keyed by method, dynamic's as "dynamic (factor 1)".

    Notes
    -----
    ``ratio_i = theta'_i / theta_i`` at ``seq_len = s L``.

    Examples
    --------
    >>> ratios = method_frequency_ratios(4, 100.0, 4.0, 10, ("linear", "dynamic"))
    >>> {name: np.round(r, 4).tolist() for name, r in ratios.items()}
    {'linear': [0.25, 0.25], 'dynamic (factor 1)': [1.0, 0.25]}
    """
    labels = {"dynamic": "dynamic (factor 1)"}
    ratios = {}
    for method in methods:
        inv_freq, _ = method_frequencies(method, head_dim, base, factor, trained_length)
        # ratio_i = theta'_i / theta_i
        ratios[labels.get(method, method)] = inv_freq / inverse_frequencies(head_dim, base)
    return ratios


def extension_positions(trained_length: int, factor: float, n: int = 512) -> NDArray[np.int64]:
    """Return ``n`` integer positions spread evenly over ``0 .. s L - 1``, both ends included.

    Parameters
    ----------
    trained_length, factor : int, float
        Trained length ``L`` and scale ``s`` >= 1.
    n : int, default 512
        How many positions at most (repeats are dropped).

    Returns
    -------
    positions : ndarray of int64, shape (<= n,)

    Notes
    -----
    ``unique(floor(linspace(0, round(s L) - 1, n)))``.

    Examples
    --------
    >>> extension_positions(4, 2.0, 4)
    array([0, 2, 4, 7])
    """
    length = check_int("trained_length", trained_length)
    factor = check_float("factor", factor, at_least=1.0)
    n = check_int("n", n, minimum=2)
    target = max(1, round(factor * length))
    return np.unique(np.linspace(0, target - 1, n).astype(np.int64))


def method_unseen_mask(method: str, positions: ArrayLike, head_dim: int, base: float,
                       factor: float, trained_length: int) -> NDArray[np.bool_]:
    """Return where each pair shows an unseen angle under one method, for one sequence.

    Parameters
    ----------
    method, head_dim, base, factor, trained_length : str, int, float, float, int
        As for :func:`method_frequency_ratios`.
    positions : array_like of int, shape (n,)
        Increasing positions of one sequence, >= 0.

    Returns
    -------
    unseen : ndarray of bool, shape (n, head_dim // 2)

    Notes
    -----
    :func:`unseen_angle_mask` of the method at ``seq_len = positions[-1] + 1`` against
    ``theta_i = base**(-2i/d)`` on ``0 .. L - 1``.

    Examples
    --------
    >>> mask = method_unseen_mask("default", [0, 100, 400], 8, 10000.0, 4.0, 100)
    >>> mask.astype(int).tolist()
    [[0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]
    """
    pos = check_array("positions", positions, ndim=1)
    if not np.issubdtype(pos.dtype, np.integer) or pos.size == 0 or np.any(np.diff(pos) <= 0):
        raise ValueError("positions must be a non-empty, strictly increasing array of integers; "
                         f"got {pos!r}")
    current = int(pos[-1]) + 1
    inv_freq, _ = method_frequencies(method, head_dim, base, factor, trained_length,
                                     seq_len=current)
    trained = inverse_frequencies(head_dim, base)
    return unseen_angle_mask(pos, inv_freq, trained, trained_length)


def local_minima(values: ArrayLike) -> NDArray[np.int64]:
    """Return the indices ``j`` (not the ends) where a curve bounces: a strict local minimum.

    Parameters
    ----------
    values : array_like, shape (n,)
        A curve sampled at consecutive points (for instance a score over positions).

    Returns
    -------
    indices : ndarray of int64, shape (k,)
        The interior indices lower than both neighbours, in increasing order.

    Notes
    -----
    ``values[j-1] > values[j] < values[j+1]``.

    Examples
    --------
    >>> local_minima([3.0, 1.0, 2.0, 0.5, 0.7])
    array([1, 3])
    """
    v = check_array("values", values, ndim=1).astype(np.float64, copy=False)
    # values[j-1] > values[j] < values[j+1]
    inner = (v[1:-1] < v[:-2]) & (v[1:-1] < v[2:])
    return np.flatnonzero(inner).astype(np.int64) + 1


def similarity_matrix(encoding: ArrayLike) -> NDArray[np.float64]:
    """Return all pairwise dot products of the encoding rows, ``PE PE^T``.

    Parameters
    ----------
    encoding : array_like, shape (n_positions, d_model)
        One encoding vector per row, row ``a`` for position ``a``.

    Returns
    -------
    S : ndarray of float64, shape (n_positions, n_positions)
        The dot product of every pair of rows; symmetric.

    Notes
    -----
    ``S[a, b] = PE(a) . PE(b)``, i.e. ``S = PE PE^T``.

    Examples
    --------
    >>> similarity_matrix([[1.0, 0.0], [0.6, 0.8]])
    array([[1. , 0.6],
           [0.6, 1. ]])
    """
    pe = check_array("encoding", encoding, ndim=2).astype(np.float64, copy=False)
    with np.errstate(over="ignore", invalid="ignore"):
        # S = PE PE^T
        product = pe @ pe.T
    if not np.all(np.isfinite(product)):
        raise ValueError("encoding values are too large: PE PE^T overflows float64")
    return product


def offset_similarity(offsets: ArrayLike, d_model: int, base: float = 10000.0, *,
                      normalised: bool = False) -> NDArray[np.float64]:
    """Return ``PE(t) . PE(t + k)`` as a function of the offset ``k`` alone.

    Parameters
    ----------
    offsets : array_like, shape (m,)
        Offsets ``k`` (negative allowed).
    d_model, base : int, float, default base 10000.0
    normalised : bool, default False
        Divide by ``d/2``, the value at ``k = 0``.

    Returns
    -------
    dots : ndarray of float64, shape (m,)

    Notes
    -----
    ``PE(t) . PE(t+k) = sum_i cos(theta_i k)``, even in ``k``: it cannot tell before from after.

    Examples
    --------
    >>> np.round(offset_similarity([0, 1, 2], 4), 6)
    array([2.      , 1.540252, 0.583653])
    """
    k = check_array("offsets", offsets, ndim=1)
    d_model = check_even("d_model", d_model)
    phi = angles(k, inverse_frequencies(d_model, base))
    # PE(t) . PE(t+k) = sum_i cos(theta_i k), over d/2 when normalised
    dots = np.cos(phi).sum(axis=1)
    return dots / (d_model / 2) if check_bool("normalised", normalised) else dots


def directions_for_variance(encoding: ArrayLike, share: float = 0.99) -> int:
    """Return how many directions hold ``share`` of the variation of the encoding rows.

    Parameters
    ----------
    encoding : array_like, shape (n_positions, d_model)
        One code per row, at least two rows.
    share : float, default 0.99
        The part of the variation to reach, in (0, 1].

    Returns
    -------
    r : int
        0 when all rows are equal.

    Notes
    -----
    The smallest ``r`` with ``sum_{j<r} sigma_j^2 >= share * sum_j sigma_j^2``, ``sigma_j`` the
    singular values of the centred ``X - mean(X)``, largest first.

    Examples
    --------
    >>> directions_for_variance([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    1
    """
    x = check_array("encoding", encoding, ndim=2).astype(np.float64, copy=False)
    if x.shape[0] < 2 or not np.all(np.isfinite(x)):
        raise ValueError(f"encoding must hold at least 2 finite rows; got shape {x.shape}")
    share = check_fraction("share", share)
    x = x / max(float(np.abs(x).max()), np.finfo(np.float64).tiny)  # shares ignore the scale;
    energy = np.linalg.svd(x - x.mean(axis=0), compute_uv=False) ** 2  # no overflow near 1e308
    if energy.sum() == 0:
        return 0  # every row the same: no variation to hold
    # smallest r with cumsum(sigma^2)[r-1] >= share * total
    cumulative = np.cumsum(energy) / energy.sum()
    return min(int(np.searchsorted(cumulative, share * (1 - 1e-12))) + 1, len(energy))


def fit_position_probe(features: ArrayLike,
                       positions: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Return a least-squares linear probe, with a bias, that reads the position off features.

    Parameters
    ----------
    features : array_like, shape (n, d)
    positions : array_like, shape (n,)

    Returns
    -------
    weights : ndarray of float64, shape (d + 1,)
        The last entry is the bias.
    predictions : ndarray of float64, shape (n,)

    Notes
    -----
    ``w = argmin_w ||[X 1] w - pos||**2``, solved by :func:`posenc_lib.shift.fit_linear_map`.

    Examples
    --------
    >>> w, pred = fit_position_probe([[0.0], [2.0], [4.0]], [1, 2, 3])
    >>> np.round(w, 6), np.round(pred, 6)
    (array([0.5, 1. ]), array([1., 2., 3.]))
    """
    x = check_array("features", features, ndim=2).astype(np.float64, copy=False)
    y = check_array("positions", positions, ndim=1).astype(np.float64, copy=False)
    if y.shape[0] != x.shape[0]:
        raise ValueError(f"positions must have one entry per row of features ({x.shape[0]}); "
                         f"got shape {y.shape}")
    # [X 1]: the features and a constant column for the bias
    design = np.hstack([x, np.ones((x.shape[0], 1))])
    weights = fit_linear_map(design, y[:, None])[0][0]
    # pos_hat = [X 1] w
    return weights, design @ weights

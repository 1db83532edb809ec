"""Learned absolute position embeddings: a lookup table with one trained row per position.

BERT and GPT-2 add row ``p`` of a trained matrix ``P`` (max_positions, d_model) to the token at
position ``p``; a position past the last row has no code.

Notebook: 07_other_schemes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_array, check_float, check_int

__all__ = ["PositionOutOfTable", "learned_table", "learned_lookup", "fit_learned_table"]


class PositionOutOfTable(ValueError):
    """A learned table has no row for this position (it is past the table's end)."""


def learned_table(max_positions: int, d_model: int, *, seed: int = 0) -> NDArray[np.float64]:
    """A freshly initialised learned position table, as before any training.

    Parameters
    ----------
    max_positions, d_model : int
        Rows (positions with a code) and width.
    seed : int, default 0
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    numpy.ndarray, shape (max_positions, d_model), float64

    Notes
    -----
    Every ``P[p, c] ~ N(0, 0.02**2)`` independently (0.02: BERT's ``initializer_range``).

    Examples
    --------
    >>> table = learned_table(1024, 768)
    >>> table.shape, float(np.round(table.std(), 3))
    ((1024, 768), 0.02)
    """
    max_positions = check_int("max_positions", max_positions)
    d_model = check_int("d_model", d_model)
    seed = check_int("seed", seed, minimum=0)
    # P_pc ~ N(0, 0.02^2)
    return np.random.default_rng(seed).normal(0.0, 0.02, size=(max_positions, d_model))


def _check_table(table: Any) -> NDArray[np.float64]:
    weights = check_array("table", table, ndim=2).astype(np.float64)
    if weights.shape[0] == 0 or weights.shape[1] == 0:
        raise ValueError(f"table must have at least one row and one column; got {weights.shape}")
    return weights


def learned_lookup(table: Any, positions: Any) -> NDArray[np.float64]:
    """The rows of a learned position table for ``positions``, or a clear error past its end.

    Parameters
    ----------
    table : array_like, shape (max_positions, d_model)
    positions : array_like of int, shape (n,)

    Returns
    -------
    numpy.ndarray, shape (n, d_model), float64

    Raises
    ------
    PositionOutOfTable
        A ValueError, for a position with no row.

    Notes
    -----
    ``code(p) = P[p, :]`` for ``0 <= p < L_max``.

    Examples
    --------
    >>> table = np.arange(6.0).reshape(3, 2)
    >>> try:
    ...     learned_lookup(table, [3])
    ... except PositionOutOfTable as err:
    ...     print(err)
    position 3 has no row in a learned table of 3 rows (positions 0..2):
    a learned table cannot encode a position it was not built for
    """
    weights = _check_table(table)
    pos = check_array("positions", positions, ndim=1)
    if not np.issubdtype(pos.dtype, np.integer):
        raise TypeError(f"positions must be integers; got dtype {pos.dtype}")
    n_rows = weights.shape[0]
    bad = pos[(pos < 0) | (pos >= n_rows)]
    if bad.size:
        raise PositionOutOfTable(
            f"position {bad[0]} has no row in a learned table of {n_rows} rows "
            f"(positions 0..{n_rows - 1}): a learned table cannot encode a position it was "
            f"not built for"
        )
    # code(p) = P[p]
    return np.asarray(weights[pos], dtype=np.float64)


def fit_learned_table(
    table: Any,
    readout: Any,
    trained_length: int,
    *,
    steps: int = 40,
    learning_rate: float = 0.25,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Train a position table by gradient descent on a toy task that only sees positions < L.

    Parameters
    ----------
    table, readout : array_like, shapes (max_positions, d_model) and (d_model,)
        Initial table (not modified); the fixed readout ``w``, not all zero.
    trained_length : int
        ``L``, 2 <= L <= max_positions.
    steps, learning_rate : int, float, default 40 and 0.25
        Number of steps; step size ``eta`` with ``eta |w|^2 < 1``.

    Returns
    -------
    trained, losses : ndarray of float64, shapes (max_positions, d_model) and (steps,)
        The table (rows ``L ..`` unchanged); the loss before each step.

    Notes
    -----
    ``loss = sum_{p < L} (w . P_p - y_p)**2`` with ``y_p = p / (L - 1)``, and for ``p < L``
    only ``P_p <- P_p - 2 eta (w . P_p - y_p) w``.

    Examples
    --------
    >>> start = learned_table(8, 4)
    >>> w = np.array([1.0, 0.0, 0.0, 0.0])
    >>> trained, losses = fit_learned_table(start, w, trained_length=4)
    >>> np.round(trained[:4] @ w, 6), bool(np.array_equal(trained[4:], start[4:]))
    (array([0.      , 0.333333, 0.666667, 1.      ]), True)
    """
    weights = _check_table(table).copy()
    w = check_array("readout", readout, ndim=1).astype(np.float64)
    if w.shape != (weights.shape[1],):
        raise ValueError(f"readout must have shape ({weights.shape[1]},) (one weight per column "
                         f"of table); got {w.shape}")
    if not np.any(w):
        raise ValueError("readout must not be all zero (the task would not depend on the table)")
    length = check_int("trained_length", trained_length, minimum=2)
    if length > weights.shape[0]:
        raise ValueError(f"trained_length must be <= the number of rows {weights.shape[0]}; "
                         f"got {length}")
    steps = check_int("steps", steps)
    eta = check_float("learning_rate", learning_rate, greater_than=0.0)
    if eta * float(w @ w) >= 1.0:
        raise ValueError(f"learning_rate must be < 1 / |readout|^2 = {1.0 / float(w @ w):.6g} "
                         f"for the descent to converge; got {eta}")
    target = np.linspace(0.0, 1.0, length)
    losses = np.empty(steps, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported below
        for step in range(steps):
            # r_p = w . P_p - y_p for the trained positions p < L
            residual = weights[:length] @ w - target
            losses[step] = float(residual @ residual)
            # P_p <- P_p - 2 eta r_p w
            weights[:length] -= 2.0 * eta * residual[:, None] * w[None, :]
    if not (np.isfinite(weights).all() and np.isfinite(losses).all()):
        raise ValueError("table and readout hold values too large for float64: the descent "
                         "overflowed")
    return weights, losses

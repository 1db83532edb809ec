"""Build steps of notebook 04: the 2x2 shift of one pair (derived) and the block-diagonal M_k.

Notebook: 04_rotation_proof (``nb04.steps``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from posenc_lib.exercises._steps import BuildStep, StepMistake
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.shift import pair_shift_matrix, rotation_matrix, shift_matrix

__all__ = ["pair_shift", "shift"]


def _pair(k: float, theta: float) -> NDArray[np.float64]:
    return pair_shift_matrix(k, theta)


def _swapped(right: NDArray[np.float64], **_: float) -> NDArray[np.float64]:
    """cos and sin exchanged in every entry: [[s, c], [-c, s]] from [[c, s], [-s, c]]."""
    c, s = right[0, 0], right[0, 1]
    return np.array([[s, c], [-c, s]])


pair_shift = BuildStep(
    key="04.steps.pair_shift", name="2x2 shift M_k", answer_name="pair_shift_by_me",
    reference=_pair,
    cases=({"k": 7, "theta": 0.6}, {"k": -3, "theta": 1.0}, {"k": 250, "theta": 0.01}),
    hints=(
        "Each row of M_k says how one entry of p(t + k) is made from sin(theta t) and "
        "cos(theta t). Expand sin(theta (t + k)) and cos(theta (t + k)) with the angle-addition "
        "formulas and read the coefficients off.",
        "sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b - sin a sin b, with "
        "a = theta t and b = theta k. The coefficient of sin(theta t) in the first line is u_1, "
        "that of cos(theta t) is v_1; the second line gives u_2 and v_2. Only theta k appears: "
        "compute its cosine and sine once and build the array row by row.",
    ),
    shortcuts=(pair_shift_matrix, rotation_matrix, shift_matrix),
    mistakes=(
        StepMistake("the transposed matrix (the two sine signs swapped)",
                    lambda right, **_: right.T),
        StepMistake("the angle theta instead of theta * k",
                    lambda right, k, theta: pair_shift_matrix(1, theta)),
        StepMistake("cos and sin swapped", _swapped),
    ),
    derived=True,
)


def _shift(k: float, d_model: int) -> NDArray[np.float64]:
    return shift_matrix(k, d_model)


def _blocks(k: float, theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """Block-diagonal matrix of the pair shifts at the speeds ``theta`` (for wrong speeds)."""
    matrix = np.zeros((2 * len(theta), 2 * len(theta)))
    for i, speed in enumerate(theta):
        matrix[2 * i:2 * i + 2, 2 * i:2 * i + 2] = pair_shift_matrix(k, speed)
    return matrix


shift = BuildStep(
    key="04.steps.shift", name="shift matrix M_k", answer_name="shift_by_me", reference=_shift,
    cases=({"k": 3, "d_model": 16}, {"k": -5, "d_model": 8}, {"k": 40, "d_model": 64}),
    hints=(
        "Pairs never mix, so the big matrix is zero except for one 2x2 block per pair on its "
        "diagonal. Which rows and columns does pair i occupy in the interleaved layout?",
        "Start from np.zeros((d_model, d_model)). For each pair i with its speed "
        "theta_i = 10000^(-2i/d_model), put the 2x2 shift of that pair (your my_pair_shift) "
        "in rows 2i, 2i+1 and columns 2i, 2i+1, a slice m[2*i:2*i+2, 2*i:2*i+2].",
    ),
    shortcuts=(shift_matrix,),
    mistakes=(
        StepMistake("transposed blocks (the sine signs swapped)", lambda right, **_: right.T),
        StepMistake("the angle theta_i instead of theta_i * k",
                    lambda right, k, d_model: shift_matrix(1, d_model)),
        StepMistake("the exponent i/d instead of 2i/d", lambda right, k, d_model:
                    _blocks(k, np.sqrt(inverse_frequencies(d_model)))),
    ),
)

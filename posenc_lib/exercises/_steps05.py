"""Build steps of notebook 05: RoPE on the whole head (derived from the complex form of one
pair) and the same rotation in the half-split layout.

Notebook: 05_rope (``nb05.steps``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.exercises._steps import BuildStep, StepMistake
from posenc_lib.frequencies import inverse_frequencies, split_permutation
from posenc_lib.rope import apply_rope, apply_rope_angles, rope_matrix

__all__ = ["rope", "rope_half"]

_CASE_RNG = np.random.default_rng(7)
_CASES = (
    {"x": _CASE_RNG.normal(size=(5, 8)), "positions": np.arange(5),
     "theta": inverse_frequencies(8)},
    {"x": _CASE_RNG.normal(size=(3, 4)), "positions": np.array([7, 0, 300]),
     "theta": np.array([1.0, 0.01])},
)
"""Five rows of a head of 8 at positions 0..4, then three rows of a head of 4 at positions that
are not the row numbers."""


def _interleaved(x: Any, positions: Any, theta: Any) -> NDArray[np.float64]:
    return apply_rope(x, positions, theta)


def _half(x: Any, positions: Any, theta: Any) -> NDArray[np.float64]:
    """The half-split rotation as notebook 05 relates the layouts: q_half = q_interleaved[perm]."""
    perm = split_permutation(np.shape(x)[-1])
    return apply_rope(np.asarray(x)[..., np.argsort(perm)], positions, theta)[..., perm]


def _neighbours_swapped(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """Coordinates 2i and 2i + 1 exchanged: (x1, x0, x3, x2, ...)."""
    return v[..., np.arange(v.shape[-1]) ^ 1]


def _halves_swapped(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """The two halves exchanged: (x_(d/2), ..., x_(d-1), x_0, ..., x_(d/2-1))."""
    return np.roll(v, v.shape[-1] // 2, axis=-1)


def _row_numbers(x: Any) -> NDArray[np.int64]:
    return np.arange(np.shape(x)[-2])


_SHORTCUTS = (apply_rope, apply_rope_angles, rope_matrix)

rope = BuildStep(
    key="05.steps.rope", name="interleaved RoPE", answer_name="rope_by_me",
    reference=_interleaved, cases=_CASES,
    hints=(
        "The 2-D section turned one pair by reading it as the complex number q1 + i q2 and "
        "multiplying it by e^(i m theta). Here every pair i of every row m is one such number, "
        "and its angle is positions[m] * theta[i]: one multiplication per pair, all at once.",
        "Make a (seq, d/2) complex array from the even columns (real parts) and the odd columns "
        "(imaginary parts); make the (seq, d/2) angles with np.multiply.outer(positions, theta); "
        "multiply by np.exp(1j * angles); then write the real parts into the even columns and "
        "the imaginary parts into the odd columns of a new array (np.empty_like(x)).",
    ),
    shortcuts=(*_SHORTCUTS, _interleaved),
    mistakes=(
        StepMistake("the half-split pairs (i, i + d/2) instead of (2i, 2i+1)",
                    lambda right, x, positions, theta: _half(x, positions, theta)),
        StepMistake("a turn the other way (times e^(-i m theta), the conjugate)",
                    lambda right, x, positions, theta: _interleaved(
                        x, -np.asarray(positions), theta)),
        StepMistake("each pair read backwards, x_(2i+1) + i x_(2i), and written back forwards",
                    lambda right, x, positions, theta: _interleaved(
                        _neighbours_swapped(x), positions, theta)),
        StepMistake("the real parts written into the odd columns and the imaginary parts into "
                    "the even ones", lambda right, **_: _neighbours_swapped(right)),
        StepMistake("the row number used as the position instead of positions[m]",
                    lambda right, x, positions, theta: _interleaved(x, _row_numbers(x), theta)),
    ),
    derived=True,
)

rope_half = BuildStep(
    key="05.steps.rope_half", name="half-split RoPE", answer_name="rope_half_by_me",
    reference=_half, cases=_CASES,
    hints=(
        "It is the same rotation as rope_by_me; only the places of the two members of pair i "
        "change: coordinates i and i + d/2 instead of 2i and 2i + 1.",
        "Either reuse your complex recipe with the first half of the columns as real parts and "
        "the second half as imaginary parts, or use the element-wise form: an angle table with "
        "the (seq, d/2) angles written twice side by side, and the quarter turn "
        "(-x_(d/2), ..., -x_(d-1), x_0, ..., x_(d/2-1)) that rotate_half computes.",
    ),
    shortcuts=(_half, *_SHORTCUTS),
    mistakes=(
        StepMistake("the interleaved pairs (2i, 2i+1) instead of (i, i + d/2)",
                    lambda right, x, positions, theta: _interleaved(x, positions, theta)),
        StepMistake("a turn the other way (the sign of the sin term flipped)",
                    lambda right, x, positions, theta: _half(x, -np.asarray(positions), theta)),
        StepMistake("the halves read the wrong way round: x_(i+d/2) as the first member of "
                    "pair i", lambda right, x, positions, theta: _half(
                        _halves_swapped(x), positions, theta)),
        StepMistake("the row number used as the position instead of positions[m]",
                    lambda right, x, positions, theta: _half(x, _row_numbers(x), theta)),
    ),
)

"""Exercises on binary positions: bit periods, Hamming steps, the smooth cousin.

Notebook: 01_binary_counting.

Each expected answer is computed with ``posenc_lib.binary``, never pasted.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from posenc_lib.binary import bit_periods, hamming_distance, smooth_bit_wave
from posenc_lib.exercises._core import Exercise, Mistake

__all__ = ["bit_period", "neighbour_hamming", "smooth_bit"]

bit_period = Exercise(
    key="01.bit_period",
    title="Measure the period of every column of an 8-bit table",
    answer_name="periods",
    expected=lambda: bit_periods(8),
    hint_text=(
        "For each column of binary_table(256, 8), find the smallest shift t >= 1 for which the "
        "column equals itself shifted by t: np.array_equal(col[t:], col[:-t]). Columns are "
        "written most significant bit first, as in the table."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the flip interval 2**k (how long a bit stays put) instead of the period 2**(k+1)",
            lambda: bit_periods(8) // 2,
        ),
        Mistake(
            "the columns in the order least significant bit first",
            lambda: bit_periods(8)[::-1],
        ),
    ),
)


def _neighbour_hamming() -> NDArray[np.int64]:
    return np.array([hamming_distance(p, p + 1) for p in range(63)], dtype=np.int64)


neighbour_hamming = Exercise(
    key="01.neighbour_hamming",
    title="Hamming distance from each position p to p + 1, for p = 0 .. 62",
    answer_name="neighbour_hamming",
    expected=_neighbour_hamming,
    hint_text=(
        "The Hamming distance of a and b is the number of 1 bits in a XOR b: "
        "bin(a ^ b).count('1'). Collect it for p and p + 1, p = 0 .. 62 (63 values)."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake("assuming one step always changes one bit", lambda: np.ones(63, dtype=np.int64)),
        Mistake(
            "counting only the bits that turn off (the carry), not the one that turns on",
            lambda: _neighbour_hamming() - 1,
        ),
    ),
)

_SMOOTH_CALL = (np.linspace(0.0, 16.0, 161), 2)


def _smooth_with(theta: float) -> NDArray[np.float64]:
    x, _ = _SMOOTH_CALL
    return np.asarray(0.5 - 0.5 * np.sin(theta * (x + 0.5)), dtype=np.float64)


smooth_bit = Exercise(
    key="01.smooth_bit",
    title="Write the smooth cousin of bit k",
    answer_name="smooth_bit",
    expected=lambda: smooth_bit_wave(*_SMOOTH_CALL),
    call_with=_SMOOTH_CALL,
    hint_text=(
        "Bit k repeats every T = 2**(k+1) positions, so its sinusoid turns at the angular "
        "frequency theta = 2*pi/T = pi / 2**k. Return 0.5 - 0.5*sin(theta*(x + 0.5))."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the period 2**k (the flip interval) instead of 2**(k+1)",
            lambda: _smooth_with(2 * np.pi / 2**2),
        ),
        Mistake(
            "the frequency 1/T used as an angle per position (the 2*pi is missing)",
            lambda: _smooth_with(1 / 2**3),
        ),
    ),
)

"""Build steps of notebook 01: the binary table and the smooth wave of one bit (derived).

Notebook: 01_binary_counting (``nb01.steps``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.binary import binary_table as _binary_table
from posenc_lib.binary import bit_wave, smooth_bit_wave
from posenc_lib.exercises._steps import BuildStep, StepMistake

__all__ = ["binary_table", "smooth_wave"]


def _table(n_positions: int, n_bits: int) -> NDArray[np.int64]:
    return _binary_table(n_positions, n_bits)


def _without_mod(right: NDArray[np.int64], **_: Any) -> NDArray[np.int64]:
    """floor(p / 2^k) itself, read off the right bits: the number the bits from the top down
    to bit k write (each column doubles the one before and adds its own bit)."""
    out = np.zeros_like(right)
    running = np.zeros(right.shape[0], dtype=right.dtype)
    for column in range(right.shape[1]):
        running = 2 * running + right[:, column]
        out[:, column] = running
    return out


binary_table = BuildStep(
    key="01.steps.binary_table", name="binary table", answer_name="binary_table_by_me",
    reference=_table,
    cases=({"n_positions": 16, "n_bits": 4}, {"n_positions": 40, "n_bits": 6}),
    hints=(
        "Work on whole arrays, not one position at a time: a column of positions against a row "
        "of place values gives the whole table in one broadcast. Which place value belongs to "
        "the first column when the most significant bit comes first?",
        "Make the positions a column of shape (n_positions, 1) and the place values 2^k a row, "
        "largest first (k from n_bits - 1 down to 0). Integer division of the column by the row "
        "shifts each bit k down to the units place; the remainder modulo 2 keeps only that bit.",
    ),
    shortcuts=(_binary_table,),
    mistakes=(
        StepMistake("the least significant bit first (columns in reverse order)",
                    lambda right, **_: right[:, ::-1]),
        StepMistake("floor(p / 2^k) without the final mod 2", _without_mod),
        StepMistake("every bit flipped (1 where the bit is 0)", lambda right, **_: 1 - right),
    ),
)


def _wave(positions: Any, bit: int) -> NDArray[np.float64]:
    return smooth_bit_wave(positions, bit)


def _sine_wave(positions: Any, bit: int, *, turns: float = 1.0, shift: float = 0.5,
               cosine: bool = False) -> NDArray[np.float64]:
    """A wrong smooth wave: 1/2 - 1/2 sin (or cos) of turns * pi (x + shift) / 2^bit."""
    angle = turns * np.pi * (np.asarray(positions, dtype=float) + shift) / 2.0**bit
    return 0.5 - 0.5 * (np.cos(angle) if cosine else np.sin(angle))


smooth_wave = BuildStep(
    key="01.steps.smooth_wave", name="smooth bit wave", answer_name="smooth_bit_wave_by_me",
    reference=_wave,
    cases=tuple({"positions": np.linspace(-0.5, 15.5, 65), "bit": k} for k in range(4)),
    hints=(
        "Three things fix a sinusoid: its period, its height, and where it sits. The period is "
        "the bit's, T_k = 2^(k+1); the height comes from shifting and scaling a sine from "
        "[-1, 1] into [0, 1]; the place comes from one point you know, the middle of the first "
        "run of 0s, where the wave must be at its lowest.",
        "A period T means an angular speed 2 pi / T. Scaled as 1/2 - 1/2 sin(angle), a sine "
        "runs from 0 to 1 and is lowest where the sine is 1, at the angle pi/2. The first run of "
        "0s of bit k covers x from -1/2 to 2^k - 1/2: choose the angle's offset so that it is "
        "pi/2 at the middle of that run. Check bit 0 and bit 1 by hand before writing the code.",
    ),
    shortcuts=(smooth_bit_wave, bit_wave),
    mistakes=(
        StepMistake("the plus sign: 1/2 + 1/2 sin, high where the bit is 0",
                    lambda right, **_: 1 - right),
        StepMistake("cos in place of sin (lowest at the edge of a run, not in its middle)",
                    lambda right, positions, bit: _sine_wave(positions, bit, cosine=True)),
        StepMistake("the period 2^k instead of 2^(k+1): 2 pi where pi belongs",
                    lambda right, positions, bit: _sine_wave(positions, bit, turns=2.0)),
        StepMistake("not lined up: the half-step shift x + 1/2 left out",
                    lambda right, positions, bit: _sine_wave(positions, bit, shift=0.0)),
    ),
    derived=True,
)

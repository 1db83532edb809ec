"""Exercises on counters as position codes: carries, base-3 digits, and the Gray code.

Notebook: 01_binary_counting.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.binary import smooth_bit_wave
from posenc_lib.exercises import _steps01 as steps  # the build steps: nb01.steps.<name>
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.exercises._data import HIDDEN_DATA

__all__ = ["carry_flips", "gray_cousin", "gray_offsets", "ternary_periods",
           "steps"]

_CARRY = {"positions": (23, 47, 63, 95)}
"""The positions p of 01.carry_flips."""


carry_flips = Exercise(
    key="01.carry_flips", answer_name="carry_counts", level="warm-up", kind="prediction", minutes=5,
    params=_CARRY,
    title="Predict how many bits change from p to p + 1 for p = {positions}",
    hints=(
        "Do one addition p + 1 in binary by hand, for a small number of your choice, and watch "
        "which bits change: the carry is the whole story.",
        "Write each p in binary. Adding 1 turns every 1 at the right end into a 0 (the carry runs "
        "through them) and the first 0 it reaches into a 1. So count the run of 1s at the right "
        "end of p, then add the bit that becomes 1.",
    ),
    objective="Predicts the Hamming distance of a step from the carry (trailing 1s plus one), "
    "without computing the XOR.",
    mistakes=(
        Mistake("assuming one step always changes one bit",
                lambda: np.ones(len(_CARRY["positions"]), dtype=np.int64)),
        Mistake("counting only the bits that turn off (the carry), not the one that turns on",
                lambda right: right - 1, from_answer=True),
        Mistake("counting the 1 bits of p instead of the bits that change",
                lambda: np.array([bin(p).count("1") for p in _CARRY["positions"]], dtype=np.int64)),
    ),
    shortcuts=(
        Shortcut("hamming_distance, bin(), XOR or the bit tables (predict on paper; the cell "
                 "after the check computes the distances)",
                 r"\bhamming_distance\b|\^|\bbin\(|bit_count|binary_table|binary_repr|\bmy_table\b",
                 "carry_counts = [bin(p ^ (p + 1)).count('1') for p in (23, 47, 63, 95)]"),
    ),
)

_TERNARY: dict[str, Any] = {"digits": 5, "word": "five", "last": 242}
"""01.ternary_periods: the number of base-3 digits (in words too), positions 0 .. last =
3**digits - 1."""


def _binary_periods() -> NDArray[np.int64]:
    """The periods 2**(k+1) of a binary counter's digits, most significant first."""
    k = np.arange(_TERNARY["digits"] - 1, -1, -1, dtype=np.int64)
    return np.asarray(2 ** (k + 1), dtype=np.int64)


ternary_periods = Exercise(
    key="01.ternary_periods", answer_name="ternary_periods", level="core", kind="derivation",
    minutes=10, params=_TERNARY,
    title="The period of every digit of a base-3 counter over positions 0 to {last}",
    hints=(
        "A period is how long a column takes to repeat. Think about how long a base-3 digit keeps "
        "each value before it moves on, and how many values it goes through before it starts "
        "again.",
        "Build the table of the {word} digits, (p // 3**k) % 3 for p = 0 .. {last}, most "
        "significant "
        "first. For each column find the smallest shift t >= 1 with np.array_equal(col[t:], "
        "col[:-t]). Then compare each period with the binary rule, twice the time a digit stays "
        "put, and see whether it still holds.",
    ),
    objective="Derives the periods of a base-3 counter and sees why the binary rule 'period = 2 x "
    "flip interval' does not carry over.",
    mistakes=(
        Mistake("the binary rule 'period = 2 x the time a digit stays put' (2 * 256 / flips): a "
                "base-3 digit changes three times per period, not twice",
                lambda right: 2 * (np.asarray(right) // 3), from_answer=True),
        Mistake("the periods of a binary counter, 2**(k+1)", _binary_periods),
        Mistake("the columns in the order least significant digit first",
                lambda right: right[::-1], credit=0.5, from_answer=True),
    ),
)

_GRAY_CALL = (np.linspace(0.0, 32.0, 321), 1)


def _gray_wave(period_factor: float, shift: float) -> NDArray[np.float64]:
    x, k = _GRAY_CALL
    period = period_factor * 2.0 ** (k + 1)
    return np.asarray(0.5 - 0.5 * np.cos(2 * np.pi * (x + shift) / period), dtype=np.float64)


gray_cousin = Exercise(
    key="01.gray_cousin", answer_name="gray_cousin", level="core", kind="construction", minutes=20,
    title="Write the smooth cousin of bit k of the Gray code",
    # Gray bit k is binary bit k+1 moved 2**k positions earlier
    call_with=_GRAY_CALL,
    hints=(
        "Print Gray bit k for the first few dozen positions and read it as a square wave: its "
        "period and the place where its runs of 0s are centred decide the cosine.",
        "Read the period T of Gray bit k from the printed column (compare it with binary bit k's) "
        "and the centre c of one run of 0s; the centre need not be a whole number. Then put the "
        "trough of 1/2 - 1/2 cos(2 pi (x - c) / T) at c, and check that rounding it at the "
        "integers gives the column back.",
    ),
    objective="Builds a sinusoid with the period and phase of a new square wave (a Gray-code "
    "bit), so that rounding it gives the bit back.",
    mistakes=(
        Mistake("the period of binary bit k, 2**(k+1): a Gray bit is twice as slow",
                lambda: _gray_wave(1.0, 0.5)),
        Mistake("the trough at position 0 instead of half a step before it",
                lambda: _gray_wave(2.0, 0.0)),
        Mistake("the smooth cousin of binary bit k (notebook's s_k) instead of Gray bit k",
                lambda: smooth_bit_wave(*_GRAY_CALL)),
    ),
    shortcuts=(
        Shortcut("the library's smooth_bit_wave (write the sinusoid yourself)",
                 r"\bsmooth_bit_wave\b", "return smooth_bit_wave(x + 2**k, k + 1)"),
    ),
)

_GRAY_OFFSETS = {"max_offset": 16}


gray_offsets = Exercise(
    key="01.gray_offsets", answer_name="consistent_offsets", level="challenge", kind="explanation",
    minutes=20, params=_GRAY_OFFSETS,
    title="The offsets k <= {max_offset} at which the Gray code's Hamming distance is the same "
    "everywhere",
    hints=(
        "Compute first and explain afterwards: tabulate the distances for each offset, then look "
        "for what the offsets you keep have in common.",
        "The Gray code of p is p ^ (p >> 1), and the Hamming distance of two codes is the number "
        "of 1 bits of their XOR, bin(x).count('1'). For each k from 1 to {max_offset}, collect the "
        "set of distances over p = 0 .. 255 - k and keep k when that set has one element. To "
        "explain it, ask which Gray bit flips from p to p + 1, and how often each bit flips over k "
        "steps in a row.",
    ),
    objective="Tests whether the Gray code, whose neighbours always differ in one bit, makes "
    "every offset consistent, and finds the offsets it does (the powers of two).",
    mistakes=(
        Mistake("every offset: one bit per step was assumed to make k steps always k bits apart",
                lambda: set(range(1, _GRAY_OFFSETS["max_offset"] + 1))),
        Mistake("only the neighbours, k = 1", lambda: {1}),
        Mistake("plain binary codes instead of the Gray code (no offset is consistent there)",
                lambda: {int(k) for k in HIDDEN_DATA["01.gray_offsets"]}),
    ),
)

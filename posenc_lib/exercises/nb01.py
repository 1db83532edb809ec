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
    # Gray bit k is binary bit k+1 moved 2**k positions earlier
    call_with=_GRAY_CALL,
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
    mistakes=(
        Mistake("every offset: one bit per step was assumed to make k steps always k bits apart",
                lambda: set(range(1, _GRAY_OFFSETS["max_offset"] + 1))),
        Mistake("only the neighbours, k = 1", lambda: {1}),
        Mistake("plain binary codes instead of the Gray code (no offset is consistent there)",
                lambda: {int(k) for k in HIDDEN_DATA["01.gray_offsets"]}),
    ),
)

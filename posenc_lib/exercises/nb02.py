"""Exercises on the sinusoidal formula: a value by hand, full turns, a checkpoint's layout and
spacing, decoding a position, and the power form in float16.

Notebook: 02_sinusoidal_formula.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from posenc_lib.exercises import _steps02 as steps  # the build steps: nb02.steps.<name>
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.exercises._data import HIDDEN_DATA, stored_mistake
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.sinusoidal import sinusoidal_encoding_at

__all__ = ["checkpoint_layout", "decode_position", "float16_lost_pairs", "half_turns", "slow_pair",
           "steps"]

_LIBRARY_ENCODING = (r"\b(sinusoidal_encoding\w*|encoding_from_frequencies|inverse_frequencies|"
                     r"my_encoding|my_theta|sinusoidal_by_me|inverse_frequencies_by_me)\b")

_SLOW_D = 8
_SLOW = {"pos": 2500}
"""02.slow_pair: the position."""


def _last_pair(theta: float, cos_theta: float | None = None) -> NDArray[np.float64]:
    """(sin, cos) of the last pair at the exercise's position, angle pos * theta."""
    pos = _SLOW["pos"]
    cos_angle = pos * (theta if cos_theta is None else cos_theta)
    return np.array([np.sin(pos * theta), np.cos(cos_angle)])


slow_pair = Exercise(
    key="02.slow_pair", answer_name="last_pair", level="warm-up", kind="prediction", minutes=5,
    params=_SLOW,
    mistakes=(
        Mistake("the exponent i/d with the pair index i (the factor 2 is missing)",
                lambda: _last_pair(10000.0 ** (-3 / 8))),
        Mistake("base 1000 instead of 10000", lambda: _last_pair(1000.0 ** (-6 / 8))),
        Mistake("the cosine in odd column 7 uses the exponent 7/8 instead of 6/8",
                lambda: _last_pair(10000.0 ** (-6 / 8), 10000.0 ** (-7 / 8))),
        Mistake("sine and cosine swapped (cos in the even column)",
                lambda right: np.asarray(right)[::-1], from_answer=True),
    ),
    shortcuts=(
        Shortcut("posenc_lib's encoding functions (predict by hand; the cell after the check "
                 "computes the entry)", _LIBRARY_ENCODING,
                 "last_pair = sinusoidal_encoding(2501, 8)[2500, 6:]"),
    ),
)

_HALF = {"d": 128, "pairs": 32, "eighth": 16}
"""02.half_turns: d_model, half of its pairs, and d_model / 8 (half of the dimensions' pairs)."""

half_turns = Exercise(
    key="02.half_turns", answer_name="n_tokens", level="core", kind="derivation", minutes=10,
    params=_HALF,
    mistakes=(
        Mistake("L steps instead of L - 1 (L tokens are L - 1 steps apart)",
                lambda right: right - 1, credit=0.5, from_answer=True),
        Mistake("half of the dimensions ({pairs} dimensions are {eighth} pairs) instead of half of "
                "the pairs", stored_mistake("02.half_turns", 0, _HALF)),
        Mistake("one pair too many: pairs 0 .. {pairs} (the pair index starts at 0)",
                stored_mistake("02.half_turns", 1, _HALF)),
        Mistake("base 1000 instead of 10000", stored_mistake("02.half_turns", 2, _HALF)),
    ),
)

_LOST = {"model": "Llama 3", "base": 500000}
"""02.float16_lost_pairs: the model (d_model = 128) and its RoPE base."""

float16_lost_pairs = Exercise(
    key="02.float16_lost_pairs", answer_name="n_lost", level="core", kind="explanation", minutes=10,
    params=_LOST,
    mistakes=(
        Mistake("counting dimensions (2 per pair) instead of pairs",
                lambda right: 2 * right, credit=0.5, from_answer=True),
        Mistake("the threshold of float32 (3.4e38) or base 10000: then nothing overflows",
                stored_mistake("02.float16_lost_pairs", 0)),
        Mistake("the pairs that keep their frequency instead of the ones that lose it",
                lambda right: 64 - right, from_answer=True),
    ),
    shortcuts=(
        Shortcut("float16 arithmetic (find the threshold with a logarithm)",
                 r"float16|\bnp\.half\b|\bfinfo\b",
                 "powers = ({base}.0 ** (np.arange(0, 128, 2) / 128)).astype(np.float16)"),
    ),
)

_CHECKPOINT_N, _CHECKPOINT_D = 40, 24
_OTHER = {"interleaved": "concat", "concat": "interleaved", "paper": "t2t", "t2t": "paper"}
"""The other option of each layout and of each spacing."""


_CHECKPOINT = {"table": tuple(HIDDEN_DATA["02.checkpoint_layout"])}
"""02.checkpoint_layout: the table's numbers, row by row (a graded release may pose another
table, of another layout or spacing: ``use``)."""


def checkpoint_table() -> NDArray[np.float64]:
    """Return a checkpoint's sinusoidal table, shape (40, 24), rows positions 0 .. 39, whose
    layout and frequency spacing exercise 02.checkpoint_layout asks to detect (stored numbers,
    posenc_lib.exercises._data: the layout and the spacing, the answer, stay in the checkout's
    tools/answer_key.py)."""
    return np.array(_CHECKPOINT["table"]).reshape(_CHECKPOINT_N, _CHECKPOINT_D)


def _relabel(right: tuple[str, float], layout: bool, spacing: bool) -> tuple[str, float]:
    """The right answer ``(f"{layout}-{spacing}", evidence)`` with its layout, its spacing or
    both replaced by the other option, the evidence kept: a wrong choice from right evidence."""
    chosen_layout, chosen_spacing = right[0].split("-", 1)
    if layout:
        chosen_layout = _OTHER[chosen_layout]
    if spacing:
        chosen_spacing = _OTHER[chosen_spacing]
    return f"{chosen_layout}-{chosen_spacing}", right[1]


checkpoint_layout = Exercise(
    key="02.checkpoint_layout", answer_name="checkpoint", level="core", kind="detector", minutes=15,
    rtol=1e-4,
    params=_CHECKPOINT,
    mistakes=(
        Mistake("the spacing is wrong: compare the slowest pair's frequency with what each "
                "spacing gives for the last pair",
                lambda right: _relabel(right, False, True), from_answer=True),
        Mistake("the layout is wrong: row 0 shows in which order the sines (0 there) and the "
                "cosines (1 there) come, and neither spacing implies a layout",
                lambda right: _relabel(right, True, False), from_answer=True),
        Mistake("both are wrong: read the layout from row 0 and the spacing from the slowest "
                "frequency", lambda right: _relabel(right, True, True), from_answer=True),
    ),
)

_DECODE_D = 64


def _decode_call() -> tuple[NDArray[np.float64]]:
    """The encoding rows to decode, stored as numbers (posenc_lib.exercises._data): the
    positions they encode, the answer, stay in the checkout's tools/answer_key.py."""
    return (np.array(HIDDEN_DATA["02.decode_position"]).reshape(-1, _DECODE_D),)


def _misread(
    positions: NDArray[np.float64], pair: int, *, sine_only: bool = False, swapped: bool = False,
    whole: bool = False,
) -> NDArray[np.float64]:
    """The ``positions`` as a learner who reads them from one pair's angle of their encoding
    rows gets them back, the wrong way (a mistake is computed from the right answer only: the
    package holds no reading of the rows it hands out)."""
    codes = sinusoidal_encoding_at(np.asarray(positions, dtype=float), _DECODE_D)
    s, c = codes[:, 2 * pair + swapped], codes[:, 2 * pair + 1 - swapped]
    theta = inverse_frequencies(_DECODE_D)[pair]
    angle = np.arcsin(s) if sine_only else np.mod(np.arctan2(s, c), 2 * np.pi)
    position = angle / theta
    return np.round(position) if whole else position


decode_position = Exercise(
    key="02.decode_position", answer_name="decode_position", level="challenge", kind="construction",
    minutes=20, rtol=1e-9,
    call_with=_decode_call(),
    mistakes=(
        Mistake("the fastest pair: its angle repeats every 2*pi positions, so it only knows the "
                "position modulo 2*pi", lambda right: _misread(right, 0), from_answer=True),
        Mistake("arcsin of the sine alone: it cannot tell the angle a from pi - a",
                lambda right: _misread(right, _DECODE_D // 2 - 1, sine_only=True),
                from_answer=True),
        Mistake("the slowest pair read as (cos, sin): the sine is in the even column",
                lambda right: _misread(right, _DECODE_D // 2 - 1, swapped=True),
                from_answer=True),
        Mistake("whole positions, from rounding or from a lookup in a table of the codes of whole "
                "positions: these positions lie between the integers, so read the angles",
                lambda right: _misread(right, _DECODE_D // 2 - 1, whole=True),
                from_answer=True),
    ),
    shortcuts=(
        Shortcut("posenc_lib's encoding functions (read the angles instead of comparing with a "
                 "table of codes)", _LIBRARY_ENCODING,
                 "table = sinusoidal_encoding(20000, 64)"),
    ),
)

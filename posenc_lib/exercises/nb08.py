"""Exercises on numerical precision: ties to even, truncation's bias, float16's edge, bad tables.

Notebook: 08_numerical_precision.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.exercises import _steps08 as steps  # the build steps: nb08.steps.<name>
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.exercises._data import stored_mistake
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.precision import round_to_dtype

__all__ = ["steps", "bfloat16_ties", "cos_tables", "float16_edges", "table_detector",
           "truncation_bias"]

_ROUNDING_CALLS = r"\b(round_to_dtype|round_to_bfloat16|to_low_precision|ml_dtypes)\b"

_TIES: dict[str, Any] = {"positions": (513, 514, 515, 518), "low": 512, "high": 1024}
"""08.bfloat16_ties: the positions, between the powers of two low and high."""


def _ties() -> tuple[NDArray[np.int64], int]:
    """The positions of 08.bfloat16_ties and bfloat16's gap between low and high (8 bits)."""
    return np.array(_TIES["positions"]), _TIES["low"] // 2**7


def _rounded_half_up(values: NDArray[np.int64], gap: int, down: bool = False
                     ) -> NDArray[np.float64]:
    """Round to the nearest multiple of ``gap``, halfway cases upwards (with ``down``, every
    value down: truncation)."""
    return np.asarray(np.floor(values / gap + (0.0 if down else 0.5)) * gap, dtype=np.float64)


bfloat16_ties = Exercise(
    key="08.bfloat16_ties", answer_name="stored", level="warm-up", kind="prediction", minutes=8,
    params=_TIES,
    title="bfloat16 (round to nearest, ties to even) of the positions {positions}",
    hints=(
        "Between two powers of two, the numbers bfloat16 stores are evenly spaced. Find the "
        "spacing just above {low}; each position then goes to its nearest stored neighbour, and a "
        "tie needs the rule in the title.",
        "bfloat16 keeps 8 significant bits (7 stored fraction bits), so in [{low}, {high}) the "
        "gap is {low} divided by 2^7. Write the stored numbers around each position as multiples "
        "q * gap. "
        "A position nearer to one neighbour goes there; a position exactly halfway goes to the "
        "neighbour whose q is even.",
    ),
    objective="Predicts bfloat16's rounding of integer positions past 256, including the halfway "
    "cases that go to the even neighbour.",
    mistakes=(
        Mistake("truncation (always down) instead of round to nearest",
                lambda: _rounded_half_up(*_ties(), down=True)),
        Mistake("halfway cases rounded up instead of to the even neighbour",
                lambda: _rounded_half_up(*_ties())),
        Mistake("no rounding at all: bfloat16 holds every integer only up to 256",
                lambda: _ties()[0].astype(float)),
    ),
    shortcuts=(
        Shortcut("the rounding functions (predict first, the cell after the check computes it)",
                 _ROUNDING_CALLS, "stored = round_to_dtype([513, 514, 515, 518], 'bfloat16')"),
    ),
)

_GAP_AT_ONE = 2.0**-7  # bfloat16's gap in [1, 2)
_SPREAD = {"low": 1, "high": 8}
"""08.truncation_bias: the powers of two the numbers are spread between."""


def _binade_widths() -> NDArray[np.float64]:
    """The widths of the binades [2^k, 2^(k+1)) that make up [low, high): also their gaps over
    bfloat16's gap in [1, 2)."""
    low, high = _SPREAD["low"], _SPREAD["high"]
    return low * 2.0 ** np.arange(round(np.log2(high / low)))


truncation_bias = Exercise(
    key="08.truncation_bias", answer_name="mean_error", level="core", kind="derivation", minutes=12,
    rtol=0.01, params=_SPREAD,
    title="The mean error of truncating numbers spread evenly over [{low}, {high}) to bfloat16",
    hints=(
        "Truncation always rounds toward zero, so for positive numbers the error has one sign. "
        "Find the average error within one binade first, then weigh the binades.",
        "Within a binade, truncation lowers a number by an amount spread evenly between 0 and one "
        "gap, so by half a gap on average. Split [{low}, {high}) into its binades [2^k, 2^(k+1)): "
        "find bfloat16's gap in each (7 fraction bits) and the share of an even spread that falls "
        "in each (its width over the whole width). Weigh each binade's mean error by its share, "
        "and keep the sign.",
    ),
    objective="Derives truncation's bias (minus half a gap on average) over several binades, "
    "weighting each binade's gap by the share of the numbers it holds.",
    mistakes=(
        Mistake("the binades averaged with equal weights: each holds twice the numbers of the "
                "one below it", lambda: -_binade_widths().mean() * _GAP_AT_ONE / 2),
        Mistake("the bias of [1, 2) alone: the gap doubles at 2 and again at 4",
                stored_mistake("08.truncation_bias", 0, _SPREAD)),
        Mistake("the bias of the top binade [4, 8) only",
                stored_mistake("08.truncation_bias", 1, _SPREAD)),
        Mistake("a whole gap: the error spreads evenly from 0 to one gap",
                lambda right: 2 * right, from_answer=True),
        Mistake("the sign: truncation moves positive numbers towards zero, that is down",
                lambda right: -right, from_answer=True),
    ),
    shortcuts=(
        Shortcut("a bfloat16 emulation (reason from the gaps; the cell after the check measures "
                 "it)", _ROUNDING_CALLS + r"|0x[Ff]{{4}}0000",
                 "err = round_to_bfloat16(x, mode='truncate') - x"),
    ),
)

_POSITIONS, _PAIRS_D = np.arange(4096), 32


def _safe_table(dtype_name: str) -> NDArray[np.float64]:
    """cos of float64 angles from integer positions, rounded once to the format."""
    angles = np.multiply.outer(_POSITIONS, inverse_frequencies(_PAIRS_D))
    return round_to_dtype(np.cos(angles), dtype_name)


def _narrow_angle_table(dtype_name: str) -> NDArray[np.float64]:
    """cos of angles whose position, frequency and product were all rounded to the format."""
    position = round_to_dtype(_POSITIONS, dtype_name)
    theta = round_to_dtype(inverse_frequencies(_PAIRS_D), dtype_name)
    angles = round_to_dtype(np.multiply.outer(position, theta), dtype_name)
    return round_to_dtype(np.cos(angles), dtype_name)


_TABLES = (
    (_narrow_angle_table, "bfloat16"),
    (_safe_table, "float16"),
    (_safe_table, "bfloat16"),
    (_narrow_angle_table, "float16"),
)


def cos_tables() -> list[NDArray[np.float64]]:
    """Return four cosine tables, shape (4096, 16): positions 0..4095 by the pairs of d = 32, base
    10000, stored in float16 or bfloat16, computed with 16-bit angles (the GPT-NeoX bug) or with
    float64 angles cast once at the end; exercise 08.table_detector asks which are which."""
    return [build(name) for build, name in _TABLES]


def _largest_errors() -> NDArray[np.float64]:
    truth = np.cos(np.multiply.outer(_POSITIONS, inverse_frequencies(_PAIRS_D)))
    return np.array([np.abs(table - truth).max() for table in cos_tables()])


table_detector = Exercise(
    key="08.table_detector", answer_name="angles_were_16bit", level="core", kind="detector",
    minutes=12,
    title="Which stored cosine tables were computed with 16-bit angles?",
    call_with=(cos_tables(),),
    hints=(
        "Two kinds of error are mixed up here. Storing a right value in 16 bits moves it by a "
        "tiny amount; computing the angle in 16 bits moves the angle itself. Compare their sizes.",
        "Compute the true table, cos(t theta_i) in float64 for t = 0 .. 4095 and the 16 pairs of "
        "d = 32, and the largest absolute difference of each stored table from it. Storing a "
        "value near 1 moves it by at most half a gap of the format (work that out for float16 and "
        "for bfloat16), while a 16-bit angle at positions in the thousands can be off by a large "
        "part of a radian. Choose a threshold well above the storage bound and return one bool "
        "per table.",
    ),
    objective="Detects the 16-bit-angle bug in a stored table, telling it apart from the harmless "
    "rounding of storing the result in float16 or bfloat16.",
    mistakes=(
        Mistake("a tolerance below the storage rounding: every 16-bit table differs from float64",
                lambda: np.ones(len(_TABLES), dtype=bool)),
        Mistake("float16's half gap used as the threshold for bfloat16 tables too",
                lambda: _largest_errors() > 2.0**-11),
    ),
)

_FORMAT = {"name": "float16", "bits": 10, "top": 15, "next": 16, "largest": 65504}
"""08.float16_edges: the format, its fraction bits, the exponent of its top binade and the next
one, and its largest finite value (a graded release may pose another format with an infinity:
``use``)."""

float16_edges = Exercise(
    key="08.float16_edges", answer_name="edges", level="challenge", kind="derivation", minutes=15,
    params=_FORMAT,
    title="{name}'s last step: the integers stored as {largest}, and the first stored as inf",
    hints=(
        "Near the top of {name} the stored numbers are far apart. Find the gap there, the two "
        "neighbours of {largest}, and the midpoints where rounding switches from one to the other.",
        "With {bits} fraction bits, the numbers in [2^{top}, 2^{next}) are 2^({top} - {bits}) "
        "apart. {largest} is the largest finite value; the next one up would be 2^{next}, which "
        "the format lacks, so rounding there means inf. The edges are the two midpoints, "
        "between {largest} and its lower neighbour and between {largest} and 2^{next}. At a tie "
        "the value goes to the neighbour whose last fraction bit is 0: decide which way each "
        "midpoint goes, and take the smallest integer on each side.",
    ),
    objective="Derives where float16 overflows from its fraction bits and exponent range, with "
    "ties to even deciding both edges of its last step.",
    mistakes=(
        Mistake("halfway cases always rounded up; a tie goes to the even neighbour",
                lambda right: right - np.array([1, 0]), from_answer=True),
        Mistake("halfway cases always rounded down; a tie goes to the even neighbour",
                lambda right: right + np.array([0, 1]), from_answer=True),
        Mistake("no rounding: every integer from halfway below {largest} to halfway above it is "
                "stored as {largest}", lambda: _FORMAT["largest"] + np.array([0, 1])),
    ),
    shortcuts=(
        Shortcut("{name} itself (derive it from the format's bits)",
                 r"\b(round_to_dtype|to_low_precision|float16|{name}|half|finfo|spacing_at|"
                 r"ml_dtypes)\b",
                 "edges = np.flatnonzero(np.isinf(np.arange(70000).astype('{name}')))[:1]"),
    ),
)

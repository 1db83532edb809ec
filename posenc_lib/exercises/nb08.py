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
    call_with=(cos_tables(),),
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

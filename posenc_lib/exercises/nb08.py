"""Exercises on numerical precision: exact integers, bfloat16 bits, safe angles.

Notebook: 08_numerical_precision.

Each expected answer is computed with posenc_lib (``machine_epsilon``, ``round_to_dtype``,
``round_to_bfloat16``, ``sinusoidal_encoding``); each known mistake is computed the way a
learner would make it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from posenc_lib.exercises._core import Exercise, Mistake
from posenc_lib.precision import machine_epsilon, round_to_bfloat16, round_to_dtype
from posenc_lib.sinusoidal import sinusoidal_encoding

__all__ = ["bfloat16_truncate", "exact_integers", "float16_overflow", "safe_cos_table"]

_FORMATS = ("float16", "bfloat16", "float32")


def _largest_exact_integers() -> NDArray[np.float64]:
    """2 / eps = 2**(p+1): every integer up to it has at most p + 1 significant bits."""
    return np.array([2.0 / machine_epsilon(name) for name in _FORMATS])


exact_integers = Exercise(
    key="08.exact_integers",
    title="The largest N such that every integer 0..N is exact, per format",
    answer_name="largest_exact",
    expected=_largest_exact_integers,
    rtol=0.0,
    atol=0.5,
    hint_text=(
        "A format with p fraction bits stores p + 1 significant bits (the leading 1 is "
        "implicit). Every integer below 2**(p+1) fits, and so does 2**(p+1) itself (a power of "
        "two); 2**(p+1) + 1 needs p + 2 bits. p = 10, 7, 23 for float16, bfloat16, float32."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "2**p: the implicit leading bit is forgotten",
            lambda: _largest_exact_integers() / 2,
        ),
        Mistake(
            "2**(p+1) - 1: but the power of two 2**(p+1) is exact too",
            lambda: _largest_exact_integers() - 1,
        ),
    ),
)


_VALUES = np.array([3.14159265, -2.718281828, 1000.7, 1.0 + 3 * 2**-9, 40123.0, 1e-3], np.float32)


def _low_bits(x: NDArray[np.float32]) -> NDArray[np.float32]:
    return np.asarray((x.view(np.uint32) & np.uint32(0xFFFF)).view(np.float32))


bfloat16_truncate = Exercise(
    key="08.bfloat16_truncate",
    title="Truncate float32 values to bfloat16 with a bit mask",
    answer_name="to_bfloat16_truncated",
    expected=lambda: round_to_bfloat16(_VALUES, mode="truncate"),
    call_with=(_VALUES.copy(),),
    hint_text=(
        "View the float32 array as np.uint32 (x.view(np.uint32)), keep the high 16 bits with "
        "& np.uint32(0xFFFF0000), and view the result as np.float32 again."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "round to nearest even instead of truncating",
            lambda: round_to_bfloat16(_VALUES, mode="nearest"),
        ),
        Mistake("the low 16 bits are kept instead of the high 16", lambda: _low_bits(_VALUES)),
        Mistake(
            "a cast to float16, which keeps 10 fraction bits and has a smaller range",
            lambda: _VALUES.astype(np.float16).astype(np.float32),
        ),
    ),
)


_N_POSITIONS, _D = 4096, 32


def _float16_angles_cos() -> NDArray[np.float16]:
    inv_freq = (10000.0 ** (-np.arange(0, _D, 2) / _D)).astype(np.float16)
    positions = np.arange(_N_POSITIONS, dtype=np.float16)
    return np.cos(positions[:, None] * inv_freq[None, :]).astype(np.float16)


safe_cos_table = Exercise(
    key="08.safe_cos_table",
    title="A float16 cosine table for 4096 positions, built the safe way",
    answer_name="cos_table",
    expected=lambda: sinusoidal_encoding(_N_POSITIONS, _D, dtype=np.float16)[:, 1::2],
    rtol=0.0,
    atol=1e-3,
    hint_text=(
        "Build the positions as integers (np.arange(4096)), multiply by inv_freq in float64 "
        "(or float32) to get the angles, take np.cos, and cast to float16 only at the end."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "positions and angles computed in float16 (np.arange(..., dtype=np.float16))",
            _float16_angles_cos,
        ),
        Mistake(
            "sine instead of cosine",
            lambda: sinusoidal_encoding(_N_POSITIONS, _D, dtype=np.float16)[:, 0::2],
        ),
    ),
)


def _first_overflowing_integer() -> int:
    candidates = np.arange(60_000, 70_000)
    return int(candidates[np.isinf(round_to_dtype(candidates, "float16"))][0])


float16_overflow = Exercise(
    key="08.float16_overflow",
    title="The first integer position that float16 stores as inf",
    answer_name="first_inf",
    expected=_first_overflowing_integer,
    hint_text=(
        "The largest finite float16 is 65504, and the next value would be 65536. Rounding to "
        "nearest sends everything from halfway between them upwards to inf. Check candidates "
        "with round_to_dtype(np.arange(60000, 70000), 'float16')."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake("65505: the first integer above the largest finite float16", lambda: 65505),
        Mistake("65536 = 2**16: but rounding sends 65520..65535 to inf already", lambda: 65536),
    ),
)

"""Build steps of notebook 08: the angle a format computes, rounded by hand (derived from the
layout of a floating-point number), and the sin/cos error it causes.

Notebook: 08_numerical_precision (``nb08.steps``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.exercises._steps import BuildStep, StepMistake
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.low_precision import to_low_precision
from posenc_lib.precision import (
    angle_error,
    round_to_bfloat16,
    round_to_dtype,
    rounded_angles,
    sincos_error,
)  # fmt: skip

__all__ = ["angles", "sincos"]


def _angles(positions: Any, inv_freq: Any, dtype_name: str) -> NDArray[np.float64]:
    return rounded_angles(positions, inv_freq, dtype_name)


def _exact(positions: Any, inv_freq: Any) -> NDArray[np.float64]:
    """The float64 angles m theta_i, shape (n, n_pairs)."""
    return np.multiply.outer(np.asarray(positions, dtype=np.float64), inv_freq)


angles = BuildStep(
    key="08.steps.angles", name="angle emulation", answer_name="rounded_angles_by_me",
    reference=_angles,
    cases=tuple({"positions": np.array([1, 257, 1857, 40000]), "inv_freq": inverse_frequencies(8),
                 "dtype_name": name} for name in ("float16", "bfloat16", "float32")),
    hints=(
        "A format with p fraction bits keeps p + 1 significant bits (the leading 1 is not "
        "stored). Scale a number by a power of two so that those bits sit before the point, "
        "round to the nearest whole number, and scale back. Do that to the position, to the "
        "frequency, and to their product.",
        "f, e = np.frexp(x) gives x = f 2^e with 0.5 <= |f| < 1, so np.ldexp(f, p + 1) has p + 1 "
        "bits before the point; np.round it (ties go to the even neighbour, as in the formats) "
        "and scale back with np.ldexp(..., e - p - 1). p is 10 for float16, 7 for bfloat16 and "
        "23 for float32 (a dict). Round the positions, round inv_freq, then round "
        "np.multiply.outer of the two.",
    ),
    shortcuts=(rounded_angles, round_to_dtype, round_to_bfloat16, to_low_precision, angle_error,
               sincos_error, _angles),
    mistakes=(
        StepMistake("only the product rounded (position and frequency kept exact)",
                    lambda right, positions, inv_freq, dtype_name: round_to_dtype(
                        _exact(positions, inv_freq), dtype_name)),
        StepMistake("position and frequency rounded, but not their product",
                    lambda right, positions, inv_freq, dtype_name: np.multiply.outer(
                        round_to_dtype(positions, dtype_name),
                        round_to_dtype(inv_freq, dtype_name))),
        StepMistake("the float64 angle, never rounded",
                    lambda right, positions, inv_freq, dtype_name: _exact(positions, inv_freq)),
    ),
    derived=True,
)


def _sincos(positions: Any, inv_freq: Any, dtype_name: str) -> NDArray[np.float64]:
    return sincos_error(positions, inv_freq, dtype_name)


def _both(positions: Any, inv_freq: Any, dtype_name: str) -> NDArray[np.float64]:
    """The exact angles and the format's, stacked: shape (2, n, n_pairs)."""
    return np.stack([_exact(positions, inv_freq), rounded_angles(positions, inv_freq, dtype_name)])


sincos = BuildStep(
    key="08.steps.sincos", name="sin/cos error", answer_name="sincos_error_by_me",
    reference=_sincos,
    cases=tuple({"positions": np.array([100, 1857, 3000]), "inv_freq": inverse_frequencies(8),
                 "dtype_name": name} for name in ("float16", "bfloat16")),
    hints=(
        "Two angles per position and pair: the exact one in float64, and the one the format "
        "computes (your my_rounded_angles). Compare their sines, compare their cosines, and keep "
        "the larger difference.",
        "phi is np.multiply.outer(positions, inv_freq); phi_hat is my_rounded_angles(positions, "
        "inv_freq, dtype_name). Take the absolute differences of np.sin and of np.cos of the "
        "two, and np.maximum of those two arrays.",
    ),
    shortcuts=(sincos_error, _sincos),
    mistakes=(
        StepMistake("the sine alone (where the sine is flat, the cosine moves)",
                    lambda right, **case: np.abs(np.diff(np.sin(_both(**case)), axis=0)[0])),
        StepMistake("the angle's error instead of the sine's and cosine's",
                    lambda right, **case: np.abs(np.diff(_both(**case), axis=0)[0])),
        StepMistake("signed differences (no absolute value)",
                    lambda right, **case: np.maximum(*(np.diff(f(_both(**case)), axis=0)[0]
                                                       for f in (np.sin, np.cos)))),
    ),
)

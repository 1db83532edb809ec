"""Exercises that check the properties of the encoding yourself.

Notebook: 03_properties.
"""

from __future__ import annotations

import numpy as np

from posenc_lib.analysis import local_minima, offset_similarity
from posenc_lib.exercises._core import Exercise, Mistake
from posenc_lib.sinusoidal import sinusoidal_encoding

__all__ = ["row_norms", "offset_dots", "first_bounce", "slow_columns"]


def _sum_of_cosines(offsets: np.ndarray, exponents: np.ndarray, base: float) -> np.ndarray:
    """sum_j cos(k / base**e_j) for each offset k: the closed form with any exponents."""
    return np.cos(np.multiply.outer(offsets, base**-exponents)).sum(axis=1)


def _first_bounce(d_model: int) -> int:
    """The first offset k > 0 where sum_i cos(theta_i k) is lower than at both neighbours."""
    return int(local_minima(offset_similarity(np.arange(400), d_model))[0])


def _count_flat_columns(n_positions: int, d_model: int, threshold: float) -> int:
    encoding = sinusoidal_encoding(n_positions, d_model)
    return int(np.count_nonzero(encoding.max(axis=0) - encoding.min(axis=0) < threshold))


row_norms = Exercise(
    key="03.row_norms",
    title="The norm of every row of sinusoidal_encoding(50, 64)",
    answer_name="norms",
    # every (sin, cos) pair contributes sin^2 + cos^2 = 1, so |PE(t)| = sqrt(d/2)
    expected=lambda: np.full(50, np.sqrt(64 / 2)),
    hint_text=(
        "np.linalg.norm(matrix, axis=1) takes the norm of each row. You should get the same "
        "number 50 times: which one, and why?"
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake("the squared norm (the square root is missing)", lambda: np.full(50, 32.0)),
        Mistake("sqrt(d_model) instead of sqrt(d_model / 2)", lambda: np.full(50, 8.0)),
    ),
)

offset_dots = Exercise(
    key="03.offset_dots",
    title="PE(t)·PE(t+k) for k = 0..40 at d_model = 128, from the frequencies alone",
    answer_name="dots",
    expected=lambda: offset_similarity(np.arange(41), 128),
    hint_text=(
        "PE(t)·PE(t+k) = sum over the pairs i of cos(theta_i k), with theta_i = "
        "10000 ** (-2i / d_model) for i = 0 .. d_model/2 - 1. np.multiply.outer(k, theta) gives "
        "every angle at once; sum the cosines along the pair axis."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "base 1000 instead of 10000",
            lambda: offset_similarity(np.arange(41), 128, base=1000.0),
        ),
        Mistake(
            "exponent i/d instead of 2i/d",
            lambda: _sum_of_cosines(np.arange(41), np.arange(64) / 128, 10000.0),
        ),
        Mistake(
            "a sum of sines instead of cosines",
            lambda: np.sin(np.multiply.outer(np.arange(41), 1e4 ** (-np.arange(0, 128, 2) / 128)))
            .sum(axis=1),
        ),
    ),
)

first_bounce = Exercise(
    key="03.first_bounce",
    title="The first offset where PE(0)·PE(k) stops falling, for d_model = 512",
    answer_name="bounce",
    expected=lambda: _first_bounce(512),
    hint_text=(
        "Compute dots = offset_similarity(np.arange(200), 512) and look for the first k with "
        "dots[k] < dots[k + 1]. np.diff(dots) > 0 marks the steps that go up; np.argmax of a "
        "boolean array returns the first True. Answer with a Python int."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "one too far: the first offset that is higher than the one before",
            lambda: _first_bounce(512) + 1,
        ),
        Mistake("the value for d_model = 128, the notebook's example", lambda: _first_bounce(128)),
    ),
)

slow_columns = Exercise(
    key="03.slow_columns",
    title="How many of the 256 columns vary by less than 0.05 over a 200-token sentence",
    answer_name="n_flat",
    expected=lambda: _count_flat_columns(200, 256, 0.05),
    hint_text=(
        "Build sinusoidal_encoding(200, 256). The range of a column is its maximum minus its "
        "minimum over the positions (axis 0); count the columns whose range is below 0.05."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the standard deviation instead of the range (max - min)",
            lambda: int(np.count_nonzero(sinusoidal_encoding(200, 256).std(axis=0) < 0.05)),
        ),
        Mistake(
            "only the sine columns counted",
            lambda: int(np.count_nonzero(np.ptp(sinusoidal_encoding(200, 256)[:, 0::2], 0) < 0.05)),
        ),
    ),
)

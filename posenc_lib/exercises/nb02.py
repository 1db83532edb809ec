"""Exercises on the sinusoidal formula: the division term, the matrix, full turns and
tensor2tensor's spacing.

Notebook: 02_sinusoidal_formula.

Each expected answer is computed with ``posenc_lib.sinusoidal``; each mistake is a wrong
formula seen in popular write-ups, computed the way a learner would get it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from posenc_lib.exercises._core import Exercise, Mistake
from posenc_lib.frequencies import inverse_frequencies, wavelengths
from posenc_lib.sinusoidal import sinusoidal_encoding, tensor2tensor_frequencies

__all__ = ["division_term", "full_turns", "positional_encoding", "t2t_frequencies"]


def _power(exponents: NDArray[np.float64], base: float = 10000.0) -> NDArray[np.float64]:
    return np.asarray(base**exponents, dtype=np.float64)


division_term = Exercise(
    key="02.division_term",
    title="The division term 1/10000^(2i/d_model) for d_model = 128",
    answer_name="div_term",
    expected=lambda: inverse_frequencies(128),
    hint_text=(
        "i is the PAIR index, 0 .. d_model/2 - 1 (64 values), and the exponent is 2i/d_model, "
        "so it runs over the even numbers 0, 2, ..., 126 divided by 128. Divide 1 by the power."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake("base 1000 instead of 10000", lambda: inverse_frequencies(128, base=1000.0)),
        Mistake(
            "multiplying by 10000^(2i/d) instead of dividing (sin(pos*10000^(2i/d)))",
            lambda: 1.0 / inverse_frequencies(128),
        ),
        Mistake(
            "the exponent (2k-1)/d with k = 1 .. d/2",
            lambda: _power(-(2.0 * np.arange(1, 65) - 1.0) / 128),
        ),
        Mistake(
            "the exponent i/d with the pair index i (the factor 2 is missing)",
            lambda: _power(-np.arange(64) / 128),
        ),
    ),
)


def _odd_exponent_off_by_one(n: int, d: int) -> NDArray[np.float64]:
    """cos(pos / 10000^(j/d)) in odd column j instead of 10000^((j-1)/d)."""
    pe = sinusoidal_encoding(n, d)
    pos = np.arange(n, dtype=np.float64)[:, None]
    odd = np.arange(1, d, 2, dtype=np.float64)
    pe[:, 1::2] = np.cos(pos / 10000.0 ** (odd / d))
    return pe


def _swapped(n: int, d: int) -> NDArray[np.float64]:
    pe = sinusoidal_encoding(n, d)
    return np.asarray(pe[:, np.arange(d) ^ 1], dtype=np.float64)


positional_encoding = Exercise(
    key="02.positional_encoding",
    title="Write positional_encoding(n_positions, d_model), vectorised",
    answer_name="positional_encoding",
    expected=lambda: sinusoidal_encoding(50, 128),
    call_with=(50, 128),
    hint_text=(
        "Make a column of positions (n, 1) and a row of division terms (d/2,), multiply them "
        "into an (n, d/2) angle array, then write np.sin into the even columns pe[:, 0::2] "
        "and np.cos of the SAME angles into the odd columns pe[:, 1::2]."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake("sine and cosine swapped (cos in the even columns)", lambda: _swapped(50, 128)),
        Mistake(
            "the cosine in odd column j uses the exponent j/d instead of (j-1)/d",
            lambda: _odd_exponent_off_by_one(50, 128),
        ),
        Mistake(
            "the concatenated layout [all sin | all cos] instead of interleaving",
            lambda: sinusoidal_encoding(50, 128, layout="concat"),
        ),
        Mistake("base 1000 instead of 10000", lambda: sinusoidal_encoding(50, 128, 1000.0)),
    ),
)


def _count_turned(d_model: int, steps: int, base: float = 10000.0) -> int:
    return int(np.sum(wavelengths(inverse_frequencies(d_model, base)) <= steps))


full_turns = Exercise(
    key="02.full_turns",
    title="How many pairs complete a full turn within a 16-token sentence (d_model = 512)?",
    answer_name="n_full_turns",
    expected=lambda: _count_turned(512, 15),
    hint_text=(
        "Pair i turns once every lambda_i = 2*pi*10000^(2i/d) positions. Positions 0 .. 15 span "
        "15 steps, so pair i completes a turn when lambda_i <= 15. Count PAIRS, not dimensions."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "16 steps instead of 15 (16 tokens are 15 steps apart)",
            lambda: _count_turned(512, 16),
        ),
        Mistake(
            "counting dimensions (2 per pair) instead of pairs",
            lambda: 2 * _count_turned(512, 15),
        ),
        Mistake("base 1000 instead of 10000", lambda: _count_turned(512, 15, base=1000.0)),
    ),
)

t2t_frequencies = Exercise(
    key="02.t2t_frequencies",
    title="tensor2tensor's frequencies for d_model = 256",
    answer_name="t2t_freq",
    expected=lambda: tensor2tensor_frequencies(256),
    hint_text=(
        "tensor2tensor has n = d_model/2 timescales and steps ln(10000)/(n - 1) between them in "
        "log space: theta_i = exp(-i * ln(10000)/(n - 1)) for i = 0 .. n-1, so the last one is "
        "exactly 1/10000."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the paper's spacing: dividing by n = d/2 instead of n - 1",
            lambda: inverse_frequencies(256),
        ),
        Mistake(
            "log10 instead of the natural logarithm",
            lambda: np.exp(-np.arange(128) * np.log10(10000.0) / 127),
        ),
    ),
)

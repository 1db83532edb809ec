"""Build steps of notebook 02: the division term (derived from the geometric ladder) and the
sinusoidal table.

Notebook: 02_sinusoidal_formula (``nb02.steps``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from posenc_lib.exercises._steps import BuildStep, StepMistake
from posenc_lib.frequencies import inverse_frequencies, split_permutation
from posenc_lib.sinusoidal import (
    encoding_from_frequencies,
    sinusoidal_encoding,
    sinusoidal_encoding_at,
)

__all__ = ["division_term", "sinusoidal_table"]


def _theta(dim: int, base: float = 10000.0) -> NDArray[np.float64]:
    return inverse_frequencies(dim, base)


division_term = BuildStep(
    key="02.steps.division_term", name="division term", answer_name="inverse_frequencies_by_me",
    reference=_theta,
    cases=({"dim": 8, "base": 10000.0}, {"dim": 512, "base": 10000.0}, {"dim": 64, "base": 5e5}),
    hints=(
        "A geometric ladder is one number raised to the powers 0, 1, 2, ...: theta_i = r^i for "
        "some ratio r < 1 (theta_0 = 1 already holds). The condition on the pair after the last "
        "one fixes r.",
        "There are dim/2 pairs, i = 0 .. dim/2 - 1, so the pair after the last is i = dim/2, and "
        "the condition reads r^(dim/2) = 1/base. Take both sides to the power 2/dim to get r, "
        "then raise r to an np.arange of the pair indices (or write the exponent with the even "
        "numbers 2i = 0, 2, ..., dim - 2).",
    ),
    shortcuts=(inverse_frequencies,),
    mistakes=(
        StepMistake("base^(2i/d), not inverted: the speeds grow instead of falling",
                    lambda right, **_: 1.0 / right),
        StepMistake("the ratio base^(-1/d): the exponent i/d instead of 2i/d",
                    lambda right, **_: np.sqrt(right)),
        StepMistake("the last pair, not the one after it, at 1/base (tensor2tensor's spacing)",
                    lambda right, dim, base: right ** ((dim // 2) / (dim // 2 - 1))),
        StepMistake("pairs counted from 1: the first speed is not 1",
                    lambda right, dim, base: right * base ** (-2.0 / dim)),
    ),
    derived=True,
)


def _sinusoid_table(n_positions: int, d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    return sinusoidal_encoding(n_positions, d_model, base)


def _table_with(theta: NDArray[np.float64], n_positions: int) -> NDArray[np.float64]:
    """The interleaved table built on other (wrong) frequencies."""
    return encoding_from_frequencies(np.arange(n_positions), theta)


sinusoidal_table = BuildStep(
    key="02.steps.sinusoidal_table", name="sinusoidal table", answer_name="sinusoidal_by_me",
    reference=_sinusoid_table,
    cases=({"n_positions": 4, "d_model": 4, "base": 1e4},
           {"n_positions": 50, "d_model": 64, "base": 1e4},
           {"n_positions": 20, "d_model": 16, "base": 500.0}),
    hints=(
        "Build the angles first, one per position and pair, as one array of shape "
        "(n_positions, d_model/2); then decide where each sine and each cosine goes.",
        "A column of positions (np.arange(n_positions)[:, None]) times the row of your theta_i "
        "broadcasts to the angle array. Make an empty (n_positions, d_model) array and fill the "
        "even columns (slice 0::2) with the sines of the angles and the odd columns (1::2) with "
        "the cosines.",
    ),
    shortcuts=(sinusoidal_encoding, sinusoidal_encoding_at, encoding_from_frequencies),
    mistakes=(
        StepMistake("sin and cos swapped (cos in the even columns)",
                    lambda right, **_: right[:, np.arange(right.shape[1]) ^ 1]),
        StepMistake("all sines, then all cosines (concatenated, not interleaved)",
                    lambda right, **_: right[:, split_permutation(right.shape[1])]),
        StepMistake("the exponent i/d instead of 2i/d", lambda right, n_positions, d_model, base:
                    _table_with(np.sqrt(inverse_frequencies(d_model, base)), n_positions)),
        StepMistake("base^(2i/d), not inverted", lambda right, n_positions, d_model, base:
                    _table_with(1.0 / inverse_frequencies(d_model, base), n_positions)),
    ),
)

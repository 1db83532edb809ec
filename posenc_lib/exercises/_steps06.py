"""Build steps of notebook 06: Position Interpolation, NTK-aware scaling (its base derived from
the condition on the slowest pair) and YaRN with the reference code's ramp.

Notebook: 06_context_extension (``nb06.steps``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from posenc_lib.analysis import method_frequencies, method_frequency_ratios
from posenc_lib.exercises._steps import BuildStep, StepMistake
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.models import rope_frequencies_from_config
from posenc_lib.scaling import (
    linear_inv_freq,
    llama3_inv_freq,
    ntk_inv_freq,
    ntk_scaled_base,
    rope_frequencies,
    yarn_correction_range,
    yarn_inv_freq,
    yarn_ramp,
)  # fmt: skip

__all__ = ["ntk", "pi", "yarn"]

_CASES = ({"d": 128, "base": 10000.0, "s": 8.0}, {"d": 96, "base": 1e6, "s": 16.0})
"""The running example (a Llama 2 head stretched 8 times) and a head of 96 at base 10^6."""
_YARN_CASES = (_CASES[0] | {"L": 4096}, _CASES[1] | {"L": 8192})
_ANY_METHOD = (rope_frequencies, rope_frequencies_from_config, method_frequencies,
               method_frequency_ratios)
"""Library functions that compute any method's frequencies from its name."""


def _pi(d: int, base: float, s: float) -> NDArray[np.float64]:
    return linear_inv_freq(d, base, s)


def _ntk(d: int, base: float, s: float) -> NDArray[np.float64]:
    return ntk_inv_freq(d, base, s)


def _yarn(d: int, base: float, s: float, L: int) -> NDArray[np.float64]:
    return yarn_inv_freq(d, base, s, L)


def _base_times_s(right: NDArray[np.float64], d: int, base: float, s: float) -> NDArray[np.float64]:
    """The mistake PI's and NTK's steps share: the frequencies of the base multiplied by s."""
    return inverse_frequencies(d, base * s)


pi = BuildStep(
    key="06.steps.pi", name="PI frequency table", answer_name="pi_by_me", reference=_pi,
    cases=_CASES,
    hints=(
        "PI feeds the position m / s instead of m, and the angle is position times frequency. "
        "Which frequency gives the angle (m / s) theta_i at position m?",
        "Compute theta_i = base^(-2i/d) for i = 0, ..., d/2 - 1 (np.arange(0, d, 2) / d gives "
        "the exponents 2i/d), then divide every one of them by s.",
    ),
    shortcuts=(linear_inv_freq, *_ANY_METHOD, _pi),
    mistakes=(
        StepMistake("theta_i times s: the pairs turn faster, not slower",
                    lambda right, s, **_: right * s * s),
        StepMistake("the base multiplied by s (NTK's lever): only the slow pairs slow down",
                    _base_times_s),
        StepMistake("the exponent i/d instead of 2i/d",
                    lambda right, s, **_: np.sqrt(right * s) / s),
    ),
)

ntk = BuildStep(
    key="06.steps.ntk", name="NTK-aware frequency table", answer_name="ntk_by_me", reference=_ntk,
    cases=_CASES,
    hints=(
        "Only the base changes, so theta'_i = base'^(-2i/d). Write the condition 'the slowest "
        "pair, i = d/2 - 1, turns exactly s times slower than before' as one equation whose "
        "unknown is base'.",
        "The slowest pair's exponent is 2(d/2 - 1)/d = (d - 2)/d, so the condition reads "
        "base'^(-(d-2)/d) = base^(-(d-2)/d) / s. Raise both sides to the power -d/(d - 2) to "
        "isolate base', then compute every theta'_i = base'^(-2i/d) as you computed theta_i.",
    ),
    shortcuts=(ntk_inv_freq, ntk_scaled_base, *_ANY_METHOD, _ntk),
    mistakes=(
        StepMistake("base' = base * s: the slowest pair is then divided by a little less than s",
                    _base_times_s),
        StepMistake("every pair divided by s: that is PI, not a change of the base",
                    lambda right, d, base, s: inverse_frequencies(d, base) / s),
        StepMistake("the exponent of s inverted while solving for base' (the slowest pair is "
                    "then divided by less than s)",
                    lambda right, d, base, s: inverse_frequencies(d, base * s ** ((d - 2) / d))),
    ),
    derived=True,
)

yarn = BuildStep(
    key="06.steps.yarn", name="YaRN frequency table", answer_name="yarn_by_me", reference=_yarn,
    cases=_YARN_CASES,
    hints=(
        "Three steps: the pair index i(r) of the turn counts r = 32 and r = 1, rounded outward; "
        "a weight per pair that ramps from 0 to 1 between those two indices; and a mix of theta_i "
        "and theta_i / s with that weight.",
        "low = floor(i(32)) and high = ceil(i(1)) with i(r) = d ln(L / (2 pi r)) / (2 ln base); "
        "w_i = clip((i - low) / (high - low), 0, 1) for i = 0, ..., d/2 - 1 (np.clip); then "
        "theta'_i = (1 - w_i) theta_i + w_i theta_i / s.",
    ),
    shortcuts=(yarn_inv_freq, yarn_correction_range, yarn_ramp, *_ANY_METHOD, _yarn),
    mistakes=(
        StepMistake("the paper's ramp in r (Llama 3's rule with bands 1 and 32), not the code's "
                    "ramp over the pair index",
                    lambda right, d, base, s, L: llama3_inv_freq(d, base, s, 1.0, 32.0, L)),
        StepMistake("the pair indices of r = 32 and r = 1 not rounded outward (floor for low, "
                    "ceil for high)",
                    lambda right, d, base, s, L: yarn_inv_freq(d, base, s, L, truncate=False)),
        StepMistake("the target length s L put in place of the trained length L",
                    lambda right, d, base, s, L: yarn_inv_freq(d, base, s, int(s * L))),
        StepMistake("the ramp reversed: the fast pairs divided by s, the slow ones kept",
                    lambda right, d, base, s, L: inverse_frequencies(d, base) * (1 + 1 / s)
                    - right),
    ),
)

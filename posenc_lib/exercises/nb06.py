"""Exercises on context extension: PI, the NTK-aware base, slow pairs and YaRN's temperature.

Notebook: 06_context_extension.

Each exercise computes its expected answer with ``posenc_lib.scaling``; the solution code is
the notebook's solution cell, word for word.
"""

from __future__ import annotations

import math

import numpy as np

from posenc_lib.exercises._core import Exercise, Mistake
from posenc_lib.frequencies import inverse_frequencies, turns_in_context
from posenc_lib.scaling import linear_inv_freq, ntk_scaled_base, yarn_get_mscale

__all__ = ["ntk_base", "pi_inv_freq", "slow_pairs", "yarn_logit_scale"]

# --------------------------------------------------------------------------- 06.pi_inv_freq

pi_inv_freq = Exercise(
    key="06.pi_inv_freq",
    title="Position Interpolation frequencies for d = 128, base 10000, s = 4",
    answer_name="inv_freq_pi",
    expected=lambda: linear_inv_freq(128, 10000.0, 4.0),
    hint_text=(
        "PI feeds the position m / s instead of m, which is the same as dividing every "
        "theta_i = base ** (-2i/d) by s. One value per pair: 64 values."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "multiplying the frequencies by s (that speeds every pair up)",
            lambda: inverse_frequencies(128, 10000.0) * 4.0,
        ),
        Mistake(
            "multiplying the base by s (that changes the pairs unevenly)",
            lambda: inverse_frequencies(128, 40000.0),
        ),
        Mistake("forgetting to scale (the trained frequencies)", lambda: inverse_frequencies(128)),
    ),
)

# --------------------------------------------------------------------------- 06.ntk_base

ntk_base = Exercise(
    key="06.ntk_base",
    title="The NTK-aware base for d = 128, base 10000, s = 8",
    answer_name="new_base",
    expected=lambda: ntk_scaled_base(128, 10000.0, 8.0),
    hint_text=(
        "Choose base' so that the slowest pair, theta = base ** (-(d-2)/d), is divided by "
        "exactly s: base' = base * s ** (d / (d - 2))."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake("base * s (the exponent d/(d-2) is missing)", lambda: 10000.0 * 8.0),
        Mistake(
            "the exponent (d-2)/d instead of d/(d-2)",
            lambda: 10000.0 * 8.0 ** (126 / 128),
        ),
        Mistake("base / s instead of base * s**(d/(d-2))", lambda: 10000.0 / 8.0 ** (128 / 126)),
    ),
    rtol=1e-9,
)

# --------------------------------------------------------------------------- 06.slow_pairs

slow_pairs = Exercise(
    key="06.slow_pairs",
    title="How many pairs of Llama 2 (d = 128, base 10000) never turn once in L = 4096?",
    answer_name="n_slow_pairs",
    expected=lambda: int(np.count_nonzero(turns_in_context(inverse_frequencies(128), 4096) < 1)),
    hint_text=(
        "Pair i makes r_i = L / lambda_i = L * theta_i / (2 pi) turns in L positions. Count the "
        "pairs with r_i < 1 and give a Python int."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "forgetting the 2 pi (counting angles L * theta_i < 1 radian)",
            lambda: int(np.count_nonzero(4096 * inverse_frequencies(128) < 1)),
        ),
        Mistake(
            "counting the pairs that do complete a turn (r_i >= 1)",
            lambda: int(np.count_nonzero(turns_in_context(inverse_frequencies(128), 4096) >= 1)),
        ),
    ),
)

# --------------------------------------------------------------------------- 06.yarn_logit_scale

yarn_logit_scale = Exercise(
    key="06.yarn_logit_scale",
    title="YaRN at s = 16: the factor 1/t that multiplies the attention logits",
    answer_name="logit_scale",
    expected=lambda: yarn_get_mscale(16.0) ** 2,
    hint_text=(
        "YaRN fits sqrt(1/t) = 0.1 ln(s) + 1 (natural log). That factor multiplies both the "
        "query and the key (it scales cos and sin), so the logit q . k is multiplied by its "
        "square."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "sqrt(1/t) itself (it scales q and k, so the logits get its square)",
            lambda: yarn_get_mscale(16.0),
        ),
        Mistake(
            "log10 instead of the natural log",
            lambda: (0.1 * math.log10(16.0) + 1.0) ** 2,
        ),
    ),
)

"""Exercises on RoPE: frequencies, the element-wise rotation, the relative property and the
pairing permutation.

Notebook: 05_rope.

Each exercise computes its expected answer with ``posenc_lib.rope``; the solution code is the
notebook's solution cell, word for word.
"""

from __future__ import annotations

import numpy as np

from posenc_lib.exercises._core import Exercise, Mistake
from posenc_lib.frequencies import inverse_frequencies, split_permutation
from posenc_lib.rope import apply_rope, relative_scores, rotate_interleaved

__all__ = ["half_permutation", "inv_freq", "relative_score_row", "rotate_pairs"]

# --------------------------------------------------------------------------- 05.inv_freq

inv_freq = Exercise(
    key="05.inv_freq",
    title="The RoPE frequencies theta_i for d = 64, base 10000",
    answer_name="inv_freq",
    expected=lambda: inverse_frequencies(64, 10000.0),
    hint_text=(
        "There is one frequency per pair, so i runs over 0 .. d/2 - 1 (32 values). "
        "theta_i = base ** (-2 i / d): the exponent is negative and uses 2i, not i."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake("exponent -i/d instead of -2i/d", lambda: 10000.0 ** (-np.arange(32) / 64)),
        Mistake("base 1000 instead of 10000", lambda: inverse_frequencies(64, 1000.0)),
        Mistake(
            "a positive exponent (base ** (2i/d) grows instead of shrinking)",
            lambda: 10000.0 ** (np.arange(0, 64, 2) / 64),
        ),
        Mistake(
            "one value per dimension (d values) instead of one per pair (d/2)",
            lambda: 10000.0 ** (-2.0 * np.arange(64) / 64),
        ),
    ),
)

# --------------------------------------------------------------------------- 05.rotate_pairs

_X = np.arange(1.0, 9.0)
_THETA = inverse_frequencies(8, 10000.0)


def _swapped_cos_sin() -> np.ndarray:
    angles = np.repeat(3 * _THETA, 2)
    return _X * np.sin(angles) + rotate_interleaved(_X) * np.cos(angles)


rotate_pairs = Exercise(
    key="05.rotate_pairs",
    title="Rotate the interleaved pairs of x by m * theta_i, element-wise",
    answer_name="rope_rotate",
    expected=lambda: apply_rope(_X[None, :], [3], _THETA)[0],
    hint_text=(
        "Pair i is (x[2i], x[2i+1]). Repeat every angle m * theta_i twice so it lines up with "
        "both members, build the quarter turn (-x[1], x[0], -x[3], x[2], ...), then return "
        "x * cos + quarter_turn * sin."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "rotating by -m * theta (the sign of the sine is flipped)",
            lambda: apply_rope(_X[None, :], [-3], _THETA)[0],
        ),
        Mistake(
            "half-split pairs (i, i + d/2) instead of interleaved pairs (2i, 2i+1)",
            lambda: apply_rope(_X[None, :], [3], _THETA, pairing="half")[0],
        ),
        Mistake("cos and sin swapped", _swapped_cos_sin),
    ),
    call_with=(_X, 3, _THETA),
)

# --------------------------------------------------------------------------- 05.relative_score_row

_Q = np.array([1.0, -0.5, 0.25, 2.0, 0.0, 1.0, -1.0, 0.5])
_K = np.array([0.5, 1.0, -1.0, 0.0, 2.0, 0.5, 0.25, -0.5])
_DISTANCES = np.arange(11)

relative_score_row = Exercise(
    key="05.relative_score_row",
    title="Scores <R_m q, R_(m+r) k> for m = 20 and r = 0 .. 10",
    answer_name="scores",
    expected=lambda: relative_scores(_Q, _K, _DISTANCES, inverse_frequencies(8, 10000.0)),
    hint_text=(
        "Rotate q once at position m = 20 with apply_rope(q[None, :], [m], theta)[0], then for "
        "each r rotate k at position m + r and take the dot product. Key position minus query "
        "position is +r."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the key at position m - r (distance n - m = -r)",
            lambda: relative_scores(_Q, _K, -_DISTANCES, inverse_frequencies(8, 10000.0)),
        ),
        Mistake("no rotation at all (the plain dot product q . k)", lambda: np.full(11, _Q @ _K)),
        Mistake(
            "base 1000 instead of 10000",
            lambda: relative_scores(_Q, _K, _DISTANCES, inverse_frequencies(8, 1000.0)),
        ),
    ),
)

# --------------------------------------------------------------------------- 05.half_permutation

half_permutation = Exercise(
    key="05.half_permutation",
    title="The permutation with q_half = q_interleaved[perm] for d = 12",
    answer_name="perm",
    expected=lambda: split_permutation(12),
    hint_text=(
        "Half-split pair i is (i, i + d/2) and interleaved pair i is (2i, 2i+1). So position i "
        "of the half layout takes coordinate 2i, and position i + d/2 takes 2i + 1: first all "
        "the even indices, then all the odd ones."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the inverse permutation (q_interleaved = q_half[perm])",
            lambda: np.argsort(split_permutation(12)),
        ),
        Mistake(
            "odd indices first, then even ones",
            lambda: np.concatenate([np.arange(1, 12, 2), np.arange(0, 12, 2)]),
        ),
        Mistake("no permutation (the identity)", lambda: np.arange(12)),
    ),
)

"""Exercises of notebook 10_length_generalisation_lab: predict which RoPE pairs break, find the
position where a scheme breaks in the committed results, and pick a YaRN factor.

Each expected answer is computed with posenc_lib (``rope_frequencies`` and the lab's results);
each known mistake is computed the way a learner would make it.
"""

from __future__ import annotations

import math

import numpy as np

from posenc_lib import rope_frequencies
from posenc_lib.exercises._core import Exercise, Mistake

__all__ = ["break_position", "turning_pairs", "yarn_factor"]

_HEAD_DIM, _BASE, _TRAINED = 16, 10000.0, 32


def _inv_freq() -> np.ndarray:
    return rope_frequencies(_HEAD_DIM, _BASE)[0]


# --------------------------------------------------------------------------- 10.turning_pairs

turning_pairs = Exercise(
    key="10.turning_pairs",
    title="Before training: how many RoPE pairs of the lab turn at least once in 32 positions?",
    answer_name="n_turning",
    expected=lambda: int(np.count_nonzero(_TRAINED * _inv_freq() / (2 * math.pi) >= 1)),
    hint_text=(
        "The lab's heads have head_dim = 16 (8 pairs), base 10000, and train on L = 32 "
        "positions. Pair i turns L * theta_i / (2 pi) times with theta_i = base ** (-2i/16). "
        "Count the pairs with at least one full turn: only they have seen every angle in "
        "training. Give a Python int."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "forgetting the 2 pi (counting angles L * theta_i >= 1 radian)",
            lambda: int(np.count_nonzero(_TRAINED * _inv_freq() >= 1)),
        ),
        Mistake(
            "counting the pairs that do not complete a turn",
            lambda: int(np.count_nonzero(_TRAINED * _inv_freq() / (2 * math.pi) < 1)),
        ),
    ),
)

# --------------------------------------------------------------------------- 10.break_position


def _mean_curve(scheme: str) -> np.ndarray:
    from posenc_lib.lab.results import load, mean_curves

    return mean_curves(load("curves")["curves"], "induction", (scheme,), 8)[scheme]


def _first_below(curve: np.ndarray, threshold: float, start: int) -> int:
    below = np.flatnonzero(np.nan_to_num(curve[start:], nan=1.0) < threshold)
    return int(start + below[0]) if below.size else -1


break_position = Exercise(
    key="10.break_position",
    title="Where does RoPE break on the induction task? (committed results, mean of seeds)",
    answer_name="rope_breaks_at",
    expected=lambda: _first_below(_mean_curve("rope"), 0.5, _TRAINED),
    hint_text=(
        "Load the curves with posenc_lib.lab.results.load('curves'), average the three seeds "
        "of induction/rope at 8x with posenc_lib.lab.results.mean_curves, and find the first "
        "position from 32 on whose accuracy is below 0.5. Give the position in the sequence "
        "(an int), not its offset from 32."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the offset from the trained length instead of the position",
            lambda: _first_below(_mean_curve("rope"), 0.5, _TRAINED) - _TRAINED,
        ),
        Mistake(
            "the last position still at 0.5 or above (one before the break)",
            lambda: _first_below(_mean_curve("rope"), 0.5, _TRAINED) - 1,
        ),
    ),
)

# --------------------------------------------------------------------------- 10.yarn_factor

yarn_factor = Exercise(
    key="10.yarn_factor",
    title="Pick YaRN's factor for 256 tokens and compute the frequencies of one lab head",
    answer_name="inv_freq_yarn",
    expected=lambda: rope_frequencies(
        _HEAD_DIM, _BASE,
        {"rope_type": "yarn", "factor": 256 / _TRAINED,
         "original_max_position_embeddings": _TRAINED})[0],
    hint_text=(
        "YaRN's factor s is the new length over the trained length. Call "
        "posenc_lib.rope_frequencies(16, 10000.0, rope_scaling) with a Hugging Face style "
        "dict: rope_type 'yarn', factor s and original_max_position_embeddings 32; keep the "
        "first value it returns."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "PI (rope_type 'linear') instead of YaRN: every pair divided by s",
            lambda: _inv_freq() / 8.0,
        ),
        Mistake(
            "factor 4 (the 4x of the tables) instead of 256 / 32 = 8",
            lambda: rope_frequencies(_HEAD_DIM, _BASE, {
                "rope_type": "yarn", "factor": 4.0,
                "original_max_position_embeddings": _TRAINED})[0],
        ),
        Mistake(
            "original_max_position_embeddings 256 (the new length) instead of 32",
            lambda: rope_frequencies(_HEAD_DIM, _BASE, {
                "rope_type": "yarn", "factor": 8.0,
                "original_max_position_embeddings": 256})[0],
        ),
    ),
)

"""Exercises on the length-generalisation lab: predict which RoPE pairs have seen every angle,
find where a scheme breaks in the committed results, tell a real difference from seed noise, and
explain T5's fall at long inputs by its far bucket.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

import math
from typing import Any

from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.exercises._data import stored_mistake
from posenc_lib.lab.verdicts import t_quantile

__all__ = ["break_position", "seed_spread", "t5_far_bucket", "turning_pairs"]

_TRAINED = 32
_COVERED = {"length": 128, "times": 4}
"""10.turning_pairs: the length the turns are counted in, and its multiple of the trained 32."""
_BREAK = {"threshold": 0.5}
"""10.break_position: the accuracy T5's mean curve falls below."""
_FAR = {"tokens": 128, "times": 4}
"""10.t5_far_bucket: the input length and its multiple of the trained 32."""
_SPREAD = {"task": "induction", "multiple": "4x", "scheme": "p_rope", "named": "p-RoPE"}
"""10.seed_spread: the cell compared with RoPE, at the length multiple (a graded release may pose
others, on the same committed runs: ``use``)."""
_PAIRS = 5  # seeds 0-4, which every cell of the grid holds: the pairs of the comparison
_Z_975 = 1.959964  # the normal 97.5% quantile


def _rescaled(factor: float) -> Any:
    """A wrong t interval from the right one: the same centre, the half-width times ``factor``."""
    def wrong(right: Any) -> tuple[float, float]:
        low, high = (float(v) for v in right)
        centre, half = (low + high) / 2, (high - low) / 2
        return centre - factor * half, centre + factor * half
    return wrong


turning_pairs = Exercise(
    key="10.turning_pairs", answer_name="n_turning", level="warm-up", kind="prediction", minutes=5,
    params=_COVERED,
    mistakes=(
        Mistake("forgetting the 2 pi (counting angles L * theta_i of at least 1 radian)",
                stored_mistake("10.turning_pairs", 0, _COVERED)),
        Mistake("the count within the trained 32 positions instead of {length}",
                stored_mistake("10.turning_pairs", 1, _COVERED)),
    ),
    shortcuts=(
        Shortcut("code that computes it (a prediction is a number you type before running "
                 "anything)",
                 r"\b(?:turns_in_context|inverse_frequencies|rope_frequencies|count_nonzero|sum|pi)\b",
                 "n_turning = int(np.sum(128 * theta / (2 * np.pi) >= 1))"),
    ),
)


break_position = Exercise(
    key="10.break_position", answer_name="t5_breaks_at", level="core", kind="derivation",
    minutes=10, params=_BREAK,
    mistakes=(
        Mistake("the offset from the trained length instead of the position",
                lambda right: right - _TRAINED, from_answer=True),
        Mistake("the last position still at 0.5 or above (one before the break)",
                lambda right: right - 1, from_answer=True),
        Mistake("RoPE's curve instead of T5's", stored_mistake("10.break_position", 0, _BREAK)),
    ),
)

seed_spread = Exercise(
    key="10.seed_spread", answer_name="interval", level="core", kind="derivation", minutes=10,
    params=_SPREAD, rtol=1e-3, atol=1e-4,
    mistakes=(
        Mistake("the normal quantile 1.96 instead of Student's t with n - 1 = 4 degrees of "
                "freedom (too narrow with five seeds)",
                _rescaled(_Z_975 / t_quantile(_PAIRS - 1)), from_answer=True),
        Mistake("the standard deviation with n instead of n - 1 (np.std's default ddof=0)",
                _rescaled(math.sqrt((_PAIRS - 1) / _PAIRS)), from_answer=True),
        Mistake("t with n = 5 degrees of freedom instead of n - 1 = 4",
                _rescaled(t_quantile(_PAIRS) / t_quantile(_PAIRS - 1)), from_answer=True),
        Mistake("a percentile bootstrap of the two sets of seeds resampled independently "
                "(results.bootstrap_interval): narrower than t with five seeds, and unpaired",
                stored_mistake("10.seed_spread", 0, _SPREAD)),
    ),
)

t5_far_bucket = Exercise(
    key="10.t5_far_bucket", answer_name="far_keys", level="challenge", kind="explanation",
    minutes=15, params=_FAR,
    mistakes=(
        Mistake("the keys before the far bucket starts instead of the keys in it",
                lambda right: _FAR["tokens"] - right, from_answer=True),
        Mistake("the count at 8x (256 tokens) instead of 4x",
                stored_mistake("10.t5_far_bucket", 0, _FAR)),
        Mistake("bidirectional buckets (an encoder's): the lab's decoder uses all 16 for the past",
                stored_mistake("10.t5_far_bucket", 1, _FAR)),
    ),
)

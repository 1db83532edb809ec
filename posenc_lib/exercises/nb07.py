"""Exercises on other schemes: ALiBi's recency, its slopes, T5's buckets and their direction.

Notebook: 07_other_schemes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.bias import (
    alibi_slopes,
    alibi_weights_by_distance,
    relative_position_matrix,
    t5_relative_position_bucket,
)
from posenc_lib.exercises import _steps07 as steps  # the build steps: nb07.steps.<name>
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.exercises._data import stored_mistake

__all__ = ["steps", "alibi_heads", "alibi_local_heads", "alibi_self_weight", "bucket_matrices",
           "t5_decoder_starts", "t5_direction"]

_ATTENTION_CALLS = (
    r"\b(alibi_bias|alibi_weights_by_distance|scaled_dot_product_attention|self_attention|"
    r"softmax)\b"
)

_TOKENS = 10
_SELF: dict[str, Any] = {"slope": 0.25, "m": "1/4"}
"""07.alibi_self_weight: the head's slope, as a number and as the prompt writes it."""


alibi_self_weight = Exercise(
    key="07.alibi_self_weight", answer_name="self_weight", level="warm-up", kind="prediction",
    minutes=8, rtol=1e-4, params=_SELF,
    mistakes=(
        Mistake("1/10: the bias is ignored and the weight spread evenly", lambda: 1 / _TOKENS),
        Mistake("the bias added with the wrong sign, so distant keys are favoured",
                stored_mistake("07.alibi_self_weight", 0, _SELF)),
        Mistake("slope 1/2 (the first head's) instead of 1/4",
                stored_mistake("07.alibi_self_weight", 1, _SELF)),
        Mistake("1 - exp(-m), the infinite sum: the last token sees 10 keys, not an endless past, "
                "so the geometric sum stops at r = 9 and the weight is larger",
                lambda: 1.0 - math.exp(-_SELF["slope"])),
    ),
    shortcuts=(
        Shortcut("the attention functions of posenc_lib (predict first, the cell after the check "
                 "computes it)", _ATTENTION_CALLS,
                 "_, w = scaled_dot_product_attention(q, k, v, bias=alibi_bias([0.25], 10)[0])"),
    ),
)

_HEADS = 20


def _slopes(n_heads: int, *, first_h: int = 1, extra_start: int = 0) -> list[float]:
    """ALiBi's rule with its two usual slips: the first head number and the extra heads."""
    closest = 2 ** math.floor(math.log2(n_heads))
    slopes = [2.0 ** (-8 * h / closest) for h in range(first_h, first_h + closest)]
    extra = [2.0 ** (-8 * h / (2 * closest)) for h in range(first_h, first_h + 2 * closest)]
    return slopes + extra[extra_start::2][: n_heads - closest]


alibi_heads = Exercise(
    key="07.alibi_heads", answer_name="alibi_slopes_for", level="core", kind="construction",
    minutes=12,
    call_with=(_HEADS,),
    mistakes=(
        Mistake("2^(-8h/H) used directly for a head count that is not a power of two",
                lambda: np.array([2.0 ** (-8 * h / _HEADS) for h in range(1, _HEADS + 1)])),
        Mistake("heads counted from h = 0, so the first head gets slope 1 (the page's pitfall): "
                "the formula numbers heads h = 1, ..., H",
                lambda: np.array(_slopes(_HEADS, first_h=0))),
        Mistake("the first c heads counted from h = 0, so the first head gets slope 1 (the page's "
                "pitfall): the formula numbers heads h = 1, ..., c",
                lambda: np.array(_slopes(_HEADS, first_h=0, extra_start=1))),
        Mistake("2^(-8h/H) used directly with heads counted from h = 0: two slips, the first head "
                "gets slope 1",
                lambda: np.array([2.0 ** (-8 * h / _HEADS) for h in range(_HEADS)])),
        Mistake("the extra heads take h = 2, 4, ... of the 2c sequence, repeating existing slopes",
                lambda: np.array(_slopes(_HEADS, extra_start=1))),
    ),
    shortcuts=(
        Shortcut("alibi_slopes", r"\balibi_slopes\b", "alibi_slopes_for = alibi_slopes"),
    ),
)

_DISTANCES = np.arange(0, 2000)
_DECODER = {"max_distance": 256}
"""07.t5_decoder_starts: the maximum distance, twice T5's 128 so that the page's decoder numbers
are not the answer (a graded release may pose another, never 128: ``use``)."""


def _starts(buckets: NDArray[np.int64]) -> NDArray[np.int64]:
    """The smallest distance in each of the buckets 16..31."""
    return np.array([_DISTANCES[buckets == b].min() for b in range(16, 32)], dtype=np.int64)


def _decoder_buckets(exact: int, rounding: bool = False, max_distance: int | None = None
                     ) -> NDArray[np.int64]:
    """A decoder's 32 buckets with ``exact`` exact ones, log part floored or rounded (the
    exercise's maximum distance unless ``max_distance``)."""
    n = _DISTANCES
    max_distance = max_distance or _DECODER["max_distance"]
    spread = np.log(np.maximum(n, exact) / exact) / math.log(max_distance / exact) * (32 - exact)
    log_part = np.round(spread) if rounding else np.floor(spread)
    return np.asarray(np.where(n < exact, n, np.minimum(exact + log_part, 31)), dtype=np.int64)


t5_decoder_starts = Exercise(
    key="07.t5_decoder_starts", answer_name="first_distance", level="core", kind="derivation",
    minutes=12, params=_DECODER,
    mistakes=(
        Mistake("the encoder's 8 exact buckets kept for the decoder (E = B'/2 = 16 there)",
                lambda: _starts(_decoder_buckets(8))),
        Mistake("the logarithmic part rounded to nearest instead of truncated",
                lambda: _starts(_decoder_buckets(16, rounding=True))),
        Mistake("T5's default max_distance 128 (the T5 section's decoder) instead of "
                "{max_distance}",
                lambda: _starts(_decoder_buckets(16, max_distance=128))),
    ),
    shortcuts=(
        Shortcut("t5_relative_position_bucket or t5_bias",
                 r"\b(t5_relative_position_bucket|t5_bias)\b",
                 "b = t5_relative_position_bucket(-n, bidirectional=False)"),
    ),
)

_SIZE = 40


def bucket_matrices() -> list[NDArray[np.int64]]:
    """Return four T5 bucket matrices (40 x 40, query i by key j) from four checkpoints' code: a
    decoder's and an encoder's, each from j - i (as T5 does) or from i - j; exercise
    07.t5_direction asks which are right."""
    rel = relative_position_matrix(_SIZE)
    return [
        t5_relative_position_bucket(-rel, bidirectional=False),
        t5_relative_position_bucket(rel),
        t5_relative_position_bucket(-rel),
        t5_relative_position_bucket(rel, bidirectional=False),
    ]


t5_direction = Exercise(
    key="07.t5_direction", answer_name="key_minus_query", level="core", kind="detector", minutes=12,
    call_with=(bucket_matrices(),),
    mistakes=(
        Mistake("a test that every matrix passes, such as buckets growing away from the diagonal",
                lambda: np.ones(4, dtype=bool)),
        Mistake("a test that holds for the encoder only (past keys in the lower half of the "
                "buckets); a decoder puts past keys in all 32",
                lambda: np.array([m[np.tril_indices(_SIZE, -1)].max() < 16
                                  for m in bucket_matrices()])),
    ),
    shortcuts=(
        Shortcut("t5_relative_position_bucket or t5_bias (recomputing the reference is not "
                 "detecting)", r"\b(t5_relative_position_bucket|t5_bias)\b",
                 "ok = np.array_equal(m, t5_relative_position_bucket(rel))"),
    ),
)

_LOCAL_HEADS, _CONTEXT = 12, 512
_WINDOW = {"recent": 10, "last": 9}
"""07.alibi_local_heads: the number of most recent keys, r = 0 .. last."""


def _local(weights: NDArray[np.float64], first: int = 1) -> set[int]:
    """Heads (numbered from ``first``) whose weight on the most recent keys exceeds 1/2."""
    share = weights[:, :_WINDOW["recent"]].sum(axis=1)
    return {int(h) + first for h in np.flatnonzero(share > 0.5)}


def _geometric_weights(slopes: NDArray[np.float64]) -> NDArray[np.float64]:
    """Weights proportional to exp(-m r) over the keys r = 0 .. 511 behind the last query."""
    raw = np.exp(-np.outer(slopes, np.arange(_CONTEXT)))
    return np.asarray(raw / raw.sum(axis=1, keepdims=True))


alibi_local_heads = Exercise(
    key="07.alibi_local_heads", answer_name="local_heads", level="challenge", kind="explanation",
    minutes=15, params=_WINDOW,
    mistakes=(
        Mistake("heads numbered from 0; the heads are h = 1 .. 12",
                lambda: _local(alibi_weights_by_distance(_LOCAL_HEADS, _CONTEXT), first=0),
                credit=0.5),
        Mistake("1 / m taken as the halving distance (it is ln 2 / m)",
                lambda: {h + 1 for h, m in enumerate(alibi_slopes(_LOCAL_HEADS))
                         if 1 / m < _WINDOW["recent"]}),
        Mistake("the slopes 2^(-8h/12), not the rule for head counts that are not powers of two",
                lambda: _local(_geometric_weights(2.0 ** (-8 * np.arange(1, 13) / 12)))),
    ),
    shortcuts=(
        Shortcut("the attention functions of posenc_lib (use the slopes and the formula)",
                 _ATTENTION_CALLS, "w = alibi_weights_by_distance(12, 512)"),
    ),
)

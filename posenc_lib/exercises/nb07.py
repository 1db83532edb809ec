"""Exercises on other schemes: ALiBi slopes, T5 buckets, Shaw's index, causal order.

Notebook: 07_other_schemes.

Each expected answer is computed with posenc_lib (``alibi_slopes``,
``t5_relative_position_bucket``, ``shaw_relative_index``, ``scaled_dot_product_attention``);
each known mistake is computed the way a learner would make it.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from posenc_lib.attention import causal_mask, scaled_dot_product_attention
from posenc_lib.bias import alibi_slopes, shaw_relative_index, t5_relative_position_bucket
from posenc_lib.exercises._core import Exercise, Mistake

__all__ = ["alibi_heads", "first_token_weight", "shaw_index", "t5_bucket"]

_HEADS = 12


def _slopes(n_heads: int, *, first_h: int = 1, extra_start: int = 0) -> list[float]:
    """ALiBi's rule with its two usual slips: the first head number and the extra heads."""
    closest = 2 ** math.floor(math.log2(n_heads))
    slopes = [2.0 ** (-8 * h / closest) for h in range(first_h, first_h + closest)]
    extra = [2.0 ** (-8 * h / (2 * closest)) for h in range(first_h, first_h + 2 * closest)]
    return slopes + extra[extra_start::2][: n_heads - closest]


alibi_heads = Exercise(
    key="07.alibi_heads",
    title="ALiBi's slopes for any number of heads",
    answer_name="alibi_slopes_for",
    expected=lambda: alibi_slopes(_HEADS),
    call_with=(_HEADS,),
    hint_text=(
        "Let c = 2**floor(log2(n_heads)). The first c heads get 2**(-8h/c) for h = 1..c. The "
        "remaining n_heads - c heads take the slopes for 2c heads, 2**(-8h/(2c)), at the odd "
        "h = 1, 3, 5, ... (the check calls your function with 12 heads)."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "2^(-8h/H) used directly for a head count that is not a power of two",
            lambda: np.array([2.0 ** (-8 * h / _HEADS) for h in range(1, _HEADS + 1)]),
        ),
        Mistake(
            "heads counted from h = 0, so the first head gets slope 1",
            lambda: np.array(_slopes(_HEADS, first_h=0)),
        ),
        Mistake(
            "the extra heads take h = 2, 4, ... of the 2c sequence, repeating existing slopes",
            lambda: np.array(_slopes(_HEADS, extra_start=1)),
        ),
    ),
)


_OFFSETS = np.arange(-300, 301)


def _rounded_buckets(relative_position: NDArray[np.int64]) -> NDArray[np.int64]:
    """T5's bidirectional buckets with the log part rounded to nearest instead of truncated."""
    bucket = np.where(relative_position > 0, 16, 0)
    n = np.abs(relative_position)
    spread = np.log(np.maximum(n, 8) / 8) / math.log(128 / 8) * 8
    return np.asarray(bucket + np.where(n < 8, n, np.minimum(8 + np.round(spread), 15)), np.int64)


def _unhalved_buckets(relative_position: NDArray[np.int64]) -> NDArray[np.int64]:
    """All 32 buckets for each side (no halving) and +32 for keys after the query."""
    side = t5_relative_position_bucket(-np.abs(relative_position), bidirectional=False)
    return np.asarray(np.where(relative_position > 0, 32, 0) + side, dtype=np.int64)


t5_bucket = Exercise(
    key="07.t5_bucket",
    title="T5's bidirectional relative-position buckets",
    answer_name="t5_bucket",
    expected=lambda: t5_relative_position_bucket(_OFFSETS),
    call_with=(_OFFSETS,),
    hint_text=(
        "relative_position is key - query. Bidirectional: halve the buckets (16 per side) and "
        "add 16 when relative_position > 0; then n = |relative_position|. Offsets n < 8 are "
        "their own bucket; otherwise 8 + int(log(n/8) / log(128/8) * 8), at most 15. int() "
        "truncates: do not round."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "relative position taken as query - key, which swaps the two halves",
            lambda: t5_relative_position_bucket(-_OFFSETS),
        ),
        Mistake(
            "the buckets are not halved for the bidirectional case",
            lambda: _unhalved_buckets(_OFFSETS),
        ),
        Mistake(
            "the logarithmic part is rounded to nearest instead of truncated",
            lambda: _rounded_buckets(_OFFSETS),
        ),
    ),
)


def _index(offsets: NDArray[np.int64]) -> NDArray[np.int64]:
    return np.asarray(offsets, dtype=np.int64)


_N, _K = 6, 2
_REL = np.arange(_N)[None, :] - np.arange(_N)[:, None]

shaw_index = Exercise(
    key="07.shaw_index",
    title="Shaw's clipped relative index for 6 tokens and k = 2",
    answer_name="index",
    expected=lambda: shaw_relative_index(_N, max_relative_position=_K),
    hint_text=(
        "Build the offsets j - i (key minus query) as a 6 x 6 matrix with broadcasting, clip "
        "them to [-k, k] with np.clip, then add k so that the rows of the table run 0..2k."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the offset is i - j instead of j - i", lambda: _index(np.clip(-_REL, -_K, _K) + _K)
        ),
        Mistake("k is not added, so the index runs -k..k", lambda: _index(np.clip(_REL, -_K, _K))),
        Mistake("the offsets are not clipped to [-k, k]", lambda: _index(_REL + _K)),
    ),
)


_LENGTH = 8


def _first_token_weights(mask: NDArray[np.bool_] | None) -> NDArray[np.float64]:
    """Weights on token 0 when every content score is equal (zero queries)."""
    queries, keys = np.zeros((_LENGTH, 4)), np.ones((_LENGTH, 4))
    values = np.eye(_LENGTH)
    _, weights = scaled_dot_product_attention(queries, keys, values, mask=mask)
    return np.asarray(weights[:, 0], dtype=np.float64)


first_token_weight = Exercise(
    key="07.first_token_weight",
    title="The weight every position puts on the first token under a causal mask",
    answer_name="weights_on_first",
    expected=lambda: _first_token_weights(causal_mask(_LENGTH)),
    hint_text=(
        "With equal content scores the softmax spreads evenly over the keys a query may see. "
        "Under a causal mask, position i sees the keys 0..i. Compute the 8 weights with "
        "scaled_dot_product_attention (zero queries, mask=causal_mask(8)) or by counting."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "no mask: every position spreads over all 8 tokens", lambda: _first_token_weights(None)
        ),
        Mistake(
            "the mask is transposed (np.triu): each query sees the keys after it",
            lambda: _first_token_weights(causal_mask(_LENGTH).T),
        ),
    ),
)

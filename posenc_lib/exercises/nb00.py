"""Exercises showing that attention ignores word order.

Notebook: 00_why_position.

Each expected answer is computed with posenc_lib (``self_attention``, ``encode``), never pasted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.attention import self_attention, softmax, word_order_model
from posenc_lib.exercises._core import Exercise, Mistake
from posenc_lib.scorecard import encode

__all__ = ["attention", "identical_pairs", "normalised_step"]


def _attention_inputs() -> tuple[NDArray[np.float64], ...]:
    """Five token vectors of width 4 and three 4x4 projections (seed 1)."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 4))
    w_q, w_k, w_v = rng.normal(size=(3, 4, 4))
    return x, w_q, w_k, w_v


def _attention_variant(*, scale: bool = True, axis: int = -1) -> NDArray[np.float64]:
    x, w_q, w_k, w_v = _attention_inputs()
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / (np.sqrt(q.shape[-1]) if scale else 1.0)
    return softmax(scores, axis=axis) @ v


attention = Exercise(
    key="00.attention",
    title="Write single-head self-attention from scratch",
    answer_name="attention",
    expected=lambda: self_attention(*_attention_inputs())[0],
    call_with=_attention_inputs(),
    hint_text=(
        "Q = x @ w_q, K = x @ w_k, V = x @ w_v. Scores = Q @ K.T / sqrt(d) with d the width of "
        "Q. Softmax each ROW (over the keys, axis=-1; subtract the row maximum first), then "
        "return weights @ V, shape (n, d_v)."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake("the scores are not divided by sqrt(d)", lambda: _attention_variant(scale=False)),
        Mistake(
            "the softmax runs down the columns (axis 0) instead of along each row",
            lambda: _attention_variant(axis=0),
        ),
    ),
)


def _duplicate_sentence_output() -> tuple[list[str], NDArray[Any]]:
    words = ["the", "dog", "saw", "the", "other", "dog"]
    vocab = sorted(set(words))
    table, w_q, w_k, w_v = word_order_model(8, 0, n_words=len(vocab))  # the solution's draws
    out, _ = self_attention(x=table[[vocab.index(w) for w in words]], w_q=w_q, w_k=w_k, w_v=w_v)
    return words, out


def _identical_pairs() -> set[tuple[int, int]]:
    words, out = _duplicate_sentence_output()
    n = len(words)
    return {(i, j) for i in range(n) for j in range(i + 1, n) if np.allclose(out[i], out[j])}


identical_pairs = Exercise(
    key="00.identical_pairs",
    title="Find the tokens whose attention outputs are identical",
    answer_name="identical_pairs",
    expected=_identical_pairs,
    hint_text=(
        "Run self_attention on the six token vectors, then compare every pair of output rows "
        "(i < j) with np.allclose. Which words appear twice?"
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake("only the repeated 'the' was found, not the repeated 'dog'", lambda: {(0, 3)}),
        Mistake(
            "no pair: the copies were assumed to differ because their neighbours differ",
            lambda: set(),
        ),
    ),
)


def _normalised_steps(divide_by_n: bool = False) -> NDArray[np.float64]:
    lengths = range(2, 101)
    if divide_by_n:
        return np.array([1.0 / n for n in lengths])
    return np.array(
        [float(np.diff(encode("normalised", [0, 1], sentence_length=n)[:, 0])[0]) for n in lengths]
    )


normalised_step = Exercise(
    key="00.normalised_step",
    title="The step between neighbours of the normalised index, for lengths 2 to 100",
    answer_name="normalised_step",
    expected=_normalised_steps,
    hint_text=(
        "Position p of an n-token sentence gets p / (n - 1), so the first token gets 0 and the "
        "last gets 1. The step between neighbours is the same everywhere in one sentence. "
        "Build it for n = 2, 3, ..., 100 (99 values)."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "dividing by n instead of n - 1 (then the last token never reaches 1)",
            lambda: _normalised_steps(divide_by_n=True),
        ),
    ),
)

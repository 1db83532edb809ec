"""Exercises showing that attention ignores word order, and what a causal mask changes.

Notebook: 00_why_position.

Each expected answer is computed with posenc_lib (``self_attention``, ``causal_mask``,
``encode``), never pasted; each mistake is computed the way a learner would get it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.attention import (
    VOCAB,
    causal_mask,
    self_attention,
    softmax,
    word_order_model,
)
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.scorecard import encode

__all__ = ["causal_attention", "causal_twins", "normalised_collisions", "twins"]

_LIBRARY_ATTENTION = Shortcut(
    "posenc_lib's attention (self_attention, scaled_dot_product_attention, causal_mask)",
    r"\b(self_attention|scaled_dot_product_attention|causal_mask|word_order_model)\b",
    "out, _ = self_attention(x, w_q, w_k, w_v, mask=causal_mask(len(x)))",
)

# --- Exercise 1: which tokens are twins? ------------------------------------------------------

_TWIN_WORDS = ["the", "dog", "saw", "the", "other", "dog"]


def _twin_pairs() -> set[tuple[int, int]]:
    vocab = sorted(set(_TWIN_WORDS))
    table, w_q, w_k, w_v = word_order_model(8, 0, n_words=len(vocab))
    out, _ = self_attention(table[[vocab.index(w) for w in _TWIN_WORDS]], w_q, w_k, w_v)
    n = len(_TWIN_WORDS)
    return {(i, j) for i in range(n) for j in range(i + 1, n) if np.allclose(out[i], out[j])}


twins = Exercise(
    key="00.twins",
    title="Predict which tokens of 'the dog saw the other dog' get identical outputs",
    answer_name="twins",
    expected=_twin_pairs,
    hint_text=(
        "Without position, a token's output depends only on its own vector and on the "
        "collection of all vectors in the sentence, not on where anything stands. Which tokens "
        "enter with the same vector? Write every such pair (i, j) with i < j, counting from 0."
    ),
    level="warm-up",
    kind="prediction",
    objective=(
        "Predicts from permutation equivariance that every repeated word gets the same "
        "output, without running attention."
    ),
    minutes=5,
    mistakes=(
        Mistake("only the repeated 'the' was found, not the repeated 'dog'", lambda: {(0, 3)}),
        Mistake(
            "no pair: the copies were assumed to differ because their neighbours differ",
            lambda: set(),
        ),
        Mistake(
            "positions counted from 1 instead of 0",
            lambda: {(i + 1, j + 1) for i, j in _twin_pairs()},
        ),
    ),
    shortcuts=(
        Shortcut(
            "self_attention or np.allclose (predict by reasoning; the cell after the check runs "
            "attention)",
            r"\b(self_attention|scaled_dot_product_attention|allclose)\b",
            "twins = {(i, j) for i in range(6) for j in range(6) if np.allclose(o[i], o[j])}",
        ),
    ),
)

# --- Exercise 2: attention with a causal mask -------------------------------------------------


def _attention_inputs() -> tuple[NDArray[np.float64], ...]:
    """Five token vectors of width 4 and three 4x4 projections (seed 1)."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 4))
    w_q, w_k, w_v = rng.normal(size=(3, 4, 4))
    return x, w_q, w_k, w_v


def _masked_attention(
    allowed: NDArray[np.bool_] | None, *, scale: bool = True, renormalise: bool = True
) -> NDArray[np.float64]:
    """Attention on the seed-1 inputs with ``allowed`` keys per query, built the learner's way."""
    x, w_q, w_k, w_v = _attention_inputs()
    q, k, v = (x @ w for w in (w_q, w_k, w_v))
    scores = q @ k.T / (np.sqrt(q.shape[-1]) if scale else 1.0)
    if allowed is None:
        return softmax(scores) @ v
    if not renormalise:  # softmax over every key, then the future weights set to 0
        return np.where(allowed, softmax(scores), 0.0) @ v
    return softmax(np.where(allowed, scores, -np.inf)) @ v


causal_attention = Exercise(
    key="00.causal_attention",
    title="Write self-attention with a causal mask, from scratch",
    answer_name="causal_attention",
    expected=lambda: self_attention(*_attention_inputs(), mask=causal_mask(5))[0],
    call_with=_attention_inputs(),
    hint_text=(
        "Compute the scores Q @ K.T / sqrt(d) as before. Query t may look at keys 0 .. t only: "
        "set the scores above the diagonal to -inf (np.triu_indices or np.tril), so the "
        "softmax gives them weight 0 and the remaining weights of each row still sum to 1. "
        "Then return weights @ V."
    ),
    level="core",
    kind="construction",
    objective=(
        "Builds causal attention in NumPy: masks the scores of later tokens before a row-wise "
        "softmax, so each token mixes only itself and earlier tokens."
    ),
    minutes=15,
    mistakes=(
        Mistake(
            "no mask: every token still sees the whole sentence",
            lambda: _masked_attention(None),
        ),
        Mistake(
            "the mask points the wrong way: each token sees itself and the LATER tokens",
            lambda: _masked_attention(~causal_mask(5) | np.eye(5, dtype=bool)),
        ),
        Mistake(
            "the future weights are zeroed after the softmax, so the rows no longer sum to 1",
            lambda: _masked_attention(causal_mask(5), renormalise=False),
        ),
        Mistake(
            "the scores are not divided by sqrt(d)",
            lambda: _masked_attention(causal_mask(5), scale=False),
        ),
    ),
    shortcuts=(_LIBRARY_ATTENTION,),
)

# --- Exercise 3: does the mask tell "the mouse the cat ..." from "the cat the mouse ..."? -----

_CLAUSES = ("the mouse the cat was chasing", "the cat the mouse was chasing")
_WORDS = [sentence.split() for sentence in _CLAUSES]


def _causal_outputs(sentence: str) -> NDArray[Any]:
    table, w_q, w_k, w_v = word_order_model()
    x = table[[VOCAB.index(word) for word in sentence.split()]]
    return self_attention(x, w_q, w_k, w_v, mask=causal_mask(len(x)))[0]


def _same_causal_output() -> set[int]:
    a, b = (_causal_outputs(s) for s in _CLAUSES)
    return {t for t in range(len(a)) if np.allclose(a[t], b[t])}


causal_twins = Exercise(
    key="00.causal_twins",
    title="At which positions does a causal mask still confuse two reordered sentences?",
    answer_name="same_positions",
    expected=_same_causal_output,
    hint_text=(
        "With the mask, the output at position t depends on the word at t and on the "
        "collection of words at positions 0 .. t, in any order. For each t, compare the word at "
        "t and the words up to t in the two sentences."
    ),
    level="challenge",
    kind="explanation",
    objective=(
        "Explains that a causal mask makes the output at t depend on the unordered prefix "
        "only, and finds the positions where two reordered sentences stay indistinguishable."
    ),
    minutes=15,
    mistakes=(
        Mistake(
            "every position: the mask was assumed to leave attention blind to order",
            lambda: set(range(6)),
        ),
        Mistake(
            "only position 0: the mask was assumed to separate every later position",
            lambda: {0},
        ),
        Mistake(
            "the positions where the two sentences have the same word, whatever came before",
            lambda: {t for t, (u, w) in enumerate(zip(*_WORDS, strict=True)) if u == w},
        ),
    ),
)

# --- Exercise 4: how many different codes does the normalised index use? ----------------------

_LENGTHS = range(2, 13)


def _distinct_codes(*, divide_by_n: bool = False) -> int:
    if divide_by_n:
        codes = [p / n for n in _LENGTHS for p in range(n)]
    else:
        rows = [encode("normalised", range(n), sentence_length=n)[:, 0] for n in _LENGTHS]
        codes = [float(c) for row in rows for c in row]
    return len(set(codes))


normalised_collisions = Exercise(
    key="00.normalised_collisions",
    title="Count the different codes of the normalised index over sentences of 2 to 12 tokens",
    answer_name="n_codes",
    expected=_distinct_codes,
    hint_text=(
        "Collect t / (n - 1) for every position t = 0 .. n-1 of every length n = 2 .. 12 "
        "(77 positions in all) and count the different values: np.unique, or a Python set. "
        "Dividing two integers gives the same float whenever the fractions are equal."
    ),
    level="core",
    kind="derivation",
    objective=(
        "Counts how often the normalised index gives one code to different positions of "
        "different lengths, showing that it is inconsistent."
    ),
    minutes=10,
    mistakes=(
        Mistake(
            "no collision assumed: one code per position of every sentence",
            lambda: sum(_LENGTHS),
        ),
        Mistake(
            "dividing by n instead of n - 1 (then the last token never reaches 1)",
            lambda: _distinct_codes(divide_by_n=True),
        ),
    ),
)

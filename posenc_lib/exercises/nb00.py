"""Exercises showing that attention ignores word order, and what a causal mask changes.

Notebook: 00_why_position.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.attention import causal_mask, self_attention, softmax
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut

__all__ = ["SENTENCES", "causal_attention", "causal_twins", "equivariant_layers",
           "layers", "same_cat"]

_LIBRARY_ATTENTION = Shortcut(
    "posenc_lib's attention (self_attention, scaled_dot_product_attention, causal_mask)",
    r"\b(self_attention|scaled_dot_product_attention|causal_mask|word_order_model)\b",
    "out, _ = self_attention(x, w_q, w_k, w_v, mask=causal_mask(len(x)))")

_SENTENCE_A = "the cat was chasing the mouse"
SENTENCES = {
    "a": "the mouse was chasing the cat",
    "b": "chasing the cat the was mouse",
    "c": "the cat was chasing the cat",
    "d": "the cat was chasing mouse",
    "e": "the cat was chasing the mouse the",
}
"""Exercise 1's sentences, by letter: does the cat get the same output as in _SENTENCE_A?"""
_LETTERS = {"letters": "abcde"}
"""00.same_cat: the letter the prompt gives each sentence of SENTENCES, in their order (a graded
release may letter them otherwise: ``use``)."""


def _lettered(keys: set[str]) -> set[str]:
    """The prompt's letters of the sentences that SENTENCES keys as ``keys``."""
    return {_LETTERS["letters"][list(SENTENCES).index(key)] for key in keys}


def _letters(answer: Any) -> Any:
    """Letters a learner may write as a set, a list (nested too), "ab" or "a, b", in any case."""
    if isinstance(answer, str):
        return set(re.findall(r"[a-z]", answer.lower()))
    if isinstance(answer, (set, frozenset, list, tuple)):
        found: set[str] = set()
        for item in answer:
            letters = _letters(item)
            if not isinstance(letters, set):
                return answer  # not letters: let the check say what it expected
            found |= letters
        return found
    return answer


same_cat = Exercise(
    key="00.same_cat", answer_name="same_as_a", level="warm-up", kind="prediction", minutes=8,
    answer_form=_letters, params=_LETTERS,
    mistakes=(
        Mistake("the counts were ignored: a sentence with the same distinct words but one 'the' "
                "more or less changes the softmax's sum, and so the output",
                lambda: _lettered({"a", "b", "d", "e"})),
        Mistake("every sentence: the cat's own vector was taken to decide its output alone",
                lambda: _lettered(set(SENTENCES))),
        Mistake("only the reordered sentence that reads as English: any order of the same words "
                "gives the same output", lambda: _lettered({"a"})),
    ),
    shortcuts=(
        Shortcut("self_attention or np.allclose (predict by reasoning; the cell after the check "
                 "runs attention)",
                 r"\b(self_attention|scaled_dot_product_attention|allclose)\b",
                 "same_as_a = {{s for s in 'abcde' if np.allclose(cat(s), cat_a)}}"),
    ),
)


def _attention_inputs() -> tuple[NDArray[np.float64], ...]:
    """Five token vectors of width 4 and three 4x4 projections (seed 1)."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 4))
    w_q, w_k, w_v = rng.normal(size=(3, 4, 4))
    return x, w_q, w_k, w_v


def _masked_attention(
    allowed: NDArray[np.bool_] | None, *, scale: bool = True, renormalise: bool = True,
    fill: float = -np.inf,
) -> NDArray[np.float64]:
    """Attention on the seed-1 inputs with ``allowed`` keys per query, built the learner's way;
    a hidden score is replaced by ``fill`` before the softmax."""
    x, w_q, w_k, w_v = _attention_inputs()
    q, k, v = (x @ w for w in (w_q, w_k, w_v))
    scores = q @ k.T / (np.sqrt(q.shape[-1]) if scale else 1.0)
    if allowed is None:
        return softmax(scores) @ v
    if not renormalise:  # softmax over every key, then the future weights set to 0
        return np.where(allowed, softmax(scores), 0.0) @ v
    return softmax(np.where(allowed, scores, fill)) @ v


def _diagonal_masked_attention() -> NDArray[np.float64]:
    """Causal attention whose mask also hides the diagonal, with a learner's own softmax: row 0
    has no key, every score -inf, and exp(-inf - (-inf)) = NaN."""
    x, w_q, w_k, w_v = _attention_inputs()
    q, k, v = (x @ w for w in (w_q, w_k, w_v))
    scores = np.where(np.tri(5, k=-1, dtype=bool), q @ k.T / np.sqrt(q.shape[-1]), -np.inf)
    with np.errstate(invalid="ignore"):
        exp = np.exp(scores - np.max(scores, axis=1, keepdims=True))  # row 0: NaN
        return exp @ v / np.sum(exp, axis=1, keepdims=True)


causal_attention = Exercise(
    key="00.causal_attention", answer_name="causal_attention", level="core", kind="construction",
    minutes=15,
    call_with=_attention_inputs(),
    mistakes=(
        Mistake("no mask: every token still sees the whole sentence",
                lambda: _masked_attention(None)),
        Mistake("masked with 0, not −∞: a later key's score set to 0 still gets the weight "
                "exp(0) = 1 before normalising, so every token still sees the tokens after it",
                lambda: _masked_attention(causal_mask(5), fill=0.0)),
        Mistake("the mask points the wrong way: each token sees itself and the LATER tokens",
                lambda: _masked_attention(~causal_mask(5) | np.eye(5, dtype=bool))),
        Mistake("the future weights are zeroed after the softmax, so the rows no longer sum to 1",
                lambda: _masked_attention(causal_mask(5), renormalise=False)),
        Mistake("the scores are not divided by sqrt(d)",
                lambda: _masked_attention(causal_mask(5), scale=False)),
        Mistake("the mask also hides the diagonal: each token must see itself, and token 0, left "
                "with no key at all, gets a softmax of 0/0 = NaN", _diagonal_masked_attention),
    ),
    shortcuts=(_LIBRARY_ATTENTION,),
)

_CLAUSES = {"first": "the mouse the cat was chasing", "second": "the cat the mouse was chasing"}
"""00.causal_twins: the two sentences of six words, same words in another order."""


def _same_words() -> set[int]:
    """The positions where the two sentences have the same word."""
    first, second = (_CLAUSES[name].split() for name in ("first", "second"))
    return {t for t, (u, w) in enumerate(zip(first, second, strict=True)) if u == w}


causal_twins = Exercise(
    key="00.causal_twins", answer_name="same_positions", level="challenge", kind="explanation",
    minutes=15, params=_CLAUSES,
    mistakes=(
        Mistake("every position: the mask was assumed to leave attention blind to order",
                lambda: set(range(6))),
        Mistake("only position 0: the mask was assumed to separate every later position",
                lambda: {0}),
        Mistake("the positions where the two sentences have the same word, whatever came before",
                _same_words),
    ),
)


_LAYERS = {"names": ("row_mlp", "attention", "attention_plus_index", "causal_attention",
                     "running_mean", "centre", "sort_rows", "pool_broadcast")}
"""00.equivariant_layers: the eight layers :func:`layers` returns."""


def layers() -> dict[str, Callable[[NDArray[np.float64]], NDArray[np.float64]]]:
    """Exercise 4's eight layers by name, each mapping token vectors (n, 4) to (n, 4) with fixed
    weights (seed 3)."""
    rng = np.random.default_rng(3)
    w_1, w_2 = rng.normal(size=(2, 4, 4))
    table, w_q, w_k, w_v = rng.normal(size=(4, 4, 4))
    del table

    def attend(x: NDArray[np.float64], mask: Any = None) -> NDArray[np.float64]:
        return self_attention(x, w_q, w_k, w_v, mask=mask)[0]

    def positions(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.arange(len(x), dtype=float)[:, None] * np.ones((1, x.shape[1]))

    every = {
        "row_mlp": lambda x: np.tanh(x @ w_1) @ w_2,
        "attention": lambda x: attend(x),
        "attention_plus_index": lambda x: attend(x + positions(x)),
        "attention_plus_mean": lambda x: attend(x + x.mean(axis=0)),
        "causal_attention": lambda x: attend(x, causal_mask(len(x))),
        "running_mean": lambda x: np.cumsum(x, axis=0) / (1.0 + positions(x)),
        "centre": lambda x: x - x.mean(axis=0),
        "subtract_first": lambda x: x - x[0],
        "column_softmax": lambda x: np.exp(x) / np.exp(x).sum(axis=0),
        "roll_down": lambda x: np.roll(x, 1, axis=0),
        "sort_rows": lambda x: x[np.argsort(x[:, 0])],
        "pool_broadcast": lambda x: np.repeat(x.sum(axis=0, keepdims=True), len(x), axis=0),
    }
    return {name: every[name] for name in _LAYERS["names"]}


equivariant_layers = Exercise(
    key="00.equivariant_layers", answer_name="equivariant", level="core", kind="detector",
    minutes=15, params=_LAYERS,
    mistakes=(
        Mistake("invariance taken for equivariance: sort_rows gives the same output for every "
                "order, so it cannot reorder it with the input",
                lambda right: right | {"sort_rows"}, from_answer=True),
        Mistake("a layer whose output rows are all equal left out: reordering equal rows "
                "changes nothing, so f(x[p]) = f(x)[p] holds",
                lambda right: right - {"pool_broadcast"}, from_answer=True),
        Mistake("causal attention counted as equivariant: the mask ties each token to its place",
                lambda right: right | {"causal_attention"}, from_answer=True),
        Mistake("only the layers that never mix tokens: a layer that mixes them "
                "symmetrically is equivariant too", lambda: {"row_mlp"}),
    ),
)

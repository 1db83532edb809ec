"""The exercises of notebooks 00 to 02 that issue 21 rewrote or widened, checked against
computations made here another way (word counts, permutation matrices, the slow pair's angle)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from posenc_lib.exercises import _core, nb00
from tools import answer_key


@pytest.fixture(autouse=True)
def _no_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pass here is the test's, not a learner's: record nothing (conftest checks the file)."""
    monkeypatch.setattr(_core, "record_pass", lambda key: None)


def test_same_cat_is_the_sentences_with_the_same_word_counts() -> None:
    # permutation equivariance: the cat's output depends on the multiset of words only
    reference = Counter(nb00._SENTENCE_A.split())
    by_counts = {k for k, s in nb00.SENTENCES.items() if Counter(s.split()) == reference}
    assert by_counts == answer_key.same_cat() == {"a", "b"}
    assert nb00.same_cat.check(sorted(by_counts)).passed


@pytest.mark.parametrize("spelling", ["a, b", "AB", ["b", "a"], ("A", "B"), [["a"], ["b"]]])
def test_same_cat_accepts_every_spelling_of_the_letters(spelling: object) -> None:
    assert nb00.same_cat.check(spelling).passed


def test_same_cat_says_what_it_expected_for_other_types() -> None:
    result = nb00.same_cat.check(3)
    assert not result.passed and "collection" in result.message


def test_equivariant_layers_against_permutation_matrices() -> None:
    rng = np.random.default_rng(11)
    x = rng.normal(size=(6, 4))
    shift = np.roll(np.eye(6), 1, axis=0)  # a cyclic shift, as a matrix
    swap = np.eye(6)[[1, 0, 2, 3, 4, 5]]
    found = set()
    for name, layer in nb00.layers().items():
        out = layer(x)
        assert out.shape == (6, 4), name
        if all(np.allclose(layer(p @ x), p @ out) for p in (shift, swap)):
            found.add(name)
    assert found == answer_key.equivariant_layers() == {"row_mlp", "attention", "centre",
                                                          "pool_broadcast"}
    # sort_rows is invariant, not equivariant: the output ignores the order entirely
    sort_rows = nb00.layers()["sort_rows"]
    assert np.allclose(sort_rows(shift @ x), sort_rows(x))
    assert not np.allclose(sort_rows(shift @ x), shift @ sort_rows(x))


def _codes_by_hand(positions: np.ndarray, d: int = 64) -> np.ndarray:
    """Interleaved rows sin, cos of pos / 10000^(2i/d), computed here."""
    angle = np.asarray(positions, dtype=float)[:, None] / 10000.0 ** (np.arange(0, d, 2) / d)
    codes = np.empty((len(angle), d))
    codes[:, 0::2], codes[:, 1::2] = np.sin(angle), np.cos(angle)
    return codes


def test_decode_position_refuses_a_table_lookup_and_accepts_the_angles() -> None:
    from posenc_lib.exercises import nb02

    (codes,) = nb02.decode_position.call_with
    from tools.answer_key import DECODE_POSITIONS  # the answer: in the checkout, not the package

    np.testing.assert_allclose(codes, _codes_by_hand(np.array(DECODE_POSITIONS)), atol=1e-12)
    table = _codes_by_hand(np.arange(20001))

    def lookup(rows: np.ndarray) -> np.ndarray:  # nearest whole position: what the prompt forbids
        return np.array([np.argmin(((table - row) ** 2).sum(axis=1)) for row in rows], float)

    result = nb02.decode_position.check(lookup)
    assert not result.passed and "table of the codes of whole" in result.message

    def from_angles(rows: np.ndarray) -> np.ndarray:
        theta = 10000.0 ** (-62 / 64)  # the slowest pair, wavelength about 47000
        return np.arctan2(rows[:, -2], rows[:, -1]) / theta

    assert nb02.decode_position.check(from_angles).passed
    assert not nb02.decode_position.check(lambda rows: np.round(from_angles(rows))).passed


def test_a_causal_mask_that_hides_the_diagonal_is_named() -> None:
    from posenc_lib.exercises import nb00

    def learner(x, w_q, w_k, w_v):  # the mask keeps only the keys strictly before the query
        q, k, v = x @ w_q, x @ w_k, x @ w_v
        scores = q @ k.T / np.sqrt(q.shape[-1])
        scores[np.triu_indices(len(x))] = -np.inf
        with np.errstate(invalid="ignore"):
            weights = np.exp(scores - scores.max(axis=1, keepdims=True))
            return weights / weights.sum(axis=1, keepdims=True) @ v

    result = nb00.causal_attention.check(learner)
    assert not result.passed
    assert "NaN" in result.message and "hides the diagonal" in result.message


def test_masking_with_zero_instead_of_minus_infinity_is_named() -> None:
    """Issue 45: the most common mistake, future scores set to 0 (a 0/1 mask multiplied in)."""
    from posenc_lib.exercises import nb00

    def learner(x, w_q, w_k, w_v, fill=0.0):
        q, k, v = x @ w_q, x @ w_k, x @ w_v
        scores = q @ k.T / np.sqrt(q.shape[-1])
        scores = np.where(np.tril(np.ones((len(x), len(x)), dtype=bool)), scores, fill)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        return weights / weights.sum(axis=1, keepdims=True) @ v

    result = nb00.causal_attention.check(learner)
    assert not result.passed and "masked with 0, not −∞" in result.message

    def multiplied(x, w_q, w_k, w_v):  # a 0/1 mask multiplied into the scores
        q, k, v = x @ w_q, x @ w_k, x @ w_v
        scores = q @ k.T / np.sqrt(q.shape[-1]) * np.tril(np.ones((len(x), len(x))))
        weights = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
        return weights @ v

    assert "masked with 0, not −∞" in nb00.causal_attention.check(multiplied).message
    right = nb00.causal_attention.check(lambda *a: learner(*a, fill=-np.inf))
    assert right.passed and "masked with 0" not in right.message
    near = nb00.causal_attention.check(lambda *a: learner(*a, fill=-1.0))
    assert not near.passed and "masked with 0" not in near.message  # another fill, not named


def test_set_and_array_messages_agree_in_number() -> None:
    from posenc_lib.exercises._core import _compare

    assert _compare({1, 2}, {1, 2, 4}, 1e-6, 1e-9)[1] == "1 is missing."
    assert _compare({1, 2, 5, 6}, {1, 2, 4}, 1e-6, 1e-9)[1] == (
        "2 items should not be there and 1 is missing."
    )
    message = _compare(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 4.0]), 1e-6, 1e-9)[1]
    assert "1 of 3 values differs " in message


@pytest.mark.parametrize(
    ("answer", "expected", "passed", "message"),
    [
        ("Half ", "half", True, "The text matches."),
        (np.True_, True, True, "Right."),
        (1, True, False, "Expected True or False; got 1."),
        ([3, 1], {1, 3}, True, "All 2 items are right."),
        (7.0, 7, True, "Right number."),
        (True, 7, False, "Expected a whole number; got True."),
        ([0.5, 1.0], np.array([0.5, 1.0]), True, "Shape (2,) and all 2 values match"),
        (("half", 0.25), ("half", 0.25), True, "The choice and the evidence"),
        ("half", ("half", 0.25), False, "Answer with a pair"),
    ],
)
def test_compare_dispatches_on_the_kind_of_the_expected_answer(
    answer: object, expected: object, passed: bool, message: str
) -> None:
    from posenc_lib.exercises._core import _compare

    ok, text = _compare(answer, expected, 1e-6, 1e-9)
    assert ok is passed and text.startswith(message)

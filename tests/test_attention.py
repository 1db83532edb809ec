"""Tests for posenc_lib.attention: softmax, attention, masks, equivariance and bad inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from posenc_lib.attention import (
    causal_mask,
    permutation_equivariance_gap,
    scaled_dot_product_attention,
    self_attention,
    softmax,
)

score_arrays = arrays(
    np.float64,
    st.tuples(st.integers(1, 5), st.integers(1, 6)),
    elements=st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
)


def reference_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray
) -> tuple[list[list[float]], list[list[float]]]:
    """Single-example attention written with loops and math.exp."""
    d = len(q[0])
    weights = []
    for qi in q:
        scores = [sum(a * b for a, b in zip(qi, kj, strict=True)) / math.sqrt(d) for kj in k]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        weights.append([e / sum(exps) for e in exps])
    outputs = [
        [sum(w * vj[c] for w, vj in zip(row, v, strict=True)) for c in range(len(v[0]))]
        for row in weights
    ]
    return outputs, weights


# ---------------------------------------------------------------- softmax


@settings(max_examples=60, deadline=None)
@given(scores=score_arrays, shift=st.floats(-1e3, 1e3))
def test_softmax_sums_to_one_and_is_shift_invariant(scores: np.ndarray, shift: float) -> None:
    probs = softmax(scores)
    assert probs.shape == scores.shape
    assert np.all(probs >= 0)
    np.testing.assert_allclose(probs.sum(axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(softmax(scores + shift), probs, atol=1e-9)


def test_softmax_against_math_and_axis() -> None:
    s = [0.5, -1.0, 2.0]
    total = sum(math.exp(x) for x in s)
    np.testing.assert_allclose(softmax(s), [math.exp(x) / total for x in s], rtol=1e-14)
    m = np.array([[1.0, 2.0], [3.0, 5.0]])
    np.testing.assert_allclose(softmax(m, axis=0).sum(axis=0), 1.0)
    np.testing.assert_allclose(softmax(m, axis=0)[:, 0], softmax(m[:, 0]))


def test_softmax_large_scores_and_masked_entries() -> None:
    np.testing.assert_allclose(softmax([1e4, 1e4 - math.log(3)]), [0.75, 0.25])
    np.testing.assert_array_equal(softmax([0.0, -np.inf, 0.0]), [0.5, 0.0, 0.5])


# ---------------------------------------------------------------- attention


def test_attention_against_loop_reference() -> None:
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    out, weights = scaled_dot_product_attention(q, k, v)
    ref_out, ref_weights = reference_attention(q, k, v)
    assert out.shape == (3, 2) and weights.shape == (3, 5)
    np.testing.assert_allclose(weights, ref_weights, rtol=1e-12)
    np.testing.assert_allclose(out, ref_out, rtol=1e-12, atol=1e-14)


def test_attention_batched_matches_per_example() -> None:
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(2, 3, 3, 4)), rng.normal(size=(2, 3, 6, 4)), rng.normal(size=(6, 5))
    out, weights = scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 3, 3, 5) and weights.shape == (2, 3, 3, 6)
    for a in range(2):
        for b in range(3):
            o, w = scaled_dot_product_attention(q[a, b], k[a, b], v)
            np.testing.assert_allclose(out[a, b], o, atol=1e-14)
            np.testing.assert_allclose(weights[a, b], w, atol=1e-14)


def test_bias_is_added_to_scaled_scores() -> None:
    rng = np.random.default_rng(2)
    q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    bias = rng.normal(size=(4, 4))
    _, weights = scaled_dot_product_attention(q, k, v, bias=bias)
    np.testing.assert_allclose(weights, softmax(q @ k.T / math.sqrt(3) + bias), atol=1e-14)
    # a constant per-row bias changes nothing
    _, same = scaled_dot_product_attention(q, k, v, bias=np.arange(4.0)[:, None])
    np.testing.assert_allclose(same, softmax(q @ k.T / math.sqrt(3)), atol=1e-14)
    # -inf in the bias acts like a mask
    big = np.where(causal_mask(4), 0.0, -np.inf)
    _, masked = scaled_dot_product_attention(q, k, v, mask=causal_mask(4))
    _, biased = scaled_dot_product_attention(q, k, v, bias=big)
    np.testing.assert_allclose(masked, biased, atol=1e-15)


def test_causal_mask_gives_zero_weight_above_diagonal() -> None:
    n = 6
    mask = causal_mask(n)
    assert mask.dtype == np.bool_ and mask.shape == (n, n)
    assert mask.tolist() == [[j <= i for j in range(n)] for i in range(n)]
    rng = np.random.default_rng(3)
    x = rng.normal(size=(n, 4))
    _, weights = self_attention(x, *rng.normal(size=(3, 4, 4)), mask=mask)
    assert np.all(weights[np.triu_indices(n, k=1)] == 0.0)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
    np.testing.assert_array_equal(weights[0], np.eye(n)[0])  # the first token sees only itself


# ---------------------------------------------------------------- no position, no order


def test_equivariance_gap_is_at_rounding_level() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(7, 8))
    w_q, w_k, w_v = rng.normal(size=(3, 8, 8))
    perm = rng.permutation(7)
    assert permutation_equivariance_gap(x, w_q, w_k, w_v, perm) < 1e-13
    # the gap measures a real property: adding a position encoding after the permutation breaks it
    pe = np.sin(np.arange(7.0)[:, None] * np.linspace(0.1, 1.0, 8)[None, :])
    permuted_out, _ = self_attention(x[perm] + pe, w_q, w_k, w_v)
    original_out, _ = self_attention(x + pe, w_q, w_k, w_v)
    assert np.max(np.abs(permuted_out - original_out[perm])) > 1e-3


def test_duplicate_tokens_get_identical_outputs() -> None:
    rng = np.random.default_rng(5)
    vocab = rng.normal(size=(5, 6))
    sentence = [0, 1, 2, 3, 0, 4]  # "the cat was chasing the mouse": "the" twice
    x = vocab[sentence]
    out, weights = self_attention(x, *rng.normal(size=(3, 6, 6)))
    np.testing.assert_array_equal(out[0], out[4])
    np.testing.assert_array_equal(weights[0], weights[4])


def test_swapped_sentence_permutes_outputs() -> None:
    rng = np.random.default_rng(6)
    vocab = rng.normal(size=(5, 6))
    w = rng.normal(size=(3, 6, 6))
    a = [0, 1, 2, 3, 0, 4]  # the cat was chasing the mouse
    b = [0, 4, 2, 3, 0, 1]  # the mouse was chasing the cat
    out_a, _ = self_attention(vocab[a], *w)
    out_b, _ = self_attention(vocab[b], *w)
    np.testing.assert_allclose(out_b, out_a[[0, 5, 2, 3, 4, 1]], atol=1e-14)


# ---------------------------------------------------------------- bad inputs


def test_bad_softmax_inputs() -> None:
    with pytest.raises(ValueError, match="scores"):
        softmax([1.0, float("nan")])
    with pytest.raises(ValueError, match="scores"):
        softmax([1.0, float("inf")])
    with pytest.raises(ValueError, match="scores"):
        softmax([-np.inf, -np.inf])
    with pytest.raises(ValueError, match="scores"):
        softmax(3.0)
    with pytest.raises(ValueError, match="scores"):
        softmax(np.zeros((2, 0)))
    with pytest.raises(TypeError, match="scores"):
        softmax([True, False])
    with pytest.raises(TypeError, match="scores"):
        softmax(["a"])
    with pytest.raises(ValueError, match="axis"):
        softmax([[1.0, 2.0]], axis=2)
    with pytest.raises(TypeError, match="axis"):
        softmax([1.0, 2.0], axis=True)
    with pytest.raises(TypeError, match="axis"):
        softmax([1.0, 2.0], axis=0.0)  # type: ignore[arg-type]


def test_bad_attention_shapes() -> None:
    q, k, v = np.ones((2, 4)), np.ones((3, 4)), np.ones((3, 5))
    with pytest.raises(ValueError, match="q and k"):
        scaled_dot_product_attention(q, np.ones((3, 5)), v)
    with pytest.raises(ValueError, match="v must"):
        scaled_dot_product_attention(q, k, np.ones((4, 5)))
    with pytest.raises(ValueError, match="q must"):
        scaled_dot_product_attention(np.ones(4), k, v)
    with pytest.raises(ValueError, match="k must"):
        scaled_dot_product_attention(q, np.ones(4), v)
    with pytest.raises(ValueError, match="q must"):
        scaled_dot_product_attention(np.ones((2, 0)), np.ones((3, 0)), v)
    with pytest.raises(ValueError, match="batch"):
        scaled_dot_product_attention(np.ones((2, 2, 4)), np.ones((3, 3, 4)), v)
    with pytest.raises(ValueError, match="q must"):
        scaled_dot_product_attention([[float("nan")] * 4] * 2, k, v)
    with pytest.raises(TypeError, match="v must"):
        scaled_dot_product_attention(q, k, np.ones((3, 5), dtype=bool))


def test_bad_mask_and_bias() -> None:
    q, k, v = np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2))
    with pytest.raises(TypeError, match="mask"):
        scaled_dot_product_attention(q, k, v, mask=np.ones((3, 3)))
    with pytest.raises(ValueError, match="mask"):
        scaled_dot_product_attention(q, k, v, mask=np.ones((4, 4), dtype=bool))
    with pytest.raises(ValueError, match="mask"):
        scaled_dot_product_attention(q, k, v, mask=np.ones((2, 3, 3), dtype=bool))
    no_keys = causal_mask(3).copy()
    no_keys[1] = False
    with pytest.raises(ValueError, match="mask"):
        scaled_dot_product_attention(q, k, v, mask=no_keys)
    with pytest.raises(ValueError, match="bias"):
        scaled_dot_product_attention(q, k, v, bias=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="bias"):
        scaled_dot_product_attention(q, k, v, bias=np.full((3, 3), np.nan))
    with pytest.raises(ValueError, match="bias"):
        scaled_dot_product_attention(q, k, v, bias=np.full((3, 3), np.inf))
    with pytest.raises(TypeError, match="bias"):
        scaled_dot_product_attention(q, k, v, bias=True)


def test_bad_self_attention_inputs() -> None:
    x, w = np.ones((3, 4)), np.ones((4, 2))
    with pytest.raises(ValueError, match="x must"):
        self_attention(np.ones(4), w, w, w)
    with pytest.raises(ValueError, match="w_q"):
        self_attention(x, np.ones((3, 2)), w, w)
    with pytest.raises(ValueError, match="w_k"):
        self_attention(x, w, np.ones((5, 2)), w)
    with pytest.raises(ValueError, match="w_v"):
        self_attention(x, w, w, np.ones((2, 2)))
    with pytest.raises(ValueError, match="w_k"):
        self_attention(x, w, np.ones((4, 3)), w)
    with pytest.raises(ValueError, match="x must"):
        self_attention(np.full((3, 4), np.inf), w, w, w)


@pytest.mark.parametrize(
    ("value", "error"), [(0, ValueError), (-2, ValueError), (3.0, TypeError), (True, TypeError)]
)
def test_bad_causal_mask_size(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="n must"):
        causal_mask(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("perm", "error"),
    [
        ([0, 1, 1], ValueError),
        ([0, 1], ValueError),
        ([0, 1, 3], ValueError),
        ([0.0, 1.0, 2.0], ValueError),
        ([[0, 1, 2]], ValueError),
        ([True, False, True], TypeError),
    ],
)
def test_bad_permutation(perm: object, error: type[Exception]) -> None:
    x, w = np.ones((3, 4)), np.ones((4, 4))
    with pytest.raises(error, match="permutation"):
        permutation_equivariance_gap(x, w, w, w, perm)


def test_overflow_is_an_error_not_nan() -> None:
    big = np.array([[1e200, -1e200], [1e200, 1e200]])
    with pytest.raises(ValueError, match="q and k"):
        scaled_dot_product_attention(big, big, np.ones((2, 1)))
    q = np.array([[1e154, 0.0]])  # score 1e308 / sqrt(2): finite until the bias is added
    with pytest.raises(ValueError, match="bias"):
        scaled_dot_product_attention(q, q, np.ones((1, 1)), bias=np.full((1, 1), 1.7e308))

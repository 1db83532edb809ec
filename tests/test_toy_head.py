"""The trained look-back head of notebook 04 (issue 45 item 6): the gradient is the loss's, the
spread lambda_p is the variance it names, and the trained result (seed 0) is pinned by orderings
and bounds, not by digits of trained weights (they differ between CPUs)."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.toy_head import pair_spread, train_lookback_head


def _loss(kind: str, w: np.ndarray, n: int, d: int, k: int) -> float:
    """The loss written out with loops: -log of the softmax weight on key i - k, mean over i."""
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    total = 0.0
    for i in range(k, n):
        scores = []
        for j in range(i + 1):
            if kind == "additive":
                pe_i = np.ravel(np.column_stack([np.sin(i * theta), np.cos(i * theta)]))
                pe_j = np.ravel(np.column_stack([np.sin(j * theta), np.cos(j * theta)]))
                scores.append(pe_i @ w.reshape(d, d) @ pe_j)
            else:
                a, b = w[0::2], w[1::2]
                scores.append(np.sum(a * np.cos(theta * (i - j)) + b * np.sin(theta * (i - j))))
        scores = np.array(scores)
        total -= scores[i - k] - np.log(np.sum(np.exp(scores - scores.max()))) - scores.max()
    return total / (n - k)


@pytest.mark.parametrize("kind", ["additive", "rope"])
def test_one_step_follows_the_numerical_gradient_of_the_loss(kind: str) -> None:
    n, d, k, lr = 9, 6, 2, 1e-3
    head = train_lookback_head(kind, k=k, n_positions=n, d_model=d, steps=1, learning_rate=lr,
                               seed=3)
    w0 = head.start.ravel()
    h = 1e-6
    grad = np.array([(_loss(kind, w0 + h * e, n, d, k) - _loss(kind, w0 - h * e, n, d, k)) / (2 * h)
                     for e in np.eye(w0.size)])
    np.testing.assert_allclose(head.weights.ravel(), w0 - lr * grad, atol=1e-9)


def test_the_spread_is_the_mean_variance_of_each_key_pair() -> None:
    n, d, k = 20, 8, 4
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    expected = [np.mean([np.var(np.sin(theta[p] * np.arange(i + 1)))
                         + np.var(np.cos(theta[p] * np.arange(i + 1))) for i in range(k, n)])
                for p in range(d // 2)]
    np.testing.assert_allclose(pair_spread(n, d, k), expected, rtol=1e-12)


@pytest.fixture(scope="module")
def heads() -> dict[str, object]:
    return {kind: train_lookback_head(kind, seed=0) for kind in ("additive", "rope")}


def _ranks(x: np.ndarray) -> np.ndarray:
    return np.argsort(np.argsort(x))


@pytest.mark.parametrize("kind", ["additive", "rope"])
def test_the_trained_head_looks_back_and_its_slow_pairs_barely_move(heads, kind: str) -> None:
    head = heads[kind]
    spread = pair_spread(32, 16, 3)
    assert head.attention_on_target > 0.99  # from 1/(i+1) at a uniform start
    movement = head.pair_movement
    rho = np.corrcoef(_ranks(movement), _ranks(spread))[0, 1]  # Spearman's rank correlation
    assert rho >= 0.95
    assert movement[-1] < 0.01 * movement[0]
    # the slow pairs: movement follows sqrt(lambda_p), which falls by sqrt(10) from pair to pair
    ratio = movement[3:-1] / movement[4:]
    assert np.all((ratio > 2.5) & (ratio < 4.0)), ratio
    np.testing.assert_allclose(spread[3:-1] / spread[4:], 10.0, rtol=0.05)


def test_zero_steps_leave_the_start_and_bad_input_is_named() -> None:
    head = train_lookback_head("rope", steps=0, seed=1)
    assert np.array_equal(head.start, head.weights) and not head.pair_movement.any()
    uniform = np.mean([1 / (i + 1) for i in range(3, 32)])
    assert train_lookback_head("rope", steps=0, init_scale=0.0).attention_on_target == (
        pytest.approx(uniform))
    with pytest.raises(ValueError, match="kind"):
        train_lookback_head("alibi")
    with pytest.raises(ValueError, match="k must be below n_positions = 8; got 8"):
        train_lookback_head("rope", k=8, n_positions=8)
    with pytest.raises(ValueError, match="learning_rate"):
        train_lookback_head("rope", learning_rate=1e3)
    with pytest.raises(TypeError, match="steps"):
        train_lookback_head("rope", steps=2.5)

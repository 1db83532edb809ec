"""The lab's control and statistics code (issue 31): fine-tune checkpoints, the plain fine-tune
without interpolation, bootstrap intervals, the "borderline" label and the token budgets, each
against an independent computation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from posenc_lib.lab import results as lab_results  # noqa: E402
from posenc_lib.lab.train import (  # noqa: E402
    TrainConfig,
    Trained,
    accuracy_by_position,
    at_checkpoint,
    fine_tune,
    train,
)


@pytest.fixture(scope="module")
def short_rope() -> Trained:
    return train("rope", "copy_back", 0, tcfg=TrainConfig(steps=150), progress=False)


def test_the_last_checkpoint_is_the_finished_run_and_earlier_ones_differ(short_rope: Trained
                                                                         ) -> None:
    tuned = fine_tune(short_rope, "pi", 64, steps=12, checkpoints=(3, 12), progress=False)
    assert sorted(tuned.checkpoints) == [3, 12]
    last = jax.tree_util.tree_leaves(at_checkpoint(tuned, 12).params)
    for a, b in zip(last, jax.tree_util.tree_leaves(tuned.params), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    early = jax.tree_util.tree_leaves(at_checkpoint(tuned, 3).params)
    assert any(not np.array_equal(np.asarray(a), np.asarray(b))
               for a, b in zip(early, last, strict=True))
    # a checkpoint keeps the fine-tune's own extension and factor
    assert (at_checkpoint(tuned, 3).extension, at_checkpoint(tuned, 3).factor) == ("pi", 2.0)
    with pytest.raises(ValueError, match="steps must be one of the kept checkpoints"):
        at_checkpoint(tuned, 5)
    with pytest.raises(ValueError, match="checkpoints must be at most steps=12"):
        fine_tune(short_rope, "pi", 64, steps=12, checkpoints=(13,), progress=False)


def test_the_plain_fine_tune_uses_the_unscaled_angles(short_rope: Trained) -> None:
    """The control trains at the new length with RoPE unchanged: scoring it equals scoring its
    parameters as an ordinary RoPE model, with no interpolation."""
    plain = fine_tune(short_rope, "none", 64, steps=3, progress=False)  # 3 <= 10 warm-up steps
    as_rope = Trained(plain.params, "rope", "copy_back", 0, short_rope.cfg, short_rope.tcfg,
                      np.zeros(0))
    np.testing.assert_array_equal(accuracy_by_position(plain, 64),
                                  accuracy_by_position(as_rope, 64))
    assert plain.trained_length == 32 and plain.tcfg.length == 64


def _exact_bootstrap_quantiles(values: list[float], level: float = 0.95) -> tuple[float, float]:
    """Every one of the n**n equally likely resamples, enumerated (small n only)."""
    means = sorted(np.mean(draw) for draw in itertools.product(values, repeat=len(values)))
    return (float(np.quantile(means, (1 - level) / 2)),
            float(np.quantile(means, (1 + level) / 2)))


@pytest.mark.parametrize("values", [[0.2, 0.9, 0.95, 1.0, 0.4], [0.96, 0.89, 0.96, 0.82, 0.97]])
def test_the_bootstrap_interval_matches_the_exact_resampling_distribution(values: list[float]
                                                                          ) -> None:
    low, high = lab_results.bootstrap_interval(values)
    exact = _exact_bootstrap_quantiles(values)
    assert low == pytest.approx(exact[0], abs=0.01) and high == pytest.approx(exact[1], abs=0.01)
    assert low < np.mean(values) < high


def test_the_difference_interval_is_centred_on_the_difference_of_the_means() -> None:
    a, b = [0.9, 0.95, 1.0, 0.85, 0.92], [0.5, 0.55, 0.45, 0.6, 0.52]
    low, high = lab_results.bootstrap_interval(a, b)
    assert low < np.mean(a) - np.mean(b) < high
    # the difference's interval is wider than either mean's alone
    for one in (a, b):
        one_low, one_high = lab_results.bootstrap_interval(one)
        assert high - low > one_high - one_low
    with pytest.raises(ValueError, match="other must be a non-empty 1-D array"):
        lab_results.bootstrap_interval(a, [])


def test_borderline_when_the_interval_of_the_drop_crosses_the_tolerance() -> None:
    # five seeds learned at 1x; their drops straddle -0.1: 3 hold, 2 drop
    rows = np.array([[1.0, 1.0, 0.95, 0.5], [1.0, 1.0, 0.96, 0.5], [1.0, 1.0, 0.92, 0.5],
                     [1.0, 1.0, 0.85, 0.5], [1.0, 1.0, 0.82, 0.5]])
    found = lab_results.cell_verdict({("t", "m"): rows}, "t", "m")
    assert (found.label, found.holding, found.learned) == ("borderline", 3, 5)
    clear = rows.copy()
    clear[:, 2] = [0.99, 0.98, 0.97, 0.99, 0.98]
    assert lab_results.cell_verdict({("t", "m"): clear}, "t", "m").label == "holds"
    # at 8x every seed falls by 0.5: drops, read from the 8x column
    assert lab_results.cell_verdict({("t", "m"): rows}, "t", "m", 8).label == "drops"
    # most seeds not learned: no verdict, however the one that learned behaves
    unlearned = np.array([[0.95, 0, 0, 0]] + [[0.85, 0, 0, 0]] * 4)
    found = lab_results.cell_verdict({("t", "m"): unlearned}, "t", "m")
    assert (found.label, found.not_learned) == ("not learned", 4)


def test_token_budgets_of_the_issue() -> None:
    """Issue 31's arithmetic: pretraining 800 x 16 x 32, a 300-step fine-tune at 128 tokens
    is 1.5 times it and 60 steps 30 %."""
    pretraining = lab_results.token_budget(800, 16, 32)
    assert pretraining == 409_600
    assert lab_results.token_budget(300, 16, 128) / pretraining == 1.5
    assert lab_results.token_budget(60, 16, 128) / pretraining == pytest.approx(0.3)

"""The lab's verdict rule (issue 47): t quantiles against printed values and SciPy, the t
interval against its definition, the verdict decided among the seeds that learned, "borderline"
only where the interval crosses the cutoff, and paired method comparisons."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc_lib.lab import results as lab_results
from posenc_lib.lab.verdicts import paired_difference, t_interval, t_quantile, verdict

# t_{0.975, df} as printed in the usual textbook tables (three decimals), e.g. NIST/SEMATECH
# e-Handbook of Statistical Methods, table 1.3.6.7.2 ("Critical values of the Student's t").
PRINTED = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 10: 2.228, 14: 2.145,
           19: 2.093, 29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000, 100: 1.984}


@pytest.mark.parametrize(("df", "printed"), sorted(PRINTED.items()))
def test_t_quantiles_are_the_printed_ones(df: int, printed: float) -> None:
    assert round(t_quantile(df), 3) == printed


def test_t_quantiles_agree_with_scipy_for_every_df() -> None:
    stats = pytest.importorskip("scipy.stats")
    for df in range(1, 400):
        assert t_quantile(df) == pytest.approx(stats.t.ppf(0.975, df), abs=1e-4), df


def test_the_t_interval_is_the_mean_plus_or_minus_t_standard_errors() -> None:
    values = [0.91, 0.97, 0.84, 0.99, 0.88]
    mean, low, high = t_interval(values)
    # written out: s^2 = sum (x - mean)^2 / (n - 1), half-width = t_{0.975, 4} s / sqrt(5)
    average = sum(values) / 5
    s = math.sqrt(sum((v - average) ** 2 for v in values) / 4)
    assert mean == pytest.approx(average)
    assert (low, high) == pytest.approx((average - 2.776 * s / math.sqrt(5),
                                         average + 2.776 * s / math.sqrt(5)), abs=1e-4)
    stats = pytest.importorskip("scipy.stats")
    expected = stats.t.interval(0.95, 4, loc=average, scale=s / math.sqrt(5))
    assert (low, high) == pytest.approx(expected, abs=1e-5)


def test_the_t_interval_is_wider_than_the_percentile_bootstrap_on_five_seeds() -> None:
    """The issue's complaint: over 5 seeds the bootstrap's interval is much narrower."""
    values = [0.62, 0.75, 0.71, 0.58, 0.80]
    _, low, high = t_interval(values)
    boot_low, boot_high = lab_results.bootstrap_interval(values)
    assert (high - low) > 1.3 * (boot_high - boot_low)


def test_a_cell_is_decided_among_the_seeds_that_learned() -> None:
    """Issue 47's case: the learned table on copy_back with four more seeds, two of which never
    learned the task (0.78 and 0.56 at 1x) while the two that did fell to chance like the rest.
    Counting the unlearned seeds made it "mixed 10/14"; among those that learned it drops."""
    grid = lab_results.load("curves")["curves"]
    rows = lab_results.summary(grid, 32)[("copy_back", "learned")]
    first, at_4x = rows[:, 0], rows[:, 2]
    assert len(first) == 10 and np.sum(first < 0.9) == 2  # two committed seeds never learned
    first = np.concatenate([first, [1.0, 0.99, 0.78, 0.56]])
    at_4x = np.concatenate([at_4x, [0.03, 0.03, 0.04, 0.03]])
    found = verdict(first, at_4x)
    assert found.label == "drops"
    assert (found.learned, found.not_learned, found.seeds, found.holding) == (10, 4, 14, 0)
    learned = first >= 0.9
    assert found.effect == pytest.approx(np.mean(at_4x[learned] - first[learned]))
    assert found.interval[1] < -0.1
    assert "4 of 14 did not learn" in str(found) and str(found).startswith("drops (")
    # the unlearned seeds do not move the verdict, whatever they score at 4x
    moved = at_4x.copy()
    moved[~learned] = first[~learned]  # they would all "hold"
    assert verdict(first, moved) == found


def test_borderline_only_where_the_interval_crosses_the_cutoff() -> None:
    near_but_clear = np.array([-0.105, -0.106, -0.104, -0.105, -0.105])  # all within 0.01
    ones = np.ones(5)
    assert verdict(ones, ones + near_but_clear).label == "drops"
    assert verdict(ones, ones + near_but_clear + 0.01).label == "holds"
    straddling = np.array([-0.05, -0.15, -0.08, -0.12, -0.10])
    found = verdict(ones, ones + straddling)
    assert found.label == "borderline"
    assert found.interval[0] < -0.1 < found.interval[1]
    assert found.holding == 3  # -0.05, -0.08 and -0.10 stay within 0.1


def test_fewer_than_two_learned_seeds_give_no_verdict() -> None:
    found = verdict([0.95, 0.5, 0.4], [0.2, 0.5, 0.4])
    assert found.label == "not learned" and found.not_learned == 2
    assert str(found) == "not learned (2 of 3 did not learn)"
    assert math.isnan(found.effect)


def test_a_paired_comparison_sees_what_two_overlapping_groups_hide() -> None:
    """Each seed's method beats its own baseline by 0.05, while across seeds the two sets
    overlap: pairing by seed finds the difference, an unpaired interval would not."""
    baseline = np.array([0.3, 0.5, 0.7, 0.9, 0.4])
    method = baseline + np.array([0.05, 0.04, 0.06, 0.05, 0.05])
    found = paired_difference(method, baseline)
    assert found.label == "better" and found.difference == pytest.approx(0.05)
    assert found.interval[0] > 0 and found.seeds == 5
    low, high = lab_results.bootstrap_interval(method, baseline)
    assert low < 0 < high  # the unpaired interval contains 0
    assert paired_difference(baseline, method).label == "worse"
    assert paired_difference(method, method[::-1]).label == "no clear difference"


def test_compared_pairs_the_same_models_over_the_seeds_where_the_baseline_learned() -> None:
    stats = {("t", "rope"): np.array([[1.0, 0, 0.5, 0], [0.95, 0, 0.4, 0], [0.5, 0, 0.5, 0]]),
             ("t", "yarn"): np.array([[1.0, 0, 0.7, 0], [0.95, 0, 0.5, 0], [0.5, 0, 0.0, 0]]),
             ("t", "short"): np.array([[1.0, 0, 0.7, 0]])}
    found = lab_results.compared(stats, "t", "yarn")
    assert found.seeds == 2 and found.difference == pytest.approx(0.15)  # the third is left out
    with pytest.raises(ValueError, match="baseline 'rope' has 3 seeds on 't', method 'short' 1"):
        lab_results.compared(stats, "t", "short")
    with pytest.raises(ValueError, match="multiple must be one of"):
        lab_results.compared(stats, "t", "yarn", multiple=3)


@pytest.mark.parametrize(("call", "words"), [
    (lambda: t_quantile(0), "df"),
    (lambda: t_interval([0.5]), "at least 2 seeds"),
    (lambda: t_interval([0.5, float("nan")]), "values must be a 1-D array of finite"),
    (lambda: verdict([1.0, 1.0], [1.0]), "later must have one value per seed"),
    (lambda: paired_difference([1.0, 1.0], [[1.0, 1.0]]), "baseline must be a 1-D array"),
])
def test_bad_input_names_the_parameter(call, words: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=words):
        call()

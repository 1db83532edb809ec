"""The lab's verdict rule, on plain arrays of per-seed accuracies (NumPy only, no JAX).

A cell is decided among the seeds that learned its task at 1x (accuracy at least 0.9 there);
the others are counted beside the verdict, never in it. Its effect is the mean change from 1x
to the longer length over those seeds, with a Student t 95% interval: *holds* when the whole
interval lies above the cutoff -0.1, *drops* when it lies below, *borderline* only when it
crosses. Two methods are compared seed by seed (the same model read two ways), by the t
interval of the paired differences.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_int

__all__ = ["LEARNED_AT", "TOLERANCE", "Comparison", "Verdict", "paired_difference",
           "t_interval", "t_quantile", "verdict"]

LEARNED_AT = 0.9  # a seed learned its task: accuracy a_1 >= 0.9 at 1x
TOLERANCE = 0.1  # a cell holds when the change a_m - a_1 stays above -0.1
_MIN_LEARNED = 2  # seeds that learned, at least: one seed has no spread, so no interval
# t_{0.975, df}, the 97.5% quantile of Student's t with df = 1 .. 30 degrees of freedom
# (tests/test_lab_statistics.py checks it against SciPy and a printed table).
_T_975 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
          2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
          2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)
_Z_975 = 1.959964  # the normal quantile the t quantiles tend to


def t_quantile(df: int) -> float:
    """The 97.5% quantile of Student's t distribution with ``df`` degrees of freedom.

    Parameters
    ----------
    df : int
        Degrees of freedom, at least 1 (n - 1 for n seeds).

    Returns
    -------
    float
        From a table for df <= 30, else Cornish-Fisher's expansion about the normal quantile z.

    Examples
    --------
    >>> t_quantile(4)
    2.7764
    >>> round(t_quantile(1000), 3)
    1.962
    """
    df = check_int("df", df)
    if df <= len(_T_975):
        return _T_975[df - 1]
    z = _Z_975
    # t = z + (z^3 + z)/(4 df) + (5z^5 + 16z^3 + 3z)/(96 df^2)
    #       + (3z^7 + 19z^5 + 17z^3 - 15z)/(384 df^3)
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))


def _finite_1d(name: str, values: Any) -> NDArray[np.float64]:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be a 1-D array of finite numbers; got {values!r}")
    return array


def _per_seed(name: str, values: Any, other_name: str, other: Any) -> tuple[
        NDArray[np.float64], NDArray[np.float64]]:
    """``values`` and ``other`` as 1-D finite arrays with one value per seed each."""
    values, other = _finite_1d(name, values), _finite_1d(other_name, other)
    if values.shape != other.shape:
        raise ValueError(f"{other_name} must have one value per seed of {name} ({len(values)}); "
                         f"got {len(other)}")
    return values, other


def _with_interval(label: str, estimate: float, interval: tuple[float, float], rest: str) -> str:
    """``label (estimate [low, high], rest)``, the three numbers signed to three decimals."""
    low, high = interval
    return f"{label} ({estimate:+.3f} [{low:+.3f}, {high:+.3f}], {rest})"


def t_interval(values: Any) -> tuple[float, float, float]:
    """The mean of ``values`` (one per seed) and its Student t 95% interval.

    Parameters
    ----------
    values : array_like, shape (n,), n >= 2

    Returns
    -------
    mean, low, high : float
        mean -/+ t_{0.975, n-1} s / sqrt(n), s the standard deviation with n - 1.

    Examples
    --------
    >>> t_interval([1.0, 3.0])
    (2.0, -10.7062, 14.7062)
    """
    values = _finite_1d("values", values)
    if len(values) < 2:
        raise ValueError(f"values must hold at least 2 seeds for an interval; got {len(values)}")
    mean = float(values.mean())
    half = t_quantile(len(values) - 1) * float(values.std(ddof=1)) / math.sqrt(len(values))
    return mean, mean - half, mean + half  # mean -/+ t s / sqrt(n)


@dataclass(frozen=True)
class Verdict:
    """One cell's verdict: its label, the effect and interval it rests on, and the seeds.

    ``label`` is "holds", "drops", "borderline" or "not learned"; ``effect`` the mean of
    a_m - a_1 over the ``learned`` seeds (NaN when fewer than two learned), ``interval`` its
    t 95% interval; ``holding`` of them stay within the tolerance; ``seeds`` in all.
    """

    label: str
    effect: float
    interval: tuple[float, float]
    learned: int
    seeds: int
    holding: int

    @property
    def not_learned(self) -> int:
        """How many seeds stayed below 0.9 at 1x (left out of the verdict)."""
        return self.seeds - self.learned

    def __str__(self) -> str:
        unlearned = f"{self.not_learned} of {self.seeds} did not learn"
        if self.label == "not learned":
            return f"not learned ({unlearned})"
        return _with_interval(self.label, self.effect, self.interval,
                              f"{self.holding} of {self.learned} hold; {unlearned}")


def verdict(first: Any, later: Any) -> Verdict:
    """The verdict of one cell from its seeds' accuracies at 1x and at a longer length.

    Parameters
    ----------
    first, later : array_like, shape (n_seeds,)
        a_1 and a_m of each seed, in the same order.

    Returns
    -------
    Verdict
        Among the seeds with a_1 >= 0.9 (at least two, else "not learned"): the mean of
        a_m - a_1 and its t 95% interval; "holds" if the interval lies above -0.1, "drops" if
        below, "borderline" if it contains -0.1.

    Examples
    --------
    >>> str(verdict([1.0, 0.98, 0.99, 0.5], [0.97, 0.97, 0.96, 0.1]))
    'holds (-0.02 [-0.05, +0.01], 3 of 3 hold; 1 of 4 did not learn)'
    """
    first, later = _per_seed("first", first, "later", later)
    learned = first >= LEARNED_AT
    change = (later - first)[learned]  # a_m - a_1 of the seeds that learned
    holding = int(np.sum(change >= -TOLERANCE))
    if len(change) < _MIN_LEARNED:
        return Verdict("not learned", math.nan, (math.nan, math.nan), len(change), len(first),
                       holding)
    effect, low, high = t_interval(change)
    label = "holds" if low > -TOLERANCE else "drops" if high < -TOLERANCE else "borderline"
    return Verdict(label, effect, (low, high), len(change), len(first), holding)


@dataclass(frozen=True)
class Comparison:
    """Method minus baseline, seed by seed: the mean difference, its t 95% interval, the seeds,
    and "better", "worse" or "no clear difference" (the interval contains 0)."""

    label: str
    difference: float
    interval: tuple[float, float]
    seeds: int

    def __str__(self) -> str:
        return _with_interval(self.label, self.difference, self.interval, f"{self.seeds} seeds")


def paired_difference(values: Any, baseline: Any) -> Comparison:
    """Compare two methods read on the same seeds by the t interval of their differences.

    Parameters
    ----------
    values, baseline : array_like, shape (n_seeds,), n_seeds >= 2
        The two methods' accuracies, seed i of one beside seed i of the other.

    Returns
    -------
    Comparison
        "better" if the interval of mean(values - baseline) lies above 0, "worse" if below.

    Examples
    --------
    >>> str(paired_difference([0.9, 0.8, 0.85], [0.5, 0.45, 0.5]))
    'better (+0.37 [+0.29, +0.44], 3 seeds)'
    """
    values, baseline = _per_seed("values", values, "baseline", baseline)
    difference, low, high = t_interval(values - baseline)
    label = "better" if low > 0 else "worse" if high < 0 else "no clear difference"
    return Comparison(label, difference, (low, high), len(values))

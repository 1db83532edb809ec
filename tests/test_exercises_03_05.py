"""The exercises of notebooks 03 to 05 that issue 21 rewrote or widened, checked against
computations made here another way (sines and cosines written out, scores of a head computed
directly, angles read off the pairs)."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.exercises import _core, nb03


@pytest.fixture(autouse=True)
def _no_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pass here is the test's, not a learner's: record nothing (conftest checks the file)."""
    monkeypatch.setattr(_core, "record_pass", lambda key: None)


def test_half_norms_at_position_0_are_the_sines_and_the_cosines_of_0() -> None:
    # 48 columns of sin 0 = 0 and 48 columns of cos 0 = 1
    assert nb03.half_norms.check([0, np.sqrt(48)]).passed
    assert nb03.half_norms.check((0.0, 6.928203230)).passed
    result = nb03.half_norms.check([np.sqrt(24), np.sqrt(24)])
    assert not result.passed and "half of the squared norm" in result.message


def _f(freqs: np.ndarray, reach: int = 100) -> np.ndarray:
    return np.array([sum(np.cos(w * k) for w in freqs) for k in range(reach + 1)])


@pytest.mark.parametrize("top", [np.pi / 100, 2 * np.pi / 201, 0.029])
def test_no_bounce_accepts_every_choice_that_falls_with_neighbours_apart(top: float) -> None:
    rng = np.random.default_rng(3)
    freqs = top * rng.uniform(0.9, 1.0, size=64)
    assert np.all(np.diff(_f(freqs)) < 0)
    assert np.sqrt(2 * np.sum(1 - np.cos(freqs))) >= 0.2
    assert nb03.no_bounce.check(freqs).passed


def test_no_bounce_says_which_condition_fails() -> None:
    slow = np.full(64, 0.005)  # falls at every step; neighbours sqrt(128 (1 - cos 0.005)) apart
    assert np.all(np.diff(_f(slow)) < 0)
    result = nb03.no_bounce.check(slow)
    gap = np.sqrt(128 * (1 - np.cos(0.005)))
    assert not result.passed and f"only {gap:.3f} apart" in result.message
    fast = np.full(64, 0.05)  # the angle passes pi at k = 63
    up = int(np.flatnonzero(np.diff(_f(fast)) >= 0)[0])
    result = nb03.no_bounce.check(fast)
    assert not result.passed and f"from k = {up} to {up + 1}" in result.message
    assert "Expected 64" in nb03.no_bounce.check(np.ones(3)).message

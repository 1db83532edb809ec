"""The exercises of notebooks 03 to 05 that issue 21 rewrote or widened, checked against
computations made here another way (sines and cosines written out, scores of a head computed
directly, angles read off the pairs)."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.exercises import _core, nb03
from tools.variants import KEY_AT, NOTEBOOK_VALUES, VARIANTS, answer_for, posed


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


@pytest.mark.parametrize("speed", [np.pi / 100, 0.03, 2 * np.pi / 201])
def test_no_bounce_refuses_one_pair_written_64_times(speed: float) -> None:
    """Issue 32: 64 equal speeds fall and keep neighbours apart, but the code has rank 2 and
    (nearly) repeats: |PE(t + k) - PE(t)| = sqrt(128 (1 - cos(w k))) nears 0 at a multiple of
    2 pi / w within the 1000 positions."""
    freqs = np.full(64, speed)
    assert np.all(np.diff(_f(freqs)) < 0) and np.sqrt(128 * (1 - np.cos(speed))) >= 0.2
    assert min(np.sqrt(128 * (1 - np.cos(speed * k))) for k in range(1, 1000)) < 0.1
    result = nb03.no_bounce.check(freqs)
    assert not result.passed
    assert "rank 2" in result.message or "nearly repeats" in result.message


# --- 04: any matrix whose scores peak 4 ahead; the shift of the sines from two tokens


def _codes(n: int, d: int) -> np.ndarray:
    angle = np.arange(n)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
    codes = np.empty((n, d))
    codes[:, 0::2], codes[:, 1::2] = np.sin(angle), np.cos(angle)
    return codes


def _back_shift(k: int, d: int) -> np.ndarray:
    """Block-diagonal [[cos, sin], [-sin, cos]] of k theta_i, written out here."""
    m = np.zeros((d, d))
    for i, w in enumerate(10000.0 ** (-np.arange(0, d, 2) / d)):
        c, s = np.cos(k * w), np.sin(k * w)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    return m


def _peaks_ahead(w: np.ndarray) -> bool:
    x = _codes(64, 32)
    return all(int(np.argmax([x[i] @ w @ x[j] for j in range(64)])) == i + 4 for i in range(60))


def test_forward_head_accepts_every_matrix_whose_scores_peak_four_ahead() -> None:
    from posenc_lib.exercises import nb04

    forward = _back_shift(-4, 32)
    fast_only = forward.copy()
    fast_only[8:, 8:] = 0.0  # the slow blocks zeroed: the example
    for w in (forward, 3.0 * forward, fast_only):
        assert _peaks_ahead(w)
        assert nb04.forward_head.check(w).passed
    back = _back_shift(4, 32)
    assert not _peaks_ahead(back)
    result = nb04.forward_head.check(back)
    assert not result.passed and "looks 4 tokens back" in result.message
    assert "most queries peak at j = i - 4" in result.message
    assert "32 x 32" in nb04.forward_head.check(np.eye(3)).message


def test_previous_sines_map_is_the_angle_addition_one_and_works_for_every_t() -> None:
    from posenc_lib.exercises import nb04

    w = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    # sin w(t+5) = [sin 6w / sin w] sin wt - [sin 5w / sin w] sin w(t-1)
    w_two = np.hstack([np.diag(np.sin(6 * w) / np.sin(w)), np.diag(-np.sin(5 * w) / np.sin(w))])
    t = np.arange(-300, 300)[:, None]
    inputs = np.hstack([np.sin(w * t), np.sin(w * (t - 1))])
    np.testing.assert_allclose(inputs @ w_two.T, np.sin(w * (t + 5)), atol=1e-9)
    assert nb04.previous_sines.check(w_two).passed
    assert not nb04.previous_sines.check(-w_two).passed


# --- 05: the base for a context, and the layout in the course's own terms


def test_base_for_context_is_the_closed_form() -> None:
    from posenc_lib.exercises import nb05

    # slowest pair theta = base^(-126/128); 131071 steps * theta = pi
    base = (131071 / np.pi) ** (128 / 126)
    assert 131071 * base ** (-126 / 128) == pytest.approx(np.pi)
    assert nb05.base_for_context.check(base).passed
    result = nb05.base_for_context.check(131071 / np.pi)
    assert not result.passed and "1/base" in result.message


@pytest.mark.parametrize("name", ["half-split", "Half split", "half", "rotate_half", "HALF-SPLIT "])
def test_layout_accepts_the_course_terms_for_half_split(name: str) -> None:
    from posenc_lib.exercises import nb05

    x, y = nb05.checkpoint_key()
    # the half-split pairs (i, i + 8) keep their lengths, the interleaved ones do not
    assert np.allclose(np.hypot(x[:8], x[8:]), np.hypot(y[:8], y[8:]))
    change = np.max(np.abs(np.hypot(y[0::2], y[1::2]) - np.hypot(x[0::2], x[1::2])))
    assert change > 1e-3  # the evidence: interleaved pairs change their lengths
    assert nb05.layout.check((name, change)).passed


def test_layout_names_the_evidence_mistakes_and_no_option() -> None:
    from posenc_lib.exercises import nb05

    x, y = nb05.checkpoint_key()
    change = np.max(np.abs(np.hypot(y[0::2], y[1::2]) - np.hypot(x[0::2], x[1::2])))
    squared = np.max(np.abs((y[0::2] ** 2 + y[1::2] ** 2) - (x[0::2] ** 2 + x[1::2] ** 2)))
    result = nb05.layout.check(("half-split", squared))  # squared lengths
    assert not result.passed and "squared lengths" in result.message
    for wrong in ("Interleaved", "neither", "diagonal"):  # right evidence, wrong layout
        result = nb05.layout.check((wrong, change))
        assert not result.passed and "points to another choice" in result.message
        assert "common mistake" not in result.message  # no wrong option is named


@pytest.mark.parametrize(("written", "read"), [
    ("neox", "half"), ("GPT-NeoX", "half"), ("gpt_neox", "half"), ("rotate_half", "half"),
    ("Half split", "half"), ("GPT-J", "interleaved"), ("RoFormer", "interleaved"),
    ("rotate_every_two", "interleaved"), ("neither", "neither")])
def test_05_layout_reads_a_codebases_name_as_its_pairing(written: str, read: str) -> None:
    from posenc_lib.exercises.nb05 import layout

    assert layout.answer_form is not None
    assert layout.answer_form((written, 0.5)) == (read, 0.5)


@pytest.mark.parametrize(
    ("values", "drawn"), list(zip(VARIANTS["05.layout"].sets, KEY_AT, strict=True))
)
def test_05_a_released_key_holds_its_position_and_names_the_other_layouts_reading(
    values: dict, drawn: tuple[int, int],
) -> None:
    """A graded release poses 05.layout and 05.key_position together with a key rotated in the
    interleaved pairs at a drawn position: the hidden test's answer is that position, read here
    off the interleaved slowest pair (14, 15), and the mistake "the pairs of the other layout"
    reads the half-split pair (7, 15). The hints stay true there: pair 5 has wrapped (the
    mistake that names it is a wrapped reading) and the slowest pair has not."""
    from posenc_lib.exercises import nb05

    seed, position = drawn
    theta = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    assert theta[5] * position > np.pi > theta[7] * position and position < 8000
    assert position != answer_for("05.key_position", NOTEBOOK_VALUES["05.key_position"])
    with posed("05.layout", values):
        x, y = nb05.checkpoint_key()
        assert np.allclose(x, np.random.default_rng(seed).normal(size=16), rtol=1e-11, atol=0)
        read = round(float(np.angle(complex(y[14], y[15]) / complex(x[14], x[15]))) / theta[7])
        assert read == position == answer_for("05.key_position", values)
        half = round(float(np.angle(complex(y[7], y[15]) / complex(x[7], x[15]))) / theta[7])
        other = next(m for m in nb05.key_position.mistakes if "other layout" in m.label)
        assert other.compute() == half != read
        assert other.label in nb05.key_position.check(half).message
        wrapped = next(m for m in nb05.key_position.mistakes if m.label.startswith("pair 5"))
        folded = float(np.angle(np.exp(1j * position * theta[5])))  # (-pi, pi]
        assert wrapped.compute(position) == round(folded / theta[5]) != position
    assert other.compute() != half  # the notebook's key again

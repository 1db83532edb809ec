"""adopt(): a right function is used, a wrong one is named and replaced by the library's."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.build_steps import Mistake, adopt
from posenc_lib.frequencies import inverse_frequencies


def _theta_by_hand(d: int, base: float) -> np.ndarray:
    return np.array([base ** (-2 * i / d) for i in range(d // 2)])


CASES = [{"d": 8, "base": 10000.0}, {"d": 64, "base": 500000.0}]
MISTAKES = [Mistake("the exponent i/d instead of 2i/d",
                    lambda d, base: base ** (-np.arange(d // 2) / d)),
            Mistake("base^(+2i/d), the wavelength's factor, not its inverse",
                    lambda d, base: base ** (np.arange(0, d, 2) / d))]


def _reference(d: int, base: float) -> np.ndarray:
    return inverse_frequencies(d, base=base)


def test_a_right_function_is_the_one_returned(capsys: pytest.CaptureFixture[str]) -> None:
    chosen = adopt(_theta_by_hand, _reference, CASES, name="theta", mistakes=MISTAKES)
    assert chosen is _theta_by_hand
    assert "agrees with posenc_lib on 2 cases: the cells below use yours" in capsys.readouterr().out


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.name[:20])
def test_a_known_mistake_is_named_and_the_library_takes_over(
        mistake: Mistake, capsys: pytest.CaptureFixture[str]) -> None:
    chosen = adopt(mistake.wrong, _reference, CASES, name="theta", mistakes=MISTAKES)
    out = capsys.readouterr().out
    assert chosen is _reference
    assert f"it looks like {mistake.name}" in out
    assert "the cells below use posenc_lib's theta; fix yours" in out


def test_an_unknown_error_gives_the_largest_difference(capsys: pytest.CaptureFixture[str]) -> None:
    chosen = adopt(lambda d, base: _theta_by_hand(d, base) + 0.5, _reference, CASES,
                   name="theta", mistakes=MISTAKES)
    assert chosen is _reference
    assert "the largest difference is 0.5" in capsys.readouterr().out


def test_a_wrong_shape_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    adopt(lambda d, base: _theta_by_hand(2 * d, base), _reference, CASES, name="theta")
    assert "expected shape (4,), got shape (8,)" in capsys.readouterr().out


@pytest.mark.parametrize("stub", [None, lambda d, base: (_ for _ in ()).throw(NotImplementedError)])
def test_an_unwritten_function_falls_back(stub, capsys: pytest.CaptureFixture[str]) -> None:
    assert adopt(stub, _reference, CASES, name="theta") is _reference
    out = capsys.readouterr().out
    assert "theta not written yet: the cells below use posenc_lib's theta" in out


def test_a_function_that_raises_is_reported_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    def broken(d: int, base: float) -> np.ndarray:
        return np.arange(d) / 0 if d > 8 else _theta_by_hand(d, base)[undefined]  # noqa: F821

    assert adopt(broken, _reference, CASES, name="theta") is _reference
    assert "raised NameError for d=8" in capsys.readouterr().out


def test_tuples_are_compared_member_by_member(capsys: pytest.CaptureFixture[str]) -> None:
    def cos_sin(x: float) -> tuple[float, float]:
        return np.cos(x), np.sin(x)

    cases = [{"x": 0.3}]
    assert adopt(cos_sin, cos_sin, cases, name="pair") is cos_sin
    swapped = adopt(lambda x: (np.sin(x), np.cos(x)), cos_sin, cases, name="pair",
                    mistakes=[Mistake("sin and cos swapped", lambda x: (np.sin(x), np.cos(x)))])
    assert swapped is cos_sin
    assert "sin and cos swapped" in capsys.readouterr().out

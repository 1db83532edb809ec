"""The predict-first helper: the reveal shows the value alone without a guess, and a guess's
verdict and distance are the ones computed here by hand."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.predict import compare


def test_no_guess_shows_the_value_and_a_nudge() -> None:
    """Run All reaches a reveal with no guess: it says so, visibly, instead of passing silently."""
    for placeholder in (None, ...):
        reveal = compare(placeholder, 0.0816, label="code of position 4")
        lines = repr(reveal).splitlines()
        assert lines[0] == "code of position 4: 0.0816"
        assert lines[1].startswith("no guess written") and "rerun this cell" in lines[1]
        assert reveal.verdict == "" and reveal.guess is None
    assert "no guess" not in repr(compare(0.08, 0.0816, label="code of position 4"))


def test_a_scalar_guess_reports_its_absolute_and_relative_error() -> None:
    reveal = compare(120, 123, label="pairs")
    assert reveal.verdict == "close"  # 3 / 123 = 2.4% < 10%
    assert "off by 3 (2% of the value)" in repr(reveal)
    far = compare(10.0, 4.0)
    assert far.verdict == "off" and "off by 6 (150% of the value)" in repr(far)
    assert compare(4, 4).verdict == "right" and repr(compare(4, 4)).endswith("(right)")


def test_the_close_threshold_is_ten_percent() -> None:
    assert compare(1.09, 1.0).verdict == "close"
    assert compare(1.11, 1.0).verdict == "off"
    assert compare(-0.91, -1.0).verdict == "close" and compare(-0.89, -1.0).verdict == "off"


def test_arrays_are_compared_entry_by_entry() -> None:
    value = np.array([0.0, 1.0, 2.0])
    reveal = compare([0.0, 1.0, 2.5], value)
    assert reveal.verdict == "off"  # entry 2 is off by 0.5 = 25%
    assert "1 of 3 entries differ" in repr(reveal) and "0.5, at entry 2" in repr(reveal)
    assert "(yours 2.5, the value 2)" in repr(reveal)  # the worst entry, both values whole
    assert "shape" in repr(compare([1.0, 2.0], value))
    assert compare(value.tolist(), value).verdict == "right"


def test_sets_name_the_missing_and_extra_items() -> None:
    reveal = compare({(0, 3), (2, 4)}, {(0, 3), (1, 5)}, label="twins")
    assert reveal.verdict == "off"
    assert "missing {(1, 5)}" in repr(reveal) and "extra {(2, 4)}" in repr(reveal)
    assert compare([(1, 5), (0, 3)], {(0, 3), (1, 5)}).verdict == "right"
    assert compare([[1, 5], [0, 3]], {(0, 3), (1, 5)}).verdict == "right"
    assert "collection" in repr(compare(3, {1, 2}))


def test_bools_and_strings() -> None:
    assert compare(True, np.True_).verdict == "right"
    assert compare(False, True).verdict == "off"
    assert "True or False" in repr(compare(1, True))
    assert compare(" Last ", "last").verdict == "right"
    assert compare("first", "last").verdict == "off"


@pytest.mark.parametrize("value", [0.0, 1e-300])
def test_a_zero_value_does_not_divide_by_zero(value: float) -> None:
    assert compare(value, value).verdict == "right"
    assert compare(1.0, value).verdict == "off"

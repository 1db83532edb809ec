"""Issue 32 item 6: self-study check messages never speak of points or credit (grading does)."""

from __future__ import annotations

import re

import pytest

from posenc_lib.exercises import _core, all_exercises

CREDITED = [(key, m) for key, ex in all_exercises().items() for m in ex.mistakes if m.credit > 0]


def test_some_mistakes_earn_partial_credit() -> None:
    assert len(CREDITED) >= 3  # the test below would pass vacuously without them


@pytest.mark.parametrize(("key", "mistake"), CREDITED, ids=lambda v: getattr(v, "label", v)[:30])
def test_a_close_answer_is_told_close_without_points(key: str, mistake, monkeypatch) -> None:
    monkeypatch.setattr(_core, "record_pass", lambda key: None)
    exercise = all_exercises()[key]
    right = _core.load_answer(key)
    wrong = mistake.compute(right)
    result = exercise.check(wrong, reference=right)
    assert not result.passed and result.credit == mistake.credit
    assert "Close" in result.message
    assert not re.search(r"\bpoints?\b|\bcredit\b|\bgrade", result.message, re.I), result.message

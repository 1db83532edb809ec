"""No mistake a release's check names is the answer in disguise (issue 46).

A graded release's ``check()`` runs in the student's kernel without the key, so every mistake it
can name (those not made ``from_answer``) reaches the student as a value the check recognises.
Such a value must not turn into the right answer under a simple transform a student would try:
reversed (along the first axis or flattened), its two halves swapped (along the first or the
last axis), or its sign flipped. Tried for every exercise, posed with the notebook's values and
with every set of values a graded release may draw (tools.variants), against the key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from posenc_lib.exercises import all_exercises
from posenc_lib.exercises._core import _compare
from tools.answer_key import EXPECTED
from tools.variants import VARIANTS, answer_for, posed


def _halves(value: np.ndarray, axis: int) -> np.ndarray | None:
    size = value.shape[axis]
    return None if size < 2 else np.roll(value, size // 2, axis=axis)


TRANSFORMS: dict[str, Callable[[np.ndarray], np.ndarray | None]] = {
    "as is": lambda v: v,
    "reversed": lambda v: v[::-1],
    "reversed flat": lambda v: v.ravel()[::-1].reshape(v.shape),
    "halves swapped (first axis)": lambda v: _halves(v, 0),
    "halves swapped (last axis)": lambda v: _halves(v, -1),
    "sign flipped": lambda v: -v,
}


def transformed(wrong: Any) -> dict[str, Any]:
    """The transforms of a numeric mistake value with at least one axis (others: none)."""
    try:
        array = np.asarray(wrong, dtype=float)
    except (TypeError, ValueError):
        return {"as is": wrong}
    if array.ndim == 0:
        return {"as is": wrong, "sign flipped": -array}
    made = {name: transform(array) for name, transform in TRANSFORMS.items()}
    return {name: value for name, value in made.items() if value is not None}


def cases() -> list[tuple[str, dict[str, Any] | None]]:
    found: list[tuple[str, dict[str, Any] | None]] = []
    for key in EXPECTED:
        found.append((key, None))
        if key in VARIANTS:
            found += [(key, dict(values)) for values in VARIANTS[key].sets]
    return found


@pytest.mark.parametrize("key, values", cases(),
                         ids=lambda case: case if isinstance(case, str) else "")
def test_no_release_mistake_is_the_answer_transformed(key: str, values: dict | None) -> None:
    right = EXPECTED[key]() if values is None else answer_for(key, values)
    with posed(key, values) as exercise:
        released = [m for m in exercise.mistakes if not m.from_answer]
        for mistake in released:
            wrong = mistake.compute()
            if wrong is None:  # stored for the notebook's values only: not named for these
                continue
            for name, value in transformed(wrong).items():
                if isinstance(right, bool) and name != "as is":
                    continue
                same, _ = _compare(value, right, exercise.rtol, exercise.atol)
                assert not same, f"{key} {values}: {mistake.label!r} {name} is the answer"


def test_the_transforms_find_the_mistakes_issue_46_names() -> None:
    """The three mistakes of the issue, as they were (the answer reversed), are caught."""
    for key in ("02.slow_pair", "03.half_norms", "09.partial_vs_p_rope"):
        right = np.asarray(EXPECTED[key]())
        assert any(_compare(value, right, 1e-6, 1e-9)[0]
                   for name, value in transformed(right[::-1]).items() if name != "as is")
    assert all(m.from_answer for key in ("02.slow_pair", "03.half_norms", "09.partial_vs_p_rope")
               for m in all_exercises()[key].mistakes if "swapped" in m.label)

"""Exercises with many right answers: a test of the required property decides, not one value.

Notebooks: 03_properties, 04_rotation_proof.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from posenc_lib.exercises._core import CheckResult, Exercise

__all__ = ["PropertyExercise"]

REFUSED = "This exercise asks you not to use"
"""How the ordinary check's message for a refused shortcut begins."""


@dataclass(frozen=True)
class PropertyExercise(Exercise):
    """An exercise whose answer is right when ``judge(answer)`` says it has the property.

    ``judge(answer) -> (holds, explanation)`` must not raise on a wrong type. Other fields as for
    :class:`Exercise`, with ``expected`` returning True and mistakes in the learner's own form;
    refusals, "Not yet", progress and grading are the ordinary check's.
    """

    judge: Callable[[Any], tuple[bool, str]] = lambda answer: (False, "no judge")

    def check(self, answer: Any) -> CheckResult:
        """Judge ``answer``, and name the common mistake it equals when it fails."""
        if answer is None or answer is Ellipsis:
            return super().check(answer)
        holds, explanation = self.judge(answer)
        ordinary = super().check(bool(holds))  # refusals, progress and grading as usual
        if ordinary.message.startswith(REFUSED):
            return ordinary
        if not ordinary.passed and (mistake := self._mistake_made(answer)) is not None:
            explanation += f"\nThis is what you get with a common mistake: {mistake.label}."
        return CheckResult(ordinary.passed, explanation, self.title)

"""Exercises with many right answers: a test of the required property decides, not one value.

Notebooks: 03_properties, 04_rotation_proof.

A construction such as "a matrix whose scores peak 4 tokens ahead" has infinitely many right
answers. :class:`PropertyExercise` asks a *judge* whether the learner's answer has the property
and passes the judge's explanation on; everything else (refused shortcuts, "Not yet" for a
placeholder, recording a pass, grading) is the ordinary :class:`Exercise`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from posenc_lib.exercises._core import CheckResult, Exercise, _compare

__all__ = ["PropertyExercise"]

REFUSED = "This exercise asks you not to use"
"""How the ordinary check's message for a refused shortcut begins."""


@dataclass(frozen=True)
class PropertyExercise(Exercise):
    """An exercise whose answer is right when ``judge(answer)`` says it has the property.

    Parameters
    ----------
    judge : callable
        ``judge(answer) -> (holds, explanation)``: whether the answer has the required property,
        and a sentence for the learner saying what was found (it must not raise on a wrong type).
    **fields
        As for :class:`Exercise`; ``expected`` must return True. Each :class:`Mistake`'s value is
        a wrong answer in the learner's own form, named when the answer equals it.
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
        if not ordinary.passed:
            for mistake in self.mistakes:
                if _compare(answer, mistake.value(), self.rtol, self.atol)[0]:
                    explanation += f"\nThis is what you get with a common mistake: {mistake.label}."
                    break
        return CheckResult(ordinary.passed, explanation, self.title)

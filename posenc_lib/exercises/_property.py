"""Exercises with many right answers: a test of the required property decides, not one value.

Notebooks: 03_properties, 04_rotation_proof.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from posenc_lib.exercises._core import _ASK_KEY, CheckResult, Exercise
from posenc_lib.exercises._key import answer_key_path

REFUSED = "This exercise asks you not to use"
"""How the ordinary check's message for a refused shortcut begins."""


@dataclass(frozen=True)
class PropertyExercise(Exercise):
    """An exercise whose answer is right when ``judge(answer)`` says it has the property.

    ``judge(answer) -> (holds, explanation)`` must not raise on a wrong type. Other fields as for
    :class:`Exercise`, with ``expected`` returning True and mistakes in the learner's own form;
    refusals, "Not yet" and progress are the ordinary check's.
    """

    judge: Callable[[Any], tuple[bool, str]] = lambda answer: (False, "no judge")

    def check(self, answer: Any, *, reference: Any = _ASK_KEY) -> CheckResult:
        """Judge ``answer``, and name the common mistake it equals when it fails.

        Without a key or a ``reference`` (an installed package, a graded release) the judge is
        not run, so that no call confirms an answer: only known mistakes are named.
        """
        if answer is None or answer is Ellipsis:
            return super().check(answer)
        if reference is _ASK_KEY and answer_key_path() is None:
            return super().check(answer, reference=reference)
        holds, explanation = self.judge(answer)
        # refusals and progress as usual
        ordinary = super().check(bool(holds), reference=True)
        if ordinary.message.startswith(REFUSED):
            return ordinary
        if not ordinary.passed and (mistake := self._mistake_made(answer)) is not None:
            explanation += f"\nThis is what you get with a common mistake: {mistake.label}."
        return CheckResult(ordinary.passed, explanation, self.title, ordinary.credit)

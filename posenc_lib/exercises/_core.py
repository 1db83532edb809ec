"""The exercise object every notebook uses: ``ex.check(answer)``, ``ex.hint()``, ``ex.solution()``.

Notebooks: 00_why_position to 11_figure_gallery.

An :class:`Exercise` knows how to compute the expected answer with posenc_lib, so a check never
stores a pasted number. ``check`` compares the learner's answer and says *what* is right or
wrong: the type, the shape, the first entries that differ and the tolerance used. It also
recognises the known common mistakes of each exercise and names them.
"""

from __future__ import annotations

import html
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from posenc_lib.exercises._progress import record_pass

__all__ = ["CheckResult", "Exercise", "Mistake", "NOT_ANSWERED"]

NOT_ANSWERED = (
    "Not yet: replace the placeholder in the exercise cell with your answer, then run it."
)


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer, with what it usually means.

    ``value`` computes the wrong answer the same way a learner would get it, so the check can
    recognise it ("this is what you get with base 1000 instead of 10000").
    """

    label: str
    value: Callable[[], Any]


@dataclass(frozen=True)
class CheckResult:
    """The outcome of :meth:`Exercise.check`: ``passed`` and a message for the learner.

    It shows itself as plain text (and as a coloured box in Jupyter), and is truthy when passed.
    """

    passed: bool
    message: str
    title: str = ""

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        mark = "Correct" if self.passed else "Not yet"
        head = f"{mark}: {self.title}" if self.title else mark
        return f"{head}\n{self.message}"

    def _repr_html_(self) -> str:
        colour = "#1b7837" if self.passed else "#b2182b"
        mark = "✔ Correct" if self.passed else "✘ Not yet"
        title = f" — {html.escape(self.title)}" if self.title else ""
        body = html.escape(self.message).replace("\n", "<br>")
        return (
            f'<div style="border-left:4px solid {colour};padding:4px 10px">'
            f'<b style="color:{colour}">{mark}</b>{title}<br>{body}</div>'
        )


def _is_placeholder(answer: Any) -> bool:
    return answer is None or answer is Ellipsis


def _compare_numbers(answer: Any, expected: Any, rtol: float, atol: float) -> tuple[bool, str]:
    """Compare a real answer (scalar or array) with the expected one, explaining any difference."""
    try:
        got = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return False, f"Expected numbers; got {type(answer).__name__} that is not numeric."
    want = np.asarray(expected, dtype=float)
    if got.shape != want.shape:
        return False, f"Shape is wrong: expected {want.shape}, got {got.shape}."
    if not np.all(np.isfinite(got)):
        return False, "Your answer contains NaN or inf."
    close = np.isclose(got, want, rtol=rtol, atol=atol)
    tolerance = f"(tolerance: rtol={rtol:g}, atol={atol:g})"
    if close.all():
        what = "value" if want.ndim == 0 else f"all {want.size} values"
        return True, f"Shape {want.shape} and {what} match {tolerance}."
    if want.ndim == 0:
        expected_text, got_text = f"{want.item():.8g}", f"{got.item():.8g}"
        return False, f"Value is wrong: expected {expected_text}, got {got_text} {tolerance}."
    bad = np.argwhere(~close)
    index = tuple(int(i) for i in bad[0])
    worst = float(np.max(np.abs(got - want)))
    return False, (
        f"Shape {want.shape} is right, but {len(bad)} of {want.size} values differ {tolerance}.\n"
        f"First difference at index {index}: expected {want[index]:.8g}, got {got[index]:.8g}. "
        f"Largest absolute difference: {worst:.3g}."
    )


def _compare(answer: Any, expected: Any, rtol: float, atol: float) -> tuple[bool, str]:
    """Compare by the kind of the expected value: text, whole numbers, sets, or real numbers."""
    if isinstance(expected, str):
        ok = isinstance(answer, str) and answer.strip().lower() == expected.strip().lower()
        return ok, ("The text matches." if ok else f"Expected a different answer; got {answer!r}.")
    if isinstance(expected, bool):
        if not isinstance(answer, (bool, np.bool_)):
            return False, f"Expected True or False; got {answer!r}."
        ok = bool(answer) == expected
        return ok, ("Right." if ok else f"{answer!r} is not right.")
    if isinstance(expected, (set, frozenset)):
        try:
            got = set(answer)
        except TypeError:
            return False, f"Expected a collection of items; got {type(answer).__name__}."
        if got == expected:
            return True, f"All {len(expected)} items are right."
        extra, missing = len(got - expected), len(expected - got)
        return False, f"{extra} item(s) should not be there and {missing} are missing."
    if isinstance(expected, numbers.Integral):
        if isinstance(answer, (bool, np.bool_)) or not isinstance(answer, numbers.Real):
            return False, f"Expected a whole number; got {answer!r}."
        ok = math.isfinite(float(answer)) and float(answer) == float(expected)
        return ok, ("Right number." if ok else f"{answer!r} is not right.")
    return _compare_numbers(answer, expected, rtol, atol)


@dataclass(frozen=True)
class Exercise:
    """One exercise: what to compute, how to check it, a hint and a worked solution.

    Parameters
    ----------
    key : str
        Unique name, "NN.short_name" (the notebook number first).
    title : str
        One line saying what the learner computes.
    answer_name : str
        The variable (or function) the learner's cell defines; the solution code defines it too.
    expected : callable
        Returns the right answer, computed with posenc_lib (or a property checker's reference).
    hint_text, solution_code : str
        Shown by :meth:`hint` and :meth:`solution`. ``solution_code`` is self-contained Python
        that defines ``answer_name``; the test suite runs it and checks it passes.
    mistakes : sequence of Mistake
        Known wrong answers; ``check`` names them when the learner's answer matches one.
    rtol, atol : float
        Tolerances for numeric answers.
    call_with : tuple, optional
        When given, the answer is a function: ``check`` calls ``answer(*call_with)`` and compares
        the result (a stub that raises NotImplementedError counts as "not yet").
    """

    key: str
    title: str
    answer_name: str
    expected: Callable[[], Any]
    hint_text: str
    solution_code: str
    mistakes: Sequence[Mistake] = field(default_factory=tuple)
    rtol: float = 1e-6
    atol: float = 1e-9
    call_with: tuple[Any, ...] | None = None

    def _evaluate(self, answer: Any) -> tuple[Any, str | None]:
        """The value to compare: the answer itself, or what the answer function returns."""
        if self.call_with is None:
            return answer, None
        if not callable(answer):
            kind = type(answer).__name__
            return None, f"Expected a function named {self.answer_name}; got {kind}."
        try:
            return answer(*self.call_with), None
        except NotImplementedError:
            return None, NOT_ANSWERED
        except Exception as err:  # the learner's code raised: report it instead of crashing
            return None, f"Your function raised {type(err).__name__}: {err}"

    def check(self, answer: Any) -> CheckResult:
        """Compare ``answer`` with the expected one and explain the result."""
        if _is_placeholder(answer):
            return CheckResult(False, NOT_ANSWERED, self.title)
        value, problem = self._evaluate(answer)
        if problem is not None:
            return CheckResult(False, problem, self.title)
        if _is_placeholder(value):
            return CheckResult(False, NOT_ANSWERED, self.title)
        passed, message = _compare(value, self.expected(), self.rtol, self.atol)
        if passed:
            record_pass(self.key)
        else:
            for mistake in self.mistakes:
                if _compare(value, mistake.value(), self.rtol, self.atol)[0]:
                    message += f"\nThis is what you get with a common mistake: {mistake.label}."
                    break
        return CheckResult(passed, message, self.title)

    def hint(self) -> str:
        """Return a hint (Jupyter shows it as the cell's output)."""
        return _Text(f"Hint: {self.hint_text}")

    def solution(self) -> str:
        """Return a worked solution as code."""
        return _Text(self.solution_code.strip())


class _Text(str):
    """A string that Jupyter shows as plain text rather than as a quoted repr."""

    def __repr__(self) -> str:
        return str(self)

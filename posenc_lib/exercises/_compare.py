"""Comparing an answer with the expected one, by the kind of answer: real numbers (a scalar or
an array), a choice among strings, a bool, a set, a whole number.

Notebooks: 00_why_position to 11_figure_gallery (every :meth:`Exercise.check
<posenc_lib.exercises._core.Exercise.check>` ends here).

Every message says where an answer differs and how close it is, never the expected value.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Set
from typing import Any

import numpy as np

NEARLY = 0.01
"""Relative distance under which a wrong numeric answer is called nearly right."""


def _compare_array(answer: Any, expected: Any, rtol: float, atol: float) -> tuple[bool, str]:
    """Real numbers, a scalar or an array: the shape, then the first entry that differs."""
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
        what = "value" if want.ndim == 0 or want.size == 1 else f"all {want.size} values"
        return True, f"Shape {want.shape} and {what} match {tolerance}."
    if np.asarray(expected).dtype == bool:
        return False, f"Shape {want.shape} is right, but not every entry is {tolerance}."
    nearly = bool(np.all(np.isclose(got, want, rtol=NEARLY, atol=atol)))
    which = "Your value is" if want.ndim == 0 else "Every value is"
    near = (
        f"\n{which} within {NEARLY:.0%} of the right one: a rounding, a precision or a "
        "last-step slip?" if nearly else ""
    )
    if want.ndim == 0:
        return False, f"Value is wrong: got {got.item():.8g} {tolerance}.{near}"
    bad = np.argwhere(~close)
    index = tuple(int(i) for i in bad[0])
    return False, (
        f"Shape {want.shape} is right, but {len(bad)} of {want.size} "
        f"values {'differs' if len(bad) == 1 else 'differ'} {tolerance}.\n"
        f"First difference at index {index}, where you have {got[index]:.8g}.{near}"
    )


def _compare_choice(
    answer: Any, expected: tuple[str, Any], rtol: float, atol: float
) -> tuple[bool, str]:
    """A detector's ``(choice, evidence)``: the choice is judged only once the evidence (the
    measured value that decides it) is right, so guessing among the options cannot pass."""
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        return False, (
            "Answer with a pair: (your choice, the measured value that decides it); "
            f"got {type(answer).__name__}."
        )
    choice, evidence = answer
    if not isinstance(choice, str):
        return False, f"The first item is your choice, a string; got {type(choice).__name__}."
    if not _compare_array(evidence, expected[1], rtol, atol)[0]:
        return False, (
            "The evidence value is not what the data gives "
            f"(tolerance: rtol={rtol:g}, atol={atol:g}): measure it again. The check judges "
            "the choice only once its evidence is right."
        )
    if choice.strip().lower() != expected[0].strip().lower():
        return False, "The evidence is right, but it points to another choice than yours."
    return True, "The choice and the evidence that decides it are right."


def _compare_bool(answer: Any, expected: bool, rtol: float, atol: float) -> tuple[bool, str]:
    if not isinstance(answer, (bool, np.bool_)):
        return False, f"Expected True or False; got {answer!r}."
    ok = bool(answer) == expected
    return ok, ("Right." if ok else f"{answer!r} is not right.")


def _compare_set(answer: Any, expected: Set[Any], rtol: float, atol: float) -> tuple[bool, str]:
    """A collection of items: how many should not be there and how many are missing."""
    try:
        got = set(answer)
    except TypeError:
        return False, f"Expected a collection of items; got {type(answer).__name__}."
    if got == expected:
        n = len(expected)
        return True, ("The one item is right." if n == 1 else f"All {n} items are right.")
    extra, missing = len(got - expected), len(expected - got)
    wrong = [f"{extra} {'item' if extra == 1 else 'items'} should not be there",
             f"{missing} {'is' if missing == 1 else 'are'} missing"]
    return False, " and ".join(w for w in wrong if not w.startswith("0 ")) + "."


def _compare(answer: Any, expected: Any, rtol: float, atol: float) -> tuple[bool, str]:
    """Compare by the kind of the expected value: (choice, evidence), text, truth value, set,
    whole number, or real numbers. Returns (passed, message)."""
    if isinstance(expected, tuple) and len(expected) == 2 and isinstance(expected[0], str):
        return _compare_choice(answer, expected, rtol, atol)
    if isinstance(expected, str):
        ok = isinstance(answer, str) and answer.strip().lower() == expected.strip().lower()
        return ok, ("The text matches." if ok else f"{answer!r} is not right.")
    if isinstance(expected, bool):  # before the whole numbers: a bool is an int
        return _compare_bool(answer, expected, rtol, atol)
    if isinstance(expected, (set, frozenset)):
        return _compare_set(answer, expected, rtol, atol)
    if not isinstance(expected, numbers.Integral):
        return _compare_array(answer, expected, rtol, atol)
    if isinstance(answer, (bool, np.bool_)) or not isinstance(answer, numbers.Real):
        return False, f"Expected a whole number; got {answer!r}."
    ok = math.isfinite(float(answer)) and float(answer) == float(expected)
    return ok, ("Right number." if ok else f"{answer!r} is not right.")


def _nan_match(value: Any, wrong: Any, rtol: float, atol: float) -> bool:
    """Whether a ``value`` with NaN or inf equals ``wrong``, NaN matching NaN in the same place."""
    try:
        got, want = np.asarray(value, dtype=float), np.asarray(wrong, dtype=float)
    except (TypeError, ValueError):
        return False
    return bool(not np.all(np.isfinite(got)) and got.shape == want.shape
                and np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True))

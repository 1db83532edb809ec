"""Build steps as course objects: ``my_theta = nb02.steps.division_term.check(my_function)``.

Notebooks: 01-09 (each notebook's build steps sit in ``nbNN.steps``).

A :class:`BuildStep` holds what the notebook's check cell used to show: the library's reference,
the cases, the named mistakes (computed from the right result, so that none is the solution's
code with one token changed), two hints, and the library functions that compute the same thing
(calling one of them is refused, however it is named). ``check`` prints one verdict and returns
a :class:`YourFunction`: the learner's function when it is right, else the library's, which
also keeps the learner's result of the latest call so that ``beside`` (a figure) or ``compare``
(printed numbers) shows it next to the library's. Build steps are self-study: a pass counts in
``progress()``; they are never graded.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from posenc_lib._record import record_pass
from posenc_lib.exercises._core import (
    HINT_AFTER,
    _check_hints,
    _hint_index,
    _may_record,
    _Text,
    defining_cell,
)

__all__ = ["BuildStep", "StepMistake", "YourFunction", "describe_value", "differences"]

RTOL, ATOL = 1e-9, 1e-12
"""A learner's result agrees with the library's within ``numpy.allclose(rtol, atol)`` (see
:func:`_same`)."""
SHOWN = 3
"""How many leading values :func:`describe_value` writes of a long array."""
KEPT_CALLS = 32
"""How many calls' results a :class:`YourFunction` of a wrong step keeps (a loop keeps its last)."""


@dataclass(frozen=True)
class StepMistake:
    """A common wrong version of a build step, computed from the right result:
    ``wrong(right, **case)`` returns what the mistaken function returns on ``case``."""

    label: str
    wrong: Callable[..., Any]


def _same(a: Any, b: Any) -> bool:
    """Whether two results (arrays, numbers, or tuples of them) agree: ``numpy.allclose`` with
    :data:`RTOL` and :data:`ATOL`, tuples member by member."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b, strict=True)))
    try:
        left, right = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return False
    return left.shape == right.shape and bool(np.allclose(left, right, rtol=RTOL, atol=ATOL))


def _number(value: Any) -> str:
    """A whole number as it is, a real one to 6 significant digits (never cut mid-number)."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)) or float(value).is_integer():
        return str(int(value)) if abs(float(value)) < 1e15 else f"{float(value):.6g}"
    return f"{float(value):.6g}"


def describe_value(value: Any) -> str:
    """A short description of an argument or a result: a number, a text, or an array by its
    shape and its first values (``array of shape (43,): -3, -2, -1, ..., 39``)."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k!r}: {describe_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(describe_value(v) for v in value) + ")"
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return type(value).__name__
    if array.ndim == 0:
        return _number(array.item())
    flat = array.ravel()
    if flat.size <= SHOWN + 1:
        values = ", ".join(_number(v) for v in flat)
    else:
        values = ", ".join(_number(v) for v in flat[:SHOWN]) + f", ..., {_number(flat[-1])}"
    return f"array of shape {array.shape}: {values}"


def _describe_case(case: Mapping[str, Any]) -> str:
    return ", ".join(f"{key}={describe_value(value)}" for key, value in case.items())


def differences(yours: Any, reference: Any) -> str:
    """Where ``yours`` differs from ``reference`` most: the index, your value and the library's
    (or the shape, the type, or the item of a tuple that differs)."""
    if isinstance(reference, tuple):
        if not isinstance(yours, tuple) or len(yours) != len(reference):
            return f"posenc_lib returns a tuple of {len(reference)} results; yours does not"
        item = next(i for i, (a, b) in enumerate(zip(yours, reference, strict=True))
                    if not _same(a, b))
        return f"result {item} of the tuple: {differences(yours[item], reference[item])}"
    try:
        got = np.asarray(yours, dtype=float)
    except (TypeError, ValueError):
        return f"yours returns {type(yours).__name__}, not numbers"
    want = np.asarray(reference, dtype=float)
    if got.shape != want.shape:
        return f"yours has shape {got.shape}, posenc_lib's has shape {want.shape}"
    if want.ndim == 0:
        return f"yours is {_number(got.item())}, posenc_lib's is {_number(want.item())}"
    gap = np.abs(got - want)
    gap = np.where(np.isnan(gap), np.inf, gap)
    gap = np.where(got == want, 0.0, gap)  # equal infinities (a mask's -inf) do not differ
    where = np.unravel_index(int(np.argmax(gap)), want.shape)
    index = tuple(int(i) for i in where)
    shown = index[0] if len(index) == 1 else index
    count = int(np.sum(~np.isclose(got, want, rtol=RTOL, atol=ATOL)))
    values = "value differs" if count == 1 else "values differ"
    return (f"{count} of {want.size} {values}; the largest gap is at index {shown}: "
            f"yours {_number(got[index])}, posenc_lib {_number(want[index])}")


def _code_objects(function: Any) -> set[types.CodeType]:
    """The code of a Python function (unwrapping decorators), empty for anything else."""
    codes = set()
    while function is not None:
        code = getattr(function, "__code__", None)
        if isinstance(code, types.CodeType):
            codes.add(code)
        function = getattr(function, "__wrapped__", None)
    return codes


def _run_watched(function: Callable[..., Any], case: Mapping[str, Any],
                 forbidden: set[types.CodeType]) -> tuple[Any, str | None]:
    """``function(**case)`` and whether it entered one of the ``forbidden`` functions (found at
    run time, so an alias, a module attribute or a helper that calls one are all seen): the
    result and the name of the first forbidden function entered, or None."""
    entered = []

    def watch(frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in forbidden:
            entered.append(frame.f_code.co_name)

    before = sys.getprofile()
    sys.setprofile(watch)
    try:
        result = function(**case)
    finally:
        sys.setprofile(before)
    return result, (entered[0] if entered else None)


class YourFunction:
    """The function the cells after a build step call: the learner's when it passed its check,
    else the library's (the numbers below then come from the library).

    When the learner's function was checked and found wrong, each call also runs it on the same
    arguments and keeps both results (of the last :data:`KEPT_CALLS` calls): :meth:`beside` draws
    them side by side, :meth:`compare` prints them. After a pass, a blank stub or a refusal
    neither shows anything.
    """

    def __init__(self, step: BuildStep, yours: Callable[..., Any] | None, verdict: str) -> None:
        self.step, self.verdict = step, verdict
        self._yours = yours
        self._calls: list[tuple[Any, Any]] = []  # (yours, posenc_lib's) per call, when wrong
        self.__name__ = step.answer_name if verdict == "right" else step.name
        self.__doc__ = getattr(yours if verdict == "right" else step.reference, "__doc__", None)

    @property
    def passed(self) -> bool:
        """Whether the learner's function is the one in use."""
        return self.verdict == "right"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.passed and self._yours is not None:
            return self._yours(*args, **kwargs)
        result = self.step.reference(*args, **kwargs)
        if self.verdict == "wrong" and self._yours is not None:
            try:
                self._calls.append((self._yours(*args, **kwargs), result))
            except Exception:  # yours fails on these arguments: nothing to show beside
                self._calls.append((None, result))
            del self._calls[:-KEPT_CALLS]
        return result

    @property
    def latest(self) -> tuple[Any, Any] | None:
        """(yours, posenc_lib's) result of the latest call when yours is wrong, else None."""
        return self._calls[-1] if self._calls else None

    def _shown(self, stack: bool) -> tuple[Any, Any] | None:
        """The pair to show (the latest call's, or every call's stacked on a last axis), or
        None when yours agrees there; the calls are forgotten once shown."""
        calls, self._calls = self._calls, []
        if not calls or (not stack and calls[-1][0] is None):
            return None
        pair: tuple[Any, Any]
        if stack:
            try:
                pair = (np.stack([y for y, _ in calls], axis=-1),
                        np.stack([r for _, r in calls], axis=-1))
            except (TypeError, ValueError):  # yours of another shape (or failing): not stackable
                pair = (None, np.stack([r for _, r in calls], axis=-1))
        else:
            pair = calls[-1]
        return None if _same(*pair) else pair

    def beside(self, draw: Callable[..., Any], *args: Any, stack: bool = False,
               **kwargs: Any) -> Any:
        """When yours differs, draw yours and posenc_lib's results side by side and return the
        figure; otherwise draw nothing and return None.

        Each panel is ``draw(ax, *args, value, **kwargs)`` (a posenc_lib.plots function), with
        ``value`` the latest call's result, or with ``stack`` every call's since the check (or
        the previous ``beside``) stacked on a last axis (``my_wave(x, k)`` for k = 0 .. 3 gives
        an array of shape (len(x), 4)).
        """
        pair = self._shown(stack)
        if pair is None:
            return None
        from posenc_lib.plots import draw_yours_beside

        return draw_yours_beside(draw, *pair, *args, **kwargs)

    def compare(self, label: str = "") -> None:
        """When yours differs on the latest call, print yours and posenc_lib's results and
        where they differ most; otherwise print nothing."""
        pair = self._shown(False)
        if pair is None:
            return
        yours, reference = pair
        name = f"{label} " if label else ""
        print(f"{name}yours:      {describe_value(yours)}")
        print(f"{name}posenc_lib: {describe_value(reference)}")
        print(f"  {differences(yours, reference)}")

    def __repr__(self) -> str:
        who = "yours" if self.passed else "posenc_lib's"
        return f"<{who} {self.step.name}, checked by {self.step.handle}>"


@dataclass(frozen=True)
class BuildStep:
    """One build step of a notebook: the learner writes ``answer_name``; ``check`` compares it
    with ``reference`` on every case.

    ``shortcuts`` are the library functions that compute the step's result (the reference's
    own among them): a learner's function that calls one, directly, through the module or
    under another name, is refused. ``derived`` marks a step whose formula the notebook does
    not show (the learner derives it; the hints lead there).
    """

    key: str
    name: str
    answer_name: str
    reference: Callable[..., Any]
    cases: Sequence[Mapping[str, Any]]
    hints: tuple[str, str]
    shortcuts: Sequence[Callable[..., Any]]
    mistakes: Sequence[StepMistake] = ()
    derived: bool = False
    _wrong_tries: list[int] = field(default_factory=lambda: [0], repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_hints(self.key, self.hints)
        if not self.cases or not self.shortcuts:
            raise ValueError(f"{self.key}: a build step needs cases and shortcuts; got "
                             f"{len(self.cases)} cases and {len(self.shortcuts)} shortcuts")

    @property
    def handle(self) -> str:
        """How a notebook names the step: ``nb02.steps.division_term``."""
        number, rest = self.key.split(".", 1)
        return f"nb{number}.{rest}"

    def check(self, yours: Callable[..., Any] | None) -> YourFunction:
        """Check the learner's function on every case, print the verdict, and return the
        function the cells below use (see :class:`YourFunction`).

        A blank stub (None, or one that raises NotImplementedError) falls back to the library
        silently; a function that calls one of :attr:`shortcuts` is refused; a wrong one is
        named (a known mistake, else its worst place). A pass is recorded for ``progress()``
        unless a solution cell defined the function.
        """
        fallback = f"the cells below use posenc_lib's {self.name}"
        if yours is None:
            print(f"{self.name} not written yet: {fallback}")
            return YourFunction(self, None, "blank")
        forbidden = set().union(*(_code_objects(f) for f in self.shortcuts))
        for case in self.cases:
            want = self.reference(**case)
            try:
                got, shortcut = _run_watched(yours, case, forbidden)
            except NotImplementedError:
                print(f"{self.name} not written yet: {fallback}")
                return YourFunction(self, None, "blank")
            except Exception as error:  # any failure of the learner's code is reported
                print(f"your {self.name} raised {type(error).__name__} for "
                      f"{_describe_case(case)}: {error}")
                return self._wrong(yours, fallback)
            if shortcut is not None:
                print(f"refused: the code of your {self.name} calls posenc_lib's {shortcut}, "
                      "which computes the result of this step; write the computation yourself "
                      f"({self.handle}.hint() helps).\n{fallback}")
                return YourFunction(self, None, "refused")
            if not _same(got, want):
                print(f"your {self.name} and posenc_lib's differ for {_describe_case(case)}: "
                      f"{self._diagnose(got, want, case)}")
                return self._wrong(yours, fallback)
        count = f"{len(self.cases)} case" + ("s" if len(self.cases) != 1 else "")
        print(f"your {self.name} and posenc_lib's agree on {count}: the cells below use yours")
        if _may_record(defining_cell(self.answer_name)):
            record_pass(self.key)
        return YourFunction(self, yours, "right")

    def _diagnose(self, got: Any, want: Any, case: Mapping[str, Any]) -> str:
        for mistake in self.mistakes:
            try:
                if _same(got, mistake.wrong(want, **case)):
                    return f"it looks like {mistake.label}"
            except Exception:  # a mistake that cannot be made on this case names nothing
                continue
        return differences(got, want)

    def _wrong(self, yours: Callable[..., Any], fallback: str) -> YourFunction:
        self._wrong_tries[0] += 1
        offer = (f"\n{self._wrong_tries[0]} tries so far: {self.handle}.hint() may help"
                 if self._wrong_tries[0] >= HINT_AFTER else "")
        print(f"{fallback} and show yours beside it; fix yours and rerun this cell{offer}")
        return YourFunction(self, yours, "wrong")

    def hint(self, level: int = 1) -> str:
        """A hint: level 1 a direction, level 2 the method; neither gives the code away."""
        text = self.hints[_hint_index(level) - 1]
        after = (f"Still stuck? {self.handle}.hint(2) gives the method." if level == 1 else
                 self._worked_version())
        return _Text(f"Hint {level} of 2: {text}\n{after}")

    def solution(self) -> str:
        """Say where the worked version is: the library holds none."""
        return _Text(f"The library holds no worked versions. Try {self.handle}.hint(), then "
                     f"{self.handle}.hint(2). {self._worked_version()}")

    def _worked_version(self) -> str:
        number = self.key.split(".", 1)[0]
        return (f"The worked version is in the source notebook notebooks/{number}_*.ipynb, in "
                f"the cell tagged 'solution' after the stub of {self.answer_name}.")

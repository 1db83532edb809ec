"""The exercise object every notebook uses: ``ex.check(answer)``, ``ex.hint()``, ``ex.grade()``.

Notebooks: 00_why_position to 11_figure_gallery.

An :class:`Exercise` knows how to compute the expected answer with posenc_lib, so a check never
stores a pasted number. ``check`` compares the learner's answer and says *what* is right or
wrong: the type, the shape, the first entries that differ and the tolerance used. It recognises
the known common mistakes of each exercise and names them, and it notices the shortcuts an
exercise forbids (calling the library function the learner is asked to write, indexing a row
that holds the answer).

The library holds no solutions: a worked solution lives only in the source notebook, in the
cell tagged ``solution`` after the exercise. A pass is recorded in the learner's progress only
when the answer was computed by the learner's own cell, never by a solution cell.
"""

from __future__ import annotations

import ast
import builtins
import html
import inspect
import math
import numbers
import re
import textwrap
import types
from collections.abc import Callable, Sequence
from dataclasses import InitVar, dataclass, field
from typing import Any

import numpy as np

from posenc_lib.exercises._progress import record_pass

__all__ = [
    "KINDS",
    "LEVELS",
    "NOT_ANSWERED",
    "CheckResult",
    "Exercise",
    "Mistake",
    "Shortcut",
    "defining_cell",
]

NOT_ANSWERED = (
    "Not yet: replace the placeholder in the exercise cell with your answer, then run it."
)

LEVELS = ("warm-up", "core", "challenge")
"""The difficulty marks, easiest first."""

KINDS = ("prediction", "derivation", "detector", "construction", "explanation")
"""What an exercise asks for: predict before running, derive with other parameters, detect a
known misconception, construct something small, or explain through a computed consequence."""

NEARLY = 0.01
"""Relative distance under which a wrong numeric answer is called nearly right."""

HINT_AFTER = 3
"""Wrong tries of one exercise after which ``check`` offers the hint."""

SOLUTION_MARKER = "### BEGIN SOLUTION"
"""The first line of every solution cell of the source notebooks (nbgrader's marker)."""


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer, with what it usually means.

    ``value`` computes the wrong answer the same way a learner would get it, so the check can
    recognise it ("this is what you get with base 1000 instead of 10000"). ``credit`` is the
    share of the points such an answer earns when it is close for a known reason (an off-by-one
    count, a numbering from 0): 0 for a real misconception.
    """

    label: str
    value: Callable[[], Any]
    credit: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.credit < 1.0:
            raise ValueError(f"Mistake credit must be in [0, 1); got {self.credit!r}")


@dataclass(frozen=True)
class Shortcut:
    """A way around the exercise that its prompt forbids, and how to recognise it.

    ``pattern`` is a regular expression searched in the learner's code with its comments
    removed: the cell that defined the answer and, for a function, the function's own source and
    the names its code uses. The names the learner defines (a variable ``largest_float16``, an
    own ``def softmax``) are masked first, so the pattern finds the forbidden call, never a
    learner's name that happens to contain it. ``example`` is a line of code that takes the
    shortcut; the tests check that the pattern finds it and that no solution cell takes it.
    """

    label: str
    pattern: str
    example: str


@dataclass(frozen=True)
class CheckResult:
    """The outcome of :meth:`Exercise.check`: ``passed`` and a message for the learner.

    It shows itself as plain text (and as a coloured box in Jupyter), and is truthy when passed.
    """

    passed: bool
    message: str
    title: str = ""
    credit: float = 0.0

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
    """Compare a real answer (scalar or array) with the expected one, explaining any difference.

    The message never shows an expected value: it says where the answer differs and how close
    it is, so that a wrong try is diagnosed without giving the answer away.
    """
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
        "last-step slip?"
        if nearly
        else ""
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
    """Compare a detector's reasoned answer: ``(choice, evidence)``.

    The evidence (the measured value that decides the choice) is compared first, and the
    message says nothing about the choice until the evidence is right: guessing among the
    options cannot pass.
    """
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        return False, (
            "Answer with a pair: (your choice, the measured value that decides it); "
            f"got {type(answer).__name__}."
        )
    choice, evidence = answer
    if not isinstance(choice, str):
        return False, f"The first item is your choice, a string; got {type(choice).__name__}."
    ok, _ = _compare_numbers(evidence, expected[1], rtol, atol)
    if not ok:
        return False, (
            "The evidence value is not what the data gives "
            f"(tolerance: rtol={rtol:g}, atol={atol:g}): measure it again. The check judges "
            "the choice only once its evidence is right."
        )
    if choice.strip().lower() != expected[0].strip().lower():
        return False, "The evidence is right, but it points to another choice than yours."
    return True, "The choice and the evidence that decides it are right."


def _compare(answer: Any, expected: Any, rtol: float, atol: float) -> tuple[bool, str]:
    """Compare by the kind of the expected value: text, whole numbers, sets, or real numbers."""
    if isinstance(expected, tuple) and len(expected) == 2 and isinstance(expected[0], str):
        return _compare_choice(answer, expected, rtol, atol)
    if isinstance(expected, str):
        ok = isinstance(answer, str) and answer.strip().lower() == expected.strip().lower()
        return ok, ("The text matches." if ok else f"{answer!r} is not right.")
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
            n = len(expected)
            return True, ("The one item is right." if n == 1 else f"All {n} items are right.")
        extra, missing = len(got - expected), len(expected - got)
        wrong = [f"{extra} {'item' if extra == 1 else 'items'} should not be there",
                 f"{missing} {'is' if missing == 1 else 'are'} missing"]
        return False, " and ".join(w for w in wrong if not w.startswith("0 ")) + "."
    if isinstance(expected, numbers.Integral):
        if isinstance(answer, (bool, np.bool_)) or not isinstance(answer, numbers.Real):
            return False, f"Expected a whole number; got {answer!r}."
        ok = math.isfinite(float(answer)) and float(answer) == float(expected)
        return ok, ("Right number." if ok else f"{answer!r} is not right.")
    return _compare_numbers(answer, expected, rtol, atol)


_RUNS: list[tuple[str, bool]] = []
"""Every cell run in this IPython kernel since the exercises were imported: (source, success)."""


def _record_run(result: Any) -> None:
    """IPython's ``post_run_cell`` callback: remember the cell and whether it ran to the end."""
    cell = getattr(getattr(result, "info", None), "raw_cell", None)
    if isinstance(cell, str):
        _RUNS.append((cell, bool(result.success)))


def _track_runs() -> None:
    """Start recording the cells run in IPython (once per kernel; nothing outside IPython)."""
    shell = _shell()
    if shell is not None and _record_run not in shell.events.callbacks["post_run_cell"]:
        shell.events.register("post_run_cell", _record_run)


def _failed_to_define(name: str) -> bool:
    """Whether the cell run just before, or the latest recorded cell that binds ``name``, stopped
    with an error.

    Then ``name`` may still hold what an earlier cell gave it, perhaps a lesson's variable of
    the same name, which must never be graded as the learner's answer. (The answer cell comes
    right before its check or grade cell, so a failed run just before is the answer's.)
    """
    if _RUNS and not _RUNS[-1][1]:
        return True
    for cell, success in reversed(_RUNS):
        if _defines(cell, name):
            return not success
    return False


def _shell() -> Any:
    """The running IPython shell, or None outside IPython (a script, the tests)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with the notebooks
        return None
    return get_ipython()


def _executed_cells() -> list[str]:
    """The inputs of the cells run so far in this IPython kernel, oldest first (none outside it)."""
    shell = _shell()
    if shell is None:
        return []
    return [cell for cell in shell.user_ns.get("In", []) if isinstance(cell, str)]


def _may_record(cell: str | None) -> bool:
    """Whether a pass may be recorded, given the cell that defined the answer (None: not found).

    A solution cell's answer never counts. Outside IPython (a script, the tests) there are no
    cells and a pass counts. Inside IPython, a kernel that keeps no input history cannot show
    who computed the answer (nbval runs every cell with ``store_history=False``), so nothing
    is recorded there.
    """
    if cell is not None:
        return SOLUTION_MARKER not in cell
    return _shell() is None


def _defines(cell: str, name: str) -> bool:
    """Whether ``cell`` binds ``name``: ``def name(``, ``name = ``, ``a, name = ``, ``name += ``."""
    word = re.escape(name)
    binding = re.compile(
        rf"^[ \t]*(?:def[ \t]+{word}\b|(?:[\w\[\].,* \t]*,[ \t]*)?\*?{word}[ \t]*"
        rf"(?::[^=\n]+)?(?:\*\*|//|[-+*/%@&|^])?=(?!=))",
        re.MULTILINE,
    )
    return binding.search(_without_comments(cell)) is not None


def defining_cell(name: str, cells: Sequence[str] | None = None) -> str | None:
    """The latest executed cell that binds ``name``, or None when no cell does.

    Parameters
    ----------
    name : str
        The answer's variable or function name.
    cells : sequence of str, optional
        Cell inputs, oldest first; by default the cells run so far in the IPython kernel.

    Returns
    -------
    str or None
        The cell's source.
    """
    for cell in reversed(list(_executed_cells() if cells is None else cells)):
        if _defines(cell, name):
            return cell
    return None


def _without_comments(code: str) -> str:
    """``code`` with every ``#`` comment removed (a ``#`` inside a string is rare in exercises)."""
    return re.sub(r"#[^\n]*", "", code)


LIBRARY_MODULES = ("posenc_lib", "numpy", "jax", "ml_dtypes", "math")
"""Modules whose functions are library code, never the learner's own."""

_PIECE = "# (next piece of the learner's code)"
"""The line between two pieces of :func:`_function_code` (a comment, so no pattern sees it)."""

OWN_NAME = "_own_name_"
"""What a name the learner defines is replaced with before the shortcut patterns are searched."""


def _is_learner_function(value: Any) -> bool:
    """Whether ``value`` is a function or class the learner wrote (not one of a library)."""
    if not isinstance(value, (types.FunctionType, type)):
        return False
    module = getattr(value, "__module__", None) or ""
    return module.split(".")[0] not in LIBRARY_MODULES and module != "builtins"


def _bound_names(code: str) -> set[str]:
    """The names ``code`` defines: functions, classes, assignment and loop targets, arguments.

    Imports do not count: ``from posenc_lib.attention import softmax`` brings the library's
    function in. Code that does not parse (a lambda's partial line, an IPython magic) falls back
    to its ``def name`` and ``name =`` lines.
    """
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        binding = r"^[ \t]*def[ \t]+(\w+)|^[ \t]*(\w+)[ \t]*(?::[^=\n]+)?=(?!=)"
        return {name for pair in re.findall(binding, code, re.M) for name in pair if name}
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names - set(dir(builtins))


def _learner_namespace_functions() -> set[str]:
    """Names bound in the IPython kernel to functions or classes the learner wrote."""
    shell = _shell()
    if shell is None:
        return set()
    return {
        name
        for name, value in list(shell.user_ns.items())
        if not name.startswith("_") and _is_learner_function(value)
    }


def _masked(code: str, names: set[str]) -> str:
    """``code`` without comments, each of ``names`` (not an attribute ``.name``) masked."""
    code = _without_comments(code)
    if not names:
        return code
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.sub(rf"(?<![\w.])(?:{alternatives})\b", OWN_NAME, code)


def _function_code(answer: Any) -> str:
    """The source of a function answer and of the functions it calls, with the names they use.

    Only the learner's functions are followed: a library function's own source is not the
    learner's code (its name stays visible where the learner calls it).
    """
    if not isinstance(answer, types.FunctionType):
        return ""
    seen: set[int] = set()
    pieces: list[str] = []

    def visit(function: types.FunctionType, depth: int) -> None:
        if id(function) in seen or depth > 2 or not _is_learner_function(function):
            return
        seen.add(id(function))
        try:
            pieces.append(inspect.getsource(function))
        except (OSError, TypeError):
            pass
        codes = [function.__code__]
        while codes:
            code = codes.pop()
            pieces.append(" ".join(code.co_names))
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
            for called in code.co_names:
                target = function.__globals__.get(called)
                if isinstance(target, types.FunctionType):
                    visit(target, depth + 1)

    visit(answer, 0)
    return ("\n" + _PIECE + "\n").join(pieces)


@dataclass(frozen=True)
class Exercise:
    """One exercise: what to compute, how to check it, and a hint.

    The worked solution is not here: it lives only in the source notebook's solution cell.

    Parameters
    ----------
    key : str
        Unique name, "NN.short_name" (the notebook number first).
    title : str
        One line saying what the learner computes.
    answer_name : str
        The variable (or function) the learner's cell defines.
    expected : callable
        Returns the right answer, computed with posenc_lib (or a property checker's reference).
        It is kept private: no public attribute or method of the exercise returns the answer,
        and no message of :meth:`check` shows it. A detector's answer is a pair
        ``(choice, evidence)``: the option and the measured value that decides it.
    hint_text : str
        Shown by :meth:`hint`.
    level : {"warm-up", "core", "challenge"}
        The difficulty mark shown in the notebook.
    kind : {"prediction", "derivation", "detector", "construction", "explanation"}
        What the exercise asks for (see :data:`KINDS`).
    objective : str
        The learning objective the exercise checks, for the instructors' table.
    minutes : int
        A typical learner's time for it.
    mistakes : sequence of Mistake
        Known wrong answers; ``check`` names them when the learner's answer matches one.
    shortcuts : sequence of Shortcut
        Ways around the exercise that the prompt forbids; ``check`` refuses them by name.
    rtol, atol : float
        Tolerances for numeric answers.
    call_with : tuple, optional
        When given, the answer is a function: ``check`` calls ``answer(*call_with)`` and compares
        the result (a stub that raises NotImplementedError counts as "not yet").
    """

    key: str
    title: str
    answer_name: str
    expected: InitVar[Callable[[], Any]]
    hint_text: str
    level: str
    kind: str
    objective: str
    minutes: int
    mistakes: Sequence[Mistake] = field(default_factory=tuple)
    shortcuts: Sequence[Shortcut] = field(default_factory=tuple)
    rtol: float = 1e-6
    atol: float = 1e-9
    call_with: tuple[Any, ...] | None = None
    _expected_answer: Callable[[], Any] = field(init=False, repr=False, compare=False)
    _wrong_tries: list[int] = field(init=False, repr=False, compare=False)

    def __post_init__(self, expected: Callable[[], Any]) -> None:
        object.__setattr__(self, "_expected_answer", expected)
        object.__setattr__(self, "_wrong_tries", [0])
        if self.level not in LEVELS:
            raise ValueError(f"{self.key}: level must be one of {LEVELS}; got {self.level!r}")
        if self.kind not in KINDS:
            raise ValueError(f"{self.key}: kind must be one of {KINDS}; got {self.kind!r}")

    def _expected(self) -> Any:
        """The right answer, for the checks and the course's own tests (not for learners)."""
        return self._expected_answer()

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

    def shortcut_used(self, answer: Any, cell: str | None = None) -> Shortcut | None:
        """The forbidden shortcut the learner's code takes, if any.

        Parameters
        ----------
        answer : object
            The learner's answer (a function's source and called names are searched too).
        cell : str, optional
            The code that defined the answer; by default the latest executed cell that binds
            :attr:`answer_name`.
        """
        if cell is None:
            cell = defining_cell(self.answer_name) or ""
        functions = _function_code(answer)
        own = _bound_names(cell) | _learner_namespace_functions()
        for piece in functions.split("\n" + _PIECE + "\n"):
            own |= _bound_names(piece)
        code = _masked(cell + "\n" + functions, own)
        for shortcut in self.shortcuts:
            if re.search(shortcut.pattern, code):
                return shortcut
        return None

    def check(self, answer: Any) -> CheckResult:
        """Compare ``answer`` with the expected one and explain the result.

        A pass is recorded in the learner's progress unless a solution cell computed it.
        """
        if _is_placeholder(answer):
            return CheckResult(False, NOT_ANSWERED, self.title)
        if _failed_to_define(self.answer_name):
            return CheckResult(False, (
                f"The cell that defines {self.answer_name} (or the cell run just before this "
                f"check) stopped with an error, so {self.answer_name} may hold an older value: "
                "fix that cell and run it again."
            ), self.title)  # fmt: skip
        cell = defining_cell(self.answer_name)
        shortcut = self.shortcut_used(answer, cell or "")
        if shortcut is not None:
            return CheckResult(
                False,
                f"This exercise asks you not to use {shortcut.label}: compute it yourself.",
                self.title,
            )
        value, problem = self._evaluate(answer)
        if problem is not None:
            return CheckResult(False, problem, self.title)
        if _is_placeholder(value):
            return CheckResult(False, NOT_ANSWERED, self.title)
        passed, message = _compare(value, self._expected(), self.rtol, self.atol)
        if passed:
            if _may_record(cell):
                record_pass(self.key)
            return CheckResult(True, message, self.title, 1.0)
        mistake = self._mistake_made(value)
        credit = 0.0
        if mistake is not None:
            message += f"\nThis is what you get with a common mistake: {mistake.label}."
            credit = mistake.credit
            if credit:
                message += f"\nClose, for a known reason: it earns {credit:.0%} of the points."
        return CheckResult(False, message + self._hint_offer(), self.title, credit)

    def _mistake_made(self, value: Any) -> Mistake | None:
        """The first known mistake whose wrong answer ``value`` equals, if any."""
        for mistake in self.mistakes:
            if _compare(value, mistake.value(), self.rtol, self.atol)[0]:
                return mistake
        return None

    def _hint_offer(self) -> str:
        """Count one more wrong try; from the :data:`HINT_AFTER`-th on, point to the hint."""
        tries = self._wrong_tries
        tries[0] += 1
        if tries[0] < HINT_AFTER:
            return ""
        name = self.key.split(".", 1)[1]
        return f"\n{tries[0]} tries so far: the hint may help, nb{self.key[:2]}.{name}.hint()."

    def grade(self, answer: Any, points: float | None = None) -> Any:
        """Like :meth:`check`, but raise ``AssertionError`` with the diagnosis when it fails.

        nbgrader's grade cells call it: a failing answer fails the cell, and the message keeps
        the check's explanation and the common mistake it recognised.

        Parameters
        ----------
        answer : object
            The learner's answer.
        points : float, optional
            The points of the grade cell. When given, an answer close for a known reason (a
            mistake with a ``credit``) earns that share: the diagnosis is printed and the
            points are returned, which nbgrader reads as partial credit; a right answer returns
            all the points.

        Returns
        -------
        CheckResult or float
            The check's result without ``points``, else the points earned.
        """
        result = self.check(answer)
        if result.credit <= 0.0 or (points is None and not result.passed):
            raise AssertionError(f"{self.title}\n{result.message}")
        if points is None:
            return result
        earned = _Points(points * result.credit)
        if not result.passed:
            print(f"{self.title}\n{result.message}\nPartial credit: {earned!r} of {points:g}.")
        return earned

    def hint(self) -> str:
        """Return a hint (Jupyter shows it as the cell's output)."""
        return _Text(f"Hint: {self.hint_text}")

    def solution(self) -> str:
        """Say where the worked solution is: the library holds none."""
        notebook = self.key.split(".", 1)[0]
        return _Text(
            "The library holds no solutions. Try the hint first: "
            f"{self.key.split('.', 1)[1]}.hint(). A learner studying alone finds the worked "
            f"solution in the source notebook notebooks/{notebook}_*.ipynb of the repository, "
            "in the cell tagged 'solution' after this exercise."
        )


class _Points(float):
    """Points earned, shown as a bare number (nbgrader reads a number as partial credit)."""

    def __repr__(self) -> str:
        return f"{float(self):g}"


class _Text(str):
    """A string that Jupyter shows as plain text rather than as a quoted repr."""

    def __repr__(self) -> str:
        return str(self)


_track_runs()

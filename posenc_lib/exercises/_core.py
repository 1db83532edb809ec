"""The exercise object every notebook uses: ``ex.check(answer)``, ``ex.hint()``, ``ex.hand_in()``.

Notebooks: 00_why_position to 11_figure_gallery.

An :class:`Exercise` holds no answer: a checkout's answer key (:mod:`posenc_lib.exercises._key`,
written by ``tools/answer_key.py``) lets its check confirm a right answer. Without a key the
check only names known mistakes. Graded work is never judged in the student's kernel: a grade
cell hands the answer in as plain data (``hand_in``), and nbgrader's grader compares it with the
instructor's key outside the kernel (tools/grader.py).

A check says what is right or wrong without showing the target, and refuses the shortcuts an
exercise forbids. Solutions live only in the source notebooks' cells tagged ``solution``; a pass
computed by a solution cell is never recorded. How an answer is compared with the right one
lives in :mod:`posenc_lib.exercises._compare`; which code is the learner's own, for the shortcut
check, in :mod:`posenc_lib.exercises._learner_code`.
"""

from __future__ import annotations

import html
import numbers
import re
from collections.abc import Callable, Sequence
from dataclasses import InitVar, dataclass, field, replace
from typing import Any

import numpy as np

from posenc_lib._record import record_pass
from posenc_lib.exercises._compare import _compare, _nan_match
from posenc_lib.exercises._key import HAND_IN_MIME, NoAnswerKey, load_answer, plain
from posenc_lib.exercises._learner_code import (
    _PIECE,
    BUILD_STEP_NAME,
    _bound_names,
    _function_code,
    _is_learner_function,
    _masked,
    _without_comments,
)
from posenc_lib.exercises._prose import exercise_prose

NOT_ANSWERED = ("Not yet: replace the placeholder in the exercise cell with your answer, "
                "then run it.")
NO_KEY = ("This install has no answer key (an installed package or a graded release), so the "
          "check cannot say whether your answer is right; it only names the known mistakes, and "
          "your teacher's grader scores the answer.")
"""What ``check`` says, without a key, about an answer that is no known mistake."""
_ASK_KEY = object()
"""``reference`` default: take the right answer from the answer key."""
LEVELS = ("warm-up", "core", "challenge")
"""The difficulty marks, easiest first."""
KINDS = ("prediction", "derivation", "detector", "construction", "explanation")
"""What an exercise asks for: predict before running, derive with other parameters, detect a
known misconception, construct something small, or explain through a computed consequence."""
HINT_AFTER = 3
"""Wrong tries of one exercise after which ``check`` offers the hint."""
HINT_LEVELS = (1, 2)
"""The levels of :meth:`Exercise.hint`: 1 gives a direction, 2 the method."""
SOLUTION_MARKER = "### BEGIN SOLUTION"
"""The first line of every solution cell of the source notebooks (nbgrader's marker)."""


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer: ``value`` computes it the way a learner gets it; ``credit`` is the
    share of the points it earns when close for a known reason (0 for a misconception).

    With ``from_answer``, ``value`` takes the right answer and returns the wrong one (a swap, a
    sign, an off-by-one), so that the package holds no value a learner could undo into the
    answer; such a mistake is named only where the right answer is known (a key, the grader).
    A ``value`` that returns None names no mistake (see :func:`while_posed`).
    """

    label: str
    value: Callable[..., Any]
    credit: float = 0.0
    from_answer: bool = False

    def compute(self, right: Any = None) -> Any:
        """The wrong answer; ``right`` is the right one, needed when :attr:`from_answer`."""
        return self.value(right) if self.from_answer else self.value()

    def __post_init__(self) -> None:
        if not 0.0 <= self.credit < 1.0:
            raise ValueError(f"Mistake credit must be in [0, 1); got {self.credit!r}")


def while_posed(params: dict[str, Any], value: Callable[[], Any]) -> Callable[[], Any]:
    """A stored mistake's ``value`` while ``params`` holds the values it holds now (the
    notebook's, which the mistake was stored for), else None: a check never names it for the
    other values a graded release poses with :meth:`Exercise.use`."""
    own = dict(params)
    return lambda: value() if params == own else None


@dataclass(frozen=True)
class Shortcut:
    """A way around the exercise that its prompt forbids.

    ``pattern`` is searched in the learner's code (comments removed, the learner's own names
    masked); ``example`` is a line that takes the shortcut (the tests check both).
    """

    label: str
    pattern: str
    example: str


@dataclass(frozen=True)
class CheckResult:
    """The outcome of :meth:`Exercise.check`; truthy when passed, a coloured box in Jupyter."""

    passed: bool
    message: str
    title: str = ""
    credit: float = 0.0

    def __bool__(self) -> bool:
        return self.passed

    def _wrong_mark(self) -> str:
        """"Not yet", or "Not confirmed" when no key could tell (a graded release)."""
        return "Not confirmed" if self.message == NO_KEY else "Not yet"

    def __repr__(self) -> str:
        mark = "Correct" if self.passed else self._wrong_mark()
        head = f"{mark}: {self.title}" if self.title else mark
        return f"{head}\n{self.message}"

    def _repr_html_(self) -> str:
        colour = "#1b7837" if self.passed else "#b2182b"
        mark = "✔ Correct" if self.passed else f"✘ {self._wrong_mark()}"
        title = f" — {html.escape(self.title)}" if self.title else ""
        body = html.escape(self.message).replace("\n", "<br>")
        return (
            f'<div style="border-left:4px solid {colour};padding:4px 10px">'
            f'<b style="color:{colour}">{mark}</b>{title}<br>{body}</div>'
        )


def _is_placeholder(answer: Any) -> bool:
    return answer is None or answer is Ellipsis


# --- which cell computed the answer, and with what code --------------------------------------

_RUNS: list[tuple[str, bool]] = []
"""Every cell run in this IPython kernel since the exercises were imported: (source, success)."""


def _record_run(result: Any) -> None:
    """IPython's ``post_run_cell`` callback: remember the cell and whether it ran to the end."""
    cell = getattr(getattr(result, "info", None), "raw_cell", None)
    if isinstance(cell, str):
        _RUNS.append((cell, bool(result.success)))


def _track_runs() -> None:
    """Register :func:`_record_run` once per IPython kernel (nothing outside IPython)."""
    shell = _shell()
    if shell is not None and _record_run not in shell.events.callbacks["post_run_cell"]:
        shell.events.register("post_run_cell", _record_run)


def _failed_to_define(name: str) -> bool:
    """Whether the latest cell that binds ``name`` failed: ``name`` may then hold an older value
    (perhaps a lesson's), which is never graded. A failing cell that does not bind ``name`` (a
    scratch cell) does not count."""
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


def _may_record(cell: str | None) -> bool:
    """Whether a pass counts: never from a solution cell; outside IPython always; inside IPython
    only when the defining cell was found (nbval keeps no input history)."""
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
    """The source of the latest cell that binds ``name``, or None when no cell does.

    ``cells`` are cell inputs, oldest first; by default the cells run so far in the kernel.
    """
    if cells is None:
        shell = _shell()
        cells = [] if shell is None else shell.user_ns.get("In", [])
    for cell in reversed([cell for cell in cells if isinstance(cell, str)]):
        if _defines(cell, name):
            return cell
    return None


def _learner_namespace_functions() -> set[str]:
    shell = _shell()
    if shell is None:
        return set()
    return {name for name, value in list(shell.user_ns.items())
            if not name.startswith("_") and _is_learner_function(value)}


@dataclass(frozen=True)
class Exercise:
    """One exercise: what to compute, how to check it, and two hints (the solution is not here).

    ``hints`` holds the direction (what to look at, which idea applies) and then the method (the
    steps to take); neither states the answer. Left out, the title, hints and objective are read
    from the notebook's prose file, ``prose/nbNN.toml`` (:mod:`posenc_lib.exercises._prose`).
    """

    key: str
    title: str = field(default="", kw_only=True)
    answer_name: str
    hints: tuple[str, ...] = field(default=(), kw_only=True)
    level: str
    kind: str
    objective: str = field(default="", kw_only=True)
    minutes: int
    mistakes: Sequence[Mistake] = field(default_factory=tuple)
    shortcuts: Sequence[Shortcut] = field(default_factory=tuple)
    rtol: float = 1e-6
    atol: float = 1e-9
    call_with: tuple[Any, ...] | None = None
    answer_form: Callable[[Any], Any] | None = None
    params: dict[str, Any] | None = field(default=None, compare=False)
    expected: InitVar[Callable[[], Any] | None] = None
    _expected_answer: Callable[[], Any] | None = field(init=False, repr=False, compare=False)
    _wrong_tries: list[int] = field(init=False, repr=False, compare=False)
    _templates: tuple[Any, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self, expected: Callable[[], Any] | None) -> None:
        object.__setattr__(self, "_expected_answer", expected)
        object.__setattr__(self, "_wrong_tries", [0])
        if not (self.title or self.hints or self.objective):
            title, hints, objective = exercise_prose(self.key, self.params)
            object.__setattr__(self, "title", title)
            object.__setattr__(self, "hints", hints)
            object.__setattr__(self, "objective", objective)
        object.__setattr__(self, "_templates", (self.title, self.hints, tuple(self.mistakes),
                                                tuple(self.shortcuts)))
        if self.params is not None:
            self.use(**self.params)
        if self.level not in LEVELS:
            raise ValueError(f"{self.key}: level must be one of {LEVELS}; got {self.level!r}")
        if self.kind not in KINDS:
            raise ValueError(f"{self.key}: kind must be one of {KINDS}; got {self.kind!r}")
        _check_hints(self.key, self.hints)

    def use(self, **values: Any) -> None:
        """Pose the exercise with other values of its :attr:`params` (a graded release's draw).

        ``params`` is the dict of the values the notebook states (``{"L": 16384}``); the
        mistakes read it when they are computed, and the title, hints, mistake labels and
        shortcuts (label, pattern and example) name its values as ``{L}`` (a tuple is written
        "a, b, c"; a literal brace in a shortcut's pattern is ``{{``). Every key must be given,
        each value of the type the notebook's has.
        """
        if self.params is None:
            raise ValueError(f"{self.key}: use() is for an exercise with params; this one has none")
        if set(values) != set(self.params):
            raise ValueError(f"{self.key}: use() takes exactly {sorted(self.params)}; "
                             f"got {sorted(values)}")
        for name, value in values.items():
            if type(value) is not type(self.params[name]):
                raise ValueError(f"{self.key}: {name} must be a {type(self.params[name]).__name__}"
                                 f" like {self.params[name]!r}; got {value!r}")
        self.params.update(values)
        shown = {k: ", ".join(map(str, v)) if isinstance(v, tuple) else v
                 for k, v in self.params.items()}
        title, hints, mistakes, shortcuts = self._templates
        object.__setattr__(self, "title", title.format(**shown))
        object.__setattr__(self, "hints", tuple(h.format(**shown) for h in hints))
        object.__setattr__(self, "mistakes", tuple(
            replace(m, label=m.label.format(**shown)) for m in mistakes))
        object.__setattr__(self, "shortcuts", tuple(
            replace(c, label=c.label.format(**shown), pattern=c.pattern.format(**shown),
                    example=c.example.format(**shown)) for c in shortcuts))

    def _handle(self) -> str:
        """How a notebook names this exercise: ``nb02.half_turns`` for key ``02.half_turns``."""
        return f"nb{self.key}"

    def _expected(self) -> Any:
        """The right answer from the checkout's key; :class:`NoAnswerKey` without one."""
        if self._expected_answer is not None:
            return self._expected_answer()
        return load_answer(self.key)

    def _evaluate(self, answer: Any, inputs: tuple[Any, ...] | None = None
                  ) -> tuple[Any, str | None]:
        """The value to compare (the answer, or what the answer function returns on ``inputs``,
        by default :attr:`call_with`), or a problem."""
        if self.call_with is None:
            return answer, None
        if not callable(answer):
            kind = type(answer).__name__
            return None, f"Expected a function named {self.answer_name}; got {kind}."
        try:
            return answer(*(self.call_with if inputs is None else inputs)), None
        except NotImplementedError:
            return None, NOT_ANSWERED
        except Exception as err:  # the learner's code raised: report it instead of crashing
            return None, f"Your function raised {type(err).__name__}: {err}"

    def shortcut_used(self, answer: Any, cell: str | None = None) -> Shortcut | None:
        """The forbidden shortcut taken by ``cell`` (by default the latest cell that binds
        :attr:`answer_name`) or by the code of a function ``answer``, if any."""
        if cell is None:
            cell = defining_cell(self.answer_name) or ""
        functions = _function_code(answer)
        own = _bound_names(cell) | _learner_namespace_functions()
        for piece in functions.split("\n" + _PIECE + "\n"):
            own |= _bound_names(piece)
        # a build step's function (x_by_me, and my_x = nbNN.steps.x.check(x_by_me)) computes
        # what the library does: a shortcut may name it, so it is not masked as the learner's own
        own = {name for name in own if not BUILD_STEP_NAME.fullmatch(name)}
        code = _masked(cell + "\n" + functions, own)
        for shortcut in self.shortcuts:
            if re.search(shortcut.pattern, code):
                return shortcut
        return None

    def check(self, answer: Any, *, reference: Any = _ASK_KEY) -> CheckResult:
        """Compare ``answer`` with the right one and explain the result.

        The right answer is ``reference`` or else the answer key's; without either, the check
        names known mistakes and confirms nothing. A pass is recorded in the learner's progress
        unless a solution cell computed it.
        """
        if _is_placeholder(answer):
            return CheckResult(False, NOT_ANSWERED, self.title)
        if self.answer_form is not None:
            answer = self.answer_form(answer)
        if _failed_to_define(self.answer_name):
            return CheckResult(False, (
                f"The cell that defines {self.answer_name} stopped with an error, "
                f"so {self.answer_name} may hold an older value: "
                "fix that cell and run it again."
            ), self.title)  # fmt: skip
        cell = defining_cell(self.answer_name)
        shortcut = self.shortcut_used(answer, cell or "")
        if shortcut is not None:
            return CheckResult(False, f"This exercise asks you not to use {shortcut.label}: "
                               "compute it yourself.", self.title)
        value, problem = self._evaluate(answer)
        if problem is not None:
            return CheckResult(False, problem, self.title)
        if _is_placeholder(value):
            return CheckResult(False, NOT_ANSWERED, self.title)
        try:
            expected = self._expected() if reference is _ASK_KEY else reference
        except NoAnswerKey:
            return self._diagnosis_only(value)
        passed, message = _compare(value, expected, self.rtol, self.atol)
        if passed:
            if _may_record(cell):
                record_pass(self.key)
            return CheckResult(True, message, self.title, 1.0)
        message, credit = self.diagnosis(value, expected, message)
        return CheckResult(False, message + self._hint_offer(), self.title, credit)

    def diagnosis(self, value: Any, expected: Any, message: str) -> tuple[str, float]:
        """``message`` about a wrong ``value``, with the known mistake it equals (if any) named,
        and the share of the points that mistake earns."""
        mistake = self._mistake_made(value, expected)
        if mistake is None:
            return message, 0.0
        message += f"\nThis is what you get with a common mistake: {mistake.label}."
        if mistake.credit:
            message += "\nClose: the method is right and one step slipped."
        return message, mistake.credit

    def _diagnosis_only(self, value: Any) -> CheckResult:
        """Without a key: name the known mistake ``value`` equals, and confirm nothing. A
        detector names none: its wrong options, named, would leave the right one."""
        mistake = None if self.kind == "detector" else self._mistake_made(value)
        if mistake is None:
            return CheckResult(False, NO_KEY, self.title)
        return CheckResult(False, f"This is what you get with a common mistake: {mistake.label}.",
                           self.title, mistake.credit)

    def _mistake_made(self, value: Any, expected: Any = _ASK_KEY) -> Mistake | None:
        """The first known mistake ``value`` equals (NaN matching NaN in place), if any; the
        mistakes made from the right answer only when ``expected`` is given."""
        for mistake in self.mistakes:
            if mistake.from_answer and expected is _ASK_KEY:
                continue
            wrong = mistake.compute(expected)
            if wrong is None:  # not known for the values posed (a stored mistake, drawn values)
                continue
            if (_compare(value, wrong, self.rtol, self.atol)[0]
                    or _nan_match(value, wrong, self.rtol, self.atol)):
                return mistake
        return None

    def _hint_offer(self) -> str:
        """Count one more wrong try; from the :data:`HINT_AFTER`-th on, point to the hint."""
        tries = self._wrong_tries
        tries[0] += 1
        if tries[0] < HINT_AFTER:
            return ""
        return f"\n{tries[0]} tries so far: the hint may help, {self._handle()}.hint()."

    def hand_in(self, answer: Any, inputs: Sequence[tuple[Any, ...]] = ()) -> None:
        """Show ``answer`` as plain data for nbgrader's grader (a graded release's grade cell
        calls it); nothing is judged here.

        The data is the answer itself or, for an exercise that asks for a function, what the
        function returns on :attr:`call_with` and then on each of ``inputs`` (which the grader
        draws). An answer that is not plain data (:func:`posenc_lib.exercises._key.plain`), or a
        function that raises, is handed in as the problem it has.
        """
        calls = [None] if self.call_with is None else [self.call_with, *inputs]
        handed = []
        for args in calls:
            value, problem = (answer, None) if args is None else self._evaluate(answer, args)
            try:
                data = None if problem is not None or _is_placeholder(value) else plain(value)
            except TypeError as err:
                data, problem = None, str(err)
            handed.append({"value": data, "problem": problem})
        from IPython.display import display

        display({HAND_IN_MIME: {"key": self.key, "calls": handed},
                 "text/plain": f"{self.answer_name} handed in for grading"}, raw=True)

    def hint(self, level: int = 1) -> str:
        """Return a hint that nudges without giving the answer away.

        Parameters
        ----------
        level : int, default 1
            1 for a direction (what to look at, which idea applies), 2 for the method (the
            steps to take, the function or relation to use).

        Returns
        -------
        str
            The hint, which Jupyter shows as the cell's plain-text output. Level 1 ends by
            pointing to level 2; level 2 ends by saying where the worked solution is.

        Raises
        ------
        ValueError
            If ``level`` is not 1 or 2.
        """
        text = self.hints[_hint_index(level) - 1]
        if level == 1:
            after = f"Still stuck? {self._handle()}.hint(2) gives the method."
        else:
            after = _solution_place(self.key)
        return _Text(f"Hint {level} of 2: {text}\n{after}")

    def solution(self) -> str:
        """Say where the worked solution is: the library holds none."""
        return _Text(
            f"The library holds no solutions. Try the hints first: {self._handle()}.hint(), "
            f"then {self._handle()}.hint(2). {_solution_place(self.key)}"
        )


del Exercise.expected  # type: ignore[attr-defined]  # the InitVar's default, left on the class


def _hint_index(level: Any) -> int:
    """``level`` when it is a hint level (1 or 2); a ValueError naming what is allowed if not."""
    whole = isinstance(level, numbers.Integral) and not isinstance(level, (bool, np.bool_))
    if not whole or level not in HINT_LEVELS:
        raise ValueError(f"hint(level): level must be 1 (a direction) or 2 (the method); "
                         f"got {level!r}")
    return int(level)


def _check_hints(key: str, hints: Any) -> None:
    """Refuse hints that are not two different non-empty texts (a direction, then a method)."""
    if (not isinstance(hints, tuple) or len(hints) != len(HINT_LEVELS)
            or not all(isinstance(h, str) and h.strip() for h in hints)):
        raise ValueError(f"{key}: hints must be two non-empty texts (direction, method); "
                         f"got {hints!r}")
    if hints[0].strip() == hints[1].strip():
        raise ValueError(f"{key}: the two hints must differ; both are {hints[0]!r}")


def _solution_place(key: str) -> str:
    """Where a learner studying alone finds the worked solution of exercise ``key``."""
    notebook = key.split(".", 1)[0]
    return ("The worked solution is in the source notebook "
            f"notebooks/{notebook}_*.ipynb, in the cell tagged 'solution' after this exercise; "
            f"from the repository, `make solution EX={key}` prints it.")


class _Text(str):
    """A string that Jupyter shows as plain text rather than as a quoted repr."""

    def __repr__(self) -> str:
        return str(self)


_track_runs()

"""The grader's side of nbgrader's autograde: answers compared outside the student's kernel.

The generated ``nbgrader_config.py`` (tools/build_nbgrader.py) puts :class:`GradedExecute` in
place of nbgrader's ``Execute`` among autograde's preprocessors. Around the execution of a
submission in the student's kernel it

1. before: adds to the grade cell of each exercise that asks for a function the inputs it
   draws now (:data:`DRAWS`), so that the kernel's ``hand_in`` also hands in the function's
   outputs on inputs no release showed;
2. after: reads what each grade cell handed in (plain data: ``Exercise.hand_in``), compares it
   with the right answer computed here from the instructor's key (tools/answer_key.py, posed
   with the values the course's instructor seed draws), and replaces the grade cell's outputs by
   the diagnosis and the score nbgrader records (all points, a number for partial credit, an
   error for none). Whatever else the kernel printed in a grade cell is dropped, so no score the
   kernel prints counts; the grade cell's source is put back as released.

The exercises' refusals of library shortcuts are applied to the submitted cells' source here,
and an answer whose defining cell stopped with an error is not graded (a lesson variable of the
same name could stand in for it). The kernel never sees a reference: the grade cells hold none,
and the grader never runs the student's objects (only JSON decoded into NumPy values).
"""

from __future__ import annotations

import ast
import re
import secrets
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Integer

from posenc_lib.attention import causal_mask, self_attention
from posenc_lib.bias import alibi_slopes
from posenc_lib.exercises import all_exercises, nb01, nb02
from posenc_lib.exercises._core import (
    BUILD_STEP_NAME,
    NOT_ANSWERED,
    Exercise,
    Shortcut,
    _bound_names,
    _compare,
    _defines,
    _masked,
    defining_cell,
)
from posenc_lib.exercises._key import HAND_IN_MIME, decode, encode_answer
from posenc_lib.exercises._property import PropertyExercise
from posenc_lib.sinusoidal import sinusoidal_encoding_at
from tools.answer_key import EXPECTED
from tools.build_nbgrader import hand_in_call
from tools.variants import VARIANTS, answer_for, draw, posed

DECODE = "__import__('posenc_lib.exercises._key', fromlist=['decode']).decode"
"""The kernel's expression for :func:`decode` (the grade cell's own imports may be gone)."""


def _written(args: tuple[Any, ...]) -> str:
    """The kernel's expression for the arguments ``args``, written out as plain data."""
    return f"{DECODE}({encode_answer(tuple(args))!r})"


def _module(name: str) -> str:
    return f"__import__('posenc_lib.exercises.{name}', fromlist=['_'])"


def _attention(rng: np.random.Generator) -> tuple[str, Any]:
    n, width = int(rng.integers(5, 9)), int(rng.integers(3, 6))
    x, w_q, w_k, w_v = rng.normal(size=(n, width)), *rng.normal(size=(3, width, width))
    return _written((x, w_q, w_k, w_v)), self_attention(x, w_q, w_k, w_v, mask=causal_mask(n))[0]


def _gray(rng: np.random.Generator) -> tuple[str, Any]:
    bit = int(rng.integers(1, 4))
    positions = np.sort(rng.uniform(0.0, 64.0, 200))
    return _written((positions, bit)), nb01.smooth_bit_wave(positions + 2**bit, bit + 1)


def _decode(rng: np.random.Generator) -> tuple[str, Any]:
    positions = np.round(rng.uniform(0.0, 20000.0, 5), 2)
    return _written((sinusoidal_encoding_at(positions, nb02._DECODE_D),)), positions


def _heads(rng: np.random.Generator) -> tuple[str, Any]:
    n = int(rng.choice([4, 6, 12, 16, 24, 48]))
    return _written((n,)), alibi_slopes(n)


def _t5(rng: np.random.Generator) -> tuple[str, Any]:
    cases = [(int(rng.choice([1, -1])), bool(rng.integers(2))) for _ in range(5)]
    code = (f"([m.t5_relative_position_bucket(s * m.relative_position_matrix(m._SIZE), "
            f"bidirectional=b) for s, b in {cases!r}],)")
    return f"(lambda m: {code})({_module('nb07')})", np.array([s == 1 for s, _ in cases])


def _tables(rng: np.random.Generator) -> tuple[str, Any]:
    kinds = [("_safe_table", "_narrow_angle_table")[int(rng.integers(2))] for _ in range(5)]
    cases = [(kind, ("float16", "bfloat16")[int(rng.integers(2))]) for kind in kinds]
    code = f"([getattr(m, k)(d) for k, d in {cases!r}],)"
    return (f"(lambda m: {code})({_module('nb08')})",
            np.array([kind == "_narrow_angle_table" for kind, _ in cases]))


def _distance(rng: np.random.Generator) -> tuple[str, Any]:
    n, d = int(rng.integers(20, 61)), int(rng.choice([8, 16, 24]))
    base = float(rng.choice([100.0, 1000.0, 10000.0]))
    codes = sinusoidal_encoding_at(np.arange(n), d, base)
    return _written((n, d, base)), np.linalg.norm(codes - codes[0], axis=1)


DRAWS: dict[str, Callable[[np.random.Generator], tuple[str, Any]]] = {
    "00.causal_attention": _attention, "01.gray_cousin": _gray, "02.decode_position": _decode,
    "07.alibi_heads": _heads, "07.t5_direction": _t5, "08.table_detector": _tables,
    "11.offset_distance": _distance,
}
"""For each exercise that asks for a function: inputs drawn at grading time, as the kernel's
expression for the argument tuple, and the right result on them (computed here)."""
DRAWN_CALLS = 2
"""How many drawn inputs each function answer is called on, after the released ones."""


def exercise_key(grade_id: str) -> str | None:
    """The exercise of a grade cell ("ex01_bit_period" -> "01.bit_period"), if it is one."""
    match = re.fullmatch(r"ex(\d\d)_(\w+)", grade_id)
    return None if match is None else f"{match[1]}.{match[2]}"


@cache
def right_answer(seed: int, key: str) -> Any:
    """Exercise ``key``'s right answer as the course of instructor seed ``seed`` poses it."""
    return EXPECTED[key]() if key not in VARIANTS else answer_for(key, draw(seed, key))


def _called_functions(code: str) -> set[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set(re.findall(r"(\w+)\s*\(", code))
    return {node.func.id for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}


def shortcut_in_source(exercise: Exercise, sources: list[str]) -> Shortcut | None:
    """The shortcut the exercise refuses that the submitted cells ``sources`` (those above the
    grade cell, oldest first) take to define its answer: the latest cell that binds the answer,
    and the learner's functions it calls (two levels), the learner's own names masked."""
    pieces = [defining_cell(exercise.answer_name, sources) or ""]
    seen: set[str] = set()
    for _ in range(2):
        for name in set().union(*map(_called_functions, pieces)) - seen:
            seen.add(name)
            defines = re.compile(rf"^\s*def\s+{re.escape(name)}\b", re.M)
            found = next((s for s in reversed(sources) if defines.search(s)), None)
            if found is not None and found not in pieces:
                pieces.append(found)
    own = set().union(*map(_bound_names, sources)) if sources else set()
    own = {name for name in own if not BUILD_STEP_NAME.fullmatch(name)}
    code = _masked("\n".join(pieces), own)
    return next((s for s in exercise.shortcuts if re.search(s.pattern, code)), None)


def _failed_above(exercise: Exercise, cells: list[NotebookNode]) -> bool:
    """Whether the latest cell above that binds the answer stopped with an error."""
    for cell in reversed(cells):
        if _defines(cell.source, exercise.answer_name):
            return any(o.output_type == "error" for o in cell.get("outputs", []))
    return False


def _handed(cell: NotebookNode, key: str) -> list[dict] | str:
    """The calls the grade cell handed in for ``key``, or why there are none."""
    found = [o.data[HAND_IN_MIME] for o in cell.get("outputs", [])
             if o.output_type == "display_data" and HAND_IN_MIME in o.get("data", {})]
    if len(found) != 1 or not isinstance(found[0], dict) or found[0].get("key") != key:
        return ("No answer was handed in: the grade cell stopped before it could (is the answer's "
                "cell deleted, or did the notebook stop with an error above?).")
    calls = found[0].get("calls")
    if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
        return "The answer handed in could not be read."
    return calls


NUMERIC_DTYPE = re.compile(r"[<>|=]?[biuf]\d{1,2}")
"""The dtypes a value handed in may name (as ``plain`` writes them): bool, integers, floats."""


def _numeric(data: Any) -> bool:
    """Whether decoded JSON ``data`` names only numeric dtypes, however deep."""
    if isinstance(data, dict):
        kind = data.get("array", data.get("scalar"))
        if kind is not None and not (isinstance(kind, str) and NUMERIC_DTYPE.fullmatch(kind)):
            return False
        return all(_numeric(item) for item in data.values())
    if isinstance(data, list):
        return all(_numeric(item) for item in data)
    return True


def _value(call: dict) -> tuple[Any, str | None]:
    """A handed-in call's value decoded here (NumPy values only), or its problem."""
    problem = call.get("problem")
    if problem is not None:
        return None, str(problem)[:300]
    unreadable = "The answer handed in could not be read."
    if not _numeric(call.get("value")):
        return None, unreadable
    try:
        return decode(call.get("value")), None
    except (KeyError, TypeError, ValueError):
        return None, unreadable


def verdict(exercise: Exercise, right: Any, calls: list[dict],
            drawn: list[Any]) -> tuple[float, str]:
    """The share of the points earned and the diagnosis, from the decoded calls."""
    value, problem = _value(calls[0])
    if problem is not None:
        return 0.0, problem
    if value is None or (exercise.call_with is not None and len(calls) != 1 + len(drawn)):
        return 0.0, NOT_ANSWERED
    if exercise.answer_form is not None:
        value = exercise.answer_form(value)
    if isinstance(exercise, PropertyExercise):
        holds, message = exercise.judge(value)
        passed = bool(holds)
    else:
        passed, message = _compare(value, right, exercise.rtol, exercise.atol)
    if not passed:
        message, credit = exercise.diagnosis(value, right, message)
        return credit, message
    for call, reference in zip(calls[1:], drawn, strict=True):
        other, problem = _value(call)
        ok, said = (False, problem) if problem is not None else _compare(
            other, reference, exercise.rtol, exercise.atol)
        if not ok:
            return 0.0, ("Right on the released inputs, but not on other inputs the grader drew: "
                         f"{said}")
    return 1.0, message


def score(exercise: Exercise, right: Any, cell: NotebookNode, above: list[NotebookNode],
          drawn: list[Any]) -> tuple[float, str]:
    """The share of the points grade cell ``cell`` earns, and what the student is told."""
    if _failed_above(exercise, above):
        return 0.0, (f"The cell that defines {exercise.answer_name} stopped with an error, so "
                     f"{exercise.answer_name} may hold an older value: it is not graded.")
    shortcut = shortcut_in_source(exercise, [c.source for c in above if c.cell_type == "code"])
    if shortcut is not None:
        return 0.0, f"This exercise asks you not to use {shortcut.label}: compute it yourself."
    calls = _handed(cell, exercise.key)
    if isinstance(calls, str):
        return 0.0, calls
    try:
        return verdict(exercise, right, calls, drawn)
    except (ArithmeticError, TypeError, ValueError, KeyError):  # e.g. a whole number past float
        return 0.0, "The answer handed in could not be compared with the right one."


def outputs(title: str, share: float, message: str, points: float) -> list[NotebookNode]:
    """The grade cell's outputs: the diagnosis, and what nbgrader reads the score from."""
    if share >= 1.0:
        return [NotebookNode(output_type="stream", name="stdout",
                             text=f"Correct: {title}\n{message}\n")]
    if share <= 0.0:
        text = f"{title}\n{message}"  # the traceback is what the feedback page shows
        return [NotebookNode(output_type="error", ename="AssertionError", evalue=text,
                             traceback=[f"Scored 0 of {points:g}: {text}"])]
    earned = points * share
    return [NotebookNode(output_type="stream", name="stdout",
                         text=f"{title}\n{message}\nPartial credit: {earned:g} of {points:g}.\n"),
            NotebookNode(output_type="execute_result", execution_count=None, metadata={},
                         data={"text/plain": f"{earned:g}"})]


class GradedExecute(Execute):
    """nbgrader's ``Execute``, with the inputs drawn before and the answers scored after."""

    seed = Integer(0, help="The course's instructor seed (instructor_seed.txt)").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: Any = None, km: Any = None) -> Any:
        exercises = all_exercises()
        released: dict[int, str] = {}
        drawn: dict[int, list[Any]] = {}
        rng = np.random.default_rng(secrets.randbits(128))
        for index, cell in enumerate(nb.cells):
            key = exercise_key(cell.metadata.get("nbgrader", {}).get("grade_id", ""))
            if cell.cell_type != "code" or key not in exercises or key not in DRAWS:
                continue
            made = [DRAWS[key](rng) for _ in range(DRAWN_CALLS)]
            released[index], drawn[index] = cell.source, [reference for _, reference in made]
            call = hand_in_call(key)
            inputs = ", ".join(code for code, _ in made)
            cell.source = cell.source.replace(call, f"{call[:-1]}, inputs=[{inputs}])")
        nb, resources = super().preprocess(nb, resources, km)
        for index, cell in enumerate(nb.cells):
            meta = cell.metadata.get("nbgrader", {})
            key = exercise_key(meta.get("grade_id", ""))
            if cell.cell_type != "code" or not meta.get("grade") or key not in exercises:
                continue
            cell.source = released.get(index, cell.source)
            values = draw(self.seed, key) if key in VARIANTS else None
            with posed(key, values) as exercise:
                share, message = score(exercise, right_answer(self.seed, key), cell,
                                       nb.cells[:index], drawn.get(index, []))
                cell.outputs = outputs(exercise.title, share, message, float(meta["points"]))
        return nb, resources

"""The grader's side of autograde (tools/grader.py), without nbgrader: what a kernel may hand in,
how it is judged, the inputs drawn for function answers, and the shortcuts read off the source.
The whole cycle through nbgrader's commands is in tests/test_nbgrader.py and
tests/test_grading_integrity.py."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

from posenc_lib.exercises import all_exercises
from posenc_lib.exercises._core import _compare, _defines
from posenc_lib.exercises._key import plain
from tests.test_sealed_checks import solution_function
from tests.test_variants import run_solution
from tools.grader import DRAWS, shortcut_in_source, verdict
from tools.notebook_cells import NOTEBOOKS, exercise_cells, solution_code
from tools.variants import VARIANTS, answer_for, posed

EXERCISES = all_exercises()
CELLS = {key: (path, cells) for path in NOTEBOOKS for key, cells in exercise_cells(path).items()}


class Sneaky(int):
    """The int subclass of issue 46: its ``__float__`` would read a caller's local variable."""

    def __float__(self) -> float:
        frame = sys._getframe(1)
        return float(frame.f_locals.get("expected", 0))


class Arrayish:
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.zeros(3)


class Equal:
    def __eq__(self, other: object) -> bool:
        return True


@pytest.mark.parametrize("answer", [Sneaky(3), Arrayish(), Equal(), np.arange(3).view(np.matrix),
                                    np.array([Sneaky(1)], dtype=object), [1, Equal()],
                                    (Sneaky(2),), {"a": 1}])
def test_only_plain_data_is_handed_in(answer: Any) -> None:
    with pytest.raises(TypeError, match="an answer must"):
        plain(answer)


def test_plain_data_keeps_its_type_and_value() -> None:
    from posenc_lib.exercises._key import decode

    for answer in (3, 2.5, "rope", True, None, np.arange(4.0).reshape(2, 2), np.float32(1.5),
                   (1, "a"), [np.int64(2), 3.0], {1, 2}):
        back = decode(plain(answer))
        assert type(back) is type(answer) or isinstance(answer, np.generic)
        assert np.array_equal(np.asarray(back), np.asarray(answer))


@pytest.mark.parametrize("key", sorted(DRAWS))
def test_drawn_inputs_tell_a_computed_function_from_a_hard_coded_one(key: str) -> None:
    """The solution is right on inputs drawn twice; a function returning the released answer
    is not, and the drawn inputs are not the released ones."""
    exercise = EXERCISES[key]
    solution = solution_function(key)
    released = exercise._expected()
    for seed in (1, 2):
        code, reference = DRAWS[key](np.random.default_rng(seed))
        inputs = eval(code)  # as the grade cell evaluates it in the kernel
        assert _compare(solution(*inputs), reference, exercise.rtol, exercise.atol)[0], key
        assert not _compare(released, reference, exercise.rtol, exercise.atol)[0], key
        calls = [{"value": plain(solution(*exercise.call_with)), "problem": None},
                 {"value": plain(solution(*inputs)), "problem": None}]
        assert verdict(exercise, released, calls, [reference]) [0] == 1.0
        calls[1] = {"value": plain(released), "problem": None}  # hard-coded
        share, message = verdict(exercise, released, calls, [reference])
        assert share == 0.0 and "other inputs the grader drew" in message


@pytest.mark.parametrize("key", sorted(k for k in EXERCISES if EXERCISES[k].shortcuts))
def test_the_grader_refuses_the_shortcuts_in_the_submitted_source(key: str) -> None:
    exercise = EXERCISES[key]
    path, cells = CELLS[key]
    solution = solution_code(path, cells.solution)
    assert shortcut_in_source(exercise, ["import numpy as np", solution]) is None, key
    for shortcut in exercise.shortcuts:
        cell = answer_cell(exercise.answer_name, shortcut.example, exercise.call_with is not None)
        assert shortcut_in_source(exercise, [cell]) == shortcut, shortcut.label
        commented = answer_cell(exercise.answer_name, "# " + shortcut.example.replace(
            "\n", "\n# "), exercise.call_with is not None)
        assert shortcut_in_source(exercise, [commented]) is None


def answer_cell(name: str, code: str, function: bool) -> str:
    """An answer cell that binds ``name`` with ``code`` in it (the body of a function ``name``
    for an exercise that asks for one)."""
    if _defines(code, name):
        return code
    if function:
        return f"def {name}(*args):\n    " + code.replace("\n", "\n    ") + "\n    return 0"
    return f"{code}\n{name} = 0"


def test_a_shortcut_in_a_helper_the_answer_calls_is_refused() -> None:
    exercise = EXERCISES["02.slow_pair"]
    shortcut = exercise.shortcuts[0]
    helper = "def helper():\n    " + shortcut.example.replace("\n", "\n    ")
    answer = f"{exercise.answer_name} = helper()"
    assert shortcut_in_source(exercise, [helper, answer]) == shortcut


def test_partial_credit_and_the_named_mistake_come_from_the_grader() -> None:
    exercise = next(e for e in EXERCISES.values()
                    if e.call_with is None
                    and any(m.credit and not m.from_answer for m in e.mistakes))
    right = exercise._expected()
    mistake = next(m for m in exercise.mistakes if m.credit and not m.from_answer)
    share, message = verdict(exercise, right, [{"value": plain(mistake.compute()),
                                                "problem": None}], [])
    assert share == mistake.credit and mistake.label in message
    assert verdict(exercise, right, [{"value": plain(right), "problem": None}], [])[0] == 1.0
    share, message = verdict(exercise, right, [{"value": None, "problem": "refused"}], [])
    assert share == 0.0 and message == "refused"


def test_data_a_kernel_forges_is_refused_not_run() -> None:
    """A kernel may hand in any JSON: dtypes other than numbers, or a number too large for a
    float, score 0 without stopping the grader."""
    from nbformat import NotebookNode

    from tools.grader import score

    exercise = EXERCISES["02.half_turns"]
    cell = NotebookNode(outputs=[], source="")
    for value in ({"array": "|O", "shape": [1], "data": [[1]]}, {"scalar": "<M8[s]", "data": 1},
                  10**400):
        cell.outputs = [NotebookNode(output_type="display_data", metadata={}, data={
            "application/vnd.posenc.hand-in+json": {
                "key": exercise.key, "calls": [{"value": value, "problem": None}]}})]
        share, message = score(exercise, exercise._expected(), cell, [], [])
        assert share == 0.0 and "could not be" in message, value


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_every_posed_solution_handed_in_earns_full_points(key: str) -> None:
    """Each exercise posed with other values: its solution for them, handed in as plain data
    (whatever type the solution binds), earns all the points from the grader."""
    values = dict(VARIANTS[key].sets[0])
    mine = run_solution(key, VARIANTS[key].solution(values), values)
    right = answer_for(key, values)
    with posed(key, values) as exercise:
        share, message = verdict(exercise, right, [{"value": plain(mine), "problem": None}], [])
    assert share == 1.0, (key, message)


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_every_posed_mistake_handed_in_is_named_with_its_credit(key: str) -> None:
    """The grader names each mistake it can compute for the drawn values, with its credit."""
    values = dict(VARIANTS[key].sets[0])
    right = answer_for(key, values)
    named = 0
    with posed(key, values) as exercise:
        for mistake in exercise.mistakes:
            wrong = mistake.compute(right)
            if wrong is None:  # stored for the notebook's values only
                continue
            calls = [{"value": plain(wrong), "problem": None}]
            share, message = verdict(exercise, right, calls, [])
            assert share == mistake.credit and mistake.label in message, (key, mistake.label)
            named += 1
    # the guide: a stored mistake is not named for drawn values (10.turning_pairs has only those)
    assert named or key == "10.turning_pairs", key

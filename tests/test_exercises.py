"""Every exercise of the course: its stored solution passes, its known mistakes fail, the
placeholder gets "Not yet", and the notebook's solution cell is the solution the library shows."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.exercises import NOT_ANSWERED, Exercise, Mistake, all_exercises
from tests.notebook_cells import NOTEBOOKS, solution_blocks

EXERCISES = all_exercises()
KEYS = sorted(EXERCISES)


def run_solution(exercise: Exercise) -> object:
    namespace: dict[str, object] = {}
    exec(compile(exercise.solution_code, f"<solution {exercise.key}>", "exec"), namespace)
    assert exercise.answer_name in namespace, f"solution does not define {exercise.answer_name}"
    return namespace[exercise.answer_name]


@pytest.mark.parametrize("key", KEYS)
def test_stored_solution_passes(key: str) -> None:
    exercise = EXERCISES[key]
    result = exercise.check(run_solution(exercise))
    assert result.passed, result.message


@pytest.mark.parametrize("key", KEYS)
def test_every_known_mistake_fails_and_is_named(key: str) -> None:
    exercise = EXERCISES[key]
    assert exercise.mistakes, f"{key} lists no common mistake to test against"
    for mistake in exercise.mistakes:
        wrong = mistake.value()
        if exercise.call_with is not None:
            result = exercise.check(lambda *args, _w=wrong: _w)
        else:
            result = exercise.check(wrong)
        assert not result.passed, f"{key}: mistake {mistake.label!r} passes the check"
        assert mistake.label in result.message


@pytest.mark.parametrize("key", KEYS)
def test_placeholder_says_not_yet(key: str) -> None:
    exercise = EXERCISES[key]
    for placeholder in (..., None):
        result = exercise.check(placeholder)
        assert not result.passed and result.message == NOT_ANSWERED

    if exercise.call_with is not None:

        def stub(*args: object) -> object:
            raise NotImplementedError

        assert exercise.check(stub).message == NOT_ANSWERED


def test_every_exercise_key_names_its_notebook() -> None:
    numbers = {path.name[:2] for path in NOTEBOOKS}
    for key in KEYS:
        assert key.split(".")[0] in numbers, f"{key} belongs to no notebook in notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_solution_cells_match_the_library_solutions(path: object) -> None:
    number = path.name[:2]  # type: ignore[attr-defined]
    library = {
        ex.solution_code.strip() for k, ex in EXERCISES.items() if k.startswith(f"{number}.")
    }
    blocks = solution_blocks(path)  # type: ignore[arg-type]
    assert blocks, f"{path} has no solution cells"
    for block in blocks:
        assert block in library, f"solution cell not in posenc_lib.exercises:\n{block}"


# --- the checker itself ----------------------------------------------------------------------

ARRAY = Exercise(
    key="99.array",
    title="an array",
    answer_name="a",
    expected=lambda: np.linspace(0.0, 1.0, 5),
    hint_text="linspace",
    solution_code="import numpy as np\na = np.linspace(0.0, 1.0, 5)",
    mistakes=(Mistake("linspace to 2", lambda: np.linspace(0.0, 2.0, 5)),),
)


def test_check_reports_the_shape() -> None:
    result = ARRAY.check(np.zeros(4))
    assert not result.passed
    assert "(5,)" in result.message and "(4,)" in result.message


def test_check_reports_first_difference_and_tolerance() -> None:
    wrong = np.linspace(0.0, 1.0, 5)
    wrong[3] = 9.0
    result = ARRAY.check(wrong)
    assert not result.passed
    assert "index (3,)" in result.message and "9" in result.message and "rtol" in result.message


def test_check_names_a_known_mistake() -> None:
    result = ARRAY.check(np.linspace(0.0, 2.0, 5))
    assert "linspace to 2" in result.message


def test_check_accepts_within_tolerance_and_lists() -> None:
    assert ARRAY.check([0.0, 0.25, 0.5, 0.75, 1.0 + 1e-12]).passed


def test_check_rejects_non_numbers_and_nan() -> None:
    assert "numeric" in ARRAY.check("abc").message
    assert "NaN" in ARRAY.check([0.0, np.nan, 0.5, 0.75, 1.0]).message


def test_function_answers_are_called_and_their_errors_reported() -> None:
    square = Exercise(
        key="99.square",
        title="square",
        answer_name="f",
        expected=lambda: 9,
        hint_text="x*x",
        solution_code="def f(x):\n    return x * x",
        call_with=(3,),
    )
    assert square.check(lambda x: x * x).passed
    assert "ZeroDivisionError" in square.check(lambda x: 1 / 0).message
    assert "function" in square.check(9).message


def test_hint_and_solution_show_as_text() -> None:
    assert repr(ARRAY.hint()) == "Hint: linspace"
    assert repr(ARRAY.solution()).startswith("import numpy")

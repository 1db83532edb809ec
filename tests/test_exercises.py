"""Every exercise of the course: its solution cell passes, its known mistakes fail and are named,
its forbidden shortcuts are refused, and the placeholder gets "Not yet"; plus the checker itself."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from posenc_lib.exercises import (
    KINDS,
    LEVELS,
    NOT_ANSWERED,
    Exercise,
    Mistake,
    Shortcut,
    all_exercises,
)
from posenc_lib.exercises._core import defining_cell
from tools.notebook_cells import NOTEBOOKS, exercise_cells, load, solution_code
from tools.variants import VARIANTS, answer_for, posed

EXERCISES = all_exercises()
KEYS = sorted(EXERCISES)
CELLS = {key: (path, where) for path in NOTEBOOKS for key, where in exercise_cells(path).items()}


def test_every_exercise_has_cells_in_its_notebook_and_every_check_an_exercise() -> None:
    assert sorted(CELLS) == KEYS
    for key, (path, _) in CELLS.items():
        assert path.name.startswith(key.split(".")[0]), f"{key} is checked in {path.name}"


@pytest.mark.parametrize("key", KEYS)
def test_stored_check_of_the_solution_says_correct(key: str) -> None:
    path, where = CELLS[key]
    outputs = load(path)["cells"][where.check]["outputs"]
    texts = ["".join(o.get("data", {}).get("text/plain", "")) for o in outputs]
    assert any(text.startswith("Correct") for text in texts), f"{key}: stored check {texts}"


@pytest.mark.parametrize("key", KEYS)
def test_every_known_mistake_fails_and_is_named(key: str) -> None:
    exercise = EXERCISES[key]
    assert exercise.mistakes, f"{key} lists no common mistake to test against"
    for mistake in exercise.mistakes:
        wrong = mistake.compute(exercise._expected())
        if exercise.call_with is not None:
            result = exercise.check(lambda *args, _w=wrong: _w)
        else:
            result = exercise.check(wrong)
        assert not result.passed, f"{key}: mistake {mistake.label!r} passes the check"
        assert mistake.label in result.message


@pytest.mark.parametrize("key", KEYS)
def test_shortcuts_are_found_and_no_solution_takes_one(key: str) -> None:
    exercise = EXERCISES[key]
    path, where = CELLS[key]
    solution = solution_code(path, where.solution)
    assert exercise.shortcut_used(None, cell=solution) is None, f"{key}: the solution is refused"
    for shortcut in exercise.shortcuts:
        assert exercise.shortcut_used(None, cell=shortcut.example) == shortcut, shortcut.label
        commented = f"# {shortcut.example}\n{exercise.answer_name} = ..."
        assert exercise.shortcut_used(None, cell=commented) is None, "comments are ignored"


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


@pytest.mark.parametrize("key", KEYS)
def test_metadata_for_the_instructors_table(key: str) -> None:
    exercise = EXERCISES[key]
    assert exercise.level in LEVELS and exercise.kind in KINDS
    assert 2 <= exercise.minutes <= 60
    assert len(exercise.objective) > 15 and exercise.objective != "TODO"


# --- the checker itself ----------------------------------------------------------------------

ARRAY = Exercise(
    key="99.array",
    title="an array",
    answer_name="a",
    expected=lambda: np.linspace(0.0, 1.0, 5),
    hints=("think of evenly spaced numbers", "use np.linspace"),
    level="warm-up",
    kind="derivation",
    objective="make five evenly spaced numbers",
    minutes=2,
    mistakes=(Mistake("linspace to 2", lambda: np.linspace(0.0, 2.0, 5)),),
    shortcuts=(Shortcut("the array's literal", r"\[0\.0, 0\.25", "a = [0.0, 0.25, 0.5]"),),
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


def square_exercise(**changes: Any) -> Exercise:
    """An exercise whose answer is a function that squares 3."""
    fields: dict[str, Any] = {
        "key": "99.square", "title": "square", "answer_name": "f", "expected": lambda: 9,
        "hints": ("square it", "multiply x by itself"), "level": "core", "kind": "construction",
        "objective": "square a number", "minutes": 2, "call_with": (3,),
    }
    return Exercise(**{**fields, **changes})


def test_function_answers_are_called_and_their_errors_reported() -> None:
    square = square_exercise()
    assert square.check(lambda x: x * x).passed
    assert "ZeroDivisionError" in square.check(lambda x: 1 / 0).message
    assert "function" in square.check(9).message


def library_square(x: float) -> float:
    return float(np.square(x))


def learner_square(x: float) -> float:
    return library_square(x)  # calls a forbidden function one level down


def test_a_forbidden_call_is_found_in_the_function_and_in_what_it_calls() -> None:
    squaring = square_exercise(
        expected=lambda: 9.0,
        objective="square a number without numpy",
        shortcuts=(Shortcut("np.square", r"\bsquare\b", "f = np.square"),),
    )
    assert squaring.check(lambda x: x * x).passed
    result = squaring.check(learner_square)
    assert not result.passed and "np.square" in result.message


def test_shortcut_in_the_defining_cell_is_refused() -> None:
    assert ARRAY.shortcut_used(None, cell="a = [0.0, 0.25, 0.5, 0.75, 1.0]") is not None
    assert ARRAY.shortcut_used(None, cell="a = np.linspace(0, 1, 5)") is None


@pytest.mark.parametrize(
    ("cell", "defines"),
    [
        ("a = 3", True),
        ("a: float = 3", True),
        ("x, a = 1, 2", True),
        ("a += 1", True),
        ("def a(x):\n    return x", True),
        ("  a = 3  # indented, in a loop", True),
        ("a == 3", False),
        ("b = a + 1", False),
        ("# a = 3", False),
        ("alpha = 3", False),
    ],
)
def test_defining_cell_finds_the_binding(cell: str, defines: bool) -> None:
    found = defining_cell("a", ["a = 0", "print(a)", cell])
    assert found == (cell if defines else "a = 0")


def test_hint_and_solution_show_as_text_and_no_solution_is_in_the_library() -> None:
    assert repr(ARRAY.hint()) == (
        "Hint 1 of 2: think of evenly spaced numbers\n"
        "Still stuck? nb99.array.hint(2) gives the method."
    )
    assert repr(ARRAY.hint(2)).startswith("Hint 2 of 2: use np.linspace\nThe worked solution")
    text = repr(ARRAY.solution())
    assert "source notebook" in text and "linspace(" not in text
    assert "nb99.array.hint()" in text and "nb99.array.hint(2)" in text


@pytest.mark.parametrize("hints", [("same", "same"), ("only one",), ("direction", ""), "one"])
def test_an_exercise_needs_two_different_hints(hints: Any) -> None:
    with pytest.raises(ValueError, match="hints"):
        square_exercise(hints=hints)


# --- partial credit and answers that an error left behind ------------------------------------

CREDITED = Exercise(
    key="99.credited",
    title="a count",
    answer_name="n",
    expected=lambda: 10,
    hints=("count the steps", "add one per step"),
    level="core",
    kind="derivation",
    objective="count the steps between ten tokens",
    minutes=2,
    mistakes=(Mistake("one too many", lambda: 11, credit=0.5), Mistake("none", lambda: 0)),
)


def test_the_check_gives_the_credit_of_a_close_mistake() -> None:
    assert CREDITED.check(11).credit == 0.5 and CREDITED.check(10).credit == 1.0
    assert "one too many" in CREDITED.check(11).message and CREDITED.check(0).credit == 0.0


def test_a_credit_must_be_a_share_below_one() -> None:
    for credit in (-0.1, 1.0):
        with pytest.raises(ValueError, match="credit"):
            Mistake("x", lambda: 0, credit=credit)


def test_an_answer_cell_that_stopped_with_an_error_is_not_graded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from posenc_lib.exercises import _core

    runs = [("n = 10  # a lesson's n", True), ("n = undefined_name + 1", False)]
    monkeypatch.setattr(_core, "_RUNS", runs)
    result = CREDITED.check(10)  # the lesson's value, still in n
    assert not result.passed and "stopped with an error" in result.message
    runs.append(("print('a cell that does not bind n')", True))
    assert not CREDITED.check(10).passed  # the cell binding n still failed
    runs.append(("n = 10", True))
    assert CREDITED.check(10).passed
    runs.append(("print(n_token)  # a scratch cell with a typo", False))
    assert CREDITED.check(10).passed  # a failing cell that does not bind n is not the answer's
    runs.append(("n = 10\nraise RuntimeError", False))
    assert not CREDITED.check(10).passed  # the cell that last bound n failed


@pytest.mark.parametrize(("key", "cell"), [
    ("01.carry_flips", "carry_counts = [int(my_table(96)[p].sum()) for p in (23, 47, 63, 95)]"),
    ("02.slow_pair", "last_pair = my_encoding(2501, 8)[2500, 6:]"),
    ("02.slow_pair", "last_pair = sinusoidal_by_me(2501, 8)[2500, 6:]"),
    ("06.ramp_bounds", "ramp_bounds = my_yarn(128, 10000.0, 8.0, 16384)"),
])
def test_a_build_step_function_is_a_refused_shortcut(key: str, cell: str, monkeypatch) -> None:
    """Issue 32: the learner's own build-step function computes what the library does, so an
    exercise that forbids the library forbids it too, even when it is a function the learner
    wrote (which is otherwise masked as the learner's own code)."""
    import posenc_lib.exercises._core as core

    name = cell.split("= ", 1)[1].split("(", 1)[0]
    monkeypatch.setattr(core, "_learner_namespace_functions", lambda: {name})
    exercise = all_exercises()[key]
    assert exercise.shortcut_used(None, cell=cell) is not None, cell


def test_yarn_ratios_allows_the_build_step_and_names_its_rounding(monkeypatch) -> None:
    """Issue 32: 06's build step computes the code's (rounded) ramp, so exercise 06.yarn_ratios
    asks for gpt-oss's unrounded one. The build-step function is allowed, and what it gives
    unchanged is named as the rounding mistake; the library's YaRN stays refused."""
    import posenc_lib.exercises._core as core
    from posenc_lib.exercises import nb06

    def yarn_by_me(d, base, s, L):  # the notebook's worked build step, written out again here
        theta = base ** (-np.arange(0, d, 2) / d)
        at = lambda r: d * np.log(L / (2 * np.pi * r)) / (2 * np.log(base))  # noqa: E731
        low, high = np.floor(at(32.0)), np.ceil(at(1.0))
        w = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
        return (1 - w) * theta + w * theta / s

    cell = "yarn_ratio = my_yarn(64, 150000.0, 32.0, 4096) / theta"
    monkeypatch.setattr(core, "_learner_namespace_functions", lambda: {"my_yarn"})
    monkeypatch.setattr(core, "record_pass", lambda key: None)  # a test's pass is no progress
    assert nb06.yarn_ratios.shortcut_used(None, cell=cell) is None
    refused = "yarn_ratio = yarn_inv_freq(64, 150000.0, 32.0, 4096, truncate=False) / theta"
    assert nb06.yarn_ratios.shortcut_used(None, cell=refused) is not None
    theta = 150000.0 ** (-np.arange(0, 64, 2) / 64)
    rounded = yarn_by_me(64, 150000.0, 32.0, 4096) / theta
    right = unrounded_gpt_oss_ratio()
    wrong = nb06.yarn_ratios.check(rounded, reference=right)
    assert not wrong.passed and "rounded outward" in wrong.message and "truncate" in wrong.message
    assert nb06.yarn_ratios.check(right, reference=right).passed
    assert nb06.yarn_ratios.check(right).passed  # the checkout's key holds the same ratios


def unrounded_ends(d: int, base: float, length: int) -> tuple[float, float]:
    """The ramp's ends as gpt-oss's own code writes them (openai/gpt-oss,
    gpt_oss/torch/model.py: d_half ln(L / (2 pi beta)) / ln(base), beta = 32 then 1), not
    rounded, in plain Python."""
    return tuple(d // 2 * math.log(length / (beta * 2 * math.pi)) / math.log(base)
                 for beta in (32.0, 1.0))


def unrounded_gpt_oss_ratio(d: int = 64, base: float = 150000.0, length: int = 4096,
                            s: float = 32.0) -> np.ndarray:
    """gpt-oss's ratios (or a head's of the same config but these values) as its own code
    writes them, in plain Python."""
    low, high = unrounded_ends(d, base, length)
    ramp = [min(max((i - low) / (high - low), 0.0), 1.0) for i in range(d // 2)]
    return np.array([(1 - r) + r / s for r in ramp])


@pytest.mark.parametrize("values", VARIANTS["06.yarn_ratios"].sets)
def test_a_released_yarn_head_ramps_between_fractional_ends_inside_its_pairs(
        values: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """A graded release poses 06.yarn_ratios for another head: its ramp's ends lie inside the
    pairs and are no whole numbers (so the rounded ramp, a named mistake, is another answer);
    the answer is gpt-oss's formula for the head, and the title names the head, not gpt-oss."""
    import posenc_lib.exercises._core as core
    from posenc_lib.exercises import nb06

    monkeypatch.setattr(core, "record_pass", lambda key: None)  # a test's pass is no progress
    d, base, length, s = values["d"], float(values["base"]), values["L"], float(values["s"])
    low, high = unrounded_ends(d, base, length)
    assert 0 < low < high < d // 2 - 1
    assert min(abs(low - round(low)), abs(high - round(high))) > 0.05
    right = unrounded_gpt_oss_ratio(d, base, length, s)
    assert np.allclose(answer_for("06.yarn_ratios", values), right, rtol=1e-12, atol=0)
    with posed("06.yarn_ratios", values):
        assert "gpt-oss" not in nb06.yarn_ratios.title
        assert f"d = {d}, base {values['base']}, L = {length}, s = {values['s']}" in (
            nb06.yarn_ratios.title)
        rounded = next(m for m in nb06.yarn_ratios.mistakes if "rounded" in m.label).compute()
        assert np.max(np.abs(rounded - right)) > 1e-3
        assert nb06.yarn_ratios.check(right, reference=right).passed

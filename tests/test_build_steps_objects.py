"""Build steps as course objects (issue 45 items 1, 3 and 5), for every step of NOTEBOOK_STEPS
(tests/build_step_checks.py): the check cell is one line with no reference code in it, the
notebook's solution passes and counts in progress(), the library called in three disguises is
refused, both hints work and hold no solution code, every named mistake is named when a learner
makes it, a blank stub falls back silently, a wrong function is shown beside the library's and
the cells get the library's numbers; each notebook has a derived step whose formula is not on
the page above it; the messages describe arrays without cutting a number."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import matplotlib
import nbformat
import numpy as np
import pytest

from posenc_lib import _record
from posenc_lib.exercises import all_steps, progress
from posenc_lib.exercises._steps import BuildStep, describe_value, differences
from tests.build_step_checks import (
    NOTEBOOK_STEPS,
    NUDGE,
    STEP_KEYS,
    adopted_name,
    check_line,
    disguises,
    notebook_path,
    solution_of,
    solved_namespace,
    step_cell_indices,
    the_step,
)
from tools.build_student import without_solutions
from tools.notebook_cells import load, source

matplotlib.use("Agg")

# a derived step: what must not be written in the cells just above its stub, in the stub, or in
# its check cell (the formula the learner derives, in the notation the notebook would use)
DERIVED_FORMULA = {
    "01.steps.smooth_wave": [r"\\tfrac12\s*-\s*\\tfrac12\s*\\sin", r"np\.sin\(np\.pi"],
    "02.steps.division_term": [r"2i/d", r"2i\s*/\s*dim", r"\^\{-?2i"],
    "03.steps.offset_similarity_f": [r"\\sum_i\s*\\cos\(\\theta_i\s*k\)", r"sum_i cos",
                                     r"\\cos\(b\s*-\s*a\)"],
    "04.steps.pair_shift": [r"\\cos\s*\\theta\s*k\s*&\s*\\sin", r"\\cos\(\\theta k\)\\,\\sin",
                            r"-\\sin\(\\theta k\)"],
    "05.steps.rope": [r"e\^\{i\s*m\s*\\theta_i\}", r"x_\{2i\}\s*\+\s*i"],
    "06.steps.ntk": [r"s\^\{d/\(d-2\)\}", r"s\^\{-2i/\(d-2\)\}"],
    "07.steps.alibi": [r"2\^\{-8h/H\}", r"2\^\{-8/H\}"],
    "08.steps.angles": [r"\\operatorname\{round\}\(f", r"2\^\{e-p-1\}"],
    "09.steps.rotated_dims": [r"\\lfloor p\s*\\cdot"],
}
ABOVE = 3
"""How many cells above a derived step's stub count as "just above" it."""
BELOW = 8
"""Within how many cells after the check the notebook shows the derived formula."""


@cache
def _solved(number: str) -> dict[str, Any]:
    previous = os.environ.get("POSENC_PROGRESS_FILE")
    os.environ["POSENC_PROGRESS_FILE"] = os.devnull  # the solutions record nothing here
    try:
        return solved_namespace(number)
    finally:
        os.environ["POSENC_PROGRESS_FILE"] = previous or ""


def _right(key: str) -> Any:
    return _solved(key[:2])[the_step(key).answer_name]


def _checked(step: BuildStep, function: Any) -> tuple[Any, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = step.check(function)
    return result, out.getvalue()


@pytest.fixture()
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "progress.json"
    monkeypatch.setenv("POSENC_PROGRESS_FILE", str(path))
    monkeypatch.setattr(_record, "_warned", False)
    return path


def test_the_listed_steps_are_the_course_steps_of_their_notebooks() -> None:
    listed = [key for key in all_steps() if key[:2] in NOTEBOOK_STEPS]
    assert listed == STEP_KEYS
    for number in NOTEBOOK_STEPS:
        assert any(the_step(key).derived for key, _ in NOTEBOOK_STEPS[number]), number


@pytest.mark.parametrize("number", list(NOTEBOOK_STEPS))
def test_no_adopt_and_no_reference_code_in_the_notebook_or_its_student_copy(number: str) -> None:
    book = load(notebook_path(number))
    student = without_solutions(nbformat.read(notebook_path(number), as_version=4))
    for cells in (book["cells"], student["cells"]):
        text = "\n".join(source(c) for c in cells if c["cell_type"] == "code")
        assert "adopt(" not in text and "posenc_lib.build_steps" not in text
        for key, _ in NOTEBOOK_STEPS[number]:
            step = the_step(key)
            _, check = step_cell_indices(cells, step)
            body = source(cells[check])
            assert "lambda" not in body and "Mistake(" not in body, (key, body)
            lines = [line for line in body.splitlines() if check_line(step) in line]
            assert len(lines) == 1 and re.fullmatch(
                rf"\w+ = nb{number}{re.escape(check_line(step))}", lines[0]), lines


@pytest.mark.parametrize("number", list(NOTEBOOK_STEPS))
def test_the_student_copy_does_not_show_the_solutions_verdict(number: str) -> None:
    # the source notebook's check cells print the solution's verdict; the learner's copy must not
    book = nbformat.read(notebook_path(number), as_version=4)
    shown = [out.get("text", "") for cell in book.cells if cell.cell_type == "code"
             for out in cell.get("outputs", [])]
    assert any("the cells below use yours" in text for text in shown), number
    student = without_solutions(book)
    left = [out.get("text", "") for cell in student.cells if cell.cell_type == "code"
            for out in cell.get("outputs", [])]
    assert not any("the cells below use yours" in text for text in left), number


@pytest.mark.parametrize("key", STEP_KEYS)
def test_the_solution_passes_and_a_pass_counts_in_progress(key: str, record: Path) -> None:
    step = the_step(key)
    before = progress().built
    assert before == (0, len(all_steps()))
    result, out = _checked(step, _right(key))
    assert result.passed and "the cells below use yours" in out, out
    assert progress().built == (1, len(all_steps()))
    assert key in json.loads(record.read_text())["passed"]
    assert f"build steps passed: 1 / {len(all_steps())}" in repr(progress())
    case = step.cases[-1]
    assert result(**case) is not None and np.allclose(result(**case), step.reference(**case))


@pytest.mark.parametrize("key", STEP_KEYS)
@pytest.mark.parametrize("disguise", ["direct", "module attribute", "alias"])
def test_the_library_under_three_disguises_is_refused(key: str, disguise: str,
                                                      record: Path) -> None:
    step = the_step(key)
    yours = disguises(step)[disguise]
    case = step.cases[0]
    assert np.allclose(yours(**case), step.reference(**case)), "the disguise computes the result"
    result, out = _checked(step, yours)
    assert not result.passed and result.verdict == "refused", out
    assert f"calls posenc_lib's {step.shortcuts[0].__name__}" in out
    assert not record.exists(), "a refused step is not recorded"


@pytest.mark.parametrize("key", STEP_KEYS)
def test_both_hint_levels_and_no_solution_code_in_them(key: str) -> None:
    step = the_step(key)
    first, second = step.hint(), step.hint(2)
    assert first.startswith("Hint 1 of 2: ") and f"{step.handle}.hint(2)" in first
    assert second.startswith("Hint 2 of 2: ") and "tagged 'solution'" in second
    assert first != second and len(step.hints[0]) > 60 and len(step.hints[1]) > 60
    with pytest.raises(ValueError, match="level must be 1"):
        step.hint(3)
    assert "holds no worked versions" in step.solution() and "tagged 'solution'" in step.solution()
    code = solution_of(load(notebook_path(key[:2]))["cells"], step)
    for line in code.splitlines():
        statement = line.split("#", 1)[0].strip()
        if len(statement) > 12 and not statement.startswith("def "):
            assert statement not in first + second, statement


def _learner_making(step: BuildStep, wrong: list[Any]) -> Any:
    """A learner's function that returns ``wrong[i]`` on the step's case i (found by value)."""
    def yours(**given: Any) -> Any:
        for case, value in zip(step.cases, wrong, strict=True):
            if all(np.array_equal(np.asarray(given[k]), np.asarray(v)) for k, v in case.items()):
                return value
        raise AssertionError("not a case of the step")

    return yours


@pytest.mark.parametrize("key", STEP_KEYS)
def test_every_named_mistake_is_real_and_named_when_made(key: str) -> None:
    step = the_step(key)
    assert len(step.mistakes) >= 3, key
    rights = [step.reference(**case) for case in step.cases]
    for mistake in step.mistakes:
        wrong = [mistake.wrong(right, **case)
                 for right, case in zip(rights, step.cases, strict=True)]
        assert any(np.shape(w) != np.shape(r) or not np.allclose(w, r)
                   for w, r in zip(wrong, rights, strict=True)), mistake.label
        result, out = _checked(step, _learner_making(step, wrong))
        assert result.verdict == "wrong" and f"it looks like {mistake.label}" in out, out


@pytest.mark.parametrize("key", STEP_KEYS)
def test_a_blank_stub_falls_back_and_shows_nothing(key: str) -> None:
    step = the_step(key)
    cells = load(notebook_path(key[:2]))["cells"]
    stub, _ = step_cell_indices(cells, step)
    space: dict[str, Any] = {}
    exec(source(cells[stub]), space)
    result, out = _checked(step, space[step.answer_name])
    assert result.verdict == "blank" and out.startswith(f"{step.name} not written yet")
    case = step.cases[0]
    np.testing.assert_array_equal(result(**case), step.reference(**case))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert result.beside(lambda ax, value: ax.plot(np.ravel(value))) is None
        result.compare("x")
    assert printed.getvalue() == ""


def _nudged(function: Any) -> Any:
    return lambda *args, **kwargs: NUDGE * np.asarray(function(*args, **kwargs), dtype=float)


@pytest.mark.parametrize("key", STEP_KEYS)
def test_a_wrong_function_is_named_by_its_worst_place_and_shown_beside(key: str) -> None:
    import matplotlib.pyplot as plt

    step = the_step(key)
    result, out = _checked(step, _nudged(_right(key)))
    assert result.verdict == "wrong" and "and posenc_lib's differ for" in out, out
    worst = re.search(r"(?:largest gap is at index [\d(), ]+: yours (\S+), posenc_lib (\S+)|"
                      r"yours is (\S+), posenc_lib's is (\S+))$", out.splitlines()[0])
    assert worst, out
    yours, library = (v for v in worst.groups() if v is not None)
    assert float(yours) == pytest.approx(NUDGE * float(library), rel=1e-5), out
    assert "fix yours and rerun this cell" in out
    case = step.cases[-1]
    np.testing.assert_array_equal(result(**case), step.reference(**case))  # the library's numbers
    figure = result.beside(lambda ax, value: ax.plot(np.ravel(value)))
    assert [ax.get_title() for ax in figure.axes] == ["yours (dashed: posenc_lib)", "posenc_lib"]
    mine, theirs = (ax.lines[0].get_ydata() for ax in figure.axes)
    np.testing.assert_allclose(mine, NUDGE * np.ravel(step.reference(**case)), rtol=1e-12)
    np.testing.assert_allclose(theirs, np.ravel(step.reference(**case)), rtol=1e-12)
    plt.close(figure)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        result(**case)
        result.compare("r")
    lines = printed.getvalue().splitlines()
    assert lines[0].startswith("r yours:") and lines[1].startswith("r posenc_lib:"), lines


@pytest.mark.parametrize("key", list(DERIVED_FORMULA))
def test_a_derived_step_does_not_show_its_formula_above_it(key: str) -> None:
    step = the_step(key)
    assert step.derived
    cells = load(notebook_path(key[:2]))["cells"]
    stub, check = step_cell_indices(cells, step)
    shown = "\n".join(source(c) for c in cells[stub - ABOVE:stub + 1] + [cells[check]])
    for formula in DERIVED_FORMULA[key]:
        assert not re.search(formula, shown), (key, formula)
    below = "\n".join(source(c) for c in cells[check + 1:check + BELOW]
                      if c["cell_type"] == "markdown")
    assert any(re.search(formula, below) for formula in DERIVED_FORMULA[key]), (
        f"{key}: the markdown after the check shows the formula the learner derived")


@pytest.mark.parametrize("key", STEP_KEYS)
def test_the_cells_after_the_check_use_the_adopted_function(key: str) -> None:
    cells = load(notebook_path(key[:2]))["cells"]
    step = the_step(key)
    name = adopted_name(cells, step)
    _, check = step_cell_indices(cells, step)
    after = [source(cells[check]).split(check_line(step), 1)[1]]
    after += [source(c) for c in cells[check + 1:] if c["cell_type"] == "code"]
    assert any(re.search(rf"\b{name}\(", text) for text in after), key
    assert any(re.search(rf"\b{name}\.(beside|compare)\(", text) for text in after), key


# --- messages (item 5) -----------------------------------------------------------------------


def test_an_array_is_described_by_its_shape_and_whole_values() -> None:
    x = np.random.default_rng(0).normal(size=(4, 8)) / 1000
    text = describe_value(x)
    head, values = text.split(": ", 1)
    assert head == "array of shape (4, 8)"
    numbers = values.split(", ")
    assert numbers[3] == "..." and len(numbers) == 5
    for shown, true in zip(numbers[:3] + numbers[4:], [*x.ravel()[:3], x.ravel()[-1]],
                           strict=True):
        assert float(shown) == pytest.approx(true, rel=1e-5)  # a whole number, not cut
    assert describe_value(np.arange(-3, 40)) == "array of shape (43,): -3, -2, -1, ..., 39"
    assert describe_value(12) == "12" and describe_value(np.float64(2.5)) == "2.5"
    assert describe_value("half") == "'half'"


def test_an_unknown_mistake_names_its_worst_index_with_both_values() -> None:
    want = np.zeros((3, 4))
    got = want.copy()
    got[1, 2], got[2, 0] = 0.25, -0.75
    assert differences(got, want) == ("2 of 12 values differ; the largest gap is at index "
                                      "(2, 0): yours -0.75, posenc_lib 0")
    assert differences(np.ones(3), np.ones(4)) == (
        "yours has shape (3,), posenc_lib's has shape (4,)")
    assert differences(13, 12) == "yours is 13, posenc_lib's is 12"
    assert differences((np.ones(2), 1.0), (np.ones(2), 2.0)) == (
        "result 1 of the tuple: yours is 1, posenc_lib's is 2")
    masked = np.triu(np.full((3, 3), -np.inf), k=1)  # a causal bias: -inf above the diagonal
    nudged = masked * 1.01
    nudged[2, 1] = -1.5
    assert differences(nudged, masked) == ("1 of 9 value differs; the largest gap is at index "
                                           "(2, 1): yours -1.5, posenc_lib 0")


def _probe_library(d: int) -> np.ndarray:
    return np.full(d, 1.0)


def test_a_plural_name_reads_right(capsys: pytest.CaptureFixture[str]) -> None:
    step = BuildStep(key="99.steps.probe", name="PI frequencies", answer_name="pi_by_me",
                     reference=_probe_library, cases=({"d": 4}, {"d": 6}),
                     hints=("look at the ones", "use np.full"), shortcuts=(_probe_library,))
    step.check(lambda d: np.full(d, 2.0))
    step.check(lambda d: np.full(d, 1.0))
    out = capsys.readouterr().out
    assert "your PI frequencies and posenc_lib's differ for d=4" in out
    assert "your PI frequencies and posenc_lib's agree on 2 cases" in out
    assert "differs" not in out and "agrees" not in out


# --- the solutions, right by an independent computation -------------------------------------


def _pair_by_two_positions(k: float, theta: float) -> np.ndarray:
    """The 2x2 M with M p(t) = p(t + k), solved from t = 0 and t = 1 (no formula for M)."""
    def p(t: float) -> np.ndarray:
        return np.array([math.sin(theta * t), math.cos(theta * t)])

    return np.column_stack([p(k), p(1 + k)]) @ np.linalg.inv(np.column_stack([p(0), p(1)]))


def _by_hand(key: str, case: dict[str, Any]) -> Any:
    """Each step's result computed another way: one number at a time with math, eigenvalues
    instead of an SVD, matrices solved from two positions."""
    name = key.split(".", 2)[2]
    if name == "binary_table":
        bits = case["n_bits"]
        return np.array([[int(b) for b in format(p, f"0{bits}b")]
                         for p in range(case["n_positions"])])
    if name == "smooth_wave":
        return np.array([0.5 - 0.5 * math.sin(math.pi * (x + 0.5) / 2 ** case["bit"])
                         for x in case["positions"]])
    if name == "division_term":
        d, base = case["dim"], case["base"]
        return np.array([math.pow(base, -2 * i / d) for i in range(d // 2)])
    if name == "sinusoidal_table":
        n, d, base = case["n_positions"], case["d_model"], case["base"]
        return np.array([[(math.sin if j % 2 == 0 else math.cos)(
            p / math.pow(base, (j - j % 2) / d)) for j in range(d)] for p in range(n)])
    theta = [10000.0 ** (-2 * i / case["d_model"]) for i in range(case["d_model"] // 2)] \
        if "d_model" in case else None
    if name == "offset_similarity_f":
        return np.array([math.fsum(math.cos(w * k) for w in theta) for k in case["k"]])
    if name == "direction_count":
        x = case["encoding"] - case["encoding"].mean(axis=0)
        eigenvalues = np.sort(np.linalg.eigvalsh(x.T @ x))[::-1].clip(min=0)
        return int(np.argmax(np.cumsum(eigenvalues) >= 0.99 * eigenvalues.sum()) + 1)
    if name == "pair_shift":
        return _pair_by_two_positions(case["k"], case["theta"])
    assert name == "shift", key
    matrix = np.zeros((case["d_model"], case["d_model"]))
    for i, w in enumerate(theta):
        matrix[2 * i:2 * i + 2, 2 * i:2 * i + 2] = _pair_by_two_positions(case["k"], w)
    return matrix


@pytest.mark.parametrize("key", [k for k in STEP_KEYS if k[:2] <= "04"])
def test_the_solution_is_right_by_an_independent_computation(key: str) -> None:
    step = the_step(key)
    for case in step.cases:
        np.testing.assert_allclose(_right(key)(**case), _by_hand(key, case), rtol=1e-9,
                                   atol=1e-9)

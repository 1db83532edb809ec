"""nbgrader grades the course: build the course directory, release, grade a simulated class.

The whole cycle runs with nbgrader's own commands in a temporary copy of ``make nbgrader``'s
course directory, for the quick assignment(s) in :data:`ASSIGNMENTS`:
``nbgrader generate_assignment A`` and ``nbgrader autograde A`` with no flags, then the scores
are read from nbgrader's gradebook. The simulated class, one submission each:

- ``solver`` writes every solution (the instructor's source notebook's solution code, written
  for the values the instructor seed :data:`SEED` draws, tools.variants);
- ``blank`` hands in the release untouched;
- ``mistaken`` answers each exercise with its first listed common mistake;
- ``deleter`` solves everything, then deletes the first answer cell and the last grade cell:
  nbgrader gives no points for an exercise whose answer or grade cell is gone, and still grades
  the others;
- ``crasher`` solves everything except two answers: one raises, one loops forever (nbgrader
  interrupts it after the per-cell timeout);
- ``nograde_even`` and ``nograde_odd`` solve everything and delete the grade cells of the
  exercises in even (odd) places, the first included: exactly those exercises score 0, each of
  the others its full points (checked grade by grade);
- ``crash_even`` and ``crash_odd`` solve everything, but above each answer cell of the
  exercises in even (odd) places a cell binds the answer's name to the right value (a lesson
  variable of the same name), and the answer cell itself raises before it binds the name: the
  lesson's value is not graded, so exactly those exercises score 0;
- ``partial`` solves everything but answers one exercise with a mistake that earns partial
  credit (its ``credit`` share of the points).

The expected scores are computed from each exercise's difficulty (tools.build_nbgrader.POINTS),
not read from nbgrader. The loop is graded in a second ``autograde --student crasher`` call with
a short timeout, only so that the test does not wait the course's 120 s per cell.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import numpy as np
import pytest

from posenc_lib.exercises import all_exercises
from posenc_lib.exercises._key import encode_answer
from tests.test_classroom import REVEAL_CELLS, reveal_output_lines, secret_lines
from tools import build_nbgrader
from tools.notebook_cells import BEGIN, END, NOTEBOOKS, exercise_cells
from tools.variants import NOTEBOOK_VALUES, VARIANTS, answer_for, draw, posed

ASSIGNMENTS = [p for p in NOTEBOOKS if p.name.startswith("01_")]
"""The quick assignment(s) the cycle runs on: notebook 01 executes in a few seconds."""

SEED = 2026
"""The instructor seed of the simulated classes' course directories."""

BIN = Path(sys.executable).parent
LOOP_TIMEOUT = 15
"""Per-cell seconds for the looping student's run (the course directory says 120)."""


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``nbgrader ARGS`` in ``course`` (nbgrader calls ``alembic`` from the PATH)."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    start = time.perf_counter()
    result = subprocess.run(
        [str(BIN / "nbgrader"), *args], cwd=course, env=env, capture_output=True, text=True
    )
    print(f"nbgrader {' '.join(args)}: {time.perf_counter() - start:.1f} s")
    assert result.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{result.stderr[-4000:]}"
    return result


def answer_cells(notebook: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    """The release's answer cells (code) by exercise key ("01.bit_period")."""
    by_id = {build_nbgrader.grade_id(key) + "_answer": key for key in all_exercises()}
    return {
        by_id[cell.metadata.nbgrader.grade_id]: cell
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution")
    }


def grade_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The autograded (code) grade cells, in order."""
    return [
        c for c in notebook.cells
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")
    ]  # fmt: skip


def written_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The written answers graded by hand (markdown grade cells)."""
    return [
        c for c in notebook.cells
        if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("grade")
    ]  # fmt: skip


def course_solutions(course: Path, source: Path) -> dict[str, str]:
    """The solution code of every exercise of ``source`` as the instructor's course directory
    ``course`` writes it (for the values its seed draws)."""
    notebook = nbformat.read(course / "source" / source.stem / source.name, as_version=4)
    return {key: cell.source.split(BEGIN + "\n", 1)[1].split("\n" + END, 1)[0]
            for key, cell in answer_cells(notebook).items()}


def posed_stub(stub: str, key: str) -> str:
    """Exercise ``key``'s stub as the course directory of :data:`SEED` poses it."""
    if key in VARIANTS:
        variant = VARIANTS[key]
        for old, new in zip(variant.prompt(NOTEBOOK_VALUES[key]),
                            variant.prompt(draw(SEED, key)), strict=True):
            stub = stub.replace(old, new)
    return stub


def right_and_wrong(key: str, index: int = 0) -> tuple[object, object]:
    """Exercise ``key``'s right answer and its ``index``-th mistake, posed as :data:`SEED`
    draws it."""
    values = draw(SEED, key) if key in VARIANTS else None
    with posed(key, values) as exercise:
        right = exercise._expected() if values is None else answer_for(key, values)
        return right, exercise.mistakes[index].compute(right)


def named_mistake(key: str) -> int:
    """The index of exercise ``key``'s first mistake that its check can name as :data:`SEED`
    poses it (a mistake stored for the notebook's values is left out for drawn ones)."""
    right, _ = right_and_wrong(key)
    values = draw(SEED, key) if key in VARIANTS else None
    with posed(key, values) as exercise:
        return next(i for i, m in enumerate(exercise.mistakes) if m.compute(right) is not None)


def mistake_code(key: str, index: int | None = None) -> str:
    """Code that answers exercise ``key`` with a common mistake (by default the first the check
    can name), as a learner would: the wrong value, computed here (with the checkout's key) and
    written into the cell."""
    exercise = all_exercises()[key]
    index = named_mistake(key) if index is None else index
    wrong = encode_answer(right_and_wrong(key, index)[1])
    value = f"decode({wrong!r})"
    line = (
        f"{exercise.answer_name} = {value}"
        if exercise.call_with is None
        else f"def {exercise.answer_name}(*args):\n    return {value}"
    )
    return f"from posenc_lib.exercises._key import decode\n{line}"


def points(key: str) -> int:
    return build_nbgrader.POINTS[all_exercises()[key].level]


def submit(
    course: Path,
    student: str,
    source: Path,
    answers: dict[str, str],
    delete: tuple[str, ...] = (),
    crash: dict[str, str] | None = None,
) -> None:
    """Hand in the release of ``source`` with the given answer code appended to the stubs.

    ``delete`` names cells to remove ("first answer", "last grade", "grade N" for the N-th grade
    cell). ``crash`` maps keys to lesson code: that code goes into a new cell above the answer
    cell of the key, and the answer cell raises before its own code runs.
    """
    release = course / "release" / source.stem / source.name
    notebook = nbformat.read(release, as_version=4)
    for key, cell in answer_cells(notebook).items():
        if key in answers:
            cell.source = cell.source.rstrip() + "\n" + answers[key]
    drop = set()
    if "first answer" in delete:
        drop.add(id(next(iter(answer_cells(notebook).values()))))
    if "last grade" in delete:
        drop.add(id(grade_cells(notebook)[-1]))
    for order in [int(d.split()[1]) for d in delete if d.startswith("grade ")]:
        drop.add(id(grade_cells(notebook)[order]))
    notebook.cells = [c for c in notebook.cells if id(c) not in drop]
    for key, lesson in (crash or {}).items():
        answer = answer_cells(notebook)[key]
        answer.source = 'raise RuntimeError("my code broke before the answer")\n' + answer.source
        at = next(i for i, c in enumerate(notebook.cells) if c is answer)
        notebook.cells.insert(at, nbformat.v4.new_code_cell(lesson))
    folder = course / "submitted" / student / source.stem
    folder.mkdir(parents=True)
    nbformat.write(notebook, folder / source.name)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Build, release, submit for the simulated class and autograde; return what to assert."""
    course = tmp_path_factory.mktemp("course")
    build_nbgrader.build(course, ASSIGNMENTS, SEED)
    expected: dict[tuple[str, str], int] = {}
    per_exercise: dict[tuple[str, str], dict[str, int]] = {}
    keys_of: dict[str, list[str]] = {}
    for source in ASSIGNMENTS:
        nbgrader(course, "generate_assignment", source.stem)
        cells = exercise_cells(source)
        keys = list(cells)
        keys_of[source.stem] = keys
        solved = course_solutions(course, source)
        total = sum(points(k) for k in keys)
        submit(course, "solver", source, solved)
        submit(course, "blank", source, {})
        submit(course, "mistaken", source, {k: mistake_code(k) for k in keys})
        submit(course, "deleter", source, solved, delete=("first answer", "last grade"))
        crashed = {**solved, keys[0]: 'raise RuntimeError("my code broke")',
                   keys[1]: "while True:\n    pass"}  # fmt: skip
        submit(course, "crasher", source, crashed)
        expected.update({
            (source.stem, "solver"): total,
            (source.stem, "blank"): 0,
            (source.stem, "mistaken"): 0,
            (source.stem, "deleter"): total - points(keys[0]) - points(keys[-1]),
            (source.stem, "crasher"): total - points(keys[0]) - points(keys[1]),
        })  # fmt: skip
        for half, first in (("even", 0), ("odd", 1)):
            lost = keys[first::2]
            orders = range(first, len(keys), 2)
            submit(course, f"nograde_{half}", source, solved,
                   delete=tuple(f"grade {order}" for order in orders))  # fmt: skip
            submit(course, f"crash_{half}", source, solved, crash={k: solved[k] for k in lost})
            for student in (f"nograde_{half}", f"crash_{half}"):
                expected[source.stem, student] = total - sum(points(k) for k in lost)
                per_exercise[source.stem, student] = {
                    k: 0 if k in lost else points(k) for k in keys
                }  # fmt: skip
        key, mistake = next(
            (k, m) for k in keys for m in all_exercises()[k].mistakes if m.credit
        )  # the first exercise with a mistake that earns partial credit
        index = list(all_exercises()[key].mistakes).index(mistake)
        submit(course, "partial", source, {**solved, key: mistake_code(key, index)})
        expected[source.stem, "partial"] = total - points(key) + mistake.credit * points(key)
    for source in ASSIGNMENTS:
        # Plain autograde for everyone but the looping student, then that one with a short timeout.
        nbgrader(course, "autograde", source.stem, "--CourseDirectory.student_id_exclude=crasher")
        nbgrader(course, "autograde", source.stem, "--student=crasher",
                 f"--Execute.timeout={LOOP_TIMEOUT}")  # fmt: skip
        nbgrader(course, "generate_feedback", source.stem, "--student=mistaken")
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for assignment, student in expected:
            submission = gradebook.find_submission(assignment, student)
            scores[assignment, student] = (submission.score, submission.max_score)
        grades = {
            (assignment, student): {
                grade.name: grade.score
                for notebook in gradebook.find_submission(assignment, student).notebooks
                for grade in notebook.grades
            }
            for assignment, student in per_exercise
        }  # fmt: skip
    return {"course": course, "expected": expected, "scores": scores, "keys": keys_of,
            "per_exercise": per_exercise, "grades": grades,
            "written": {s.stem: written_points(s) for s in ASSIGNMENTS}}  # fmt: skip


def written_points(source: Path) -> int:
    """The points of the written answers of ``source`` (one per explanation exercise)."""
    kinds = [all_exercises()[key].kind for key in exercise_cells(source)]
    return build_nbgrader.WRITTEN_POINTS * kinds.count("explanation")


def test_grade_cells_carry_points_ids_and_grade_calls(tmp_path: Path) -> None:
    written = build_nbgrader.build(tmp_path, NOTEBOOKS, SEED)
    assert (tmp_path / "nbgrader_config.py").exists()
    for source in NOTEBOOKS:
        notebook = nbformat.read(tmp_path / "source" / source.stem / source.name, as_version=4)
        assert tmp_path / "source" / source.stem / source.name in written
        cells = exercise_cells(source)
        grades = grade_cells(notebook)
        assert [c.metadata.nbgrader.grade_id for c in grades] == [
            build_nbgrader.grade_id(k) for k in cells
        ]
        for cell, key in zip(grades, cells, strict=True):
            assert cell.metadata.nbgrader.locked and cell.metadata.nbgrader.points == points(key)
            assert "raises-exception" in cell.metadata.tags
            # self-contained: the cell imports its own exercise module, prints the diagnosis
            # and hands the answer in; nothing hidden, no reference
            name, answer = key[3:], all_exercises()[key].answer_name
            assert cell.source == (f"from posenc_lib.exercises import nb{key[:2]}\n\n"
                                   f"print(nb{key[:2]}.{name}.check({answer}))\n"
                                   f"nb{key[:2]}.{name}.hand_in({answer})")
        setup = next(c for c in notebook.cells if c.cell_type == "code")
        assert setup.metadata.nbgrader.grade_id == "setup" and setup.metadata.nbgrader.locked
        assert f"from posenc_lib.exercises import nb{source.name[:2]}" in setup.source
        lines = setup.source.splitlines()
        imports = [line for line in lines if line.startswith(("from", "import"))]
        assert len(imports) == len(set(imports)), "the setup cell imports a module twice"
        explained = [k for k in cells if all_exercises()[k].kind == "explanation"]
        hand_graded = written_cells(notebook)
        assert [c.metadata.nbgrader.grade_id for c in hand_graded] == [
            build_nbgrader.grade_id(k) + "_written" for k in explained
        ]
        for cell in hand_graded:
            assert cell.metadata.nbgrader.solution and not cell.metadata.nbgrader.locked
            above = notebook.cells[notebook.cells.index(cell) - 1].source
            assert "graded by hand" in above and "Rubric:" in above
        original = nbformat.read(source, as_version=4).cells
        stubs = [posed_stub(original[c.stub].source, key) for key, c in cells.items()]
        answers = answer_cells(notebook)
        assert list(answers) == list(cells)
        for stub, key in zip(stubs, cells, strict=True):
            assert answers[key].source.startswith(stub.rstrip())
            assert "raises-exception" in answers[key].metadata.tags
            assert "solution" not in answers[key].metadata.tags
            # the stub appears once: in its answer cell, and in no other cell
            assert sum(stub.strip() in c.source for c in notebook.cells) == 1
        assert not any("source-only" in c.metadata.get("tags", []) for c in notebook.cells)
        assert not any("exercise" in c.metadata.get("tags", []) for c in notebook.cells)


def test_release_is_the_stub_without_solution(graded: dict) -> None:
    course: Path = graded["course"]
    for source in ASSIGNMENTS:
        release = nbformat.read(course / "release" / source.stem / source.name, as_version=4)
        posed = answer_cells(nbformat.read(course / "source" / source.stem / source.name,
                                           as_version=4))
        for key, answer in answer_cells(release).items():
            assert answer.source.strip() == posed[key].source.split(BEGIN)[0].strip()
        release_lines = {line.strip() for c in release.cells for line in c.source.splitlines()}
        leaked = secret_lines(source) & release_lines
        assert not leaked, f"solution lines in the release: {sorted(leaked)[:3]}"
        assert not any("BEGIN SOLUTION" in c.source for c in release.cells)
        assert not {c.id for c in release.cells} & REVEAL_CELLS[source.name[:2]]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_reveal_cell_in_the_assignments(tmp_path: Path, path: Path) -> None:
    build_nbgrader.build(tmp_path, [path])
    notebook = nbformat.read(tmp_path / "source" / path.stem / path.name, as_version=4)
    assert not {c.id for c in notebook.cells} & REVEAL_CELLS[path.name[:2]]
    printed = {
        line.strip()
        for c in notebook.cells if c.cell_type == "code"
        for o in c.outputs
        for line in str(o.get("text", "") or o.get("data", {}).get("text/plain", "")).splitlines()
    }  # fmt: skip
    revealed = reveal_output_lines(path)
    assert revealed and not revealed & printed


def test_simulated_class_scores(graded: dict) -> None:
    rows = [f"{'assignment':<22} {'student':<9} {'score':>5} {'max':>4} {'expected':>8}"]
    for (assignment, student), want in graded["expected"].items():
        score, max_score = graded["scores"][assignment, student]
        rows.append(f"{assignment:<22} {student:<9} {score:>5g} {max_score:>4g} {want:>8}")
    print("\n".join(rows))
    for key, want in graded["expected"].items():
        score, max_score = graded["scores"][key]
        # the written answers count in the maximum; they score once graded by hand
        assert max_score == graded["expected"][key[0], "solver"] + graded["written"][key[0]]
        assert score == want, f"{key}: nbgrader gave {score}, expected {want}"


def test_a_deleted_grade_cell_or_a_failed_answer_cell_costs_exactly_its_exercise(
    graded: dict,
) -> None:
    """Grade by grade: the exercises whose grade cell was deleted, or whose answer cell raised
    under a lesson variable of the answer's name, score 0; every other exercise its points."""
    for student, want in graded["per_exercise"].items():
        got = graded["grades"][student]
        for key, points_wanted in want.items():
            grade = build_nbgrader.grade_id(key)
            assert got.get(grade, 0) == points_wanted, (student, key, got)
        assert 0 < list(want.values()).count(0) < len(want), "each half loses some, keeps some"


def test_mistakes_are_named_in_the_feedback(graded: dict) -> None:
    course: Path = graded["course"]
    for source in ASSIGNMENTS:
        autograded = course / "autograded" / "mistaken" / source.stem / source.name
        notebook = nbformat.read(autograded, as_version=4)
        errors = [
            o for c in grade_cells(notebook) for o in c.outputs if o.output_type == "error"
        ]  # fmt: skip
        assert len(errors) == len(graded["keys"][source.stem])
        assert all(o.ename == "AssertionError" for o in errors)
        feedback = course / "feedback" / "mistaken" / source.stem / f"{source.stem}.html"
        page = html.unescape(feedback.read_text(encoding="utf-8"))
        for key, error in zip(graded["keys"][source.stem], errors, strict=True):
            index = named_mistake(key)
            with posed(key, draw(SEED, key) if key in VARIANTS else None) as exercise:
                label = exercise.mistakes[index].label
            assert f"common mistake: {label}" in error.evalue
            assert label in page


def test_validate_prints_no_expected_value(graded: dict) -> None:
    """`nbgrader validate` on the submission made of known mistakes (as a student runs it, with
    no key and no grader) prints none of the expected values (sealed answers, issue 26)."""
    course: Path = graded["course"]
    for source in ASSIGNMENTS:
        submitted = course / "submitted" / "mistaken" / source.stem / source.name
        result = subprocess.run([str(BIN / "nbgrader"), "validate", str(submitted)], cwd=course,
                                capture_output=True, text=True)
        raw = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)  # no colour codes
        text = " ".join(raw.split())  # validate wraps its lines
        assert "Success!" in text or "VALIDATION FAILED" in text, text[-2000:]  # it ran
        for key in graded["keys"][source.stem]:
            value = right_and_wrong(key)[0]
            if isinstance(value, (int, float, np.number)):
                # a short number ("4") is everywhere in a log; look for the telling ones
                shown = {v for v in (f"{float(value):.4g}", f"{float(value):.6g}") if len(v) >= 4}
            else:  # an array as NumPy prints it, its opening entries in a row
                shown = {" ".join(np.array2string(np.asarray(value)).split())[:40]}
            assert not any(f" {v}" in text or f"={v}" in text for v in shown), (key, shown)


def test_feedback_pages_typeset_offline_after_the_tool(graded: dict) -> None:
    from tools import offline_feedback

    folder = graded["course"] / "feedback"
    pages = sorted(folder.rglob("*.html"))
    assert pages and all("cdnjs.cloudflare.com" in p.read_text(encoding="utf-8") for p in pages)
    assert offline_feedback.localize(folder) == pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "cdnjs.cloudflare.com" not in text and 'src="https://' not in text
        src = re.search(r'<script src="([^"?]+)\?config=', text)
        assert src and (page.parent / src.group(1)).is_file(), page  # the relative path resolves
    assert offline_feedback.localize(folder) == []  # a second run changes nothing


def test_timeout_grader_and_sandbox_are_set_for_plain_commands(tmp_path: Path) -> None:
    build_nbgrader.build(tmp_path, ASSIGNMENTS)
    config = (tmp_path / "nbgrader_config.py").read_text(encoding="utf-8")
    assert f"c.Execute.timeout = {build_nbgrader.CELL_TIMEOUT}" in config
    assert "c.Execute.kernel_name = 'posenc-sandbox'" in config and "GradedExecute" in config
    assert (tmp_path / "sandbox" / "kernels" / "posenc-sandbox" / "kernel.json").is_file()
    assert "POSENC" not in config  # no variable tells a kernel it is graded
    assert LOOP_TIMEOUT < build_nbgrader.CELL_TIMEOUT
    assert shutil.which("nbgrader", path=str(BIN))

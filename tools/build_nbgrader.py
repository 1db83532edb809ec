"""Build an nbgrader course directory from the source notebooks: one assignment per notebook.

Usage::

    python tools/build_nbgrader.py [--out build/nbgrader] [NOTEBOOK ...]

then, in the course directory, nbgrader's own commands with no flags::

    cd build/nbgrader
    nbgrader generate_assignment 01_binary_counting     # release/01_binary_counting/
    # collect the students' copies into submitted/<student>/01_binary_counting/
    nbgrader autograde 01_binary_counting               # scores in gradebook.db
    nbgrader generate_feedback 01_binary_counting       # feedback/<student>/...html

Each exercise of the course (a prompt, a stub cell tagged ``exercise``, a solution cell tagged
``solution`` and a check cell ``nbNN.<name>.check(answer)``) becomes two nbgrader cells:

- the **answer cell** (nbgrader's "autograded answer"): the course's stub followed by the
  solution between ``### BEGIN SOLUTION`` / ``### END SOLUTION``. nbgrader's release keeps the
  stub (the variable or function the learner defines) and removes the solution (the code stub
  is empty); the stub cell itself is dropped, so no stub appears twice;
- the **grade cell** (locked, with ``grade_id`` and ``points``): the check cell with
  ``.check(`` turned into ``.grade(``, which raises ``AssertionError`` carrying the course's
  diagnosis (including the common mistake it recognised) when the answer is wrong.

Points follow the difficulty: warm-up 1, core 2, challenge 3. Cells tagged ``source-only`` (the
note for learners studying alone) and ``reveal`` (a cell after a check that computes the answer)
are dropped, and the widget state is removed. The generated
``nbgrader_config.py`` sets what a plain ``generate_assignment`` / ``autograde`` needs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make tools/ importable
    sys.path.insert(0, str(ROOT))

from posenc_lib.exercises import all_exercises  # noqa: E402
from tools.build_student import CHECK_CALL  # noqa: E402
from tools.notebook_cells import BEGIN, END, REMOVED_FOR_STUDENTS, exercise_cells  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
DEFAULT_OUT = ROOT / "build" / "nbgrader"
POINTS = {"warm-up": 1, "core": 2, "challenge": 3}
"""Points of an exercise by its difficulty mark."""

CELL_TIMEOUT = 120
"""Seconds one cell may run under autograde: tools/run_notebooks.py's per-cell limit, which
every cell of the course meets; a learner's endless loop is interrupted after it."""

CODE_STUB = ""
"""What nbgrader's release puts in place of a solution: nothing, the course's stub is above."""

CONFIG = f'''\
"""nbgrader settings of this course directory (written by tools/build_nbgrader.py)."""

import os
from pathlib import Path

c = get_config()  # noqa: F821 (nbgrader provides it)

c.CourseDirectory.course_id = "posenc"
c.CourseDirectory.root = str(Path(__file__).resolve().parent)
# Add a student to the gradebook when their first submission is graded.
c.Autograde.create_student = True
# The release keeps the course's stub above each answer and replaces the solution by a comment.
c.ClearSolutions.code_stub = {{"python": {CODE_STUB!r}}}
# Seconds per cell before a running cell is interrupted (an endless loop scores 0 for that
# exercise and grading goes on).
c.Execute.timeout = {CELL_TIMEOUT}
c.Execute.interrupt_on_timeout = True
# Graded runs must not write into the grader's own exercise progress record.
os.environ["POSENC_PROGRESS_FILE"] = str(
    Path(__file__).resolve().parent / "autograde-progress.json"
)
'''


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.metadata.get("tags", []))


def _nbgrader(grade_id: str, *, solution: bool, grade: bool, points: int = 0) -> dict:
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": grade,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if grade:
        meta["points"] = points
    return meta


def grade_id(key: str) -> str:
    """nbgrader's id of an exercise's grade cell: "01.bit_period" -> "ex01_bit_period"."""
    return "ex" + key.replace(".", "_")


def nbgrader_notebook(path: Path) -> nbformat.NotebookNode:
    """The nbgrader source version of the course notebook at ``path``."""
    notebook = nbformat.read(path, as_version=4)
    exercises = all_exercises()
    stubs, solutions, checks = {}, {}, {}
    for key, cells in exercise_cells(path).items():
        stubs[cells.stub] = key
        solutions[cells.solution] = (key, cells.stub)
        checks[cells.check] = key
    kept = []
    for index, cell in enumerate(notebook.cells):
        tags = _tags(cell)
        if index in stubs or (set(tags) & REMOVED_FOR_STUDENTS) - {"solution"}:
            continue
        cell.metadata.pop("nbgrader", None)
        if index in solutions:
            key, stub = solutions[index]
            text = cell.source
            if BEGIN not in text or END not in text:
                raise ValueError(f"{path.name} cell {index}: solution of {key} has no markers")
            cell.source = notebook.cells[stub].source.rstrip() + "\n" + text.strip()
            cell.outputs = []
            cell.execution_count = None
            # Like the student copies' stubs: a stub that raises does not stop "Run all".
            cell.metadata["tags"] = sorted({*tags, "raises-exception"} - {"solution"})
            cell.metadata["nbgrader"] = _nbgrader(
                grade_id(key) + "_answer", solution=True, grade=False
            )
        elif index in checks:
            key = checks[index]
            if not CHECK_CALL.search(cell.source):
                raise ValueError(f"{path.name} cell {index}: no check call for {key}")
            cell.source = CHECK_CALL.sub(r"\1.grade(", cell.source)
            cell.outputs = []
            cell.execution_count = None
            # A wrong answer raises here: JupyterLab's "Run all" goes on past this tag.
            cell.metadata["tags"] = sorted({*tags, "raises-exception"})
            points = POINTS[exercises[key].level]
            cell.metadata["nbgrader"] = _nbgrader(
                grade_id(key), solution=False, grade=True, points=points
            )
        kept.append(cell)
    notebook.cells = kept
    notebook.metadata.pop("widgets", None)
    return notebook


def build(out: Path, sources: list[Path]) -> list[Path]:
    """Write ``out``/nbgrader_config.py and ``out``/source/<stem>/<stem>.ipynb per notebook."""
    out.mkdir(parents=True, exist_ok=True)
    config = out / "nbgrader_config.py"
    config.write_text(CONFIG, encoding="utf-8")
    written = [config]
    for path in sources:
        folder = out / "source" / path.stem
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / path.name
        nbformat.write(nbgrader_notebook(path), target)
        written.append(target)
    return written


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="course directory")
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/NN_*.ipynb")
    args = parser.parse_args(argv)
    sources = args.notebooks or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    written = build(args.out, sources)
    print(
        f"nbgrader course directory {args.out}: {len(written) - 1} assignments "
        f"(cd {args.out} && nbgrader generate_assignment {sources[0].stem})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

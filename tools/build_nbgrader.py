"""Build an nbgrader course directory from the source notebooks: one assignment per notebook.

Usage::

    python tools/build_nbgrader.py [--out build/nbgrader] [NOTEBOOK ...]

then, in the course directory, nbgrader's own commands with no flags::

    cd build/nbgrader
    nbgrader generate_assignment 01_binary_counting     # release/01_binary_counting/
    # collect the students' copies into submitted/<student>/01_binary_counting/
    nbgrader autograde 01_binary_counting               # scores in gradebook.db (sandboxed)
    nbgrader generate_feedback 01_binary_counting       # feedback/<student>/...html

Each exercise of the course (a prompt, a stub cell tagged ``exercise``, a solution cell tagged
``solution`` and a check cell ``nbNN.<name>.check(answer)``) becomes two nbgrader cells:

- the **answer cell** (nbgrader's "autograded answer"): the course's stub followed by the
  solution between ``### BEGIN SOLUTION`` / ``### END SOLUTION``. nbgrader's release keeps the
  stub (the variable or function the learner defines) and removes the solution (the code stub
  is empty); the stub cell itself is dropped, so no stub appears twice;
- the **grade cell** (locked, with ``grade_id`` and ``points``): self-contained, it imports its
  exercise module, prints ``nbNN.<name>.check(answer)`` (without an answer key: the known
  mistakes only) and hands the answer in, ``nbNN.<name>.hand_in(answer)``: plain data in a
  display of its own, nothing judged. It holds no reference and no hidden test, so the release's
  grade cell is the source's (nbgrader's checksum of a locked cell then changes only when a
  student edits it). nbgrader's autograde, with the generated config, executes the submission in
  the sandboxed kernel of tools/sandbox.py, and tools/grader.py, outside the kernel, compares
  what each grade cell handed in with the instructor's key and writes the score (partial credit
  for an answer close for a known reason) and the diagnosis into the grade cell.

The notebook's first code cell becomes the locked **setup cell** (``grade_id`` "setup"): it also
imports the exercise module and every library name the stubs use, so deleting an answer or a
grade cell costs that exercise only. Each **explanation** exercise gets a written answer after
its grade cell: a markdown cell graded by hand (``WRITTEN_POINTS``), with a rubric line.

Points follow the difficulty: warm-up 1, core 2, challenge 3. Cells tagged ``source-only`` (the
note for learners studying alone) and ``reveal`` (a cell after a check that computes the answer)
are dropped, and the widget state is removed. The generated
``nbgrader_config.py`` sets what a plain ``generate_assignment`` / ``autograde`` needs.
"""

from __future__ import annotations

import argparse
import ast
import secrets
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make tools/ importable
    sys.path.insert(0, str(ROOT))

from posenc_lib.exercises import all_exercises  # noqa: E402
from tools.build_student import CHECK_CALL  # noqa: E402
from tools.notebook_cells import (  # noqa: E402
    BEGIN,
    END,
    REMOVED_FOR_STUDENTS,
    ExerciseCells,
    exercise_cells,
)
from tools.sandbox import BWRAP, KERNEL_NAME, write_kernel  # noqa: E402
from tools.variants import DRAWN_WITH, NOTEBOOK_VALUES, VARIANTS, draw  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
DEFAULT_OUT = ROOT / "build" / "nbgrader"
POINTS = {"warm-up": 1, "core": 2, "challenge": 3}
"""Points of an exercise by its difficulty mark."""

WRITTEN_POINTS = 1
"""Points of the written answer of an explanation exercise, graded by hand."""

READ_ONLY = {"deletable": False, "editable": False}
"""JupyterLab's cell metadata that keeps a learner from editing or deleting a locked cell."""

CELL_TIMEOUT = 120
"""Seconds one cell may run under autograde: tools/run_notebooks.py's per-cell limit, which
every cell of the course meets; a learner's endless loop is interrupted after it."""

CODE_STUB = ""
"""What nbgrader's release puts in place of a solution: nothing, the course's stub is above."""

CONFIG = f'''\
"""nbgrader settings of this course directory (written by tools/build_nbgrader.py)."""

import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (nbgrader provides it)

here = Path(__file__).resolve().parent
c.CourseDirectory.course_id = "posenc"
c.CourseDirectory.root = str(here)
# Add a student to the gradebook when their first submission is graded.
c.Autograde.create_student = True
# The release keeps the course's stub above each answer and replaces the solution by a comment.
c.ClearSolutions.code_stub = {{"python": {CODE_STUB!r}}}
# Seconds per cell before a running cell is interrupted (an endless loop scores 0 for that
# exercise and grading goes on).
c.Execute.timeout = {CELL_TIMEOUT}
c.Execute.interrupt_on_timeout = True
# Students' notebooks run in the sandboxed kernel of this directory (tools/sandbox.py).
os.environ["JUPYTER_PATH"] = os.pathsep.join(
    [str(here / "sandbox"), *filter(None, [os.environ.get("JUPYTER_PATH")])])
c.Execute.kernel_name = {KERNEL_NAME!r}
# The grader compares the answers the grade cells hand in with the instructor's key, outside the
# students' kernels: tools/grader.py's GradedExecute in place of nbgrader's Execute.
sys.path.insert(0, REPOSITORY)
from nbgrader.converters import Autograde  # noqa: E402
from nbgrader.preprocessors import Execute  # noqa: E402
from tools.grader import GradedExecute  # noqa: E402

c.Autograde.autograde_preprocessors = [
    GradedExecute if step is Execute else step
    for step in Autograde.class_traits()["autograde_preprocessors"].default()]
c.GradedExecute.seed = int((here / "instructor_seed.txt").read_text(encoding="utf-8"))
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


def _imports(code: str) -> dict[str, str]:
    """The names ``code`` imports, each with the one-name import statement that binds it."""
    found = {}
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                single = (
                    ast.Import(names=[alias])
                    if isinstance(node, ast.Import)
                    else ast.ImportFrom(module=node.module, names=[alias], level=node.level)
                )
                found[(alias.asname or alias.name).split(".")[0]] = ast.unparse(single)
    return found


def _used_names(code: str) -> set[str]:
    """The names ``code`` reads."""
    return {
        node.id
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def setup_source(first_code: str, stubs: list[str], lesson: list[str], module: str) -> str:
    """The setup cell: the notebook's first code cell, plus the imports the stubs need.

    A stub reading a library name that a later lesson cell imports gets that import here, and
    the exercise module ``module`` ("nb02") is imported for the stubs and the grade cells.
    """
    available: dict[str, str] = {}
    for code in lesson:
        available.update(_imports(code))
    have = set(_imports(first_code))
    needed = {name for stub in stubs for name in _used_names(stub)}
    needed = (needed | {module}) - have  # the exercise module once, whoever needs it
    available[module] = f"from posenc_lib.exercises import {module}"
    lines = sorted({available[n] for n in needed if n in available})
    return "\n".join([first_code.rstrip(), *lines])


def hand_in_call(key: str) -> str:
    """The grade cell's line that hands exercise ``key``'s answer in."""
    return f"nb{key[:2]}.{key[3:]}.hand_in({all_exercises()[key].answer_name})"


def grade_source(check: str, key: str) -> str:
    """A self-contained grade cell: its own import, the check's diagnosis, and the line that
    hands the answer in for the grader (tools/grader.py); no reference, no hidden test."""
    module, name = f"nb{key[:2]}", key[3:]
    body = [node for node in ast.parse(check).body if not isinstance(node, ast.ImportFrom)]
    call = body[-1].value if body and isinstance(body[-1], ast.Expr) else None
    if len(body) != 1 or not isinstance(call, ast.Call) or len(call.args) != 1:
        raise ValueError(f"check cell of {key} must be one call {module}.{name}.check(answer)")
    answer = ast.get_source_segment(check, call.args[0])
    if answer != all_exercises()[key].answer_name:
        raise ValueError(f"check cell of {key} must check {all_exercises()[key].answer_name}")
    return (f"from posenc_lib.exercises import {module}\n\n"
            f"print({module}.{name}.check({answer}))\n{hand_in_call(key)}")


def written_cells(key: str, objective: str) -> list[nbformat.NotebookNode]:
    """The prompt with its rubric line and the hand-graded markdown answer cell."""
    prompt = nbformat.v4.new_markdown_cell(
        f"**Written answer ({WRITTEN_POINTS} point, graded by hand).** In two or three "
        "sentences, say why the number you computed above comes out as it does.\n\n"
        f"*Rubric: {WRITTEN_POINTS} point when the answer gives the reason: {objective}*"
    )
    answer = nbformat.v4.new_markdown_cell(f"A full answer: {objective}")
    answer.metadata["nbgrader"] = _nbgrader(
        grade_id(key) + "_written", solution=True, grade=True, points=WRITTEN_POINTS
    )
    answer.metadata["nbgrader"]["locked"] = False
    return [prompt, answer]


def grade_id(key: str) -> str:
    """nbgrader's id of an exercise's grade cell: "01.bit_period" -> "ex01_bit_period"."""
    return "ex" + key.replace(".", "_")


def pose(notebook: nbformat.NotebookNode, cells: ExerciseCells, values: dict) -> None:
    """Pose exercise ``cells.key`` with the drawn ``values`` (tools.variants): its prompt and
    stub name them and its solution is written for them."""
    variant, own = VARIANTS[cells.key], NOTEBOOK_VALUES[cells.key]
    named = [notebook.cells[cells.prompt], notebook.cells[cells.stub]]
    for old, new in zip(variant.prompt(own), variant.prompt(values), strict=True):
        if not any(old in cell.source for cell in named):
            raise ValueError(f"{cells.key}: the prompt no longer says {old!r}; update "
                             "tools/variants.py")
        for cell in named:
            cell.source = cell.source.replace(old, new)
    solution = notebook.cells[cells.solution]
    written = variant.solution(own)
    if f"{BEGIN}\n{written}\n{END}" not in solution.source:
        raise ValueError(f"{cells.key}: the solution is not the one tools/variants.py writes")
    solution.source = solution.source.replace(written, variant.solution(values))


def nbgrader_notebook(path: Path, seed: int = 0) -> nbformat.NotebookNode:
    """The nbgrader source version of the course notebook at ``path``; the exercises of
    tools.variants are posed with the values instructor seed ``seed`` draws."""
    notebook = nbformat.read(path, as_version=4)
    exercises = all_exercises()
    stubs, solutions, checks, drawn = {}, {}, {}, {}
    for key, cells in exercise_cells(path).items():
        stubs[cells.stub] = key
        solutions[cells.solution] = (key, cells.stub)
        checks[cells.check] = key
        if key in VARIANTS:
            drawn[key] = draw(seed, key)
            pose(notebook, cells, drawn[key])
    code = [i for i, c in enumerate(notebook.cells) if c.cell_type == "code"]
    lesson = [notebook.cells[i].source for i in code if i not in solutions]
    setup = notebook.cells[code[0]]
    setup.source = setup_source(
        setup.source, [notebook.cells[i].source for i in stubs], lesson, f"nb{path.name[:2]}"
    ) + "".join(f"\nnb{key[:2]}.{key[3:]}.use(**{values!r})" for key, values in drawn.items()
                # an exercise drawn with another one shares its values: posed once, by that one
                if DRAWN_WITH.get(key) not in drawn)
    setup.metadata.update(READ_ONLY)
    setup.metadata["nbgrader"] = _nbgrader("setup", solution=False, grade=False)
    setup.metadata["nbgrader"]["locked"] = True
    kept = []
    for index, cell in enumerate(notebook.cells):
        tags = _tags(cell)
        if index in stubs or (set(tags) & REMOVED_FOR_STUDENTS) - {"solution"}:
            continue
        if index != code[0]:
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
            points = POINTS[exercises[key].level]
            cell.source = grade_source(cell.source, key)
            cell.outputs = []
            cell.execution_count = None
            # A deleted answer raises here: JupyterLab's "Run all" goes on past this tag.
            cell.metadata["tags"] = sorted({*tags, "raises-exception"})
            cell.metadata.update(READ_ONLY)
            cell.metadata["nbgrader"] = _nbgrader(
                grade_id(key), solution=False, grade=True, points=points
            )
            if exercises[key].kind == "explanation":
                kept += [cell, *written_cells(key, exercises[key].objective)]
                continue
        kept.append(cell)
    notebook.cells = kept
    notebook.metadata.pop("widgets", None)
    return notebook


SEED_FILE = "instructor_seed.txt"
"""The course directory's instructor seed: drawn at the first build, reused by every later one."""


def instructor_seed(out: Path, seed: int | None) -> int:
    """The seed of the course directory ``out``: ``seed``, else the one stored there, else a new
    random one; stored in ``out``/:data:`SEED_FILE`. A directory that has released assignments
    keeps its seed (the answers of released work would change)."""
    path = out / SEED_FILE
    stored = int(path.read_text(encoding="utf-8")) if path.exists() else None
    if seed is not None and stored is not None and seed != stored and (out / "release").exists():
        raise SystemExit(f"error: {out} released assignments with seed {stored}; --seed {seed} "
                         "would change their answers (use a new course directory)")
    seed = seed if seed is not None else stored if stored is not None else secrets.randbelow(10**9)
    path.write_text(f"{seed}\n", encoding="utf-8")
    return seed


def build(out: Path, sources: list[Path], seed: int | None = None) -> list[Path]:
    """Write ``out``/nbgrader_config.py and ``out``/source/<stem>/<stem>.ipynb per notebook,
    with the exercises of tools.variants posed as the instructor seed draws them."""
    out.mkdir(parents=True, exist_ok=True)
    seed = instructor_seed(out, seed)
    config = out / "nbgrader_config.py"
    config.write_text(CONFIG.replace("REPOSITORY", repr(str(ROOT))), encoding="utf-8")
    written = [config, *write_kernel(out / "sandbox")]
    for path in sources:
        folder = out / "source" / path.stem
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / path.name
        nbformat.write(nbgrader_notebook(path, seed), target)
        written.append(target)
    return written


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="course directory")
    parser.add_argument("--seed", type=int, default=None,
                        help="instructor seed (default: the directory's, else a random one)")
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/NN_*.ipynb")
    args = parser.parse_args(argv)
    sources = args.notebooks or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    build(args.out, sources, args.seed)
    seed = (args.out / SEED_FILE).read_text(encoding="utf-8").strip()
    if not Path(BWRAP).is_file():
        print(f"warning: {BWRAP} is missing, so autograde cannot start its sandboxed kernel: "
              "install bubblewrap (apt-get install bubblewrap; see notebooks/INSTRUCTORS.md)",
              file=sys.stderr)
    print(
        f"nbgrader course directory {args.out}, instructor seed {seed} (keep it secret): "
        f"{len(sources)} assignments "
        f"(cd {args.out} && nbgrader generate_assignment {sources[0].stem})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

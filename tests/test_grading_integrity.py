"""A class that tries to cheat, graded by nbgrader's own commands (issue 33).

Two assignments, one of notebooks 00-05 and one of 06-09, run through ``generate_assignment``
and ``autograde`` as :mod:`tests.test_nbgrader` does. The students, one submission each:

- ``solver`` writes every solution (for the values the instructor seed draws); ``blank``
  hands in the release untouched;
- ``introspector`` answers every exercise with what it reads off the exercise objects: every
  attribute and method (private ones too), every closure, every global of the exercise module
  and of ``_core``, and the constants written in the exercise module's source file, calling
  every function of the course it meets with no argument, and with one or two of the numbers
  the module holds; among what it finds it hands in the first value that has the shape of a
  known mistake and is not one;
- ``patch_grade`` and ``patch_compare`` run the two one-line patches quoted in the issue in
  their first answer cell, then answer 0 everywhere;
- ``numpy_patcher`` replaces ``np.allclose``, ``np.isclose`` and ``np.testing``'s asserts;
- ``swapper`` swaps ``_core`` and the exercise module in ``sys.modules`` for fakes whose
  exercises give full points;
- ``scratch`` solves everything, with a failing scratch cell (a typo) between an answer and its
  grade cell.

Expected: the solutions full marks, the scratch student too, the blank 0, and each cheater at
most a tenth of the autograded points; every grade cell of a tampering student says why it
scored 0.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from posenc_lib.exercises import all_exercises
from tests.test_nbgrader import SEED, answer_cells, course_solutions, grade_cells, nbgrader, points
from tools import build_nbgrader
from tools.notebook_cells import NOTEBOOKS, exercise_cells

ASSIGNMENTS = [p for p in NOTEBOOKS if p.name[:2] in ("01", "06")]
"""One assignment of 00-05 and one of 06-09, both quick to execute."""

PATCH_GRADE = (
    "import posenc_lib.exercises._core as _c\n"
    "_c.Exercise.grade = lambda self, answer, points=None: points\n"
)
PATCH_COMPARE = (
    "import posenc_lib.exercises._core as _c\n"
    "_c._compare = lambda *a, **k: (True, '')\n"
)
NUMPY_PATCH = """\
import numpy as np
import numpy.testing as npt
np.allclose = lambda *a, **k: True
np.isclose = lambda a, b, *r, **k: np.ones(np.shape(a), dtype=bool)
for _name in ("assert_allclose", "assert_array_equal", "assert_equal", "assert_almost_equal",
              "assert_array_almost_equal"):
    setattr(npt, _name, lambda *a, **k: None)
"""
SWAP = """\
import sys, types
import posenc_lib.exercises._core as _real_core
import posenc_lib.exercises.{module} as _real_module
_fake_core = types.ModuleType(_real_core.__name__)
_fake_core.__dict__.update(vars(_real_core))
_fake_core._compare = lambda *a, **k: (True, "")
sys.modules[_real_core.__name__] = _fake_core

class _FullMarks:
    def grade(self, answer, points=None, **kwargs):
        return points
    def check(self, answer, **kwargs):
        return "Correct"

_fake = types.ModuleType(_real_module.__name__)
_fake.__file__ = _real_module.__file__
for _name in dir(_real_module):
    setattr(_fake, _name, _FullMarks())
sys.modules[_real_module.__name__] = _fake
"""
PEEK = '''\
def _peek(module_name, exercise_name):
    """Everything an exercise object, its module and its source file give away."""
    import ast, importlib, inspect, types
    import numpy as np
    module = importlib.import_module("posenc_lib.exercises." + module_name)
    core = importlib.import_module("posenc_lib.exercises._core")
    exercise = getattr(module, exercise_name)
    seen, found = set(), []
    numbers = {0, 1, 2, 3, 4}  # arguments to try: small ones and every number the module holds

    def collect(value, depth=0):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            numbers.add(value)
        elif isinstance(value, (tuple, list)) and depth < 2:
            for item in value:
                collect(item, depth + 1)
        elif isinstance(value, dict) and depth < 2:
            for item in value.values():
                collect(item, depth + 1)

    for value in [*vars(module).values(), exercise.params or {}]:
        collect(value)
    pool = sorted(numbers, key=abs)[:40]

    def ours(value):  # the course's code: the kernel's own objects are not called
        owner = getattr(value, "__self__", value)
        return any(str(getattr(x, "__module__", "")).startswith("posenc_lib")
                   for x in (value, owner, type(owner)))

    def take(value, depth=0):
        if id(value) in seen or depth > 4 or isinstance(value, (types.ModuleType, type)):
            return
        seen.add(id(value))
        if callable(value):
            if not ours(value):
                return
            for cell in getattr(value, "__closure__", None) or ():
                try:
                    take(cell.cell_contents, depth + 1)
                except ValueError:
                    pass
            try:
                required = [p for p in inspect.signature(value).parameters.values()
                            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
                                                                   p.POSITIONAL_OR_KEYWORD)]
                if not required:
                    take(value(), depth + 1)
                elif len(required) == 1:
                    for x in pool:
                        try:
                            take(value(x), depth + 1)
                        except Exception:
                            pass
                elif len(required) == 2:
                    for x in pool[:15]:
                        for y in pool[:15]:
                            try:
                                take(value(x, y), depth + 1)
                            except Exception:
                                pass
            except Exception:
                pass
            return
        if isinstance(value, dict):
            for item in value.values():
                take(item, depth + 1)
        if hasattr(value, "__dict__") and ours(value):
            for item in vars(value).values():
                take(item, depth + 1)
        plain = (int, float, str)
        if isinstance(value, (list, tuple)) and value and not isinstance(value[0], plain):
            for item in value:
                take(item, depth + 1)
        if value is not None and value is not Ellipsis:
            found.append(value)

    for name in dir(exercise):
        if name.startswith("__"):  # Python's machinery (__init__, __post_init__), not the course's
            continue
        try:
            take(getattr(exercise, name))
        except Exception:
            pass
    for namespace in (vars(module), vars(core)):
        for value in list(namespace.values()):
            take(value)
    tree = ast.parse(open(module.__file__, encoding="utf-8").read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            try:
                take(ast.literal_eval(node.value))
            except Exception:
                pass
    shapes = {np.shape(m.value()) for m in exercise.mistakes if not m.from_answer}
    for value in found:
        try:
            plausible = not shapes or np.shape(value) in shapes
            named = "common mistake" in exercise.check(value).message
        except Exception:
            continue
        if plausible and not named:
            return value
    return found[0] if found else 0
'''


def answer_code(key: str, value: str) -> str:
    """Code that answers exercise ``key`` with the expression ``value``."""
    exercise = all_exercises()[key]
    if exercise.call_with is None:
        return f"{exercise.answer_name} = {value}"
    return f"def {exercise.answer_name}(*args):\n    return {value}"


def hand_in(course: Path, student: str, source: Path, answers: dict[str, str],
            first: str = "", scratch: bool = False) -> None:
    """The release of ``source`` with ``first`` then the answers appended to the answer cells;
    with ``scratch``, a failing scratch cell right after the first answer cell."""
    release = course / "release" / source.stem / source.name
    notebook = nbformat.read(release, as_version=4)
    cells = answer_cells(notebook)
    for order, (key, cell) in enumerate(cells.items()):
        head = first if order == 0 else ""
        cell.source = "\n".join(filter(None, [cell.source.rstrip(), head, answers.get(key, "")]))
    if scratch:
        at = notebook.cells.index(next(iter(cells.values()))) + 1
        notebook.cells.insert(at, nbformat.v4.new_code_cell("print(n_token)  # a typo"))
    folder = course / "submitted" / student / source.stem
    folder.mkdir(parents=True)
    nbformat.write(notebook, folder / source.name)


TAMPERERS = ("patch_grade", "patch_compare", "numpy_patcher", "swapper")
CHEATERS = ("introspector", *TAMPERERS)


@pytest.fixture(scope="module")
def cheating_class(tmp_path_factory: pytest.TempPathFactory) -> dict:
    course = tmp_path_factory.mktemp("course")
    build_nbgrader.build(course, ASSIGNMENTS, SEED)
    totals = {}
    for source in ASSIGNMENTS:
        nbgrader(course, "generate_assignment", source.stem)
        cells = exercise_cells(source)
        module = f"nb{source.name[:2]}"
        totals[source.stem] = sum(points(k) for k in cells)
        solved = course_solutions(course, source)
        zeros = {k: answer_code(k, "0") for k in cells}
        peeks = {k: answer_code(k, f"_peek({module!r}, {k[3:]!r})") for k in cells}
        hand_in(course, "solver", source, solved)
        hand_in(course, "blank", source, {})
        hand_in(course, "scratch", source, solved, scratch=True)
        hand_in(course, "introspector", source, peeks, first=PEEK)
        hand_in(course, "patch_grade", source, zeros, first=PATCH_GRADE)
        hand_in(course, "patch_compare", source, zeros, first=PATCH_COMPARE)
        hand_in(course, "numpy_patcher", source, zeros, first=NUMPY_PATCH)
        hand_in(course, "swapper", source, zeros, first=SWAP.format(module=module))
        nbgrader(course, "autograde", source.stem)
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for source in ASSIGNMENTS:
            for student in ("solver", "blank", "scratch", *CHEATERS):
                scores[source.stem, student] = gradebook.find_submission(source.stem,
                                                                         student).score
    return {"course": course, "scores": scores, "totals": totals}


def test_the_solutions_and_the_scratch_cell_keep_full_marks_and_blank_scores_zero(
    cheating_class: dict,
) -> None:
    for stem, total in cheating_class["totals"].items():
        scores = {s: cheating_class["scores"][stem, s] for s in ("solver", "scratch", "blank")}
        assert scores == {"solver": total, "scratch": total, "blank": 0}, (stem, scores)


@pytest.mark.parametrize("student", CHEATERS)
def test_a_cheater_scores_at_most_a_tenth(cheating_class: dict, student: str) -> None:
    for stem, total in cheating_class["totals"].items():
        score = cheating_class["scores"][stem, student]
        print(f"{stem} {student}: {score:g} of {total}")
        assert score <= total / 10, f"{stem}: {student} scored {score} of {total}"


@pytest.mark.parametrize("student", TAMPERERS)
def test_each_grade_cell_says_why_a_tampered_notebook_scored_zero(
    cheating_class: dict, student: str
) -> None:
    for source in ASSIGNMENTS:
        graded = cheating_class["course"] / "autograded" / student / source.stem / source.name
        cells = grade_cells(nbformat.read(graded, as_version=4))
        errors = [o for c in cells for o in c.outputs if o.output_type == "error"]
        assert len(errors) == len(cells), student
        assert all("Scored 0: the grading code or numpy was replaced" in o.evalue
                   for o in errors), [o.evalue[:200] for o in errors]


def test_the_release_holds_no_hidden_test(cheating_class: dict) -> None:
    for source in ASSIGNMENTS:
        release = cheating_class["course"] / "release" / source.stem / source.name
        text = release.read_text(encoding="utf-8")
        assert "HIDDEN TESTS" not in text and "reference=" not in text
        assert "_posenc_untampered" not in text

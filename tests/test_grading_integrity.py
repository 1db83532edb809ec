"""A class that tries to cheat, graded by nbgrader's own commands in the sandbox (issue 46).

Two assignments, 01 and 06, run through ``generate_assignment``, ``autograde`` (the course's
config: the bubblewrap kernel of tools/sandbox.py, the grader of tools/grader.py) and
``generate_feedback``, as :mod:`tests.test_nbgrader` does. The students, one submission each:

- ``solver`` writes every solution (for the values the instructor seed draws); ``blank`` hands
  in the release untouched; ``messy`` solves everything, with a failing scratch cell (a typo)
  after the first answer, that answer's cell deleted and the second answer's cell raising;
- ``transformer`` puts issue 46's line into its first answer cell, as written: an IPython input
  transformer that blanks every later cell naming the old tamper check; ``silencer`` installs
  one that blanks every grade cell and an AST transformer that makes every ``hand_in`` hand in
  zero; both answer 0 elsewhere;
- ``stack_walker`` answers with issue 46's ``int`` subclass whose ``__float__`` walks
  ``sys._getframe`` up to a local ``expected`` (or ``reference``), and an object whose
  ``__array__`` does the same; function exercises return them;
- ``file_reader`` reads ``../../../source`` as issue 46 did, and searches the whole file system
  for the source notebooks, the answer key, the instructor seed and the gradebook, prints what
  it found, and runs every solution cell it found;
- ``patcher`` replaces the course's comparison and ``hand_in``, numpy's ``allclose``,
  ``isclose`` and asserts, and swaps the exercise module in ``sys.modules`` for a fake whose
  exercises hand in whatever they are given as right;
- ``introspector`` answers every exercise with what it reads off the exercise objects: every
  attribute and method (private ones too), every closure, every global of the exercise module
  and of ``_core``, and the constants written in the exercise module's source file, calling
  every function of the course it meets with no argument, and with one or two of the numbers
  the module holds; among what it finds it hands in the first value that has the shape of a
  known mistake and is not one.

Expected: the solutions full marks; ``messy`` loses exactly its two broken exercises; the blank
0; each cheater at most a tenth of the autograded points; nbgrader reports no changed checksum;
the blank student's feedback holds no reference and no test code. Where bubblewrap is missing,
autograde fails, and so does this module (it never skips).
"""

from __future__ import annotations

import html
import json
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import numpy as np
import pytest

from posenc_lib.exercises import all_exercises
from tests.test_nbgrader import (
    SEED,
    answer_cells,
    course_solutions,
    grade_cells,
    nbgrader,
    points,
    right_and_wrong,
)
from tools import build_nbgrader, sandbox
from tools.notebook_cells import NOTEBOOKS, exercise_cells
from tools.sandbox import BWRAP

ASSIGNMENTS = [p for p in NOTEBOOKS if p.name[:2] in ("01", "06")]
"""One assignment of 00-05 and one of 06-09, both quick to execute."""

TRANSFORMER = (
    "get_ipython().input_transformers_post.append(lambda L: ['pass\\n'] if any("
    "'_posenc_untampered' in l for l in L) else L)"
)
"""Issue 46's line, as written."""
SILENCER = """\
import ast as _ast
get_ipython().input_transformers_post.append(
    lambda L: ['pass\\n'] if any('.check(' in l for l in L) else L)

class _Zero(_ast.NodeTransformer):
    def visit_Call(self, node):
        if getattr(node.func, "attr", "") == "hand_in":
            node.args = [_ast.Constant(0)]
        return self.generic_visit(node)

get_ipython().ast_transformers.append(_Zero())
"""
STACK_WALKER = """\
import sys
import numpy as np

def _expected_from_the_stack():
    frame = sys._getframe(1)
    while frame is not None:
        for name in ("expected", "reference", "right", "want"):
            if name in frame.f_locals:
                return frame.f_locals[name]
        frame = frame.f_back
    return 0

class Sneaky(int):
    def __float__(self):
        return float(_expected_from_the_stack())

class Arrayish:
    def __array__(self, dtype=None, copy=None):
        return np.asarray(_expected_from_the_stack(), dtype=dtype)
    def __eq__(self, other):
        return True
"""
FILE_READER = """\
import glob, os
_found = sorted(glob.glob("../../../source/*/*.ipynb"))
for _top in ("/", os.path.expanduser("~")):  # the installed software aside (quicker)
    for _folder, _dirs, _files in os.walk(_top):
        _dirs[:] = [d for d in _dirs if d not in ("proc", "sys", "dev", "usr", "site-packages")]
        _found += [os.path.join(_folder, f) for f in _files
                   if f in ("instructor_seed.txt", "gradebook.db", ".posenc_answer_key.json")
                   or (f.endswith(".ipynb") and "source" in _folder)]
print("FOUND", sorted(set(_found)))
for _path in sorted(set(_found)):
    if _path.endswith(".ipynb"):
        import json as _json
        for _cell in _json.load(open(_path))["cells"]:
            _code = "".join(_cell["source"])
            if "### BEGIN SOLUTION" in _code:
                get_ipython().run_cell(_code)
"""
PATCHER = """\
import sys, types
import numpy as np
import numpy.testing as npt
import posenc_lib.exercises._core as _c
import posenc_lib.exercises.{module} as _real
_c._compare = lambda *a, **k: (True, "")
_c.Exercise.hand_in = lambda self, answer, inputs=(): _c.Exercise.__dict__  # hands in nothing
np.allclose = lambda *a, **k: True
np.isclose = lambda a, b, *r, **k: np.ones(np.shape(a), dtype=bool)
for _name in ("assert_allclose", "assert_array_equal", "assert_equal"):
    setattr(npt, _name, lambda *a, **k: None)

class _Right:
    def check(self, answer, **kwargs):
        return "Correct"
    def hand_in(self, answer, inputs=()):
        from IPython.display import display
        display({{"application/vnd.posenc.hand-in+json": {{"key": "", "calls": [
            {{"value": {{"scalar": "<f8", "data": 1.0}}, "problem": None}}]}},
            "text/plain": "right"}}, raw=True)

_fake = types.ModuleType(_real.__name__)
for _n in dir(_real):
    setattr(_fake, _n, _Right())
sys.modules[_real.__name__] = _fake
import posenc_lib.exercises
posenc_lib.exercises.{module} = _fake
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
    shapes = {np.shape(m.value()) for m in exercise.mistakes
              if not m.from_answer and m.value() is not None}
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
            first: str = "", messy: bool = False) -> None:
    """The release of ``source`` with ``first`` then the answers appended to the answer cells;
    with ``messy``, a failing scratch cell after the first answer cell, that answer cell
    deleted and the second answer cell raising before its answer."""
    release = course / "release" / source.stem / source.name
    notebook = nbformat.read(release, as_version=4)
    cells = answer_cells(notebook)
    for order, (key, cell) in enumerate(cells.items()):
        head = first if order == 0 else ""
        cell.source = "\n".join(filter(None, [cell.source.rstrip(), head, answers.get(key, "")]))
    if messy:
        first_cell, second_cell = list(cells.values())[:2]
        at = notebook.cells.index(first_cell) + 1
        notebook.cells.insert(at, nbformat.v4.new_code_cell("print(n_token)  # a typo"))
        notebook.cells.remove(first_cell)
        second_cell.source = 'raise RuntimeError("my code broke")\n' + second_cell.source
    folder = course / "submitted" / student / source.stem
    folder.mkdir(parents=True)
    nbformat.write(notebook, folder / source.name)


CHEATERS = ("transformer", "silencer", "stack_walker", "file_reader", "patcher", "introspector")


@pytest.fixture(scope="module")
def cheating_class(tmp_path_factory: pytest.TempPathFactory) -> dict:
    assert Path(BWRAP).is_file(), f"{BWRAP} is missing: apt-get install bubblewrap"
    start = time.perf_counter()
    course = tmp_path_factory.mktemp("course")
    build_nbgrader.build(course, ASSIGNMENTS, SEED)
    totals, logs, lost = {}, {}, {}
    for source in ASSIGNMENTS:
        nbgrader(course, "generate_assignment", source.stem)
        cells = exercise_cells(source)
        keys = list(cells)
        module = f"nb{source.name[:2]}"
        totals[source.stem] = sum(points(k) for k in cells)
        lost[source.stem] = points(keys[0]) + points(keys[1])
        solved = course_solutions(course, source)
        zeros = {k: answer_code(k, "0") for k in cells}
        hand_in(course, "solver", source, solved)
        hand_in(course, "blank", source, {})
        hand_in(course, "messy", source, solved, messy=True)
        hand_in(course, "transformer", source, zeros, first=TRANSFORMER)
        hand_in(course, "silencer", source, zeros, first=SILENCER)
        sneaky = {k: answer_code(k, "Sneaky(0)" if i % 2 else "Arrayish()")
                  for i, k in enumerate(cells)}
        hand_in(course, "stack_walker", source, sneaky, first=STACK_WALKER)
        hand_in(course, "file_reader", source, {}, first=FILE_READER)
        hand_in(course, "patcher", source, zeros, first=PATCHER.format(module=module))
        peeks = {k: answer_code(k, f"_peek({module!r}, {k[3:]!r})") for k in cells}
        hand_in(course, "introspector", source, peeks, first=PEEK)
        logs[source.stem] = nbgrader(course, "autograde", source.stem).stderr
        nbgrader(course, "generate_feedback", source.stem, "--student=blank")
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for source in ASSIGNMENTS:
            for student in ("solver", "blank", "messy", *CHEATERS):
                scores[source.stem, student] = gradebook.find_submission(source.stem,
                                                                         student).score
    print(f"the class graded in {time.perf_counter() - start:.0f} s")
    return {"course": course, "scores": scores, "totals": totals, "logs": logs, "lost": lost}


def test_the_solutions_keep_full_marks_a_mess_costs_its_exercises_and_blank_scores_zero(
    cheating_class: dict,
) -> None:
    for stem, total in cheating_class["totals"].items():
        scores = {s: cheating_class["scores"][stem, s] for s in ("solver", "messy", "blank")}
        assert scores == {"solver": total, "messy": total - cheating_class["lost"][stem],
                          "blank": 0}, (stem, scores)


@pytest.mark.parametrize("student", CHEATERS)
def test_a_cheater_scores_at_most_a_tenth(cheating_class: dict, student: str) -> None:
    for stem, total in cheating_class["totals"].items():
        score = cheating_class["scores"][stem, student]
        print(f"{stem} {student}: {score:g} of {total}")
        assert score <= total / 10, f"{stem}: {student} scored {score} of {total}"


def test_the_grading_kernel_sees_only_the_submission(cheating_class: dict) -> None:
    """What the file reader printed in its graded run: nothing. The same search run outside
    the sandbox, from the same folder, finds the source notebook and the seed (so the search
    works, and the sandbox is what stops it)."""
    course: Path = cheating_class["course"]
    for source in ASSIGNMENTS:
        graded = course / "autograded" / "file_reader" / source.stem / source.name
        printed = [o.get("text", "") for c in nbformat.read(graded, as_version=4).cells
                   if c.cell_type == "code" for o in c.get("outputs", [])]
        assert "FOUND []\n" in printed, printed
    folder = course / "autograded" / "file_reader" / ASSIGNMENTS[0].stem
    search = (FILE_READER.split("print(")[0].replace('("/", os.path.expanduser("~"))',
                                                      '("../../..",)')
              + "print(sorted(set(_found)))")
    outside = subprocess.run([sys.executable, "-c", search], cwd=folder, capture_output=True,
                             text=True, check=True, timeout=600)
    found = outside.stdout
    assert f"source/{ASSIGNMENTS[0].stem}/{ASSIGNMENTS[0].name}" in found
    assert "instructor_seed.txt" in found and "gradebook.db" in found


def test_no_checksum_warning_for_untouched_locked_cells(cheating_class: dict) -> None:
    for stem, log in cheating_class["logs"].items():
        # nbgrader goes on without a config it cannot load: the grader would then be missing
        assert "Exception while loading config file" not in log, stem
        assert "checksum" not in log, (stem, [line for line in log.splitlines()
                                              if "checksum" in line][:3])


def test_the_blank_feedback_holds_no_test_and_no_reference(cheating_class: dict) -> None:
    course: Path = cheating_class["course"]
    for source in ASSIGNMENTS:
        page = course / "feedback" / "blank" / source.stem / f"{source.stem}.html"
        text = html.unescape(page.read_text(encoding="utf-8"))
        assert "HIDDEN TESTS" not in text and "reference=" not in text
        assert "_posenc" not in text and "Not yet" in text  # the diagnosis is there
        for key in exercise_cells(source):
            right = right_and_wrong(key)[0]
            if isinstance(right, (int, float, np.number)) and not isinstance(right, bool):
                shown = {v for v in (f"{float(right):.4g}", f"{float(right):.6g}") if len(v) >= 4}
            elif isinstance(right, np.ndarray) and right.dtype.kind == "f":
                shown = {json.dumps(right.ravel().tolist())[1:30]}
            else:
                continue
            assert not any(v in text for v in shown), (key, shown)


def test_the_release_holds_no_reference(cheating_class: dict) -> None:
    for source in ASSIGNMENTS:
        release = cheating_class["course"] / "release" / source.stem / source.name
        text = release.read_text(encoding="utf-8")
        assert "HIDDEN TESTS" not in text and "reference=" not in text
        assert all(".hand_in(" in c.source for c in grade_cells(nbformat.read(release, 4)))


def test_an_environment_under_tmp_is_inside_the_sandbox(tmp_path: Path, monkeypatch) -> None:
    """A checkout under /tmp (``mktemp -d``) keeps its venv there: the sandbox's empty /tmp must
    not hide it. The launcher's own bwrap line reads a file of such an environment."""
    assert Path(BWRAP).is_file(), f"{BWRAP} is missing: apt-get install bubblewrap"
    environment = tmp_path / "venv"
    environment.mkdir()
    (environment / "marker").write_text("the environment is here\n", encoding="utf-8")
    monkeypatch.setattr(sandbox, "environment", lambda: ([str(environment)], "/bin/true", None))
    lines = sandbox.launcher().splitlines()
    assert lines[-1].lstrip().startswith("/bin/true"), lines[-1]
    lines[-1] = f"    /bin/cat {environment / 'marker'}"
    script = tmp_path / "launch.sh"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    connection = tmp_path / "kernel.json"
    connection.write_text("{}", encoding="utf-8")
    submission = tmp_path / "autograded"  # bound too, but it does not hold the environment
    submission.mkdir()
    run = subprocess.run(["sh", str(script), str(connection)], capture_output=True, text=True,
                         cwd=submission, timeout=60)
    assert run.returncode == 0 and run.stdout == "the environment is here\n", run.stderr

"""What a student receives holds no graded answer: the wheel, the sdist and every graded release.

The answers are read from the checkout's key (tools/answer_key.py, the computations the solution
cells make). Each is searched as text: its telling numbers as Python prints them and to 4
significant digits (an answer counts as found when at least half of its telling entries are
number tokens of the text), a short answer written out as a tuple or a list, and the right
choice of a detector as a string literal. A number is telling when it is not a whole number
below 1000 and has at least three significant digits: "2" or "0.5" occur everywhere. A
detector's options are names the library and the lessons use ("llama3", "half"), so its choice
is searched for in the package's exercise modules and in the release's answer and grade cells
(comments removed: a stub lists every option). The releases are built as ``nbgrader
generate_assignment`` builds them, with nbgrader's own preprocessors (solutions cleared, hidden
tests removed, outputs cleared); the sdist and the wheel are built with the backend that
pyproject.toml asks for.

The exercises whose answers still ship are listed in :data:`OPEN_LEAKS`: the test fails when
one more leaks, and also when one of them is fixed, so that the list stays the truth.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pytest

from posenc_lib.exercises import all_exercises
from tests.test_nbgrader import SEED
from tools import build_nbgrader
from tools.answer_key import ROOT, answers
from tools.notebook_cells import NOTEBOOKS, exercise_cells
from tools.variants import VARIANTS, answer_for, draw

OPEN_LEAKS = {
    "wheel": set(),
    "release": set(),
}
"""Exercises whose answer is still in the package's source (a constant the exercise's data is
made from); issue 33 leaves them open."""


def settled(array: Any) -> np.ndarray:
    """An answer's numbers, flat, to 12 significant digits: what is searched for must not hang
    on the last bit, which differs between CPU paths (05.direction's -1 is -1 - 2**-52 where
    numpy uses AVX2)."""
    return np.array([float(f"{x:.12g}") for x in np.asarray(array).astype(float).ravel()])


def telling(value: float) -> list[str]:
    """The texts of ``value`` worth searching for: as printed and to 4 significant digits."""
    if not math.isfinite(value) or value == 0:
        return []
    if float(value).is_integer():
        return [str(int(value))] if abs(value) >= 1000 else []
    forms = {repr(float(value)), f"{value:.4g}", f"{value:.6g}"}
    return [f for f in forms if len(re.sub(r"[^0-9]", "", f.split("e")[0]).lstrip("0")) >= 3]


def answer_texts(key: str, value: Any) -> list[str]:
    """The texts that would give the answer of ``key`` away."""
    texts: list[str] = []
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        texts += [f"'{value[0]}'", f'"{value[0]}"']
        value = value[1]
    if isinstance(value, (str, set, frozenset, bool, np.bool_)):
        return texts
    array = np.asarray(value)
    if array.dtype == bool or array.dtype.kind not in "iuf":
        return texts
    flat = settled(array)
    if 2 <= flat.size <= 8:  # a short answer written out as a tuple or a list
        for items in ([repr(float(x)) for x in flat],
                      [str(int(x)) if float(x).is_integer() else repr(float(x)) for x in flat]):
            texts += [f"({', '.join(items)})", f"[{', '.join(items)}]"]
    return texts


ANSWERS = answers()
TEXTS = {key: answer_texts(key, value) for key, value in ANSWERS.items()}
GRADED = {key for path in NOTEBOOKS for key in exercise_cells(path)}
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def without_comments(code: str) -> str:
    return re.sub(r"#[^\n]*", "", code)


def found_in(text: str, choices: bool = True, answers: dict[str, Any] | None = None) -> set[str]:
    """The exercises whose answer ``text`` holds: a choice literal, a tuple or list written
    out, or at least half of the answer's telling entries as whole number tokens (a value the
    library shares with an answer, such as 10000 ** -0.25, is not the answer). ``answers``
    (by default every graded exercise's) maps keys to the answers searched for."""
    tokens = set(NUMBER.findall(text))
    found = set()
    for key in GRADED if answers is None else answers:
        value = ANSWERS[key] if answers is None else answers[key]
        texts = TEXTS[key] if answers is None else answer_texts(key, value)
        literal = [t for t in texts if not NUMBER.fullmatch(t)
                   and (choices or not t.startswith(("'", '"')))]
        entries = entry_texts(value)
        shown = [forms for forms in entries if forms & tokens]
        if any(t in text for t in literal) or (entries and 2 * len(shown) >= len(entries)):
            found.add(key)
    return found


JOINERS = ("-", "_", " ", "")
"""How two parts of a composite choice ("interleaved-t2t") may be joined."""


def string_runs(source: str) -> list[list[str]]:
    """For each simple statement of a Python source (not a def, a class or a block), its string
    constants in the order they are written; f-strings count by their constant pieces."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    runs = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or hasattr(node, "body"):
            continue
        strings = [n for n in ast.walk(node)
                   if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        strings.sort(key=lambda n: (n.lineno, n.col_offset))
        runs.append([n.value for n in strings])
    return runs


def composite_found_in(source: str) -> set[str]:
    """The detectors whose right choice two neighbouring string constants of one statement of
    ``source`` spell when joined ("interleaved", "t2t" for "interleaved-t2t"): a choice built
    at run time (an f-string of two constants) is as good as written."""
    found = set()
    runs = string_runs(source)
    for key in GRADED:
        answer = ANSWERS[key]
        if not (isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], str)):
            continue
        choice = answer[0].lower()
        for run in runs:
            pairs = zip(run, run[1:], strict=False)
            if any(f"{a}{j}{b}".lower() == choice for a, b in pairs for j in JOINERS):
                found.add(key)
    return found


def entry_texts(value: Any) -> list[set[str]]:
    """For each telling entry of an answer, the texts it is written as."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        value = value[1]
    if isinstance(value, (str, set, frozenset, bool, np.bool_)):
        return []
    array = np.asarray(value)
    if array.dtype == bool or array.dtype.kind not in "iuf":
        return []
    forms = [set(telling(float(x))) for x in settled(array)]
    return [f for f in forms if f]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The wheel's and the sdist's text files, each joined into one string."""
    out = tmp_path_factory.mktemp("dist")
    builder = out / "builder"  # the backend pyproject.toml asks for, as pip's isolation gets it
    subprocess.run([sys.executable, "-m", "venv", str(builder)], check=True)
    python = str(builder / "bin" / "python")
    install = subprocess.run([python, "-m", "pip", "install", "--quiet", "setuptools>=77",
                              "wheel"], capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-3000:]
    script = ("from setuptools import build_meta as b; "
              f"b.build_wheel({str(out)!r}); b.build_sdist({str(out)!r})")
    run = subprocess.run([python, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    wheel = next(out.glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        wheel_text = {n: archive.read(n).decode("utf-8", "replace") for n in archive.namelist()}
    with tarfile.open(next(out.glob("*.tar.gz"))) as archive:
        sdist_text = {m.name: archive.extractfile(m).read().decode("utf-8", "replace")
                      for m in archive.getmembers() if m.isfile()}
    return {"wheel": wheel_text, "sdist": sdist_text}


def test_the_packages_hold_no_key_and_no_answer_computation(built: dict) -> None:
    for name, files in built.items():
        assert not [f for f in files if "answer_key" in f], name
        text = "\n".join(files.values())
        assert "EXPECTED" not in text and ".posenc_answer_key.json\"" not in text.replace(
            'KEY_FILE = ".posenc_answer_key.json"', "")


@pytest.mark.parametrize("package", ["wheel", "sdist"])
def test_no_graded_answer_is_in_the_package(built: dict, package: str) -> None:
    sources = {n: t for n, t in built[package].items()
               if n.endswith(".py") or (n.endswith((".json", ".toml")) and "/exercises/" in n)}
    assert [n for n in sources if n.endswith("exercises/_data.json")]  # the stored inputs too
    # the exercises' prose (titles, hints), which an installed copy reads, and searched too
    prose = sorted(p.name for p in (ROOT / "posenc_lib" / "exercises" / "prose").glob("*.toml"))
    assert sorted(n.rsplit("/", 1)[1] for n in sources if "/exercises/prose/" in n) == prose
    assert len([n for n in sources if "/exercises/nb" in n]) >= 11
    leaks: dict[str, list[str]] = {}
    for name, text in sources.items():
        # a detector's options are the library's own names (rope_type "llama3", pairing
        # "half"): its right choice is searched for in the exercise modules only
        module = "/exercises/" in name
        composite = composite_found_in(text) if module and name.endswith(".py") else set()
        for key in found_in(text, choices=module) | composite:
            leaks.setdefault(key, []).append(name)
    assert set(leaks) == OPEN_LEAKS["wheel"], leaks


def release_of(path: Path, course: Path) -> nbformat.NotebookNode:
    """The release of ``path`` made by nbgrader's generate_assignment preprocessors."""
    from nbgrader.preprocessors import ClearHiddenTests, ClearOutput, ClearSolutions

    build_nbgrader.build(course, [path], SEED)
    notebook = nbformat.read(course / "source" / path.stem / path.name, as_version=4)
    for preprocessor in (ClearSolutions(code_stub={"python": build_nbgrader.CODE_STUB}),
                         ClearHiddenTests(), ClearOutput()):
        notebook, _ = preprocessor.preprocess(notebook, {})
    return notebook


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_graded_answer_is_in_the_release(tmp_path: Path, path: Path) -> None:
    release = release_of(path, tmp_path)
    code = without_comments("\n".join(c.source for c in release.cells if c.cell_type == "code"))
    prose = "\n".join(c.source for c in release.cells if c.cell_type == "markdown")
    assert "HIDDEN TESTS" not in code and "reference=" not in code
    keys = set(exercise_cells(path))
    graded = [c.source for c in release.cells
              if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("ex")]
    leaks = (found_in(code, choices=False) | found_in(without_comments("\n".join(graded)))
             | found_in(prose.replace("'", "").replace('"', "")))
    assert leaks & keys == OPEN_LEAKS["release"] & keys, leaks & keys
    # the answers for the values the release poses (tools.variants) are not in it either: a
    # drawn detector's choice not in the graded cells and not in the setup cell that poses it
    drawn = {key: answer_for(key, draw(SEED, key)) for key in keys & set(VARIANTS)}
    setup = without_comments(next(c.source for c in release.cells if c.cell_type == "code"))
    assert not (found_in(code, choices=False, answers=drawn) | found_in(setup, answers=drawn)
                | found_in(without_comments("\n".join(graded)), answers=drawn)), drawn


def test_the_search_finds_an_answer_where_one_is_written() -> None:
    """The search can fail: each kind of answer is found where it is written."""
    key = "06.llama3_bands"
    assert found_in(f"_BANDS = {tuple(float(x) for x in ANSWERS[key])}") == {key}
    which = ANSWERS["06.which_scaling"]
    assert "06.which_scaling" in found_in(f"choice = {which[0]!r}")
    slow = [float(x) for x in ANSWERS["02.slow_pair"]]
    assert "02.slow_pair" in found_in(f"x = {slow[0]:.4g}, {slow[1]!r}")
    assert "02.slow_pair" not in found_in(f"x = {slow[0] * 1.001:.4g}")
    assert all_exercises()["06.which_scaling"].kind == "detector"


def test_the_search_finds_a_choice_built_from_two_constants() -> None:
    """The way nb02 held 02.checkpoint_layout's choice before issue 33: two constants that an
    f-string joined."""
    layout, spacing = ANSWERS["02.checkpoint_layout"][0].split("-")
    old = (f"_LAYOUT, _SPACING = {layout!r}, {spacing!r}\n"
           "def _label(a, b):\n    return f'{a}-{b}'\n")
    assert "02.checkpoint_layout" not in found_in(old)  # the literal search misses it
    assert composite_found_in(old) == {"02.checkpoint_layout"}
    swapped = f"_A = {layout!r}\n_B = ('paper', 'concat', {spacing!r})\n"
    assert composite_found_in(swapped) == set()  # options listed apart spell nothing

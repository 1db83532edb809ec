"""Exercises as a learner meets them: the answer is nowhere on the page above, no earlier cell
solves the exercise under another name, the difficulty is marked, and the solutions are only in
the source notebooks (not in posenc_lib).

"The page above" is what a learner sees before the exercise in a student copy: every cell above
the exercise's stub except the solution cells, with the stored outputs.
"""

from __future__ import annotations

import io
import math
import re
import tokenize
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from posenc_lib.exercises import all_exercises
from tools.notebook_cells import NOTEBOOKS, ROOT, exercise_cells, load, solution_code, source, tags

EXERCISES = all_exercises()
CELLS = {key: (path, where) for path in NOTEBOOKS for key, where in exercise_cells(path).items()}
KEYS = sorted(CELLS)
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
HEADING = re.compile(
    r"\*\*Exercise \d+ \((warm-up|core|challenge), "
    r"(prediction|derivation|detector|construction|explanation)\)"
)


def output_text(output: dict[str, Any]) -> str:
    parts = [output.get("text", "")]
    for mime, value in output.get("data", {}).items():
        if mime.startswith("text/"):
            parts.append(value)
    return "".join("".join(p) if isinstance(p, list) else p for p in parts)


def page_above(path: Path, stub: int) -> tuple[str, list[str]]:
    """The text a learner sees above the stub (markdown, code and outputs) and the code cells."""
    cells = [c for c in load(path)["cells"][:stub] if "solution" not in tags(c)]
    code = [source(c) for c in cells if c["cell_type"] == "code"]
    text = "\n".join(
        [source(c) for c in cells] + [output_text(o) for c in cells for o in c.get("outputs", [])]
    )
    return text, code


def significant_digits(token: str) -> int:
    mantissa = re.split(r"[eE]", token.lstrip("-"))[0].replace(".", "").lstrip("0")
    return len(mantissa)


def shows(token: str, value: float) -> bool:
    """Whether ``token`` is ``value`` written with the token's own number of decimals."""
    number = float(token)
    if "." not in token and "e" not in token.lower():
        return number == value and abs(value) >= 10  # small whole numbers are everywhere
    if significant_digits(token) < 3:
        return False  # 0.5 or 0.37 says too little to count as the answer
    decimals = len(re.split(r"[eE]", token)[0].split(".")[1]) if "." in token else 0
    exponent = int(re.split(r"[eE]", token)[1]) if re.search(r"[eE]", token) else 0
    half_unit = 0.5 * 10.0 ** (exponent - decimals)
    return abs(number - value) <= half_unit * (1 + 1e-9) and value != 0


def telling_entries(expected: Any) -> list[float]:
    """The entries of the answer worth searching for: not whole numbers, not 0 or 1."""
    if isinstance(expected, tuple) and isinstance(expected[0], str):
        return telling_entries(expected[1])  # a detector's choice: search for its evidence
    if isinstance(expected, (bool, np.bool_, str, set, frozenset)):
        return []  # a choice: nothing to search for
    values = np.asarray(expected, dtype=float).ravel()
    if values.size == 1:
        return [float(values[0])] if math.isfinite(values[0]) else []
    telling = [float(v) for v in values if math.isfinite(v) and abs(v - round(v)) > 1e-9]
    if not telling:
        return []
    picks = np.linspace(0, len(telling) - 1, num=min(5, len(telling))).round().astype(int)
    return [telling[i] for i in sorted(set(picks))]


def answer_on_page(expected: Any, text: str) -> list[float]:
    """The searched entries of the answer that appear in ``text``, if all of them do."""
    entries = telling_entries(expected)
    tokens = NUMBER.findall(text)
    found = [v for v in entries if any(shows(t, v) for t in tokens)]
    return found if entries and len(found) == len(entries) else []


def code_shape(line: str) -> str:
    """A line of code with every name replaced by N: the same computation under other names."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return line.strip()
    kept = [
        "N"
        if t.type == tokenize.NAME and t.string not in {"def", "return", "for", "in"}
        else t.string
        for t in tokens
        if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER)
    ]
    return " ".join(kept)


def telling_lines(code: str) -> list[str]:
    """Lines of a solution that say something: not imports, comments, markers or short lines."""
    lines = []
    for raw in code.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "import ", "from ", "return ", "def ")):
            continue
        if len(line) >= 16:
            lines.append(line)
    return lines


@pytest.mark.parametrize("key", KEYS)
def test_the_answer_is_not_on_the_page_above(key: str) -> None:
    path, where = CELLS[key]
    text, _ = page_above(path, where.stub)
    found = answer_on_page(EXERCISES[key]._expected(), text)
    assert not found, f"{key}: the answer ({found}) is printed above the exercise in {path.name}"


@pytest.mark.parametrize("key", KEYS)
def test_no_cell_above_solves_it(key: str) -> None:
    path, where = CELLS[key]
    _, code = page_above(path, where.stub)
    above = {line.strip() for cell in code for line in cell.splitlines()}
    shapes = {code_shape(line) for line in above if len(line) >= 16}
    lines = telling_lines(solution_code(path, where.solution))
    copied = [line for line in lines if line in above]
    assert not copied, f"{key}: solution lines already on the page: {copied}"
    renamed = [line for line in lines if len(line) >= 30 and code_shape(line) in shapes]
    assert len(renamed) < 2, f"{key}: an earlier cell does the same under other names: {renamed}"


@pytest.mark.parametrize("key", KEYS)
def test_prompt_marks_difficulty_and_kind(key: str) -> None:
    path, where = CELLS[key]
    prompt = source(load(path)["cells"][where.prompt])
    match = HEADING.search(prompt)
    assert match, f"{key}: the prompt does not start with **Exercise N (level, kind)"
    assert match.groups() == (EXERCISES[key].level, EXERCISES[key].kind), key


def test_fifty_exercises_three_to_six_per_notebook() -> None:
    per_notebook = Counter(key.split(".")[0] for key in CELLS)
    assert len(CELLS) >= 50, f"{len(CELLS)} exercises"
    assert {nb: n for nb, n in per_notebook.items() if not 3 <= n <= 6} == {}
    assert set(per_notebook) == {p.name[:2] for p in NOTEBOOKS}


def test_every_level_and_every_kind_is_used() -> None:
    assert {e.level for e in EXERCISES.values()} == {"warm-up", "core", "challenge"}
    assert {e.kind for e in EXERCISES.values()} == {
        "prediction", "derivation", "detector", "construction", "explanation"
    }  # fmt: skip


def library_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "posenc_lib").rglob("*.py"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_no_solution_line_is_in_the_library(path: Path) -> None:
    library = {line.strip() for line in library_text().splitlines()}
    public = {
        line.strip()
        for c in load(path)["cells"]
        if "solution" not in tags(c)
        for line in source(c).splitlines()
    }
    for where in exercise_cells(path).values():
        for line in telling_lines(solution_code(path, where.solution)):
            if len(line) >= 20 and line not in public:
                assert line not in library, f"{path.name}: solution line in posenc_lib: {line}"


# --- the search itself -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "found"),
    [
        ("n_pairs: 25", 25, True),
        ("cell 25 of 43", 43.0, True),
        ("ratio 0.370786 at k = 5", 0.3707861, True),
        ("ratio 0.3708", 0.3707861, True),
        ("ratio 0.37", 0.3707861, False),  # two digits say too little
        ("ratio 0.3709", 0.3707861, False),
        ("value 3", 3, False),  # small whole numbers are not searched
        ("1.234e-05", 1.2341e-5, True),
    ],
)
def test_answer_search(text: str, value: float, found: bool) -> None:
    assert bool(answer_on_page(value, text)) is found


def test_array_answers_are_found_only_when_all_searched_entries_are_shown() -> None:
    answer = np.array([0.1234, 0.5678, 1.0, 2.3456])
    assert answer_on_page(answer, "0.1234 0.5678 2.3456")
    assert not answer_on_page(answer, "0.1234 0.5678")


def test_renamed_code_has_the_same_shape() -> None:
    assert code_shape("out[..., 0::2] = x_even * cos - x_odd * sin") == code_shape(
        "y[..., 0::2] = a * c - b * s"
    )
    assert code_shape("pe = a + b") != code_shape("pe = a * b")


def test_instructors_guide_lists_every_exercise_as_the_tool_builds_it() -> None:
    from tools import instructors_table

    text = instructors_table.GUIDE.read_text(encoding="utf-8")
    assert instructors_table.embedded(text) == text, "run tools/instructors_table.py --write"


def test_instructors_overview_lists_each_notebooks_current_exercises() -> None:
    from tools import instructors_table

    rows = [
        line.split(" | ")
        for line in instructors_table.GUIDE.read_text(encoding="utf-8").splitlines()
        if re.match(r"\| \d\d [A-Z]", line) and " min | " in line
    ]
    assert len(rows) == len(NOTEBOOKS)
    for cells in rows:
        listed = re.findall(r"\d\d\.\w+", cells[3])
        number = cells[0][2:4]
        assert listed == [k for k in EXERCISES if k.startswith(f"{number}.")], cells[0]

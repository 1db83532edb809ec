"""Reading the course notebooks: cells, tags, and where each exercise's cells are.

Used by the build tools (student copies, nbgrader) and by the tests.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from posenc_lib.exercises._core import SOLUTION_MARKER

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

BEGIN, END = SOLUTION_MARKER, "### END SOLUTION"


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def source(cell: dict[str, Any]) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def tags(cell: dict[str, Any]) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def solution_blocks(path: Path) -> list[str]:
    """The code between the solution markers of every cell tagged ``solution``."""
    blocks = []
    for cell in load(path)["cells"]:
        if "solution" in tags(cell):
            match = re.search(re.escape(BEGIN) + r"\n(.*?)\n?" + re.escape(END), source(cell), re.S)
            if match:
                blocks.append(match.group(1).strip())
    return blocks


REMOVED_FOR_STUDENTS = frozenset({"solution", "source-only", "reveal"})
"""Cell tags the student copies, the student site and the nbgrader release leave out: solution
cells, the note for learners studying alone, and ``reveal`` cells, which compute an exercise's
answer right after its check (the source notebook shows them once the exercise is done)."""

CHECK_CALL = re.compile(r"\b(nb(\d\d)\.(\w+))\.check\(")
"""A check cell calls ``nbNN.<name>.check(``: group 1 ``nbNN.<name>``, 2 ``NN``, 3 ``<name>``."""

STEP_CHECK = re.compile(r"\bnb\d\d\.steps\.\w+\.check\(")
"""A build step's check cell calls ``nbNN.steps.<name>.check(``."""


@dataclass(frozen=True)
class ExerciseCells:
    """Where one exercise sits in its source notebook: prompt, stub, solution and check cells."""

    key: str
    prompt: int
    stub: int
    solution: int
    check: int


def exercise_cells(path: Path) -> dict[str, ExerciseCells]:
    """Every exercise of a notebook by key ("02.full_turns"), found from its check cell.

    The check cell calls ``nbNN.<name>.check(``; the solution cell is the nearest cell tagged
    ``solution`` above it, the stub the nearest cell tagged ``exercise`` above that, and the
    prompt the nearest markdown cell above the stub.
    """
    cells = load(path)["cells"]
    found: dict[str, ExerciseCells] = {}
    for index, cell in enumerate(cells):
        match = CHECK_CALL.search(source(cell)) if cell["cell_type"] == "code" else None
        if match is None or "solution" in tags(cell):
            continue
        solution = max(i for i in range(index) if "solution" in tags(cells[i]))
        stub = max(i for i in range(solution) if "exercise" in tags(cells[i]))
        prompt = max(i for i in range(stub) if cells[i]["cell_type"] == "markdown")
        key = f"{match.group(2)}.{match.group(3)}"
        found[key] = ExerciseCells(key, prompt, stub, solution, index)
    return found


def solution_code(path: Path, cell_index: int) -> str:
    """The code between the solution markers of one solution cell."""
    text = source(load(path)["cells"][cell_index])
    match = re.search(re.escape(BEGIN) + r"\n(.*?)\n?" + re.escape(END), text, re.S)
    assert match, f"{path.name} cell {cell_index} has no solution markers"
    return match.group(1)

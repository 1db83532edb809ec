"""Your code, your picture (issue 45 item 2), in fresh student copies (tools/build_student.py):
each notebook of NOTEBOOK_STEPS runs three times, with its stubs blank (as shipped), filled
with the source's solutions, and filled with the solutions nudged (their results times 1.01).

- For every step, the nudged run changes a picture on the main path at or after its check cell,
  in a cell that shows the adopted function's result ("picture"), or prints yours beside the
  library's ("print"), compared with the run of the right solutions.
- The blank run draws exactly the pictures of the right run, prints nothing of "yours", and
  raises nowhere.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from tests.build_step_checks import (
    NOTEBOOK_STEPS,
    NUDGE,
    adopted_name,
    check_cell_index,
    notebook_path,
    solution_of,
    step_cell_indices,
    the_step,
)
from tools.notebook_cells import ROOT, load

VARIANTS = ("blank", "right", "nudged")
_NUDGE_CODE = """
import numpy as _np_nudge


def _nudged_{name}(*args, **kwargs):  # the right result, times {factor}
    return {factor} * _np_nudge.asarray(_right_{name}(*args, **kwargs), dtype=float)


_right_{name}, {name} = {name}, _nudged_{name}
"""


def _filled(student: Path, number: str, variant: str) -> nbformat.NotebookNode:
    """The student copy with each step's stub replaced by the source's solution (nudged)."""
    book = nbformat.read(student, as_version=4)
    if variant == "blank":
        return book
    source_cells = load(notebook_path(number))["cells"]
    by_stub: dict[int, list[Any]] = {}  # a stub cell may hold two steps' stubs (06: PI, NTK)
    for key, _ in NOTEBOOK_STEPS[number]:
        step = the_step(key)
        by_stub.setdefault(step_cell_indices(book.cells, step)[0], []).append(step)
    for stub, steps in by_stub.items():
        code = solution_of(source_cells, steps[0])  # the one solution cell of that stub cell
        if variant == "nudged":
            code += "".join(_NUDGE_CODE.format(name=step.answer_name, factor=NUDGE)
                            for step in steps)
        book.cells[stub].source = code
    return book


def _main_end(cells: list[Any]) -> int:
    return next(i for i, c in enumerate(cells)
                if c.cell_type == "markdown" and c.source.startswith(("## Going further",
                                                                      "## Exercises")))


@pytest.fixture(scope="module", params=list(NOTEBOOK_STEPS))
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> tuple[str, dict[str, nbformat.NotebookNode]]:
    """One notebook's student copy, executed blank, right and nudged."""
    number = request.param
    folder = tmp_path_factory.mktemp(f"student{number}")
    subprocess.run([sys.executable, str(ROOT / "tools" / "build_student.py"), "--out",
                    str(folder), str(notebook_path(number))], check=True, cwd=ROOT,
                   capture_output=True)
    student = folder / notebook_path(number).name
    env = {"POSENC_PROGRESS_FILE": str(folder / "progress.json"), "OPENBLAS_NUM_THREADS": "1"}
    done = {}
    for variant in VARIANTS:
        book = _filled(student, number, variant)
        previous = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            NotebookClient(book, timeout=300, kernel_name="python3", allow_errors=True,
                           resources={"metadata": {"path": str(folder)}}).execute()
        finally:
            for k, v in previous.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
        done[variant] = book
    return number, done


def _pngs(cell: Any) -> list[str]:
    return [o["data"]["image/png"] for o in cell.get("outputs", [])
            if "image/png" in o.get("data", {})]


def _text(cell: Any) -> str:
    return "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                   for o in cell.get("outputs", []))


def _errors(book: nbformat.NotebookNode) -> list[str]:
    end = _main_end(book.cells)
    return [f"cell {i}: {o.get('ename')}" for i, c in enumerate(book.cells[:end])
            if c.cell_type == "code" and "raises-exception" not in c.metadata.get("tags", [])
            for o in c.get("outputs", []) if o.get("output_type") == "error"]


def test_every_step_shows_a_nudged_result_beside_the_library(runs) -> None:
    number, done = runs
    right, nudged = done["right"].cells, done["nudged"].cells
    assert not _errors(done["right"]) and not _errors(done["nudged"])
    end = _main_end(right)
    for key, shows in NOTEBOOK_STEPS[number]:
        step = the_step(key)
        check = check_cell_index(right, step)
        name = adopted_name(right, step)
        assert "the cells below use yours" in _text(right[check]), key
        assert "differ for" in _text(nudged[check]), key
        uses = [i for i in range(check, end) if right[i].cell_type == "code"
                and re.search(rf"\b{name}\b", right[i].source.split(f"{name} = ", 1)[-1])]
        if shows == "picture":
            changed = [i for i in uses if _pngs(nudged[i]) != _pngs(right[i])]
            assert changed, f"{key}: no picture after the check changes when yours is wrong"
            assert any(len(_pngs(nudged[i])) > len(_pngs(right[i])) for i in changed), key
        else:
            printed = [i for i in uses if "yours:" in _text(nudged[i])
                       and "posenc_lib:" in _text(nudged[i]) and "yours:" not in _text(right[i])]
            assert printed, f"{key}: nothing after the check prints yours beside posenc_lib's"


def test_a_blank_stub_draws_nothing_extra_and_runs_as_today(runs) -> None:
    number, done = runs
    blank, right = done["blank"].cells, done["right"].cells
    assert not _errors(done["blank"])
    assert len(blank) == len(right)
    end = _main_end(blank)
    for i in range(end):
        assert len(_pngs(blank[i])) == len(_pngs(right[i])), f"{number} cell {i}"
        assert "yours:" not in _text(blank[i]) and "differ for" not in _text(blank[i]), i
    for key, _ in NOTEBOOK_STEPS[number]:
        check = check_cell_index(blank, the_step(key))
        assert "not written yet" in _text(blank[check]), key

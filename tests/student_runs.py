"""Fresh student copies of 00-09 run as a learner pressing Run All would, each run made once per
pytest session and shared by the tests that read it (test_reveals_wait.py,
test_build_steps_pictures.py and test_classroom.py), in this process and across pytest-xdist's
workers.

A run is (notebook, stubs, guesses):
- stubs "blank" leaves the build-step stubs as shipped; "right" fills them with the source's
  solutions; "nudged" with the solutions' results times NUDGE (build_step_checks.py);
- guesses "none" leaves every guess of a reveal at None; "skip" sets each to "skip".

Three runs serve all three: (blank, none) is the copy as built, where every reveal must stay
hidden, every stub draws nothing of its own and no cell but a stub raises; (right, skip) and
(nudged, skip) show every reveal, and differ only in the learner's functions.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from tests.build_step_checks import NOTEBOOK_STEPS, NUDGE, notebook_path, solution_of, the_step
from tests.build_step_checks import step_cell_indices as _step_cells
from tools import build_student
from tools.notebook_cells import load

_NUDGE_CODE = """
import numpy as _np_nudge


def _nudged_{name}(*args, **kwargs):  # the right result, times {factor}
    return {factor} * _np_nudge.asarray(_right_{name}(*args, **kwargs), dtype=float)


_right_{name}, {name} = {name}, _nudged_{name}
"""

_DONE: dict[tuple[str, str, str], tuple[nbformat.NotebookNode, dict | None]] = {}


def reveals(book: Any) -> list[tuple[int, str]]:
    """(index, guess name) of every cell of a student copy that starts with the magic."""
    found = []
    for index, cell in enumerate(book.cells):
        match = re.match(r"%%after_guess (\w+)\n", cell.source)
        if cell.cell_type == "code" and match:
            found.append((index, match.group(1)))
    return found


def _filled(book: nbformat.NotebookNode, number: str, stubs: str) -> None:
    """Replace each step's stub cell with the source's solution (nudged), in place."""
    if stubs == "blank":
        return
    source_cells = load(notebook_path(number))["cells"]
    by_stub: dict[int, list[Any]] = {}  # a stub cell may hold two steps' stubs (06: PI, NTK)
    for key, _ in NOTEBOOK_STEPS.get(number, ()):
        step = the_step(key)
        by_stub.setdefault(_step_cells(book.cells, step)[0], []).append(step)
    for stub, steps in by_stub.items():
        code = solution_of(source_cells, steps[0])  # the one solution cell of that stub cell
        if stubs == "nudged":
            code += "".join(_NUDGE_CODE.format(name=step.answer_name, factor=NUDGE)
                            for step in steps)
        book.cells[stub].source = code


def _skipping(book: nbformat.NotebookNode) -> None:
    """Set the guess of every reveal to "skip" in the cell above it, in place."""
    for index, name in reveals(book):
        guess = book.cells[index - 1]
        guess.source, n = re.subn(rf"^{name} = None", f'{name} = "skip"', guess.source, flags=re.M)
        assert n == 1, f"the cell above reveal {index} sets {name} = None"


def _execute(number: str, stubs: str, guesses: str, folder: Path
             ) -> tuple[nbformat.NotebookNode, dict | None]:
    book = build_student.student_copy(nbformat.read(notebook_path(number), as_version=4))
    _filled(book, number, stubs)
    if guesses == "skip":
        _skipping(book)
    record = folder / "progress.json"
    env = {"POSENC_PROGRESS_FILE": str(record), "OPENBLAS_NUM_THREADS": "1"}
    previous = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        NotebookClient(book, timeout=300, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(folder)}}).execute()
    finally:
        for k, v in previous.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    return book, (json.loads(record.read_text(encoding="utf-8")) if record.exists() else None)


def _shared_folder(factory: pytest.TempPathFactory) -> Path:
    """A folder of this session that every xdist worker sees (each has its own basetemp)."""
    base = factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "student_runs"


def student_run(number: str, stubs: str, guesses: str, factory: pytest.TempPathFactory
                ) -> tuple[nbformat.NotebookNode, dict | None]:
    """The executed student copy of notebook ``number`` and the progress record the run wrote
    (None when it wrote none); made once per session, whichever test or worker asks first."""
    key = (number, stubs, guesses)
    if key in _DONE:
        return nbformat.from_dict(json.loads(json.dumps(_DONE[key][0]))), _DONE[key][1]
    folder = _shared_folder(factory) / "-".join(key)
    folder.mkdir(parents=True, exist_ok=True)
    done = folder / "done.json"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker making this run: wait for it
        if not done.exists():
            book, record = _execute(number, stubs, guesses, folder)
            done.write_text(json.dumps({"notebook": book, "record": record}), encoding="utf-8")
    saved = json.loads(done.read_text(encoding="utf-8"))
    _DONE[key] = (nbformat.from_dict(saved["notebook"]), saved["record"])
    return nbformat.from_dict(saved["notebook"]), saved["record"]

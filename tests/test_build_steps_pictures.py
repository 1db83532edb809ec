"""Your code, your picture (issue 45 item 2), in fresh student copies (tools/build_student.py):
each notebook of NOTEBOOK_STEPS runs three times (tests/student_runs.py), with its stubs blank
(as shipped), filled with the source's solutions, and filled with the solutions nudged (their
results times 1.01); the last two with every reveal's guess set to "skip".

- For every step, the nudged run changes a picture on the main path at or after its check cell,
  in a cell that shows the adopted function's result ("picture"), or prints yours beside the
  library's ("print"), compared with the run of the right solutions.
- The blank run draws exactly the pictures of the right run outside the reveals (which it
  hides), prints nothing of "yours", and raises nowhere.
"""

from __future__ import annotations

import re
from typing import Any

import nbformat
import pytest

from tests.build_step_checks import NOTEBOOK_STEPS, adopted_name, check_cell_index, the_step
from tests.student_runs import reveals, student_run

RUNS = {"blank": ("blank", "none"), "right": ("right", "skip"), "nudged": ("nudged", "skip")}
"""Each variant's (stubs, guesses) run of tests/student_runs.py: the right and nudged runs show
every reveal (their guesses say "skip"), and test_reveals_wait.py reads the same runs."""


def _main_end(cells: list[Any]) -> int:
    return next(i for i, c in enumerate(cells)
                if c.cell_type == "markdown" and c.source.startswith(("## Going further",
                                                                      "## Exercises")))


@pytest.fixture(scope="module", params=list(NOTEBOOK_STEPS))
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> tuple[str, dict[str, nbformat.NotebookNode]]:
    """One notebook's student copy, executed blank, right and nudged."""
    number = request.param
    return number, {variant: student_run(number, *run, tmp_path_factory)[0]
                    for variant, run in RUNS.items()}


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
    # a reveal shows nothing before its guess (test_reveals_wait.py), the right run's every one
    hidden = {index for index, _ in reveals(done["blank"])}
    for i in range(end):
        if i not in hidden:
            assert len(_pngs(blank[i])) == len(_pngs(right[i])), f"{number} cell {i}"
        assert "yours:" not in _text(blank[i]) and "differ for" not in _text(blank[i]), i
    for key, _ in NOTEBOOK_STEPS[number]:
        check = check_cell_index(blank, the_step(key))
        assert "not written yet" in _text(blank[check]), key

"""Every explorer's text fits at its extreme control values, driven in a real browser (issue 25).

A notebook written for the test shows each explorer of ``posenc_lib.widgets.EXPLORERS`` in its
own cell, with a label under it. Each time a control's value changes, the kernel runs the
headless check of tests/explorer_layout.py (copied next to the notebook) on the picture the
explorer just rendered, and writes into the label how many pictures it checked and what did not
fit: an axis label, tick label, title or legend outside the figure, two texts overlapping, a
legend over the data. The browser moves every slider to its minimum and then its maximum (Home,
End), picks every option of every dropdown and toggles every checkbox, as a learner would, and
reads the labels.

Every explorer is asserted. Notebook 05's label also carries its legend's text, which must read
"q = k = (1, ..., 1)" (the stamp canvas once drew the "=" as a minus).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from e2e_course import REPO
from e2e_notebook import (
    _SCROLL_TO_CELL_JS,
    _poll,
    cell_locator,
    open_notebook,
    run_all_from_menu,
    screenshot,
    wait_for_explorers,
    wait_until_run_finished,
)
from e2e_server import LabServer, shutdown_session

pytestmark = pytest.mark.e2e

FOLDER = "text_checks"
NOTEBOOK = "explorer_extremes.ipynb"
CHECK_TIMEOUT = 60.0

SETUP = '''import ipywidgets
from IPython.display import display

from explorer_layout import text_problems
from posenc_lib.widgets import EXPLORERS


def watch(cls):
    """Show an explorer and a label that reports the text check of every picture it renders."""
    explorer = cls()
    label = ipywidgets.Label(value=f"{cls.__name__}: legend []; 0 checked; problems: none")
    label.add_class("e2e-text-check")
    found = []

    def check(change):
        found.append(text_problems(explorer))
        problems = sorted({p for ps in found for p in ps})
        legends = [t.get_text() for ax in explorer.figure.axes
                   if ax.get_legend() is not None for t in ax.get_legend().get_texts()]
        label.value = (f"{cls.__name__}: legend [{' | '.join(legends)}]; {len(found)} checked; "
                       + "problems: " + ("; ".join(problems[:4]) if problems else "none"))

    for control in explorer.controls.values():
        control.observe(check, names="value")  # after the explorer's own render
    display(explorer.widget(), label)
'''


def write_notebook(root: Path, n_explorers: int) -> str:
    """The test notebook and the headless check, in ``root/FOLDER``; its server path."""
    folder = root / FOLDER
    folder.mkdir(exist_ok=True)
    shutil.copy(REPO / "tests" / "explorer_layout.py", folder / "explorer_layout.py")
    sources = [SETUP] + [f"watch(EXPLORERS[{i}])" for i in range(n_explorers)]
    cells = [
        {"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
         "execution_count": None}
        for source in sources
    ]
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (folder / NOTEBOOK).write_text(json.dumps(notebook, indent=1) + "\n")
    return f"{FOLDER}/{NOTEBOOK}"


def _checked(cell: Any) -> tuple[int, str]:
    text = cell.locator(".e2e-text-check").first.text_content() or ""
    match = re.search(r"(\d+) checked", text)
    return (int(match.group(1)) if match else -1), text


def _await_check(page: Any, cell: Any, before: int, what: str) -> None:
    _poll(page, f"the text check after {what}", CHECK_TIMEOUT,
          lambda: _checked(cell)[0] > before)


def drive_to_extremes(page: Any, cell: Any) -> int:
    """Move every control of the explorer in ``cell`` to its extremes; return the changes made."""
    changes = 0
    handles = cell.locator(".widget-slider .noUi-handle")
    for key in ("Home", "End"):
        for number in range(handles.count()):
            handle = handles.nth(number)
            before, count = handle.get_attribute("aria-valuenow"), _checked(cell)[0]
            handle.scroll_into_view_if_needed()
            handle.focus()
            page.keyboard.press(key)
            if handle.get_attribute("aria-valuenow") != before:
                _await_check(page, cell, count, f"{key} on slider {number}")
                changes += 1
    selects = cell.locator(".widget-dropdown select")
    for number in range(selects.count()):
        select = selects.nth(number)
        options = select.evaluate("(s) => Array.from(s.options, (o) => o.value)")
        for option in options:
            if option == select.input_value():
                continue
            count = _checked(cell)[0]
            select.select_option(option)
            _await_check(page, cell, count, f"option {option!r} of dropdown {number}")
            changes += 1
    boxes = cell.locator(".widget-checkbox input[type=checkbox]")
    for number in range(boxes.count()):
        for _ in range(2):
            count = _checked(cell)[0]
            boxes.nth(number).click()
            _await_check(page, cell, count, f"checkbox {number}")
            changes += 1
    return changes


def test_explorer_text_fits_at_the_extreme_control_values(
    course_copy: Path, lab_server: LabServer, lab_page: tuple[Any, list[str]], e2e_output: Path
) -> None:
    from posenc_lib.widgets import EXPLORERS

    page, _ = lab_page
    path = write_notebook(course_copy, len(EXPLORERS))
    results: dict[str, tuple[int, str]] = {}
    try:
        open_notebook(page, lab_server.url, path)
        run_all_from_menu(page)
        state = wait_until_run_finished(page, path)
        errors = [o for c in state["cells"] for o in c.get("outputs", [])
                  if o["output_type"] == "error"]
        assert not errors, errors
        for index, cls in enumerate(EXPLORERS, start=1):
            page.evaluate(_SCROLL_TO_CELL_JS, [path, index])
            wait_for_explorers(page, [index])
            cell = cell_locator(page, index)
            changes = drive_to_extremes(page, cell)
            results[cls.__name__] = (changes, _checked(cell)[1])
            print(f"{cls.__name__}: {changes} control changes; {results[cls.__name__][1]}")
        screenshot(page, e2e_output / "explorer_extremes.png", len(EXPLORERS))
    finally:
        try:
            shutdown_session(lab_server, path)
        except OSError:
            pass
    for name, (changes, text) in results.items():
        assert changes >= 1, f"{name}: the browser changed no control value"
        assert text.endswith("problems: none"), text
    # notebook 05's legend reads "=" (the label shows it as MathJax typesets it: "q=k=(1,…,1)")
    rope = results["RopeScoreExplorer"][1]
    assert "q=k=(1," in rope.replace(" ", ""), rope

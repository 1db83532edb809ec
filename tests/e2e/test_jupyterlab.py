"""The course in a real JupyterLab, in a real browser, as a learner uses it (issue 7).

For every notebook: open it, wait for an idle kernel, Run > Run All Cells, check that no cell
shows an error and every cell ran (the copy ends at its last widget: nbval runs the rest), check
that every explorer shows its controls and a decoded PNG, press an arrow key on one slider handle
and check that the PNG changed, and save screenshots into build/e2e/. Browser console errors fail
the notebook's test and are listed in the report.

Marked ``e2e``: the default ``pytest`` run deselects it; ``make e2e`` runs it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from e2e_course import COURSE_DIR_NAME, NOTEBOOKS_DIR, STORED_DIR_NAME, course_notebooks
from e2e_notebook import (
    PIXEL_RATIO,
    WIDGET_VIEW,
    NotebookReport,
    cells_showing_explorers,
    dialog_text,
    explorer_cells,
    explorer_image_sizes,
    move_one_slider,
    open_notebook,
    run_all_from_menu,
    screenshot,
    stored_output,
    time_explorer_ticks,
    wait_for_explorers,
    wait_until_run_finished,
)
from e2e_server import LabServer, shutdown_session

pytestmark = pytest.mark.e2e

NOTEBOOKS = course_notebooks()


def test_course_has_notebooks() -> None:
    assert NOTEBOOKS, f"no NN_name.ipynb notebook in {NOTEBOOKS_DIR}"


def test_jupyterlab_opens_in_chromium(lab_server: LabServer, lab_page: tuple[Any, list]) -> None:
    """The server answers, the page loads, and no news or announcement is configured to pop up."""
    page, console = lab_page
    page.goto(f"{lab_server.url}/lab?reset", wait_until="domcontentloaded")
    page.wait_for_selector("#jp-main-dock-panel", timeout=90_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.started", timeout=90_000)
    config = page.evaluate(
        "() => JSON.parse(document.getElementById('jupyter-config-data').textContent)"
    )
    assert config["news"] == {"disabled": True}
    announcements = "@jupyterlab/apputils-extension:announcements"
    assert announcements in config["disabledExtensions"], config["disabledExtensions"]
    assert not page.evaluate("(id) => window.jupyterapp.hasPlugin(id)", announcements)
    version = page.evaluate("() => window.jupyterapp.version")
    assert version.startswith("4."), version
    assert page.locator(".jp-Notification-Toast-news, .Toastify__toast").count() == 0
    assert not console, "browser console errors:\n" + "\n".join(console)


def _record_outputs(report: NotebookReport, state: dict[str, Any]) -> None:
    code = [cell for cell in state["cells"] if cell["type"] == "code"]
    report.code_cells = len(code)
    report.executed_cells = sum(cell["executionCount"] is not None for cell in code)
    for cell in code:
        for output in cell["outputs"]:
            if output["output_type"] == "error":
                report.errors.append(f"cell {cell['index']}: {output['ename']}: {output['evalue']}")
                report.error_cells.append(cell["index"])
            elif output["output_type"] == "stream" and output["name"] == "stderr":
                report.stderr.append(f"cell {cell['index']}: {output['text']}")
        for text in cell["widgetErrors"]:
            report.errors.append(f"cell {cell['index']}: {text}")
            report.error_cells.append(cell["index"])


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_notebook_runs_and_its_explorers_respond(
    notebook: Path,
    lab_server: LabServer,
    lab_page: tuple[Any, list[str]],
    e2e_output: Path,
    e2e_reports: list[NotebookReport],
) -> None:
    page, console = lab_page
    path = f"{COURSE_DIR_NAME}/{notebook.name}"
    report = NotebookReport(notebook=notebook.name, explorer_cells=explorer_cells(notebook))
    e2e_reports.append(report)
    start = time.monotonic()
    try:
        open_notebook(page, lab_server.url, path)
        report.seconds["open"] = round(time.monotonic() - start, 1)

        run_all_from_menu(page)
        state = wait_until_run_finished(page, path)
        report.seconds["run_all"] = round(time.monotonic() - start - report.seconds["open"], 1)
        _record_outputs(report, state)
        assert not report.errors, "error outputs after Run All:\n" + "\n".join(report.errors)
        assert report.executed_cells == report.code_cells, (
            f"only {report.executed_cells} of {report.code_cells} code cells ran; "
            f"dialog: {dialog_text(page) or 'none'}"
        )

        views = wait_for_explorers(page, report.explorer_cells)
        # A cell showing an explorer without ending in `.widget()` is checked too.
        extra = sorted(set(cells_showing_explorers(page)) - set(report.explorer_cells))
        if extra:
            report.explorer_cells += extra
            views.update(wait_for_explorers(page, extra))
        report.explorers = [
            {"cell": index, **view} for index, cell_views in views.items() for view in cell_views
        ]
        first = report.explorer_cells[0] if report.explorer_cells else 0
        report.screenshots.append(screenshot(page, e2e_output / f"{notebook.stem}.png", first))

        if report.explorer_cells:
            report.slider = move_one_slider(page, report.explorer_cells)
            shot = e2e_output / f"{notebook.stem}.slider.png"
            report.screenshots.append(screenshot(page, shot, report.slider["cell"]))
            assert report.slider["png_after"]["png"], "the explorer's image is not a PNG"

            # sharp: every picture is shown at its PNG width / PIXEL_RATIO, not stretched
            report.sizes = explorer_image_sizes(page, report.explorer_cells)
            for size in report.sizes:
                wanted = min(size["natural"] / PIXEL_RATIO, size["available"])
                assert abs(size["shown"] - wanted) <= 1, f"image drawn at the wrong size: {size}"
            # fast: reported (print and report.json), never asserted
            report.ticks = time_explorer_ticks(page, report.explorer_cells)
            for tick in report.ticks:
                print(f"{notebook.name} cell {tick['cell']} {tick['control']}: median "
                      f"{tick['median_ms']} ms to the new src, {tick['median_decoded_ms']} ms "
                      f"decoded, over {tick['ticks']} key presses")

        page.wait_for_timeout(300)
        assert not console, "browser console errors:\n" + "\n".join(console)
    except BaseException as error:
        # Keep the message, not pytest's "assert ... where ..." explanation after it.
        message = str(error).split("\nassert ")[0]
        report.failure = f"{type(error).__name__}: {message}"[:2000]
        # Show the first cell with an error, else the explorer being checked.
        cells = report.error_cells or report.explorer_cells or [None]
        try:
            shot = e2e_output / f"{notebook.stem}.failed.png"
            report.screenshots.append(screenshot(page, shot, cells[0]))
        except Exception:  # the failure above is the one to report
            pass
        raise
    finally:
        report.console = list(console)
        report.seconds["total"] = round(time.monotonic() - start, 1)
        try:
            shutdown_session(lab_server, path)
        except OSError:
            pass


STORED_CHECKED = ["02_sinusoidal_formula.ipynb", "10_length_generalisation_lab.ipynb"]


@pytest.mark.parametrize("name", STORED_CHECKED)
def test_a_stored_notebook_shows_each_explorer_picture_before_it_runs(
    name: str, lab_server: LabServer, lab_page: tuple[Any, list[str]], e2e_output: Path
) -> None:
    """Opened as stored (not run, so not trusted): each explorer cell shows its PNG fallback,
    at its CSS width, and neither "VBox(children=..." nor a widget error."""
    page, _ = lab_page
    path = f"{STORED_DIR_NAME}/{name}"
    try:
        open_notebook(page, lab_server.url, path)
        stored = json.loads((NOTEBOOKS_DIR / name).read_text())["cells"]
        # explorers: a widget view with a PNG fallback (a progress bar has none)
        cells = [
            index
            for index, cell in enumerate(stored)
            for outputs in [cell.get("outputs", [])]
            if any({WIDGET_VIEW, "image/png"} <= set(o.get("data", {})) for o in outputs)
        ]
        assert cells, f"no stored widget output in {name}"
        for index in cells:
            seen = stored_output(page, path, index)
            assert "VBox(" not in seen["text"] and "Error" not in seen["text"], seen["text"]
            assert abs(seen["img"]["shown"] - seen["img"]["natural"] / PIXEL_RATIO) <= 1, seen
        screenshot(page, e2e_output / f"stored_{Path(name).stem}.png", cells[0])
    finally:
        try:
            shutdown_session(lab_server, path)
        except OSError:
            pass

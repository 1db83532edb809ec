"""Fixtures of the end-to-end test: a JupyterLab server, a headless Chromium, a report.

Run with ``make e2e`` (or ``bash tools/e2e_setup.sh && .venv/bin/pytest tests/e2e -m e2e -v``).

- ``lab_server``: JupyterLab from the project's venv, serving a temporary copy of notebooks/
  (outputs stripped), so the files in notebooks/ are never executed in place or saved.
- ``browser``: Debian's Chromium (/usr/bin/chromium, or $E2E_CHROMIUM) driven by Playwright
  through ``executable_path``; ``playwright install`` is never used.
- ``e2e_reports``: one row per notebook, written to build/e2e/report.json and report.md and
  printed at the end of the run.

If Chromium or the server cannot start, the tests fail (``pytest.fail``); they never skip.
Paths and their environment overrides are in e2e_course.py.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_course import (
    CHROMIUM,
    CHROMIUM_ARGS,
    COURSE_DIR_NAME,
    NOTEBOOKS_DIR,
    OUTPUT_DIR,
    REPO,
    STORED_DIR_NAME,
    VIEWPORT,
    course_notebooks,
)
from e2e_notebook import NotebookReport, copy_without_outputs
from e2e_server import (
    LabServer,
    LabServerError,
    port_was_taken,
    start_lab,
    stop_lab,
    wait_until_ready,
)

_REPORTS = pytest.StashKey[list[NotebookReport]]()
_TIMES = pytest.StashKey[dict[str, float]]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_TIMES] = {"start": time.monotonic()}


@pytest.fixture(scope="session")
def e2e_output() -> Path:
    """build/e2e/, emptied of the previous run's screenshots and reports."""
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    for old in (*OUTPUT_DIR.glob("*.png"), *OUTPUT_DIR.glob("report.*"), *OUTPUT_DIR.glob("*.log")):
        old.unlink()
    return OUTPUT_DIR


@pytest.fixture(scope="session")
def course_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary server root: notebooks/ (notebooks without outputs) and figures/, copied."""
    root = tmp_path_factory.mktemp("course")
    target = root / COURSE_DIR_NAME
    if NOTEBOOKS_DIR.is_dir():
        shutil.copytree(
            NOTEBOOKS_DIR,
            target,
            ignore=shutil.ignore_patterns(".ipynb_checkpoints", "*.ipynb", "__pycache__"),
        )
        for notebook in course_notebooks():
            copy_without_outputs(notebook, target / notebook.name)
        # the notebooks as stored, with their outputs: what a learner opens before running
        (root / STORED_DIR_NAME).mkdir()
        for notebook in course_notebooks():
            shutil.copy(notebook, root / STORED_DIR_NAME / notebook.name)
    else:
        target.mkdir()
    # The repository's figures/ beside it, so `../figures/...` links resolve as in the repo.
    if (REPO / "figures").is_dir():
        shutil.copytree(REPO / "figures", root / "figures")
    return root


@pytest.fixture(scope="session")
def lab_server(
    course_copy: Path,
    tmp_path_factory: pytest.TempPathFactory,
    e2e_output: Path,
    request: pytest.FixtureRequest,
) -> Iterator[LabServer]:
    """JupyterLab on 127.0.0.1, stopped by its own process group whatever happens."""
    home = tmp_path_factory.mktemp("home")
    start = time.monotonic()
    try:
        server = start_lab(course_copy, home, e2e_output / "jupyterlab.log")
    except OSError as error:
        pytest.fail(f"could not start JupyterLab: {error!r}", pytrace=False)
    try:
        problem = None
        try:
            wait_until_ready(server)
        except LabServerError as error:
            problem = str(error)
        if problem is not None and port_was_taken(server):
            # Another process took the free port between our check and the server's bind.
            stop_lab(server)
            server = start_lab(course_copy, home, e2e_output / "jupyterlab.log")
            try:
                wait_until_ready(server)
                problem = None
            except LabServerError as error:
                problem = str(error)
        if problem is not None:
            pytest.fail(problem, pytrace=False)
        request.config.stash[_TIMES]["server_ready"] = time.monotonic() - start
        yield server
    finally:
        stop_lab(server)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium driven by Playwright through ``executable_path``."""
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium is missing at {CHROMIUM}: run `bash tools/e2e_setup.sh` "
            "(it installs Debian's chromium package)",
            pytrace=False,
        )
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError as error:
        missing = f"the playwright package is missing ({error}): pip install -e '.[dev]'"
    else:
        missing = None
    if missing is not None:
        pytest.fail(missing, pytrace=False)
    manager = sync_playwright().start()
    try:
        problem = None
        try:
            chromium = manager.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, timeout=60_000
            )
        except Error as error:
            problem = f"Chromium at {CHROMIUM} did not start: {error}"
        if problem is not None:
            pytest.fail(problem, pytrace=False)
        try:
            yield chromium
        finally:
            chromium.close()
    finally:
        manager.stop()


@pytest.fixture()
def lab_page(browser: Any) -> Iterator[tuple[Any, list[str]]]:
    """A fresh browser context and page, and the console errors it logs (filled as they come)."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors: list[str] = []

    def on_console(message: Any) -> None:
        if message.type in ("error", "assert"):
            location = message.location or {}
            where = f" ({location.get('url', '')}:{location.get('lineNumber', '')})"
            errors.append(f"console.{message.type}: {message.text[:500]}{where}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: errors.append(f"uncaught: {str(error)[:500]}"))

    def on_request_failed(request: Any) -> None:
        # ERR_ABORTED is a request the page itself cancelled (navigation, closed kernel socket).
        if "ERR_ABORTED" not in str(request.failure):
            errors.append(f"request failed: {request.method} {request.url} {request.failure}")

    page.on("requestfailed", on_request_failed)
    try:
        yield page, errors
    finally:
        context.close()


@pytest.fixture(scope="session")
def e2e_reports(request: pytest.FixtureRequest, e2e_output: Path) -> Iterator[list[NotebookReport]]:
    """Rows of the report; written to build/e2e/report.json and report.md at the end."""
    reports: list[NotebookReport] = []
    request.config.stash[_REPORTS] = reports
    yield reports
    times = request.config.stash[_TIMES]
    summary = {
        "seconds_total": round(time.monotonic() - times["start"], 1),
        "seconds_server_ready": round(times.get("server_ready", float("nan")), 1),
        "notebooks": [report.as_dict() for report in reports],
    }
    (e2e_output / "report.json").write_text(json.dumps(summary, indent=2) + "\n")
    (e2e_output / "report.md").write_text("\n".join(report_lines(reports, summary)) + "\n")


def report_lines(reports: list[NotebookReport], summary: dict[str, Any]) -> list[str]:
    """A Markdown table: notebook, explorers, slider moved, seconds, console errors, result."""
    lines = [
        f"End-to-end run: {len(reports)} notebooks in {summary['seconds_total']} s "
        f"(JupyterLab ready in {summary['seconds_server_ready']} s).",
        "",
        "| notebook | code cells run | explorers | slider moved (value) | plot changed | s "
        "| console errors | result |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for report in reports:
        slider = report.slider
        moved = (
            f"{slider['slider']} ({slider['value_before']} -> {slider['value_after']})"
            if slider
            else "-"
        )
        changed = (
            f"{slider['png_before']['hash']} -> {slider['png_after']['hash']}" if slider else "-"
        )
        failure = " ".join((report.failure or "").split()).replace("|", "/")[:300]
        result = "ok" if report.failure is None else f"FAILED: {failure}"
        lines.append(
            f"| {report.notebook} | {report.executed_cells}/{report.code_cells} "
            f"| {len(report.explorers)} | {moved} | {changed} "
            f"| {report.seconds.get('total', 0):.1f} | {len(report.console)} | {result} |"
        )
    ticks = [
        f"- {r.notebook} cell {t['cell']} ({t['control']}): {t['median_ms']} ms to the new "
        f"picture, {t['median_decoded_ms']} ms decoded (median of {t['ticks']})"
        for r in reports
        for t in r.ticks
    ]
    heading = "Key press on a slider to the new picture:" if ticks else "No ticks timed."
    lines += ["", heading, *ticks]
    console = [f"- {r.notebook}: {line}" for r in reports for line in r.console]
    lines += ["", "Console errors:" if console else "Console errors: none.", *console]
    return lines


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    reports = config.stash.get(_REPORTS, None)
    if reports is None:
        return
    times = config.stash[_TIMES]
    summary = {
        "seconds_total": round(time.monotonic() - times["start"], 1),
        "seconds_server_ready": round(times.get("server_ready", float("nan")), 1),
    }
    terminalreporter.section("JupyterLab end-to-end report (build/e2e/report.md)")
    for line in report_lines(reports, summary):
        terminalreporter.write_line(line)

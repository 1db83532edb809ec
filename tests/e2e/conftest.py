"""Fixtures of the end-to-end test: a JupyterLab server, a headless Chromium, a report.

Run with ``make e2e`` (or ``bash tools/e2e_setup.sh && .venv/bin/pytest tests/e2e -m e2e -v``).

- ``lab_server``: JupyterLab from the project's venv, serving a temporary copy of notebooks/
  (outputs stripped, each notebook ending at its last widget), so the files in notebooks/ are
  never executed in place or saved.
- ``browser``: Debian's Chromium (/usr/bin/chromium, or $E2E_CHROMIUM) driven by Playwright
  through ``executable_path``; ``playwright install`` is never used.
- ``e2e_reports``: one row per notebook, written to build/e2e/report.json and report.md and
  printed at the end of the run.

Under pytest-xdist (``make e2e`` runs ``-n $(WORKERS)``) every worker has its
own server (own port, root, HOME and runtime directories, all under the worker's own temporary
directory), its own Chromium and its own server log, build/e2e/jupyterlab.<worker>.log. The rows
of the report travel to the controller with each test's report (``user_properties``); the
controller empties build/e2e/ at the start and writes report.json and report.md at the end.

If Chromium or the server cannot start, the tests fail (``pytest.fail``); they never skip.
Paths and their environment overrides are in e2e_course.py.
"""

from __future__ import annotations

import fcntl
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
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
    SITES,
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

_TIMES = pytest.StashKey[dict[str, float]]()
# What the controller (or the only process) has received: report rows, server start-up times.
_ROWS: list[NotebookReport] = []
_SERVER_READY: dict[str, float] = {}
# Names of the user_properties that carry a report row and a server's start-up time.
REPORT_ROW = "e2e_report"
SERVER_READY = "e2e_server_ready"


def worker_name() -> str:
    """This process's pytest-xdist worker ("gw0", ...), or "" when pytest runs in one process."""
    return os.environ.get("PYTEST_XDIST_WORKER", "")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_TIMES] = {"start": time.monotonic()}


def pytest_sessionstart(session: pytest.Session) -> None:
    """Empty build/e2e/ of the previous run's screenshots, reports and logs (once: in the
    controller, or in the only process; never in a worker, which would delete another's), when
    the run selects the e2e tests (``-m e2e``), not for the harness tests alone."""
    markexpr = session.config.getoption("markexpr", "") or ""
    selects_e2e = "e2e" in markexpr and "not e2e" not in markexpr
    if worker_name() or session.config.option.collectonly or not selects_e2e:
        return
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    for old in (*OUTPUT_DIR.glob("*.png"), *OUTPUT_DIR.glob("report.*"), *OUTPUT_DIR.glob("*.log")):
        old.unlink()


@pytest.fixture(scope="session")
def e2e_output() -> Path:
    """build/e2e/ (emptied by :func:`pytest_sessionstart`); every file a test writes there is
    named after its notebook or its worker, so workers never write the same file."""
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
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
            copy_without_outputs(notebook, target / notebook.name, through_widgets=True)
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
    log = e2e_output / f"jupyterlab{'.' + worker_name() if worker_name() else ''}.log"
    start = time.monotonic()
    try:
        server = start_lab(course_copy, home, log)
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
            server = start_lab(course_copy, home, log)
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
def site_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, set[str]]]:
    """A local HTTP server for the static sites: its root, its origin and the sites built so far
    (test_site_offline.py and test_site_axe.py share it). Under pytest-xdist every worker serves
    the same folder of this run, so that each site is built once, not once per worker."""
    run_root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        run_root = run_root.parent  # this run's folder, above the workers' own
    root = run_root / "sites"
    root.mkdir(exist_ok=True)
    handler = functools.partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}", set()
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def site_root(site_server: tuple[Path, str, set[str]], site: str) -> tuple[Path, str]:
    """The server root and origin, with the test's ``site`` built (:func:`build_site`)."""
    build_site(site_server, site)
    return site_server[0], site_server[1]


def build_site(site_server: tuple[Path, str, set[str]], site: str) -> Path:
    """The folder of ``site``, built by the project's own tool once per run: the first worker
    that needs it builds it while holding a lock on the folder, and the others wait for it and
    use it."""
    root, _, built = site_server
    if site not in built:
        with open(root / f"{site}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            done = root / f"{site}.built"  # written only once the build has succeeded
            if not done.exists():
                subprocess.run(
                    [sys.executable, "tools/build_html.py", *SITES[site], "--out",
                     str(root / site)],
                    cwd=REPO, check=True, capture_output=True,
                )  # fmt: skip
                done.touch()
        built.add(site)
    return root / site


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


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


@pytest.fixture()
def e2e_reports(request: pytest.FixtureRequest) -> Iterator[list[NotebookReport]]:
    """Rows of the report filled by the test; at teardown they go into the test's
    ``user_properties``, which pytest-xdist sends to the controller with the teardown report."""
    reports: list[NotebookReport] = []
    yield reports
    for report in reports:
        request.node.user_properties.append((REPORT_ROW, report.as_dict()))
    ready = request.config.stash[_TIMES].get("server_ready")
    if ready is not None:
        request.node.user_properties.append((SERVER_READY, [worker_name() or "-", ready]))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Collect the rows (in the controller, or in the only process)."""
    if report.when != "teardown" or worker_name():
        return
    for name, value in report.user_properties:
        if name == REPORT_ROW:
            _ROWS.append(NotebookReport(**value))
        elif name == SERVER_READY:
            _SERVER_READY[str(value[0])] = float(value[1])


def _summary(config: pytest.Config) -> dict[str, Any]:
    times = config.stash[_TIMES]
    ready = _SERVER_READY
    return {
        "seconds_total": round(time.monotonic() - times["start"], 1),
        "seconds_server_ready": {name: round(ready[name], 1) for name in sorted(ready)},
    }


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write build/e2e/report.json and report.md (in the controller, or the only process)."""
    config = session.config
    reports = sorted(_ROWS, key=lambda report: report.notebook)
    if worker_name() or not reports:
        return
    summary = _summary(config)
    summary["notebooks"] = [report.as_dict() for report in reports]
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUTPUT_DIR / "report.json").write_text(json.dumps(summary, indent=2) + "\n")
    (OUTPUT_DIR / "report.md").write_text("\n".join(report_lines(reports, summary)) + "\n")


def report_lines(reports: list[NotebookReport], summary: dict[str, Any]) -> list[str]:
    """A Markdown table: notebook, explorers, slider moved, seconds, console errors, result."""
    ready = ", ".join(
        f"{seconds} s" if name == "-" else f"{seconds} s on {name}"
        for name, seconds in summary["seconds_server_ready"].items()
    )
    lines = [
        f"End-to-end run: {len(reports)} notebooks in {summary['seconds_total']} s "
        f"(JupyterLab ready in {ready or '-'}).",
        "",
        "| notebook | code cells run (to the last widget) | explorers | slider moved (value) "
        "| plot changed | s | console errors | result |",
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
    reports = sorted(_ROWS, key=lambda report: report.notebook)
    if worker_name() or not reports:
        return
    summary = _summary(config)
    terminalreporter.section("JupyterLab end-to-end report (build/e2e/report.md)")
    for line in report_lines(reports, summary):
        terminalreporter.write_line(line)

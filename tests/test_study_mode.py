"""Study mode is for study: the JupyterLab of `make study` runs without nbgrader (issue 32).

The commands come from the Makefile itself (``make -n study`` with the study folder in a
temporary directory): the test runs the ones that write the study config, then starts a Jupyter
server in a subprocess with the environment and flags of the ``jupyter lab`` line, initialises it
without serving, and reads which server extensions it enabled and which JupyterLab extensions its
page config disables. The same server started with ``make lab``'s flags keeps nbgrader, so the
check can fail.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBGRADER_SERVER = {
    "nbgrader.server_extensions.formgrader",
    "nbgrader.server_extensions.validate_assignment",
    "nbgrader.server_extensions.assignment_list",
    "nbgrader.server_extensions.course_list",
}
NBGRADER_LAB = "@jupyter/nbgrader"

INSPECT = """
import json, sys
from jupyter_server.serverapp import ServerApp
server = ServerApp.instance()
server.initialize(argv=sys.argv[1:], find_extensions=True, new_httpserver=False)
enabled = sorted(name for name, ext in server.extension_manager.extensions.items() if ext.enabled)
page = server.web_app.settings.get("page_config_data", {})
disabled = page.get("disabledExtensions") or {}
print("RESULT " + json.dumps({"enabled": enabled, "disabled": disabled}))
"""


def dry_run(target: str, study_dir: Path) -> list[str]:
    """The commands ``make -n target`` would run, continuation lines joined."""
    text = subprocess.run(
        ["make", "-n", "--no-print-directory", target, f"STUDY_DIR={study_dir}", "STAMP="],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return [line for line in text.replace("\\\n", " ").splitlines() if line.strip()]


def launch(command: str) -> tuple[dict[str, str], list[str]]:
    """The environment assignments and the ``--flags`` of a ``jupyter lab`` command line."""
    words = shlex.split(command)
    at = next(i for i, word in enumerate(words) if word.endswith("/jupyter"))
    assert words[at + 1] == "lab", command
    env = dict(word.split("=", 1) for word in words[:at])
    return env, [word for word in words[at + 2 :] if word.startswith("--")]


def server_state(env: dict[str, str], flags: list[str], root: Path) -> dict:
    """Enabled server extensions and disabled lab extensions of a server started so."""
    flags = [flag for flag in flags if not flag.startswith("--ServerApp.root_dir=")]
    environment = {**os.environ, **env}
    result = subprocess.run(
        [sys.executable, "-c", INSPECT, *flags, f"--ServerApp.root_dir={root}",
         "--ServerApp.open_browser=False"],
        env=environment, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("RESULT ")]
    return json.loads(line[len("RESULT ") :])


@pytest.fixture(scope="module")
def study_launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, list, Path]:
    study = tmp_path_factory.mktemp("study")
    commands = dry_run("study", study)
    lab = [c for c in commands if re.search(r"/jupyter lab\b", c)]
    assert len(lab) == 1, commands
    for command in commands:
        if command is lab[0] or "build_student.py" in command:
            continue  # the student copies are not needed to start the server
        subprocess.run(command, shell=True, check=True, cwd=ROOT)
    env, flags = launch(lab[0])
    return env, flags, study


def test_study_config_is_written_into_the_study_folder(study_launch) -> None:
    env, flags, study = study_launch
    assert Path(env["JUPYTER_CONFIG_PATH"]) == study / ".jupyter"
    page = json.loads((study / ".jupyter" / "labconfig" / "page_config.json").read_text())
    assert page["disabledExtensions"] == {NBGRADER_LAB: True}
    server = json.loads((study / ".jupyter" / "jupyter_server_config.json").read_text())
    assert server["ServerApp"]["jpserver_extensions"] == dict.fromkeys(NBGRADER_SERVER, False)
    assert f"--ServerApp.root_dir={study}" in flags


def test_study_server_runs_without_nbgrader(study_launch) -> None:
    env, flags, study = study_launch
    state = server_state(env, flags, study)
    assert "jupyterlab" in state["enabled"], "JupyterLab itself still runs"
    assert not NBGRADER_SERVER & set(state["enabled"]), state["enabled"]
    assert state["disabled"].get(NBGRADER_LAB) is True, state["disabled"]


def test_make_lab_keeps_nbgrader_for_teachers(tmp_path: Path) -> None:
    (command,) = [c for c in dry_run("lab", tmp_path) if re.search(r"/jupyter lab\b", c)]
    env, flags = launch(command)
    assert "JUPYTER_CONFIG_PATH" not in env
    state = server_state(env, flags, tmp_path)
    assert set(state["enabled"]) >= NBGRADER_SERVER
    assert not state["disabled"].get(NBGRADER_LAB)

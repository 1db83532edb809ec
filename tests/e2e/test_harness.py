"""Fast checks of the end-to-end harness's pure parts (no browser, no server).

These are not marked ``e2e``: they run in the normal ``make test``.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
from e2e_notebook import copy_without_outputs, explorer_cells
from e2e_server import free_port, lab_command, lab_environment


def _notebook(tmp_path: Path, sources: list[str]) -> Path:
    cells = [
        {
            "cell_type": "code",
            "metadata": {},
            "source": source,
            "outputs": [{"output_type": "stream", "name": "stdout", "text": "x"}],
            "execution_count": 7,
        }
        for source in sources
    ]
    cells.insert(0, {"cell_type": "markdown", "metadata": {}, "source": "explorer.widget()"})
    notebook = {
        "cells": cells,
        "metadata": {"widgets": {"state": {}}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "00_test.ipynb"
    path.write_text(json.dumps(notebook))
    return path


@pytest.mark.parametrize(
    ("source", "is_explorer"),
    [
        ("# NBVAL_IGNORE_OUTPUT\nexplorer.widget()", True),
        ("# NBVAL_IGNORE_OUTPUT\nexplorer.widget()\n\n", True),
        ("display(heatmap.widget())", True),
        ("explorers[0].widget()", True),
        ("explorer.widget()\nprint('after')", False),
        ("explorer.figure", False),
        ("w = explorer.widget", False),
        ("mywidget()", False),
    ],
)
def test_explorer_cells_finds_cells_ending_with_widget_call(
    tmp_path: Path, source: str, is_explorer: bool
) -> None:
    path = _notebook(tmp_path, ["import numpy as np", source])
    # The markdown cell 0 mentions explorer.widget() but is not code.
    assert explorer_cells(path) == ([2] if is_explorer else [])


def test_explorer_cells_reads_list_sources(tmp_path: Path) -> None:
    path = _notebook(tmp_path, [])
    notebook = json.loads(path.read_text())
    notebook["cells"].append(
        {
            "cell_type": "code",
            "metadata": {},
            "source": ["# NBVAL_IGNORE_OUTPUT\n", "explorer.widget()"],
            "outputs": [],
            "execution_count": None,
        }
    )
    path.write_text(json.dumps(notebook))
    assert explorer_cells(path) == [1]


def test_copy_without_outputs_clears_outputs_counts_and_widget_state(tmp_path: Path) -> None:
    source = _notebook(tmp_path, ["1 + 1", "explorer.widget()"])
    before = source.read_bytes()
    target = tmp_path / "copy" / "00_test.ipynb"
    copy_without_outputs(source, target)
    copied = json.loads(target.read_text())
    code = [cell for cell in copied["cells"] if cell["cell_type"] == "code"]
    assert [cell["outputs"] for cell in code] == [[], []]
    assert [cell["execution_count"] for cell in code] == [None, None]
    assert "widgets" not in copied["metadata"]
    assert [cell["source"] for cell in code] == ["1 + 1", "explorer.widget()"]
    assert source.read_bytes() == before


def test_a_copy_through_its_widgets_ends_at_the_last_cell_showing_one(tmp_path: Path) -> None:
    source = _notebook(tmp_path, ["1 + 1", "explorer.widget()", "2 + 2", "bar", "3 + 3"])
    notebook = json.loads(source.read_text())
    view = {"output_type": "display_data", "metadata": {},
            "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "a"},
                     "text/plain": "VBox()"}}
    for index in (2, 4):  # the explorer and a progress bar
        notebook["cells"][index]["outputs"] = [view]
    source.write_text(json.dumps(notebook))
    target = tmp_path / "copy" / "00_test.ipynb"
    copy_without_outputs(source, target, through_widgets=True)
    kept = [cell["source"] for cell in json.loads(target.read_text())["cells"]]
    assert kept == ["explorer.widget()", "1 + 1", "explorer.widget()", "2 + 2", "bar"]
    plain = _notebook(tmp_path, ["1 + 1", "2 + 2"])  # no widget: every cell stays
    copy_without_outputs(plain, target, through_widgets=True)
    assert len(json.loads(target.read_text())["cells"]) == 3


def test_free_port_can_be_bound_on_loopback() -> None:
    port = free_port()
    assert 1024 <= port <= 65535
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", port))


def test_lab_command_listens_on_loopback_without_token(tmp_path: Path) -> None:
    command = lab_command(8899, tmp_path)
    assert command[1:3] == ["-m", "jupyterlab"]
    for option in (
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port=8899",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        f"--ServerApp.root_dir={tmp_path}",
        "--no-browser",
    ):
        assert option in command
    assert ("--allow-root" in command) == (os.geteuid() == 0)


def test_lab_environment_keeps_everything_under_the_temporary_home(tmp_path: Path) -> None:
    env = lab_environment(tmp_path)
    for name in ("HOME", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR"):
        assert Path(env[name]).is_relative_to(tmp_path), name
        assert Path(env[name]).is_dir(), name
    config = Path(env["JUPYTER_CONFIG_DIR"])
    server_config = json.loads((config / "jupyter_server_config.json").read_text())
    assert server_config["LabApp"]["news_url"] is None
    page_config = json.loads((config / "labconfig" / "page_config.json").read_text())
    assert page_config["disabledExtensions"] == {
        "@jupyterlab/apputils-extension:announcements": True
    }
    settings = Path(env["JUPYTERLAB_SETTINGS_DIR"])
    notification = settings / "@jupyterlab/apputils-extension/notification.jupyterlab-settings"
    assert json.loads(notification.read_text())["fetchNews"] == "false"

"""The self-learner's path: study copies made once and kept, a solution shown on request, and
JupyterLab's news pop-up switched off in the project's environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools import build_student, solution
from tools.notebook_cells import NOTEBOOKS, exercise_cells, load, source, tags

ROOT = Path(__file__).resolve().parents[1]


def test_study_copies_are_made_once_and_then_kept(tmp_path: Path) -> None:
    first = build_student.build(tmp_path, NOTEBOOKS[:2], keep=True)
    assert [p.name for p in first] == [p.name for p in NOTEBOOKS[:2]]
    mine = first[0]
    mine.write_text(mine.read_text(encoding="utf-8").replace("}", "} ", 1), encoding="utf-8")
    edited = mine.read_text(encoding="utf-8")
    again = build_student.build(tmp_path, NOTEBOOKS[:3], keep=True)
    assert [p.name for p in again] == [NOTEBOOKS[2].name]  # only the new one
    assert mine.read_text(encoding="utf-8") == edited  # the learner's work is untouched
    for path in tmp_path.glob("*.ipynb"):
        cells = load(path)["cells"]
        assert not any(tags(c) & {"solution", "reveal"} for c in cells)
        assert not any(c.get("outputs") for c in cells)  # no answer printed before you run it


def test_a_solution_is_shown_on_request_from_the_source_notebook() -> None:
    path = next(p for p in NOTEBOOKS if p.name.startswith("10_"))
    cells = load(path)["cells"]
    for key, where in exercise_cells(path).items():
        text = solution.solution_text(key)
        code = source(cells[where.solution])
        body = code.split("### BEGIN SOLUTION\n", 1)[1].split("### END SOLUTION", 1)[0]
        assert body.strip() in text, key
        reveals = [c for c in cells[where.check + 1:where.check + 3] if "reveal" in tags(c)]
        assert all(source(c) in text for c in reveals), key
    with pytest.raises(SystemExit, match="EX '10.nothing' is not an exercise"):
        solution.solution_text("10.nothing")
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "solution.py"), "10.seed_spread"],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("# Worked solution of 10.seed_spread")


def test_jupyterlab_news_and_update_popups_are_off_in_this_environment() -> None:
    installed = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    assert installed.is_file(), "make venv installs tools/jupyterlab_overrides.json"
    settings = json.loads(installed.read_text(encoding="utf-8"))
    notification = settings["@jupyterlab/apputils-extension:notification"]
    assert notification == {"checkForUpdates": False, "fetchNews": "false"}
    schema = next((Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas").glob(
        "@jupyterlab/apputils-extension/notification.json"))
    allowed = json.loads(schema.read_text(encoding="utf-8"))["properties"]
    assert {"const": "false", "title": "Never"} in allowed["fetchNews"]["oneOf"]
    assert allowed["checkForUpdates"]["type"] == "boolean"


def test_the_committed_answer_key_is_current() -> None:
    """The key a checkout's checks use is what tools/answer_key.py computes now."""
    run = subprocess.run([sys.executable, "tools/answer_key.py", "--check"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_the_key_check_forgives_rounding_across_cpus_and_nothing_else() -> None:
    """Without AVX2, numpy's float64 sin of 02's large angles moved the 12th digit, and the check
    failed on an exact text comparison; a changed value, length or choice still fails it."""
    from tools.answer_key import same_json

    assert same_json('{"a": [0.2647141079956108, 3]}', '{"a": [0.2647141079938567, 3]}')
    assert not same_json('{"a": [0.2647141079956108]}', '{"a": [0.2647141179956108]}')
    assert not same_json('{"a": [0.1, 1]}', '{"a": [0.1]}')
    assert not same_json('{"a": "half"}', '{"a": "interleaved"}')
    assert not same_json('{"a": 1}', '{"b": 1}')


def test_a_study_copy_finds_the_key_and_an_outside_folder_does_not(tmp_path: Path) -> None:
    from posenc_lib.exercises import nb02
    from posenc_lib.exercises._core import NO_KEY
    from posenc_lib.exercises._key import KEY_FILE, answer_key_path

    study = ROOT / "study"
    assert answer_key_path(study / "anything") == ROOT / KEY_FILE
    assert answer_key_path(tmp_path) is None
    script = ("from posenc_lib.exercises import nb02; "
              "print(repr(nb02.half_turns.check(2000)))")
    outside = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                             text=True, env={**os.environ,
                                             "POSENC_PROGRESS_FILE": str(tmp_path / "p.json")})
    assert outside.returncode == 0, outside.stderr
    assert outside.stdout.startswith("Not confirmed") and NO_KEY in outside.stdout
    assert nb02.half_turns.check(2000).message != NO_KEY  # here, in the checkout: a verdict

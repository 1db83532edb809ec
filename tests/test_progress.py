"""The self-study progress record: stored outside the repository, atomic, never breaking a check."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from posenc_lib import _record as progress_module
from posenc_lib.exercises import Exercise, progress
from tools.answer_key import KEY_PATH

EXERCISE = Exercise(
    key="00.fuzz_probe",
    title="a probe",
    answer_name="x",
    expected=lambda: np.ones(3),
    hints=("a vector of ones", "use np.ones"),
    level="warm-up",
    kind="derivation",
    objective="a probe of the progress record",
    minutes=2,
)


@pytest.fixture()
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "data" / "progress.json"
    monkeypatch.setenv("POSENC_PROGRESS_FILE", str(path))
    monkeypatch.setattr(progress_module, "_warned", False)
    return path


def test_a_passed_check_is_recorded_and_a_failed_one_is_not(record: Path) -> None:
    assert not EXERCISE.check(np.zeros(3)).passed
    assert not record.exists()
    assert EXERCISE.check(np.ones(3)).passed
    assert json.loads(record.read_text())["passed"] == ["00.fuzz_probe"]
    assert not list(record.parent.glob(".progress-*")), "no temporary file is left behind"


def test_default_location_is_the_user_data_dir_not_the_repository(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("POSENC_PROGRESS_FILE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    path = progress_module.progress_path()
    repository = Path(__file__).resolve().parent.parent
    assert repository not in path.parents
    if sys.platform.startswith("linux"):
        assert path == tmp_path / "posenc-course" / "progress.json"


def test_progress_table_counts_per_notebook(record: Path) -> None:
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"passed": ["02.does_not_exist"]}))
    table = progress()
    assert table.rows, "every notebook with exercises has a row"
    assert all(0 <= done <= total for _, done, total in table.rows)
    assert "passed" in repr(table) and "<table>" in table._repr_html_()


def test_corrupt_file_warns_once_and_checks_carry_on(record: Path) -> None:
    record.parent.mkdir(parents=True)
    record.write_text("{not json")
    with pytest.warns(RuntimeWarning, match="corrupt"):
        assert EXERCISE.check(np.ones(3)).passed
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert EXERCISE.check(np.ones(3)).passed  # no second warning
    assert record.read_text() == "{not json", "the learner's file is not overwritten"


def test_a_record_spoiled_with_numbers_neither_breaks_a_check_nor_takes_more(
    record: Path,
) -> None:
    """A kernel that calls record_pass(3.0) (an introspecting student) once broke every later
    check that shared the record: sorting names with a float raised TypeError."""
    progress_module.record_pass(3.0)  # type: ignore[arg-type]
    progress_module.record_prediction(None)  # type: ignore[arg-type]
    assert not record.exists()
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"passed": ["01.carry_flips", 3.0]}))
    with pytest.warns(RuntimeWarning, match="corrupt"):
        assert EXERCISE.check(np.ones(3)).passed
    assert json.loads(record.read_text())["passed"] == ["01.carry_flips", 3.0]  # left as it was


def test_the_null_device_records_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.setenv("POSENC_PROGRESS_FILE", os.devnull)
    writes: list[object] = []
    monkeypatch.setattr(progress_module, "_write_atomically", lambda *a: writes.append(a))
    assert EXERCISE.check(np.ones(3)).passed
    progress_module.record_prediction("a label")
    assert writes == []


def test_unwritable_location_warns_once_and_checks_carry_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("POSENC_PROGRESS_FILE", str(blocker / "progress.json"))
    monkeypatch.setattr(progress_module, "_warned", False)
    with pytest.warns(RuntimeWarning, match="not saved"):
        assert EXERCISE.check(np.ones(3)).passed
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert EXERCISE.check(np.ones(3)).passed


def run_cells(cells: list[str], progress_file: Path) -> list[str]:
    """Run code cells in a fresh kernel with its own progress file; return their text outputs."""
    import os

    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    previous = os.environ.get("POSENC_PROGRESS_FILE")
    os.environ["POSENC_PROGRESS_FILE"] = str(progress_file)
    try:
        NotebookClient(notebook, kernel_name="python3", timeout=60).execute()
    finally:
        os.environ["POSENC_PROGRESS_FILE"] = previous or ""
    return [
        "".join(o.get("text", "") or o.get("data", {}).get("text/plain", ""))
        for cell in notebook.cells
        for o in cell.outputs
    ]


def test_a_solution_cell_records_nothing_and_the_learners_own_cell_does(tmp_path: Path) -> None:
    record = tmp_path / "progress.json"
    header = (
        "import numpy as np\n"
        "from posenc_lib.exercises import nb02\n"
        "from posenc_lib.frequencies import inverse_frequencies, wavelengths"
    )
    outputs = run_cells(
        [
            header,
            "n_tokens = ...  # your answer",
            "### BEGIN SOLUTION\n"
            "n_tokens = int(np.ceil(wavelengths(inverse_frequencies(128))[31])) + 1\n"
            "### END SOLUTION",
            "nb02.half_turns.check(n_tokens)",
        ],
        record,
    )
    assert outputs[-1].startswith("Correct"), outputs
    assert not record.exists(), "a check of a solution cell's answer was recorded"
    outputs = run_cells(
        [
            header,
            "n_tokens = int(np.ceil(2 * np.pi * 10000 ** (62 / 128))) + 1",
            "nb02.half_turns.check(n_tokens)",
        ],
        record,
    )
    assert outputs[-1].startswith("Correct"), outputs
    assert json.loads(record.read_text())["passed"] == ["02.half_turns"]


def test_a_kernel_without_input_history_records_nothing(tmp_path: Path) -> None:
    """nbval runs every cell with store_history=False, so no check can see which cell computed
    the answer: running a notebook under nbval must record nothing, even a learner-style cell."""
    import os
    import subprocess

    import nbformat

    cells = [
        "from posenc_lib.exercises import nb03",
        "halves = [0.0, (96 / 2) ** 0.5]",
        "assert nb03.half_norms.check(halves).passed",
    ]
    path = tmp_path / "learner.ipynb"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbformat.write(notebook, path)
    record = tmp_path / "progress.json"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-o", "addopts=", "-p", "no:cacheprovider",
         "--nbval-lax", "--nbval-current-env", str(path)],
        cwd=tmp_path, env={**os.environ, "POSENC_PROGRESS_FILE": str(record),
                           "POSENC_ANSWER_KEY": str(KEY_PATH)},  # tmp_path is outside the checkout
        capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:]
    assert not record.exists(), "a check run under nbval was recorded"


def test_a_written_prediction_is_counted_once_and_a_skipped_one_is_not(record: Path) -> None:
    """Issue 32: progress() counts the predictions made (a guess typed before the reveal)."""
    from posenc_lib.predict import compare

    assert progress().predicted == 0
    compare(None, 0.5, label="a skipped prediction")
    assert not record.exists(), "Run All without a guess records nothing"
    compare(0.4, 0.5, label="share of far matches")
    compare(0.5, 0.5, label="share of far matches")  # rerunning the reveal counts once
    compare({"a"}, {"a", "b"}, label="tasks that hold")
    assert json.loads(record.read_text())["predicted"] == ["share of far matches",
                                                            "tasks that hold"]
    table = progress()
    assert table.predicted == 2
    assert repr(table).endswith("predictions written: 2, skipped: 0")
    assert "predictions written: 2" in table._repr_html_()
    assert EXERCISE.check(np.ones(3)).passed  # passes and predictions share one record
    assert json.loads(record.read_text())["passed"] == ["00.fuzz_probe"]
    assert progress().predicted == 2


def test_a_prediction_never_breaks_its_reveal_when_the_record_is_corrupt(record: Path) -> None:
    from posenc_lib.predict import compare

    record.parent.mkdir(parents=True)
    record.write_text("{not json")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        shown = compare(1, 1, label="x")
    assert shown.verdict == "right" and len(caught) == 1
    assert record.read_text() == "{not json"  # left for the learner to look at

"""Issue 47's robustness check: the larger model's runs (results/lab_scale.json), their plan and
cost, and every number and verdict of notebook 10's section "A larger model", recomputed from the
raw accuracies with SciPy's t (the rule of tests/test_lab_verdicts.py, not posenc_lib's)."""

from __future__ import annotations

from dataclasses import replace

import nbformat
import numpy as np
import pytest

from .test_lab_verdicts import NB10, _raw, _seeds, _unseen, rule  # noqa: F401

SECTION = "### A larger model"
TASKS = ("copy_back", "induction_once")
METHODS = ("rope", "pi", "alibi", "nope")


@pytest.fixture(scope="module")
def scale() -> dict:
    return _raw("scale")


@pytest.fixture(scope="module")
def section() -> str:
    """The prose of the section on the larger model, up to the next heading."""
    cells = nbformat.read(NB10, as_version=4).cells
    start = next(i for i, c in enumerate(cells) if c.source.startswith(SECTION))
    text = [cells[start].source]
    for cell in cells[start + 1:]:
        if cell.cell_type == "markdown" and cell.source.startswith("#"):
            break
        if cell.cell_type == "markdown":
            text.append(cell.source)
    return " ".join(" ".join(text).split())


def test_the_runs_are_the_planned_cells_seeds_and_size(scale: dict) -> None:
    setup = scale["setup"]
    assert setup["tasks"] == list(TASKS) and setup["schemes"] == ["rope", "alibi", "nope"]
    assert setup["seeds"] == [0, 1, 2, 3, 4] and setup["extension"] == "pi"
    changed = {k for k in setup["model"] if setup["model"][k] != setup["grid_model"][k]}
    assert changed == {"n_layers"} and setup["model"]["n_layers"] == 4
    assert setup["grid_model"]["n_layers"] == 2 and setup["train"]["steps"] == 800
    for task in TASKS:
        for method in METHODS:
            assert [int(k.rsplit("/", 1)[1]) for k in _seeds(scale["curves"], f"{task}/{method}")
                    ] == setup["seeds"], (task, method)
    curve = scale["curves"]["copy_back/rope/0"]
    assert [len(curve[m]) for m in ("1", "2", "4", "8")] == [32, 64, 128, 256]


def test_the_run_kept_within_its_budget(scale: dict) -> None:
    """About 45 minutes of one core: the CPU time of the 30 models, as each measured it."""
    assert len(scale["timings"]) == 30 and scale["setup"]["jobs"] == 1
    cpu = sum(t["cpu"] for t in scale["timings"]) / 60
    assert 0 < cpu <= scale["setup"]["budget_minutes"]
    assert all(t["train"] <= t["total"] for t in scale["timings"])


def test_the_plan_trains_seed_by_seed_with_four_layers() -> None:
    """Seed-major order (a stopped run keeps whole seeds); only the depth differs from the grid;
    one job returns the RoPE model's curves read plainly and with PI."""
    pytest.importorskip("jax")
    from posenc_lib.lab import scale as plan
    from posenc_lib.lab.model import ModelConfig

    assert plan.SCALE_MODEL == replace(ModelConfig(), n_layers=4)
    jobs = plan.scale_jobs()
    assert len(jobs) == 30 and [job[2] for job in jobs[:6]] == [0] * 6
    assert {job[:2] for job in jobs[:6]} == {(t, s) for t in TASKS for s in plan.SCALE_SCHEMES}
    tiny = replace(plan.SCALE_TRAIN, steps=3, warmup=1)
    curves, losses, timing = plan.run_scale_job(("copy_back", "rope", 0, tiny))
    assert set(curves) == {"copy_back/rope/0", "copy_back/pi/0"} and list(losses) == [
        "copy_back/rope/0"]
    assert len(curves["copy_back/pi/0"]["8"]) == 256 and timing["cpu"] > 0
    assert curves["copy_back/rope/0"]["1"] == curves["copy_back/pi/0"]["1"]  # s = 1 at 1x


def _means(entries: dict, task: str, method: str) -> np.ndarray:
    return np.array([_unseen(entries, f"{task}/{method}", m).mean() for m in (1, 2, 4, 8)])

"""Issue 47's robustness check: the larger model's runs (results/lab_scale.json), their plan and
cost, and every number and verdict of notebook 10's section "A larger model", recomputed from the
raw accuracies with SciPy's t (the rule of tests/test_lab_verdicts.py, not posenc_lib's)."""

from __future__ import annotations

from dataclasses import replace

import nbformat
import numpy as np
import pytest

from .test_lab_verdicts import NB10, _raw, _seeds, _t_interval, _unseen, rule

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


def _signed(value: float) -> str:
    return f"{value:.3f}" if value < 0 else f"+{value:.3f}"


def _stated(found: dict) -> str:
    """The rule's effect and interval as the prose writes them: -0.028 [-0.047, -0.009]."""
    low, high = found["interval"]
    return f"{found['effect']:.3f} [{low:.3f}, {high:.3f}]"


def test_the_section_states_the_rule_s_verdicts_at_both_depths(scale: dict, section: str
                                                               ) -> None:
    """Every number and verdict of the answer, recomputed with SciPy from the raw accuracies
    of both depths (the two-layer grid: lab_curves.json and lab_extensions.json)."""
    big = scale["curves"]
    grid = _raw("curves")["curves"]
    small = {**grid, **_raw("extensions")["extensions"]}
    rope_copy = rule(big, "copy_back", "rope")
    assert rope_copy["label"] == "holds" and rule(grid, "copy_back", "rope")["label"] == (
        "borderline")
    assert (f"With 4 layers RoPE holds on `copy_back` at 4x ({_stated(rope_copy)}, "
            f"{rope_copy['holding']} of {rope_copy['seeds']} seeds within 0.1)") in section
    assert rule(big, "copy_back", "rope", 8)["label"] == "drops"
    assert f"by 8x it falls to {_means(big, 'copy_back', 'rope')[3]:.2f}" in section
    alibi4, alibi8 = (rule(big, "induction_once", "alibi", m) for m in (4, 8))
    assert alibi4["label"] == "holds" and rule(grid, "induction_once", "alibi")["label"] == "holds"
    assert alibi8["label"] == "borderline" and rule(grid, "induction_once", "alibi", 8)[
        "label"] == "holds"
    assert (f"at 8x it is borderline ({_stated(alibi8)}, {alibi8['holding']} of "
            f"{alibi8['seeds']} within 0.1), where two layers kept it within "
            f"{-rule(grid, 'induction_once', 'alibi', 8)['effect']:.2f}") in section
    rope_once = rule(big, "induction_once", "rope")
    assert rope_once["label"] == rule(grid, "induction_once", "rope")["label"] == "drops"
    assert (f"by more with 4 layers ({_stated(rope_once)} against "
            f"{rule(grid, 'induction_once', 'rope')['effect']:.3f})") in section
    for task in TASKS:
        assert rule(big, task, "pi")["label"] == rule(small, task, "pi")["label"] == "drops"
    for entries in (big, small):  # PI worse than RoPE on copy_back, seed by seed, both depths
        rope, pi = (_unseen(entries, f"copy_back/{m}", 4) for m in ("rope", "pi"))
        assert _t_interval(pi - rope)[1] < 0
    rope, pi = (_unseen(big, f"induction_once/{m}", 4) for m in ("rope", "pi"))
    low, high = _t_interval(pi - rope)
    assert low < 0 < high
    rope2, pi2 = (_unseen(small, f"induction_once/{m}", 4) for m in ("rope", "pi"))
    low2, high2 = _t_interval(pi2 - rope2)
    assert high2 < 0  # the two-layer seeds: PI worse
    assert (f"deeper seeds cannot tell it from RoPE ({_signed((pi - rope).mean())} "
            f"[{_signed(low)}, {_signed(high)}]), where two layers found it worse "
            f"({(pi2 - rope2).mean():.3f} [{low2:.3f}, {high2:.3f}])") in section
    first = {(t, s): _means(big, t, s)[0] for t, s in (("copy_back", "alibi"),
                                                       ("copy_back", "nope"),
                                                       ("induction_once", "nope"))}
    for task, scheme in first:
        assert rule(big, task, scheme)["label"] == "not learned", (task, scheme)
        assert rule(grid, task, scheme)["label"] == "not learned", (task, scheme)
    assert (f"({first[('copy_back', 'alibi')]:.2f} and {first[('copy_back', 'nope')]:.2f} at 1x), "
            f"nor NoPE `induction_once` ({first[('induction_once', 'nope')]:.2f})") in section
    assert f"{scale['minutes']} min" not in section  # times are printed, not retyped

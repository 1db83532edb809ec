"""The lab's full grid, behind ``make experiments``: every scheme x task x seed, evaluated at
1x, 2x, 4x and 8x the trained length (the induction models also on ``induction_near``);
longer trainings of the cells that 800 steps do not learn; RoPE's context extensions; PI with
a short and a longer fine-tune; attention maps and the learned table. Writes ``lab_*.json``
and the figures ``lab_*.png``; everything is seeded, so deterministic given constraints.txt.

Usage::

    python -m posenc_lib.lab.experiments [--out results] [--figures DIR] [--quick]

``--figures`` defaults to ``--out``; ``--quick`` (one seed, a few steps, a smoke run) writes to
``build/lab-quick`` unless ``--out`` is given, never over the committed results.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from posenc_lib.lab import train as training
from posenc_lib.lab.figures import write_figures
from posenc_lib.lab.results import MULTIPLES, write_json
from posenc_lib.lab.schemes import SCHEMES
from posenc_lib.lab.tasks import COPY_OFFSET, EVAL_TASKS, TASKS

SEEDS = (0, 1, 2, 3, 4)
ROPE_EXTENSIONS = ("pi", "ntk", "dynamic", "yarn")
# The cells that 800 steps leave below 0.9 at 1x, trained again for longer so that no
# conclusion about extrapolation rests on a model that never learned its task.
LONG_CELLS = (("copy_back", "nope"), ("copy_back", "alibi"), ("assoc_recall", "sinusoidal"))
FINE_TUNE_MULTIPLE = 4
MAP_MULTIPLE = 4
MAP_TASK = "copy_back"


@dataclass(frozen=True)
class Plan:
    """What one run of the grid trains: seeds and the training budgets."""

    seeds: tuple[int, ...] = SEEDS
    tcfg: training.TrainConfig = training.TrainConfig()
    long_steps: int = 4000
    fine_tune_steps: tuple[int, ...] = (60, 300)


QUICK = Plan(seeds=(0,), tcfg=training.TrainConfig(steps=100), long_steps=200,
             fine_tune_steps=(20, 40))


def _rounded(values: np.ndarray, digits: int = 4) -> list[float | None]:
    return [None if np.isnan(v) else round(float(v), digits) for v in values]


def _logged(losses: np.ndarray) -> dict[str, list[Any]]:
    """The training losses at the steps where they were recorded."""
    steps = np.flatnonzero(~np.isnan(losses))
    return {"step": steps.tolist(), "loss": _rounded(losses[steps])}


def _curves(model: training.Trained, extension: str | None = None, task: str | None = None
            ) -> dict[str, list[float | None]]:
    return {str(m): _rounded(training.accuracy_by_position(
        model, m * model.tcfg.length, extension=extension, task=task)) for m in MULTIPLES}


def _chosen_head(maps: np.ndarray, offset: int, length: int) -> tuple[int, int]:
    """The (layer, head) whose queries put most weight on the key ``offset`` back, in training."""
    rows = np.arange(offset, length)
    mass = maps[:, :, rows, rows - offset].mean(-1)  # (layers, heads)
    layer, head = np.unravel_index(int(np.argmax(mass)), mass.shape)
    return int(layer), int(head)


def _rope_results(model: training.Trained, plan: Plan, grid: dict[str, Any]) -> None:
    """Each context extension without training, then PI fine-tuned at 4x, scored at 4x."""
    task, seed = model.task, model.seed
    for extension in ROPE_EXTENSIONS:
        grid["extensions"][f"{task}/{extension}/{seed}"] = _curves(model, extension)
    length = FINE_TUNE_MULTIPLE * plan.tcfg.length
    for steps in plan.fine_tune_steps:
        tuned = training.fine_tune(model, "pi", length, steps=steps, progress=False)
        grid["fine_tuned"][f"{task}/pi_{steps}/{seed}"] = _rounded(
            training.accuracy_by_position(tuned, length))


def _record(model: training.Trained, plan: Plan, grid: dict[str, Any]) -> None:
    """Evaluate one model of the main grid and store what the JSON files hold."""
    task, scheme, seed = model.task, model.scheme, model.seed
    key = f"{task}/{scheme}/{seed}"
    grid["curves"][key] = _curves(model)
    grid["losses"][key] = _logged(model.losses)
    for variant, (trained_on, _) in EVAL_TASKS.items():
        if trained_on == task:
            grid["curves"][f"{variant}/{scheme}/{seed}"] = _curves(model, task=variant)
    if scheme == "rope":
        _rope_results(model, plan, grid)
    if scheme == "learned" and seed == plan.seeds[0]:
        grid["tables"][task] = np.round(np.asarray(model.params["wpe"][: plan.tcfg.length]),
                                        4).tolist()
    if task == MAP_TASK and seed == plan.seeds[0]:
        long = training.attention_maps(model, MAP_MULTIPLE * plan.tcfg.length)
        layer, head = _chosen_head(long, COPY_OFFSET, plan.tcfg.length)
        grid["maps"][scheme] = {"layer": layer, "head": head,
                                "weights": np.round(long[layer, head], 2).tolist()}


def run_grid(plan: Plan, progress: bool) -> dict[str, Any]:
    """Train and evaluate every model of ``plan``; return everything the JSON files hold."""
    grid: dict[str, Any] = {name: {} for name in ("curves", "losses", "extensions",
                                                  "fine_tuned", "maps", "tables", "long")}
    grid["timings"] = []
    longer = replace(plan.tcfg, steps=plan.long_steps)
    jobs = [(task, scheme, seed, plan.tcfg) for task in TASKS for scheme in SCHEMES
            for seed in plan.seeds]
    jobs += [(task, scheme, seed, longer) for task, scheme in LONG_CELLS for seed in plan.seeds]
    bar = tqdm(jobs, desc="grid", unit="model", disable=not progress)
    for task, scheme, seed, tcfg in bar:
        bar.set_postfix_str(f"{scheme} on {task}, seed {seed}, {tcfg.steps} steps")
        start = time.perf_counter()
        model = training.train(scheme, task, seed, tcfg=tcfg, progress=False)
        if tcfg.steps == plan.tcfg.steps:
            _record(model, plan, grid)
        else:
            grid["long"][f"{task}/{scheme}/{seed}"] = {"curves": _curves(model),
                                                       "losses": _logged(model.losses)}
        grid["timings"].append({"scheme": scheme, "task": task, "seed": seed,
                                "steps": tcfg.steps, "train": model.seconds,
                                "total": time.perf_counter() - start})
    return grid


def write_results(grid: dict[str, Any], plan: Plan, out: Path) -> None:
    """Write the grid's JSON files into ``out``."""
    setup = {"train": vars(plan.tcfg), "seeds": list(plan.seeds), "multiples": list(MULTIPLES),
             "evaluated_on": {v: t for v, (t, _) in EVAL_TASKS.items()},
             "long": {"steps": plan.long_steps, "cells": [list(c) for c in LONG_CELLS]},
             "fine_tune": {"multiple": FINE_TUNE_MULTIPLE, "steps": list(plan.fine_tune_steps)},
             "map": {"task": MAP_TASK, "multiple": MAP_MULTIPLE}}
    files = {"curves": ("curves", "losses", "long"), "extensions": ("extensions", "fine_tuned"),
             "attention": ("maps",), "learned_table": ("tables",)}
    for name, parts in files.items():
        write_json(out / f"lab_{name}.json", {"setup": setup, **{p: grid[p] for p in parts}},
                   indent=1 if name in ("curves", "extensions") else None)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, with ``--out`` and ``--figures`` resolved to their defaults."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="folder of the JSON results (default: results, or "
                        "build/lab-quick with --quick)")
    parser.add_argument("--figures", help="folder of the lab_*.png figures (default: --out)")
    parser.add_argument("--quick", action="store_true", help="one seed, a few steps (a smoke run)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    args.out = Path(args.out or ("build/lab-quick" if args.quick else "results"))
    args.figures = Path(args.figures or args.out)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    plan = QUICK if args.quick else Plan()
    start = time.perf_counter()
    grid = run_grid(plan, progress=not args.no_progress)
    write_results(grid, plan, args.out)
    minutes = (time.perf_counter() - start) / 60
    write_json(Path("build") / "lab_timings.json", {
        "timings": grid["timings"], "minutes": minutes,
        "xla_flags": os.environ.get("XLA_FLAGS", "")})
    write_figures(args.out, args.figures)
    print(f"grid of {len(grid['timings'])} models in {minutes:.1f} min", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

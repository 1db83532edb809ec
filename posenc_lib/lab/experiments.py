"""The lab's full grid, behind ``make experiments``: every scheme x task x seed.

Each model is read at 1x-8x the trained length; also longer trainings, RoPE's context
extensions and fine-tunes, attention maps; then RoPE at shifted positions in low precision
(:mod:`posenc_lib.lab.offsets`). Writes ``lab_*.json`` and the figures ``lab_*.png``; every run
is seeded. Options: ``python -m posenc_lib.lab.experiments --help``.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from posenc_lib._extras import missing_extra

try:
    from tqdm.auto import tqdm
except ModuleNotFoundError as error:
    raise missing_extra(__name__, "lab", error) from error

from posenc_lib.lab import offsets
from posenc_lib.lab import train as training
from posenc_lib.lab.figures import write_figures, write_offsets_figure
from posenc_lib.lab.results import MULTIPLES, load, write_json
from posenc_lib.lab.schemes import ALL_SCHEMES, SCHEMES, T5_BUCKETS, position_inputs
from posenc_lib.lab.tasks import COPY_OFFSET, EVAL_TASKS, TASKS

_SEEDS = (0, 1, 2, 3, 4)
# Cells whose five-seed mean lies within 0.05 of a cutoff (0.9 at 1x, a drop of 0.1 from 1x to
# 4x) get five more seeds; tests/test_lab.py checks that every such cell has ten.
_EXTRA_SEEDS = (5, 6, 7, 8, 9)
_BORDERLINE_CELLS = (("copy_back", "rope"), ("copy_back", "learned"), ("induction", "alibi"),
                    ("induction_once", "p_rope"), ("induction_once", "t5"))
_ROPE_EXTENSIONS = ("pi", "ntk", "dynamic", "yarn")
# The cells that 800 steps leave below 0.9 at 1x, trained again for longer so that no
# conclusion about extrapolation rests on a model that never learned its task.
_LONG_CELLS = (("copy_back", "nope"), ("copy_back", "alibi"), ("assoc_recall", "sinusoidal"))
# FIRE and KERPLE (issue 47) by the same two rules, listed apart in the setup so that notebook
# 10's tables of its seven schemes stay as they are
_BIAS_BORDERLINE_CELLS = (("induction", "kerple"), ("induction_once", "fire"))
_BIAS_LONG_CELLS = (("copy_back", "fire"), ("copy_back", "kerple"))
_FINE_TUNE_MULTIPLE = 4
_FINE_TUNES = {"pi": "pi", "plain": "none"}  # method name in the results: extension
# The fine-tunes ran first on copy_back only, the task whose PI fine-tune lagged most (issue 31);
# issue 47 runs them on every task, read at eight checkpoints (about 6.5 CPU minutes a task).
_FINE_TUNE_TASKS = tuple(TASKS)
_MAP_MULTIPLE = 4
_MAP_TASK = "copy_back"
_T5_TASKS = ("copy_back", "induction")  # T5's learned bias and far-bucket attention: stored


_RESULT_FILES = {"curves": ("curves", "losses", "long"), "extensions": ("extensions", "fine_tuned"),
                "attention": ("maps", "t5"), "learned_table": ("tables",)}


@dataclass(frozen=True)
class Plan:
    """What one run of the grid trains: seeds and the training budgets."""

    seeds: tuple[int, ...] = _SEEDS
    extra_seeds: tuple[int, ...] = _EXTRA_SEEDS
    tcfg: training.TrainConfig = training.TrainConfig()
    long_steps: int = 4000
    # checkpoints of one fine-tune, the last its length
    fine_tune_steps: tuple[int, ...] = (10, 20, 40, 60, 100, 150, 200, 300)


_QUICK = Plan(seeds=(0,), extra_seeds=(), tcfg=training.TrainConfig(steps=100), long_steps=200,
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


def _t5_evidence(model: training.Trained, multiple: int) -> dict[str, Any]:
    """T5's learned bias table, and the attention past training on the last bucket."""
    length = multiple * model.tcfg.length
    maps = training.attention_maps(model, length)  # (layers, heads, T, T)
    buckets = position_inputs("t5", length, d_model=model.cfg.d_model,
                              n_heads=model.cfg.n_heads)["buckets"]
    far = np.tril(buckets == T5_BUCKETS - 1)  # keys j <= i in the last bucket
    share = (maps * far).sum(-1)[:, :, model.tcfg.length:].mean(-1)  # (layers, heads)
    return {"bias": np.round(np.asarray(model.params["t5"]), 3).tolist(),
            "far_share": np.round(share, 3).tolist(), "multiple": multiple}


def _rope_results(model: training.Trained, plan: Plan, grid: dict[str, Any]) -> None:
    """Each context extension untrained, then the 4x fine-tunes with and without PI."""
    task, seed = model.task, model.seed
    for extension in _ROPE_EXTENSIONS:
        grid["extensions"][f"{task}/{extension}/{seed}"] = _curves(model, extension)
    if seed not in plan.seeds or task not in _FINE_TUNE_TASKS:  # kept short (time)
        return
    length = _FINE_TUNE_MULTIPLE * plan.tcfg.length
    for method, extension in _FINE_TUNES.items():
        tuned = training.fine_tune(model, extension, length, steps=plan.fine_tune_steps[-1],
                                   checkpoints=plan.fine_tune_steps, progress=False)
        for steps in plan.fine_tune_steps:
            grid["fine_tuned"][f"{task}/{method}_{steps}/{seed}"] = _rounded(
                training.accuracy_by_position(training.at_checkpoint(tuned, steps), length))


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
    if scheme == "t5" and task in _T5_TASKS and seed == plan.seeds[0]:
        grid["t5"][task] = _t5_evidence(model, _MAP_MULTIPLE)
    if task == _MAP_TASK and seed == plan.seeds[0] and scheme in SCHEMES:  # notebook 10's maps
        long = training.attention_maps(model, _MAP_MULTIPLE * plan.tcfg.length)
        layer, head = _chosen_head(long, COPY_OFFSET, plan.tcfg.length)
        grid["maps"][scheme] = {"layer": layer, "head": head,
                                "weights": np.round(long[layer, head], 2).tolist()}


PARTS = ("curves", "losses", "extensions", "fine_tuned", "maps", "t5", "tables", "long")
Job = tuple[str, str, int, training.TrainConfig]


def _jobs(plan: Plan, cells: set[tuple[str, str, int]] | None) -> list[Job]:
    """(task, scheme, seed, training config) of every model to train (only ``cells`` if given)."""
    jobs = [(task, scheme, seed, plan.tcfg) for task in TASKS for scheme in ALL_SCHEMES
            for seed in plan.seeds]
    jobs += [(task, scheme, seed, plan.tcfg) for task, scheme in (*_BORDERLINE_CELLS,
                                                                  *_BIAS_BORDERLINE_CELLS)
             for seed in plan.extra_seeds]
    if cells is not None:
        return [job for job in jobs if job[:3] in cells]
    longer = replace(plan.tcfg, steps=plan.long_steps)
    return jobs + [(task, scheme, seed, longer) for task, scheme in (*_LONG_CELLS,
                                                                     *_BIAS_LONG_CELLS)
                   for seed in plan.seeds]


def _run_job(job: Job, plan: Plan) -> tuple[dict[str, Any], dict[str, Any]]:
    """Train and evaluate one model; return its entries of the grid and its timing."""
    task, scheme, seed, tcfg = job
    found: dict[str, Any] = {name: {} for name in PARTS}
    start = time.perf_counter()
    model = training.train(scheme, task, seed, tcfg=tcfg, progress=False)
    if tcfg.steps == plan.tcfg.steps:
        _record(model, plan, found)
    else:
        found["long"][f"{task}/{scheme}/{seed}"] = {"curves": _curves(model),
                                                    "losses": _logged(model.losses)}
    timing = {"scheme": scheme, "task": task, "seed": seed, "steps": tcfg.steps,
              "train": model.seconds, "total": time.perf_counter() - start}
    return found, timing


def _executor(stack: ExitStack, jobs: int, scheduler: str | None) -> Callable[..., Iterator[Any]]:
    """The ``map`` that runs the jobs: here one at a time, a pool of ``jobs`` processes, or the
    Dask cluster at ``scheduler`` (dask.distributed's executor; the ``distributed`` extra)."""
    if scheduler is not None:
        try:
            from distributed import Client
        except ImportError as error:
            raise ValueError(f"scheduler {scheduler!r} needs Dask: pip install "
                             "'posenc_lib[distributed]'") from error
        client = stack.enter_context(Client(scheduler))
        return client.get_executor(pure=False).map
    if jobs > 1:
        spawn = multiprocessing.get_context("spawn")
        return stack.enter_context(ProcessPoolExecutor(jobs, mp_context=spawn)).map
    return map


def run_grid(plan: Plan, progress: bool, base: dict[str, Any] | None = None,
             cells: set[tuple[str, str, int]] | None = None, jobs: int = 1,
             scheduler: str | None = None) -> dict[str, Any]:
    """Train and evaluate every model of ``plan`` (``jobs`` processes, or on the Dask cluster
    at ``scheduler``; seeded, so the same results), or with ``cells`` only those, merged into
    ``base``.
    """
    grid: dict[str, Any] = {name: dict(base[name]) if base else {} for name in PARTS}
    grid["timings"] = []
    todo = _jobs(plan, cells)
    bar = tqdm(total=len(todo), desc="grid", unit="model", disable=not progress)
    with ExitStack() as stack:
        run = _executor(stack, jobs, scheduler)
        for found, timing in run(_run_job, todo, [plan] * len(todo)):
            for name in PARTS:
                grid[name].update(found[name])
            grid["timings"].append(timing)
            bar.set_postfix_str(f"{timing['scheme']} on {timing['task']}, seed {timing['seed']}")
            bar.update()
    bar.close()
    return grid


def write_results(grid: dict[str, Any], plan: Plan, out: Path) -> None:
    """Write the grid's JSON files into ``out``."""
    setup = {"train": vars(plan.tcfg), "seeds": list(plan.seeds), "multiples": list(MULTIPLES),
             "extra_seeds": {"seeds": list(plan.extra_seeds),
                             "cells": [list(c) for c in _BORDERLINE_CELLS],
                             "learned_bias_cells": [list(c) for c in _BIAS_BORDERLINE_CELLS]},
             "evaluated_on": {v: t for v, (t, _) in EVAL_TASKS.items()},
             "long": {"steps": plan.long_steps, "cells": [list(c) for c in _LONG_CELLS],
                      "learned_bias_cells": [list(c) for c in _BIAS_LONG_CELLS]},
             "fine_tune": {"multiple": _FINE_TUNE_MULTIPLE, "steps": list(plan.fine_tune_steps),
                           "methods": _FINE_TUNES, "tasks": list(_FINE_TUNE_TASKS)},
             "map": {"task": _MAP_TASK, "multiple": _MAP_MULTIPLE}, "t5_tasks": list(_T5_TASKS)}
    for name, parts in _RESULT_FILES.items():
        write_json(out / f"lab_{name}.json", {"setup": setup, **{p: grid[p] for p in parts}},
                   indent=1 if name in ("curves", "extensions") else None)


def read_results(folder: Path) -> dict[str, Any]:
    """The parts of the grid stored in ``folder``'s JSON files, as :func:`run_grid` makes them."""
    found: dict[str, Any] = {}
    for name, parts in _RESULT_FILES.items():
        data = load(name, folder)
        found.update({part: data.get(part, {}) for part in parts})
    return found


def _resolved_cells(parser: argparse.ArgumentParser, cells: list[str] | None,
                    seeds: list[int] | None) -> set[tuple[str, str, int]] | None:
    """``--cells`` and ``--seeds`` as (task, scheme, seed) triples, or a parser error."""
    if seeds is not None and cells is None:
        parser.error("--seeds needs --cells")
    if cells is None:
        return None
    pairs = {tuple(cell.split("/", 1)) for cell in cells}
    known = {(task, scheme) for task in TASKS for scheme in ALL_SCHEMES}
    if not pairs <= known:
        parser.error(f"--cells must be task/scheme pairs of {sorted(TASKS)} and "
                     f"{ALL_SCHEMES}; got {sorted('/'.join(p) for p in pairs - known)}")
    return {(task, scheme, seed) for task, scheme in known & pairs
            for seed in (seeds or (*_SEEDS, *_EXTRA_SEEDS))}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, with ``--out`` resolved to its default."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="folder of the JSON results (default: results, or "
                        "build/lab-quick with --quick)")
    parser.add_argument("--quick", action="store_true", help="one seed, a few steps (a smoke run)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument("--cells", nargs="+", metavar="TASK/SCHEME", help="train only these "
                        "cells and merge them into --out's results")
    parser.add_argument("--seeds", nargs="+", type=int, help="with --cells: only these seeds")
    parser.add_argument("--jobs", type=int, default=1, help="models trained at once, each in "
                        "a process of its own (default 1; the results do not depend on it)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="a Dask scheduler, e.g. "
                        "tcp://host:8786: train on its cluster instead (the same jobs and "
                        "results; needs the distributed extra on this machine and the workers)")
    parser.add_argument("--offsets", action="store_true", help="run only the offset part: RoPE "
                        "read at positions moved up to 10^8, angles and rotation in low "
                        "precision (lab_offsets.json; a whole run includes it)")
    args = parser.parse_args(argv)
    if args.offsets and args.cells is not None:
        parser.error("--offsets runs the offset part alone; it takes no --cells")
    args.out = Path(args.out or ("build/lab-quick" if args.quick else "results"))
    if args.jobs < 1:
        parser.error(f"--jobs must be a whole number of at least 1; got {args.jobs}")
    args.cells = _resolved_cells(parser, args.cells, args.seeds)
    return args


def _run_offsets(plan: Plan, args: argparse.Namespace) -> None:
    """The offset part: every task's RoPE model of ``plan.seeds`` trained again (seeded: the
    grid's parameters) and read at shifted positions in each precision; lab_offsets.json."""
    start = time.perf_counter()
    with ExitStack() as stack:
        entries, timings = offsets.run_offsets(plan.seeds, plan.tcfg,
                                               _executor(stack, args.jobs, args.scheduler))
    offsets.write_offsets(entries, plan.seeds, plan.tcfg, args.out)
    write_json(Path("build") / "lab_offsets_timings.json", {
        "timings": timings, "minutes": (time.perf_counter() - start) / 60, "jobs": args.jobs})
    write_offsets_figure(args.out, args.out)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    plan = _QUICK if args.quick else Plan()
    if args.offsets or args.cells is None:  # the whole grid includes the offset part
        _run_offsets(plan, args)
    if args.offsets:
        return 0
    start = time.perf_counter()
    base = read_results(args.out) if args.cells else None
    grid = run_grid(plan, progress=not args.no_progress, base=base, cells=args.cells,
                    jobs=args.jobs, scheduler=args.scheduler)
    write_results(grid, plan, args.out)
    minutes = (time.perf_counter() - start) / 60
    write_json(Path("build") / "lab_timings.json", {
        "timings": grid["timings"], "minutes": minutes, "jobs": args.jobs,
        "scheduler": args.scheduler,
        "xla_flags": os.environ.get("XLA_FLAGS", "")})
    write_figures(args.out, args.out)
    print(f"grid of {len(grid['timings'])} models in {minutes:.1f} min", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

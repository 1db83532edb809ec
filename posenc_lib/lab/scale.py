"""Issue 47's robustness check: the headline cells of the grid at one larger configuration.

RoPE, ALiBi and NoPE on ``copy_back`` and ``induction_once`` (PI read from the RoPE models at
evaluation time), five seeds, trained as the grid trains (800 steps of 16 sequences of 32
tokens) but with 4 layers instead of 2, and read at 1x-8x.
Budget: about 45 minutes of wall time with one process (``--jobs 1``) on a machine whose two
cores are shared with five other jobs, which left this process about a third of a core when
it ran. Measured in CPU time (time.process_time) over 20-30 steps: a step of the grid's model
costs 10 ms; at 4 layers, width 128, trained length 64 (the issue's example) 128 ms, so about
110 CPU-s a model with its readings and 55 CPU-min for the 30 models; at 4 layers and width 128
at length 32, 51 ms a step, 23 CPU-min, over 60 min of wall time at that share; at 4 layers,
width 64, 21.5 ms a step, about 20 CPU-s a model and 10 CPU-min in all (the committed run:
10.3 CPU-min, 26.8 min of wall time; ``timings`` in the JSON). So only the depth grows: 4
layers instead of 2, twice the blocks' parameters, with the same heads (4 of size 16, so the
same rotary pairs and ALiBi slopes), the same tasks and the same training budget.

Writes ``lab_scale.json`` after every model, so a stopped run keeps what it finished:
``python -m posenc_lib.lab.scale [--quick] [--out FOLDER] [--jobs N]``.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import ExitStack
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from posenc_lib.lab import train as training
from posenc_lib.lab.experiments import _curves, _executor, _logged
from posenc_lib.lab.model import ModelConfig
from posenc_lib.lab.results import MULTIPLES, write_json

SCALE_MODEL = ModelConfig(n_layers=4)  # the grid's has 2
SCALE_TRAIN = training.TrainConfig()  # as the grid's: 800 steps, batch 16, length 32
SCALE_TASKS = ("copy_back", "induction_once")
SCALE_SCHEMES = ("rope", "alibi", "nope")
SCALE_SEEDS = (0, 1, 2, 3, 4)
_EXTENSION = "pi"  # read from every RoPE model, as the grid's extension results are
_QUICK_TRAIN = replace(SCALE_TRAIN, steps=60, warmup=10)

Job = tuple[str, str, int, training.TrainConfig]


def scale_jobs(seeds: tuple[int, ...] = SCALE_SEEDS,
               tcfg: training.TrainConfig = SCALE_TRAIN) -> list[Job]:
    """(task, scheme, seed, training) of every model, seed by seed: a run stopped early still
    holds whole seeds of every cell."""
    return [(task, scheme, seed, tcfg) for seed in seeds for task in SCALE_TASKS
            for scheme in SCALE_SCHEMES]


def run_scale_job(job: Job) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Train and read one model of the larger configuration: its curves (the RoPE models also
    under PI), its logged losses and its timing."""
    task, scheme, seed, tcfg = job
    start, cpu = time.perf_counter(), time.process_time()
    model = training.train(scheme, task, seed, tcfg=tcfg, cfg=SCALE_MODEL, progress=False)
    curves = {f"{task}/{scheme}/{seed}": _curves(model)}
    if scheme == "rope":
        curves[f"{task}/{_EXTENSION}/{seed}"] = _curves(model, _EXTENSION)
    timing = {"task": task, "scheme": scheme, "seed": seed, "train": round(model.seconds, 1),
              "total": round(time.perf_counter() - start, 1),
              "cpu": round(time.process_time() - cpu, 1)}
    return curves, {f"{task}/{scheme}/{seed}": _logged(model.losses)}, timing


def _setup(tcfg: training.TrainConfig, seeds: tuple[int, ...], jobs: int) -> dict[str, Any]:
    return {"model": asdict(SCALE_MODEL), "grid_model": asdict(ModelConfig()),
            "train": asdict(tcfg), "seeds": list(seeds), "tasks": list(SCALE_TASKS),
            "schemes": list(SCALE_SCHEMES), "extension": _EXTENSION,
            "multiples": list(MULTIPLES), "budget_minutes": 45, "jobs": jobs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="folder of lab_scale.json (default: results, or "
                        "build/lab-quick with --quick)")
    parser.add_argument("--quick", action="store_true", help="one seed, 60 steps (a smoke run)")
    parser.add_argument("--jobs", type=int, default=1, help="models trained at once")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be a whole number of at least 1; got {args.jobs}")
    out = Path(args.out or ("build/lab-quick" if args.quick else "results")) / "lab_scale.json"
    seeds, tcfg = ((0,), _QUICK_TRAIN) if args.quick else (SCALE_SEEDS, SCALE_TRAIN)
    found: dict[str, Any] = {"setup": _setup(tcfg, seeds, args.jobs), "curves": {}, "losses": {},
                             "timings": []}
    start = time.perf_counter()
    with ExitStack() as stack:
        for curves, losses, timing in _executor(stack, args.jobs, None)(
                run_scale_job, scale_jobs(seeds, tcfg)):
            found["curves"].update(curves)
            found["losses"].update(losses)
            found["timings"].append(timing)
            found["minutes"] = round((time.perf_counter() - start) / 60, 1)
            write_json(out, found)
            print(f"{timing['scheme']} on {timing['task']}, seed {timing['seed']}: "
                  f"{timing['total']:.0f} s ({timing['cpu']:.0f} s CPU)", file=sys.stderr,
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

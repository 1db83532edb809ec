"""The lab's full grid, behind ``make experiments``: every scheme x task x seed, evaluated at
1x, 2x, 4x and 8x the trained length, RoPE's context extensions, PI with a short fine-tune,
attention maps and the learned table. Writes ``results/*.json`` and ``figures/lab_*.png``.

Usage::

    python -m posenc_lib.lab.experiments [--out results] [--figures figures] [--quick]

The results are deterministic given the versions in constraints.txt: data, initialisation and
evaluation are all seeded.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from posenc_lib.lab.figures import write_figures
from posenc_lib.lab.results import MULTIPLES, write_json
from posenc_lib.lab.schemes import SCHEMES
from posenc_lib.lab.tasks import COPY_OFFSET, TASKS
from posenc_lib.lab.train import (
    TrainConfig,
    Trained,
    accuracy_by_position,
    attention_maps,
    fine_tune,
    train,
)

SEEDS = (0, 1, 2)
ROPE_EXTENSIONS = ("pi", "ntk", "dynamic", "yarn")
TRAIN = TrainConfig()
FINE_TUNE_MULTIPLE = 4
FINE_TUNE_STEPS = 60
MAP_MULTIPLE = 4
MAP_TASK = "copy_back"


def _rounded(values: np.ndarray, digits: int = 4) -> list[float | None]:
    return [None if np.isnan(v) else round(float(v), digits) for v in values]


def _curves(model: Trained, extension: str = "none") -> dict[str, list[float | None]]:
    length = model.tcfg.length
    return {str(m): _rounded(accuracy_by_position(model, m * length, extension=extension))
            for m in MULTIPLES}


def _chosen_head(maps: np.ndarray, offset: int, length: int) -> tuple[int, int]:
    """The (layer, head) whose queries put most weight on the key ``offset`` back, in training."""
    rows = np.arange(offset, length)
    mass = maps[:, :, rows, rows - offset].mean(-1)  # (layers, heads)
    layer, head = np.unravel_index(int(np.argmax(mass)), mass.shape)
    return int(layer), int(head)


def run_grid(seeds: tuple[int, ...], tcfg: TrainConfig, progress: bool) -> dict[str, Any]:
    """Train every scheme x task x seed and evaluate; return everything the JSON files hold."""
    curves: dict[str, Any] = {}
    extensions: dict[str, Any] = {}
    fine_tuned: dict[str, Any] = {}
    maps: dict[str, Any] = {}
    tables: dict[str, Any] = {}
    timings: list[dict[str, Any]] = []
    for task in TASKS:
        for scheme in SCHEMES:
            for seed in seeds:
                model = train(scheme, task, seed, tcfg=tcfg, progress=progress)
                timings.append({"scheme": scheme, "task": task, "seed": seed,
                                "seconds": model.seconds, "compile": model.compile_seconds})
                key = f"{task}/{scheme}/{seed}"
                curves[key] = _curves(model)
                if scheme == "rope":
                    extensions.update({f"{task}/{ext}/{seed}": _curves(model, ext)
                                       for ext in ROPE_EXTENSIONS})
                    length = FINE_TUNE_MULTIPLE * tcfg.length
                    tuned = fine_tune(model, "pi", length, steps=FINE_TUNE_STEPS,
                                      progress=progress)
                    fine_tuned[f"{task}/pi_fine_tuned/{seed}"] = _rounded(
                        accuracy_by_position(tuned, length, extension="pi"))
                if scheme == "learned" and seed == seeds[0]:
                    tables[task] = np.round(np.asarray(model.params["wpe"][: tcfg.length]),
                                            4).tolist()
                if task == MAP_TASK and seed == seeds[0]:
                    long = attention_maps(model, MAP_MULTIPLE * tcfg.length)
                    layer, head = _chosen_head(long, COPY_OFFSET, tcfg.length)
                    maps[scheme] = {"layer": layer, "head": head,
                                    "weights": np.round(long[layer, head], 2).tolist()}
    return {"curves": curves, "extensions": extensions, "fine_tuned": fine_tuned,
            "maps": maps, "tables": tables, "timings": timings}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results", help="folder of the JSON results")
    parser.add_argument("--figures", default="figures", help="folder of the lab_*.png figures")
    parser.add_argument("--quick", action="store_true", help="one seed, 100 steps (a smoke run)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    args = parser.parse_args(argv)
    seeds = SEEDS[:1] if args.quick else SEEDS
    tcfg = TrainConfig(steps=100) if args.quick else TRAIN
    start = time.perf_counter()
    grid = run_grid(seeds, tcfg, progress=not args.no_progress)
    out = Path(args.out)
    setup = {"train": vars(tcfg), "seeds": list(seeds), "multiples": list(MULTIPLES),
             "fine_tune": {"multiple": FINE_TUNE_MULTIPLE, "steps": FINE_TUNE_STEPS},
             "map": {"task": MAP_TASK, "multiple": MAP_MULTIPLE}}
    write_json(out / "lab_curves.json", {"setup": setup, "curves": grid["curves"]})
    write_json(out / "lab_extensions.json", {"setup": setup, "extensions": grid["extensions"],
                                             "fine_tuned": grid["fine_tuned"]})
    write_json(out / "lab_attention.json", {"setup": setup, "maps": grid["maps"]}, indent=None)
    write_json(out / "lab_learned_table.json", {"setup": setup, "tables": grid["tables"]},
               indent=None)
    minutes = (time.perf_counter() - start) / 60
    timing_note = {"timings": grid["timings"], "minutes": minutes,
                   "xla_flags": os.environ.get("XLA_FLAGS", "")}
    Path("build").mkdir(exist_ok=True)
    write_json(Path("build") / "lab_timings.json", timing_note)

    write_figures(out, Path(args.figures))
    print(f"grid of {len(grid['curves'])} models in {minutes:.1f} min", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

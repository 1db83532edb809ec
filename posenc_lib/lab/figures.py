"""The lab's figures, drawn from the committed results into ``results/lab_*.png``.

Usage: ``python -m posenc_lib.lab.figures [--results results] [--out results]`` (``make
experiments`` calls it after the grid). The PNG files carry no ``Software`` metadata, so
rebuilding gives the same bytes with the same versions.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from posenc_lib import sinusoidal_encoding
from posenc_lib.lab.plots import (
    plot_attention,
    plot_extrapolation,
    plot_learning_curves,
    plot_position_curves,
    plot_similarity,
)
from posenc_lib.lab.results import cosine_similarity, load, mean_curves, summary
from posenc_lib.lab.schemes import SCHEMES
from posenc_lib.lab.tasks import EVAL_TASKS, TASKS

__all__ = ["write_figures"]


def _save(figure: Figure, path: Path) -> None:
    FigureCanvasAgg(figure)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".png")
    os.close(handle)
    figure.savefig(temporary, format="png", dpi=100, metadata={"Software": None})
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)


def write_figures(results: Path, out: Path) -> list[Path]:
    """Draw every lab figure from the JSON in ``results`` into ``out``; return the paths."""
    import matplotlib

    from posenc_lib.plots import use_course_style

    with matplotlib.rc_context():
        use_course_style()
        return _write(results, out)


def _write(results: Path, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    curves = load("curves", results)
    length = int(curves["setup"]["train"]["length"])
    stats = summary(curves["curves"], length)
    extensions = load("extensions", results)
    ext_stats = summary({**extensions["extensions"], **{
        k: v for k, v in curves["curves"].items() if "/rope/" in k}}, length)
    written = []
    panels = (*TASKS, *EVAL_TASKS)
    figure = Figure(figsize=(17.0, 4.0))
    for k, (ax, task) in enumerate(zip(figure.subplots(1, len(panels)), panels, strict=True)):
        plot_extrapolation(stats, task, SCHEMES, ax=ax, legend=k == len(panels) - 1)
    written.append(out / "lab_extrapolation.png")
    _save(figure, written[-1])
    figure = Figure(figsize=(14.0, 4.0))
    methods = ("rope", "pi", "ntk", "dynamic", "yarn")
    for k, (ax, task) in enumerate(zip(figure.subplots(1, len(TASKS)), TASKS, strict=True)):
        plot_extrapolation(ext_stats, task, methods, ax=ax, title=f"RoPE extended: {task}",
                           legend=k == len(TASKS) - 1)
    written.append(out / "lab_rope_extensions.png")
    _save(figure, written[-1])
    written.append(out / "lab_learning_curves.png")
    _save(_learning_curves(curves), written[-1])
    figure = Figure(figsize=(13.0, 4.0))
    for ax, task in zip(figure.subplots(1, len(TASKS)), TASKS, strict=True):
        plot_position_curves(mean_curves(curves["curves"], task, SCHEMES, 8), length, ax=ax,
                             title=f"{task} at 8x")
    written.append(out / "lab_position_curves.png")
    _save(figure, written[-1])
    maps = load("attention", results)["maps"]
    figure = plot_attention({f"{s} (layer {m['layer']}, head {m['head']})":
                             np.asarray(m["weights"]) for s, m in maps.items()}, length)
    written.append(out / "lab_attention.png")
    _save(figure, written[-1])
    learned = load("learned_table", results)["tables"]
    d_model = len(next(iter(learned.values()))[0])
    matrices = {f"learned ({task})": cosine_similarity(table) for task, table in learned.items()}
    matrices["sinusoidal"] = cosine_similarity(sinusoidal_encoding(length, d_model))
    written.append(out / "lab_learned_table.png")
    _save(plot_similarity(matrices), written[-1])
    return written


def _learning_curves(curves: dict[str, Any]) -> Figure:
    """The cells trained longer: their losses at the grid's budget and at the longer one."""
    cells = curves["setup"]["long"]["cells"]
    steps = (curves["setup"]["train"]["steps"], curves["setup"]["long"]["steps"])
    figure = Figure(figsize=(4.5 * len(cells), 3.6))
    for ax, (task, scheme) in zip(figure.subplots(1, len(cells), squeeze=False)[0], cells,
                                  strict=True):
        runs = {f"{n} steps": [v["losses"] if n == steps[1] else curves["losses"][k]
                               for k, v in curves["long"].items()
                               if k.rsplit("/", 1)[0] == f"{task}/{scheme}"]
                for n in steps[::-1]}  # the grid's budget drawn last, on top
        plot_learning_curves(runs, ax=ax, title=f"{scheme} on {task}")
    return figure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="results", help="folder of the lab_*.json files")
    parser.add_argument("--out", default="results", help="folder for the lab_*.png figures")
    args = parser.parse_args(argv)
    for path in write_figures(Path(args.results), Path(args.out)):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

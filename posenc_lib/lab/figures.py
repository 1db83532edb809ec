"""The lab's figures, drawn from the committed results into ``results/lab_*.png``.

``make experiments`` draws them after the grid. The PNG files carry no ``Software`` metadata,
so rebuilding gives the same bytes with the same versions.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from posenc_lib import sinusoidal_encoding
from posenc_lib.lab import plots
from posenc_lib.lab.results import (
    Stats,
    cosine_similarity,
    load,
    mean_curves,
    offset_stats,
    summary,
)
from posenc_lib.lab.schemes import SCHEMES
from posenc_lib.lab.tasks import EVAL_TASKS, TASKS

__all__ = ["write_figures", "write_offsets_figure"]

_BIN = 8  # positions per point of the per-position curves (one position scores few tokens)


def write_figures(results: Path, out: Path) -> list[Path]:
    """Draw every lab figure from the JSON in ``results`` into ``out``; return the paths."""
    return _saved(_figures(results), out)


def write_offsets_figure(results: Path, out: Path) -> list[Path]:
    """Draw ``lab_offsets.png`` (accuracy against the offset) from ``results`` into ``out``."""
    return _saved(iter([("offsets", _offsets(load("offsets", results)))]), out)


def _saved(figures: Iterator[tuple[str, Figure]], out: Path) -> list[Path]:
    import matplotlib

    from posenc_lib.plots import save_figure, use_course_style

    out.mkdir(parents=True, exist_ok=True)
    with matplotlib.rc_context():
        use_course_style()
        return [save_figure(figure, out / f"lab_{name}.png", dpi=100) for name, figure in figures]


def _offsets(data: dict[str, Any]) -> Figure:
    """One panel per task: accuracy against the offset, one line per precision variant."""
    setup = data["setup"]
    stats = offset_stats(data)
    figure = Figure(figsize=(4.0 * len(setup["tasks"]), 4.0), layout="constrained")
    axes = figure.subplots(1, len(setup["tasks"]), squeeze=False)[0]
    for k, (ax, task) in enumerate(zip(axes, setup["tasks"], strict=True)):
        plots.plot_offsets(stats, task, setup["variants"], setup["offsets"], ax=ax,
                           legend=k == len(axes) - 1)
    return figure


def _extrapolation(stats: Stats, tasks: tuple[str, ...], methods: tuple[str, ...],
                   width: float, title: str = "") -> Figure:
    figure = Figure(figsize=(width, 4.0))
    for k, (ax, task) in enumerate(zip(figure.subplots(1, len(tasks)), tasks, strict=True)):
        plots.plot_extrapolation(stats, task, methods, ax=ax, title=title + task if title
                                 else None, legend=k == len(tasks) - 1)
    return figure


def _figures(results: Path) -> Iterator[tuple[str, Figure]]:
    """(name, Figure) of every lab figure, drawn one after the other."""
    curves = load("curves", results)
    length = int(curves["setup"]["train"]["length"])
    yield "extrapolation", _extrapolation(summary(curves["curves"], length),
                                          (*TASKS, *EVAL_TASKS), SCHEMES, 17.0)
    extensions = {**load("extensions", results)["extensions"],
                  **{k: v for k, v in curves["curves"].items() if "/rope/" in k}}
    yield "rope_extensions", _extrapolation(summary(extensions, length), tuple(TASKS),
                                            ("rope", "pi", "ntk", "dynamic", "yarn"), 14.0,
                                            "RoPE extended: ")
    yield "learning_curves", _learning_curves(curves)
    figure = Figure(figsize=(15.0, 4.0))
    for k, (ax, task) in enumerate(zip(figure.subplots(1, len(TASKS)), TASKS, strict=True)):
        plots.plot_position_curves(mean_curves(curves["curves"], task, SCHEMES, 8), length,
                                   ax=ax, title=f"{task} at 8x", legend=k == len(TASKS) - 1,
                                   width=_BIN)
    yield "position_curves", figure
    maps = load("attention", results)["maps"]
    yield "attention", plots.plot_attention({f"{s} (layer {m['layer']}, head {m['head']})":
                                             np.asarray(m["weights"]) for s, m in maps.items()},
                                            length)
    learned = load("learned_table", results)["tables"]
    d_model = len(next(iter(learned.values()))[0])
    matrices = {f"learned ({task})": cosine_similarity(table) for task, table in learned.items()}
    matrices["sinusoidal"] = cosine_similarity(sinusoidal_encoding(length, d_model))
    yield "learned_table", plots.plot_similarity(matrices)


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
        plots.plot_learning_curves(runs, ax=ax, title=f"{scheme} on {task}")
    return figure


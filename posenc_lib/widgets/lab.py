"""Explorer of accuracy by position, from the committed results, for every position scheme.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

from pathlib import Path

import ipywidgets
import numpy as np

from posenc_lib._checks import check_choice
from posenc_lib.lab.results import MULTIPLES, load, mean_curves
from posenc_lib.lab.schemes import SCHEMES
from posenc_lib.lab.tasks import EVAL_TASKS, TASKS
from posenc_lib.widgets._base import Explorer

__all__ = ["LabCurvesExplorer"]


class LabCurvesExplorer(Explorer):
    """Accuracy by position of every scheme, with length-multiple and task controls."""

    def __init__(self, task: str = "copy_back", multiple: int = 4,
                 folder: Path | None = None) -> None:
        check_choice("task", task, (*TASKS, *EVAL_TASKS))
        if multiple not in MULTIPLES:
            raise ValueError(f"multiple must be one of {MULTIPLES}; got {multiple!r}")
        super().__init__(figsize=(8.4, 3.6))
        results = load("curves", folder)
        self.entries = results["curves"]
        self.length = int(results["setup"]["train"]["length"])
        with self.style():
            self.axes = self.figure.add_subplot()
            self.lines = {s: self.axes.plot([], [], label=s, linewidth=1.2)[0] for s in SCHEMES}
            self.axes.axvline(self.length, color="0.3", linestyle="--", linewidth=1)
            self.axes.set_ylim(-0.03, 1.03)
            self.axes.set_xlabel("position")
            self.axes.set_ylabel("accuracy (mean of seeds)")
            self.axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
            self.title = self.axes.set_title("", y=1.0)  # fixed y: drawn alone
        self.changing = [*self.lines.values(), self.title]
        self.add_control("multiple", ipywidgets.SelectionSlider(
            options=[(f"{m}x", m) for m in MULTIPLES], value=multiple, description="length"))
        self.add_control("task", ipywidgets.Dropdown(options=[*TASKS, *EVAL_TASKS], value=task,
                                                     description="task"))
        self.refresh()

    def background_key(self) -> int:
        return int(self.values()["multiple"])  # the x axis spans the evaluated length

    def update(self, multiple: int, task: str) -> None:  # type: ignore[override]
        self.axes.set_xlim(0, multiple * self.length)
        curves = mean_curves(self.entries, task, SCHEMES, multiple)
        for scheme, line in self.lines.items():
            line.set_data(np.arange(len(curves[scheme])), curves[scheme])
        self.title.set_text(f"{task}: trained on {self.length} tokens, "
                            f"evaluated on {multiple * self.length}")

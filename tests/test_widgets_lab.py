"""Headless tests of the notebook-10 explorer: accuracy curves from the committed results."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.lab.results import load, mean_curves
from posenc_lib.lab.schemes import SCHEMES
from posenc_lib.widgets.lab import LabCurvesExplorer
from tests.explorer_checks import assert_changes_in_place


@pytest.fixture
def explorer() -> LabCurvesExplorer:
    return LabCurvesExplorer(task="copy_back", multiple=2)


def artists(explorer: LabCurvesExplorer) -> tuple[object, ...]:
    return (*explorer.lines.values(), explorer.title)


def state(explorer: LabCurvesExplorer) -> tuple[object, ...]:
    return (tuple(len(line.get_xdata()) for line in explorer.lines.values()),
            tuple(np.nan_to_num(np.asarray(line.get_ydata(), dtype=float)).round(6).tobytes()
                  for line in explorer.lines.values()),
            explorer.title.get_text())


def test_the_lines_are_the_seed_means_of_the_results(explorer: LabCurvesExplorer) -> None:
    curves = load("curves")["curves"]
    rope = [curves[key]["2"] for key in curves if key.startswith("copy_back/rope/")]
    assert len(rope) >= 5
    want = np.mean(np.array(rope, dtype=float), axis=0)  # None -> nan, then the seed mean
    np.testing.assert_allclose(explorer.lines["rope"].get_ydata(), want, equal_nan=True)
    assert set(explorer.lines) == set(SCHEMES)
    assert explorer.title.get_text().endswith("evaluated on 64")
    assert explorer.axes.get_xlim() == (0, 64)  # the axis spans the evaluated length


def test_the_length_slider_changes_the_curves_in_place(explorer: LabCurvesExplorer) -> None:
    assert_changes_in_place(explorer, "multiple", 8, artists, state)
    assert len(explorer.lines["alibi"].get_xdata()) == 256
    assert explorer.axes.get_xlim() == (0, 256)


def test_the_task_dropdown_changes_the_curves_in_place(explorer: LabCurvesExplorer) -> None:
    assert_changes_in_place(explorer, "task", "induction", artists, state)
    want = mean_curves(load("curves")["curves"], "induction", ["t5"], 2)["t5"]
    np.testing.assert_allclose(explorer.lines["t5"].get_ydata(), want, equal_nan=True)


def test_bad_arguments_name_the_parameter() -> None:
    with pytest.raises(ValueError, match="multiple"):
        LabCurvesExplorer(multiple=3)
    near = LabCurvesExplorer(task="induction_near")  # the control task is offered too
    assert "induction_near" in near.controls["task"].options
    with pytest.raises(ValueError, match="task"):
        LabCurvesExplorer(task="sorting")

"""Exercises with instant feedback: ``ex.check(answer)``, ``ex.hint()`` and ``ex.hand_in(answer)``.

Notebooks: 00_why_position to 11_figure_gallery (module ``nbNN`` for notebook NN).

For example ``from posenc_lib.exercises import nb02`` then ``nb02.half_turns.check(my_answer)``.
Build steps: ``my_theta = nb02.steps.division_term.check(inverse_frequencies_by_me)``
(posenc_lib.exercises._steps). The library holds the checks and the hints, never the solutions
(those live only in the source notebooks' solution cells). Passes are recorded locally;
``progress()`` shows them per notebook. The exercises' titles, objectives and hints are course
prose, one TOML file per notebook in ``prose/`` (posenc_lib.exercises._prose).
"""

from __future__ import annotations

import importlib

from posenc_lib.exercises._core import (
    KINDS,
    LEVELS,
    NOT_ANSWERED,
    CheckResult,
    Exercise,
    Mistake,
    Shortcut,
)
from posenc_lib.exercises._progress import progress
from posenc_lib.exercises._steps import BuildStep

_NOTEBOOK_MODULES = tuple(importlib.import_module(f"posenc_lib.exercises.nb{number:02d}")
                          for number in range(12))
"""The exercise module of every notebook, nb00 to nb11, in course order (importing one makes it
an attribute of this package: ``from posenc_lib.exercises import nb02``)."""

__all__ = ["KINDS", "LEVELS", "NOT_ANSWERED", "BuildStep", "CheckResult", "Exercise",
           "Mistake", "Shortcut", "all_exercises", "all_steps", "progress"]


def all_exercises() -> dict[str, Exercise]:
    """Return every exercise of the course by key ("02.half_turns"), in notebook order."""
    return {value.key: value for module in _NOTEBOOK_MODULES for value in vars(module).values()
            if isinstance(value, Exercise)}


def all_steps() -> dict[str, BuildStep]:
    """Return every build step of the course by key ("02.steps.division_term"), in notebook
    order (a notebook's steps sit in ``nbNN.steps``)."""
    modules = [module.steps for module in _NOTEBOOK_MODULES if hasattr(module, "steps")]
    return {value.key: value for steps in modules for value in vars(steps).values()
            if isinstance(value, BuildStep)}

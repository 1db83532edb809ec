"""Shared by the tests of build steps and predictions (issue 32 items 1-2)."""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.test_statements_07_11 import outputs_text
from tools.notebook_cells import load, source


def assert_not_given_away(path: Path, guess: str, words: Sequence[str]) -> None:
    """No give-away word in the markdown above the prompt of ``guess``, and no give-away
    number (not a digit run inside another number) in the outputs above it."""
    cells = load(path)["cells"]
    at = next(i for i, c in enumerate(cells) if source(c).startswith(f"{guess} = None"))
    prompt = max(i for i in range(at) if source(cells[i]).startswith("**Predict"))
    above_md = " ".join(source(c) for c in cells[:prompt] if c["cell_type"] == "markdown")
    above_out = " ".join(outputs_text(c) for c in cells[:prompt] if c["cell_type"] == "code")
    for word in words:
        assert word not in above_md, (guess, word)
        if any(ch.isdigit() for ch in word):
            number = rf"(?<![\d,.]){re.escape(word)}(?![\d,])"
            assert not re.search(number, above_out), (guess, word)


# --- build steps as course objects (issue 45): data shared by test_build_steps_objects.py and
# test_build_steps_pictures.py. To add a notebook's steps, add its line to NOTEBOOK_STEPS. -----

# notebook number -> its build steps in notebook order: (key, what the learner sees when the
# step is wrong: "picture", a figure of yours beside posenc_lib's, or "print", printed values)
NOTEBOOK_STEPS: dict[str, tuple[tuple[str, str], ...]] = {
    "01": (("01.steps.binary_table", "picture"), ("01.steps.smooth_wave", "picture")),
    "02": (("02.steps.division_term", "picture"), ("02.steps.sinusoidal_table", "picture")),
    "03": (("03.steps.offset_similarity_f", "print"), ("03.steps.direction_count", "print")),
    "04": (("04.steps.pair_shift", "print"), ("04.steps.shift", "picture")),
    "05": (("05.steps.rope", "picture"), ("05.steps.rope_half", "print")),
    "06": (("06.steps.pi", "picture"), ("06.steps.ntk", "picture"), ("06.steps.yarn", "picture")),
    "07": (("07.steps.t5_bucket", "picture"), ("07.steps.alibi", "picture")),
    "08": (("08.steps.angles", "print"), ("08.steps.sincos", "print")),
    "09": (("09.steps.rotated_dims", "print"), ("09.steps.inv_freq", "picture")),
}
STEP_KEYS = [key for steps in NOTEBOOK_STEPS.values() for key, _ in steps]
NUDGE = 1.01
"""The right solution's result times this is the wrong version the picture tests run."""


def notebook_path(number: str) -> Path:
    from tools.notebook_cells import ROOT

    return next((ROOT / "notebooks").glob(f"{number}_*.ipynb"))


def the_step(key: str) -> Any:
    from posenc_lib.exercises import all_steps

    return all_steps()[key]


def check_line(step: Any) -> str:
    """The check statement of a step's check cell: ``name = nbNN.steps.x.check(x_by_me)``."""
    return f".steps.{step.key.split('.', 2)[2]}.check({step.answer_name})"


def check_cell_index(cells: Sequence[dict], step: Any) -> int:
    """The index of the check cell of ``step`` among ``cells``."""
    return next(i for i, c in enumerate(cells) if c["cell_type"] == "code"
                and check_line(step) in source(c))


def step_cell_indices(cells: Sequence[dict], step: Any) -> tuple[int, int]:
    """(stub, check) cell indices of ``step`` among ``cells`` (a source or a student copy)."""
    check = check_cell_index(cells, step)
    stub = max(i for i in range(check)
               if re.search(rf"^def {step.answer_name}\(", source(cells[i]), re.M)
               and "raise NotImplementedError" in source(cells[i]))
    return stub, check


def solution_of(cells: Sequence[dict], step: Any) -> str:
    """The code of the source notebook's solution cell of ``step``."""
    from tools.notebook_cells import BEGIN, END, tags

    body = next(source(c) for c in cells if "solution" in tags(c)
                and re.search(rf"^def {step.answer_name}\(", source(c), re.M))
    return body.split(BEGIN, 1)[1].split(END, 1)[0]


def adopted_name(cells: Sequence[dict], step: Any) -> str:
    """The name the check cell binds: ``my_theta`` in ``my_theta = nb02.steps...check(...)``."""
    check = check_cell_index(cells, step)
    line = next(line for line in source(cells[check]).splitlines() if check_line(step) in line)
    return line.split("=", 1)[0].strip()


def solved_namespace(number: str) -> dict[str, Any]:
    """The notebook's solutions run in order with their check lines, as a learner who solved
    every step has them (stdout swallowed): the right functions and the adopted ones."""
    import importlib

    import numpy as np

    cells = load(notebook_path(number))["cells"]
    module = importlib.import_module(f"posenc_lib.exercises.nb{number}")
    space: dict[str, Any] = {"np": np, f"nb{number}": module}
    with contextlib.redirect_stdout(io.StringIO()):
        for key, _ in NOTEBOOK_STEPS[number]:
            step = the_step(key)
            exec(solution_of(cells, step), space)
            exec(f"{adopted_name(cells, step)} = nb{number}{check_line(step)}", space)
    return space


def disguises(step: Any) -> dict[str, Callable[..., Any]]:
    """Three functions that return the library's result for ``step``: a direct call, a call
    through the module attribute, and a call under an alias of the import."""
    function = step.shortcuts[0]
    module, name = function.__module__, function.__name__
    args = ", ".join(step.cases[0])
    codes = {
        "direct": f"from {module} import {name}\ndef yours({args}):\n    return {name}({args})",
        "module attribute": f"import {module}\ndef yours({args}):\n"
                            f"    return {module}.{name}({args})",
        "alias": f"from {module} import {name} as helper\ndef yours({args}):\n"
                 f"    return helper({args})",
    }
    made = {}
    for label, code in codes.items():
        space: dict[str, Any] = {}
        exec(code, space)
        made[label] = space["yours"]
    return made

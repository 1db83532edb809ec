"""Exercises with instant feedback: ``ex.check(answer)``, ``ex.hint()``, ``ex.solution()``.

Each notebook's exercises live in a module of this package named after the notebook
(``nb02`` for 02_sinusoidal_formula), for example::

    from posenc_lib.exercises import nb02
    nb02.division_term.check(my_answer)

Passed exercises are recorded locally; ``progress()`` shows a table of them per notebook.
"""

from __future__ import annotations

import importlib
import pkgutil

from posenc_lib.exercises._core import NOT_ANSWERED, CheckResult, Exercise, Mistake
from posenc_lib.exercises._progress import progress

__all__ = ["NOT_ANSWERED", "CheckResult", "Exercise", "Mistake", "all_exercises", "progress"]


def all_exercises() -> dict[str, Exercise]:
    """Every exercise of the course, by key ("02.division_term"), in notebook order.

    Returns
    -------
    dict of str to Exercise
        Found by importing each ``nbNN`` module of this package.
    """
    found: dict[str, Exercise] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("nb") or not info.name[2:].isdigit():
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, Exercise):
                found[value.key] = value
    return found

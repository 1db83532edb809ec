"""Stored inputs of exercises whose parameters are their answer, and stored values of known
mistakes whose computation would give the answer with the exercise's own parameters: numbers
(and one set of scheme names), in ``_data.json`` beside this file, written by
tools/answer_key.py; the parameters and the computations stay in the checkout.

Notebooks: 02_sinusoidal_formula, 05_rope, 06_context_extension, 10_length_generalisation_lab,
11_figure_gallery.
"""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from posenc_lib.exercises._core import while_posed

HIDDEN_DATA: dict[str, list[Any]] = json.loads(
    Path(__file__).with_name("_data.json").read_text(encoding="utf-8"))
"""The numbers, by exercise key."""


def stored_mistake(key: str, index: int, params: dict[str, Any] | None = None
                   ) -> Callable[[], Any]:
    """A :class:`Mistake`'s ``value``: known mistake ``index`` of exercise ``key``, as
    tools/answer_key.py stored it for the values ``params`` holds now (the notebook's); with
    ``params``, None (no mistake named) once a graded release poses others (``while_posed``)."""

    def value() -> Any:
        return HIDDEN_DATA[key][index]

    return value if params is None else while_posed(params, value)

"""Stored inputs of exercises whose parameters are their answer, and stored values of known
mistakes whose computation would give the answer with the exercise's own parameters: numbers
(and one set of scheme names), in ``_data.json`` beside this file, written by
tools/answer_key.py; the parameters and the computations stay in the checkout.

Notebooks: 02_sinusoidal_formula, 05_rope, 06_context_extension, 10_length_generalisation_lab,
11_figure_gallery.
"""

import json
from pathlib import Path
from typing import Any

HIDDEN_DATA: dict[str, list[Any]] = json.loads(
    Path(__file__).with_name("_data.json").read_text(encoding="utf-8"))
"""The numbers, by exercise key."""


def stored_mistake(key: str, index: int, posed: Any = None, own: Any = None) -> Any:
    """Known mistake ``index`` of exercise ``key``, as tools/answer_key.py stored it; None (no
    mistake known, so none is named) when the exercise is ``posed`` with other values than the
    notebook's ``own``, for which the stored value was made (a graded release's draw)."""
    return None if posed != own else HIDDEN_DATA[key][index]

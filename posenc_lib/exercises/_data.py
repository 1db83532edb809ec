"""Stored inputs of exercises whose parameters are their answer: numbers only, in
``_data.json`` beside this file (written by tools/answer_key.py; the parameters stay in the
checkout).

Notebooks: 02_sinusoidal_formula, 06_context_extension.
"""

import json
from pathlib import Path

HIDDEN_DATA: dict[str, list[float]] = json.loads(
    Path(__file__).with_name("_data.json").read_text(encoding="utf-8"))
"""The numbers, by exercise key."""

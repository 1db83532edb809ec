"""Shared by the tests of the notebooks' statements: read the number a sentence states."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

FRACTION_WORDS = {"half": 1 / 2, "third": 1 / 3, "quarter": 1 / 4, "fifth": 1 / 5}
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def stated(pattern: str, text: str, cast: Callable[[str], Any] = float) -> Any:
    """The groups of the first match of ``pattern`` in ``text``, each passed through ``cast``.

    One group gives one value, several give a tuple. The test fails, naming the pattern, when
    no sentence matches: a reworded sentence must be read again, not silently skipped.
    """
    match = re.search(pattern, text)
    assert match is not None, f"no sentence matches {pattern!r}"
    values = tuple(cast(group) for group in match.groups())
    return values[0] if len(values) == 1 else values

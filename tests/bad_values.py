"""Bad values shared by the argument-checking tests."""

from __future__ import annotations

BAD_COUNTS: list[tuple[object, type[Exception]]] = [
    (0, ValueError),
    (-1, ValueError),
    (-3, ValueError),
    (2.0, TypeError),
    (4.0, TypeError),
    (True, TypeError),
    ("4", TypeError),
    (None, TypeError),
]
"""What a count (a number of positions) rejects, with the error: not >= 1, not an int."""

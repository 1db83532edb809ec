"""Input checks of the lab's public functions: each error names the parameter, the value and
what is allowed. (The lab keeps its own few checks so it depends only on the library's stable
public names.)"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

__all__ = ["check_choice", "check_int", "check_positive_float"]


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_int(name: str, value: Any, *, minimum: int = 1) -> int:
    """Return ``value`` as an int, or raise ValueError if it is not an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {_show(value)}")
    return int(value)


def check_positive_float(name: str, value: Any, *, minimum: float = 0.0) -> float:
    """Return ``value`` as a float, or raise ValueError unless it is finite and > ``minimum``."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not ok or not (minimum < float(value) < float("inf")):
        raise ValueError(f"{name} must be a finite number > {minimum:g}; got {_show(value)}")
    return float(value)


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ValueError listing them."""
    allowed = tuple(choices)
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {_show(value)}")
    return value

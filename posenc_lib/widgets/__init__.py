"""Interactive explorers for the notebooks, one module per topic.

Every explorer is a subclass of :class:`Explorer`: it owns its sliders and its artists and
updates them in place. Import one from its topic module or straight from this package::

    from posenc_lib.widgets import Explorer, all_explorers
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from posenc_lib.widgets._base import Explorer

__all__ = ["Explorer", "all_explorers"]


def _topic_modules() -> list[Any]:
    return [
        importlib.import_module(f"{__name__}.{info.name}")
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)
        if not info.name.startswith("_")
    ]


def all_explorers() -> dict[str, type[Explorer]]:
    """Every explorer class of the course, by class name (the benchmark and tests use it)."""
    found: dict[str, type[Explorer]] = {}
    for module in _topic_modules():
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Explorer) and value is not Explorer:
                found[value.__name__] = value
    return found


def __getattr__(name: str) -> Any:
    """Let ``from posenc_lib.widgets import SomeExplorer`` find it in its topic module."""
    explorers = all_explorers()
    if name in explorers:
        return explorers[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

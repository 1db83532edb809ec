"""The library documents itself in one dialect, as DESIGN.md asks.

Every public function of the math modules has numpydoc Parameters, Returns and Notes (where the
formula is written in plain text) and a runnable example. Each module names its notebook once,
in its own docstring, and no docstring uses reStructuredText math.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import posenc_lib
from tests.test_fuzz_public_api import MATH_MODULES

LIBRARY = Path(posenc_lib.__file__).parent
SOURCES = sorted(p for p in LIBRARY.rglob("*.py") if p.name != "__main__.py")
NOTEBOOK_LINE = re.compile(r"^Notebooks?: .*\b\d\d_[a-z0-9_]+", re.M)

FUNCTIONS = [
    (f"{module}.{name}", getattr(importlib.import_module(f"posenc_lib.{module}"), name))
    for module in MATH_MODULES
    for name in importlib.import_module(f"posenc_lib.{module}").__all__
    if inspect.isfunction(getattr(importlib.import_module(f"posenc_lib.{module}"), name))
]


@pytest.mark.parametrize("name,function", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_numpydoc_sections_and_example(name: str, function: Callable[..., object]) -> None:
    doc = inspect.getdoc(function) or ""
    signature = inspect.signature(function)
    if signature.parameters:
        assert re.search(r"\nParameters\n-+\n", doc), f"{name}: no Parameters section"
    if signature.return_annotation not in (None, "None"):
        assert re.search(r"\nReturns\n-+\n", doc), f"{name}: no Returns section"
    assert re.search(r"\nNotes\n-+\n", doc), f"{name}: no Notes section with its formula"
    assert ">>> " in doc, f"{name}: no example (doctest)"


@pytest.mark.parametrize("module", MATH_MODULES)
def test_each_math_module_names_its_notebook_once(module: str) -> None:
    doc = importlib.import_module(f"posenc_lib.{module}").__doc__ or ""
    assert len(NOTEBOOK_LINE.findall(doc)) == 1, f"{module}: no 'Notebook: NN_name' line"


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(LIBRARY)) for p in SOURCES])
def test_one_docstring_dialect(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert ".. math::" not in text, f"{path.name}: write formulas as plain text in Notes"
    assert "Introduced in notebook" not in text, f"{path.name}: name the notebook once, above"

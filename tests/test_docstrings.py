"""Every public function of the math modules documents itself the way DESIGN.md asks:
numpydoc Parameters and Returns, a runnable example, and the notebook that introduces it."""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable

import pytest

from tests.test_fuzz_public_api import MATH_MODULES

FUNCTIONS = [
    (f"{module}.{name}", getattr(importlib.import_module(f"posenc_lib.{module}"), name))
    for module in MATH_MODULES
    for name in importlib.import_module(f"posenc_lib.{module}").__all__
    if inspect.isfunction(getattr(importlib.import_module(f"posenc_lib.{module}"), name))
]


@pytest.mark.parametrize("name,function", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_numpydoc_sections_example_and_notebook(
    name: str, function: Callable[..., object]
) -> None:
    doc = inspect.getdoc(function) or ""
    signature = inspect.signature(function)
    if signature.parameters:
        assert re.search(r"\nParameters\n-+\n", doc), f"{name}: no Parameters section"
    if signature.return_annotation not in (None, "None"):
        assert re.search(r"\nReturns\n-+\n", doc), f"{name}: no Returns section"
    assert ">>> " in doc, f"{name}: no example (doctest)"
    assert re.search(r"notebook|\b\d\d_[a-z_]+", doc), f"{name}: does not name its notebook"

"""What every explorer gets from the Explorer base class: the live view and its rendered PNG."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import ipywidgets
import pytest

import posenc_lib.widgets
from posenc_lib.widgets import EXPLORERS, Explorer


def test_the_tuple_lists_every_explorer_defined_in_the_package() -> None:
    defined = {
        value
        for info in pkgutil.iter_modules(posenc_lib.widgets.__path__)
        for value in vars(importlib.import_module(f"posenc_lib.widgets.{info.name}")).values()
        if inspect.isclass(value) and issubclass(value, Explorer) and value is not Explorer
    }
    assert defined == set(EXPLORERS), "add the new explorer to posenc_lib.widgets.EXPLORERS"


@pytest.mark.parametrize("cls", EXPLORERS, ids=[c.__name__ for c in EXPLORERS])
def test_the_live_view_holds_the_controls_and_the_rendered_png(cls: type[Explorer]) -> None:
    explorer = cls()
    view = explorer.widget()
    controls, picture = view.children
    assert isinstance(explorer.image, ipywidgets.Image)
    assert picture is explorer.image
    assert list(controls.children) == list(explorer.controls.values())
    assert explorer.image.value[:8] == b"\x89PNG\r\n\x1a\n"

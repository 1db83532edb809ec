"""What every explorer gets from the Explorer base class: the live view and its rendered PNG."""

from __future__ import annotations

import ipywidgets
import pytest

from posenc_lib.widgets import all_explorers

EXPLORERS = all_explorers()


@pytest.mark.parametrize("name", sorted(EXPLORERS))
def test_the_live_view_holds_the_controls_and_the_rendered_png(name: str) -> None:
    explorer = EXPLORERS[name]()
    view = explorer.widget()
    controls, picture = view.children
    assert isinstance(explorer.image, ipywidgets.Image)
    assert picture is explorer.image
    assert list(controls.children) == list(explorer.controls.values())
    assert explorer.image.value[:8] == b"\x89PNG\r\n\x1a\n"

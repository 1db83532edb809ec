"""Checks shared by the explorer tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from posenc_lib.widgets import Explorer


def assert_changes_in_place(
    explorer: Explorer,
    name: str,
    value: Any,
    artists: Callable[[Any], tuple[object, ...]],
    state: Callable[[Any], tuple[object, ...]],
) -> None:
    """Setting control ``name`` changes the artists' data and the PNG, never the artists."""
    before, old = artists(explorer), state(explorer)
    n_axes = len(explorer.figure.axes)
    n_lines = [len(ax.lines) for ax in explorer.figure.axes]
    png = explorer.image.value
    explorer.controls[name].value = value
    assert artists(explorer) == before
    assert len(explorer.figure.axes) == n_axes
    assert [len(ax.lines) for ax in explorer.figure.axes] == n_lines
    assert state(explorer) != old
    assert explorer.image.value != png

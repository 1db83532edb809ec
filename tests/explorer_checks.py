"""Checks shared by the explorer tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from posenc_lib.widgets import Explorer


@contextmanager
def changes_in_place(
    explorer: Explorer,
    artists: Callable[[Any], tuple[object, ...]],
    *collections: str,
) -> Iterator[None]:
    """Around a control change: the same artists and axes, a new PNG.

    After the ``with`` body, ``artists(explorer)`` are the same objects, the figure has the same
    axes with as many lines (and as many of each of ``collections``, e.g. "texts" or "images")
    each, and the rendered PNG differs.
    """
    before = artists(explorer)
    n_axes = len(explorer.figure.axes)
    kinds = ("lines", *collections)
    counts = {kind: [len(getattr(ax, kind)) for ax in explorer.figure.axes] for kind in kinds}
    png = explorer.image.value
    yield
    assert artists(explorer) == before
    assert len(explorer.figure.axes) == n_axes
    for kind in kinds:
        assert [len(getattr(ax, kind)) for ax in explorer.figure.axes] == counts[kind], kind
    assert explorer.image.value != png


def assert_registered(cls: type[Explorer]) -> None:
    """``posenc_lib.widgets`` exports ``cls`` under its name and ``EXPLORERS`` maps it there."""
    import posenc_lib.widgets as widgets

    assert {c.__name__: c for c in widgets.EXPLORERS}[cls.__name__] is cls
    assert getattr(widgets, cls.__name__) is cls and cls.__name__ in widgets.__all__


def assert_changes_in_place(
    explorer: Explorer,
    name: str,
    value: Any,
    artists: Callable[[Any], tuple[object, ...]],
    state: Callable[[Any], tuple[object, ...]],
) -> None:
    """Setting control ``name`` changes the artists' data and the PNG, never the artists."""
    old = state(explorer)
    with changes_in_place(explorer, artists):
        explorer.controls[name].value = value
    assert state(explorer) != old


def assert_each_rejected(
    factory: Callable[..., object], error: type[Exception], **bad_values: Any
) -> None:
    """``factory(name=value)`` raises ``error`` naming ``name``, for every bad value."""
    for name, value in bad_values.items():
        with pytest.raises(error, match=name):
            factory(**{name: value})

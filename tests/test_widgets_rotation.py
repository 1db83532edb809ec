"""Headless tests of the notebook-04 explorer: t, k and the pair move the picture in place."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from posenc_lib.widgets.rotation import RotationExplorer
from tests.explorer_checks import assert_each_rejected, assert_registered, changes_in_place


def omega(pair: int, d_model: int = 16, base: float = 1e4) -> float:
    return float(1.0 / base ** (2 * pair / d_model))


def artists(explorer: RotationExplorer) -> tuple[object, ...]:
    c, w = explorer.circle, explorer.waves
    return (c.point, c.rotated, c.arc, *c.labels, w.sine, w.cosine, w.now, w.later,
            explorer.title)


@pytest.fixture
def explorer() -> RotationExplorer:
    return RotationExplorer()


def point(explorer: RotationExplorer) -> np.ndarray:
    return explorer.circle.point.get_xydata()[0]


def rotated(explorer: RotationExplorer) -> np.ndarray:
    return explorer.circle.rotated.get_xydata()[0]


def test_it_is_registered(explorer: RotationExplorer) -> None:
    assert_registered(RotationExplorer)
    # pair 0: theta = 1, k = 3; (sin, cos)(t + k) = [[cos 3, sin 3], [-sin 3, cos 3]] (sin, cos)(t)
    c, s = np.cos(3.0), np.sin(3.0)
    assert explorer.title.get_text() == (
        f"θ = 1, θk = 3.00: M_k = [[{c:.2f}, {s:.2f}], [{-s:.2f}, {c:.2f}]]"
    )


def test_the_point_is_the_pair_and_the_rotation_lands_on_t_plus_k(
    explorer: RotationExplorer,
) -> None:
    t, k, w = 5, 3, omega(0)
    np.testing.assert_allclose(point(explorer), [np.sin(w * t), np.cos(w * t)], atol=1e-12)
    np.testing.assert_allclose(
        rotated(explorer), [np.sin(w * (t + k)), np.cos(w * (t + k))], atol=1e-12
    )
    # the waves' markers sit at t and t + k with the same values
    np.testing.assert_allclose(explorer.waves.now.get_xdata(), [t, t])
    np.testing.assert_allclose(explorer.waves.later.get_ydata(), rotated(explorer), atol=1e-12)


@pytest.mark.parametrize(("name", "value"), [("t", 17), ("k", -8), ("pair", 3)])
def test_each_slider_changes_the_artists_in_place(
    explorer: RotationExplorer, name: str, value: int
) -> None:
    old_rotated = rotated(explorer).copy()
    old_title = explorer.title.get_text()
    with changes_in_place(explorer, artists):
        explorer.controls[name].value = value
    assert not np.allclose(rotated(explorer), old_rotated)
    # the title shows M_k: it changes with k and the pair, never with t
    assert (explorer.title.get_text() != old_title) == (name != "t")
    values = explorer.values()
    w = omega(values["pair"])
    end = values["t"] + values["k"]
    np.testing.assert_allclose(rotated(explorer), [np.sin(w * end), np.cos(w * end)], atol=1e-12)


def test_pair_slider_redraws_the_waves(explorer: RotationExplorer) -> None:
    sine = explorer.waves.sine.get_ydata().copy()
    explorer.controls["pair"].value = 2
    x = explorer.waves.sine.get_xdata()
    np.testing.assert_allclose(explorer.waves.sine.get_ydata(), np.sin(omega(2) * x), atol=1e-12)
    assert not np.allclose(explorer.waves.sine.get_ydata(), sine)


def test_rotation_keeps_the_length_and_title_shows_m_k(explorer: RotationExplorer) -> None:
    explorer.controls["k"].value = 11
    assert np.linalg.norm(rotated(explorer)) == pytest.approx(1.0)
    c, s = np.cos(11 * omega(0)), np.sin(11 * omega(0))
    assert f"[[{c:.2f}, {s:.2f}], [{-s:.2f}, {c:.2f}]]" in explorer.title.get_text()


def test_k_zero_puts_both_points_together(explorer: RotationExplorer) -> None:
    explorer.controls["k"].value = 0
    np.testing.assert_allclose(rotated(explorer), point(explorer), atol=1e-15)


def test_blitted_png_matches_a_full_draw(explorer: RotationExplorer) -> None:
    explorer.controls["t"].value = 30
    blitted = np.asarray(Image.open(io.BytesIO(explorer.image.value)))
    explorer.canvas.draw()
    full = np.asarray(explorer.canvas.buffer_rgba())  # the PNG is RGBA
    differ = np.any(blitted != full, axis=-1).mean()
    assert differ < 0.01, f"{differ:.2%} of the pixels differ"


def test_bad_arguments_are_named() -> None:
    assert_each_rejected(RotationExplorer, ValueError, d_model=9, base=0.5, t=-1)
    assert_each_rejected(RotationExplorer, TypeError, pair=1.5)

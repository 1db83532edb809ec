"""Headless tests of the notebook-03 explorer: every slider changes the artists in place."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from posenc_lib.analysis import local_minima, similarity_matrix
from posenc_lib.sinusoidal import sinusoidal_encoding
from posenc_lib.widgets.properties import SimilarityDecayExplorer
from tests.explorer_checks import assert_each_rejected, assert_registered, changes_in_place


def dot_by_offset(offsets: np.ndarray, d_model: int, base: float) -> np.ndarray:
    """sum_i cos(k / base^(2i/d)), written out independently of posenc_lib."""
    i = np.arange(d_model // 2)
    return np.array([np.sum(np.cos(k / base ** (2 * i / d_model))) for k in offsets])


def artists(explorer: SimilarityDecayExplorer) -> tuple[object, ...]:
    return (explorer.matrix, explorer.curve.line, explorer.curve.bounces, explorer.title)


@pytest.fixture
def explorer() -> SimilarityDecayExplorer:
    return SimilarityDecayExplorer()


def test_it_is_registered(explorer: SimilarityDecayExplorer) -> None:
    assert_registered(SimilarityDecayExplorer)
    curve = dot_by_offset(explorer.offsets, 128, 1e4)
    first = next(k for k in range(1, curve.size - 1) if curve[k - 1] > curve[k] < curve[k + 1])
    assert explorer.title.get_text() == f"d = 128, base = 10000: first bounce at k = {first}"


def test_default_curve_and_matrix_follow_the_formula(explorer: SimilarityDecayExplorer) -> None:
    curve = explorer.curve.line.get_ydata()
    np.testing.assert_allclose(curve, dot_by_offset(explorer.offsets, 128, 1e4) / 64, atol=1e-12)
    expected = similarity_matrix(sinusoidal_encoding(64, 128)) / 64
    np.testing.assert_allclose(explorer.matrix.get_array(), expected, atol=1e-12)


def test_bounces_are_local_minima_and_the_first_is_named(
    explorer: SimilarityDecayExplorer,
) -> None:
    x, y = explorer.curve.bounces.get_data()
    curve = explorer.curve.line.get_ydata()
    assert len(x) > 3
    for k in np.asarray(x, dtype=int):
        assert curve[k - 1] > curve[k] < curve[k + 1]
    assert f"first bounce at k = {int(x[0])}" in explorer.title.get_text()
    # nothing between 1 and the first bounce turns back up: the curve falls until there
    assert np.all(np.diff(curve[: int(x[0]) + 1]) < 0)


@pytest.mark.parametrize(("name", "value"), [("d_model", 512), ("base", 100.0)])
def test_each_slider_changes_the_artists_in_place(
    explorer: SimilarityDecayExplorer, name: str, value: float
) -> None:
    curve = explorer.curve.line.get_ydata().copy()
    matrix = np.array(explorer.matrix.get_array())
    title = explorer.title.get_text()
    with changes_in_place(explorer, artists):
        explorer.controls[name].value = value
    assert not np.allclose(explorer.curve.line.get_ydata(), curve)
    assert not np.allclose(explorer.matrix.get_array(), matrix)
    assert explorer.title.get_text() != title
    d_model = explorer.controls["d_model"].value
    base = explorer.controls["base"].value
    expected = dot_by_offset(explorer.offsets, d_model, base) / (d_model / 2)
    np.testing.assert_allclose(explorer.curve.line.get_ydata(), expected, atol=1e-12)


def test_blitted_png_matches_a_full_draw(explorer: SimilarityDecayExplorer) -> None:
    explorer.controls["d_model"].value = 256
    blitted = np.asarray(Image.open(io.BytesIO(explorer.image.value)))
    explorer.canvas.draw()
    full = np.asarray(explorer.canvas.buffer_rgba())  # the PNG is RGBA
    assert blitted.shape == full.shape
    differ = np.any(blitted != full, axis=-1).mean()
    assert differ < 0.01, f"{differ:.2%} of the pixels differ"


def test_static_picture_after_renders_shows_every_artist(
    explorer: SimilarityDecayExplorer,
) -> None:
    explorer.controls["base"].value = 1000.0
    assert not any(a.get_animated() for a in artists(explorer))  # type: ignore[attr-defined]
    buffer = io.BytesIO()
    explorer.figure.savefig(buffer, format="png", dpi=50)
    explorer.controls["base"].value = 100000.0  # the renderer changed: a new background
    assert bytes(explorer.image.value).startswith(b"\x89PNG")


def test_bad_arguments_are_named() -> None:
    assert_each_rejected(SimilarityDecayExplorer, ValueError, d_model=7, base=1.0, n_positions=1)
    assert_each_rejected(SimilarityDecayExplorer, TypeError, max_offset=2.5)


def test_local_minima() -> None:
    assert local_minima(np.array([3.0, 1.0, 2.0, 0.5, 0.7, 0.2])).tolist() == [1, 3]
    assert local_minima(np.array([3.0, 2.0, 1.0])).tolist() == []
    assert local_minima(np.array([1.0])).tolist() == []

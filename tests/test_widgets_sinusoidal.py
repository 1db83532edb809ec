"""Explorers of notebook 02, driven headlessly through their controls.

Each control change must change the artists' data in place (same figure, axes and artists) and
the new data must be the encoding posenc_lib computes for the new values.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from posenc_lib.frequencies import inverse_frequencies, wavelengths
from posenc_lib.sinusoidal import sinusoidal_encoding
from posenc_lib.widgets.sinusoidal import EncodingHeatmapExplorer, StackedWavesExplorer
from tests.explorer_checks import assert_each_rejected

# --- EncodingHeatmapExplorer --------------------------------------------------------------


@pytest.fixture
def heatmap() -> EncodingHeatmapExplorer:
    return EncodingHeatmapExplorer()


def split_by_hand(n: int, d: int, base: float = 10000.0) -> np.ndarray:
    """[sin | cos] of pos / base^(2i/d), computed here: the split layout the explorer draws."""
    angle = np.arange(n)[:, None] / base ** (np.arange(0, d, 2) / d)
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)


def test_heatmap_starts_with_the_paper_encoding_in_split_order(
    heatmap: EncodingHeatmapExplorer,
) -> None:
    # issue 21: the interleaved order at d = 512 draws stripes; the split order does not
    np.testing.assert_allclose(heatmap.heatmap.get_array(), split_by_hand(100, 512))
    interleaved = sinusoidal_encoding(100, 512)
    np.testing.assert_allclose(heatmap.heatmap.get_array()[:, :256], interleaved[:, 0::2])
    assert heatmap.heatmap.get_clim() == (-1.0, 1.0)
    assert list(heatmap.halves.get_xdata()) == [255.5, 255.5]
    assert "sine columns | cosine columns" in heatmap.ax.get_xlabel()


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("d_model", 64, lambda: split_by_hand(100, 64)),
        ("base", 100.0, lambda: split_by_hand(100, 512, 100.0)),
        ("length", 250, lambda: split_by_hand(250, 512)),
    ],
)
def test_each_slider_redraws_the_heatmap_in_place(
    heatmap: EncodingHeatmapExplorer, name: str, value: float, expected: object
) -> None:
    image, n_axes = heatmap.heatmap, len(heatmap.figure.axes)
    before = np.array(heatmap.heatmap.get_array())
    heatmap.controls[name].value = value
    after = np.asarray(heatmap.heatmap.get_array())
    assert heatmap.heatmap is image and len(heatmap.figure.axes) == n_axes
    assert after.shape != before.shape or not np.allclose(after, before)
    np.testing.assert_allclose(after, expected())  # type: ignore[operator]
    rows, cols = after.shape
    assert heatmap.heatmap.get_extent() == [-0.5, cols - 0.5, rows - 0.5, -0.5]
    assert heatmap.ax.get_xlim() == (-0.5, cols - 0.5)
    assert list(heatmap.halves.get_xdata()) == [cols / 2 - 0.5] * 2  # between the halves


def test_heatmap_title_counts_the_pairs_that_turn(heatmap: EncodingHeatmapExplorer) -> None:
    heatmap.controls["length"].value = 50
    turned = int(np.sum(wavelengths(inverse_frequencies(512)) <= 49))
    assert f"{turned} of 256 pairs turn fully" in heatmap.title.get_text()


def test_heatmap_rejects_bad_arguments() -> None:
    assert_each_rejected(EncodingHeatmapExplorer, ValueError, d_model=7, base=1.0)
    assert_each_rejected(EncodingHeatmapExplorer, TypeError, length=10.5)


# --- StackedWavesExplorer -----------------------------------------------------------------


@pytest.fixture
def waves() -> StackedWavesExplorer:
    return StackedWavesExplorer()


def test_the_pair_picker_changes_the_waves_and_token_marks(waves: StackedWavesExplorer) -> None:
    lines, marks = list(waves.art.waves), list(waves.art.tokens)
    n_axes = len(waves.figure.axes)
    before = [np.array(line.get_ydata()) for line in lines]
    waves.controls["pair"].value = 5
    assert waves.art.waves == lines and waves.art.tokens == marks
    assert len(waves.figure.axes) == n_axes
    tokens = sinusoidal_encoding(8, 64)
    for k, j in enumerate(range(10, 14)):
        offset = waves.art.offsets[k]
        assert not np.allclose(before[k], waves.art.waves[k].get_ydata())
        np.testing.assert_allclose(waves.art.tokens[k].get_ydata() - offset, tokens[:, j])
        # the curve passes through the token marks
        x, y = waves.art.waves[k].get_data()
        np.testing.assert_allclose(np.interp(np.arange(8), x, y) - offset, tokens[:, j], atol=2e-3)
    assert "i = 5 (dims 10..13" in waves.title.get_text()


def test_the_last_pair_is_reachable(waves: StackedWavesExplorer) -> None:
    slider = waves.controls["pair"]
    assert slider.max == 64 // 2 - 2
    slider.value = slider.max
    last = waves.art.tokens[-1].get_ydata() - waves.art.offsets[-1]
    np.testing.assert_allclose(last, sinusoidal_encoding(8, 64)[:, 63])


def test_stacked_waves_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="n_pairs"):
        StackedWavesExplorer(d_model=8, n_pairs=5)
    with pytest.raises(ValueError, match="d_model"):
        StackedWavesExplorer(d_model=9)
    with pytest.raises(ValueError, match="n_tokens"):
        StackedWavesExplorer(n_tokens=1)


def test_partial_redraw_survives_a_figure_save(waves: StackedWavesExplorer) -> None:
    from PIL import Image

    waves.controls["pair"].value = 3
    first = np.asarray(Image.open(io.BytesIO(waves.render())))
    waves.figure.savefig(io.BytesIO(), format="png", bbox_inches="tight")
    second = np.asarray(Image.open(io.BytesIO(waves.render())))
    np.testing.assert_array_equal(first, second)


def test_sliders_that_redraw_the_axes_update_on_release(heatmap: EncodingHeatmapExplorer) -> None:
    # a drag would queue one full redraw per value; a key press still sends each value
    assert not heatmap.controls["d_model"].continuous_update
    assert not heatmap.controls["length"].continuous_update
    assert heatmap.controls["base"].continuous_update  # base only redraws the image: blitted

"""The heatmap explorer of notebook 02 has a colour bar, kept in place as the controls move
(issue 32). The bar is read from the rendered picture as well as from matplotlib's objects.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib import image as mpimg
from matplotlib import pyplot as plt

from posenc_lib.widgets.sinusoidal import EncodingHeatmapExplorer


@pytest.fixture
def explorer() -> EncodingHeatmapExplorer:
    return EncodingHeatmapExplorer()


def bar_pixels(explorer: EncodingHeatmapExplorer) -> np.ndarray:
    """The colours the shown PNG has inside the colour bar's axes, bottom row to top row."""
    picture = mpimg.imread(io.BytesIO(bytes(explorer.image.value)))[..., :3]
    height, width = picture.shape[:2]
    box = explorer.colorbar.ax.get_window_extent()
    fig_w, fig_h = explorer.figure.bbox.width, explorer.figure.bbox.height
    x = int((box.x0 + box.x1) / 2 / fig_w * width)
    rows = np.arange(int((1 - box.y1 / fig_h) * height) + 2, int((1 - box.y0 / fig_h) * height) - 2)
    return picture[rows[::-1], x]


def test_the_colour_bar_spans_minus_one_to_one_in_the_heatmaps_colours(explorer) -> None:
    bar = explorer.colorbar
    assert bar is not None and bar.mappable is explorer.heatmap
    assert bar.ax in explorer.figure.axes
    assert bar.vmin == -1.0 and bar.vmax == 1.0
    cmap = plt.get_cmap(explorer.heatmap.get_cmap().name)
    pixels = bar_pixels(explorer)
    # the bottom of the bar is the colour of -1, the top that of +1, as the heatmap paints them
    np.testing.assert_allclose(pixels[0], cmap(0.0)[:3], atol=0.06)
    np.testing.assert_allclose(pixels[-1], cmap(1.0)[:3], atol=0.06)


@pytest.mark.parametrize(("name", "value"), [("d_model", 64), ("base", 100.0), ("length", 300)])
def test_the_colour_bar_is_updated_in_place(explorer, name: str, value: float) -> None:
    bar, bar_axes, axes = explorer.colorbar, explorer.colorbar.ax, list(explorer.figure.axes)
    explorer.controls[name].value = value
    assert explorer.colorbar is bar and explorer.colorbar.ax is bar_axes
    assert list(explorer.figure.axes) == axes, "no second colour bar"
    assert (bar.vmin, bar.vmax) == explorer.heatmap.get_clim() == (-1.0, 1.0)
    cmap = plt.get_cmap(explorer.heatmap.get_cmap().name)
    pixels = bar_pixels(explorer)
    np.testing.assert_allclose(pixels[0], cmap(0.0)[:3], atol=0.06)
    np.testing.assert_allclose(pixels[-1], cmap(1.0)[:3], atol=0.06)

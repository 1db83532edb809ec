"""The explorer of notebook 11, driven headlessly through its controls.

Every change must update the same artists in place, and the heatmap must hold the encoding of
the chosen size, oriented as the registered figure draws it.
"""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.figures import build_figure
from posenc_lib.sinusoidal import sinusoidal_encoding
from posenc_lib.widgets.gallery import SourceHeatmapExplorer


@pytest.fixture
def explorer() -> SourceHeatmapExplorer:
    return SourceHeatmapExplorer()




def test_starts_as_the_registered_figure(explorer: SourceHeatmapExplorer) -> None:
    registered = build_figure("heatmap_002").axes[0].images[0]
    np.testing.assert_array_equal(explorer.heatmap.get_array(), registered.get_array())
    assert explorer.heatmap.get_cmap().name == registered.get_cmap().name == "coolwarm"
    assert (explorer.ax.get_xlabel(), explorer.ax.get_ylabel()) == ("Position", "Dimension")
    assert bytes(explorer.image.value).startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("name", "value", "n_positions", "d_model"),
    [("d_model", 64, 100, 64), ("n_positions", 250, 250, 300)],
)
def test_size_controls_redraw_in_place(
    explorer: SourceHeatmapExplorer, name: str, value: int, n_positions: int, d_model: int
) -> None:
    heatmap, axes, png = explorer.heatmap, list(explorer.figure.axes), bytes(explorer.image.value)
    explorer.controls[name].value = value
    assert explorer.heatmap is heatmap and explorer.figure.axes == axes
    np.testing.assert_allclose(
        explorer.heatmap.get_array(), sinusoidal_encoding(n_positions, d_model).T
    )
    assert explorer.heatmap.get_extent() == [-0.5, n_positions - 0.5, d_model - 0.5, -0.5]
    assert explorer.ax.get_xlim() == (-0.5, n_positions - 0.5)
    assert bytes(explorer.image.value) != png


def test_cmap_control_changes_the_colormap_and_colorbar(explorer: SourceHeatmapExplorer) -> None:
    explorer.controls["cmap"].value = "viridis"
    assert explorer.heatmap.get_cmap().name == "viridis"
    assert explorer.heatmap.colorbar.cmap.name == "viridis"


@pytest.mark.parametrize(("figure", "flipped"), [("heatmap_000", False), ("heatmap_003", True)])
def test_figure_control_resets_to_that_figures_defaults(
    explorer: SourceHeatmapExplorer, figure: str, flipped: bool
) -> None:
    heatmap, updates = explorer.heatmap, explorer.n_updates
    explorer.controls["figure"].value = figure
    assert explorer.n_updates == updates + 1  # one redraw, not one per reset control
    defaults = build_figure(figure).axes[0].images[0]
    assert explorer.heatmap is heatmap
    np.testing.assert_array_equal(explorer.heatmap.get_array(), defaults.get_array())
    assert explorer.controls["cmap"].value == defaults.get_cmap().name
    assert (explorer.ax.get_xlabel(), explorer.ax.get_ylabel()) == ("Dimension", "Position")
    bottom, top = explorer.ax.get_ylim()
    assert bool(bottom < top) == flipped  # 003 puts position 0 at the bottom


def test_each_control_change_renders_once(explorer: SourceHeatmapExplorer) -> None:
    # timing is measured by `make bench`, not asserted here
    for value in (128, 256, 300):
        updates, png = explorer.n_updates, explorer.image.value
        explorer.controls["d_model"].value = value
        assert explorer.n_updates == updates + 1
        assert explorer.image.value != png
        length = explorer.controls["n_positions"].value
        assert explorer.heatmap.get_array().shape == (value, length)  # 002 is transposed


def test_bad_figure_name() -> None:
    with pytest.raises(ValueError, match="figure"):
        SourceHeatmapExplorer("heatmap_999")

"""Explorer of the three source heatmaps (000, 002, 003) as one set of parameters.

Notebook: 11_figure_gallery.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import ipywidgets
from matplotlib.ticker import MaxNLocator

from posenc_lib._checks import check_choice
from posenc_lib.plots import draw_encoding_heatmap
from posenc_lib.plots.heatmaps import SOURCE_HEATMAPS
from posenc_lib.sinusoidal import sinusoidal_encoding
from posenc_lib.widgets._base import Explorer
from posenc_lib.widgets._raster import PixelRaster

__all__ = ["SourceHeatmapExplorer"]

_CMAPS = ("viridis", "coolwarm", "RdBu", "magma", "cividis")


class SourceHeatmapExplorer(Explorer):
    """A registered source heatmap (``figure``: heatmap_000, 002 or 003) whose length, d_model
    and colormap follow the controls; choosing another figure resets them to its defaults."""

    site_values = {"d_model": (16, 32, 48, 64, 96, 128, 160, 200, 256, 300, 360, 420, 480, 512)}

    def __init__(self, figure: str = "heatmap_002") -> None:
        figure = check_choice("figure", figure, SOURCE_HEATMAPS)
        defaults = SOURCE_HEATMAPS[figure]
        super().__init__(figsize=(6.0, 3.6))
        with self.style():
            self.ax = self.figure.add_subplot()
            self.heatmap = draw_encoding_heatmap(self.ax, sinusoidal_encoding(2, 2),
                cmap=defaults["cmap"], colorbar=True)
            self.title = self.ax.set_title("", fontsize=9)
            colorbar = self.heatmap.colorbar
            assert colorbar is not None
            colorbar.set_ticks([-1.0, 0.0, 1.0])
            self.ax.xaxis.set_major_locator(MaxNLocator(5))
            self.ax.yaxis.set_major_locator(MaxNLocator(5))
        self.raster = PixelRaster(self.heatmap)  # paints the heatmap without resampling it
        self.changing = [self.ax]  # its ticks follow every control: the axes, over the colour bar
        self._resetting = False
        self.add_control("figure", ipywidgets.Dropdown(options=list(SOURCE_HEATMAPS), value=figure,
            description="figure"))
        self.add_control(
            "n_positions",
            ipywidgets.IntSlider(
                value=defaults["n_positions"], min=10, max=300, step=10, description="length",
                continuous_update=False,  # on release when dragged: each value redraws the axes
            ),
        )
        self.add_control("d_model", ipywidgets.IntSlider(value=defaults["d_model"], min=16,
            max=512, step=4, description="d_model", continuous_update=False))
        self.add_control("cmap", ipywidgets.Dropdown(options=_CMAPS, value=defaults["cmap"],
            description="cmap"))
        self.freeze_layout(n_positions=300, d_model=512)  # the longest tick labels, both ways
        self.refresh()

    def background_key(self) -> Hashable:
        return self.controls["cmap"].value  # the colour bar; the axes are redrawn every time

    def update(self, figure: str, n_positions: int, d_model: int, cmap: str) -> None:  # type: ignore[override]
        options = SOURCE_HEATMAPS[figure]
        encoding = sinusoidal_encoding(n_positions, d_model)
        data = encoding.T if options["transpose"] else encoding
        rows, cols = data.shape
        self.heatmap.set_data(data)
        self.heatmap.set_extent((-0.5, cols - 0.5, rows - 0.5, -0.5))
        if self.heatmap.get_cmap().name != cmap:
            self.heatmap.set_cmap(cmap)  # rebuilds the colorbar: about 10 ms, only when needed
        self.ax.set_xlim(-0.5, cols - 0.5)
        bottom, top = (-0.5, rows - 0.5) if options["flip"] else (rows - 0.5, -0.5)
        self.ax.set_ylim(bottom, top)
        position, dimension = "Position", "Dimension"
        xlabel, ylabel = (position, dimension) if options["transpose"] else (dimension, position)
        self.ax.set_xlabel(xlabel)
        self.ax.set_ylabel(ylabel)
        self.title.set_text(f"{figure}: {n_positions} positions x {d_model} dimensions")

    def _on_change(self, change: Mapping[str, Any]) -> None:
        if self._resetting:
            return
        if change.get("owner") is self.controls["figure"]:
            defaults = SOURCE_HEATMAPS[change["new"]]
            self._resetting = True
            try:
                for name in ("n_positions", "d_model", "cmap"):
                    self.controls[name].value = defaults[name]
            finally:
                self._resetting = False
        self.refresh()

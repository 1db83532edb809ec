"""The pixel raster of the heatmap explorers paints exactly what matplotlib's "nearest" draws."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from posenc_lib.widgets._raster import PixelRaster, pixel_cells

matplotlib.use("Agg")


def brute_force_cells(n_cells: int, start: float, stop: float, first: int, count: int) -> list[int]:
    """The cell whose interval holds each pixel centre, found by scanning the cell edges."""
    edges = [start + (stop - start) * k / n_cells for k in range(n_cells + 1)]
    found = []
    for pixel in range(first, first + count):
        centre = pixel + 0.5
        cell = next(
            (k for k in range(n_cells) if min(edges[k], edges[k + 1]) <= centre
             < max(edges[k], edges[k + 1])),
            0 if abs(centre - start) < abs(centre - stop) else n_cells - 1,
        )
        found.append(cell)
    return found


@pytest.mark.parametrize(
    ("n_cells", "start", "stop", "first", "count"),
    [(5, 10.0, 47.3, 10, 37), (512, 100.2, 1390.7, 100, 1290), (7, 300.0, 40.5, 41, 259),
     (3, 0.0, 2.0, -2, 6)],
)
def test_pixel_cells_matches_a_scan_of_the_cell_edges(
    n_cells: int, start: float, stop: float, first: int, count: int
) -> None:
    assert pixel_cells(n_cells, start, stop, first, count).tolist() == brute_force_cells(
        n_cells, start, stop, first, count
    )


def test_pixel_cells_refuses_an_empty_span() -> None:
    with pytest.raises(ValueError, match="start and stop"):
        pixel_cells(3, 1.0, 1.0, 0, 4)


def rendered(origin: str, flip: bool, with_raster: bool) -> np.ndarray:
    figure = Figure(figsize=(4.0, 3.0), dpi=137)
    canvas = FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    data = np.sin(np.arange(23 * 41).reshape(23, 41) / 7.0)
    data[3, 5] = np.nan  # the bad colour too
    image = ax.imshow(data, cmap="coolwarm", vmin=-0.8, vmax=0.9, origin=origin,
                      interpolation="nearest", aspect="auto")
    figure.colorbar(image, ax=ax)
    if flip:
        ax.invert_yaxis()
    ax.set_xlim(-3.0, 37.2)  # part of the image outside the axes, and an empty margin
    if with_raster:
        raster = PixelRaster(image)
        assert not image.get_visible() and raster in ax.get_children()
    canvas.draw()
    return np.array(canvas.buffer_rgba())


@pytest.mark.parametrize(("origin", "flip"), [("upper", False), ("lower", False), ("upper", True)])
def test_the_raster_paints_the_same_pixels_as_matplotlib(origin: str, flip: bool) -> None:
    np.testing.assert_array_equal(
        rendered(origin, flip, with_raster=True), rendered(origin, flip, with_raster=False)
    )


def test_the_raster_wants_a_nearest_image() -> None:
    ax = Figure().add_subplot()
    with pytest.raises(ValueError, match="interpolation"):
        PixelRaster(ax.imshow(np.zeros((2, 2)), interpolation="bilinear"))
    with pytest.raises(TypeError, match="image"):
        PixelRaster(ax)  # type: ignore[arg-type]

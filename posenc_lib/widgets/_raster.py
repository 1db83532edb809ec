"""A heatmap painted straight at the canvas's pixels, each taking the colour of the cell under its
centre (as ``interpolation="nearest"`` shows it): a few ms instead of Matplotlib's ~50 ms.

Notebooks: 02_sinusoidal_formula and 11_figure_gallery.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backend_bases import RendererBase
from matplotlib.image import AxesImage
from numpy.typing import NDArray


def pixel_cells(n_cells: int, start: float, stop: float, first: int, count: int) -> NDArray[Any]:
    """Cell under each of ``count`` pixels from ``first``, n cells from edge ``start`` to ``stop``:
    cell(p) = floor(n (p + 1/2 - start) / (stop - start)), clipped to [0, n - 1].
    """
    if start == stop:
        raise ValueError(f"start and stop must differ; got {start} for both")
    centres = np.arange(first, first + count, dtype=np.float64) + 0.5
    cells = np.floor((centres - start) * (n_cells / (stop - start))).astype(np.intp)
    return np.clip(cells, 0, n_cells - 1)


def _pixel_span(start: float, stop: float, low: float, high: float) -> tuple[int, int]:
    """First pixel and pixel count whose centres lie between the edges and inside [low, high]."""
    a, b = max(min(start, stop), low), min(max(start, stop), high)
    first, end = math.ceil(a - 0.5), math.ceil(b - 0.5)
    return first, max(end - first, 0)


class PixelRaster(Artist):
    """Paints a nearest-interpolated 2-D ``AxesImage`` at device pixels, in its place."""

    def __init__(self, image: AxesImage) -> None:
        if not isinstance(image, AxesImage) or image.axes is None:
            raise TypeError(f"image must be an AxesImage on an Axes; got {type(image).__name__}")
        if image.get_interpolation() != "nearest":
            raise ValueError(
                f"image must use interpolation='nearest'; got {image.get_interpolation()!r}"
            )
        super().__init__()
        self.image = image
        ax = image.axes
        self.set_zorder(image.get_zorder())
        ax.add_artist(self)
        image.set_visible(False)

    def device_rgba(self, renderer: RendererBase) -> tuple[NDArray[np.uint8], int, int]:
        """The (height, width, 4) uint8 pixels, bottom row first, and their lower-left pixel."""
        image, ax = self.image, self.image.axes
        data: NDArray[Any] = np.ma.asarray(image.get_array())
        rows, cols = data.shape[:2]
        left, right, bottom, top = image.get_extent()
        # cell row 0 is at the "top" extent edge for origin="upper", at "bottom" otherwise
        row0, row_end = (top, bottom) if image.origin == "upper" else (bottom, top)
        (x0, y0), (x1, y1) = ax.transData.transform([(left, row0), (right, row_end)])
        box = ax.bbox
        x_first, width = _pixel_span(x0, x1, box.x0, box.x1)
        y_first, height = _pixel_span(y0, y1, box.y0, box.y1)
        colours = image.to_rgba(data, bytes=True)  # (rows, cols, 4): one lookup per cell
        words = np.ascontiguousarray(colours).view(np.uint32)[..., 0]
        col_index = pixel_cells(cols, x0, x1, x_first, width)
        row_index = pixel_cells(rows, y0, y1, y_first, height)  # bottom-up, as Agg takes them
        pixels = np.take(np.take(words, row_index, axis=0), col_index, axis=1)
        rgba = np.ascontiguousarray(pixels).view(np.uint8).reshape(height, width, 4)
        return rgba, x_first, y_first

    def draw(self, renderer: RendererBase) -> None:
        array = self.image.get_array()
        if not self.get_visible() or array is None or array.size == 0:
            return
        rgba, x, y = self.device_rgba(renderer)
        if rgba.size == 0:
            return
        gc = renderer.new_gc()
        gc.set_clip_rectangle(self.image.axes.bbox)  # where the image was clipped
        alpha = self.image.get_alpha()  # a scalar (imshow's alpha=), or None
        gc.set_alpha(1.0 if alpha is None or np.ndim(alpha) else float(alpha))
        renderer.draw_image(gc, x, y, rgba)
        gc.restore()
        self.stale = False

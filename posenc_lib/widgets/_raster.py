"""A heatmap drawn straight at the canvas's pixels: one colour lookup, no resampling.

Notebooks: 02_sinusoidal_formula and 11_figure_gallery (the heatmap explorers).

Matplotlib draws an ``AxesImage`` by resampling its data to the screen and colour-mapping every
screen pixel, which costs about 50 ms per slider tick for a heatmap drawn at two device pixels
per CSS pixel. :class:`PixelRaster` draws the same image with the same colours in a few
milliseconds: it colour-maps the data cells once (the image's own colormap and limits), and
gives every device pixel the colour of the cell under its centre (what ``interpolation=
"nearest"`` shows), already at the device size, so the renderer only copies it.

The ``AxesImage`` stays the image an explorer updates (``set_data``, ``set_extent``,
``set_cmap``, its colorbar); the raster only replaces how it is painted.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backend_bases import RendererBase
from matplotlib.image import AxesImage
from numpy.typing import NDArray

from posenc_lib._checks import check_float, check_int

__all__ = ["PixelRaster", "pixel_cells"]


def pixel_cells(n_cells: int, start: float, stop: float, first: int, count: int) -> NDArray[Any]:
    r"""Index of the cell under the centre of each of ``count`` pixels, from pixel ``first``.

    Along one screen axis, ``n_cells`` equal cells run from the edge at ``start`` (the outer
    edge of cell 0) to the edge at ``stop`` (``stop < start`` when cell 0 is on the right or
    at the top). Pixel ``p`` covers ``[p, p + 1)`` and takes the cell its centre falls in:
    nearest-neighbour sampling. Centres outside the cells take the nearest end cell.

    Parameters
    ----------
    n_cells : int
        Number of cells (array columns or rows), at least 1.
    start, stop : float
        Screen coordinates, in pixels, of the two outer edges; they must differ.
    first : int
        The first pixel.
    count : int
        Number of pixels, at least 0.

    Returns
    -------
    numpy.ndarray of intp, shape (count,)
        Cell indices in ``[0, n_cells - 1]``.

    Notes
    -----
    With pixel centre :math:`c_p = p + 1/2`, the cell is
    :math:`\lfloor n \, (c_p - \mathrm{start}) / (\mathrm{stop} - \mathrm{start}) \rfloor`,
    clipped to :math:`[0, n - 1]`.

    Examples
    --------
    >>> pixel_cells(2, 0.0, 4.0, 0, 4).tolist()  # two cells, two pixels each
    [0, 0, 1, 1]
    >>> pixel_cells(2, 4.0, 0.0, 0, 4).tolist()  # cell 0 on the right
    [1, 1, 0, 0]
    """
    n_cells = check_int("n_cells", n_cells, minimum=1)
    start = check_float("start", start)
    stop = check_float("stop", stop)
    if start == stop:
        raise ValueError(f"start and stop must differ; got {start} for both")
    first = check_int("first", first, minimum=None)
    count = check_int("count", count, minimum=0)
    centres = np.arange(first, first + count, dtype=np.float64) + 0.5
    cells = np.floor((centres - start) * (n_cells / (stop - start))).astype(np.intp)
    return np.clip(cells, 0, n_cells - 1)


def _pixel_span(start: float, stop: float, low: float, high: float) -> tuple[int, int]:
    """First pixel and pixel count whose centres lie between the edges and inside [low, high]."""
    a, b = max(min(start, stop), low), min(max(start, stop), high)
    first, end = math.ceil(a - 0.5), math.ceil(b - 0.5)
    return first, max(end - first, 0)


class PixelRaster(Artist):
    """Paints an ``AxesImage`` at the device pixels with the colour of the cell under each one.

    Creating it hides ``image`` (the raster paints it instead) and adds the raster to the
    image's axes at the image's z-order, so a full draw of the figure shows it where the image
    was. The colours are ``image.to_rgba`` of its array: its colormap, limits and bad colour.

    Parameters
    ----------
    image : matplotlib.image.AxesImage
        A 2-D image on linear axes, drawn with ``interpolation="nearest"``.

    Notes
    -----
    A device pixel whose centre is :math:`(c_x, c_y)` takes the colour of cell
    (:func:`pixel_cells` of the rows at :math:`c_y`, :func:`pixel_cells` of the columns at
    :math:`c_x`), the cell edges being the image extent mapped by the axes' ``transData``.
    """

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

"""The base class of every explorer: it owns its controls, its figure and its artists.

Notebooks: 00_why_position to 11_figure_gallery (every explorer derives from it).

An explorer draws its figure once. When a control changes, :meth:`Explorer.update` changes the
existing artists in place (``set_data``, ``set_ydata``, ...), then :meth:`Explorer.render` draws
the Agg canvas and puts the PNG into an ``ipywidgets.Image``. No figure or axes is ever rebuilt,
and the notebook needs no interactive matplotlib backend (a plain JupyterLab is enough).

The canvas is Matplotlib's own ``FigureCanvasAgg``, so every text is drawn exactly as
Matplotlib draws it. Most of an Agg draw is text (tick labels, titles, legends), so an
explorer that lists the artists its ``update`` changes in :meth:`Explorer.changing_artists` is
rendered by blitting: the rest of the figure is drawn once and kept as a pixel *background*,
and each tick redraws only the changing artists over it. The background is drawn again when
:meth:`Explorer.background_key` takes a new value (say an axis range follows a slider) or after
:meth:`Explorer.invalidate_background`; the last few backgrounds are kept by key, so going back
to a recent value (a dropdown's previous option) only copies its pixels.

The PNG has ``pixel_ratio`` (2) device pixels per CSS pixel and the image is laid out at its CSS
width, ``figsize`` x ``dpi``: it is neither stretched nor blurred on a high-density screen.

A notebook shows an explorer once, with ``explorer.widget()``: the output holds the live view
and, for places without a kernel (GitHub, the HTML site, JupyterLab before the notebook is
run or trusted), the current picture as ``image/png`` and a one-line ``text/plain``.
"""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import ipywidgets
import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from posenc_lib._checks import check_float
from posenc_lib.plots import course_style

__all__ = ["Explorer", "ExplorerView", "png_bytes"]

try:  # ISA-L (the optional extra "fast", in the dev install) writes zlib streams faster
    from isal.isal_zlib import compress as _deflate
except ImportError:  # pragma: no cover - exercised by a test in a subprocess without isal
    _deflate = zlib.compress


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(
    rgba: np.ndarray, compress: Callable[[Any, int], bytes] | None = None
) -> bytes:
    r"""A PNG file of an (height, width, 4) uint8 RGBA image, made for speed.

    Every row is stored with PNG's "Up" filter (the difference to the row above, exact in
    uint8 arithmetic): plots repeat most of a row in the next one, so the differences are
    mostly 0 and deflate at level 1 packs them about as small as level 6 packs the raw
    pixels, several times faster. The deflate stream is made by ISA-L (the optional ``isal``
    package), which writes the zlib format about six times faster than zlib itself at the same
    size (`make bench` prints both); without it, by ``zlib``. The alpha channel is kept: on an
    opaque figure its differences are all 0 and cost little, while dropping it (a copy of 3
    bytes in 4) took about as long as zlib's compression.

    Parameters
    ----------
    rgba : numpy.ndarray
        The pixels, shape (height, width, 4), uint8.
    compress : callable, optional
        A compressor that writes the zlib format, called as ``compress(data, level)``
        (default: ISA-L's when ``isal`` is installed, else ``zlib.compress``, an equivalent
        file, more slowly).

    Notes
    -----
    Filtered row :math:`r` of pixel bytes :math:`x`: :math:`f_r = x_r - x_{r-1} \bmod 256`
    (:math:`x_{-1} = 0`), each prefixed with the filter type byte 2.
    """
    height, width = rgba.shape[:2]
    pixels = np.ascontiguousarray(rgba, dtype=np.uint8).reshape(height, 4 * width)
    rows = np.empty((height, 1 + 4 * width), dtype=np.uint8)
    rows[:, 0] = 2
    rows[0, 1:] = pixels[0]
    np.subtract(pixels[1:], pixels[:-1], out=rows[1:, 1:])  # contiguous rows: fast
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", header),
            _png_chunk(b"IDAT", (compress or _deflate)(rows.data, 1)),
            _png_chunk(b"IEND", b""),
        )
    )


class ExplorerView(ipywidgets.VBox):
    """The live view of an explorer; its output also holds a static PNG and a one-line text.

    Where the widget can render (a running kernel, a trusted notebook), the front end shows it;
    elsewhere it shows ``image/png``, the picture the explorer last rendered, at its CSS width.
    """

    def __init__(self, explorer: Explorer, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._explorer = explorer

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        data = super()._repr_mimebundle_(**kwargs)
        explorer = self._explorer
        data["image/png"] = base64.b64encode(bytes(explorer.image.value)).decode("ascii")
        data["text/plain"] = explorer.describe()
        width, height = explorer.css_size()
        return data, {"image/png": {"width": width, "height": height}}


def check_slider_range(name: str, value: float, low: float, high: float, shown: str) -> float:
    """``value`` if it lies in the slider range [low, high] (written ``shown``), else raise."""
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {shown} (the slider range); got {value}")
    return value


class Explorer:
    """Base class: subclasses add controls in ``__init__`` and implement :meth:`update`.

    A subclass does three things::

        class MyExplorer(Explorer):
            def __init__(self, d_model=128):
                super().__init__(figsize=(7, 3))
                with self.style():
                    ax = self.figure.add_subplot()
                    (self.line,) = ax.plot(...)          # draw once, keep the artist
                self.add_control("d_model", ipywidgets.IntSlider(value=d_model, ...))
                self.refresh()                           # first update + render

            def update(self, d_model):                   # called with every control's value
                self.line.set_ydata(...)                 # change artists in place

    Parameters
    ----------
    figsize : tuple of float
        Figure size in inches.
    dpi : float
        CSS pixels per figure inch: the image is shown ``figsize[0] * dpi`` CSS pixels wide.
    pixel_ratio : float, optional
        Device pixels per CSS pixel of the PNG; the class attribute :attr:`pixel_ratio` (2,
        sharp on high-density screens) when omitted. ``Explorer.pixel_ratio = 1`` makes every
        explorer created afterwards four times cheaper to draw, and blurred on such screens.
    """

    pixel_ratio: float = 2.0
    kept_backgrounds: int = 4
    """How many backgrounds (one per :meth:`background_key` value) are kept for reuse."""

    def __init__(
        self,
        *,
        figsize: tuple[float, float] = (7.0, 4.0),
        dpi: float = 100.0,
        pixel_ratio: float | None = None,
    ) -> None:
        if pixel_ratio is not None:
            self.pixel_ratio = check_float("pixel_ratio", pixel_ratio, greater_than=0.0)
        with course_style():
            self.figure = Figure(figsize=figsize, dpi=dpi * self.pixel_ratio)
        self.canvas = FigureCanvasAgg(self.figure)
        self.controls: dict[str, ipywidgets.ValueWidget] = {}
        width, height = self.css_size()
        # explicit size: a VBox would otherwise stretch the image to the output's width
        self.image = ipywidgets.Image(
            format="png", layout={"width": f"{width}px", "height": "auto", "max_width": "100%"}
        )
        self.n_updates = 0
        # kept pixels and the axes positions they were drawn with, by key, oldest first
        self._backgrounds: dict[Hashable, tuple[Any, list[Bbox]]] = {}
        self._layout: Any = None  # the layout engine, run when a background is drawn

    @staticmethod
    def style() -> Any:
        """Context manager applying the course style while artists are created."""
        return course_style()

    def add_control(self, name: str, control: ipywidgets.ValueWidget) -> ipywidgets.ValueWidget:
        """Register a control; any change of its value calls :meth:`refresh`."""
        self.controls[name] = control
        control.observe(self._on_change, names="value")
        return control

    def values(self) -> dict[str, Any]:
        """The current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def update(self, **values: Any) -> None:
        """Change the artists in place for these control values. Subclasses implement it."""
        raise NotImplementedError

    def changing_artists(self) -> Sequence[Artist]:
        """The artists :meth:`update` changes; override to render by blitting.

        Empty (the default) means every render draws the whole figure.
        """
        return ()

    def background_key(self) -> Hashable:
        """What the static background depends on; a new value redraws it. Constant by default."""
        return ()

    def invalidate_background(self) -> None:
        """Forget the stored backgrounds: the next render draws the whole figure again."""
        self._backgrounds.clear()

    def _lay_out(self) -> None:
        """Lay the figure out for what it shows now; ticks between backgrounds keep this layout.

        The figure's layout engine (the course style's constrained layout) is taken off the
        figure, so a tick's draw never moves the axes, and run here, when a background is drawn:
        a new axis range or new tick labels get room. Each kept background keeps the axes
        positions it was drawn with, and gets them back when it is used again. An explorer that
        set the engine to "none" itself keeps its first layout.
        """
        if self._layout is None:
            self._layout = self.figure.get_layout_engine()
            self.figure.set_layout_engine("none")
        if self._layout is not None:
            self._layout.execute(self.figure)

    def _draw_background(self, changing: Sequence[Artist], key: Hashable) -> None:
        """Lay the figure out, draw everything but ``changing`` and keep the pixels."""
        self._lay_out()
        for artist in changing:
            artist.set_animated(True)  # animated artists are skipped by a full draw
        try:
            self.canvas.draw()
        finally:
            for artist in changing:
                artist.set_animated(False)
        if len(self._backgrounds) >= self.kept_backgrounds:
            del self._backgrounds[next(iter(self._backgrounds))]  # the oldest
        positions = [ax.get_position().frozen() for ax in self.figure.axes]
        self._backgrounds[key] = (self.canvas.copy_from_bbox(self.figure.bbox), positions)

    def render(self) -> bytes:
        """Draw the canvas with Agg and show it in :attr:`image`; return the PNG bytes."""
        changing = list(self.changing_artists())
        if not changing:
            self.canvas.draw()
        else:
            renderer = self.canvas.get_renderer()
            key = (self.background_key(), id(renderer), renderer.width, renderer.height)
            if key in self._backgrounds:
                region, positions = self._backgrounds[key]
                for ax, position in zip(self.figure.axes, positions, strict=True):
                    ax.set_position(position)
                    ax.set_in_layout(True)  # set_position takes it out of the layout
                self.canvas.restore_region(region)
            else:
                self._draw_background(changing, key)
            for artist in changing:
                if artist.get_visible():
                    self.figure.draw_artist(artist)
        self.image.value = png_bytes(np.asarray(self.canvas.buffer_rgba()))
        return bytes(self.image.value)

    def css_size(self) -> tuple[int, int]:
        """Width and height, in CSS pixels, at which the rendered PNG is shown."""
        width, height = self.canvas.get_width_height()
        return round(width / self.pixel_ratio), round(height / self.pixel_ratio)

    def describe(self) -> str:
        """One line for a plain-text front end: the explorer and its control values."""
        values = ", ".join(f"{name}={value!r}" for name, value in self.values().items())
        return f"{type(self).__name__}({values}): an interactive explorer (run the cell)"

    def refresh(self) -> None:
        """Update the artists from the controls and render."""
        self.update(**self.values())
        self.n_updates += 1
        self.render()

    def _on_change(self, change: Mapping[str, Any]) -> None:
        self.refresh()

    def widget(self) -> ipywidgets.Widget:
        """The interactive view: the controls above the rendered figure."""
        controls = ipywidgets.HBox(list(self.controls.values()), layout={"flex_flow": "row wrap"})
        return ExplorerView(self, children=[controls, self.image])

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget())

"""The base class of every explorer: it owns its controls, its figure and its artists.

Notebooks: 00_why_position to 11_figure_gallery (every explorer derives from it).

An explorer draws its figure once. When a control changes, :meth:`Explorer.update` changes the
existing artists in place (``set_data``, ``set_ydata``, ...), then :meth:`Explorer.render` draws
the Agg canvas and puts the PNG into an ``ipywidgets.Image``. No figure or axes is ever rebuilt,
and the notebook needs no interactive matplotlib backend (a plain JupyterLab is enough).

Most of an Agg draw is text (tick labels, titles, legends) that a slider never changes. An
explorer that lists the artists its ``update`` changes in :meth:`Explorer.changing_artists` is
rendered by blitting: the rest of the figure is drawn once and kept as a pixel *background*,
and each tick redraws only the changing artists over it. The background is drawn again when
:meth:`Explorer.background_key` changes (say an axis range follows a slider) or after
:meth:`Explorer.invalidate_background`.

The same figure is also the static picture: ``explorer.figure`` shows in a notebook saved to
GitHub, where widgets cannot run.
"""

from __future__ import annotations

import io
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import ipywidgets
import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from posenc_lib.plots import course_style

__all__ = ["Explorer"]


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
    dpi : int
        Resolution of the rendered PNG; kept modest so a slider tick renders in a few ms.
    """

    def __init__(self, *, figsize: tuple[float, float] = (7.0, 4.0), dpi: int = 80) -> None:
        with course_style():
            self.figure = Figure(figsize=figsize, dpi=dpi)
        self.canvas = FigureCanvasAgg(self.figure)
        self.controls: dict[str, ipywidgets.ValueWidget] = {}
        self.image = ipywidgets.Image(format="png")
        self.n_updates = 0
        self._background: Any = None
        self._background_at: Hashable = None

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
        """Forget the stored background: the next render draws the whole figure again."""
        self._background = None

    def _draw_background(self, changing: Sequence[Artist], key: Hashable) -> None:
        """Draw everything but ``changing`` and keep the pixels; fix the layout the first time."""
        if self._background is None and self._background_at is None:
            self.canvas.draw()  # lay the figure out once with every artist, then keep that layout
            self.figure.set_layout_engine("none")
        for artist in changing:
            artist.set_animated(True)  # animated artists are skipped by a full draw
        try:
            self.canvas.draw()
        finally:
            for artist in changing:
                artist.set_animated(False)
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)
        self._background_at = key

    def render(self) -> bytes:
        """Draw the canvas with Agg and show it in :attr:`image`; return the PNG bytes."""
        changing = list(self.changing_artists())
        if not changing:
            self.canvas.draw()
        else:
            renderer = self.canvas.get_renderer()
            key = (self.background_key(), id(renderer), renderer.width, renderer.height)
            if self._background is None or key != self._background_at:
                self._draw_background(changing, key)
            else:
                self.canvas.restore_region(self._background)
            for artist in changing:
                if artist.get_visible():
                    self.figure.draw_artist(artist)
        # the figure is opaque: dropping the alpha channel makes the PNG cheaper to encode
        rgb = np.ascontiguousarray(np.asarray(self.canvas.buffer_rgba())[..., :3])
        buffer = io.BytesIO()
        Image.fromarray(rgb).save(buffer, format="png", compress_level=1)
        self.image.value = buffer.getvalue()
        return bytes(self.image.value)

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
        return ipywidgets.VBox([controls, self.image])

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget())

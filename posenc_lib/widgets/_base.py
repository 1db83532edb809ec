"""The base class of every explorer: it owns its controls, its figure and its artists, updates
them in place and renders the Agg canvas into an ``ipywidgets.Image`` (blitting the artists that
change).

Notebooks: 00_why_position to 11_figure_gallery.
"""

from __future__ import annotations

import base64
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, ClassVar

import ipywidgets
import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from posenc_lib.plots import course_style
from posenc_lib.plots.style import png_bytes


class ExplorerView(ipywidgets.VBox):
    """The live view of an explorer; its output also holds the last PNG and a one-line text."""

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


def check_slider_range(name: str, value: Any, low: float, high: float,
        shown: str | None = None) -> Any:
    """``value`` if it lies in the slider range [low, high] (written ``shown``), else raise."""
    if not low <= value <= high:
        shown = shown or f"{low}..{high}"
        raise ValueError(f"{name} must be in {shown} (the slider range); got {value}")
    return value


class Explorer:
    """Base class: draw, add controls, call :meth:`refresh`; subclasses define :meth:`update`."""

    pixel_ratio: float = 2.0  # PNG pixels per CSS pixel
    kept_backgrounds: int = 4  # backgrounds kept, one per background_key value
    changing: Sequence[Artist] = ()  # what update changes; empty: every render draws it all
    # values the offline site draws for a slider with over 32 (tools/explorer_frames.py)
    site_values: ClassVar[Mapping[str, Sequence[Any]]] = {}

    def __init__(self, *, figsize: tuple[float, float] = (7.0, 4.0), dpi: float = 100.0) -> None:
        with course_style():
            self.figure = Figure(figsize=figsize, dpi=dpi * self.pixel_ratio)
        self.canvas = FigureCanvasAgg(self.figure)
        self.controls: dict[str, ipywidgets.ValueWidget] = {}
        width, height = self.css_size()
        # explicit size: a VBox would otherwise stretch the image to the output's width
        self.image = ipywidgets.Image(format="png", layout={"width": f"{width}px",
            "height": "auto", "max_width": "100%"})
        self.n_updates = 0
        # kept pixels and the axes positions they were drawn with, by key, oldest first
        self._backgrounds: dict[Hashable, tuple[Any, list[Bbox]]] = {}
        self._layout: Any = None  # the layout engine, run when a background is drawn
        self._layout_frozen = False  # set by freeze_layout: no layout engine runs any more

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
        """The artists :meth:`update` changes (blitted), :attr:`changing` unless overridden."""
        return self.changing

    def background_key(self) -> Hashable:
        """What the static background depends on; a new value redraws it. Constant by default."""
        return ()

    def invalidate_background(self) -> None:
        """Forget the stored backgrounds: the next render draws the whole figure again."""
        self._backgrounds.clear()

    def freeze_layout(self, **widest: Any) -> None:
        """Lay the figure out once, for the control values ``widest`` whose tick labels take the
        most room, and keep that layout: later renders run no layout engine (the costliest part
        of a redraw) and the axes no longer move as the labels change."""
        self.update(**{**self.values(), **widest})
        self._lay_out()
        self._layout_frozen = True

    def _lay_out(self) -> None:
        """Run the layout engine (taken off the figure) only when a background is drawn."""
        if self._layout_frozen:
            return
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
        """Draw the canvas with Agg and show it in :attr:`image`; return the PNG bytes.

        The draw runs in the course style, as the artists were made: tick locators and text
        read the style when they draw, so the picture never depends on the caller's rcParams."""
        with self.style():
            return self._render()

    def _render(self) -> bytes:
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

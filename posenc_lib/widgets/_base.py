"""The base class of every explorer: it owns its controls, its figure and its artists.

An explorer draws its figure once. When a control changes, :meth:`Explorer.update` changes the
existing artists in place (``set_data``, ``set_ydata``, ...), then :meth:`Explorer.render` draws
the Agg canvas and puts the PNG into an ``ipywidgets.Image``. No figure or axes is ever rebuilt,
and the notebook needs no interactive matplotlib backend (a plain JupyterLab is enough).

The same figure is also the static picture: ``explorer.figure`` shows in a notebook saved to
GitHub, where widgets cannot run.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import ipywidgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from posenc_lib.plots import course_style

__all__ = ["Explorer"]


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

    def render(self) -> bytes:
        """Draw the canvas with Agg and show it in :attr:`image`; return the PNG bytes."""
        self.canvas.draw()
        rgba = np.asarray(self.canvas.buffer_rgba())
        buffer = io.BytesIO()
        Image.fromarray(rgba).save(buffer, format="png", compress_level=1)
        self.image.value = buffer.getvalue()
        return self.image.value

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

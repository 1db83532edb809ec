"""What every explorer gets from the Explorer base class: the live view and its rendered PNG."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import struct
import zlib

import ipywidgets
import pytest

import posenc_lib.widgets
from posenc_lib.widgets import EXPLORERS, EncodingHeatmapExplorer, Explorer, SourceHeatmapExplorer


def test_the_tuple_lists_every_explorer_defined_in_the_package() -> None:
    defined = {
        value
        for info in pkgutil.iter_modules(posenc_lib.widgets.__path__)
        for value in vars(importlib.import_module(f"posenc_lib.widgets.{info.name}")).values()
        if inspect.isclass(value) and issubclass(value, Explorer) and value is not Explorer
    }
    assert defined == set(EXPLORERS), "add the new explorer to posenc_lib.widgets.EXPLORERS"


@pytest.mark.parametrize("cls", EXPLORERS, ids=[c.__name__ for c in EXPLORERS])
def test_the_live_view_holds_the_controls_and_the_rendered_png(cls: type[Explorer]) -> None:
    explorer = cls()
    view = explorer.widget()
    controls, picture = view.children
    assert isinstance(explorer.image, ipywidgets.Image)
    assert picture is explorer.image
    assert list(controls.children) == list(explorer.controls.values())
    assert explorer.image.value[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("compressor", ["default (ISA-L)", "zlib"])
@pytest.mark.parametrize("shape", [(7, 5, 4), (300, 420, 4)])
def test_png_bytes_decodes_to_the_same_pixels(compressor: str, shape: tuple[int, ...]) -> None:
    import io

    import numpy as np
    from PIL import Image

    from posenc_lib.plots.style import png_bytes

    rng = np.random.default_rng(0)
    rgba = rng.integers(0, 256, size=shape, dtype=np.uint8)
    rgba[shape[0] // 3 :, : shape[1] // 2] = (250, 250, 250, 255)  # a flat block, as in plots
    png = png_bytes(rgba) if compressor.startswith("default") else png_bytes(rgba, zlib.compress)
    decoded = np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))
    # zlib checks the stream's Adler-32 checksum, which a PNG decoder may skip
    (length,) = struct.unpack(">I", png[33:37])
    assert png[37:41] == b"IDAT"
    assert len(zlib.decompress(png[41 : 41 + length])) == shape[0] * (1 + 4 * shape[1])
    np.testing.assert_array_equal(decoded, rgba)


@pytest.mark.parametrize("cls", EXPLORERS, ids=[c.__name__ for c in EXPLORERS])
def test_the_png_is_twice_the_css_size_it_is_laid_out_at(cls: type[Explorer]) -> None:
    import struct

    explorer = cls()
    width, height = struct.unpack(">II", explorer.image.value[16:24])  # IHDR, read directly
    inches = explorer.figure.get_size_inches()
    assert (width, height) == tuple(round(x * explorer.figure.dpi) for x in inches)
    assert explorer.image.layout.width == f"{round(width / 2)}px"  # not stretched by the VBox


def test_the_view_output_holds_the_widget_a_png_and_one_line_of_text() -> None:
    import base64

    explorer = EXPLORERS[0]()
    data, metadata = explorer.widget()._repr_mimebundle_()
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"]
    assert base64.b64decode(data["image/png"]) == explorer.image.value
    assert metadata["image/png"]["width"] == explorer.figure.get_size_inches()[0] * 100
    assert "\n" not in data["text/plain"] and not data["text/plain"].startswith("VBox(")
    for name in explorer.controls:
        assert f"{name}=" in data["text/plain"]


def test_pixel_ratio_sets_the_png_pixels_per_css_pixel() -> None:
    class Blank(Explorer):
        def update(self) -> None:  # type: ignore[override]
            pass

    class OneToOne(Blank):
        pixel_ratio = 1.0

    one = OneToOne(figsize=(3.0, 2.0), dpi=50.0)
    one.render()
    default = Blank(figsize=(3.0, 2.0), dpi=50.0)
    default.render()
    assert one.css_size() == default.css_size() == (150, 100)
    assert len(one.image.value) < len(default.image.value)
    assert one.canvas.get_width_height() == (150, 100)
    assert default.canvas.get_width_height() == (300, 200)


class _LegendExplorer(Explorer):
    """A line with notebook 05's legend, an axis label and a title its update changes."""

    def __init__(self) -> None:
        super().__init__(figsize=(4.0, 2.5))
        with self.style():
            ax = self.figure.add_subplot()
            (self.line,) = ax.plot([0, 1, 2], [0, 1, 0], label="score, q = k = (1, ..., 1)")
            ax.plot([0, 2], [0.5, 0.5], label="a - b ~ c · d")
            ax.set_xlabel("offset k = j - i")
            ax.legend(loc="lower center")
            self.title = ax.set_title("", y=1.0)
        self.add_control("k", ipywidgets.IntSlider(value=1, min=0, max=3))
        self.refresh()

    def changing_artists(self) -> list:
        return [self.title]

    def update(self, k: int) -> None:  # type: ignore[override]
        self.title.set_text(f"k = {k}: q · k = {k} - 1")


def test_an_explorer_draws_its_texts_exactly_as_plain_agg() -> None:
    """The explorer's picture, blitted title included, is plain Agg's picture, pixel for pixel.

    Its canvas once drew texts from kept word stamps: " = " came out as a minus sign and " - ",
    " ~ ", " · " vanished, and every word sat on a whole pixel.
    """
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from posenc_lib.plots.style import course_style

    explorer = _LegendExplorer()
    explorer.controls["k"].value = 2  # a blitted tick over the kept background
    shown = np.asarray(explorer.canvas.buffer_rgba()).copy()
    plain = FigureCanvasAgg(explorer.figure)  # the same figure, drawn by Matplotlib's Agg
    with course_style():  # in the style the explorer draws in
        plain.draw()
    np.testing.assert_array_equal(shown, np.asarray(plain.buffer_rgba()))


@pytest.mark.parametrize(
    ("name", "control", "values"),
    [
        ("LabCurvesExplorer", "multiple", (1, 8, 2, 1)),
        ("EncodingHeatmapExplorer", "length", (10, 500, 10)),
        ("ModelPairsExplorer", "preset", ("llama-4-scout", "llama-3.1-8b", "llama-4-scout")),
    ],
)
def test_a_kept_background_comes_back_with_its_layout(
    name: str, control: str, values: tuple
) -> None:
    """Each background is laid out for what it shows; reused, it brings its axes positions, so
    the blitted picture is what plain Agg draws of the figure.

    Up to 1 pixel in 10,000 may differ: a blitted dot on an axis edge is drawn over the spine,
    which a full draw puts on top. Axes drawn at another layout's positions differ in
    thousands of pixels.
    """
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    explorer = getattr(posenc_lib.widgets, name)()
    for value in values:
        explorer.controls[control].value = value
    shown = np.asarray(explorer.canvas.buffer_rgba()).copy()
    plain = FigureCanvasAgg(explorer.figure)
    plain.draw()
    differ = np.any(shown != np.asarray(plain.buffer_rgba()), axis=-1)
    assert differ.mean() <= 1e-4, f"{differ.sum()} pixels differ"


@pytest.mark.parametrize("cls", [EncodingHeatmapExplorer, SourceHeatmapExplorer])
def test_a_frozen_layout_never_runs_the_layout_engine_and_never_moves_the_axes(
        cls: type[Explorer], monkeypatch: pytest.MonkeyPatch) -> None:
    explorer = cls()
    positions = [ax.get_position().bounds for ax in explorer.figure.axes]
    runs = []
    engine = explorer._layout or explorer.figure.get_layout_engine()
    monkeypatch.setattr(type(engine), "execute", lambda self, fig: runs.append(fig))
    for control in explorer.controls.values():  # each slider to both ends, each option
        options = getattr(control, "options", None)
        for value in options or (control.min, control.max):
            control.value = value
    assert not runs
    assert [ax.get_position().bounds for ax in explorer.figure.axes] == positions

"""The gallery draws each picture once (issue 34: notebook 11 within about 10 s).

``draw_png`` lays a figure out and paints it in a single draw at the resolution it is shown at,
and writes the PNG itself. The pixels are checked against matplotlib's own two-draw route
(freeze the layout at that resolution, then ``savefig``), decoded by Pillow, an independent
PNG reader; the layout it freezes is checked against what later saves of the figure draw.
"""

from __future__ import annotations

import io
import struct
import zlib

import matplotlib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import PlaceHolderLayoutEngine
from PIL import Image

from posenc_lib.figures import REGISTRY, build_figure, get_figure
from posenc_lib.figures.gallery import gallery_picture
from posenc_lib.figures.registry import _titles_may_move
from posenc_lib.plots import course_style, figure_png, freeze_layout, new_figure
from posenc_lib.plots.style import draw_png

matplotlib.use("Agg")


def _sample_figure(facecolor: str = "white") -> Figure:
    """Two axes with mathtext labels and a suptitle, under constrained layout."""
    with course_style():
        fig, axes = new_figure(1, 2, figsize=(4.0, 2.0))
        fig.set_facecolor(facecolor)
        for ax in axes:
            ax.plot([1, 10, 100], [1e-3, 1.0, 1e3])
            ax.set_yscale("log")
            ax.set_xlabel(r"position $m$")
        fig.suptitle("two panels")
    return fig


def _two_draws_png(fig: Figure, dpi: float) -> bytes:
    """matplotlib's route: lay out at ``dpi`` in a draw of its own, then ``savefig``."""
    original = fig.get_dpi()
    fig.set_dpi(dpi)
    fig.draw_without_rendering()
    fig.set_layout_engine("none")
    fig.set_dpi(original)
    return figure_png(fig, dpi=dpi)


def _decoded(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


@pytest.mark.parametrize("facecolor", ["white", "none"])
def test_draw_png_paints_the_pixels_of_freeze_then_savefig(facecolor: str) -> None:
    # savefig paints savefig.facecolor (white in the course style), draw_png the figure's own
    with course_style(), matplotlib.rc_context({"savefig.facecolor": "auto"}):
        fast = draw_png(_sample_figure(facecolor), dpi=150.0)
        slow = _two_draws_png(_sample_figure(facecolor), 150.0)
    image = Image.open(io.BytesIO(fast))
    # an opaque picture is stored without its alpha channel; a transparent one keeps it
    assert image.mode == ("RGB" if facecolor == "white" else "RGBA")
    assert image.size == (600, 300)
    # the resolution as matplotlib records it: 150 / 0.0254 = 5905.5 pixels per metre, rounded
    assert image.info["dpi"] == Image.open(io.BytesIO(slow)).info["dpi"] == (
        pytest.approx(5906 * 0.0254), pytest.approx(5906 * 0.0254))
    np.testing.assert_array_equal(_decoded(fast), _decoded(slow))
    assert (_decoded(fast)[..., 3] < 255).any() == (facecolor == "none")


def test_draw_png_freezes_the_layout_it_drew() -> None:
    fig = _sample_figure()
    with course_style():
        png = draw_png(fig, dpi=150.0)
    assert isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine)  # no more layout
    assert fig.get_dpi() == 100.0
    positions = [ax.get_position().bounds for ax in fig.axes]
    again = figure_png(fig, dpi=150.0)  # a later save draws the same layout, the same pixels
    assert [ax.get_position().bounds for ax in fig.axes] == positions
    np.testing.assert_array_equal(_decoded(again), _decoded(png))


def test_draw_png_checks_its_input() -> None:
    with pytest.raises(TypeError, match="fig"):
        draw_png("figure", dpi=100.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dpi"):
        draw_png(_sample_figure(), dpi=0.0)


def test_png_chunks_are_well_formed() -> None:
    # walk the chunks with their CRCs: a reader stricter than Pillow's default
    png = draw_png(_sample_figure(), dpi=72.0)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, tags = 8, []
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        tag, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(tag + data), tag
        tags.append(tag)
        at += 12 + length
    assert tags == [b"IHDR", b"pHYs", b"IDAT", b"IEND"]


@pytest.mark.parametrize("name", ["heatmap_002", "angle_precision", "model_pairs"])
def test_gallery_picture_is_the_registered_figure(name: str) -> None:
    """The single draw changes how the picture is made, not what it shows."""
    picture = gallery_picture(name)
    built = get_figure(name).build()
    assert len(picture.figure.axes) == len(built.axes)
    for shown, reference in zip(picture.figure.axes, built.axes, strict=True):
        assert shown.get_title() == reference.get_title()
        assert [line.get_label() for line in shown.get_lines()] == [
            line.get_label() for line in reference.get_lines()]
        for a, b in zip(shown.get_lines(), reference.get_lines(), strict=True):
            np.testing.assert_array_equal(a.get_ydata(), b.get_ydata())
        for a, b in zip(shown.images, reference.images, strict=True):
            np.testing.assert_array_equal(a.get_array(), b.get_array())
        # laid out at 200 instead of 100 dpi: the same place to well under a pixel at 100 dpi
        np.testing.assert_allclose(shown.get_position().bounds, reference.get_position().bounds,
                                   atol=0.01)


def test_every_registered_figure_has_its_unstyled_function() -> None:
    assert all(spec.unfrozen is not None for spec in REGISTRY.values())


# ----------------------------------------------------------------- titles at the top of the axes


def _titles(fig: Figure) -> list[tuple[str, float]]:
    return [(text, y) for ax in fig.axes for title in (ax.title, ax._left_title, ax._right_title)
            if (text := title.get_text()) for y in [title.get_position()[1]]]


@pytest.mark.parametrize("name", list(REGISTRY))
def test_titles_sit_where_matplotlib_would_place_them(name: str) -> None:
    # matplotlib's own placement (axes.titley None), laid out at the same dpi as build()
    with course_style():
        automatic = freeze_layout(REGISTRY[name].unfrozen())  # type: ignore[misc]
    assert _titles(build_figure(name)) == _titles(automatic)
    assert all(y == 1.0 for _, y in _titles(automatic)) or _titles_may_move(automatic)


def test_a_title_is_lifted_above_an_offset_text() -> None:
    """Angles up to 1e7 put "1e7" above the y axis: the title must go above it, as
    matplotlib's placement puts it, not at the top of the axes, where the two would overlap."""
    params = {"positions": (0, 10_000_000)}
    fig = gallery_picture("theta_offsets", **params).figure
    fig.draw_without_rendering()  # the offset text again at the figure's 100 dpi
    ax = fig.axes[0]
    renderer = FigureCanvasAgg(fig).get_renderer()
    assert ax.yaxis.offsetText.get_text() == "1e7"
    title = ax._left_title.get_window_extent(renderer)
    assert title.y0 >= ax.yaxis.offsetText.get_window_extent(renderer).y1
    with course_style(), matplotlib.rc_context({"axes.titley": 1.0}):  # what the check avoids
        fixed = freeze_layout(REGISTRY["theta_offsets"].unfrozen(**params))  # type: ignore[misc]
    renderer = FigureCanvasAgg(fixed).get_renderer()
    top = fixed.axes[0]
    assert top._left_title.get_window_extent(renderer).overlaps(
        top.yaxis.offsetText.get_window_extent(renderer))

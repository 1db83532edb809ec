"""Notebook 11's pictures are readable where they are shown (issue 22).

Done when: every stored picture is drawn at 100 dpi or more and no figure text is smaller than
8 pixels at the size shown; nothing a figure draws is cut off at its edge. The pixel sizes and
resolutions are read from the stored PNG bytes themselves (IHDR and pHYs chunks), not from the
code that wrote them.
"""

from __future__ import annotations

import base64
import re
import struct

import matplotlib
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from posenc_lib.figures import REGISTRY, build_figure
from posenc_lib.figures.gallery import _GALLERY_DPI, _SHOWN_WIDTH, gallery_picture
from posenc_lib.plots import course_style, figure_png, new_figure
from tools.notebook_cells import ROOT, load, source

matplotlib.use("Agg")

NB11 = ROOT / "notebooks" / "11_figure_gallery.ipynb"
MIN_DPI, MIN_TEXT_PX = 100.0, 8.0
PICTURE = re.compile(
    r"^(\w+): (\d+) x (\d+) px at ([\d.]+) dpi, shown (\d+) x (\d+), smallest text ([\d.]+) px$"
)
EXPLORER = "application/vnd.jupyter.widget-view+json"


def png_size_and_dpi(png: bytes) -> tuple[int, int, float | None]:
    """Width and height from the IHDR chunk, dots per inch from pHYs (None without one)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    at = png.find(b"pHYs")
    if at < 0:
        return width, height, None
    x_per_metre, _, unit = struct.unpack(">IIB", png[at + 4 : at + 13])
    assert unit == 1, "pHYs in pixels per metre"
    return width, height, x_per_metre * 0.0254


def text_points(fig: Figure) -> list[float]:
    """Font sizes, in points, of every visible text of ``fig`` after a draw."""
    fig.draw_without_rendering()
    return [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]


def _smallest_text_px(fig: Figure, dpi: float, scale: float = 1.0) -> float:
    """Height in pixels of the smallest visible text of ``fig`` drawn at ``dpi`` and shown
    ``scale`` times its pixel size: points * dpi / 72 * scale."""
    if dpi <= 0:
        raise ValueError(f"dpi must be > 0; got {dpi}")
    return min(text_points(fig)) * dpi / 72.0 * scale


def _overhang_px(fig: Figure, dpi: float) -> float:
    """How far, in pixels at ``dpi``, the tight bounding box of what ``fig`` draws reaches past
    the figure's edge; 0 or less when nothing is cut off."""
    original = fig.get_dpi()
    try:
        fig.set_dpi(dpi)
        drawn = fig.get_tightbbox(FigureCanvasAgg(fig).get_renderer())  # inches
        width, height = fig.get_size_inches()
        beyond = max(-drawn.x0, -drawn.y0, drawn.x1 - width, drawn.y1 - height)
    finally:
        fig.set_dpi(original)
    return float(beyond * dpi)


# ----------------------------------------------------------------- the measuring tools can fail


def test_smallest_text_counts_points_at_the_resolution_and_scale() -> None:
    with course_style():
        fig, ax = new_figure(figsize=(4.0, 3.0))
        ax.set_title("title", fontsize=11)
        ax.text(0.5, 0.5, "tiny", fontsize=5.0)
    # 5 points at 100 dpi: 5 * 100 / 72 = 6.94 px, below the 8 px floor; shown at half: 3.47
    assert _smallest_text_px(fig, 100.0) == pytest.approx(500 / 72)
    assert _smallest_text_px(fig, 100.0, 0.5) == pytest.approx(250 / 72)
    assert _smallest_text_px(fig, 100.0) < MIN_TEXT_PX
    with pytest.raises(ValueError, match="dpi"):
        _smallest_text_px(fig, 0.0)


def test_overhang_finds_a_label_cut_off_at_the_edge() -> None:
    with course_style():
        fig, ax = new_figure(figsize=(4.0, 3.0))
        ax.plot([0, 1], [0, 1])
    fig.draw_without_rendering()
    assert _overhang_px(fig, 100.0) <= 0
    ax.text(-0.4, 0.5, "a long label left of the axes", transform=ax.transAxes)
    assert _overhang_px(fig, 100.0) > 20


def test_png_reader_reads_the_resolution() -> None:
    with course_style():
        fig, _ = new_figure(figsize=(2.0, 1.0))
    assert png_size_and_dpi(figure_png(fig, dpi=60)) == (120, 60, pytest.approx(60, abs=0.01))
    assert png_size_and_dpi(figure_png(fig, dpi=150))[:2] == (300, 150)


# ----------------------------------------------------------------- every registered figure


@pytest.mark.parametrize("name", list(REGISTRY))
def test_gallery_picture_is_sharp_and_readable(name: str) -> None:
    picture = gallery_picture(name)
    width, height, dpi = png_size_and_dpi(picture.png)
    assert dpi is not None and dpi >= MIN_DPI - 0.01
    assert (width, height) == picture.pixels
    scale = picture.shown[0] / width
    assert picture.shown[0] <= _SHOWN_WIDTH and scale <= 1
    assert picture.shown[1] == pytest.approx(height * scale, abs=1)
    # pixels = points * dpi / 72, at the shown scale
    smallest = min(text_points(build_figure(name))) * dpi / 72 * scale
    assert smallest >= MIN_TEXT_PX, f"{name}: {smallest:.1f} px text at the size shown"
    assert picture.smallest_text == pytest.approx(smallest, rel=1e-3)
    # the gallery lays its picture out at its own dpi: nothing of it is cut off either
    assert _overhang_px(picture.figure, dpi) <= 0


@pytest.mark.parametrize("name", list(REGISTRY))
def test_no_text_is_cut_off(name: str) -> None:
    assert _overhang_px(build_figure(name), _GALLERY_DPI) <= 0


def test_stacked_waves_labels_sit_inside_the_figure_even_at_60_dpi() -> None:
    # issue 22: drawn at 60 dpi, the long tick labels "dim 3: cos(0.01 pos)" were cut off
    fig = build_figure("stacked_waves")
    assert _overhang_px(fig, 60.0) <= 0
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert ticks == ["dim 0", "dim 1", "dim 2", "dim 3"]
    formulas = [t.get_text() for t in fig.axes[0].texts]
    assert formulas == ["sin(1 pos)", "cos(1 pos)", "sin(0.01 pos)", "cos(0.01 pos)"]


def test_heatmap_002_says_position_where_the_source_says_text_length() -> None:
    ax = build_figure("heatmap_002").axes[0]
    assert ax.get_xlabel() == "Position"
    # one column per position: column t is PE(t), whose first entry is sin(t)
    column_5 = ax.images[0].get_array()[:, 5]
    assert column_5[0] == pytest.approx(-0.958924274663, abs=1e-12)  # sin(5)
# ----------------------------------------------------------------- the stored notebook


def stored_pictures() -> list[tuple[int, dict]]:
    return [
        (index, output)
        for index, cell in enumerate(load(NB11)["cells"])
        for output in cell.get("outputs", [])
        if "image/png" in output.get("data", {})
    ]


def test_notebook_11_stores_readable_pictures() -> None:
    pictures = stored_pictures()
    gallery = 0
    for index, output in pictures:
        data = output["data"]
        png = base64.b64decode(data["image/png"])
        width, height, dpi = png_size_and_dpi(png)
        text = "".join(data["text/plain"])
        shown = output.get("metadata", {}).get("image/png", {})
        if EXPLORER in data:
            continue  # the explorer's picture: test_explorer_is_drawn_at_100_dpi
        assert dpi is not None and dpi >= MIN_DPI - 0.01, f"cell {index}: {dpi} dpi"
        described = PICTURE.match(text)
        if described is None:  # a plain matplotlib figure, in the retina format: shown at half
            assert shown["width"] == pytest.approx(width / 2, abs=1), f"cell {index}: {text[:60]}"
            assert shown["width"] <= _SHOWN_WIDTH, f"cell {index}: {text[:60]}"
            continue
        gallery += 1
        name, w, h, d, sw, sh, small = described.groups()
        assert (int(w), int(h)) == (width, height) and float(d) == pytest.approx(dpi, abs=0.01)
        assert (shown["width"], shown["height"]) == (int(sw), int(sh))
        assert int(sw) <= _SHOWN_WIDTH and float(small) >= MIN_TEXT_PX, f"cell {index}: {text}"
    assert gallery >= len(list(REGISTRY)), "every registered figure is shown"


def test_notebook_11_shows_every_figure_at_its_default_as_measured_now() -> None:
    stored = {}
    for _, output in stored_pictures():
        described = PICTURE.match("".join(output["data"]["text/plain"]))
        if described:
            stored.setdefault(described.group(1), described.group(0))
    for name in list(REGISTRY):
        assert stored[name] == repr(gallery_picture(name)), name


def test_explorer_is_drawn_at_100_dpi() -> None:
    from posenc_lib.widgets import SourceHeatmapExplorer

    explorer = SourceHeatmapExplorer("heatmap_002")
    css_dpi = explorer.figure.get_dpi() / explorer.pixel_ratio
    assert css_dpi >= MIN_DPI
    smallest = min(text_points(explorer.figure)) * css_dpi / 72
    assert smallest >= MIN_TEXT_PX
    cells = [c for c in load(NB11)["cells"] if source(c).rstrip().endswith(".widget()")]
    (output,) = [o for c in cells for o in c["outputs"] if EXPLORER in o.get("data", {})]
    shown = output["metadata"]["image/png"]["width"]
    assert shown == pytest.approx(explorer.figure.get_size_inches()[0] * css_dpi, abs=1)

"""The stamp canvas draws the same texts as Agg, in the same places, from kept pixels."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Circle
from matplotlib.text import Text
from matplotlib.transforms import Affine2D

from posenc_lib.widgets import _stamps
from posenc_lib.widgets._stamps import StampCanvas, StampRenderer


def texts_figure() -> Figure:
    """Every kind of text an explorer draws, on a white figure at two pixels per CSS pixel."""
    figure = Figure(figsize=(5.0, 3.0), dpi=200, layout="constrained")  # every text inside
    ax = figure.add_subplot()
    ax.plot([0, 10], [0, 1])
    ax.set_title("base 10000: 77 of 256 pairs  turn fully", fontweight="bold", fontsize=9)
    ax.set_xlabel("position (token index)")
    ax.set_ylabel("value, rotated 90")  # rotated text
    ax.text(2, 0.8, r"$\theta_i = b^{-2i/d}$", color="tab:red")  # mathtext
    ax.text(1, 0.5, "half transparent", alpha=0.5, color="tab:blue")
    ax.text(5, 0.3, "tilted text", rotation=30)
    ax.text(8.5, 0.6, "clipped at the axes edge", clip_on=True)  # runs out of the axes
    ax.text(0.5, 0.15, "two\nlines")
    ax.text(6, 0.05, " leading space and trailing ")
    FigureCanvasAgg(figure).draw()
    figure.set_layout_engine("none")  # the layout found once, as an explorer keeps it
    return figure


def pixels(canvas: FigureCanvasAgg) -> np.ndarray:
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].astype(int).copy()


def ink_by_text(figure: Figure, image: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each text of the figure: the ink per colour channel and its centroid (row, col).

    Ink is 255 minus the channel's value, summed over the text's extent and 3 pixels around.
    """
    renderer = figure.canvas.get_renderer()
    height, width = image.shape[:2]
    found = []
    for text in figure.findobj(lambda a: isinstance(a, Text) and bool(a.get_text())):
        if not text.get_visible():
            continue
        x0, y0, x1, y1 = text.get_window_extent(renderer).extents
        rows = slice(max(0, int(height - y1) - 3), min(height, int(height - y0) + 4))
        cols = slice(max(0, int(x0) - 3), min(width, int(x1) + 4))
        if rows.start >= rows.stop or cols.start >= cols.stop:
            continue  # a tick label outside the canvas
        ink = 255.0 - image[rows, cols]
        total = ink.sum(axis=-1)
        grid = np.mgrid[rows, cols]
        centroid = (grid * total).sum(axis=(1, 2)) / max(total.sum(), 1e-9)
        found.append((ink.sum(axis=(0, 1)), centroid))
    return found


def same_texts(figure: Figure, a: np.ndarray, b: np.ndarray) -> bool:
    """Each text has the same ink per channel (within 2 %) and centre (within 0.6 pixel)."""
    for (ink_a, centre_a), (ink_b, centre_b) in zip(
        ink_by_text(figure, a), ink_by_text(figure, b), strict=True
    ):
        if np.any(np.abs(ink_a - ink_b) > 0.02 * ink_b.max() + 1):
            return False
        if np.any(np.abs(centre_a - centre_b) > 0.6):
            return False
    return True


def test_stamped_texts_match_agg_up_to_a_fraction_of_a_pixel() -> None:
    figure = texts_figure()
    plain = pixels(FigureCanvasAgg(figure))
    stamped = pixels(StampCanvas(figure))
    # a stamp sits on whole pixels where Agg places text at fractions of one
    assert same_texts(figure, stamped, plain)
    assert not np.array_equal(stamped, plain)  # so the stamps drew them, not Agg again


@pytest.mark.parametrize("change", ["a word fewer", "another colour", "one pixel lower"])
def test_the_comparison_catches_a_wrong_text(change: str) -> None:
    figure = texts_figure()
    plain = pixels(FigureCanvasAgg(figure))
    text = figure.axes[0].texts[1]
    if change == "a word fewer":
        text.set_text("half")
    elif change == "another colour":
        text.set_color("tab:green")
    else:
        text.set_transform(text.get_transform() + Affine2D().translate(0, -1))
    changed = pixels(FigureCanvasAgg(figure))
    text.set_text("half transparent")  # the extents compared are the drawn text's
    assert not same_texts(figure, changed, plain)


def test_the_second_draw_comes_from_stamps_and_equals_the_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    canvas = StampCanvas(texts_figure())
    first = pixels(canvas)
    renderer = canvas.get_renderer()
    assert isinstance(renderer, StampRenderer) and renderer.stamps
    calls: list[Any] = []
    rasterise = _stamps._rasterise
    monkeypatch.setattr(_stamps, "_rasterise", lambda *a: calls.append(a) or rasterise(*a))
    second = pixels(canvas)
    assert calls == []
    np.testing.assert_array_equal(second, first)


def test_only_the_new_words_of_a_title_are_rasterised(monkeypatch: pytest.MonkeyPatch) -> None:
    figure = texts_figure()
    canvas = StampCanvas(figure)
    pixels(canvas)
    rasterised: list[str] = []
    rasterise = _stamps._rasterise
    monkeypatch.setattr(
        _stamps, "_rasterise", lambda r, gc, s, *a: rasterised.append(s) or rasterise(r, gc, s, *a)
    )
    figure.axes[0].set_title("base 500: 12 of 256 pairs  turn fully", fontweight="bold", fontsize=9)
    pixels(canvas)
    assert sorted(rasterised) == ["12", "500:"]


def test_a_text_with_a_clip_path_is_drawn_by_agg_itself() -> None:
    figure = Figure(figsize=(2.0, 1.0), dpi=200)
    text = figure.text(0.1, 0.4, "clipped by a circle", fontsize=12)
    text.set_clip_path(Circle((100, 100), 60, transform=None))
    np.testing.assert_array_equal(pixels(StampCanvas(figure)), pixels(FigureCanvasAgg(figure)))


def test_the_stamps_kept_are_bounded() -> None:
    figure = Figure(figsize=(2.0, 1.0), dpi=100)
    text = figure.text(0.1, 0.5, "")
    canvas = StampCanvas(figure)
    renderer = canvas.get_renderer()
    assert isinstance(renderer, StampRenderer)
    renderer.max_stamps = 5
    for n in range(20):
        text.set_text(f"tick{n}")
        canvas.draw()
    assert len(renderer.stamps) == 5
    assert ("tick19", text.get_fontproperties()) == next(reversed(renderer.stamps))[:2]


@pytest.mark.parametrize("weight", ["normal", "bold"])
@pytest.mark.parametrize(
    "line",
    [
        "base 10000: 77 of 256 pairs turn fully; longest wavelength 6.06e+04",
        "llama-3.1-8b at L = 8,192",
        "pos 1857: error 0.000123 rad",
        "output of 'chasing' (sinusoidal): largest change 0.000",
    ],
)
def test_agg_advances_add_up_word_by_word(line: str, weight: str) -> None:
    # the stamp renderer moves the pen by each word's width plus a space's: that is Agg's own
    # width of the line, for the course's font at the explorers' 200 device pixels per inch
    renderer = RendererAgg(10, 10, 200)
    prop = FontProperties(family="DejaVu Sans", size=9, weight=weight)

    def width(text: str) -> float:
        return float(renderer.get_text_width_height_descent(text, prop, False)[0])

    words = line.split(" ")
    assert width(line) == sum(width(w) for w in words) + (len(words) - 1) * width(" ")

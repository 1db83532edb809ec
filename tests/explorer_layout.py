"""Does an explorer's text fit? Every label, title and legend inside the figure, none overlapping.

Used by the headless tests (tests/test_widgets_layout.py) and, inside the kernel, by the
end-to-end test (tests/e2e), which moves the controls in a real browser. It imports no pytest:
a copy of this file next to a notebook is enough.

The extents are the renderer's window extents (device pixels) after a full Agg draw of the
figure as the explorer laid it out.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

from matplotlib.axes import Axes
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.transforms import Bbox

TOLERANCE = 0.5  # device pixels: antialiasing and rounding


def extreme_values(control: Any) -> list[Any]:
    """The extreme values of an ipywidgets control: every option, both booleans, min and max."""
    options = getattr(control, "options", None)
    if options:
        return [o[1] if isinstance(o, tuple) else o for o in options]
    if isinstance(control.value, bool):
        return [False, True]
    if hasattr(control, "base"):  # FloatLogSlider: min and max are exponents
        return [control.base**control.min, control.base**control.max]
    return [control.min, control.max]


def extreme_states(explorer: Any) -> Iterator[dict[str, Any]]:
    """Each control alone at each extreme value (the others as they start), then every
    combination of the controls' extreme values, as {name: value}."""
    start = explorer.values()
    names = list(start)
    for name in names:
        for value in extreme_values(explorer.controls[name]):
            yield {**start, name: value}
    for values in itertools.product(*(extreme_values(explorer.controls[n]) for n in names)):
        yield dict(zip(names, values, strict=True))


def set_values(explorer: Any, values: dict[str, Any]) -> None:
    """Set the controls (each change renders, as a learner's would)."""
    for name, value in values.items():
        explorer.controls[name].value = value


def _shown(text: Text) -> bool:
    return text.get_visible() and bool(text.get_text().strip())


def _axes_texts(ax: Axes) -> Iterator[tuple[str, Text]]:
    """The titles, axis labels, tick labels drawn and free texts of one Axes."""
    yield from (("title", ax.title), ("left title", ax._left_title),
                ("right title", ax._right_title))
    yield "x label", ax.xaxis.label
    yield "y label", ax.yaxis.label
    for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
        for tick in axis._update_ticks():  # the ticks a draw shows
            for label in (tick.label1, tick.label2):
                yield f"{name} tick label", label
    for text in ax.texts:
        yield "text", text


def named_texts(figure: Any) -> list[tuple[str, Text | Legend]]:
    """(description, artist) of every text and legend the figure shows."""
    found: list[tuple[str, Text | Legend]] = []
    for number, ax in enumerate(figure.axes):
        if not ax.get_visible():
            continue
        for where, text in _axes_texts(ax):
            if _shown(text):
                found.append((f"axes {number} {where} {text.get_text()!r}", text))
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            labels = [t.get_text() for t in legend.get_texts()]
            found.append((f"axes {number} legend {labels}", legend))
    suptitle = getattr(figure, "_suptitle", None)
    for text in figure.texts:
        if _shown(text) and text is not suptitle:
            found.append((f"figure text {text.get_text()!r}", text))
    if suptitle is not None and _shown(suptitle):
        found.append((f"suptitle {suptitle.get_text()!r}", suptitle))
    return found


def _overlap(a: Bbox, b: Bbox) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > TOLERANCE
            and min(a.y1, b.y1) - max(a.y0, b.y0) > TOLERANCE)


def _data_under_legend(ax: Axes, box: Bbox) -> bool:
    """Whether a visible line or bar of ``ax`` is drawn inside the legend's box."""
    inner = Bbox.from_extents(box.x0 + 1, box.y0 + 1, box.x1 - 1, box.y1 - 1)
    for line in ax.lines:
        if isinstance(line, Line2D) and line.get_visible() and len(line.get_xdata()):
            path = line.get_transform().transform_path(line.get_path())
            vertices = path.vertices
            finite = vertices[[all(map(math.isfinite, v)) for v in vertices]]
            if len(finite) and any(inner.contains(x, y) for x, y in finite):
                return True
            if path.intersects_bbox(inner, filled=False):
                return True
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_visible() and patch.get_zorder() > 0:
            if _overlap(patch.get_window_extent(), inner):
                return True
    return False


def text_problems(explorer: Any) -> list[str]:
    """What does not fit in the explorer's current picture, one line each (empty: all fits).

    Every title, axis label, tick label, free text and legend must lie inside the figure; no two
    of them may overlap (slanted texts, whose boxes are larger than their letters, and tick
    labels of one axis among themselves excepted: the locator spaces them); no legend may sit
    over a line or a bar of its axes.
    """
    figure = explorer.figure
    explorer.canvas.draw()  # the whole picture, as laid out; extents from its renderer
    renderer = explorer.canvas.get_renderer()
    frame = figure.bbox
    problems = []
    texts = named_texts(figure)
    boxes = [(name, artist.get_window_extent(renderer)) for name, artist in texts]
    for name, box in boxes:
        if (box.x0 < frame.x0 - TOLERANCE or box.y0 < frame.y0 - TOLERANCE
                or box.x1 > frame.x1 + TOLERANCE or box.y1 > frame.y1 + TOLERANCE):
            problems.append(f"{name} leaves the figure: {box.extents.round(1).tolist()} "
                            f"outside {frame.extents.round(1).tolist()}")
    # a slanted text's box is much larger than its letters
    square = [(name, box) for (name, box), (_, artist) in zip(boxes, texts, strict=True)
              if not isinstance(artist, Text) or artist.get_rotation() % 90 == 0]
    for (name_a, a), (name_b, b) in itertools.combinations(square, 2):
        same_axis_ticks = "tick label" in name_a and name_a.split(" tick")[0] == (
            name_b.split(" tick")[0])
        if not same_axis_ticks and _overlap(a, b):
            problems.append(f"{name_a} overlaps {name_b}")
    for ax in figure.axes:
        legend = ax.get_legend()
        if ax.get_visible() and legend is not None and legend.get_visible():
            if _data_under_legend(ax, legend.get_window_extent(renderer)):
                labels = [t.get_text() for t in legend.get_texts()]
                problems.append(f"the legend {labels} lies over the data")
    return problems

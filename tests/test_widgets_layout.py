"""Every explorer's text fits at its controls' extreme values (issue 25, item 3).

For each combination of the controls' extreme values (every option of a dropdown, both ends of
a slider, both states of a checkbox), the full picture is drawn and the renderer's window
extents are checked by :func:`explorer_layout.text_problems`: every axis label, tick label,
title, free text and legend inside the figure, no two overlapping, no legend over the data.
This is the one proof: the controls are set as a learner's slider sets them (each change
renders), so the former browser run of the same check at one extreme at a time (e2e) is gone.
"""

from __future__ import annotations

import pytest
from matplotlib.text import Text

from posenc_lib.widgets import (
    EXPLORERS,
    AngleErrorExplorer,
    EncodingHeatmapExplorer,
    Explorer,
    RelativeBiasExplorer,
    RotationExplorer,
)
from tests.explorer_layout import extreme_states, named_texts, set_values, text_problems


@pytest.mark.parametrize("cls", EXPLORERS, ids=[c.__name__ for c in EXPLORERS])
def test_every_text_fits_at_the_extreme_control_values(cls: type[Explorer]) -> None:
    explorer = cls()
    found = {}
    states = [explorer.values(), *extreme_states(explorer)]
    for state in states:
        set_values(explorer, state)
        for problem in text_problems(explorer):
            found.setdefault(problem, state)
    assert len(states) >= 3
    assert not found, "\n".join(f"{p} at {s}" for p, s in found.items())


def _box(explorer: Explorer, wanted: str) -> object:
    renderer = explorer.canvas.get_renderer()
    (text,) = [a for _, a in named_texts(explorer.figure)
               if isinstance(a, Text) and a.get_text() == wanted]
    return text.get_window_extent(renderer)


@pytest.mark.parametrize(
    ("cls", "state", "texts"),
    [
        (RotationExplorer, {"t": 0, "k": -20, "pair": 7}, ("$p(t)$", r"$M_k\,p(t)$")),
        (RotationExplorer, {"t": 40, "k": 1, "pair": 7}, ("$p(t)$", r"$M_k\,p(t)$")),
        (AngleErrorExplorer, {"dtype_name": "float32", "position": 1, "pair": 15},
         ("exact", "rounded")),
    ],
)
def test_the_labels_of_two_close_points_do_not_overprint(
    cls: type[Explorer], state: dict, texts: tuple[str, str]
) -> None:
    explorer = cls()
    set_values(explorer, state)
    explorer.canvas.draw()
    a, b = (_box(explorer, text) for text in texts)
    assert not a.overlaps(b), f"{texts} overprint at {state}"


def test_the_heatmap_label_stays_inside_at_every_length() -> None:
    """The layout is no longer fixed at the first draw: long position labels get room."""
    explorer = EncodingHeatmapExplorer(length=10)
    for length in (10, 100, 200, 500):
        explorer.controls["length"].value = length
        explorer.canvas.draw()
        assert _box(explorer, "Position").x0 >= 0, length


def test_the_t5_title_stays_inside_at_64_buckets_and_max_256() -> None:
    explorer = RelativeBiasExplorer()
    set_values(explorer, {"num_buckets": 52, "max_distance": 138})
    set_values(explorer, {"num_buckets": 64, "max_distance": 256, "bidirectional": False})
    explorer.canvas.draw()
    box = _box(explorer, explorer.t5_title.get_text())
    assert box.x1 <= explorer.figure.bbox.x1


def test_the_word_order_bars_fill_their_axis_and_the_weights_have_a_colour_scale() -> None:
    """Notebook 00: the bar axis follows the word shown (not a fixed +-15), the same for the
    three orders so that they compare at one scale, and a colour bar gives the weights' scale."""
    from posenc_lib.widgets import WordOrderExplorer
    from posenc_lib.widgets.attention import ENCODINGS, ORDERS

    explorer = WordOrderExplorer()
    assert len(explorer.figure.axes) == 3  # weights, their colour bar, bars
    for encoding in ENCODINGS:
        for word in explorer.words:
            tallest = []
            for order in ORDERS:
                set_values(explorer, {"encoding": encoding, "word": word, "order": order})
                low, high = explorer.bar_axes.get_ylim()
                heights = [abs(p.get_height()) for c in explorer.bars for p in c.patches]
                assert max(heights) <= high and low == -high
                tallest.append(max(heights))
            assert max(tallest) >= 0.8 * high, (encoding, word)

"""Explorers of notebooks 00 and 01, driven headlessly through their controls.

Each control change must change the artists' data in place: same figure, same axes, same
artist objects, new data that agrees with posenc_lib's mathematics.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from posenc_lib.attention import VOCAB, self_attention, word_order_model
from posenc_lib.binary import binary_table
from posenc_lib.widgets.attention import ORDERS, WordOrderExplorer
from posenc_lib.widgets.binary import BinaryCountingExplorer


def bar_heights(explorer: WordOrderExplorer, series: int) -> np.ndarray:
    return np.array([p.get_height() for p in explorer.bars[series].patches])


def png_pixels(data: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(data)))


# --- WordOrderExplorer --------------------------------------------------------------------


@pytest.fixture
def word_order() -> WordOrderExplorer:
    return WordOrderExplorer()


def test_word_order_controls(word_order: WordOrderExplorer) -> None:
    assert set(word_order.controls) == {"order", "encoding", "word"}
    assert word_order.image.value[:8] == b"\x89PNG\r\n\x1a\n"


def test_changing_the_order_updates_the_weights_in_place(word_order: WordOrderExplorer) -> None:
    n_axes = len(word_order.figure.axes)
    image = word_order.attention.image
    before = np.array(image.get_array())
    word_order.controls["order"].value = ORDERS[2]
    after = np.array(image.get_array())
    assert word_order.attention.image is image
    assert len(word_order.figure.axes) == n_axes
    assert not np.allclose(before, after)
    # the weights are the ones of self_attention on the reordered words
    table, w_q, w_k, w_v = word_order_model()
    x = table[[VOCAB.index(w) for w in ORDERS[2].split()]]
    np.testing.assert_allclose(after, self_attention(x, w_q, w_k, w_v)[1])
    assert [t.get_text() for t in word_order.attention.query_texts] == ORDERS[2].split()


def test_without_position_a_word_keeps_its_output_in_every_order(
    word_order: WordOrderExplorer,
) -> None:
    for order in ORDERS:
        for word in WordOrderExplorer.words:
            word_order.controls["order"].value = order
            word_order.controls["word"].value = word
            np.testing.assert_allclose(bar_heights(word_order, 0), bar_heights(word_order, 1))
    assert "largest change 0.000" in word_order.title.get_text()


def test_a_position_code_makes_the_order_visible(word_order: WordOrderExplorer) -> None:
    patches = list(word_order.bars[0].patches)
    word_order.controls["order"].value = ORDERS[1]
    for encoding in ("integer", "normalised"):
        word_order.controls["encoding"].value = encoding
        assert not np.allclose(bar_heights(word_order, 0), bar_heights(word_order, 1))
    assert list(word_order.bars[0].patches) == patches


def test_the_word_control_changes_the_bars(word_order: WordOrderExplorer) -> None:
    before = bar_heights(word_order, 1)
    word_order.controls["word"].value = "chasing"
    assert not np.allclose(before, bar_heights(word_order, 1))
    assert "'chasing'" in word_order.title.get_text()


# --- BinaryCountingExplorer ---------------------------------------------------------------


@pytest.fixture
def counting() -> BinaryCountingExplorer:
    return BinaryCountingExplorer()


def test_the_slider_moves_the_row_frame_the_cursor_and_the_markers(
    counting: BinaryCountingExplorer,
) -> None:
    n_axes = len(counting.figure.axes)
    highlight, cursor, markers = counting.highlight, counting.cursor, list(counting.markers)
    for position in (0, 11, 15):
        counting.controls["position"].value = position
        assert counting.highlight.get_y() == position - 0.5
        assert list(counting.cursor.get_xdata()) == [position, position]
        bits = binary_table(16, 4)[position][::-1]  # least significant bit first
        for k, marker in enumerate(counting.markers):
            x, y = marker.get_data()
            assert list(x) == [position]
            assert y[0] - counting.square.offsets[k] == bits[k]
        assert f"position {position} = " in counting.title.get_text()
    assert counting.highlight is highlight and counting.cursor is cursor
    assert counting.markers == markers and len(counting.figure.axes) == n_axes


def test_square_waves_take_each_bit_at_the_integer_positions(
    counting: BinaryCountingExplorer,
) -> None:
    table = binary_table(16, 4)
    for k, line in enumerate(counting.square.waves):
        x, y = line.get_data()
        at_integers = np.isclose(x, np.round(x))
        values = np.asarray(y)[at_integers] - counting.square.offsets[k]
        positions = np.round(np.asarray(x)[at_integers]).astype(int)
        inside = (positions >= 0) & (positions < 16)
        np.testing.assert_array_equal(values[inside], table[positions[inside], 3 - k])


@pytest.mark.parametrize("n_bits", [2, 4])
def test_every_sample_holds_the_bit_of_the_position_it_belongs_to(n_bits: int) -> None:
    # the sample at x belongs to position round(x) (cells [p - 1/2, p + 1/2)): the last one is
    # still position 2**n_bits - 1, all ones, so no wave drops to 0 at the right edge
    counting = BinaryCountingExplorer(n_bits=n_bits, position=0)
    n = 2**n_bits
    for k, line in enumerate(counting.square.waves):
        x, y = (np.asarray(a, dtype=float) for a in line.get_data())
        assert x.min() >= -0.5 and x.max() < n - 0.5
        owner = np.floor(x + 0.5).astype(int)
        expected = (owner >> k) & 1  # bit k of the position, computed from the integer
        np.testing.assert_array_equal(y - counting.square.offsets[k], expected)
        assert y[-1] - counting.square.offsets[k] == 1


def test_binary_counting_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError, match="n_bits"):
        BinaryCountingExplorer(n_bits=7)
    with pytest.raises(ValueError, match="position"):
        BinaryCountingExplorer(n_bits=3, position=8)
    with pytest.raises(TypeError, match="n_bits"):
        BinaryCountingExplorer(n_bits=True)


# --- the partial redraw ---------------------------------------------------------------------


def test_partial_redraw_matches_a_full_redraw_after_a_figure_save(
    counting: BinaryCountingExplorer,
) -> None:
    counting.controls["position"].value = 9
    first = png_pixels(counting.render())
    counting.figure.savefig(io.BytesIO(), format="png", bbox_inches="tight")
    second = png_pixels(counting.render())
    np.testing.assert_array_equal(first, second)
    counting.controls["position"].value = 3
    counting.controls["position"].value = 9
    np.testing.assert_array_equal(first, png_pixels(counting.image.value))


def test_partial_redraw_leaves_no_trace_of_the_previous_state(
    counting: BinaryCountingExplorer,
) -> None:
    counting.controls["position"].value = 2
    reference = png_pixels(counting.image.value)
    fresh = BinaryCountingExplorer(position=2)
    np.testing.assert_array_equal(reference, png_pixels(fresh.image.value))


def test_word_order_model_is_seeded_and_checks_its_arguments() -> None:
    first, second = word_order_model(seed=3), word_order_model(seed=3)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    table, w_q, _, _ = word_order_model(d_model=4)
    assert table.shape == (len(VOCAB), 4) and w_q.shape == (4, 4)
    with pytest.raises(ValueError, match="d_model"):
        word_order_model(d_model=0)
    with pytest.raises(TypeError, match="seed"):
        word_order_model(seed=1.5)

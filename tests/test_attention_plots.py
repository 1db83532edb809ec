"""Attention weights, bars, dot rows and wavelengths (posenc_lib.plots): data in, same data out."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from posenc_lib.attention import self_attention, word_order_model
from posenc_lib.frequencies import inverse_frequencies, wavelengths
from posenc_lib.plots import (
    draw_attention_weights,
    draw_dot_rows,
    draw_grouped_bars,
    draw_wavelengths,
)


def new_axes():  # type: ignore[no-untyped-def]
    return Figure().add_subplot()


# --- draw_attention_weights ----------------------------------------------------------------


def test_attention_map_shows_the_weights_and_the_words() -> None:
    table, w_q, w_k, w_v = word_order_model()
    words = ["the", "cat", "was"]
    _, weights = self_attention(table[[0, 1, 2]], w_q, w_k, w_v)
    art = draw_attention_weights(new_axes(), weights, query_labels=words)
    np.testing.assert_allclose(art.image.get_array(), weights)
    assert [t.get_text() for t in art.values] == [f"{w:.2f}" for w in weights.ravel()]
    assert [t.get_text() for t in art.query_texts] == words
    assert [t.get_text() for t in art.key_texts] == words
    assert art.image.get_clim() == (0.0, 1.0)


def test_attention_map_update_changes_the_same_artists() -> None:
    art = draw_attention_weights(new_axes(), np.full((2, 2), 0.5), query_labels=["a", "b"])
    image, texts = art.image, list(art.values)
    art.update([[0.9, 0.1], [0.3, 0.7]], ["u", "v"])
    assert art.image is image and art.values == texts
    np.testing.assert_allclose(art.image.get_array(), [[0.9, 0.1], [0.3, 0.7]])
    assert art.values[0].get_text() == "0.90" and art.values[0].get_color() == "white"
    assert [t.get_text() for t in art.query_texts] == [t.get_text() for t in art.key_texts]
    assert [t.get_text() for t in art.key_texts] == ["u", "v"]
    assert len(art.artists()) == 1 + 4 + 2 + 2


def test_attention_map_rejects_bad_input() -> None:
    ax = new_axes()
    with pytest.raises(ValueError, match="query_labels"):
        draw_attention_weights(ax, np.eye(2), query_labels=["a"])
    with pytest.raises(TypeError, match="query_labels"):
        draw_attention_weights(ax, np.eye(2), query_labels="ab")
    with pytest.raises(ValueError, match="weights must be a square matrix"):
        draw_attention_weights(ax, np.ones((2, 3)) / 3, query_labels=["a", "b"])
    with pytest.raises(ValueError, match="weights"):
        draw_attention_weights(ax, [[np.nan, 1.0], [0.0, 1.0]], query_labels=["a", "b"])
    with pytest.raises(TypeError, match="ax"):
        draw_attention_weights(None, np.eye(2), query_labels=["a", "b"])  # type: ignore[arg-type]
    art = draw_attention_weights(ax, np.eye(2), query_labels=["a", "b"])
    with pytest.raises(ValueError, match="shape"):
        art.update(np.eye(3))
    with pytest.raises(ValueError, match="words"):
        art.update(np.eye(2), ["a"])


# --- draw_grouped_bars ---------------------------------------------------------------------


def test_grouped_bars_heights_and_positions() -> None:
    bars = draw_grouped_bars(new_axes(), {"a": [1.0, -2.0, 3.0], "b": [0.5, 0.5, 0.5]})
    assert [p.get_height() for p in bars[0].patches] == [1.0, -2.0, 3.0]
    centres = [[p.get_x() + p.get_width() / 2 for p in c.patches] for c in bars]
    # the two series sit either side of each category's tick
    np.testing.assert_allclose(np.add(centres[0], centres[1]) / 2, [0.0, 1.0, 2.0], atol=1e-12)


def test_grouped_bars_rejects_bad_input() -> None:
    ax = new_axes()
    with pytest.raises(TypeError, match="series"):
        draw_grouped_bars(ax, {})
    with pytest.raises(ValueError, match="same length"):
        draw_grouped_bars(ax, {"a": [1.0], "b": [1.0, 2.0]})


# --- draw_dot_rows ---------------------------------------------------------------------


def test_dot_rows_put_each_row_on_its_own_line() -> None:
    rows = [np.arange(5) / 4, np.arange(50) / 49]
    lines = draw_dot_rows(new_axes(), rows, labels=["5 tokens", "50 tokens"])
    np.testing.assert_allclose(lines[1].get_xdata(), rows[1])
    assert set(lines[0].get_ydata()) == {1.0} and set(lines[1].get_ydata()) == {0.0}


def test_dot_rows_reject_bad_input() -> None:
    ax = new_axes()
    with pytest.raises(ValueError, match="labels"):
        draw_dot_rows(ax, [[0.0, 1.0]], labels=["a", "b"])
    with pytest.raises(TypeError, match="rows"):
        draw_dot_rows(ax, [], labels=[])


# --- draw_wavelengths ----------------------------------------------------------------------


def test_wavelength_chart_marks_the_pairs_that_turn_within_each_length() -> None:
    lam = wavelengths(inverse_frequencies(512))
    chart = draw_wavelengths(new_axes(), lam, [16, 100])
    np.testing.assert_allclose(chart.line.get_ydata(), lam)
    for marks, length in zip(chart.turned, (16, 100), strict=True):
        turned = np.asarray(marks.get_xdata())
        # an independent count: angle covered by L-1 steps at frequency 10000^(-2i/d)
        covered = (length - 1) * 10000.0 ** (-2.0 * np.arange(256) / 512)
        np.testing.assert_array_equal(turned, np.flatnonzero(covered >= 2 * np.pi - 1e-12))
    assert [t.get_ydata()[0] for t in chart.thresholds] == [15.0, 99.0]


def test_wavelength_chart_rejects_bad_input() -> None:
    ax = new_axes()
    with pytest.raises(ValueError, match="wavelengths"):
        draw_wavelengths(ax, [1.0, -2.0], [10])
    with pytest.raises(ValueError, match="sentence_lengths"):
        draw_wavelengths(ax, [1.0, 2.0], [1])
    with pytest.raises(TypeError, match="sentence_lengths"):
        draw_wavelengths(ax, [1.0, 2.0], "10")


def test_shorter_sentences_are_drawn_on_top() -> None:
    chart = draw_wavelengths(new_axes(), wavelengths(inverse_frequencies(64)), [512, 16])
    assert chart.turned[1].get_zorder() > chart.turned[0].get_zorder()

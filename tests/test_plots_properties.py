"""Tests of the drawings of notebooks 03-04 (posenc_lib.plots): what each puts on the axes."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.analysis import offset_similarity
from posenc_lib.plots import (
    draw_dimension_range,
    draw_offset_curve,
    draw_pair_waves,
    draw_probe,
    draw_signed_matrix,
    new_figure,
)
from posenc_lib.shift import shift_matrix


def test_offset_curve_marks_the_given_bounces_and_updates_in_place() -> None:
    fig, ax = new_figure()
    k = np.arange(30)
    values = offset_similarity(k, 64)
    art = draw_offset_curve(ax, k, values, bounces=[5, 9])
    np.testing.assert_allclose(art.bounces.get_xydata(), [[5, values[5]], [9, values[9]]])
    line, marks = art.line, art.bounces
    art.update(k, values / 32, [])
    assert art.line is line and art.bounces is marks and len(ax.lines) == 2
    np.testing.assert_allclose(art.line.get_ydata(), values / 32)
    assert len(art.bounces.get_xdata()) == 0


def test_offset_curve_bounce_label_can_stay_out_of_the_legend() -> None:
    fig, ax = new_figure()
    draw_offset_curve(ax, [0, 1, 2], [3.0, 1.0, 2.0], [1], label="curve")
    draw_offset_curve(ax, [0, 1, 2], [3.0, 2.0, 2.5], label="other", bounce_label=None)
    texts = [t.get_text() for t in ax.legend().get_texts()]
    assert texts == ["curve", "bounce (local minimum)", "other"]
    with pytest.raises(TypeError, match="bounce_label"):
        draw_offset_curve(ax, [0, 1], [1.0, 2.0], bounce_label=3)  # type: ignore[arg-type]


def test_offset_curve_rejects_bad_input() -> None:
    fig, ax = new_figure()
    with pytest.raises(ValueError, match="values"):
        draw_offset_curve(ax, [0, 1, 2], [1.0, 2.0])
    with pytest.raises(ValueError, match="bounces"):
        draw_offset_curve(ax, [0, 1, 2], [1.0, 2.0, 3.0], bounces=[3])
    with pytest.raises(TypeError, match="bounces"):
        draw_offset_curve(ax, [0, 1, 2], [1.0, 2.0, 3.0], bounces=[1.5])
    with pytest.raises(TypeError, match="ax"):
        draw_offset_curve("axes", [0, 1], [1.0, 2.0])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="offsets"):
        draw_offset_curve(ax, [0, np.nan], [1.0, 2.0])


def test_dimension_range_splits_sines_and_cosines() -> None:
    fig, ax = new_figure()
    ranges = np.array([2.0, 1.9, 0.5, 0.1, 0.01, 1e-4])
    sines, cosines = draw_dimension_range(ax, ranges)
    assert sines.get_xdata().tolist() == [0, 2, 4]
    np.testing.assert_allclose(cosines.get_ydata(), [1.9, 0.1, 1e-4])
    assert ax.get_yscale() == "log"
    with pytest.raises(ValueError, match="ranges"):
        draw_dimension_range(ax, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="ranges"):
        draw_dimension_range(ax, [1.0, 0.0])


def test_probe_scatter_and_diagonal() -> None:
    fig, ax = new_figure()
    points, diagonal = draw_probe(ax, [3, 1, 2], [2.5, 1.5, 2.0])
    np.testing.assert_allclose(points.get_offsets(), [[3, 2.5], [1, 1.5], [2, 2.0]])
    assert diagonal.get_xdata().tolist() == diagonal.get_ydata().tolist() == [1.0, 3.0]
    draw_probe(ax, [3, 1, 2], [3.0, 1.0, 2.0], label="second", diagonal_label=None)
    assert [t.get_text() for t in ax.legend().get_texts()] == ["perfect", "second"]
    with pytest.raises(TypeError, match="diagonal_label"):
        draw_probe(ax, [1, 2], [1.0, 2.0], diagonal_label=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="predicted"):
        draw_probe(ax, [1, 2], [1.0])
    with pytest.raises(ValueError, match="predicted"):
        draw_probe(ax, [], [])


def test_signed_matrix_is_centred_on_zero() -> None:
    fig, ax = new_figure()
    m = shift_matrix(3, 8)
    image = draw_signed_matrix(ax, m, colorbar=True)
    low, high = image.get_clim()
    assert low == -high == -np.abs(m).max()
    np.testing.assert_array_equal(image.get_array(), m)
    assert image.colorbar is not None
    image = draw_signed_matrix(ax, np.zeros((2, 2)), annotate=True)
    assert image.get_clim() == (-1.0, 1.0)
    assert [t.get_text() for t in ax.texts] == ["0.00"] * 4
    with pytest.raises(TypeError, match="annotate"):
        draw_signed_matrix(ax, m, annotate=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="matrix"):
        draw_signed_matrix(ax, [1.0, 2.0])


def test_pair_waves_follow_sine_and_cosine() -> None:
    fig, ax = new_figure()
    x = np.linspace(-5, 20, 251)
    art = draw_pair_waves(ax, x, 0.3, 4.0, 6.0)
    np.testing.assert_allclose(art.sine.get_ydata(), np.sin(0.3 * x))
    np.testing.assert_allclose(art.cosine.get_ydata(), np.cos(0.3 * x))
    np.testing.assert_allclose(art.now.get_ydata(), [np.sin(1.2), np.cos(1.2)])
    np.testing.assert_allclose(art.later.get_xdata(), [10.0, 10.0])
    n_lines = len(ax.lines)
    art.update(0.1, 2.0, -3.0)
    assert len(ax.lines) == n_lines
    np.testing.assert_allclose(art.later.get_ydata(), [np.sin(-0.1), np.cos(-0.1)])
    np.testing.assert_allclose(art.later_line.get_xdata(), [-1.0, -1.0])
    with pytest.raises(ValueError, match="positions"):
        draw_pair_waves(ax, [1.0], 0.3, 0.0, 1.0)
    with pytest.raises(ValueError, match="omega"):
        art.update(np.inf, 0.0, 1.0)
    with pytest.raises(TypeError, match="k"):
        art.update(0.1, 0.0, True)


def test_signed_matrix_ticks_are_whole_rows_and_columns() -> None:
    fig, ax = new_figure()
    draw_signed_matrix(ax, shift_matrix(5, 16))
    fig.canvas.draw()
    for ticks in (ax.get_xticks(), ax.get_yticks()):
        shown = [t for t in ticks if -0.5 <= t <= 15.5]
        assert shown and all(float(t).is_integer() for t in shown), ticks


@pytest.mark.parametrize("angle", np.linspace(0.0, 2 * np.pi, 13))
def test_unit_circle_labels_do_not_cover_their_points(angle: float) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from posenc_lib.plots import draw_unit_circle

    fig, ax = new_figure(figsize=(4, 4))
    FigureCanvasAgg(fig)
    start = np.array([np.sin(angle), np.cos(angle)])
    end = np.array([np.sin(angle + 2.0), np.cos(angle + 2.0)])
    art = draw_unit_circle(ax, start, end, point_label="$p(t)$", rotated_label="$M_k p(t)$")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for label, marker in zip(art.labels, (art.point, art.rotated), strict=True):
        box = label.get_window_extent(renderer)
        centre = ax.transData.transform(marker.get_xydata()[0])
        radius = marker.get_markersize() / 72 * fig.dpi / 2  # points to pixels, half the size
        nearest_x = min(max(centre[0], box.x0), box.x1)
        nearest_y = min(max(centre[1], box.y0), box.y1)
        assert np.hypot(centre[0] - nearest_x, centre[1] - nearest_y) > radius, (angle, label)

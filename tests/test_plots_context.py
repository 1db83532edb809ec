"""Tests of the drawing functions of notebooks 05-08 (posenc_lib.plots curves, circles,
heatmaps and bits): each draws exactly the data it is given and rejects bad input with an error
that names the parameter."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from posenc_lib.plots import (
    draw_bias_matrix,
    draw_circle_points,
    draw_curves,
    draw_error_curves,
    draw_float32_bits,
    draw_reference_lines,
    draw_unseen_angles,
    draw_vectors_2d,
)


@pytest.fixture
def ax() -> Axes:
    return Figure().subplots()


def test_curves_draw_one_line_per_label_with_the_data(ax: Axes) -> None:
    x = np.arange(5.0)
    lines = draw_curves(ax, x, {"a": x**2, "_hidden": -x}, xlabel="x", ylabel="y")
    assert list(lines) == ["a", "_hidden"]
    np.testing.assert_array_equal(lines["a"].get_xdata(), x)
    np.testing.assert_array_equal(lines["a"].get_ydata(), x**2)
    assert lines["a"].get_linestyle() != lines["_hidden"].get_linestyle()
    assert ax.get_xlabel() == "x" and ax.get_ylabel() == "y"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a"]


def test_curves_on_log_axes(ax: Axes) -> None:
    draw_curves(ax, [1.0, 10.0], {"a": [1.0, 0.1]}, xscale="log", yscale="log", legend=False)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_legend() is None


def test_reference_lines_sit_where_asked(ax: Axes) -> None:
    lines = draw_reference_lines(ax, vertical={"L": 4096.0}, horizontal={"r = 1": 1.0, "": 0.0})
    assert lines["L"].get_xdata()[0] == 4096.0
    assert lines["r = 1"].get_ydata()[0] == 1.0
    assert sorted(t.get_text().strip() for t in ax.texts) == ["L", "r = 1"]


@settings(max_examples=30, deadline=None)
@given(st.floats(-5, 5), st.floats(-5, 5), st.floats(0, 6.3))
def test_vectors_keep_their_coordinates(x: float, y: float, angle: float) -> None:
    ax = Figure().subplots()
    c, s = np.cos(angle), np.sin(angle)
    turned = [c * x - s * y, s * x + c * y]
    lines = draw_vectors_2d(ax, {"v": [x, y], "R v": turned})
    np.testing.assert_allclose(lines["v"].get_xydata(), [[0.0, 0.0], [x, y]])
    np.testing.assert_allclose(lines["R v"].get_xydata()[1], turned)
    # a rotation keeps the length, so both tips fit in the same square view
    half = ax.get_xlim()[1]
    assert half >= np.hypot(x, y) - 1e-9 and ax.get_ylim() == (-half, half)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-20, 20), min_size=1, max_size=8))
def test_circle_points_lie_on_their_circles(angles: list[float]) -> None:
    ax = Figure().subplots()
    points = draw_circle_points(ax, {"a": angles, "b": angles})
    for k, name in enumerate(["a", "b"]):
        xy = points[name].get_xydata()
        np.testing.assert_allclose(np.hypot(xy[:, 0], xy[:, 1]), 1.0 - 0.2 * k)
        np.testing.assert_allclose(np.arctan2(xy[:, 1], xy[:, 0]),
                                   np.angle(np.exp(1j * np.array(angles))), atol=1e-9)


def test_circle_points_are_numbered(ax: Axes) -> None:
    draw_circle_points(ax, {"a": [0.0, 1.0, 2.0]})
    assert [t.get_text() for t in ax.texts] == ["0", "1", "2"]


def test_unseen_angles_image(ax: Axes) -> None:
    mask = np.zeros((4, 3), dtype=bool)
    mask[3, 2] = True
    image = draw_unseen_angles(ax, mask, [0, 10, 20, 30], trained_length=15)
    array = np.asarray(image.get_array())
    assert array.shape == (3, 4) and array[2, 3] == 1.0 and array.sum() == 1.0
    assert image.get_extent() == [0.0, 30.0, -0.5, 2.5]
    assert image.cmap(1.0)[:3] != image.cmap(0.0)[:3]
    assert any(line.get_xdata()[0] == 15 for line in ax.lines)


def test_bias_matrix_masks_minus_infinity_and_scales_to_the_finite_entries(ax: Axes) -> None:
    image = draw_bias_matrix(ax, [[0.0, -np.inf], [-0.5, 0.0]], colorbar=True)
    assert image.get_clim() == (-0.5, 0.0)
    assert np.asarray(image.get_array().mask).tolist() == [[False, True], [False, False]]
    assert image.cmap.get_bad()[:3] == pytest.approx((0xD9 / 255,) * 3)
    assert image.colorbar is not None
    assert draw_bias_matrix(ax, [[0.0]], vmin=-2.0, vmax=1.0).get_clim() == (-2.0, 1.0)


def test_error_curves_leave_gaps_on_log_log_axes(ax: Axes) -> None:
    lines = draw_error_curves(ax, [1, 10, 100], {"float16": [0.0, 1e-3, np.inf], "_x": [1, 1, 1]})
    np.testing.assert_array_equal(lines["float16"].get_ydata(), [np.nan, 1e-3, np.nan])
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["float16"]


def test_float32_bits_show_sign_exponent_and_fraction(ax: Axes) -> None:
    rows = draw_float32_bits(ax, [1.0, -2.0])
    assert np.asarray(rows.image.get_array()).shape == (2, 32, 4)
    # 1.0 = 0 01111111 000...; -2.0 = 1 10000000 000...
    assert "".join(t.get_text() for t in rows.digits[:9]) == "001111111"
    assert "".join(t.get_text() for t in rows.digits[32:41]) == "110000000"
    assert rows.digits[32].get_color() == "white" and rows.digits[0].get_color() == "black"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "-2"]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda ax: draw_curves("ax", [0], {"a": [0]}), TypeError, "ax"),
        (lambda ax: draw_curves(ax, [0, 1], {"a": [0]}), ValueError, "curves"),
        (lambda ax: draw_curves(ax, [0, 1], {}), TypeError, "curves"),
        (lambda ax: draw_curves(ax, [0, 1], [1, 2]), TypeError, "curves"),
        (lambda ax: draw_curves(ax, [0, 1], {"a": [0, 1]}, yscale="log"), ValueError, "curves"),
        (lambda ax: draw_curves(ax, [0, 1], {"a": [1, 1]}, xscale="log"), ValueError, "x"),
        (lambda ax: draw_curves(ax, [0, 1], {"a": [1, 1]}, xscale="cubic"), ValueError, "xscale"),
        (lambda ax: draw_curves(ax, [0, 1], {"a": [1, 1]}, legend=1), TypeError, "legend"),
        (lambda ax: draw_curves(ax, [0, np.nan], {"a": [1, 1]}), ValueError, "x"),
        (lambda ax: draw_reference_lines(ax), ValueError, "at least one"),
        (lambda ax: draw_reference_lines(ax, vertical={"L": "far"}), TypeError, "vertical"),
        (lambda ax: draw_reference_lines(ax, horizontal={"y": np.inf}), ValueError, "horizontal"),
        (lambda ax: draw_vectors_2d(ax, {"v": [1.0, 2.0, 3.0]}), ValueError, "vectors"),
        (lambda ax: draw_vectors_2d(ax, {}), TypeError, "vectors"),
        (lambda ax: draw_circle_points(ax, {str(k): [0.0] for k in range(5)}), ValueError,
         "angles"),
        (lambda ax: draw_circle_points(ax, {"a": [[0.0]]}), ValueError, "angles"),
        (lambda ax: draw_unseen_angles(ax, [[True], [False]], [0]), ValueError, "positions"),
        (lambda ax: draw_unseen_angles(ax, [[True], [False]], [1, 0]), ValueError, "positions"),
        (lambda ax: draw_unseen_angles(ax, [True, False], [0, 1]), ValueError, "unseen"),
        (lambda ax: draw_unseen_angles(ax, [[True]], [0], trained_length=0), ValueError,
         "trained_length"),
        (lambda ax: draw_bias_matrix(ax, [[np.nan]]), ValueError, "bias"),
        (lambda ax: draw_bias_matrix(ax, [[0.0]], vmin=1.0), ValueError, "vmin"),
        (lambda ax: draw_error_curves(ax, [0, 1], {"a": [1, 1]}), ValueError, "positions"),
        (lambda ax: draw_error_curves(ax, [1, 2], {"a": [1]}), ValueError, "errors"),
        (lambda ax: draw_error_curves(ax, [1, 2], {}), TypeError, "errors"),
        (lambda ax: draw_float32_bits(ax, [1.0], labels=["a", "b"]), ValueError, "labels"),
    ],
)
def test_bad_input_names_the_parameter(
    ax: Axes, call: Callable[[Axes], object], error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        call(ax)

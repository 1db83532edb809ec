"""Headless tests of the notebook-08 explorer: format, position and pair change it in place."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.precision import round_to_dtype, rounded_angles
from posenc_lib.widgets.precision import AngleErrorExplorer
from tests.explorer_checks import assert_changes_in_place, assert_each_rejected, assert_registered


@pytest.fixture
def explorer() -> AngleErrorExplorer:
    return AngleErrorExplorer()


def artists(explorer: AngleErrorExplorer) -> tuple[object, ...]:
    c = explorer.circle
    return (explorer.error_line, explorer.guide_line, explorer.marker, explorer.overflow_line,
            c.point, c.rotated, c.arc, *c.labels, explorer.error_title,
            explorer.circle_title)  # fmt: skip


def state(explorer: AngleErrorExplorer) -> tuple[object, ...]:
    return (
        tuple(np.nan_to_num(explorer.error_line.get_ydata(), nan=-1.0).tolist()),
        tuple(np.nan_to_num(explorer.marker.get_xydata(), nan=-1.0).ravel().tolist()),
        tuple(explorer.circle.rotated.get_xydata().ravel().tolist()),
        explorer.overflow_line.get_visible(),
        explorer.error_title.get_text(),
        explorer.circle_title.get_text(),
    )


def test_it_is_registered_and_renders(explorer: AngleErrorExplorer) -> None:
    assert_registered(AngleErrorExplorer)
    # float16 angle at m = 1857, pair 1 of d = 32: fl(fl(m) fl(theta)), theta = 10000^(-2/32)
    theta = 10000.0 ** (-2 / 32)
    rounded = float(np.float16(np.float16(1857.0) * np.float16(theta)))
    gap = abs(rounded - 1857.0 * theta)
    assert explorer.circle_title.get_text() == f"pos 1857: error {gap:.3g} rad"


@pytest.mark.parametrize(
    ("name", "value"), [("dtype_name", "bfloat16"), ("position", 40000.0), ("pair", 5)]
)
def test_each_control_changes_the_picture_in_place(
    explorer: AngleErrorExplorer, name: str, value: object
) -> None:
    assert_changes_in_place(explorer, name, value, artists, state)


def test_the_default_reproduces_the_float16_bug_report(explorer: AngleErrorExplorer) -> None:
    # gpt-neox issue 1003: position 1857, pair 1 of a 32-dim encoding: 1044.27 becomes 1045
    theta = float(inverse_frequencies(32)[1])
    assert rounded_angles([1857], [theta], "float16")[0, 0] == 1045.0
    gap = abs(1045.0 - 1857 * theta)
    assert explorer.circle_title.get_text() == f"pos 1857: error {gap:.3g} rad"
    rotated = explorer.circle.rotated.get_xydata()[0]
    np.testing.assert_allclose(rotated, [np.cos(1045.0), np.sin(1045.0)])


def test_the_curve_is_the_rounded_product_error(explorer: AngleErrorExplorer) -> None:
    explorer.controls["dtype_name"].value = "bfloat16"
    explorer.controls["pair"].value = 3
    omega = float(inverse_frequencies(32)[3])
    positions = explorer.positions
    pos_hat = round_to_dtype(positions, "bfloat16")
    expected = np.abs(round_to_dtype(pos_hat * round_to_dtype([omega], "bfloat16"), "bfloat16")
                      - positions * omega)  # fmt: skip
    got = np.asarray(explorer.error_line.get_ydata())
    shown = np.isfinite(got)
    np.testing.assert_allclose(got[shown], expected[shown], rtol=1e-12)
    assert np.all(expected[~shown] == 0)  # only exact results are left out of the log axis


def test_float16_overflow_leaves_a_gap_and_hides_the_rounded_point(
    explorer: AngleErrorExplorer,
) -> None:
    assert explorer.overflow_line.get_visible() and explorer.overflow_label.get_visible()
    # the dotted line is labelled with the value it marks
    assert explorer.overflow_label.get_text().split() == ["float16", "max", "65504"]
    assert explorer.overflow_line.get_xdata()[0] == float(np.finfo(np.float16).max)
    assert np.all(np.isnan(explorer.error_line.get_ydata()[explorer.positions > 65519]))
    explorer.controls["position"].value = 2.0**17
    assert not explorer.circle.rotated.get_visible()
    assert explorer.circle_title.get_text() == "pos 131072: inf in float16"
    explorer.controls["dtype_name"].value = "float32"
    assert explorer.circle.rotated.get_visible() and not explorer.overflow_line.get_visible()
    assert not explorer.overflow_label.get_visible()


def test_bad_initial_values_are_rejected() -> None:
    assert_each_rejected(
        AngleErrorExplorer, ValueError, dtype_name="float64", position=2**21, pair=16
    )

"""Headless tests of the notebook-06 explorer and of its helpers.

The helpers are checked against properties that follow from the formulas (PI never leaves the
trained arc before s(L - 1), dynamic NTK at length sL is NTK-aware with factor s, the YaRN
temperature is 0.1 ln s + 1, ...), not against values taken from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib.analysis import (
    DERIVED_METHODS,
    extension_positions,
    method_frequencies,
    method_rope_scaling,
    method_unseen_mask,
    step_angle,
)
from posenc_lib.scaling import SCALING_METHODS, rope_frequencies
from posenc_lib.widgets.scaling import ScalingExplorer
from tests.explorer_checks import assert_registered, changes_in_place


def trained(d: int, base: float) -> np.ndarray:
    return np.array([base ** (-2 * i / d) for i in range(d // 2)])


@pytest.fixture
def explorer() -> ScalingExplorer:
    return ScalingExplorer(n_columns=60)


def artists(explorer: ScalingExplorer) -> tuple[object, ...]:
    return (explorer.ratio_line, explorer.unseen_image, explorer.trained_line, explorer.title)


def test_it_is_registered_and_renders(explorer: ScalingExplorer) -> None:
    assert_registered(ScalingExplorer)
    # YaRN's attention factor 0.1 ln s + 1 at s = 8, and its last pair interpolated by 1/s
    assert explorer.title.get_text().endswith(f"attention factor {0.1 * math.log(8.0) + 1:.3f}")
    assert explorer.ratio_line.get_ydata()[-1] == pytest.approx(1 / 8)
    assert set(explorer.controls) == {"method", "factor", "base"}
    assert list(explorer.controls["method"].options) == list(DERIVED_METHODS)


@pytest.mark.parametrize(
    ("name", "value", "changes"),
    [
        ("method", "default", ("ratio", "image")),
        ("method", "ntk", ("ratio", "image")),
        ("factor", 2.0, ("ratio", "line")),
        ("base", 1e6, ("ratio",)),
    ],
)
def test_each_control_changes_the_artists_in_place(
    explorer: ScalingExplorer, name: str, value: object, changes: tuple[str, ...]
) -> None:
    ratio = np.array(explorer.ratio_line.get_ydata(), copy=True)
    image = np.array(explorer.unseen_image.get_array(), copy=True)
    line = np.array(explorer.trained_line.get_xdata(), dtype=float, copy=True)
    title = explorer.title.get_text()
    with changes_in_place(explorer, artists, "images"):
        explorer.controls[name].value = value
    assert ("ratio" in changes) == (not np.allclose(explorer.ratio_line.get_ydata(), ratio))
    if "image" in changes:
        assert not np.array_equal(explorer.unseen_image.get_array(), image)
    if "line" in changes:
        assert not np.allclose(np.asarray(explorer.trained_line.get_xdata(), float), line)
    assert explorer.title.get_text() != title


def test_the_artists_show_the_chosen_method(explorer: ScalingExplorer) -> None:
    explorer.controls["method"].value = "linear"
    explorer.controls["factor"].value = 4.0
    np.testing.assert_allclose(explorer.ratio_line.get_ydata(), 0.25)
    np.testing.assert_allclose(explorer.trained_line.get_xdata(), [0.25, 0.25])
    # PI with s = 4: nothing unseen except possibly the very last sampled positions
    image = np.asarray(explorer.unseen_image.get_array())
    assert image.shape == (64, 60)
    assert not image[:, :-1].any()
    explorer.controls["method"].value = "default"
    image = np.asarray(explorer.unseen_image.get_array())
    pos = extension_positions(4096, 4.0, explorer.n_columns)
    assert image[:, pos < 4096].sum() == 0
    assert image[:, pos > 5000].any()
    assert "attention factor 1.000" in explorer.title.get_text()


def test_yarn_title_gives_the_temperature(explorer: ScalingExplorer) -> None:
    explorer.controls["factor"].value = 16.0
    assert f"attention factor {0.1 * math.log(16) + 1:.3f}" in explorer.title.get_text()


def test_positions_cover_the_target_length(explorer: ScalingExplorer) -> None:
    pos = extension_positions(4096, 8.0, explorer.n_columns)
    assert pos.shape == (60,) and pos[0] == 0 and pos[-1] < 8 * 4096
    assert np.all(np.diff(pos) > 0)


def test_explorer_samples_the_notebook_grid() -> None:
    """The default explorer's mask is notebook 06's: YaRN at s = 8 on 512 positions up to sL."""
    explorer = ScalingExplorer()
    assert explorer.n_columns == 512
    grid = extension_positions(4096, 8.0, 512)
    assert grid[-1] == 8 * 4096 - 1  # the last position is on the grid
    expected = method_unseen_mask("yarn", grid, 128, 10000.0, 8.0, 4096)
    np.testing.assert_array_equal(explorer.unseen_image.get_array(), expected.T)


# --------------------------------------------------------------------------- helpers


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1e-4, 50.0), min_size=1, max_size=8), st.integers(0, 10_000))
def test_step_angle_is_the_angle_between_neighbouring_codes(theta: list[float], m: int) -> None:
    # independent: the two unit vectors of positions m and m + 1, and the angle between them
    here = np.stack([np.cos(m * np.array(theta)), np.sin(m * np.array(theta))])
    there = np.stack([np.cos((m + 1) * np.array(theta)), np.sin((m + 1) * np.array(theta))])
    cross = here[0] * there[1] - here[1] * there[0]
    between = np.abs(np.arctan2(cross, np.sum(here * there, axis=0)))
    np.testing.assert_allclose(step_angle(theta), between, atol=1e-7)


def test_step_angle_keeps_resolution_only_where_a_method_keeps_the_pair() -> None:
    theta = trained(128, 1e4)
    pi, _ = method_frequencies("linear", 128, 1e4, 8.0, 4096)
    yarn, _ = method_frequencies("yarn", 128, 1e4, 8.0, 4096)
    fast = 4096 * theta / (2 * np.pi) >= 32
    np.testing.assert_allclose(step_angle(pi)[fast] / step_angle(theta)[fast], 1 / 8)
    np.testing.assert_allclose(step_angle(yarn)[fast] / step_angle(theta)[fast], 1.0)
    assert step_angle([2 * np.pi - 0.5])[0] == pytest.approx(0.5)  # wraps: at most pi


# --------------------------------------------------------------------------- helpers


@pytest.mark.parametrize("method", DERIVED_METHODS)
def test_every_method_config_is_accepted(method: str) -> None:
    config = method_rope_scaling(method, 4.0, 2048)
    inv_freq, attention = rope_frequencies(64, 10000.0, config, seq_len=4 * 2048)
    assert inv_freq.shape == (32,) and np.all(inv_freq > 0) and attention >= 1.0
    assert (config is None) == (method == "default")


@settings(max_examples=40, deadline=None)
@given(st.floats(1.0, 32.0), st.sampled_from([16, 64, 128]), st.floats(100.0, 1e6))
def test_method_ratios_follow_the_formulas(s: float, d: int, base: float) -> None:
    length = 4096
    theta = trained(d, base)
    linear, _ = method_frequencies("linear", d, base, s, length)
    np.testing.assert_allclose(linear / theta, 1 / s, rtol=1e-12)
    ntk, _ = method_frequencies("ntk", d, base, s, length)
    # the slowest pair is divided by exactly s, the fastest is untouched
    assert ntk[0] == pytest.approx(theta[0]) and ntk[-1] == pytest.approx(theta[-1] / s)
    dynamic, _ = method_frequencies("dynamic", d, base, s, length, seq_len=round(s * length))
    np.testing.assert_allclose(dynamic, method_frequencies("ntk", d, base,
                                                           round(s * length) / length, length)[0])
    _, attention = method_frequencies("yarn", d, base, s, length)
    assert attention == pytest.approx(0.1 * math.log(s) + 1)


def test_dynamic_changes_nothing_for_short_inputs() -> None:
    inv_freq, _ = method_frequencies("dynamic", 64, 1e4, 8.0, 4096, seq_len=4096)
    np.testing.assert_allclose(inv_freq, trained(64, 1e4))


def test_longrope_is_refused_with_where_real_factors_are() -> None:
    # LongRoPE's factors are searched per model, not derived from s and L
    assert "longrope" not in DERIVED_METHODS and set(DERIVED_METHODS) < set(SCALING_METHODS)
    with pytest.raises(ValueError, match="searched per model.*phi-3.5-mini"):
        method_rope_scaling("longrope", 2.0, 4096)
    with pytest.raises(ValueError, match="longrope"):
        ScalingExplorer(method="longrope")


def test_unseen_mask_of_the_trained_frequencies() -> None:
    d, base, length = 16, 100.0, 64
    theta = trained(d, base)
    positions = np.arange(4 * length)
    mask = method_unseen_mask("default", positions, d, base, 4.0, length)
    assert mask.shape == (4 * length, d // 2)
    assert not mask[:length].any()  # every trained position is seen, by definition
    # a pair that covered a full turn in training is never unseen
    full = (length - 1) * theta >= 2 * np.pi
    assert not mask[:, full].any()
    # a pair that did not is unseen right after its largest trained angle
    slowest = d // 2 - 1
    assert mask[length, slowest] and not full[slowest]


@settings(max_examples=30, deadline=None)
@given(st.floats(1.0, 16.0), st.sampled_from(["linear", "yarn", "llama3"]))
def test_interpolating_methods_stay_in_range_up_to_s_times_l_minus_1(s: float, method: str) -> None:
    d, base, length = 32, 10000.0, 256
    stop = math.floor(s * (length - 1)) - 1  # one step of margin against rounding
    positions = np.arange(0, stop + 1)
    mask = method_unseen_mask(method, positions, d, base, s, length)
    assert not mask.any()


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: method_rope_scaling("rope", 2.0, 4096), ValueError, "method"),
        (lambda: method_rope_scaling("linear", 0.5, 4096), ValueError, "factor"),
        (lambda: method_rope_scaling("linear", 2.0, 0), ValueError, "original_max"),
        (lambda: method_frequencies("yarn", 7, 1e4, 2.0, 4096), ValueError, "head_dim"),
        (lambda: method_frequencies("ntk", 128, 1.0, 2.0, 4096), ValueError, "base"),
        (lambda: method_frequencies("ntk", 128, 1e4, 2.0, -1), ValueError, "trained_length"),
        (lambda: method_unseen_mask("default", [0.5, 1.0], 8, 1e4, 2.0, 16), ValueError,
         "positions"),
        (lambda: method_unseen_mask("default", [3, 1], 8, 1e4, 2.0, 16), ValueError, "positions"),
        (lambda: method_unseen_mask("default", [-1, 1], 8, 1e4, 2.0, 16), ValueError,
         "positions"),
        (lambda: method_unseen_mask("nope", [0, 1], 8, 1e4, 2.0, 16), ValueError, "method"),
        (lambda: step_angle([1.0, 0.0]), ValueError, "inv_freq"),
        (lambda: step_angle([[1.0]]), ValueError, "inv_freq"),
        (lambda: ScalingExplorer(method="nope"), ValueError, "method"),
        (lambda: ScalingExplorer(factor=64.0), ValueError, "factor"),
        (lambda: ScalingExplorer(base=10.0), ValueError, "base"),
        (lambda: ScalingExplorer(head_dim=2), ValueError, "head_dim"),
        (lambda: ScalingExplorer(n_columns=1), ValueError, "n_columns"),
    ],
)
def test_bad_input(call: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()  # type: ignore[operator]

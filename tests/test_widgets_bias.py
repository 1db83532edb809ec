"""Headless tests of the notebook-07 explorer: ALiBi heads and T5 buckets change in place."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc_lib.bias import alibi_weights_by_distance
from posenc_lib.widgets.bias import MAX_HEADS, RelativeBiasExplorer
from tests.explorer_checks import assert_changes_in_place, assert_each_rejected, assert_registered


@pytest.fixture
def explorer() -> RelativeBiasExplorer:
    return RelativeBiasExplorer()


def artists(explorer: RelativeBiasExplorer) -> tuple[object, ...]:
    return (*explorer.head_lines, explorer.bucket_line, *explorer.distance_lines,
            explorer.alibi_title, explorer.t5_title)  # fmt: skip


def state(explorer: RelativeBiasExplorer) -> tuple[object, ...]:
    heads = tuple(
        (line.get_visible(), tuple(np.asarray(line.get_ydata()).round(12)))
        for line in explorer.head_lines
    )
    return (
        heads,
        tuple(np.asarray(explorer.bucket_line.get_ydata()).tolist()),
        tuple(line.get_xdata()[0] for line in explorer.distance_lines),
        explorer.t5_axes.get_ylim(),
        explorer.alibi_title.get_text(),
        explorer.t5_title.get_text(),
    )


def test_it_is_registered_and_renders(explorer: RelativeBiasExplorer) -> None:
    assert_registered(RelativeBiasExplorer)
    assert len(explorer.head_lines) == MAX_HEADS
    # 8 heads: slopes 2^(-8h/8) = 1/2 ... 1/256; T5 encoder: (32 / 2) / 2 = 8 exact buckets
    assert explorer.alibi_title.get_text() == f"ALiBi, 8 heads: slopes 1/{2:.3g} ... 1/{256:.3g}"
    assert explorer.t5_title.get_text() == "T5 encoder: 32 buckets (8 exact), max 128"


@pytest.mark.parametrize(
    ("name", "value"),
    [("n_heads", 12), ("num_buckets", 16), ("max_distance", 64), ("bidirectional", False)],
)
def test_each_control_changes_the_picture_in_place(
    explorer: RelativeBiasExplorer, name: str, value: object
) -> None:
    assert_changes_in_place(explorer, name, value, artists, state)


def test_the_head_curves_are_softmax_of_minus_slope_times_distance(
    explorer: RelativeBiasExplorer,
) -> None:
    explorer.controls["n_heads"].value = 4
    visible = [line for line in explorer.head_lines if line.get_visible()]
    assert len(visible) == 4
    d = np.arange(64)
    for h, line in enumerate(visible, start=1):
        m = 2.0 ** (-8 * h / 4)
        expected = np.exp(-m * d) / np.exp(-m * d).sum()
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-12)
    # each curve is a straight line of slope -m on a log axis
    assert explorer.alibi_title.get_text() == "ALiBi, 4 heads: slopes 1/4 ... 1/256"


def test_the_bucket_steps_follow_the_controls(explorer: RelativeBiasExplorer) -> None:
    explorer.controls["bidirectional"].value = False
    buckets = np.asarray(explorer.bucket_line.get_ydata())
    offsets = explorer.offsets
    assert np.all(buckets[offsets >= 0] == 0)  # a decoder puts every future key in bucket 0
    assert buckets[offsets == -15][0] == 15 and buckets[offsets == -300][0] == 31
    explorer.controls["num_buckets"].value = 8
    explorer.controls["max_distance"].value = 100
    buckets = np.asarray(explorer.bucket_line.get_ydata())
    assert buckets.max() == 7 and explorer.t5_axes.get_ylim() == (-0.5, 7.5)
    assert [line.get_xdata()[0] for line in explorer.distance_lines] == [-100, 100]
    # causal, 8 buckets: 4 exact, then 4 + floor(4 ln(n/4) / ln 25)
    n = 20
    expected = 4 + math.floor(4 * math.log(n / 4) / math.log(100 / 4))
    assert buckets[offsets == -n][0] == expected


def test_weights_by_distance_rows_sum_to_one_and_decay() -> None:
    weights = alibi_weights_by_distance(12, 50)
    assert weights.shape == (12, 50)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0)
    assert np.all(np.diff(weights, axis=1) < 0)


def test_bad_initial_values_are_rejected() -> None:
    assert_each_rejected(
        RelativeBiasExplorer, ValueError, n_heads=17, num_buckets=66, max_distance=20
    )
    assert_each_rejected(RelativeBiasExplorer, TypeError, bidirectional=1)


def test_the_head_key_names_the_colours_of_the_steepest_and_gentlest_heads() -> None:
    from matplotlib.colors import to_rgba

    from posenc_lib.bias import alibi_slopes
    from posenc_lib.widgets import RelativeBiasExplorer

    explorer = RelativeBiasExplorer(n_heads=8)
    slopes = alibi_slopes(8)
    labels = [t.get_text() for t in explorer.head_key.ax.get_yticklabels()]
    assert labels == ["steepest\nhead", "gentlest\nhead"]
    key = explorer.head_key.cmap
    steepest = explorer.head_lines[int(slopes.argmax())].get_color()
    gentlest = explorer.head_lines[int(slopes.argmin())].get_color()
    assert to_rgba(steepest) == key(0.0) and to_rgba(gentlest) == key(1.0)

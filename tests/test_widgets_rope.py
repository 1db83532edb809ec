"""Headless tests of the notebook-05 explorer: base and d change the score curves in place.

The expected curves are written straight from the formulas (a loop over the pairs), sharing no
code with posenc_lib.rope.
"""

from __future__ import annotations

import cmath
import io
import math

import numpy as np
import pytest
from PIL import Image

from posenc_lib.rope import normalised_score_curves
from posenc_lib.widgets.rope import RopeScoreExplorer
from tests.explorer_checks import assert_registered, changes_in_place


def reference_curves(distances: np.ndarray, d: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    """Score of q = k = 1 over d, and RoFormer's bound on that score over the same d.

    With h_i = 2 for every pair and h_(d/2) = 0, the bound is 2 sum_j |S_j|; over d it is
    (1/(d/2)) sum_j |S_j|.
    """
    thetas = [base ** (-2 * i / d) for i in range(d // 2)]
    score, bound = [], []
    for r in distances:
        score.append(sum(2 * math.cos(r * t) for t in thetas) / d)
        partial, total = 0j, 0.0
        for t in thetas:
            partial += cmath.exp(1j * r * t)
            total += abs(partial)
        bound.append(2 * total / d)
    return np.array(score), np.array(bound)


@pytest.fixture
def explorer() -> RopeScoreExplorer:
    return RopeScoreExplorer(max_distance=200)


def artists(explorer: RopeScoreExplorer) -> tuple[object, ...]:
    return (explorer.score_line, explorer.bound_line, explorer.title)


def decoded(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def test_it_is_registered_and_renders(explorer: RopeScoreExplorer) -> None:
    assert_registered(RopeScoreExplorer)
    _, bound = reference_curves(explorer.distances, 128, 10000.0)
    rises = sum(b > a for a, b in zip(bound[:-1], bound[1:], strict=True))
    assert explorer.title.get_text() == (
        f"d = 128, base = 1e+04: the bound rises on {rises} of {len(bound) - 1} steps"
    )
    assert set(explorer.controls) == {"base", "head_dim"}


def test_the_curves_are_the_formulas(explorer: RopeScoreExplorer) -> None:
    score, bound = reference_curves(explorer.distances, 128, 10000.0)
    np.testing.assert_allclose(explorer.score_line.get_ydata(), np.abs(score), atol=1e-10)
    np.testing.assert_allclose(explorer.bound_line.get_ydata(), bound, atol=1e-10)
    assert explorer.score_line.get_ydata()[0] == pytest.approx(1.0)
    assert explorer.bound_line.get_ydata()[0] == pytest.approx((128 / 2 + 1) / 2)


@pytest.mark.parametrize(("d", "base"), [(128, 10000.0), (16, 300.0), (64, 1e6), (8, 100.0)])
def test_one_scale_keeps_the_score_under_its_bound(d: int, base: float) -> None:
    explorer = RopeScoreExplorer(head_dim=d, base=base, max_distance=300)
    score, bound = reference_curves(explorer.distances, d, base)
    assert np.all(np.abs(score) <= bound + 1e-12)
    shown_score, shown_bound = explorer.score_line.get_ydata(), explorer.bound_line.get_ydata()
    assert np.all(shown_score <= shown_bound)
    assert explorer.axes.get_yscale() == "log"


def test_the_legend_reads_q_equals_k() -> None:
    explorer = RopeScoreExplorer(max_distance=50)
    labels = [t.get_text() for t in explorer.axes.get_legend().get_texts()]
    assert labels[0] == r"$|$score$|$ for $q = k = (1, \ldots, 1)$"  # mathtext: '=' as '='
    assert "bound" in labels[1]


@pytest.mark.parametrize(("name", "value"), [("base", 500.0), ("head_dim", 64)])
def test_each_slider_changes_the_artists_in_place(
    explorer: RopeScoreExplorer, name: str, value: float
) -> None:
    old_score = np.array(explorer.score_line.get_ydata(), copy=True)
    old_bound = np.array(explorer.bound_line.get_ydata(), copy=True)
    old_title = explorer.title.get_text()
    with changes_in_place(explorer, artists, "texts"):
        explorer.controls[name].value = value
    assert not np.allclose(explorer.score_line.get_ydata(), old_score)
    assert not np.allclose(explorer.bound_line.get_ydata(), old_bound)
    assert explorer.title.get_text() != old_title
    values = explorer.values()
    score, bound = reference_curves(explorer.distances, values["head_dim"], values["base"])
    np.testing.assert_allclose(explorer.score_line.get_ydata(), np.abs(score), atol=1e-10)
    np.testing.assert_allclose(explorer.bound_line.get_ydata(), bound, atol=1e-10)


def test_the_title_counts_the_rises_of_the_bound(explorer: RopeScoreExplorer) -> None:
    _, bound = reference_curves(explorer.distances, 128, 10000.0)
    rises = int(np.sum(np.diff(bound) > 0))
    assert f"rises on {rises} of {len(bound) - 1} steps" in explorer.title.get_text()
    assert 0 < rises < len(bound) - 1  # not monotonic, not increasing


def test_the_blitted_picture_matches_a_full_draw(explorer: RopeScoreExplorer) -> None:
    explorer.controls["base"].value = 2000.0
    blitted = decoded(explorer.image.value)
    explorer.canvas.draw()
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(explorer.canvas.buffer_rgba())).save(buffer, format="png")
    full = decoded(buffer.getvalue())
    assert blitted.shape == full.shape
    # only the draw order differs (the moving lines are drawn last, over the legend box)
    differs = np.any(np.abs(blitted - full) > 8, axis=-1)
    assert differs.mean() < 0.01


def test_normalised_curves_match_the_formulas() -> None:
    distances = np.arange(0, 40)
    score, bound = normalised_score_curves(distances, 16, 300.0)
    ref_score, ref_bound = reference_curves(distances, 16, 300.0)
    np.testing.assert_allclose(score, ref_score, atol=1e-12)
    np.testing.assert_allclose(bound, ref_bound, atol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"head_dim": 7}, ValueError, "head_dim"),
        ({"head_dim": 512}, ValueError, "head_dim"),
        ({"head_dim": 4}, ValueError, "head_dim"),
        ({"head_dim": 64.0}, TypeError, "head_dim"),
        ({"base": 1.0}, ValueError, "base"),
        ({"base": 50.0}, ValueError, "base"),
        ({"base": float("nan")}, ValueError, "base"),
        ({"base": True}, TypeError, "base"),
        ({"max_distance": 3}, ValueError, "max_distance"),
    ],
)
def test_bad_constructor_arguments(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        RopeScoreExplorer(**kwargs)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((np.arange(3), 5, 1e4), ValueError, "head_dim"),
        ((np.arange(3), 8, 1.0), ValueError, "base"),
        ((np.array([0.0, np.inf]), 8, 1e4), ValueError, "distances"),
    ],
)
def test_bad_curve_arguments(args: tuple, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        normalised_score_curves(*args)

"""FIRE, KERPLE, xPos, CoPE and the score_mod emulation against independent computations.

Each reference is written another way: explicit loops over (i, j) with ``math``, the xPos
scaling as torchscale applies it (query and key scaled separately, then the product), CoPE's
interpolation done on the embeddings before the dot product, and materialised biases for
``flex_scores``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc_lib.bias import alibi_bias, alibi_slopes, t5_bias, t5_relative_position_bucket
from posenc_lib.bias_variants import (
    _causal_distance,
    cope_bias,
    cope_positions,
    fire_bias,
    flex_scores,
    kerple_bias,
    xpos_decay,
)


@pytest.mark.parametrize("kind,r1,r2", [("log", 1.5, 0.5), ("log", 0.2, 3.0), ("power", 0.7, 1.3)])
def test_kerple_matches_loops(kind: str, r1: float, r2: float) -> None:
    n = 9
    got = kerple_bias(n, r1, r2, kind=kind)
    for i in range(n):
        for j in range(n):
            if j > i:
                assert got[i, j] == -math.inf
            elif kind == "log":
                assert got[i, j] == pytest.approx(-r1 * math.log(1 + r2 * (i - j)), abs=1e-12)
            else:
                assert got[i, j] == pytest.approx(-r1 * (i - j) ** r2, abs=1e-12)


def test_kerple_power_with_exponent_one_is_alibi() -> None:
    slope = 0.125
    assert np.array_equal(kerple_bias(12, slope, 1.0, kind="power"), alibi_bias([slope], 12)[0])


@pytest.mark.parametrize("bad", [{"r1": 0.0, "r2": 1.0}, {"r1": 1.0, "r2": -1.0},
                                 {"r1": 1.0, "r2": 2.5, "kind": "power"},
                                 {"r1": 1.0, "r2": 1.0, "kind": "cubic"}])
def test_kerple_refuses_bad_parameters(bad: dict) -> None:
    with pytest.raises(ValueError, match=r"r1|r2|kind"):
        kerple_bias(5, **bad)


@pytest.mark.parametrize("c", [1.0, 0.5])
def test_fire_matches_loops(c: float) -> None:
    n, f = 10, (lambda x: np.sin(3 * x) - x)
    got = fire_bias(n, f, c=c)
    for i in range(n):
        for j in range(n):
            if j > i:
                assert got[i, j] == -math.inf
                continue
            denominator = math.log(c * i + 1)
            x = math.log(c * (i - j) + 1) / denominator if denominator > 0 else 0.0
            assert got[i, j] == pytest.approx(math.sin(3 * x) - x, abs=1e-12)


def test_fire_inputs_stay_in_unit_interval_at_any_length() -> None:
    for n in (16, 64, 1000):
        x = fire_bias(n, lambda v: v)
        finite = x[np.isfinite(x)]
        assert finite.min() == 0.0 and finite.max() == pytest.approx(1.0, abs=1e-15)


def test_xpos_is_torchscale_query_scaling_times_key_scaling() -> None:
    d, base_len = 64, 512
    # torchscale: scale = (arange(0, d, 2) + 0.4 d) / (1.4 d); q * scale^(n/512), k * scale^(-m/512)
    scale = (np.arange(0, d, 2) + 0.4 * d) / (1.4 * d)
    for n, m in [(700, 100), (40, 40), (3000, 0)]:
        product = scale ** (n / base_len) * scale ** (-m / base_len)
        assert np.allclose(xpos_decay(d, [n - m])[0], product, rtol=1e-12)
    assert xpos_decay(4, [512])[0, 0] == pytest.approx(0.4 / 1.4)


def test_cope_positions_are_sums_of_sigmoid_gates() -> None:
    rng = np.random.default_rng(3)
    s = rng.normal(size=(7, 7))
    got = cope_positions(s)
    for i in range(7):
        for j in range(7):
            want = sum(1 / (1 + math.exp(-s[i, t])) for t in range(j, i + 1)) if j <= i else 0.0
            assert got[i, j] == pytest.approx(want, abs=1e-12)


def test_cope_bias_interpolates_the_embedding_before_the_dot_product() -> None:
    rng = np.random.default_rng(4)
    q, e = rng.normal(size=(6, 5)), rng.normal(size=(9, 5))
    p = cope_positions(rng.normal(size=(6, 6)))
    got = cope_bias(q, p, e)
    for i in range(6):
        for j in range(6):
            lo, frac = math.floor(p[i, j]), p[i, j] - math.floor(p[i, j])
            vector = (1 - frac) * e[lo] + frac * e[min(lo + 1, 8)]   # e interpolated, then q . e
            assert got[i, j] == pytest.approx(float(q[i] @ vector), abs=1e-12)


def test_cope_refuses_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match="share n and d"):
        cope_bias(np.ones((3, 4)), np.ones((3, 3)), np.ones((5, 2)))
    with pytest.raises(ValueError, match="square"):
        cope_positions(np.ones((3, 4)))


@pytest.mark.parametrize("block", [1, 7, 16, 64])
def test_flex_scores_equal_materialised_alibi_and_t5(block: int) -> None:
    rng = np.random.default_rng(5)
    q, k = rng.normal(size=(2, 2, 4, 23, 8))
    slopes, table = alibi_slopes(4), rng.normal(size=(32, 4))
    raw = np.einsum("bhid,bhjd->bhij", q, k) / math.sqrt(8)

    def alibi_mod(score, b, h, qi, ki):
        return np.where(ki <= qi, score - slopes[h] * (qi - ki), -np.inf)

    def t5_mod(score, b, h, qi, ki):
        return score + table[t5_relative_position_bucket(ki - qi), h]

    assert np.allclose(flex_scores(q, k, alibi_mod, block=block), raw + alibi_bias(slopes, 23),
                       rtol=0, atol=1e-12)
    assert np.allclose(flex_scores(q, k, t5_mod, block=block), raw + t5_bias(table, 23),
                       rtol=0, atol=1e-12)


def test_flex_scores_calls_score_mod_one_tile_at_a_time() -> None:
    shapes = []

    def spy(score, b, h, qi, ki):
        shapes.append(np.broadcast_shapes(score.shape, qi.shape, ki.shape))
        return score

    flex_scores(np.ones((1, 2, 40, 4)), np.ones((1, 2, 40, 4)), spy, block=16)
    assert len(shapes) == 9 and max(s[2] * s[3] for s in shapes) == 16 * 16


def test_causal_distance() -> None:
    assert np.array_equal(_causal_distance(4), np.maximum(np.subtract.outer(range(4), range(4)), 0))

"""ALiBi slopes and biases, T5 buckets and biases, Shaw's relative embeddings, parameter counts.

Every expected value is computed another way than the code under test: the ALiBi paper's
numbers and its rule written as a closed form, T5's bucket boundaries derived by hand and with
exact integer arithmetic, Shaw's equations as explicit loops.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib.analysis import offset_similarity
from posenc_lib.attention import causal_mask, scaled_dot_product_attention
from posenc_lib.bias import (
    alibi_bias,
    alibi_slopes,
    relative_position_matrix,
    shaw_attention,
    shaw_relative_embeddings,
    shaw_relative_index,
    t5_bias,
    t5_exact_buckets,
    t5_relative_position_bucket,
)
from posenc_lib.scorecard import COST_SCHEMES, parameter_count

# ----------------------------------------------------------------------------------- ALiBi


def test_alibi_slopes_for_8_heads_are_the_papers_half_to_1_over_256() -> None:
    published = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]
    assert alibi_slopes(8).tolist() == published


def test_alibi_slopes_for_16_heads_start_at_one_over_sqrt_2() -> None:
    # the paper: for 16 heads the sequence is 1/sqrt(2), 1/2, ..., 1/256
    expected = [2.0 ** (-k / 2) for k in range(1, 17)]
    np.testing.assert_allclose(alibi_slopes(16), expected, rtol=1e-15)
    assert alibi_slopes(16)[-1] == 1 / 256


@pytest.mark.parametrize("n_heads", [1, 2, 4, 8, 16, 32, 64])
def test_power_of_two_heads_form_a_geometric_sequence_starting_at_its_ratio(n_heads: int) -> None:
    slopes = alibi_slopes(n_heads)
    start = 2.0 ** (-8.0 / n_heads)
    np.testing.assert_allclose(slopes, start ** np.arange(1, n_heads + 1), rtol=1e-12)
    assert slopes[-1] == 2.0**-8


def test_alibi_slopes_for_12_heads_follow_the_non_power_of_two_rule() -> None:
    # 8 slopes for 8 heads, then the 1st, 3rd, 5th, 7th slopes for 16 heads
    expected = [2.0**-k for k in range(1, 9)] + [2.0**-0.5, 2.0**-1.5, 2.0**-2.5, 2.0**-3.5]
    np.testing.assert_allclose(alibi_slopes(12), expected, rtol=1e-15)


def _paper_rule(n_heads: int) -> list[float]:
    """The rule as a closed form: c = 2**floor(log2 H) heads at 2^(-8h/c), then odd ones of 2c."""
    c = 2 ** math.floor(math.log2(n_heads))
    first = [2.0 ** (-8.0 * h / c) for h in range(1, c + 1)]
    extra = [2.0 ** (-8.0 * (2 * j + 1) / (2 * c)) for j in range(n_heads - c)]
    return first + extra


@pytest.mark.parametrize("n_heads", range(1, 97))
def test_alibi_slopes_match_the_closed_form_rule_for_every_head_count(n_heads: int) -> None:
    slopes = alibi_slopes(n_heads)
    np.testing.assert_allclose(slopes, _paper_rule(n_heads), rtol=1e-12)
    assert len(set(slopes.tolist())) == n_heads, "every head gets its own slope"
    assert np.all((slopes > 0) & (slopes < 1))


@pytest.mark.parametrize("bad", [0, -3])
def test_alibi_slopes_reject_non_positive_heads(bad: int) -> None:
    with pytest.raises(ValueError, match="n_heads"):
        alibi_slopes(bad)


@pytest.mark.parametrize("bad", [True, 8.0, "8", None])
def test_alibi_slopes_reject_non_integers(bad: object) -> None:
    with pytest.raises(TypeError, match="n_heads"):
        alibi_slopes(bad)  # type: ignore[arg-type]


def test_causal_alibi_bias_is_minus_slope_times_distance_below_the_diagonal() -> None:
    slopes = alibi_slopes(4)
    bias = alibi_bias(slopes, 6)
    assert bias.shape == (4, 6, 6)
    for h in range(4):
        for i in range(6):
            for j in range(6):
                expected = -slopes[h] * (i - j) if j <= i else -np.inf
                assert bias[h, i, j] == expected


def test_symmetric_alibi_bias_is_minus_slope_times_absolute_distance() -> None:
    bias = alibi_bias([0.25, 1.0], 5, causal=False)
    i, j = np.indices((5, 5))
    np.testing.assert_array_equal(bias[0], -0.25 * np.abs(i - j))
    np.testing.assert_array_equal(bias[1], -1.0 * np.abs(i - j))
    np.testing.assert_array_equal(bias, np.swapaxes(bias, 1, 2))


def test_alibi_weights_equal_the_reference_codes_row_shifted_bias() -> None:
    # the reference code adds m * j to every row (and masks); softmax ignores row constants
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 7, 4))
    slopes = alibi_slopes(2)
    for h, m in enumerate(slopes):
        _, ours = scaled_dot_product_attention(q, k, v, bias=alibi_bias(slopes, 7)[h])
        shifted = m * np.arange(7.0)[None, :].repeat(7, axis=0)
        _, reference = scaled_dot_product_attention(q, k, v, bias=shifted, mask=causal_mask(7))
        np.testing.assert_allclose(ours, reference, atol=1e-12)


def test_alibi_bias_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="slopes"):
        alibi_bias([0.5, -0.25], 4)
    with pytest.raises(ValueError, match="slopes"):
        alibi_bias([], 4)
    with pytest.raises(ValueError, match="slopes"):
        alibi_bias([[0.5]], 4)
    with pytest.raises(ValueError, match="slopes"):
        alibi_bias([np.nan], 4)
    with pytest.raises(ValueError, match="length"):
        alibi_bias([0.5], 0)
    with pytest.raises(TypeError, match="causal"):
        alibi_bias([0.5], 3, causal="yes")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ relative


def test_relative_position_matrix_is_key_minus_query() -> None:
    rel = relative_position_matrix(3, 5, query_offset=2)
    for i in range(3):
        for j in range(5):
            assert rel[i, j] == j - (2 + i)


@given(n=st.integers(1, 30), t=st.integers(0, 29))
@settings(max_examples=50, deadline=None)
def test_a_decoding_step_sees_the_last_row_of_the_full_matrix(n: int, t: int) -> None:
    t = min(t, n - 1)
    full = relative_position_matrix(n)
    step = relative_position_matrix(1, t + 1, query_offset=t)
    np.testing.assert_array_equal(step, full[t : t + 1, : t + 1])


def test_relative_position_matrix_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="n_queries"):
        relative_position_matrix(0)
    with pytest.raises(ValueError, match="n_keys"):
        relative_position_matrix(2, 0)
    with pytest.raises(ValueError, match="query_offset"):
        relative_position_matrix(2, query_offset=-1)
    with pytest.raises(TypeError, match="n_queries"):
        relative_position_matrix(2.5)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------- T5 buckets

# The defaults, derived by hand: E = 8 exact buckets, then 8 + floor(2 log2(n / 8)), so a new
# bucket starts where n / 8 reaches a power of sqrt(2): 11.3, 16, 22.6, 32, 45.3, 64, 90.5.
BIDIRECTIONAL_RANGES = {
    8: (8, 11), 9: (12, 15), 10: (16, 22), 11: (23, 31),
    12: (32, 45), 13: (46, 63), 14: (64, 90), 15: (91, 10_000),
}  # fmt: skip


def test_t5_bidirectional_buckets_match_the_hand_derived_ranges() -> None:
    for n in range(8):
        assert t5_relative_position_bucket(np.array([-n]))[0] == n
        if n:
            assert t5_relative_position_bucket(np.array([n]))[0] == 16 + n
    for bucket, (low, high) in BIDIRECTIONAL_RANGES.items():
        past = t5_relative_position_bucket(-np.arange(low, high + 1))
        future = t5_relative_position_bucket(np.arange(low, high + 1))
        assert set(past.tolist()) == {bucket}, (bucket, low, high)
        assert set(future.tolist()) == {bucket + 16}


def _exact_bucket(n: int, num_buckets: int, max_distance: int) -> int:
    """floor((B-E) ln(n/E)/ln(D/E)) >= k  <=>  n^(B-E) E^k >= D^k E^(B-E), in exact integers."""
    exact = num_buckets // 2
    if n < exact:
        return n
    spread = num_buckets - exact
    k = 0
    while k < spread and n**spread * exact ** (k + 1) >= max_distance ** (k + 1) * exact**spread:
        k += 1
    return min(exact + k, num_buckets - 1)


def test_t5_default_buckets_match_exact_integer_arithmetic() -> None:
    distances = np.arange(0, 3000)
    bidirectional = t5_relative_position_bucket(-distances)
    causal = t5_relative_position_bucket(-distances, bidirectional=False)
    for n in distances.tolist():
        assert bidirectional[n] == _exact_bucket(n, 16, 128), n
        assert causal[n] == _exact_bucket(n, 32, 128), n


def test_t5_causal_buckets_send_every_future_key_to_bucket_0() -> None:
    buckets = t5_relative_position_bucket(np.arange(0, 500), bidirectional=False)
    assert not buckets.any()


def test_t5_bidirectional_halves_mirror_each_other() -> None:
    n = np.arange(1, 1000)
    np.testing.assert_array_equal(
        t5_relative_position_bucket(n), t5_relative_position_bucket(-n) + 16
    )


@given(
    num_buckets=st.integers(2, 32).map(lambda b: 2 * b),
    extra=st.integers(1, 900),
    bidirectional=st.booleans(),
)
@settings(max_examples=80, deadline=None)
def test_t5_buckets_match_a_float64_formula_away_from_exact_boundaries(
    num_buckets: int, extra: int, bidirectional: bool
) -> None:
    half = num_buckets // 2 if bidirectional else num_buckets
    exact = half // 2
    max_distance = exact + extra
    distances = np.arange(0, 3 * max_distance)
    got = t5_relative_position_bucket(
        -distances, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    for n in distances.tolist():
        if n < exact:
            assert got[n] == n
            continue
        spread = math.log(n / exact) / math.log(max_distance / exact) * (half - exact)
        if abs(spread - round(spread)) < 1e-4:
            continue  # float32 and float64 may land on either side of an exact boundary
        assert got[n] == min(exact + math.floor(spread), half - 1), n


def test_t5_buckets_keep_the_shape_and_are_monotone_in_distance() -> None:
    rel = relative_position_matrix(40, 50)
    buckets = t5_relative_position_bucket(rel, bidirectional=False)
    assert buckets.shape == (40, 50) and buckets.dtype == np.int64
    ordered = t5_relative_position_bucket(-np.arange(0, 400), bidirectional=False)
    assert np.all(np.diff(ordered) >= 0) and ordered.max() == 31


def test_t5_buckets_reject_bad_input() -> None:
    with pytest.raises(TypeError, match="relative_position"):
        t5_relative_position_bucket(np.array([0.5, 1.0]))
    with pytest.raises(TypeError, match="relative_position"):
        t5_relative_position_bucket(np.array([True]))
    with pytest.raises(ValueError, match="relative_position"):
        t5_relative_position_bucket(np.array([2**62]))
    with pytest.raises(ValueError, match="num_buckets"):
        t5_relative_position_bucket(np.array([1]), num_buckets=31)
    with pytest.raises(ValueError, match="num_buckets"):
        t5_relative_position_bucket(np.array([1]), num_buckets=2)
    with pytest.raises(ValueError, match="max_distance"):
        t5_relative_position_bucket(np.array([1]), max_distance=8)
    with pytest.raises(ValueError, match="max_distance"):
        t5_relative_position_bucket(np.array([1]), bidirectional=False, max_distance=16)
    with pytest.raises(TypeError, match="bidirectional"):
        t5_relative_position_bucket(np.array([1]), bidirectional=1)  # type: ignore[arg-type]


def test_t5_bias_looks_up_the_table_row_of_each_bucket() -> None:
    table = np.random.default_rng(1).normal(size=(32, 3))
    bias = t5_bias(table, 9, 11, bidirectional=False)
    assert bias.shape == (3, 9, 11)
    for h in range(3):
        for i in range(9):
            for j in range(11):
                b = t5_relative_position_bucket(np.array([j - i]), bidirectional=False)[0]
                assert bias[h, i, j] == table[b, h]


def test_t5_bias_row_of_a_decoding_step_is_the_last_row_of_the_full_bias() -> None:
    table = np.random.default_rng(2).normal(size=(32, 2))
    full = t5_bias(table, 20, bidirectional=False)
    step = t5_bias(table, 1, 20, bidirectional=False, query_offset=19)
    np.testing.assert_array_equal(step[:, 0], full[:, -1])


def test_t5_bias_rejects_bad_tables() -> None:
    with pytest.raises(ValueError, match="table"):
        t5_bias(np.zeros(32), 4)
    with pytest.raises(ValueError, match="num_buckets"):
        t5_bias(np.zeros((31, 2)), 4)


# ------------------------------------------------------------------------------------ Shaw


def test_shaw_index_clips_the_offset_to_plus_minus_k() -> None:
    index = shaw_relative_index(7, 9, max_relative_position=3)
    for i in range(7):
        for j in range(9):
            assert index[i, j] == max(-3, min(3, j - i)) + 3


def test_shaw_embeddings_look_up_the_clipped_row() -> None:
    table = np.random.default_rng(3).normal(size=(5, 4))  # k = 2
    emb = shaw_relative_embeddings(table, 6)
    assert emb.shape == (6, 6, 4)
    for i in range(6):
        for j in range(6):
            np.testing.assert_array_equal(emb[i, j], table[max(-2, min(2, j - i)) + 2])


def _shaw_by_loops(q, k, v, table_k, table_v, kk, causal):  # type: ignore[no-untyped-def]
    n_q, d = q.shape
    out = np.zeros((n_q, v.shape[1]))
    for i in range(n_q):
        scores = []
        for j in range(k.shape[0]):
            a = table_k[max(-kk, min(kk, j - i)) + kk]
            scores.append(q[i] @ (k[j] + a) / math.sqrt(d) if not causal or j <= i else -np.inf)
        w = np.exp(np.array(scores) - max(scores))
        w /= w.sum()
        for j in range(k.shape[0]):
            out[i] += w[j] * (v[j] + table_v[max(-kk, min(kk, j - i)) + kk])
    return out


@pytest.mark.parametrize("causal", [False, True])
def test_shaw_attention_matches_equations_3_and_4_written_as_loops(causal: bool) -> None:
    rng = np.random.default_rng(4)
    q, k = rng.normal(size=(2, 6, 4))
    v = rng.normal(size=(6, 3))
    table_k, table_v = rng.normal(size=(5, 4)), rng.normal(size=(5, 3))
    out, weights = shaw_attention(q, k, v, table_k, table_v, causal=causal)
    expected = _shaw_by_loops(q, k, v, table_k, table_v, 2, causal)
    np.testing.assert_allclose(out, expected, atol=1e-12)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0)


def test_shaw_attention_with_zero_tables_is_plain_attention() -> None:
    rng = np.random.default_rng(5)
    q, k, v = rng.normal(size=(3, 5, 4))
    out, weights = shaw_attention(q, k, v, np.zeros((3, 4)), np.zeros((3, 4)))
    plain_out, plain_weights = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(out, plain_out, atol=1e-12)
    np.testing.assert_allclose(weights, plain_weights, atol=1e-12)


def test_shaw_decoding_step_equals_the_last_row_of_full_causal_attention() -> None:
    rng = np.random.default_rng(6)
    q, k = rng.normal(size=(2, 8, 4))
    v = rng.normal(size=(8, 2))
    table_k, table_v = rng.normal(size=(7, 4)), rng.normal(size=(7, 2))
    full, _ = shaw_attention(q, k, v, table_k, table_v, causal=True)
    step, _ = shaw_attention(q[-1:], k, v, table_k, table_v, causal=True, query_offset=7)
    np.testing.assert_allclose(step[0], full[-1], atol=1e-12)


def test_shaw_scores_only_depend_on_offsets_for_identical_tokens() -> None:
    x = np.ones((6, 4))
    table = np.random.default_rng(7).normal(size=(5, 4))
    _, weights = shaw_attention(x, x, x, table)
    # log w_ij - log w_ii = e_ij - e_ii: a function of the offset j - i alone
    logs = np.log(weights)
    relative = logs - np.diag(logs)[:, None]
    offsets = relative_position_matrix(6)
    for r in range(-5, 6):
        assert np.ptp(relative[offsets == r]) < 1e-12, r


def test_shaw_rejects_bad_input() -> None:
    q = np.zeros((3, 4))
    with pytest.raises(ValueError, match="table"):
        shaw_attention(q, q, q, np.zeros((4, 4)))
    with pytest.raises(ValueError, match="table_k"):
        shaw_attention(q, q, q, np.zeros((3, 5)))
    with pytest.raises(ValueError, match="table_v"):
        shaw_attention(q, q, q, np.zeros((3, 4)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="v must have as many rows as k"):
        shaw_attention(q, q, np.zeros((2, 4)), np.zeros((3, 4)))
    with pytest.raises(ValueError, match="q and k"):
        shaw_attention(q, np.zeros((3, 2)), q, np.zeros((3, 4)))
    with pytest.raises(ValueError, match="max_relative_position"):
        shaw_relative_index(3, max_relative_position=0)
    with pytest.raises(TypeError, match="causal"):
        shaw_attention(q, q, q, np.zeros((3, 4)), causal=None)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------- costs

GPT2 = dict(d_model=768, n_heads=12, n_layers=12, max_positions=1024)


def test_parameter_counts_of_each_scheme() -> None:
    assert parameter_count("learned", **GPT2) == 1024 * 768  # type: ignore[arg-type]
    assert parameter_count("t5", **GPT2) == 32 * 12  # type: ignore[arg-type]
    # Shaw: key and value tables of 2k + 1 rows of d_head = 64, in each of the 12 layers
    assert parameter_count("shaw", **GPT2) == 2 * 33 * 64 * 12  # type: ignore[arg-type]
    for scheme in ("none", "sinusoidal", "rope", "alibi"):
        assert parameter_count(scheme, **GPT2) == 0  # type: ignore[arg-type]
    assert set(COST_SCHEMES) == {"none", "sinusoidal", "learned", "shaw", "t5", "rope", "alibi"}


def test_parameter_count_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="scheme"):
        parameter_count("xpos", **GPT2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="d_model"):
        parameter_count("shaw", d_model=100, n_heads=12, n_layers=1, max_positions=8)
    with pytest.raises(ValueError, match="n_layers"):
        parameter_count("shaw", d_model=96, n_heads=12, n_layers=0, max_positions=8)


@pytest.mark.parametrize("num_buckets", [4, 8, 32, 64])
@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_exact_buckets_counts_the_buckets_that_hold_one_offset(
    num_buckets: int, bidirectional: bool
) -> None:
    # independent: the keys behind the query (offsets 0 .. 999) and how many buckets hold one
    behind = -np.arange(1000)
    buckets = t5_relative_position_bucket(behind, bidirectional=bidirectional,
                                          num_buckets=num_buckets, max_distance=500)
    _, sizes = np.unique(buckets, return_counts=True)
    expected = int(np.sum(sizes == 1))
    assert t5_exact_buckets(num_buckets, bidirectional=bidirectional) == expected


def test_offset_similarity_normalised_starts_at_one() -> None:
    d = 64
    raw = offset_similarity(np.arange(5), d)
    np.testing.assert_allclose(offset_similarity(np.arange(5), d, normalised=True), raw / (d / 2))
    assert offset_similarity([0], d, normalised=True)[0] == pytest.approx(1.0)

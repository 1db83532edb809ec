"""Tests for posenc_lib.rope: RoPE identities, a parity test against independent references,
and every bad-input case.

The references below are written straight from the formulas (RoFormer's complex form for the
interleaved pairing, Hugging Face's ``rotate_half`` form for the half pairing); they share no
code with the module under test.
"""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib.frequencies import angles, inverse_frequencies, split_permutation
from posenc_lib.rope import (
    apply_rope,
    relative_scores,
    rope_decay_bound,
    rope_matrix,
    rotate_half,
    rotate_interleaved,
)

# --------------------------------------------------------------------------- independent references


def ref_inv_freq(d: int, base: float) -> np.ndarray:
    """theta_i = 1 / base^(2i/d), as in RoFormer eq. (15) and HF's default."""
    return np.array([1.0 / base ** (2 * i / d) for i in range(d // 2)])


def ref_rope_interleaved(x: np.ndarray, positions: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """(x_{2i} + i x_{2i+1}) * exp(i m theta_i), written with complex scalars (RoFormer/Meta)."""
    assert x.ndim == 2, "reference expects x of shape (seq, d)"
    out = np.empty(x.shape, dtype=np.float64)
    for row, m in enumerate(positions):
        for i, t in enumerate(theta):
            z = complex(x[row, 2 * i], x[row, 2 * i + 1])
            w = z * cmath.exp(1j * float(m) * float(t))
            out[row, 2 * i], out[row, 2 * i + 1] = w.real, w.imag
    return out


def ref_rotate_half(x: np.ndarray) -> np.ndarray:
    h = x.shape[-1] // 2
    return np.concatenate((-x[..., h:], x[..., :h]), axis=-1)


def ref_rope_half(x: np.ndarray, positions: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """HF form: emb = cat(freqs, freqs); x * cos(emb) + rotate_half(x) * sin(emb)."""
    freqs = np.asarray(positions, dtype=np.float64)[:, None] * theta[None, :]
    emb = np.concatenate((freqs, freqs), axis=-1)
    return x * np.cos(emb) + ref_rotate_half(x) * np.sin(emb)


def rng_vectors(seed: int, *shape: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


# --------------------------------------------------------------------------- parity


@pytest.mark.parametrize("d,base", [(2, 10000.0), (8, 10000.0), (64, 500000.0), (128, 1e6)])
def test_parity_interleaved_against_complex_reference(d: int, base: float) -> None:
    x = rng_vectors(d, 17, d)
    positions = np.arange(17) * 37 - 100
    got = apply_rope(x, positions, inverse_frequencies(d, base))
    want = ref_rope_interleaved(x, positions, ref_inv_freq(d, base))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("d,base", [(2, 10000.0), (8, 10000.0), (64, 500000.0), (128, 1e6)])
def test_parity_half_against_rotate_half_reference(d: int, base: float) -> None:
    x = rng_vectors(d + 1, 3, 17, d)
    positions = np.arange(17) * 37
    got = apply_rope(x, positions, inverse_frequencies(d, base), pairing="half")
    want = ref_rope_half(x, positions, ref_inv_freq(d, base))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_default_inv_freq_matches_formula() -> None:
    np.testing.assert_allclose(
        inverse_frequencies(128, 10000.0), ref_inv_freq(128, 10000.0), rtol=1e-13
    )
    assert inverse_frequencies(128).dtype == np.float64
    assert inverse_frequencies(128).shape == (64,)
    # theta_0 = 1 and theta_(d/2-1) = base^(-(d-2)/d)
    assert inverse_frequencies(16, 100.0)[0] == 1.0
    assert math.isclose(inverse_frequencies(16, 100.0)[-1], 100.0 ** (-14 / 16), rel_tol=1e-14)


def test_rope_angles_is_outer_product() -> None:
    phi = angles([0, 1, 5], [1.0, 0.25])
    assert phi.shape == (3, 2)
    assert phi.dtype == np.float64
    np.testing.assert_array_equal(phi, [[0, 0], [1, 0.25], [5, 1.25]])


# --------------------------------------------------------------------------- identities


@settings(max_examples=60, deadline=None)
@given(
    half_d=st.integers(1, 16),
    m=st.integers(-300, 300),
    n=st.integers(-300, 300),
    seed=st.integers(0, 2**16),
    pairing=st.sampled_from(["interleaved", "half"]),
)
def test_score_depends_only_on_offset(half_d: int, m: int, n: int, seed: int, pairing: str) -> None:
    d = 2 * half_d
    theta = inverse_frequencies(d, 10000.0)
    q, k = rng_vectors(seed, 2, d)
    qm = apply_rope(q[None], [m], theta, pairing=pairing)[0]
    kn = apply_rope(k[None], [n], theta, pairing=pairing)[0]
    q0 = apply_rope(q[None], [0], theta, pairing=pairing)[0]
    k_shift = apply_rope(k[None], [n - m], theta, pairing=pairing)[0]
    assert math.isclose(qm @ kn, q0 @ k_shift, rel_tol=1e-9, abs_tol=1e-9)
    # and relative_scores gives the same number
    score = relative_scores(q, k, [n - m], theta, pairing=pairing)[0]
    assert math.isclose(qm @ kn, score, rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=40, deadline=None)
@given(half_d=st.integers(1, 16), seed=st.integers(0, 2**16), m=st.integers(-500, 500))
def test_half_and_interleaved_agree_after_permutation(half_d: int, seed: int, m: int) -> None:
    d = 2 * half_d
    theta = inverse_frequencies(d, 10000.0)
    perm = split_permutation(d)
    q, k = rng_vectors(seed, 2, d)
    rot_il = apply_rope(q[None], [m], theta, pairing="interleaved")[0]
    rot_half = apply_rope(q[None, perm], [m], theta, pairing="half")[0]
    np.testing.assert_allclose(rot_il[perm], rot_half, rtol=1e-12, atol=1e-12)
    # scores equal when q and k are permuted
    dist = np.arange(-20, 21)
    s_il = relative_scores(q, k, dist, theta, pairing="interleaved")
    s_half = relative_scores(q[perm], k[perm], dist, theta, pairing="half")
    np.testing.assert_allclose(s_il, s_half, rtol=1e-10, atol=1e-10)


def test_permutation_explicit_and_inverse() -> None:
    perm = split_permutation(6)
    np.testing.assert_array_equal(perm, [0, 2, 4, 1, 3, 5])
    q_il = np.array([10, 11, 20, 21, 30, 31])
    # half pairs (i, i + 3) must be the interleaved pairs (2i, 2i+1)
    q_half = q_il[perm]
    for i in range(3):
        assert (q_half[i], q_half[i + 3]) == (q_il[2 * i], q_il[2 * i + 1])
    np.testing.assert_array_equal(q_half[np.argsort(perm)], q_il)


@pytest.mark.parametrize("pairing", ["interleaved", "half"])
@pytest.mark.parametrize("position", [0, 1, 7, -3, 1000, 2.5])
def test_apply_rope_equals_rope_matrix(pairing: str, position: float) -> None:
    d = 10
    theta = inverse_frequencies(d, 10000.0)
    x = rng_vectors(3, d)
    matrix = rope_matrix(position, theta, pairing=pairing)
    got = apply_rope(x[None], [position], theta, pairing=pairing)[0]
    np.testing.assert_allclose(got, matrix @ x, rtol=1e-12, atol=1e-12)


def test_rope_matrix_is_block_diagonal_rotation() -> None:
    theta = inverse_frequencies(8, 10000.0)
    r = rope_matrix(3, theta)
    np.testing.assert_allclose(r @ r.T, np.eye(8), atol=1e-12)
    assert math.isclose(np.linalg.det(r), 1.0, rel_tol=1e-12)
    # block diagonal: nothing outside the 2x2 blocks
    mask = np.kron(np.eye(4), np.ones((2, 2))).astype(bool)
    assert np.all(r[~mask] == 0)
    # R_a R_b = R_(a+b)
    np.testing.assert_allclose(
        rope_matrix(2, theta) @ rope_matrix(5, theta), rope_matrix(7, theta), atol=1e-12
    )
    # block i: [[cos, -sin], [sin, cos]] (counter-clockwise)
    t = 3 * theta[1]
    np.testing.assert_allclose(
        r[2:4, 2:4], [[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]]
    )


@settings(max_examples=40, deadline=None)
@given(
    half_d=st.integers(1, 32),
    seed=st.integers(0, 2**16),
    pairing=st.sampled_from(["interleaved", "half"]),
)
def test_norm_preserved(half_d: int, seed: int, pairing: str) -> None:
    d = 2 * half_d
    x = rng_vectors(seed, 2, 9, d)
    out = apply_rope(x, np.arange(9) * 123, inverse_frequencies(d), pairing=pairing)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)


@pytest.mark.parametrize("pairing", ["interleaved", "half"])
def test_position_zero_is_identity(pairing: str) -> None:
    x = rng_vectors(5, 4, 16)
    out = apply_rope(x, np.zeros(4, dtype=int), inverse_frequencies(16), pairing=pairing)
    np.testing.assert_array_equal(out, x)


def test_rotations_are_quarter_turns() -> None:
    x = rng_vectors(6, 3, 8)
    np.testing.assert_array_equal(rotate_half(rotate_half(x)), -x)
    np.testing.assert_array_equal(rotate_interleaved(rotate_interleaved(x)), -x)
    np.testing.assert_array_equal(rotate_half(x), ref_rotate_half(x))
    # interleaved quarter turn = multiplication by i in the complex view
    z = x[..., 0::2] + 1j * x[..., 1::2]
    r = rotate_interleaved(x)
    np.testing.assert_allclose(r[..., 0::2] + 1j * r[..., 1::2], 1j * z)


# ------------------------------------------------------------------- dtype, precision, cache


def test_float32_in_float32_out() -> None:
    x = rng_vectors(7, 2, 5, 8).astype(np.float32)
    out = apply_rope(x, np.arange(5), inverse_frequencies(8))
    assert out.dtype == np.float32
    out_half = apply_rope(x, np.arange(5), inverse_frequencies(8), pairing="half")
    assert out_half.dtype == np.float32
    half_precision = apply_rope(x.astype(np.float16), np.arange(5), inverse_frequencies(8))
    assert half_precision.dtype == np.float16
    assert (
        apply_rope(np.ones((5, 8), dtype=int), np.arange(5), inverse_frequencies(8)).dtype
        == np.float64
    )


def test_float32_at_large_positions_matches_float64_reference() -> None:
    """Angles are built in float64: float32 output at position 2**20 has float32 accuracy."""
    d = 64
    positions = np.array([2**20, 2**20 + 1, 3_000_000])
    x = rng_vectors(8, 3, d)
    want = ref_rope_interleaved(x, positions, ref_inv_freq(d, 10000.0))
    got = apply_rope(x.astype(np.float32), positions, inverse_frequencies(d))
    np.testing.assert_allclose(got, want, atol=2e-6 * np.abs(x).max() * 4)


def test_apply_rope_is_the_textbook_formula_with_the_library_rotations() -> None:
    # x' = x cos + rotate(x) sin, with cos/sin repeated onto both members of each pair
    theta = inverse_frequencies(8)
    x = rng_vectors(9, 6, 8)
    phi = np.outer(np.arange(6), theta)
    cos_i, sin_i = np.repeat(np.cos(phi), 2, axis=-1), np.repeat(np.sin(phi), 2, axis=-1)
    np.testing.assert_allclose(
        apply_rope(x, np.arange(6), theta), x * cos_i + rotate_interleaved(x) * sin_i, atol=1e-14
    )
    cos_h, sin_h = np.tile(np.cos(phi), 2), np.tile(np.sin(phi), 2)
    np.testing.assert_allclose(
        apply_rope(x, np.arange(6), theta, pairing="half"), x * cos_h + rotate_half(x) * sin_h,
        atol=1e-14,
    )


def test_apply_rope_does_not_modify_input() -> None:
    x = rng_vectors(10, 4, 8)
    copy = x.copy()
    apply_rope(x, np.arange(4), inverse_frequencies(8), pairing="half")
    np.testing.assert_array_equal(x, copy)


# --------------------------------------------------------------------------- decay bound


def ref_decay_bound(r: float, d: int, base: float) -> float:
    """(1/(d/2)) sum_{j=1}^{d/2} |sum_{k=0}^{j-1} exp(i r theta_k)| (RoFormer 3.4.3), by loops."""
    total, partial = 0.0, 0j
    for k in range(d // 2):
        partial += cmath.exp(1j * r * base ** (-2 * k / d))
        total += abs(partial)
    return total / (d // 2)


def test_decay_bound_matches_definition() -> None:
    dist = [0, 1, 3, 17, 100, 250.5]
    got = rope_decay_bound(dist, 128, 10000.0)
    want = [ref_decay_bound(r, 128, 10000.0) for r in dist]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("d", [2, 16, 128])
def test_decay_bound_at_zero_is_closed_value(d: int) -> None:
    # S_j = j at distance 0, so (1/(d/2)) sum_j j = (d/2 + 1) / 2
    assert math.isclose(rope_decay_bound([0], d)[0], (d / 2 + 1) / 2, rel_tol=1e-14)


def test_decay_bound_decays_but_not_monotonically() -> None:
    dist = np.arange(0, 1001)
    bound = rope_decay_bound(dist, 128, 10000.0)
    assert bound[0] > bound[50] > bound[1000]
    rises = np.nonzero(np.diff(bound) > 0)[0]
    assert rises.size > 0
    r = int(rises[0])
    # an explicit distance where the bound goes up, checked with the loop definition
    assert ref_decay_bound(r + 1, 128, 10000.0) > ref_decay_bound(r, 128, 10000.0)
    # even in the distance
    np.testing.assert_allclose(rope_decay_bound([-37], 128), rope_decay_bound([37], 128))


# --------------------------------------------------------------------------- bad input


def test_apply_rope_bad_input() -> None:
    theta = inverse_frequencies(8)
    x = np.ones((4, 8))
    with pytest.raises(ValueError, match="x"):
        apply_rope(np.ones((4, 7)), np.arange(4), theta[:3])
    with pytest.raises(ValueError, match="x"):
        apply_rope(np.ones(8), np.arange(1), theta)
    with pytest.raises(ValueError, match="positions"):
        apply_rope(x, np.arange(5), theta)
    with pytest.raises(ValueError, match="inv_freq"):
        apply_rope(x, np.arange(4), theta[:3])
    with pytest.raises(ValueError, match="inv_freq"):
        apply_rope(x, np.arange(4), np.ones((4, 1)))
    bad = x.copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match="x"):
        apply_rope(bad, np.arange(4), theta)
    bad[1, 2] = np.inf
    with pytest.raises(ValueError, match="x"):
        apply_rope(bad, np.arange(4), theta)
    with pytest.raises(ValueError, match="positions"):
        apply_rope(x, [0, 1, np.inf, 3], theta)
    with pytest.raises(ValueError, match="inv_freq"):
        apply_rope(x, np.arange(4), [1.0, np.nan, 0.1, 0.01])
    with pytest.raises(TypeError, match="x"):
        apply_rope(np.ones((4, 8), dtype=bool), np.arange(4), theta)
    with pytest.raises(TypeError, match="positions"):
        apply_rope(x, np.array([True, False, True, False]), theta)
    with pytest.raises(TypeError, match="inv_freq"):
        apply_rope(x, np.arange(4), np.ones(4, dtype=bool))
    with pytest.raises(ValueError, match="pairing"):
        apply_rope(x, np.arange(4), theta, pairing="neox")
    with pytest.raises(ValueError, match="positions"):
        apply_rope(x, np.arange(4).reshape(2, 2), theta)


def test_large_but_finite_input_is_accepted() -> None:
    """The fast finite check must not reject finite values whose sum overflows."""
    x = np.full((2, 4), 3e38, dtype=np.float32)
    out = apply_rope(x, [0, 0], inverse_frequencies(4))
    np.testing.assert_array_equal(out, x)


def test_other_functions_bad_input() -> None:
    with pytest.raises(ValueError, match="dim"):
        inverse_frequencies(7)
    with pytest.raises(ValueError, match="dim"):
        inverse_frequencies(0)
    with pytest.raises(TypeError, match="dim"):
        inverse_frequencies(8.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="dim"):
        inverse_frequencies(True)
    with pytest.raises(ValueError, match="base"):
        inverse_frequencies(8, 1.0)
    with pytest.raises(ValueError, match="base"):
        inverse_frequencies(8, float("nan"))
    with pytest.raises(TypeError, match="base"):
        inverse_frequencies(8, True)
    with pytest.raises(ValueError, match="x"):
        rotate_half(np.ones(5))
    with pytest.raises(ValueError, match="x"):
        rotate_interleaved(np.ones((2, 3)))
    with pytest.raises(ValueError, match="pairing"):
        rope_matrix(1, [1.0], pairing="other")
    with pytest.raises(ValueError, match="position"):
        rope_matrix(float("inf"), [1.0])
    with pytest.raises(TypeError, match="position"):
        rope_matrix(True, [1.0])
    with pytest.raises(ValueError, match="dim"):
        split_permutation(5)
    with pytest.raises(ValueError, match="q"):
        relative_scores(np.ones(3), np.ones(3), [0], [1.0])
    with pytest.raises(ValueError, match="k"):
        relative_scores(np.ones(4), np.ones(6), [0], [1.0, 0.1])
    with pytest.raises(ValueError, match="inv_freq"):
        relative_scores(np.ones(4), np.ones(4), [0], [1.0])
    with pytest.raises(ValueError, match="distances"):
        relative_scores(np.ones(4), np.ones(4), [np.nan], [1.0, 0.1])
    with pytest.raises(ValueError, match="distances"):
        rope_decay_bound([np.inf], 8)
    with pytest.raises(ValueError, match="head_dim"):
        rope_decay_bound([1], 9)
    with pytest.raises(ValueError, match="base"):
        rope_decay_bound([1], 8, 0.5)
    with pytest.raises(ValueError, match="positions"):
        angles([[0, 1]], [1.0])
    with pytest.raises(ValueError, match="inv_freq"):
        angles([0, 1], [])

"""Tests for posenc_lib.relative: the shift operator M_k, similarities and least-squares fits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib.analysis import fit_position_probe, offset_similarity, similarity_matrix
from posenc_lib.shift import fit_linear_map, pair_shift_matrix, rotation_matrix, shift_matrix
from posenc_lib.sinusoidal import sinusoidal_encoding, sinusoidal_encoding_at

reals = st.floats(min_value=-500, max_value=500, allow_nan=False, allow_infinity=False)
even_d = st.integers(min_value=1, max_value=32).map(lambda h: 2 * h)
bases = st.floats(min_value=1.5, max_value=1e5, allow_nan=False, allow_infinity=False)
thetas = st.floats(min_value=-3, max_value=3, allow_nan=False, allow_infinity=False)


# ---------------------------------------------------------------- the 2x2 matrices


def test_rotation_matrix_is_counter_clockwise() -> None:
    a = 0.3
    np.testing.assert_allclose(rotation_matrix(a) @ [1.0, 0.0], [math.cos(a), math.sin(a)])
    np.testing.assert_allclose(rotation_matrix(math.pi / 2) @ [1.0, 0.0], [0.0, 1.0], atol=1e-16)


@settings(max_examples=80, deadline=None)
@given(t=reals, k=reals, theta=thetas)
def test_pair_shift_by_angle_addition(t: float, k: float, theta: float) -> None:
    pair = np.array([math.sin(theta * t), math.cos(theta * t)])
    shifted = pair_shift_matrix(k, theta) @ pair
    expected = [math.sin(theta * (t + k)), math.cos(theta * (t + k))]
    np.testing.assert_allclose(shifted, expected, atol=1e-9)
    # with (sin, cos) ordering the shift is the rotation by -theta*k
    np.testing.assert_allclose(pair_shift_matrix(k, theta), rotation_matrix(-theta * k), atol=1e-15)


def test_pair_shift_explicit_entries() -> None:
    w, k = 0.7, 2.0
    c, s = math.cos(w * k), math.sin(w * k)
    np.testing.assert_allclose(pair_shift_matrix(k, w), [[c, s], [-s, c]], rtol=1e-15)


# ---------------------------------------------------------------- the full shift


@settings(max_examples=80, deadline=None)
@given(t=reals, k=reals, d=even_d, base=bases)
def test_shift_matrix_moves_the_encoding(t: float, k: float, d: int, base: float) -> None:
    pe_t, pe_tk = sinusoidal_encoding_at([t, t + k], d, base)
    np.testing.assert_allclose(shift_matrix(k, d, base) @ pe_t, pe_tk, atol=1e-9)


@pytest.mark.parametrize("k", [1, 2, 5, 17, 49])
def test_shift_matrix_for_every_row(k: int) -> None:
    d = 32
    pe = sinusoidal_encoding(50 + k, d)
    np.testing.assert_allclose(pe[:-k] @ shift_matrix(k, d).T, pe[k:], atol=1e-12)
    np.testing.assert_allclose(pe[k:] @ shift_matrix(-k, d).T, pe[:-k], atol=1e-12)


def test_shift_matrix_is_block_diagonal_of_pairs() -> None:
    d, base, k = 8, 100.0, 3.0
    m = shift_matrix(k, d, base)
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        np.testing.assert_array_equal(
            m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2], pair_shift_matrix(k, theta)
        )
    mask = np.kron(np.eye(d // 2), np.ones((2, 2))) == 0
    assert np.all(m[mask] == 0)


@settings(max_examples=60, deadline=None)
@given(a=reals, b=reals, d=even_d, base=bases)
def test_shift_group_properties(a: float, b: float, d: int, base: float) -> None:
    ma, mb = shift_matrix(a, d, base), shift_matrix(b, d, base)
    np.testing.assert_allclose(ma @ mb, shift_matrix(a + b, d, base), atol=1e-9)
    np.testing.assert_allclose(ma @ ma.T, np.eye(d), atol=1e-12)
    assert np.linalg.det(ma) == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(np.linalg.inv(ma), shift_matrix(-a, d, base), atol=1e-9)


# ---------------------------------------------------------------- similarity


def test_similarity_is_toeplitz_with_closed_form_diagonals() -> None:
    n, d = 60, 16
    sim = similarity_matrix(sinusoidal_encoding(n, d))
    assert sim.shape == (n, n)
    np.testing.assert_allclose(sim, sim.T, atol=1e-12)
    closed = offset_similarity(np.arange(n), d)
    for k in range(n):
        np.testing.assert_allclose(np.diagonal(sim, offset=k), closed[k], atol=1e-12)
        np.testing.assert_allclose(np.diagonal(sim, offset=-k), closed[k], atol=1e-12)
    assert closed[0] == pytest.approx(d / 2)


@settings(max_examples=60, deadline=None)
@given(t=reals, k=reals, d=even_d, base=bases)
def test_offset_similarity_independent_of_t(t: float, k: float, d: int, base: float) -> None:
    pe_t, pe_tk = sinusoidal_encoding_at([t, t + k], d, base)
    assert offset_similarity([k], d, base)[0] == pytest.approx(float(pe_t @ pe_tk), abs=1e-9)
    assert offset_similarity([-k], d, base)[0] == pytest.approx(offset_similarity([k], d, base)[0])


def test_similarity_matrix_of_arbitrary_rows() -> None:
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 0.5]])
    expected = [[sum(a * b for a, b in zip(r, s, strict=True)) for s in x] for r in x]
    np.testing.assert_allclose(similarity_matrix(x), expected)
    np.testing.assert_array_equal(similarity_matrix([[1, 2], [3, 4]]), [[5, 11], [11, 25]])


# ---------------------------------------------------------------- least squares


def test_fit_linear_map_recovers_shift_from_data() -> None:
    d, base, k = 8, 100.0, 3
    positions = np.arange(200)
    inputs = sinusoidal_encoding_at(positions, d, base)
    targets = sinusoidal_encoding_at(positions + k, d, base)
    matrix, residual = fit_linear_map(inputs, targets)
    assert matrix.shape == (d, d)
    np.testing.assert_allclose(matrix, shift_matrix(k, d, base), atol=1e-8)
    assert residual < 1e-10


def test_sine_channels_alone_admit_no_linear_shift() -> None:
    d, base, k = 8, 100.0, 3
    positions = np.arange(200)
    sines = sinusoidal_encoding_at(positions, d, base)[:, 0::2]
    shifted_sines = sinusoidal_encoding_at(positions + k, d, base)[:, 0::2]
    _, residual = fit_linear_map(sines, shifted_sines)
    assert residual > 0.05


def test_fit_linear_map_random_matrix_and_residual() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 4))
    true = rng.normal(size=(3, 4))
    matrix, residual = fit_linear_map(x, x @ true.T)
    np.testing.assert_allclose(matrix, true, atol=1e-12)
    assert residual < 1e-12
    noise = rng.normal(size=(50, 3))
    _, noisy = fit_linear_map(x, x @ true.T + noise)
    assert 0.5 * np.sqrt(np.mean(noise**2)) < noisy <= np.sqrt(np.mean(noise**2))


def test_fit_position_probe_exact_linear_data() -> None:
    rng = np.random.default_rng(1)
    features = rng.normal(size=(40, 5))
    w, b = np.array([1.0, -2.0, 0.5, 0.0, 3.0]), 7.0
    weights, predictions = fit_position_probe(features, features @ w + b)
    np.testing.assert_allclose(weights, [*w, b], atol=1e-12)
    np.testing.assert_allclose(predictions, features @ w + b, atol=1e-12)


def test_position_survives_the_sum_e_plus_p() -> None:
    rng = np.random.default_rng(2)
    n, d = 200, 64
    pe = sinusoidal_encoding(n, d)
    embeddings = rng.normal(scale=0.1, size=(n, d))
    _, predictions = fit_position_probe(embeddings + pe, np.arange(n))
    rms = np.sqrt(np.mean((predictions - np.arange(n)) ** 2))
    assert rms < 0.05 * n  # far better than guessing the mean (rms ~ n / sqrt(12))


# ---------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (True, TypeError),
        ("1", TypeError),
        (None, TypeError),
    ],
)
def test_bad_scalars(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="angle"):
        rotation_matrix(value)  # type: ignore[arg-type]
    with pytest.raises(error, match="k must"):
        pair_shift_matrix(value, 1.0)  # type: ignore[arg-type]
    with pytest.raises(error, match="theta"):
        pair_shift_matrix(1.0, value)  # type: ignore[arg-type]
    with pytest.raises(error, match="k must"):
        shift_matrix(value, 4)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("d", "base", "error", "name"),
    [
        (3, 10.0, ValueError, "d_model"),
        (0, 10.0, ValueError, "d_model"),
        (4.0, 10.0, TypeError, "d_model"),
        (True, 10.0, TypeError, "d_model"),
        (4, 1.0, ValueError, "base"),
        (4, 0.0, ValueError, "base"),
        (4, float("nan"), ValueError, "base"),
        (4, True, TypeError, "base"),
    ],
)
def test_bad_d_and_base(d: object, base: object, error: type[Exception], name: str) -> None:
    with pytest.raises(error, match=name):
        shift_matrix(1, d, base)  # type: ignore[arg-type]
    with pytest.raises(error, match=name):
        offset_similarity([0, 1], d, base)  # type: ignore[arg-type]


def test_bad_arrays() -> None:
    with pytest.raises(ValueError, match="encoding"):
        similarity_matrix([1.0, 2.0])
    with pytest.raises(ValueError, match="encoding"):
        similarity_matrix([[1.0, float("nan")]])
    with pytest.raises(TypeError, match="encoding"):
        similarity_matrix([[True, False]])
    with pytest.raises(ValueError, match="offsets"):
        offset_similarity([[0, 1]], 4)
    with pytest.raises(ValueError, match="offsets"):
        offset_similarity([float("inf")], 4)
    with pytest.raises(ValueError, match="inputs"):
        fit_linear_map([1.0, 2.0], [[1.0], [2.0]])
    with pytest.raises(ValueError, match="targets"):
        fit_linear_map([[1.0], [2.0]], [1.0, 2.0])
    with pytest.raises(ValueError, match="targets"):
        fit_linear_map([[1.0], [2.0]], [[1.0], [2.0], [3.0]])
    with pytest.raises(ValueError, match="inputs"):
        fit_linear_map(np.zeros((0, 2)), np.zeros((0, 2)))
    with pytest.raises(ValueError, match="inputs"):
        fit_linear_map([[float("nan")]], [[1.0]])
    with pytest.raises(ValueError, match="features"):
        fit_position_probe([1.0, 2.0], [0, 1])
    with pytest.raises(ValueError, match="positions"):
        fit_position_probe([[1.0], [2.0]], [0, 1, 2])
    with pytest.raises(ValueError, match="positions"):
        fit_position_probe([[1.0], [2.0]], [[0, 1]])
    with pytest.raises(ValueError, match="positions"):
        fit_position_probe([[1.0], [2.0]], [0, float("nan")])
    with pytest.raises(TypeError, match="features"):
        fit_position_probe("abc", [0])


def test_overflow_is_an_error_not_nan() -> None:
    with pytest.raises(ValueError, match="theta \\* k"):
        pair_shift_matrix(1e308, 10.0)
    with pytest.raises(ValueError, match="encoding"):
        similarity_matrix([[1e200, -1e200], [1e200, 1e200]])
    with pytest.raises(ValueError, match="inputs"):
        fit_linear_map([[1e-300], [2e-300]], [[1e300], [1e300]])

"""Tests for posenc_lib.precision: bfloat16/float16 rounding emulation and angle errors."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.low_precision import (
    cached_key_scores,
    low_precision_limits,
    rope_scores_at_offset,
    tile_scaled_e4m3,
    to_low_precision,
)
from posenc_lib.precision import (
    angle_error,
    machine_epsilon,
    round_to_bfloat16,
    round_to_dtype,
    sincos_error,
    spacing_at,
)
from posenc_lib.rope import apply_rope

NAMES = ["float16", "bfloat16", "float32", "float64"]
normal_float32 = st.floats(
    min_value=2.0**-126,
    max_value=float(np.finfo(np.float32).max),
    allow_nan=False,
    allow_infinity=False,
    width=32,
)


def bfloat16_by_frexp(x: float, mode: str) -> float:
    """Independent bfloat16 rounding of a normal float32 value: 8 significant bits."""
    mantissa, exponent = math.frexp(x)  # x = mantissa * 2**exponent, 0.5 <= |mantissa| < 1
    scaled = mantissa * 2**8  # 8 significant bits (1 implicit + 7 stored)
    kept = round(scaled) if mode == "nearest" else math.trunc(scaled)  # round() = ties to even
    return math.ldexp(kept, exponent - 8)


# ---------------------------------------------------------------- bfloat16


def test_bfloat16_published_cases() -> None:
    assert round_to_bfloat16([1 + 2**-8], mode="truncate")[0] == 1.0
    assert round_to_bfloat16([1 + 2**-8])[0] == 1.0  # exact tie -> even
    assert round_to_bfloat16([1 + 3 * 2**-8])[0] == 1 + 2**-6  # tie -> even (up)
    assert round_to_bfloat16([1 + 2**-8 + 2**-20])[0] == 1 + 2**-7  # above the tie
    assert round_to_bfloat16([1 + 2**-7 - 2**-20], mode="truncate")[0] == 1.0
    assert round_to_bfloat16([-(1 + 3 * 2**-9)])[0] == -(1 + 2**-7)
    out = round_to_bfloat16(np.array([[0.1, 2.0], [-3.0, 0.0]]))
    assert out.dtype == np.float32 and out.shape == (2, 2)


@settings(max_examples=100, deadline=None)
@given(x=normal_float32, negative=st.booleans(), mode=st.sampled_from(["nearest", "truncate"]))
def test_bfloat16_matches_frexp_rounding(x: float, negative: bool, mode: str) -> None:
    value = -x if negative else x
    expected = bfloat16_by_frexp(value, mode)
    got = float(round_to_bfloat16([value], mode=mode)[0])
    if math.isinf(got):  # rounding up past the largest bfloat16 overflows, as in hardware
        assert abs(expected) > 3.3895e38
    else:
        assert got == expected
        assert np.array([got], dtype=np.float32).view(np.uint32)[0] & 0xFFFF == 0


def test_bfloat16_overflow_and_large_values() -> None:
    assert round_to_bfloat16([3.4e38])[0] == np.inf
    assert round_to_bfloat16([3.4e38], mode="truncate")[0] < np.inf
    assert round_to_dtype([70000.0], "float16")[0] == np.inf


# ---------------------------------------------------------------- round_to_dtype


def test_round_to_dtype_cases() -> None:
    assert round_to_dtype([2049], "float16")[0] == 2048.0
    assert round_to_dtype([2051], "float16")[0] == 2052.0
    assert round_to_dtype([2047], "float16")[0] == 2047.0
    assert round_to_dtype([0.1], "float32")[0] == float(np.float32(0.1))
    assert round_to_dtype([0.1], "float64")[0] == 0.1
    assert round_to_dtype([257], "bfloat16")[0] == 256.0
    out = round_to_dtype(np.arange(6).reshape(2, 3), "float16")
    assert out.dtype == np.float64 and out.shape == (2, 3)


@settings(max_examples=60, deadline=None)
@given(x=st.floats(-6e4, 6e4), name=st.sampled_from(NAMES))
def test_round_to_dtype_error_within_half_spacing(x: float, name: str) -> None:
    rounded = round_to_dtype([x], name)[0]
    assert abs(rounded - x) <= 0.5 * spacing_at([x], name)[0] * (1 + 1e-12)
    assert round_to_dtype([rounded], name)[0] == rounded  # idempotent


# ---------------------------------------------------------------- epsilon and spacing


def test_machine_epsilon_values() -> None:
    assert machine_epsilon("float16") == 2**-10
    assert machine_epsilon("bfloat16") == 2**-7
    assert machine_epsilon("float32") == 2**-23
    assert machine_epsilon("float64") == 2**-52
    for name in ("float16", "float32", "float64"):
        assert machine_epsilon(name) == float(np.finfo(name).eps)


@settings(max_examples=60, deadline=None)
@given(x=st.floats(1e-3, 6e4), name=st.sampled_from(["float16", "float32", "float64"]))
def test_spacing_matches_numpy_spacing(x: float, name: str) -> None:
    stored = np.array([x]).astype(name)
    assert spacing_at(stored.astype(np.float64), name)[0] == float(np.spacing(stored)[0])


def test_spacing_cases() -> None:
    assert spacing_at([1.0], "bfloat16")[0] == 2**-7
    assert spacing_at([256.0, 300.0, -300.0], "bfloat16").tolist() == [2.0, 2.0, 2.0]
    assert spacing_at([2048.0], "float16")[0] == 2.0
    assert spacing_at([2047.0], "float16")[0] == 1.0
    assert spacing_at([0.0], "float32")[0] == float(np.nextafter(np.float32(0), np.float32(1)))
    assert spacing_at([0.0], "float16")[0] == 2.0**-24
    assert spacing_at([2.0**20], "float32")[0] == 2.0**-3


# ---------------------------------------------------------------- angle errors


def test_angle_error_matches_numpy_narrow_arithmetic() -> None:
    positions = np.arange(0, 4000, 7)
    omega = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    exact = positions[:, None] * omega[None, :]
    for name in ("float16", "float32"):
        narrow = positions.astype(name)[:, None] * omega.astype(name)[None, :]
        expected = np.abs(narrow.astype(np.float64) - exact)
        np.testing.assert_array_equal(angle_error(positions, omega, name), expected)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_angle_error_grows_with_position(name: str) -> None:
    omega = np.array([1.0, 0.3, 0.1])
    windows = [np.arange(start, start + 200) for start in (1, 1000, 10000, 60000)]
    means = [float(np.mean(angle_error(w, omega, name))) for w in windows]
    assert means == sorted(means)
    assert means[-1] > 10 * means[0]
    assert means[-1] > 1.0  # the angle is lost completely at large positions


def test_angle_error_zero_for_float64_and_small_for_float32() -> None:
    positions = np.arange(0, 2**20, 997)
    omega = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    assert np.all(angle_error(positions, omega, "float64") == 0.0)
    err32 = angle_error(positions, omega, "float32")
    assert err32.shape == (positions.size, omega.size)
    bound = positions[:, None] * omega[None, :] * 2**-23 * 1.5 + 1e-30
    assert np.all(err32 <= bound)


def test_sincos_error_bounded_by_angle_error() -> None:
    positions = np.arange(0, 50000, 37)
    omega = np.array([1.0, 0.01, 1e-4])
    for name in ("float16", "bfloat16", "float32"):
        e_angle = angle_error(positions, omega, name)
        e_sc = sincos_error(positions, omega, name)
        assert e_sc.shape == e_angle.shape
        assert np.all(e_sc <= e_angle + 1e-12)
        assert np.all(e_sc <= 2.0)
        stored = sincos_error(positions, omega, name, round_result=True)
        assert np.all(stored <= e_angle + machine_epsilon(name))
    assert np.all(sincos_error(positions, omega, "float64") == 0.0)


def test_sincos_error_explicit_case() -> None:
    # float16 stores 2049 as 2048, so the angle is off by exactly one radian
    expected = max(abs(math.sin(2048) - math.sin(2049)), abs(math.cos(2048) - math.cos(2049)))
    assert sincos_error([2049], [1.0], "float16")[0, 0] == pytest.approx(expected, rel=1e-12)


# ---------------------------------------------------------------- bad inputs


@pytest.mark.parametrize("name", ["float8", "bf16", "Float16", "", None, 16])
def test_bad_dtype_name(name: object) -> None:
    for call in (
        lambda: round_to_dtype([1.0], name),  # type: ignore[arg-type]
        lambda: machine_epsilon(name),  # type: ignore[arg-type]
        lambda: spacing_at([1.0], name),  # type: ignore[arg-type]
        lambda: angle_error([1], [1.0], name),  # type: ignore[arg-type]
        lambda: sincos_error([1], [1.0], name),  # type: ignore[arg-type]
    ):
        with pytest.raises(ValueError, match="dtype_name"):
            call()


@pytest.mark.parametrize("mode", ["round", "", None, "Nearest"])
def test_bad_mode(mode: object) -> None:
    with pytest.raises(ValueError, match="mode"):
        round_to_bfloat16([1.0], mode=mode)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ([float("nan")], ValueError),
        ([1.0, float("inf")], ValueError),
        ([True], TypeError),
        (["1.0"], TypeError),
        ([1j], TypeError),
        (True, TypeError),
    ],
)
def test_bad_x(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="x must"):
        round_to_bfloat16(value)
    with pytest.raises(error, match="x must"):
        round_to_dtype(value, "float16")
    with pytest.raises(error, match="x must"):
        spacing_at(value, "float16")


def test_bad_positions_and_inv_freq() -> None:
    for call in (angle_error, sincos_error):
        with pytest.raises(ValueError, match="positions"):
            call([[1, 2]], [1.0], "float16")
        with pytest.raises(ValueError, match="positions"):
            call([float("nan")], [1.0], "float16")
        with pytest.raises(TypeError, match="positions"):
            call([True], [1.0], "float16")
        with pytest.raises(ValueError, match="inv_freq"):
            call([1], [float("inf")], "float16")
        with pytest.raises(ValueError, match="inv_freq"):
            call([1], 1.0, "float16")
    with pytest.raises(TypeError, match="round_result"):
        sincos_error([1], [1.0], "float16", round_result=1)  # type: ignore[arg-type]


def test_values_beyond_the_format_are_rejected_in_angle_errors() -> None:
    with pytest.raises(ValueError, match="positions must fit"):
        angle_error([70000], [1.0], "float16")
    with pytest.raises(ValueError, match="inv_freq must fit"):
        sincos_error([1], [1e39], "bfloat16")
    with pytest.raises(ValueError, match="positions \\* inv_freq"):
        angle_error([300], [300.0], "float16")


# --------------------------------------------------------------------------- ml_dtypes: real
# bfloat16 and float8 arrays, checked against the bit-pattern explanation and the formats' specs


def test_bit_pattern_rounding_equals_ml_dtypes_bfloat16_casting() -> None:
    rng = np.random.default_rng(7)
    words = rng.integers(0, 2**32, size=200_000, dtype=np.uint64).astype(np.uint32)
    x = words.view(np.float32)
    x = x[np.isfinite(x)]
    # ties: the low 16 bits exactly 0x8000, with the kept lowest bit 0 and 1
    ties = (np.arange(1000, dtype=np.uint32) << np.uint32(16)) | np.uint32(0x8000)
    x = np.concatenate([x, ties.view(np.float32)[np.isfinite(ties.view(np.float32))]])
    expected = x.astype(ml_dtypes.bfloat16).astype(np.float32)
    ours = round_to_bfloat16(x)
    np.testing.assert_array_equal(ours.view(np.uint32)[np.isfinite(expected)],
                                  expected.view(np.uint32)[np.isfinite(expected)])
    assert np.array_equal(np.isinf(ours), np.isinf(expected))  # overflow to inf agrees too


@settings(max_examples=200, deadline=None)
@given(normal_float32, st.booleans())
def test_to_low_precision_bfloat16_is_the_bit_pattern_rounding(x: float, negative: bool) -> None:
    value = np.float32(-x if negative else x)
    if not np.isfinite(round_to_bfloat16(value)):
        return
    got = to_low_precision(value, "bfloat16")
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    assert got.astype(np.float32) == round_to_bfloat16(value)


def float8_values(fraction_bits: int, exponent_bits: int, bias: int, largest: float) -> np.ndarray:
    """Every finite non-negative value of a float8 format, from its definition."""
    values = [0.0]
    for e in range(0, 2**exponent_bits):
        for f in range(2**fraction_bits):
            if e == 0:  # subnormal: 0.f * 2**(1 - bias)
                v = f / 2**fraction_bits * 2.0 ** (1 - bias)
            else:  # normal: 1.f * 2**(e - bias)
                v = (1 + f / 2**fraction_bits) * 2.0 ** (e - bias)
            if v <= largest:
                values.append(v)
    return np.unique(values)


@pytest.mark.parametrize(
    ("name", "fraction_bits", "exponent_bits", "bias", "largest"),
    [("float8_e4m3fn", 3, 4, 7, 448.0), ("float8_e5m2", 2, 5, 15, 57344.0)],
)
def test_float8_rounds_to_the_nearest_value_of_the_format(
    name: str, fraction_bits: int, exponent_bits: int, bias: int, largest: float
) -> None:
    grid = float8_values(fraction_bits, exponent_bits, bias, largest)
    assert low_precision_limits(name) == (2.0**-fraction_bits, largest, 2.0 ** (1 - bias))
    rng = np.random.default_rng(3)
    x = rng.uniform(-largest, largest, 5000) * rng.choice([1.0, 1e-2, 1e-4], 5000)
    got = to_low_precision(x, name).astype(np.float64)
    assert np.all(np.isin(np.abs(got), grid))
    # nearest: no value of the grid is closer than the one chosen
    nearest = np.min(np.abs(np.abs(x)[:, None] - grid[None, :]), axis=1)
    np.testing.assert_allclose(np.abs(np.abs(got) - np.abs(x)), nearest, rtol=0, atol=1e-15)


def test_low_precision_overflow_is_refused() -> None:
    with pytest.raises(ValueError, match="float8_e4m3fn"):
        to_low_precision([500.0], "float8_e4m3fn")  # e4m3fn has no inf: it would be NaN
    with pytest.raises(ValueError, match="x must lie"):
        to_low_precision([1e39], "bfloat16")
    with pytest.raises(ValueError, match="dtype_name"):
        to_low_precision([1.0], "float8")
    assert low_precision_limits("bfloat16")[0] == machine_epsilon("bfloat16")


def exact_offset_score(q: np.ndarray, k: np.ndarray, offset: int, theta: np.ndarray) -> float:
    """q . R_(-offset) k in float64, with the rotation of posenc_lib.rope (the half layout)."""
    return float(q @ apply_rope(k[None, :], [-offset], theta, pairing="half")[0])


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**20), st.integers(-50, 50), st.integers(0, 2**31 - 1))
def test_float64_rope_scores_keep_the_relative_property(start: int, offset: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(2, 16))
    theta = inverse_frequencies(16, 10000.0)
    positions = np.abs(offset) + start + np.arange(8)
    scores = rope_scores_at_offset(q, k, offset, positions, theta, "float64",
                                   angle_dtype="float64")
    np.testing.assert_allclose(scores, exact_offset_score(q, k, offset, theta), atol=1e-9)


def test_bfloat16_rope_scores_depend_on_the_absolute_position_within_the_rounding_bound() -> None:
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(2, 64))
    theta = inverse_frequencies(64, 500000.0)
    positions = 2**17 + np.arange(256)
    scores = rope_scores_at_offset(q, k, 8, positions, theta, "bfloat16")
    exact = exact_offset_score(q, k, 8, theta)
    assert np.ptp(scores) > 1e-3  # no longer a function of the offset only
    # each rotated entry is off by a few bfloat16 roundings of |x|: |ds| <= c eps sum |q||k|
    bound = 8 * machine_epsilon("bfloat16") * np.linalg.norm(q) * np.linalg.norm(k)
    assert np.max(np.abs(scores - exact)) < bound
    # float32 angles: the drift grows with the position even when nothing else is rounded
    near, far = (rope_scores_at_offset(q, k, 8, start + np.arange(256), theta, "float64")
                 for start in (0, 2**20))
    assert np.ptp(near) < np.ptp(far)


def test_cached_key_scores() -> None:
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=(4, 32)), rng.normal(size=(10, 32))
    np.testing.assert_allclose(cached_key_scores(q, k, "float64"), q @ k.T, rtol=1e-12)
    for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        error = np.abs(cached_key_scores(q, k, name) - q @ k.T)
        bound = 0.5 * low_precision_limits(name)[0] * (np.abs(q) @ np.abs(k).T)
        assert np.all(error <= bound + 1e-12) and error.max() > 0
    big = 1000.0 * k
    with pytest.raises(ValueError, match="keys / scale"):
        cached_key_scores(q, big, "float8_e4m3fn")
    scale = float(np.abs(big).max()) / 448.0
    scaled = cached_key_scores(q, big, "float8_e4m3fn", scale=scale)
    assert np.all(np.abs(scaled - q @ big.T) <= 0.5 * 0.125 * (np.abs(q) @ np.abs(big).T) + 1e-9)


# --- FlashMLA's FP8 cache: e4m3 with one power-of-two scale per tile ----------------------------


def _all_e4m3_values() -> np.ndarray:
    """Every finite float8_e4m3fn value, read from its 256 bit patterns (not from a cast)."""
    values = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    return np.unique(values[np.isfinite(values)])


def test_tile_scaled_e4m3_uses_a_power_of_two_scale_per_tile_and_a_nearest_e4m3_value() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(6, 256)) * np.repeat([1.0, 300.0], 128)  # a quiet and a loud tile
    stored = tile_scaled_e4m3(x, tile=128)
    grid = _all_e4m3_values()
    for row, back in zip(x, stored, strict=True):
        for t in range(2):
            part, got = row[t * 128 : (t + 1) * 128], back[t * 128 : (t + 1) * 128]
            amax = np.abs(part).max()
            scale = 2.0 ** np.ceil(np.log2(amax / 448.0))  # smallest power of two >= amax / 448
            assert amax / 448.0 <= scale < 2 * amax / 448.0
            # each stored value is the e4m3 value nearest to x / scale, times the scale
            assert np.all(np.isin(got / scale, grid))
            distance = np.abs(grid[None, :] - (part / scale)[:, None]).min(axis=1)
            assert np.all(np.abs(got / scale - part / scale) <= distance + 1e-12)
            normal = np.abs(part / scale) >= 2.0**-6
            assert np.all(np.abs(got - part)[normal] <= np.abs(part)[normal] / 16 + 1e-15)


def test_tile_scaled_e4m3_refuses_rows_that_do_not_split_into_tiles() -> None:
    with pytest.raises(ValueError, match="multiple of tile = 128"):
        tile_scaled_e4m3(np.ones((2, 100)))

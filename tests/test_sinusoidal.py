"""Tests for posenc_lib.sinusoidal: the formula, the layouts, the numerics and the bad inputs."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib._checks import check_float_dtype
from posenc_lib.frequencies import angles, inverse_frequencies, split_permutation, wavelengths
from posenc_lib.sinusoidal import (
    encoding_from_frequencies,
    sinusoidal_encoding,
    sinusoidal_encoding_at,
    tensor2tensor_frequencies,
)
from tests.bad_values import BAD_COUNTS

even_d = st.integers(min_value=1, max_value=64).map(lambda h: 2 * h)
bases = st.floats(min_value=1.5, max_value=1e6, allow_nan=False, allow_infinity=False)


def math_loop_encoding(n: int, d: int, base: float) -> list[list[float]]:
    """The paper's formula, element by element, with the math module only."""
    rows = []
    for pos in range(n):
        row = []
        for j in range(d):
            i = j // 2
            angle = pos / math.pow(base, 2 * i / d)
            row.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
        rows.append(row)
    return rows


# ---------------------------------------------------------------- the formula


@pytest.mark.parametrize(
    ("n", "d", "base"),
    [(1, 2, 10000.0), (7, 4, 10000.0), (30, 16, 100.0), (50, 30, 10000.0), (12, 64, 500000.0)],
)
def test_encoding_matches_math_loop(n: int, d: int, base: float) -> None:
    expected = np.array(math_loop_encoding(n, d, base))
    np.testing.assert_allclose(sinusoidal_encoding(n, d, base), expected, rtol=0, atol=1e-13)


def test_worked_d4_table_published_values() -> None:
    published = np.array(
        [
            [0.0, 1.0, 0.0, 1.0],
            [0.84147098, 0.54030231, 0.00999983, 0.99995],
            [0.90929743, -0.41614684, 0.01999867, 0.99980001],
            [0.14112001, -0.9899925, 0.0299955, 0.99955003],  # position 3 (not "pos 4")
        ]
    )
    np.testing.assert_allclose(sinusoidal_encoding(4, 4), published, rtol=0, atol=1e-8)


def test_frequencies_match_math_and_exp_log_form() -> None:
    d, base = 512, 10000.0
    expected = [1.0 / math.pow(base, 2 * i / d) for i in range(d // 2)]
    np.testing.assert_allclose(inverse_frequencies(d, base), expected, rtol=1e-14)
    exp_log = [math.exp(-(2 * i / d) * math.log(base)) for i in range(d // 2)]
    np.testing.assert_allclose(inverse_frequencies(d, base), exp_log, rtol=1e-13)
    assert inverse_frequencies(d, base).dtype == np.float64
    assert inverse_frequencies(d, base).shape == (256,)


@settings(max_examples=60, deadline=None)
@given(d=even_d, base=bases)
def test_wavelengths_geometric_progression(d: int, base: float) -> None:
    lam = wavelengths(inverse_frequencies(d, base))
    assert lam.shape == (d // 2,)
    assert lam[0] == pytest.approx(2 * math.pi, rel=1e-14)
    assert lam[-1] == pytest.approx(base ** ((d - 2) / d) * 2 * math.pi, rel=1e-12)
    if d >= 4:
        np.testing.assert_allclose(lam[1:] / lam[:-1], base ** (2 / d), rtol=1e-12)


def test_angles_shape_dtype_and_values() -> None:
    theta = angles(np.array([0, 1, 5, -2]), inverse_frequencies(6, 100.0))
    assert theta.shape == (4, 3)
    assert theta.dtype == np.float64
    expected = [[p / 100.0 ** (2 * i / 6) for i in range(3)] for p in (0, 1, 5, -2)]
    np.testing.assert_allclose(theta, expected, rtol=1e-15)
    np.testing.assert_allclose(angles([0.5, 2.25], inverse_frequencies(2)), [[0.5], [2.25]])


def test_encoding_at_fractional_and_negative_positions() -> None:
    positions = [-3.5, -1.0, 0.25, 7.75]
    d, base = 8, 10000.0
    expected = [
        [
            (math.sin if j % 2 == 0 else math.cos)(p / math.pow(base, 2 * (j // 2) / d))
            for j in range(d)
        ]
        for p in positions
    ]
    np.testing.assert_allclose(sinusoidal_encoding_at(positions, d), expected, atol=1e-14)


def test_encoding_agrees_with_encoding_at() -> None:
    np.testing.assert_array_equal(
        sinusoidal_encoding(20, 10, 50.0), sinusoidal_encoding_at(np.arange(20), 10, 50.0)
    )


def test_large_input_uses_several_blocks() -> None:
    n, d = 3000, 64  # 3000 * 32 angles > one block
    enc = sinusoidal_encoding(n, d)
    t = np.arange(n, dtype=np.float64)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    np.testing.assert_allclose(enc[:, 0::2], np.sin(t * w), atol=1e-12)
    np.testing.assert_allclose(enc[:, 1::2], np.cos(t * w), atol=1e-12)


# ---------------------------------------------------------------- layouts


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), d=even_d, base=bases)
def test_concat_is_a_permutation_of_interleaved(n: int, d: int, base: float) -> None:
    inter = sinusoidal_encoding(n, d, base)
    concat = sinusoidal_encoding(n, d, base, layout="concat")
    perm = split_permutation(d)
    assert sorted(perm.tolist()) == list(range(d))
    np.testing.assert_array_equal(concat, inter[:, perm])
    np.testing.assert_array_equal(concat[:, : d // 2], inter[:, 0::2])  # all sines
    np.testing.assert_array_equal(concat[:, d // 2 :], inter[:, 1::2])  # all cosines


def test_concat_permutation_explicit() -> None:
    assert split_permutation(2).tolist() == [0, 1]
    assert split_permutation(8).tolist() == [0, 2, 4, 6, 1, 3, 5, 7]


def test_tensor2tensor_frequencies() -> None:
    for d, base in [(4, 10000.0), (128, 10000.0), (10, 7.5)]:
        w = tensor2tensor_frequencies(d, base)
        n = d // 2
        assert w.shape == (n,)
        assert w[0] == 1.0
        assert w[-1] == pytest.approx(1.0 / base, rel=1e-14)
        expected = [math.exp(-i * math.log(base) / (n - 1)) for i in range(n)]
        np.testing.assert_allclose(w, expected, rtol=1e-14)
    # the paper's slowest frequency is larger than tensor2tensor's 1/base
    assert inverse_frequencies(128)[-1] > tensor2tensor_frequencies(128)[-1]
    assert inverse_frequencies(128)[-1] == pytest.approx(10000.0 ** (-126 / 128))


def test_encoding_from_frequencies_tensor2tensor_layout() -> None:
    w = tensor2tensor_frequencies(8)
    enc = encoding_from_frequencies(np.arange(5), w, layout="concat")
    t = np.arange(5.0)[:, None]
    np.testing.assert_allclose(enc, np.hstack([np.sin(t * w), np.cos(t * w)]), atol=1e-15)


# ---------------------------------------------------------------- properties


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 60), d=even_d, base=bases, layout=st.sampled_from(["interleaved", "concat"])
)
def test_row_norm_is_sqrt_half_d(n: int, d: int, base: float, layout: str) -> None:
    enc = sinusoidal_encoding(n, d, base, layout=layout)
    np.testing.assert_allclose(np.linalg.norm(enc, axis=1), math.sqrt(d / 2), rtol=1e-13)
    assert np.all(np.abs(enc) <= 1.0)


def test_float32_at_2_pow_20_matches_float64_reference() -> None:
    d = 512
    positions = np.array([2**20, 2**20 + 1, 2**20 + 12345])
    got = sinusoidal_encoding_at(positions, d, dtype=np.float32)
    assert got.dtype == np.float32
    omega = np.array([10000.0 ** (-2 * i / d) for i in range(d // 2)])
    theta = positions.astype(np.float64)[:, None] * omega[None, :]
    reference = np.empty((3, d))
    reference[:, 0::2], reference[:, 1::2] = np.sin(theta), np.cos(theta)
    assert np.max(np.abs(got.astype(np.float64) - reference)) <= 1e-6
    # the naive float32 angle, for contrast, is far off: this is what the library avoids
    naive = np.sin(positions.astype(np.float32)[:, None] * omega.astype(np.float32)[None, :])
    assert np.max(np.abs(naive - reference[:, 0::2])) > 1e-3


@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.float64, "float32", np.dtype("float16"), "f8"]
)
def test_dtype_forms_accepted(dtype: object) -> None:
    enc = sinusoidal_encoding(5, 4, dtype=dtype)  # type: ignore[arg-type]
    assert enc.dtype == np.dtype(dtype)  # type: ignore[call-overload]
    np.testing.assert_allclose(enc, sinusoidal_encoding(5, 4), atol=float(np.finfo(enc.dtype).eps))


def test_peak_memory_is_bounded() -> None:
    n, d = 4000, 256
    tracemalloc.start()
    try:
        out = sinusoidal_encoding(n, d, dtype=np.float32)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= 2 * out.nbytes


def test_deterministic() -> None:
    np.testing.assert_array_equal(sinusoidal_encoding(33, 12), sinusoidal_encoding(33, 12))


# ---------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(("value", "error"), BAD_COUNTS)
def test_bad_n_positions(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="n_positions"):
        sinusoidal_encoding(value, 4)  # type: ignore[arg-type]


BAD_D = [
    (3, ValueError),
    (0, ValueError),
    (-2, ValueError),
    (4.0, TypeError),
    (True, TypeError),
    ("8", TypeError),
]


@pytest.mark.parametrize(("value", "error"), BAD_D)
def test_bad_d_model_everywhere(value: object, error: type[Exception]) -> None:
    calls = [
        (lambda: inverse_frequencies(value), "dim"),  # type: ignore[arg-type]
        (lambda: split_permutation(value), "dim"),  # type: ignore[arg-type]
        (lambda: sinusoidal_encoding(3, value), "d_model"),  # type: ignore[arg-type]
        (lambda: sinusoidal_encoding_at([0, 1], value), "d_model"),  # type: ignore[arg-type]
        (lambda: tensor2tensor_frequencies(value), "d_model"),  # type: ignore[arg-type]
    ]
    for call, name in calls:
        with pytest.raises(error, match=name):
            call()


def test_tensor2tensor_needs_two_timescales() -> None:
    with pytest.raises(ValueError, match="d_model"):
        tensor2tensor_frequencies(2)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (1.0, ValueError),
        (0.5, ValueError),
        (-10.0, ValueError),
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (True, TypeError),
        ("10000", TypeError),
    ],
)
def test_bad_base_everywhere(value: object, error: type[Exception]) -> None:
    calls = [
        lambda: inverse_frequencies(4, value),  # type: ignore[arg-type]
        lambda: sinusoidal_encoding(3, 4, value),  # type: ignore[arg-type]
        lambda: sinusoidal_encoding_at([0], 4, value),  # type: ignore[arg-type]
        lambda: tensor2tensor_frequencies(4, value),  # type: ignore[arg-type]
    ]
    for call in calls:
        with pytest.raises(error, match="base"):
            call()


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ([0.0, float("nan")], ValueError),
        ([float("inf")], ValueError),
        ([[0, 1]], ValueError),
        (3, ValueError),
        ([True, False], TypeError),
        (["a"], TypeError),
        ([1 + 2j], TypeError),
    ],
)
def test_bad_positions(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="positions"):
        angles(value, [1.0, 0.01])
    with pytest.raises(error, match="positions"):
        sinusoidal_encoding_at(value, 4)
    with pytest.raises(error, match="positions"):
        encoding_from_frequencies(value, [1.0])


def test_bad_inv_freq() -> None:
    with pytest.raises(ValueError, match="inv_freq"):
        encoding_from_frequencies([0, 1], [1.0, float("nan")])
    with pytest.raises(ValueError, match="inv_freq"):
        encoding_from_frequencies([0, 1], [[1.0]])


@pytest.mark.parametrize("value", ["Interleaved", "split", "", None, 1])
def test_bad_layout(value: object) -> None:
    with pytest.raises(ValueError, match="layout"):
        sinusoidal_encoding(3, 4, layout=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="layout"):
        sinusoidal_encoding_at([0], 4, layout=value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value", ["int32", np.int64, np.complex64, "bfloat16", "nonsense", None, True, 32, 1.5, bool]
)
def test_bad_dtype(value: object) -> None:
    with pytest.raises(TypeError, match="dtype"):
        sinusoidal_encoding(3, 4, dtype=value)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="dtype"):
        sinusoidal_encoding_at([0], 4, dtype=value)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="dtype"):
        check_float_dtype("dtype", value)


def test_overflowing_angles_are_rejected() -> None:
    with pytest.raises(ValueError, match="positions \\* inv_freq"):
        encoding_from_frequencies([1e308], [10.0])
    # the course frequencies are <= 1, so any finite position gives finite angles
    assert np.isfinite(sinusoidal_encoding_at([1.7e308], 4)).all()

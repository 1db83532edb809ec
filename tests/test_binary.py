"""Tests for posenc_lib.binary: tables, periods, waves, Hamming distances and bad inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib.binary import (
    binary_table,
    bit_periods,
    bit_wave,
    bits_needed,
    hamming_distance,
    hamming_matrix,
    smooth_bit_wave,
)
from tests.bad_values import BAD_COUNTS

# ---------------------------------------------------------------- the table


@pytest.mark.parametrize("n", [1, 2, 3, 8, 16, 17, 100, 1025])
def test_table_matches_python_format(n: int) -> None:
    table = binary_table(n)
    n_bits = max(1, len(format(n - 1, "b")))
    assert table.shape == (n, n_bits)
    for p in range(n):
        assert "".join(map(str, table[p])) == format(p, f"0{n_bits}b")


def test_table_with_explicit_bits() -> None:
    table = binary_table(16, 6)
    assert table.shape == (16, 6)
    for p in range(16):
        assert "".join(map(str, table[p])) == format(p, "06b")
    assert binary_table(6, 4)[5].tolist() == [0, 1, 0, 1]  # 5 -> 0101, MSB first


def test_default_bits() -> None:
    assert binary_table(1).shape == (1, 1)
    assert binary_table(2).shape == (2, 1)
    assert binary_table(16).shape == (16, 4)
    assert binary_table(17).shape == (17, 5)
    assert [bits_needed(n) for n in (1, 2, 3, 4, 5, 256, 257)] == [1, 1, 2, 2, 3, 8, 9]


def test_too_few_bits() -> None:
    with pytest.raises(ValueError, match="n_bits"):
        binary_table(17, 4)
    binary_table(16, 4)  # exactly enough


# ---------------------------------------------------------------- periods


@pytest.mark.parametrize("n_bits", [1, 2, 4, 6])
def test_periods_by_counting_flips(n_bits: int) -> None:
    # two full counting cycles (counting wraps around at 2**n_bits)
    table = np.tile(binary_table(2**n_bits, n_bits), (2, 1))
    periods = bit_periods(n_bits)
    assert periods.shape == (n_bits,)
    for j in range(n_bits):
        column = table[:, j]
        flips = np.flatnonzero(np.diff(column))
        spacing = np.unique(np.diff(flips))
        assert spacing.tolist() == [periods[j] // 2]  # flips every half-period
        smallest = next(
            t for t in range(1, 2**n_bits + 1) if np.array_equal(column[t:], column[:-t])
        )
        assert smallest == periods[j]


def test_periods_written_order() -> None:
    assert bit_periods(4).tolist() == [16, 8, 4, 2]
    assert bit_periods(1).tolist() == [2]


# ---------------------------------------------------------------- waves


def test_bit_wave_equals_table_at_integers() -> None:
    n_bits = 6
    table = binary_table(2**n_bits, n_bits)
    positions = np.arange(2**n_bits)
    for j in range(n_bits):
        k = n_bits - 1 - j
        np.testing.assert_array_equal(bit_wave(positions, k), table[:, j])


def test_bit_wave_fractional_and_negative() -> None:
    np.testing.assert_array_equal(bit_wave([0.0, 0.99, 1.0, 1.5, 2.0], 0), [0, 0, 1, 1, 0])
    np.testing.assert_array_equal(bit_wave([3.99, 4.0, 7.999, 8.0], 2), [0, 1, 1, 0])
    np.testing.assert_array_equal(bit_wave([-1.0, -2.0, -0.5], 0), [1, 0, 1])  # periodic extension


@settings(max_examples=80, deadline=None)
@given(x=st.floats(-1000, 1000), k=st.integers(0, 8))
def test_smooth_wave_period_and_range(x: float, k: int) -> None:
    period = 2.0 ** (k + 1)
    value = smooth_bit_wave([x], k)[0]
    assert 0.0 <= value <= 1.0
    assert smooth_bit_wave([x + period], k)[0] == pytest.approx(value, abs=1e-9)
    # half a period later the wave is mirrored, so the period is not shorter than 2**(k+1)
    assert smooth_bit_wave([x + period / 2], k)[0] == pytest.approx(1.0 - value, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(sixty_fourths=st.integers(-64_000, 64_000), k=st.integers(0, 8))
def test_bit_wave_period(sixty_fourths: int, k: int) -> None:
    x = sixty_fourths / 64  # exact in binary, so x + period is exact too
    period = 2.0 ** (k + 1)
    assert bit_wave([x + period], k)[0] == bit_wave([x], k)[0]


def test_smooth_wave_rounds_to_the_bit_at_every_integer() -> None:
    positions = np.arange(-64, 256)
    for k in range(8):
        smooth = smooth_bit_wave(positions, k)
        assert np.all(np.abs(smooth - 0.5) > 1e-3)  # never ambiguous
        expected = (positions >> k) & 1  # arithmetic shift: floor division for negatives too
        np.testing.assert_array_equal(np.round(smooth), expected)


def test_smooth_wave_extremes_sit_in_the_middle_of_each_run() -> None:
    k = 3  # zeros at 0..7 (centre 3.5), ones at 8..15 (centre 11.5)
    np.testing.assert_allclose(smooth_bit_wave([3.5, 11.5], k), [0.0, 1.0], atol=1e-15)


# ---------------------------------------------------------------- Hamming


def test_hamming_published_examples() -> None:
    assert hamming_distance(7, 8) == 4
    assert hamming_distance(7, 6) == 1
    assert hamming_distance(0, 0) == 0
    assert hamming_distance(2**40, 0) == 1


def test_hamming_matrix_against_table_and_scalar() -> None:
    n = 40
    table = binary_table(n)
    matrix = hamming_matrix(n)
    assert matrix.shape == (n, n)
    for a in range(n):
        for b in range(n):
            assert matrix[a, b] == np.sum(table[a] != table[b]) == hamming_distance(a, b)
    np.testing.assert_array_equal(matrix, matrix.T)
    assert np.all(np.diag(matrix) == 0)
    assert hamming_matrix(1).tolist() == [[0]]


# ---------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(("value", "error"), BAD_COUNTS)
def test_bad_sizes(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="n_positions"):
        binary_table(value)  # type: ignore[arg-type]
    with pytest.raises(error, match="n_positions"):
        hamming_matrix(value)  # type: ignore[arg-type]
    with pytest.raises(error, match="n_positions"):
        bits_needed(value)  # type: ignore[arg-type]
    if value is not None:
        with pytest.raises(error, match="n_bits"):
            binary_table(4, value)  # type: ignore[arg-type]
        with pytest.raises(error, match="n_bits"):
            bit_periods(value)  # type: ignore[arg-type]


def test_bits_upper_limits() -> None:
    with pytest.raises(ValueError, match="n_bits"):
        binary_table(4, 63)
    with pytest.raises(ValueError, match="n_bits"):
        bit_periods(62)
    with pytest.raises(ValueError, match="bit"):
        bit_wave([0], 63)


@pytest.mark.parametrize(
    ("value", "error"),
    [(-1, ValueError), (1.0, TypeError), (True, TypeError), ("0", TypeError), (None, TypeError)],
)
def test_bad_bit(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="bit"):
        bit_wave([0, 1], value)  # type: ignore[arg-type]
    with pytest.raises(error, match="bit"):
        smooth_bit_wave([0, 1], value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ([float("nan")], ValueError),
        ([float("inf")], ValueError),
        ([[0, 1]], ValueError),
        ([True], TypeError),
        (["x"], TypeError),
    ],
)
def test_bad_positions(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="positions"):
        bit_wave(value, 0)
    with pytest.raises(error, match="positions"):
        smooth_bit_wave(value, 0)


@pytest.mark.parametrize(
    ("value", "error"), [(-1, ValueError), (7.0, TypeError), (True, TypeError), ("7", TypeError)]
)
def test_bad_hamming_arguments(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="a must"):
        hamming_distance(value, 3)  # type: ignore[arg-type]
    with pytest.raises(error, match="b must"):
        hamming_distance(3, value)  # type: ignore[arg-type]


def test_smooth_wave_rejects_overflowing_phase() -> None:
    with pytest.raises(ValueError, match="positions"):
        smooth_bit_wave([1.7e308], 0)

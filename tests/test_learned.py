"""The learned-table demo: a lookup with an end, and training that never reaches unseen rows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib.learned import PositionOutOfTable, fit_learned_table, learned_lookup, learned_table


def test_learned_table_has_the_asked_shape_and_spread() -> None:
    table = learned_table(1024, 768)
    assert table.shape == (1024, 768)
    # 786432 normal draws: the sample std is within 1% of 0.02, the mean near 0
    assert abs(table.std() - 0.02) < 2e-4
    assert abs(table.mean()) < 1e-4


def test_learned_table_depends_on_the_seed_only() -> None:
    np.testing.assert_array_equal(learned_table(8, 4, seed=3), learned_table(8, 4, seed=3))
    assert not np.allclose(learned_table(8, 4, seed=3), learned_table(8, 4, seed=4))


def test_lookup_returns_the_rows_of_the_positions() -> None:
    table = np.arange(20.0).reshape(5, 4)
    np.testing.assert_array_equal(learned_lookup(table, [4, 0, 4]), table[[4, 0, 4]])


@pytest.mark.parametrize("position", [5, 6, 1000, -1])
def test_lookup_past_the_table_raises_a_clear_error(position: int) -> None:
    table = np.zeros((5, 4))
    with pytest.raises(PositionOutOfTable, match=f"position {position} has no row") as info:
        learned_lookup(table, [0, position])
    assert "5 rows (positions 0..4)" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_lookup_rejects_bad_input() -> None:
    with pytest.raises(TypeError, match="positions"):
        learned_lookup(np.zeros((5, 4)), [1.0, 2.0])
    with pytest.raises(ValueError, match="positions"):
        learned_lookup(np.zeros((5, 4)), [[1]])
    with pytest.raises(ValueError, match="table"):
        learned_lookup(np.zeros(5), [1])
    with pytest.raises(ValueError, match="table"):
        learned_lookup(np.zeros((0, 4)), [0])


@given(rows=st.integers(4, 40), width=st.integers(1, 8), seed=st.integers(0, 100))
@settings(max_examples=40, deadline=None)
def test_training_fits_the_seen_rows_and_never_moves_the_others(
    rows: int, width: int, seed: int
) -> None:
    start = learned_table(rows, width, seed=seed)
    readout = np.random.default_rng(seed + 1).normal(size=width)
    readout /= np.linalg.norm(readout)
    length = max(2, rows // 2)
    trained, losses = fit_learned_table(start, readout, length, steps=60, learning_rate=0.25)
    # each trained row's residual halves every step: (1 - 2 eta |w|^2) = 0.5
    np.testing.assert_allclose(trained[:length] @ readout, np.linspace(0, 1, length), atol=1e-9)
    np.testing.assert_array_equal(trained[length:], start[length:])
    assert np.all(np.diff(losses) <= 1e-15)
    np.testing.assert_array_equal(start, learned_table(rows, width, seed=seed))  # not modified


def test_training_loss_follows_the_closed_form_decay() -> None:
    start = learned_table(10, 3, seed=0)
    w = np.array([0.6, 0.8, 0.0])  # |w| = 1
    _, losses = fit_learned_table(start, w, 6, steps=5, learning_rate=0.125)
    # r <- (1 - 2 eta |w|^2) r = 0.75 r, so the squared loss shrinks by 0.5625 per step
    np.testing.assert_allclose(losses[1:] / losses[:-1], 0.5625, rtol=1e-9)


def test_fit_rejects_bad_input() -> None:
    table = np.zeros((6, 2))
    with pytest.raises(ValueError, match="readout"):
        fit_learned_table(table, [0.0, 0.0], 3)
    with pytest.raises(ValueError, match="readout"):
        fit_learned_table(table, [1.0, 0.0, 0.0], 3)
    with pytest.raises(ValueError, match="trained_length"):
        fit_learned_table(table, [1.0, 0.0], 7)
    with pytest.raises(ValueError, match="trained_length"):
        fit_learned_table(table, [1.0, 0.0], 1)
    with pytest.raises(ValueError, match="learning_rate"):
        fit_learned_table(table, [1.0, 0.0], 3, learning_rate=1.0)
    with pytest.raises(ValueError, match="learning_rate"):
        fit_learned_table(table, [1.0, 0.0], 3, learning_rate=0.0)
    with pytest.raises(ValueError, match="steps"):
        fit_learned_table(table, [1.0, 0.0], 3, steps=0)
    with pytest.raises(ValueError, match="overflowed"):
        fit_learned_table(np.full((6, 2), 1.5e308), [0.7, 0.7], 3, learning_rate=0.25)


def test_learned_table_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="max_positions"):
        learned_table(0, 4)
    with pytest.raises(TypeError, match="d_model"):
        learned_table(4, 4.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        learned_table(4, 4, seed=-1)

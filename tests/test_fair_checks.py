"""Fair checks: a forbidden shortcut is recognised by the call it makes, never by a learner's own
name or by a number that only looks like the answer.

Issue 26 lists right answers the checks used to refuse; each must pass here, in a simulated
kernel whose history holds the learner's cells, while the forbidden calls stay refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from posenc_lib.exercises import _core, all_exercises
from posenc_lib.shift import shift_matrix
from posenc_lib.sinusoidal import sinusoidal_encoding_at

EXERCISES = all_exercises()


class FakeShell:
    """What the checks read from IPython: the namespace, with the cell history under ``In``."""

    def __init__(self, cells: list[str], namespace: dict[str, Any]) -> None:
        self.user_ns = {"In": ["", *cells], **namespace}


def run_cells(cells: list[str]) -> dict[str, Any]:
    """Execute ``cells`` in order in a fresh namespace, as a kernel would (``__main__``)."""
    namespace: dict[str, Any] = {"__name__": "__main__", "np": np}
    for cell in cells:
        exec(compile(cell, "<cell>", "exec"), namespace)
    return namespace


def check_in_kernel(
    key: str, cells: list[str], monkeypatch: pytest.MonkeyPatch
) -> _core.CheckResult:
    """Run ``cells``, then check the answer they define as the notebook's check cell would."""
    exercise = EXERCISES[key]
    namespace = run_cells(cells)
    shell = FakeShell(cells, namespace)
    monkeypatch.setattr(_core, "_shell", lambda: shell)
    monkeypatch.setattr(_core, "record_pass", lambda key: None)  # a test's pass is no progress
    return exercise.check(namespace[exercise.answer_name])


FLOAT16_OWN_NAME = """\
largest_float16 = 65504.0
powers = 500000.0 ** (np.arange(0, 128, 2) / 128)
n_lost = int(np.sum(powers > largest_float16))
"""

SHIFT_BY_OFFSET = """\
from posenc_lib.shift import shift_matrix
from posenc_lib.sinusoidal import sinusoidal_encoding_at
pe_20 = sinusoidal_encoding_at([20], 24)[0]
back = shift_matrix(13 - 20, 24) @ pe_20
"""

OWN_SOFTMAX = """\
def softmax(scores):
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)
"""

SELF_WEIGHT = "self_weight = float(softmax(-0.25 * np.arange(10))[0])\n"

LOCAL_HEADS = """\
from posenc_lib.bias import alibi_slopes
slopes = np.asarray(alibi_slopes(12))
weights = softmax(-np.outer(slopes, np.arange(512)))
local_heads = {int(h) + 1 for h in np.flatnonzero(weights[:, :10].sum(axis=1) > 0.5)}
"""


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
def test_a_learner_name_holding_float16_is_not_float16_arithmetic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    result = check_in_kernel("02.float16_lost_pairs", [FLOAT16_OWN_NAME], monkeypatch)
    assert result.passed, result.message
    cast = FLOAT16_OWN_NAME.replace(
        "powers > largest_float16", "np.isinf(powers.astype(np.float16))"
    )
    refused = check_in_kernel("02.float16_lost_pairs", [cast], monkeypatch)
    assert not refused.passed and "float16 arithmetic" in refused.message


def test_shift_by_thirteen_minus_twenty_is_a_shift(monkeypatch: pytest.MonkeyPatch) -> None:
    assert np.allclose(
        shift_matrix(13 - 20, 24) @ sinusoidal_encoding_at([20], 24)[0],
        sinusoidal_encoding_at([13], 24)[0],
    )
    result = check_in_kernel("04.shift_back", [SHIFT_BY_OFFSET], monkeypatch)
    assert result.passed, result.message
    for shortcut in ("sinusoidal_encoding_at([13], 24)[0]", "pe_table[13]", "13 * theta"):
        code = SHIFT_BY_OFFSET.replace("shift_matrix(13 - 20, 24) @ pe_20", shortcut)
        assert EXERCISES["04.shift_back"].shortcut_used(None, cell=code) is not None, shortcut


@pytest.mark.parametrize(
    ("key", "answer_cell"),
    [("07.alibi_self_weight", SELF_WEIGHT), ("07.alibi_local_heads", LOCAL_HEADS)],
)
@pytest.mark.parametrize("same_cell", [True, False], ids=["same cell", "earlier cell"])
def test_a_learner_own_softmax_is_not_the_library(
    key: str, answer_cell: str, same_cell: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    cells = [OWN_SOFTMAX + answer_cell] if same_cell else [OWN_SOFTMAX, answer_cell]
    result = check_in_kernel(key, cells, monkeypatch)
    assert result.passed, result.message


@pytest.mark.parametrize("key", ["07.alibi_self_weight", "07.alibi_local_heads"])
def test_the_library_softmax_stays_refused(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    imported = "from posenc_lib.attention import softmax\n"
    answer = SELF_WEIGHT if key == "07.alibi_self_weight" else LOCAL_HEADS
    result = check_in_kernel(key, [imported, answer], monkeypatch)
    assert not result.passed and "attention functions" in result.message
    renamed = "from posenc_lib.attention import softmax as my_softmax\n"
    cell = renamed + answer.replace("softmax(", "my_softmax(")
    result = check_in_kernel(key, [cell], monkeypatch)
    assert not result.passed and "attention functions" in result.message

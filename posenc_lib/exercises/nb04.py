"""Exercises on the proof that a shift by k positions is a rotation: the matrix for another
pair order, shifting back, composing shifts in row form, a head that looks forward, and a shift
of the sines that takes its missing cosine from the previous token.

Notebook: 04_rotation_proof.
"""

from __future__ import annotations

import numpy as np

from posenc_lib.exercises import _steps04 as steps  # the build steps: nb04.steps.<name>
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut, while_posed
from posenc_lib.exercises._data import HIDDEN_DATA
from posenc_lib.exercises._property import PropertyExercise
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.shift import shift_matrix
from posenc_lib.sinusoidal import sinusoidal_encoding, sinusoidal_encoding_at

__all__ = ["shift_back", "concat_shift", "row_form_position", "forward_head", "previous_sines",
           "steps"]

_MATRIX_FUNCTIONS = r"\b(pair_shift_matrix|rotation_matrix|shift_matrix|rope_matrix)\b"

_BACK = {"known": 20, "target": 13, "back": 7, "forward": 27}
"""04.shift_back: the position given, the position asked, the offset back between them, and the
position as far forward."""

shift_back = Exercise(
    key="04.shift_back", answer_name="back", level="warm-up", kind="derivation", minutes=5,
    params=_BACK,
    mistakes=(
        Mistake("a shift forward: M_{back} PE({known}) is PE({forward})",
                lambda: sinusoidal_encoding_at([_BACK["forward"]], 24)[0]),
        Mistake("a shift by the target position -{target} instead of the offset -{back} (that is "
                "PE({back}))", lambda: sinusoidal_encoding_at([_BACK["back"]], 24)[0]),
    ),
    shortcuts=(
        Shortcut("PE({target}) itself (row {target}, the formula at {target} or a table from "
                 "sinusoidal_encoding; shift PE({known}) instead)",
                 r"\[\s*{target}(?:\.0*)?\s*[\],]|\b{target}(?:\.0*)?\s*\*|\*\s*{target}\b"
                 r"|\b{known}\s*-\s*{back}\b|\bsinusoidal_encoding\s*\(",
                 "back = sinusoidal_encoding_at([{target}], 24)[0]"),
    ),
)


_CONCAT_D = 8
_CONCAT = {"k": 3}
"""04.concat_shift: the shift k of the [sines | cosines] matrix (d_model = 8)."""


def _concat_exponent_slip() -> np.ndarray:
    """The [sines | cosines] shift matrix with theta_i = 10000^(-i/d), the exponent's slip."""
    angle = _CONCAT["k"] * 10000.0 ** (-np.arange(_CONCAT_D // 2) / _CONCAT_D)
    c, s = np.diag(np.cos(angle)), np.diag(np.sin(angle))
    return np.block([[c, s], [-s, c]])


concat_shift = Exercise(
    key="04.concat_shift", answer_name="m", level="core", kind="construction", minutes=10,
    params=_CONCAT,
    mistakes=(
        Mistake("the course's block-diagonal M_k, built for the interleaved layout; here sin and "
                "cos of a pair sit d/2 apart", lambda: shift_matrix(_CONCAT["k"], _CONCAT_D)),
        Mistake("the sines' signs swapped: that is M_(-k), the shift backwards (or the (cos, sin) "
                "order's signs)", lambda right: np.asarray(right).T, from_answer=True),
        Mistake("the exponent i/d instead of 2i/d", _concat_exponent_slip),
    ),
    shortcuts=(
        Shortcut("the library's matrices (pair_shift_matrix, rotation_matrix, shift_matrix; "
                 "derive the matrix from the angle-addition formulas)", _MATRIX_FUNCTIONS,
                 "m = shift_matrix(3, 8)[np.ix_(order, order)]"),
    ),
)


_ROW_FORM = {"start": 50, "a": 6, "b": 4}
"""04.row_form_position: the row PE(start), multiplied on the right by M_a, M_a and M_b^T."""


row_form_position = Exercise(
    key="04.row_form_position", answer_name="position", level="core", kind="prediction", minutes=10,
    params=_ROW_FORM,
    mistakes=(
        Mistake("row form read like column form (x @ M_k taken as a shift forward)",
                lambda: _ROW_FORM["start"] + 2 * _ROW_FORM["a"] - _ROW_FORM["b"]),
        Mistake("the transpose ignored (M_{b}^T read as a shift back)",
                lambda: _ROW_FORM["start"] - 2 * _ROW_FORM["a"] - _ROW_FORM["b"]),
    ),
    shortcuts=(
        Shortcut("code that computes the product (@, shift_matrix, argmin, norm; predict it on "
                 "paper, then run the cell after the check)",
                 r"@|\bshift_matrix\b|\bargmin\b|\bnorm\s*\(",
                 "position = int(np.argmin(np.linalg.norm(table - vector, axis=1)))"),
    ),
)

_HEAD_POSITIONS = 64  # queries i = 0 .. 63 - ahead must peak at key i + ahead among keys 0 .. 63
_AHEAD = {"ahead": 4}
"""04.forward_head: how many tokens forward every query attends."""


def _peaks(w: np.ndarray) -> np.ndarray:
    """For each query i with a key i + ahead, the key j where x_i W x_j^T is largest (x = PE
    rows)."""
    x = sinusoidal_encoding(_HEAD_POSITIONS, 32)
    scores = x @ w @ x.T  # scores[i, j] = x_i W x_j^T, no mask
    return np.argmax(scores[: _HEAD_POSITIONS - _AHEAD["ahead"]], axis=1)


def _judge_forward_head(answer: object) -> tuple[bool, str]:
    """Whether every query's score peaks exactly ``ahead`` keys ahead, and where it peaks if
    not."""
    ahead = _AHEAD["ahead"]
    try:
        w = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return False, f"Expected a 32 x 32 matrix of numbers; got {type(answer).__name__}."
    if w.shape != (32, 32):
        return False, f"Expected a 32 x 32 matrix; got shape {w.shape}."
    if not np.all(np.isfinite(w)):
        return False, "Your matrix contains NaN or inf."
    offsets = _peaks(w) - np.arange(_HEAD_POSITIONS - ahead)
    if np.all(offsets == ahead):
        return True, (
            f"For every query i = 0 .. {_HEAD_POSITIONS - ahead - 1} the score x_i W x_j^T "
            f"peaks at j = i + {ahead} (any matrix with this property passes)."
        )
    wrong = int(np.flatnonzero(offsets != ahead)[0])
    common = int(np.bincount(offsets - offsets.min()).argmax() + offsets.min())
    return False, (
        f"The scores of query {wrong} peak at j = {wrong + int(offsets[wrong])}, not at "
        f"j = {wrong + ahead}; most queries peak at j = i {'+' if common >= 0 else '-'} "
        f"{abs(common)}."
    )


forward_head = PropertyExercise(
    key="04.forward_head", answer_name="w_forward", level="core", kind="construction", minutes=10,
    params=_AHEAD,
    judge=_judge_forward_head,
    mistakes=(
        Mistake("M_{ahead}, the matrix of a head that looks {ahead} tokens back",
                lambda: shift_matrix(_AHEAD["ahead"], 32)),
        Mistake("the identity: every token attends to itself", lambda: np.eye(32)),
        Mistake("a negative scale, -M_(-{ahead}): the score is then smallest, not largest, at "
                "j = i + {ahead}", lambda: -shift_matrix(-_AHEAD["ahead"], 32)),
    ),
)

_SHIFT = {"k": 5, "before": 4}
"""04.previous_sines: the shift k, and k - 1 (a known mistake shifts by it)."""


def _stored_shift() -> np.ndarray:
    """The map of a shift by k - 1, stored for the notebook's k."""
    return np.array(HIDDEN_DATA["04.previous_sines"]).reshape(8, 16)


previous_sines = Exercise(
    key="04.previous_sines", answer_name="w_two", level="challenge", kind="construction",
    minutes=20, atol=1e-6,  # the fit behind the expected map is good to about 1e-8
    params=_SHIFT,
    mistakes=(
        Mistake("the cosine's coefficients reused, [cos {k}w | sin {k}w]: the previous token's "
                "sine is not the cosine",
                lambda: np.hstack([np.diag(trig(_SHIFT["k"] * inverse_frequencies(16)))
                                   for trig in (np.cos, np.sin)])),
        Mistake("the sign of the second block flipped: sin w(t-1) enters with -sin({k}w) / sin w",
                lambda right: np.hstack([right[:, :8], -right[:, 8:]]), from_answer=True),
        Mistake("a shift by {before} instead of {k} (k + 1 and k swapped)",
                while_posed(_SHIFT, _stored_shift)),
    ),
    shortcuts=(
        Shortcut("a least-squares fit (fit_linear_map, lstsq, pinv; derive the coefficients from "
                 "the angle-addition formulas)", r"\bfit_linear_map\b|\blstsq\b|\bpinv\b",
                 "w_two, _ = fit_linear_map(np.hstack([now, before]), later)"),
    ),
)

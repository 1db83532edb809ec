"""Exercises on the proof that a shift by k positions is a rotation: the matrix for another
pair order, shifting back, composing shifts in row form, a head that looks forward, and why a
rotation needs both coordinates.

Notebook: 04_rotation_proof.

Each expected answer is computed here with posenc_lib; the worked solutions are only in the
notebook's solution cells.
"""

from __future__ import annotations

import numpy as np

from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.shift import fit_linear_map, pair_shift_matrix, rotation_matrix, shift_matrix
from posenc_lib.sinusoidal import sinusoidal_encoding, sinusoidal_encoding_at

__all__ = ["shift_back", "cos_sin_matrix", "row_form_position", "forward_head", "cosine_only"]

_MATRIX_FUNCTIONS = r"\b(pair_shift_matrix|rotation_matrix|shift_matrix|rope_matrix)\b"

# --------------------------------------------------------------------------- 04.shift_back

shift_back = Exercise(
    key="04.shift_back",
    title="PE(13) from PE(20) at d_model = 24, with a shift matrix",
    answer_name="back",
    expected=lambda: sinusoidal_encoding_at([13], 24)[0],
    hint_text=(
        "Going from position 20 to position 13 is a shift by k = -7. shift_matrix(k, d_model) "
        "accepts negative k, and M_(-k) is also the transpose of M_k."
    ),
    level="warm-up",
    kind="derivation",
    objective="Uses M_(-k) = M_k^T to move an encoding vector back by k positions.",
    minutes=5,
    mistakes=(
        Mistake(
            "a shift forward: M_7 PE(20) is PE(27)",
            lambda: sinusoidal_encoding_at([27], 24)[0],
        ),
        Mistake(
            "a shift by the target position -13 instead of the offset -7 (that is PE(7))",
            lambda: sinusoidal_encoding_at([7], 24)[0],
        ),
    ),
    shortcuts=(
        Shortcut(
            "PE(13) itself (row 13, the formula at 13 or a table from sinusoidal_encoding; shift "
            "PE(20) instead)",
            r"\[\s*13(?:\.0*)?\s*[\],]|\b13(?:\.0*)?\s*\*|\*\s*13\b|\b20\s*-\s*7\b"
            r"|\bsinusoidal_encoding\s*\(",
            "back = sinusoidal_encoding_at([13], 24)[0]",
        ),
    ),
)

# --------------------------------------------------------------------------- 04.cos_sin_matrix


def _theta(i: int, d_model: int) -> float:
    return float(inverse_frequencies(d_model)[i])


cos_sin_matrix = Exercise(
    key="04.cos_sin_matrix",
    title="M_k for a pair stored as (cos, sin): k = 4, theta = theta_5 of d_model = 32",
    answer_name="m",
    # (cos wt, sin wt) -> (cos w(t+k), sin w(t+k)) is the counter-clockwise rotation by +wk
    expected=lambda: rotation_matrix(4 * _theta(5, 32)),
    hint_text=(
        "Write the targets with the angle-addition formulas: cos w(t+k) = cos(wk) cos(wt) - "
        "sin(wk) sin(wt) and sin w(t+k) = sin(wk) cos(wt) + cos(wk) sin(wt). The first row of "
        "M multiplies the column (cos wt, sin wt) and must give cos w(t+k). The frequency is "
        "theta_5 = 10000 ** (-2 * 5 / 32)."
    ),
    level="core",
    kind="construction",
    objective="Re-derives the shift matrix from the angle-addition formulas for the (cos, sin) "
    "pair order, and sees that it is the course's matrix transposed.",
    minutes=10,
    mistakes=(
        Mistake(
            "the course's matrix for (sin, cos) pairs, [[cos, sin], [-sin, cos]]; with the "
            "order swapped the sines change sign",
            lambda: pair_shift_matrix(4, _theta(5, 32)),
        ),
        Mistake(
            "the exponent 5/32 instead of 2*5/32",
            lambda: rotation_matrix(4 * 10000.0 ** (-5 / 32)),
        ),
        Mistake(
            "theta_5 counted from 1 (that is theta_4)",
            lambda: rotation_matrix(4 * _theta(4, 32)),
        ),
    ),
    shortcuts=(
        Shortcut(
            "the library's matrices (pair_shift_matrix, rotation_matrix, shift_matrix; derive the "
            "matrix from the angle-addition formulas)",
            _MATRIX_FUNCTIONS,
            "m = rotation_matrix(4 * theta)",
        ),
    ),
)

# --------------------------------------------------------------------------- 04.row_form_position


def _nearest_position(vector: np.ndarray, d_model: int, n_positions: int) -> int:
    table = sinusoidal_encoding(n_positions, d_model)
    return int(np.argmin(np.linalg.norm(table - vector, axis=1)))


def _row_form_vector() -> np.ndarray:
    """The vector of the exercise: PE(50) multiplied on the right by M_6, M_6 and M_4^T."""
    pe_50 = sinusoidal_encoding_at([50], 16)[0]
    return pe_50 @ shift_matrix(6, 16) @ shift_matrix(6, 16) @ shift_matrix(4, 16).T


row_form_position = Exercise(
    key="04.row_form_position",
    title="Which position does PE(50) @ M_6 @ M_6 @ M_4.T encode?",
    answer_name="position",
    expected=lambda: _nearest_position(_row_form_vector(), 16, 128),
    hint_text=(
        "In row form, x @ M_k is (M_k^T x^T)^T = (M_(-k) x^T)^T: multiplying a row on the right "
        "by M_k shifts it back by k. And M_k^T = M_(-k). Add up the shifts."
    ),
    level="core",
    kind="prediction",
    objective="Predicts the net shift of a product of shift matrices in row form, using "
    "M_a M_b = M_(a+b) and M_k^T = M_(-k).",
    minutes=10,
    mistakes=(
        Mistake(
            "row form read like column form (x @ M_k taken as a shift forward)",
            lambda: 50 + 6 + 6 - 4,
        ),
        Mistake("the transpose ignored (M_4^T read as a shift back)", lambda: 50 - 6 - 6 - 4),
    ),
    shortcuts=(
        Shortcut(
            "code that computes the product (@, shift_matrix, argmin, norm; predict it on paper, "
            "then run the cell after the check)",
            r"@|\bshift_matrix\b|\bargmin\b|\bnorm\s*\(",
            "position = int(np.argmin(np.linalg.norm(table - vector, axis=1)))",
        ),
    ),
)

# --------------------------------------------------------------------------- 04.forward_head

forward_head = Exercise(
    key="04.forward_head",
    title="W_q W_k^T (beta = 1, d_model = 32) for a head that attends 4 tokens forward",
    answer_name="w_forward",
    # x_i M_(-4) = PE(i + 4), so the score x_i W x_j peaks at j = i + 4
    expected=lambda: shift_matrix(-4, 32),
    hint_text=(
        "In the notebook, W_q W_k^T = beta M_k turned the row x_i = PE(i) into PE(i - k), so the "
        "score peaked at j = i - k. Which matrix turns the row PE(i) into PE(i + 4)?"
    ),
    level="core",
    kind="construction",
    objective="Builds the weights of a head that attends exactly k tokens forward, from the "
    "shift matrix and the row-form rule.",
    minutes=10,
    mistakes=(
        Mistake(
            "M_4, the matrix of a head that looks 4 tokens back",
            lambda: shift_matrix(4, 32),
        ),
        Mistake(
            "the identity: every token attends to itself",
            lambda: np.eye(32),
        ),
    ),
)

# --------------------------------------------------------------------------- 04.cosine_only


def _cosine_only_residual(positions: np.ndarray, d_model: int, k: int) -> float:
    """RMS error of the best linear map from the cosine channels at t to those at t + k."""
    inputs = sinusoidal_encoding_at(positions, d_model)[:, 1::2]
    targets = sinusoidal_encoding_at(positions + k, d_model)[:, 1::2]
    return fit_linear_map(inputs, targets)[1]


def _part_rms(positions: np.ndarray, d_model: int, k: int, part: str) -> float:
    """RMS of one term of the expansions: the ways a learner may pick the wrong one."""
    theta = inverse_frequencies(d_model)
    angle_t = np.multiply.outer(positions, theta)
    terms = {
        "sin k cos t": np.sin(theta * k) * np.cos(angle_t),
        "cos k sin t": np.cos(theta * k) * np.sin(angle_t),
        "sin k sin t": np.sin(theta * k) * np.sin(angle_t),
    }
    return float(np.sqrt(np.mean(terms[part] ** 2)))


cosine_only = Exercise(
    key="04.cosine_only",
    title="Residual of a shift by k = 5 from the cosine channels only, predicted by parity",
    answer_name="residual",
    expected=lambda: _cosine_only_residual(np.arange(-100, 101), 16, 5),
    hint_text=(
        "Expand cos(theta (t+k)) = cos(theta k) cos(theta t) - sin(theta k) sin(theta t). On "
        "t = -100 .. 100 every cosine channel is an even function of t. Which part of the "
        "target can even functions produce, and which part is left as the error?"
    ),
    level="challenge",
    kind="explanation",
    objective="Explains, by the odd/even argument, what a linear map from the cosine channels "
    "alone misses, and predicts the least-squares residual without fitting.",
    minutes=20,
    mistakes=(
        Mistake(
            "the residual of the sine channels, sin(theta k) cos(theta t): the cosine channels "
            "miss the odd part instead",
            lambda: _part_rms(np.arange(-100, 101), 16, 5, "sin k cos t"),
        ),
        Mistake(
            "cos(theta k) sin(theta t): the factor of the missing part is sin(theta k)",
            lambda: _part_rms(np.arange(-100, 101), 16, 5, "cos k sin t"),
        ),
        Mistake(
            "positions 0 .. 200: the parity argument needs a window symmetric about 0",
            lambda: _part_rms(np.arange(0, 201), 16, 5, "sin k sin t"),
        ),
    ),
    shortcuts=(
        Shortcut(
            "a least-squares fit (fit_linear_map, lstsq; predict the residual from the parity "
            "argument)",
            r"\bfit_linear_map\b|\blstsq\b",
            "_, residual = fit_linear_map(now[:, 1::2], later[:, 1::2])",
        ),
    ),
)

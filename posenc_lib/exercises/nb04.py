"""Exercises on the shift matrix, by hand and from data.

Notebook: 04_rotation_proof.
"""

from __future__ import annotations

import numpy as np

from posenc_lib.exercises._core import Exercise, Mistake
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.shift import pair_shift_matrix
from posenc_lib.sinusoidal import sinusoidal_encoding_at

__all__ = ["pair_matrix", "shift_back", "recovered_angles", "sine_only_residual"]


def _theta_3() -> float:
    return float(inverse_frequencies(64)[3])


def _swapped_matrix(k: float, theta: float) -> np.ndarray:
    """The matrix with sin and cos exchanged: [[sin, cos], [-cos, sin]]."""
    c, s = np.cos(theta * k), np.sin(theta * k)
    return np.array([[s, c], [-c, s]])


def _sine_only_residual(positions: np.ndarray, d_model: int, k: int) -> float:
    """RMS error of the best linear map from sin(theta t) channels to sin(theta (t+k)) channels."""
    inputs = sinusoidal_encoding_at(positions, d_model)[:, 0::2]
    targets = sinusoidal_encoding_at(positions + k, d_model)[:, 0::2]
    weights, *_ = np.linalg.lstsq(inputs, targets, rcond=None)
    return float(np.sqrt(np.mean((inputs @ weights - targets) ** 2)))


def _even_part_rms(positions: np.ndarray, d_model: int, k: int) -> float:
    """RMS of sin(theta k) cos(theta t): the part of sin(theta (t+k)) no sum of sines can give.

    On positions symmetric about 0 the sine channels are odd functions of t; the target
    ``sin(theta (t+k)) = cos(theta k) sin(theta t) + sin(theta k) cos(theta t)`` has the even
    part ``sin(theta k) cos(theta t)``, and a least-squares fit by odd functions leaves exactly
    that part as the error.
    """
    theta = inverse_frequencies(d_model)
    # residual = sqrt(mean((sin(theta k) cos(theta t))^2))
    even_part = np.sin(theta * k) * np.cos(np.multiply.outer(positions, theta))
    return float(np.sqrt(np.mean(even_part**2)))


pair_matrix = Exercise(
    key="04.pair_matrix",
    title="M_k for one (sin, cos) pair: k = 5, theta = theta_3 of d_model = 64",
    answer_name="m",
    expected=lambda: pair_shift_matrix(5, _theta_3()),
    hint_text=(
        "From the derivation: u1 = cos(wk), v1 = sin(wk), u2 = -sin(wk), v2 = cos(wk), with "
        "M = [[u1, v1], [u2, v2]] acting on the column (sin wt, cos wt). The frequency is "
        "theta_3 = 10000 ** (-2 * 3 / 64)."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the counter-clockwise matrix [[cos, -sin], [sin, cos]], which is M_k for "
            "(cos, sin) ordering (or M_-k for (sin, cos))",
            lambda: pair_shift_matrix(5, _theta_3()).T,
        ),
        Mistake(
            "sin and cos swapped inside the matrix",
            lambda: _swapped_matrix(5, _theta_3()),
        ),
        Mistake(
            "the exponent 3/64 instead of 2*3/64",
            lambda: pair_shift_matrix(5, 10000.0 ** (-3 / 64)),
        ),
    ),
)

shift_back = Exercise(
    key="04.shift_back",
    title="PE(6) from PE(10) at d_model = 16, with a shift matrix",
    answer_name="back",
    expected=lambda: sinusoidal_encoding_at([6], 16)[0],
    hint_text=(
        "Shifting back by 4 positions is M_(-4) = shift_matrix(-4, 16), which is also the "
        "transpose of M_4 because a rotation's inverse is its transpose."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "a shift forward: M_4 @ PE(10) is PE(14)",
            lambda: sinusoidal_encoding_at([14], 16)[0],
        ),
    ),
)

recovered_angles = Exercise(
    key="04.recovered_angles",
    title="Rotation angle of each pair, read from an M fitted to (PE(t), PE(t+5)), d_model = 8",
    answer_name="angles",
    # the rotation of pair i by k = 5 positions is w_i k, wrapped to (-pi, pi]
    expected=lambda: np.angle(np.exp(1j * inverse_frequencies(8) * 5)),
    atol=1e-6,
    hint_text=(
        "Fit with fit_linear_map(pe[:-5], pe[5:]) for pe = sinusoidal_encoding(1005, 8). Block "
        "i sits in rows and columns 2i, 2i+1 and equals [[cos a, sin a], [-sin a, cos a]], so "
        "a = np.arctan2(M[2i, 2i+1], M[2i, 2i])."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the sign flipped: arctan2 of the lower-left entry -sin(wk)",
            lambda: -np.angle(np.exp(1j * inverse_frequencies(8) * 5)),
        ),
        Mistake(
            "theta_i * k typed in, not wrapped to (-pi, pi] as an angle read from a matrix is",
            lambda: inverse_frequencies(8) * 5,
        ),
    ),
)

sine_only_residual = Exercise(
    key="04.sine_only_residual",
    title="Least-squares residual of a shift by k = 5 using the sine channels only",
    answer_name="residual",
    expected=lambda: _even_part_rms(np.arange(-100, 101), 16, 5),
    rtol=1e-6,
    hint_text=(
        "Take positions t = -100 .. 100, pe = sinusoidal_encoding_at(t, 16) and the shifted "
        "sinusoidal_encoding_at(t + 5, 16). Keep the sine columns (0::2) of both and call "
        "fit_linear_map(inputs, targets); it returns (matrix, residual)."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "sine AND cosine channels as inputs (then the shift is exact)",
            lambda: 0.0,
        ),
        Mistake(
            "positions 0 .. 200 instead of -100 .. 100",
            lambda: _sine_only_residual(np.arange(0, 201), 16, 5),
        ),
    ),
)

"""Exercises on the properties of the sinusoidal encoding: its norm, what its dot products can
and cannot tell, where its decay bounces, and which columns stay flat.

Notebook: 03_properties.

Each expected answer is computed here with posenc_lib; the worked solutions are only in the
notebook's solution cells.
"""

from __future__ import annotations

import numpy as np

from posenc_lib.analysis import local_minima, offset_similarity
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.sinusoidal import (
    encoding_from_frequencies,
    sinusoidal_encoding,
    sinusoidal_encoding_at,
)

__all__ = ["norm_prediction", "offset_only", "first_bounce", "min_width", "flat_columns"]

# --------------------------------------------------------------------------- 03.norm_prediction

norm_prediction = Exercise(
    key="03.norm_prediction",
    title="Predict |PE(t)| for d_model = 96 at any position t",
    answer_name="norm_96",
    # measured on rows far apart, not taken from the formula sqrt(d/2)
    expected=lambda: float(
        np.linalg.norm(sinusoidal_encoding_at([0, 777, 10**6], 96), axis=1).mean()
    ),
    hint_text=(
        "Each (sin, cos) pair adds sin^2 + cos^2 to the squared norm. How many pairs does a "
        "96-wide vector have, and what is the norm, not the squared norm?"
    ),
    level="warm-up",
    kind="prediction",
    objective="Predicts the norm sqrt(d/2) of every encoding vector from sin^2 + cos^2 = 1, "
    "without building the encoding.",
    minutes=5,
    mistakes=(
        Mistake("the squared norm (d/2, the square root is missing)", lambda: 48.0),
        Mistake("sqrt(d_model) instead of sqrt(d_model / 2)", lambda: float(np.sqrt(96))),
    ),
    shortcuts=(
        Shortcut(
            "sinusoidal_encoding or a norm function (predict the norm from the formula)",
            r"\bsinusoidal_encoding\w*|\bnorm\s*\(",
            "norm_96 = np.linalg.norm(sinusoidal_encoding(10, 96)[3])",
        ),
    ),
)

# --------------------------------------------------------------------------- 03.offset_only


def score_candidates() -> dict[str, np.ndarray]:
    """Four 40 x 40 score matrices of position codes, for the exercise ``03.offset_only``.

    Returns
    -------
    dict of str to ndarray
        Entry ``[a, b]`` of each matrix is a score between position ``a`` and position ``b``:
        the sinusoidal Gram matrix, the Gram matrix of a random (learned-like) table, the
        sinusoidal score against the key three places further on, and the Gram matrix of
        word embedding plus position.
    """
    rng = np.random.default_rng(7)
    pe = sinusoidal_encoding(40, 32)
    table = rng.normal(size=(40, 32))
    words = rng.normal(scale=0.5, size=(40, 32)) + pe
    return {
        "PE PE^T": pe @ pe.T,
        "learned table": table @ table.T,
        "PE(a) . PE(b + 3)": pe @ sinusoidal_encoding_at(np.arange(3, 43), 32).T,
        "(e + p)(e + p)^T": words @ words.T,
    }


def _toeplitz(matrix: np.ndarray) -> bool:
    """Whether ``matrix[a, b]`` equals ``matrix[a + 1, b + 1]`` everywhere (to rounding)."""
    return bool(np.allclose(matrix[1:, 1:], matrix[:-1, :-1], atol=1e-9))


offset_only = Exercise(
    key="03.offset_only",
    title="Which of four score matrices depend only on the offset b - a?",
    answer_name="offset_only",
    expected=lambda: np.array([_toeplitz(m) for m in score_candidates().values()]),
    hint_text=(
        "A matrix depends only on b - a when every diagonal is constant: np.diagonal(S, j) for "
        "j = -39 .. 39, each with np.ptp below 1e-9. Symmetry (S == S.T) is a different test."
    ),
    level="core",
    kind="detector",
    objective="Tells 'symmetric' (true of every Gram matrix) from 'depends only on the offset' "
    "(the property of the sinusoidal code) on concrete score matrices.",
    minutes=10,
    mistakes=(
        Mistake(
            "symmetric taken for 'depends only on the offset' (every Gram matrix is symmetric)",
            lambda: np.array([bool(np.allclose(m, m.T)) for m in score_candidates().values()]),
        ),
        Mistake(
            "every score between position codes assumed to depend only on the offset",
            lambda: np.ones(4, dtype=bool),
        ),
    ),
)

# --------------------------------------------------------------------------- 03.first_bounce


def _first_bounce(d_model: int) -> int:
    """The first offset k > 0 where sum_i cos(theta_i k) is lower than at both neighbours."""
    return int(local_minima(offset_similarity(np.arange(400), d_model))[0])


first_bounce = Exercise(
    key="03.first_bounce",
    title="The first offset where PE(0)·PE(k) turns up again, for d_model = 256",
    answer_name="bounce",
    expected=lambda: _first_bounce(256),
    hint_text=(
        "Compute f(k) = sum_i cos(theta_i k) for k = 0 .. 199 at d_model = 256. np.diff(f) > 0 "
        "marks the steps that go up; the bounce is where the first such step starts. Answer "
        "with a Python int."
    ),
    level="core",
    kind="derivation",
    objective="Finds where the decay of PE(t)·PE(t+k) with distance first stops being "
    "monotonic, for a width not on the page.",
    minutes=10,
    mistakes=(
        Mistake(
            "one too far: the first offset that is higher than the one before",
            lambda: _first_bounce(256) + 1,
        ),
        Mistake("the value for d_model = 128, the notebook's example", lambda: _first_bounce(128)),
        Mistake("the value for d_model = 512, in the notebook's table", lambda: _first_bounce(512)),
    ),
    shortcuts=(
        Shortcut(
            "local_minima (find the bounce yourself)",
            r"\blocal_minima\b",
            "bounce = int(local_minima(offset_similarity(np.arange(200), 256))[0])",
        ),
    ),
)

# --------------------------------------------------------------------------- 03.min_width


def _closest_offset(d_model: int, n_positions: int, frequencies: np.ndarray) -> int:
    """The offset k of the two distinct positions among 0 .. n-1 whose codes are closest.

    The distance depends only on the offset, so PE(0) against PE(k) covers every pair.
    """
    codes = encoding_from_frequencies(np.arange(n_positions), frequencies)
    return int(np.argmin(np.linalg.norm(codes[1:] - codes[0], axis=1)) + 1)


def _min_width(base: float, n_positions: int, exponent_factor: float = 2.0) -> int:
    """The smallest even d_model whose closest pair of distinct positions are neighbours."""
    for d_model in range(2, 200, 2):
        frequencies = base ** (-exponent_factor * np.arange(d_model // 2) / d_model)
        if _closest_offset(d_model, n_positions, frequencies) == 1:
            return d_model
    raise RuntimeError("no width below 200 keeps neighbours closest")  # pragma: no cover


min_width = Exercise(
    key="03.min_width",
    title="The smallest even d_model, base 100000, whose nearest miss in 1000 tokens is t, t+1",
    answer_name="min_width",
    expected=lambda: _min_width(100000.0, 1000),
    hint_text=(
        "The distance depends only on the offset: |PE(t+k) - PE(t)|^2 = d - 2 sum_i "
        "cos(theta_i k), with theta_i = base ** (-2i/d). For d = 2, 4, 6, ... find the offset "
        "k in 1 .. 999 where it is smallest, and stop at the first d where that offset is 1."
    ),
    level="challenge",
    kind="derivation",
    objective="Shows that uniqueness has a margin that needs enough dimensions: finds the "
    "narrowest encoding whose closest pair of positions are neighbours.",
    minutes=15,
    mistakes=(
        Mistake("base 10000 instead of 100000", lambda: _min_width(10000.0, 1000)),
        Mistake(
            "the number of pairs d/2 instead of d_model", lambda: _min_width(100000.0, 1000) // 2
        ),
        Mistake(
            "exponent i/d instead of 2i/d in the frequencies",
            lambda: _min_width(100000.0, 1000, exponent_factor=1.0),
        ),
    ),
)

# --------------------------------------------------------------------------- 03.flat_columns


def _count_flat(n_positions: int, d_model: int, threshold: float) -> int:
    """Columns of the encoding whose range over the positions is below ``threshold``."""
    encoding = sinusoidal_encoding(n_positions, d_model)
    return int(np.count_nonzero(np.ptp(encoding, axis=0) < threshold))


def _ends_only(n_positions: int, d_model: int, threshold: float) -> int:
    """The count when each column's range is taken as |value at the last - value at the first|."""
    ends = sinusoidal_encoding_at([0, n_positions - 1], d_model)
    return int(np.count_nonzero(np.abs(ends[1] - ends[0]) < threshold))


flat_columns = Exercise(
    key="03.flat_columns",
    title="How many columns move by less than 0.01 over 100 tokens at d_model = 1024",
    answer_name="n_flat",
    expected=lambda: _count_flat(100, 1024, 0.01),
    hint_text=(
        "Over t = 0 .. 99 a slow sine column moves by about sin(99 theta_i) and a slow cosine "
        "column by 1 - cos(99 theta_i), about (99 theta_i)^2 / 2. Both formulas hold only while "
        "99 theta_i is below pi/2 (sine) or pi (cosine): a fast pair can come full circle and "
        "end where it started."
    ),
    level="challenge",
    kind="explanation",
    objective="Uses 1 - cos x ≈ x^2/2 and the frequencies alone to predict how many columns "
    "are nearly constant over a sentence, and why they are cosine columns.",
    minutes=20,
    mistakes=(
        Mistake(
            "only the first and last positions compared: a fast column that turns full circles "
            "also ends near where it started",
            lambda: _ends_only(100, 1024, 0.01),
        ),
        Mistake(
            "the sine columns counted like the cosine ones (a slow sine moves by about x, "
            "not x^2/2)",
            lambda: 2 * _count_flat(100, 1024, 0.01),
        ),
    ),
    shortcuts=(
        Shortcut(
            "the encoding functions (count from the frequencies alone)",
            r"\bsinusoidal_encoding\w*|\bencoding_from_frequencies\b",
            "n_flat = int(np.sum(np.ptp(sinusoidal_encoding(100, 1024), axis=0) < 0.01))",
        ),
    ),
)

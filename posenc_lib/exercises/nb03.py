"""Exercises on the properties of the sinusoidal encoding: how its norm is shared between the
sine and cosine halves, what its dot products can and cannot tell, the price of a decay without
bounces, and which columns stay flat.

Notebook: 03_properties.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from posenc_lib.exercises import _steps03 as steps  # the build steps: nb03.steps.<name>
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.exercises._data import stored_mistake
from posenc_lib.exercises._property import PropertyExercise
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.sinusoidal import (
    sinusoidal_encoding,
    sinusoidal_encoding_at,
)  # fmt: skip

__all__ = ["half_norms", "offset_only", "no_bounce", "min_width", "flat_columns",
           "steps"]


_HALVES = {"d": 96, "columns": 48}
"""03.half_norms: d_model, and the columns of each half, d_model / 2."""


half_norms = Exercise(
    key="03.half_norms", answer_name="halves", level="warm-up", kind="prediction", minutes=5,
    params=_HALVES,
    mistakes=(
        Mistake("each half given the norm of the whole vector, sqrt(d/2) = sqrt({columns})",
                lambda: np.full(2, np.sqrt(float(_HALVES["columns"])))),
        Mistake("each half given half of the squared norm at every position (true on average over "
                "many turns, not at t = 0)", lambda: np.full(2, np.sqrt(_HALVES["columns"] / 2))),
        Mistake("the squared norms (the square root is missing)",
                lambda: np.array([0.0, float(_HALVES["columns"])])),
        Mistake("sines and cosines swapped (sin 0 = 0)",
                lambda right: np.asarray(right)[::-1], from_answer=True),
    ),
    shortcuts=(
        Shortcut("sinusoidal_encoding or a norm function (predict the norms from sin 0 and cos 0)",
                 r"\bsinusoidal_encoding\w*|\bnorm\s*\(",
                 "halves = [np.linalg.norm(sinusoidal_encoding(1, 96)[0, 0::2]), 0]"),
    ),
)


_OFFSET: dict[str, Any] = {"order": (0, 1, 2, 3), "shift": 3, "seed": 7}
"""03.offset_only: the order in which the four matrices come, the shift of the third and the seed of
the random tables."""


def score_candidates() -> dict[str, np.ndarray]:
    """Four 40 x 40 score matrices by name for exercise 03.offset_only; entry [a, b] scores
    position a against position b."""
    rng = np.random.default_rng(_OFFSET["seed"])
    pe = sinusoidal_encoding(40, 32)
    table = rng.normal(size=(40, 32))
    words = rng.normal(scale=0.5, size=(40, 32)) + pe
    shift = _OFFSET["shift"]
    shifted = sinusoidal_encoding_at(np.arange(shift, shift + 40), 32)
    matrices = [
        ("PE PE^T", pe @ pe.T),
        ("learned table", table @ table.T),
        (f"PE(a) . PE(b + {shift})", pe @ shifted.T),
        ("(e + p)(e + p)^T", words @ words.T),
    ]
    return dict(matrices[i] for i in _OFFSET["order"])


offset_only = Exercise(
    key="03.offset_only", answer_name="offset_only", level="core", kind="detector", minutes=10,
    params=_OFFSET,
    mistakes=(
        Mistake("symmetric taken for 'depends only on the offset' (every Gram matrix is symmetric)",
                lambda: np.array([bool(np.allclose(m, m.T)) for m in score_candidates().values()])),
        Mistake("every score between position codes assumed to depend only on the offset",
                lambda: np.ones(4, dtype=bool)),
    ),
)

_NO_BOUNCE = {"reach": 100, "gap": 0.2, "repeat": 200}
"""03.no_bounce: f(k) must fall at every step k = 0 .. reach, and neighbouring positions be at
least gap apart; speeds pi / reach repeat every 2 reach positions (a known mistake's)."""
_NO_BOUNCE_WINDOW, _NO_BOUNCE_DISTINCT = 1000, 0.1  # and positions 0..999 codes this far apart


def _closest_codes(frequencies: np.ndarray) -> tuple[float, int]:
    """The smallest distance between two codes in the window, and the offset that gives it.

    ``|PE(t + k) - PE(t)|^2 = 2 sum_i (1 - cos(w_i k))`` depends only on the offset k."""
    offsets = np.arange(1, _NO_BOUNCE_WINDOW)
    squared = 2 * np.sum(1 - np.cos(np.outer(offsets, frequencies)), axis=1)
    nearest = int(np.argmin(squared))
    return float(np.sqrt(max(squared[nearest], 0.0))), int(offsets[nearest])


def _neighbour_gap(frequencies: np.ndarray) -> float:
    """|PE(t+1) - PE(t)| of an encoding with these angular speeds: sqrt(2 sum_i (1 - cos w_i))."""
    return float(np.sqrt(2 * np.sum(1 - np.cos(frequencies))))


def _judge_no_bounce(answer: object) -> tuple[bool, str]:
    """Whether 64 angular speeds give an f(k) that falls at every step, with neighbours apart."""
    try:
        freqs = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return False, f"Expected 64 numbers (angular speeds); got {type(answer).__name__}."
    if freqs.shape != (64,):
        return False, f"Expected 64 angular speeds, one per pair; got shape {freqs.shape}."
    if not np.all(np.isfinite(freqs)):
        return False, "Your frequencies contain NaN or inf."
    reach, least = _NO_BOUNCE["reach"], _NO_BOUNCE["gap"]
    f = np.cos(np.outer(np.arange(reach + 1), freqs)).sum(axis=1)
    ups = np.flatnonzero(np.diff(f) >= 0)
    gap, course_gap = _neighbour_gap(freqs), _neighbour_gap(inverse_frequencies(128))
    if ups.size:
        k = int(ups[0])
        return False, (
            f"f(k) does not fall from k = {k} to {k + 1} ({f[k]:.4f}, then {f[k + 1]:.4f}): some "
            "pair's angle has passed pi, and its cosine is rising again."
        )
    if gap < least:
        return False, (
            f"f(k) falls at every step, but neighbouring positions are only {gap:.3f} apart; "
            f"at least {least} is asked (the course's encoding: {course_gap:.3f})."
        )
    closest, offset = _closest_codes(freqs)
    if closest < _NO_BOUNCE_DISTINCT:
        return False, (
            f"f(k) falls and neighbours are {gap:.3f} apart, but positions {offset} apart get "
            f"codes only {closest:.3f} apart (at least {_NO_BOUNCE_DISTINCT} is asked for every "
            f"two positions in 0 .. {_NO_BOUNCE_WINDOW - 1}): the encoding nearly repeats itself."
        )
    return True, (
        f"f(k) falls at every step k = 0 .. {reach}, and neighbours are {gap:.3f} "
        f"apart (the course's encoding, which bounces: {course_gap:.3f})."
    )


no_bounce = PropertyExercise(
    key="03.no_bounce", answer_name="freqs", level="core", kind="construction", minutes=15,
    params=_NO_BOUNCE,
    judge=_judge_no_bounce,
    mistakes=(
        Mistake("the course's frequencies 10000^(-2i/d): the fast pairs pass half a turn within a "
                "few positions and make f bounce", lambda: inverse_frequencies(128)),
        Mistake("a full turn in {reach} positions (2 pi / {reach}): a cosine falls only for half "
                "a turn, while its angle is below pi",
                lambda: np.full(64, 2 * np.pi / _NO_BOUNCE["reach"])),
        Mistake("all 64 speeds equal: one pair written 64 times (rank 2), so the code repeats "
                "every {repeat} positions, PE(t + {repeat}) = PE(t)",
                lambda: np.full(64, np.pi / _NO_BOUNCE["reach"])),
        Mistake("wavelengths 2 pi / theta_i instead of angular speeds theta_i",
                lambda: 2 * np.pi / inverse_frequencies(128)),
    ),
)


_WIDTH = {"base": 100000}
"""03.min_width: the base of the encoding."""

min_width = Exercise(
    key="03.min_width", answer_name="min_width", level="challenge", kind="derivation", minutes=15,
    params=_WIDTH,
    mistakes=(
        Mistake("base 10000 instead of {base}", stored_mistake("03.min_width", 0, _WIDTH)),
        Mistake("the number of pairs d/2 instead of d_model",
                lambda right: right // 2, from_answer=True),
        Mistake("exponent i/d instead of 2i/d in the frequencies",
                stored_mistake("03.min_width", 1, _WIDTH)),
    ),
)


_FLAT = {"d": 1024}
"""03.flat_columns: the width of the encoding."""

flat_columns = Exercise(
    key="03.flat_columns", answer_name="n_flat", level="challenge", kind="explanation", minutes=20,
    params=_FLAT,
    mistakes=(
        Mistake("only the first and last positions compared: a fast column that turns full "
                "circles also ends near where it started",
                stored_mistake("03.flat_columns", 0, _FLAT)),
        Mistake("the sine columns counted like the cosine ones (a slow sine moves by about x, not "
                "x^2/2)", lambda right: 2 * right, from_answer=True),
    ),
    shortcuts=(
        Shortcut("the encoding functions (count from the frequencies alone)",
                 r"\bsinusoidal_encoding\w*|\bencoding_from_frequencies\b",
                 "n_flat = int(np.sum(np.ptp(sinusoidal_encoding(100, {d}), axis=0) < 0.01))"),
    ),
)

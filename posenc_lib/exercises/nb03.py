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
    title="Predict the norms of the sine half and of the cosine half of PE(0), d_model = {d}",
    hints=(
        "At t = 0 every angle theta_i * t is the same. What does that make every entry of the "
        "sine half, and every entry of the cosine half?",
        "Evaluate sin and cos at that angle, count the columns of each half of a {d}-wide vector, "
        "and take the norm of each half: the square root of the sum of its squared entries (not "
        "the squared norm).",
    ),
    objective="Predicts that the constant norm sqrt(d/2) is shared between the sine and cosine "
    "halves in a way that changes with t (all in the cosines at t = 0), so both are needed.",
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
    title="Which of four score matrices depend only on the offset b - a?",
    hints=(
        "If a score depends only on b - a, all pairs of positions with the same offset get the "
        "same score. Where do those pairs sit in a matrix?",
        "The entries with offset b - a = j form one diagonal. Take every diagonal of the 40 x 40 "
        "matrix with np.diagonal(S, j) and check that its spread, np.ptp, is below a small "
        "tolerance such as 1e-9; the matrix depends only on the offset when every diagonal "
        "passes. Symmetry (S equal to S.T) is a different test: do not use it.",
    ),
    objective="Tells 'symmetric' (true of every Gram matrix) from 'depends only on the offset' "
    "(the property of the sinusoidal code) on concrete score matrices.",
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
    title="Frequencies for d_model = 128 whose PE(0)·PE(k) falls at every step up to k = {reach}",
    judge=_judge_no_bounce,
    hints=(
        "One term cos(w k) falls only until its angle w k reaches a certain value. What does that "
        "ask of every w if k goes all the way to {reach}? Then see how the other two conditions "
        "pull on the w's.",
        "cos(w k) decreases while w k stays below pi, so no w_i may let its angle pass pi before "
        "k = {reach}. The neighbour distance grows with the w_i, so keep them as large as that "
        "allows. But 64 equal speeds are one pair written 64 times, and one pair repeats after a "
        "single wavelength: spread the speeds over a range below the bound, and let the check "
        "tell you which condition still fails.",
    ),
    objective="Constructs an encoding without bounces and finds their price: every pair must stay "
    "under half a turn, so neighbouring positions end up far closer than in the course's encoding.",
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
    title="The smallest even d_model, base {base}, whose nearest miss in 1000 tokens is t, t+1",
    hints=(
        "The distance between PE(t) and PE(t + k) depends only on the offset k. So for each width "
        "you only need the offset that gives the closest pair; then try the widths in order.",
        "Write |PE(t+k) - PE(t)|^2 as d - 2 sum_i cos(theta_i k), with theta_i = base ** (-2i/d) "
        "and base {base}. For d = 2, 4, 6, ... compute it for every offset k from 1 to 999 "
        "(np.outer of the offsets and the theta_i helps), find the offset where it is smallest, "
        "and stop at the first d for which that offset is 1. Give d as a Python int.",
    ),
    objective="Shows that uniqueness has a margin that needs enough dimensions: finds the "
    "narrowest encoding whose closest pair of positions are neighbours.",
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
    title="How many columns move by less than 0.01 over 100 tokens at d_model = {d}",
    hints=(
        "A column is flat when its value hardly moves over the 100 tokens. Sine and cosine "
        "columns react differently to a small angle: think about how each one leaves angle 0.",
        "Over t = 0 .. 99 pair i reaches the angle 99 theta_i. A sine column moves by about "
        "sin(99 theta_i) while that angle is below pi/2; a cosine column moves by 1 - cos(99 "
        "theta_i) while it is below pi (beyond those, a fast pair may wrap round and end near its "
        "start). Count the sine columns and the cosine columns of d_model = {d} that move by "
        "less than 0.01 and meet their angle condition, and add the two counts.",
    ),
    objective="Uses 1 - cos x ≈ x^2/2 and the frequencies alone to predict how many columns are "
    "nearly constant over a sentence, and why they are cosine columns.",
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

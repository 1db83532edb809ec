"""Exercises on RoPE: the frequencies of a Llama-3-sized head, which pairing a checkpoint uses,
the rotation matrix in the half-split layout, reading a position off the slowest pair, and
whether RoPE scores can tell before from after.

Notebook: 05_rope.

Each expected answer is computed here with posenc_lib; the worked solutions are only in the
notebook's solution cells.
"""

from __future__ import annotations

import numpy as np

from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.frequencies import inverse_frequencies, split_permutation
from posenc_lib.rope import apply_rope, relative_scores, rope_matrix, rotate_interleaved

__all__ = [
    "checkpoint_key",
    "inv_freq",
    "layout",
    "half_matrix",
    "key_position",
    "direction",
]

_COMPUTING = r"@|\bapply_rope\b|\brelative_scores\b|\brope_matrix\b"

# --------------------------------------------------------------------------- 05.inv_freq

inv_freq = Exercise(
    key="05.inv_freq",
    title="The RoPE frequencies theta_i of a Llama 3 head: d = 128, base 500000",
    answer_name="inv_freq",
    expected=lambda: inverse_frequencies(128, 500000.0),
    hint_text=(
        "One frequency per pair, so i runs over 0 .. d/2 - 1 (64 values), and "
        "theta_i = base ** (-2 i / d): a negative exponent with 2i, not i."
    ),
    level="warm-up",
    kind="derivation",
    objective="Writes the RoPE frequency ladder base^(-2i/d) for a head and base not on the "
    "page (one value per pair).",
    minutes=5,
    mistakes=(
        Mistake("exponent -i/d instead of -2i/d", lambda: 500000.0 ** (-np.arange(64) / 128)),
        Mistake("base 10000 instead of 500000", lambda: inverse_frequencies(128, 10000.0)),
        Mistake(
            "a positive exponent (base ** (2i/d) grows instead of shrinking)",
            lambda: 500000.0 ** (np.arange(0, 128, 2) / 128),
        ),
        Mistake(
            "one value per dimension (d values) instead of one per pair (d/2)",
            lambda: 500000.0 ** (-2.0 * np.arange(128) / 128),
        ),
    ),
    shortcuts=(
        Shortcut(
            "inverse_frequencies (write the formula)",
            r"\binverse_frequencies\b",
            "inv_freq = inverse_frequencies(128, 500000.0)",
        ),
    ),
)

# --------------------------------------------------------------------------- 05.layout

_CHECKPOINT_PAIRING = "half"
_CHECKPOINT_POSITION = 2718


def checkpoint_key() -> tuple[np.ndarray, np.ndarray]:
    """A key of head size 16 before and after a checkpoint's RoPE, for exercises 05.layout and
    05.key_position.

    Returns
    -------
    before, after : ndarray of float64, shape (16,)
        The key, and the same key rotated at a position and in a pairing the exercises ask for
        (base 10000).
    """
    before = np.random.default_rng(2024).normal(size=16)
    after = apply_rope(
        before[None, :],
        [_CHECKPOINT_POSITION],
        inverse_frequencies(16),
        pairing=_CHECKPOINT_PAIRING,
    )[0]
    return before, after


def _interleaved_change() -> float:
    """The largest change of an interleaved pair's length: the evidence against interleaved."""
    before, after = checkpoint_key()
    lengths = [np.hypot(v[0::2], v[1::2]) for v in (before, after)]
    return float(np.max(np.abs(lengths[1] - lengths[0])))


def _reasoned(choice: str) -> tuple[str, float]:
    """A reasoned answer: the option and the measured value that decides it."""
    return choice, _interleaved_change()


layout = Exercise(
    key="05.layout",
    title="Which pairing rotated the checkpoint's key: 'interleaved', 'half' or 'neither'?",
    answer_name="layout",
    expected=lambda: _reasoned(_CHECKPOINT_PAIRING),
    rtol=1e-4,
    hint_text=(
        "A rotation keeps the length of every pair it turns. Compute the length of each pair "
        "before and after, once with pairs (2i, 2i+1) and once with pairs (i, i + 8): np.hypot "
        "of the two members."
    ),
    level="warm-up",
    kind="detector",
    objective="Detects a checkpoint's RoPE pairing (interleaved or half-split) from one rotated "
    "vector, using what a rotation keeps.",
    minutes=10,
    mistakes=(
        Mistake(
            "interleaved, the layout of RoFormer and Meta's code, taken for granted: its pair "
            "lengths change here",
            lambda: _reasoned("interleaved"),
        ),
        Mistake(
            "neither: the total length is kept, and so is each pair's length in one layout",
            lambda: _reasoned("neither"),
        ),
    ),
)

# --------------------------------------------------------------------------- 05.half_matrix


def _conjugated(matrix: np.ndarray, order: np.ndarray) -> np.ndarray:
    return matrix[order][:, order]


half_matrix = Exercise(
    key="05.half_matrix",
    title="R_m in the half-split layout for d = 6, m = 2, base 10000",
    answer_name="r_half",
    expected=lambda: rope_matrix(2, inverse_frequencies(6), pairing="half"),
    hint_text=(
        "Pair i is (i, i + 3). Its block [[cos, -sin], [sin, cos]] of the angle 2 * theta_i "
        "goes into rows and columns i and i + 3, not into two neighbouring rows. np.ix_([i, "
        "i + 3], [i, i + 3]) selects those four entries."
    ),
    level="core",
    kind="construction",
    objective="Builds the RoPE rotation matrix in the half-split layout and sees it is the "
    "interleaved one with rows and columns permuted.",
    minutes=15,
    mistakes=(
        Mistake(
            "the interleaved layout: pairs (2i, 2i+1)",
            lambda: rope_matrix(2, inverse_frequencies(6)),
        ),
        Mistake(
            "the sines' signs swapped: that is R_(-m), a rotation the other way",
            lambda: rope_matrix(-2, inverse_frequencies(6), pairing="half"),
        ),
        Mistake(
            "the interleaved matrix permuted with the inverse permutation argsort(perm)",
            lambda: _conjugated(
                rope_matrix(2, inverse_frequencies(6)), np.argsort(split_permutation(6))
            ),
        ),
    ),
    shortcuts=(
        Shortcut(
            "rope_matrix or apply_rope (build the matrix yourself)",
            r"\brope_matrix\b|\bapply_rope\b",
            "r_half = rope_matrix(2, theta, pairing='half')",
        ),
    ),
)

# --------------------------------------------------------------------------- 05.key_position


def _pair_angle(pair: int, pairing: str) -> float:
    """The angle from the key before to the key after, read in one pair of one layout."""
    before, after = checkpoint_key()
    partner = pair + 1 if pairing == "interleaved" else pair + 8
    turn = complex(after[pair], after[partner]) / complex(before[pair], before[partner])
    return float(np.angle(turn))


def _read_position(pair: int, pairing: str) -> float:
    """The position read from one pair's angle, as a learner who picks that pair gets it."""
    index = pair // 2 if pairing == "interleaved" else pair
    return round(_pair_angle(pair, pairing) / inverse_frequencies(16)[index])


key_position = Exercise(
    key="05.key_position",
    title="The position at which the checkpoint's key was rotated, read off its slowest pair",
    answer_name="m_key",
    expected=lambda: _CHECKPOINT_POSITION,
    hint_text=(
        "An angle read from a pair lives in (-pi, pi], so a fast pair only tells m modulo its "
        "wavelength. Use a pair with m * theta_i < pi for every m in the context: the slowest, "
        "pair 7, (x[7], x[15]) in the half layout. Its angle divided by theta_7 is m."
    ),
    level="core",
    kind="derivation",
    objective="Reads the absolute position from a rotated key through a slow pair, and explains "
    "why a fast pair only gives it modulo its wavelength.",
    minutes=15,
    mistakes=(
        Mistake(
            "the fastest pair's angle divided by theta_0: it wraps every 2 pi = 6.28 positions",
            lambda: _read_position(0, "half"),
        ),
        Mistake(
            "pair 5, whose angle m * theta_5 has already passed pi and wrapped",
            lambda: _read_position(5, "half"),
        ),
        Mistake(
            "the interleaved pairs (2i, 2i+1), which this checkpoint does not rotate",
            lambda: _read_position(14, "interleaved"),
        ),
        Mistake(
            "the angle measured from the rotated key back to the original (sign flipped)",
            lambda: -_CHECKPOINT_POSITION,
        ),
    ),
    shortcuts=(
        Shortcut(
            "apply_rope or rope_matrix (read the position off a pair's angle instead of trying "
            "positions)",
            r"\bapply_rope\b|\brope_matrix\b",
            "m_key = next(m for m in range(9000) if np.allclose(apply_rope(x[None], [m], th), y))",
        ),
    ),
)

# --------------------------------------------------------------------------- 05.direction


def _ratio(k_of_q: str) -> float:
    """s(-r) / s(r) for a fixed random q, with k = q or k = the quarter turn of q."""
    q = np.random.default_rng(3).normal(size=8)
    k = q if k_of_q == "q" else rotate_interleaved(q)
    theta = inverse_frequencies(8)
    backward, forward = relative_scores(q, k, [-3, 3], theta)
    return float(backward / forward)


direction = Exercise(
    key="05.direction",
    title="Predict s(-r) / s(r) for k = q and for k = rot(q)",
    answer_name="ratios",
    expected=lambda: np.array([_ratio("q"), _ratio("rot")]),
    hint_text=(
        "s(r) = q^T R_r k and s(-r) = q^T R_r^T k. For k = q, a number equals its transpose. "
        "For k = rot(q), use the complex form: pair i contributes Re(conj(q_i) k_i e^(i r "
        "theta_i)) with k_i = i q_i, that is -|q_i|^2 sin(r theta_i)."
    ),
    level="challenge",
    kind="prediction",
    objective="Predicts when a RoPE score is even or odd in the offset, and so that RoPE, "
    "unlike PE·PE, can tell a key before the query from one after it.",
    minutes=15,
    mistakes=(
        Mistake(
            "RoPE scores taken to be as blind to direction as PE·PE in notebook 03",
            lambda: np.array([1.0, 1.0]),
        ),
        Mistake("the two cases swapped", lambda: np.array([-1.0, 1.0])),
    ),
    shortcuts=(
        Shortcut(
            "code that computes the scores (@, apply_rope, relative_scores, rope_matrix; reason it "
            "out, then run the cell after the check)",
            _COMPUTING,
            "ratios = [relative_scores(q, q, [-3], th)[0] / relative_scores(q, q, [3], th)[0]]",
        ),
    ),
)

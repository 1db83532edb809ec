"""Exercises on RoPE: the base a head needs for a long context, which pairing a checkpoint uses,
the rotation matrix in the half-split layout, reading a position off the slowest pair, and
whether RoPE scores can tell before from after.

Notebook: 05_rope.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from posenc_lib.exercises import _steps05 as steps  # the build steps: nb05.steps.<name>
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.exercises._data import HIDDEN_DATA
from posenc_lib.frequencies import inverse_frequencies, split_permutation
from posenc_lib.rope import rope_matrix

__all__ = ["steps", "checkpoint_key", "base_for_context", "layout", "half_matrix", "key_position",
           "direction"]

_COMPUTING = r"@|\bapply_rope\b|\brelative_scores\b|\brope_matrix\b"

_CONTEXT = {"context": 131072, "last": 131071}
"""05.base_for_context: the context, positions 0 .. last."""


def _smallest_base(head_dim: int, context: int, turn: float) -> float:
    """The base whose slowest pair turns by ``turn`` radians over ``context - 1`` steps, found by
    bisection on log(base) (not from the closed form a learner derives)."""
    low, high = np.log(2.0), np.log(1e12)
    for _ in range(200):
        middle = (low + high) / 2
        slowest = inverse_frequencies(head_dim, float(np.exp(middle)))[-1]
        low, high = (low, middle) if slowest * (context - 1) <= turn else (middle, high)
    return float(np.exp(high))


base_for_context = Exercise(
    key="05.base_for_context", answer_name="base_needed", level="warm-up", kind="derivation",
    minutes=10, params=_CONTEXT,
    mistakes=(
        Mistake("the slowest pair taken as 1/base: it is base^(-(d-2)/d), one step short of 1/base",
                lambda: _CONTEXT["last"] / np.pi),
        Mistake("a full turn (2 pi) instead of half a turn (pi)",
                lambda: _smallest_base(128, _CONTEXT["context"], 2 * np.pi)),
        Mistake("L positions counted as L steps: positions 0 .. L - 1 are L - 1 steps apart",
                lambda: _smallest_base(128, _CONTEXT["context"] + 1, np.pi)),
    ),
    shortcuts=(
        Shortcut("inverse_frequencies or wavelengths (write the formula and solve it)",
                 r"\binverse_frequencies\b|\bwavelengths\b|\brope_frequencies\w*",
                 "base_needed = next(b for b in range(2, 10**6) if inverse_frequencies(128, "
                 "b)[-1] < 1)"),
    ),
)

_KEY: dict[str, Any] = {"key": tuple(HIDDEN_DATA["05.checkpoint_key"]),
                        "measured": "interleaved", "pairs": "(2i, 2i+1)"}
"""05.layout and 05.key_position (one dict for both): the key before and after the checkpoint's
RoPE, and the pairs the evidence is measured on (a graded release poses another key, rotated in
the other pairing at another position, with the evidence on the other pairs: ``use``)."""
_PARTNER = {"interleaved": 1, "half-split": 8}
"""The offset of a pair's second coordinate in each layout."""


def checkpoint_key() -> tuple[np.ndarray, np.ndarray]:
    """Return a key of head size 16 before and after a checkpoint's RoPE (base 10000), both shape
    (16,), rotated at the position and in the pairing exercises 05.layout and 05.key_position ask
    for (stored numbers, posenc_lib.exercises._data: the position and the pairing, the answers,
    stay in the checkout's tools/answer_key.py)."""
    before, after = np.array(_KEY["key"]).reshape(2, 16)
    return before, after


def _measured(other: bool = False) -> int:
    """The partner offset of the pairs the evidence is measured on (of the other layout's pairs
    when ``other``)."""
    measured = _KEY["measured"]
    if other:
        measured = next(name for name in _PARTNER if name != measured)
    return _PARTNER[measured]


def _length_change(partner: int, squared: bool = False) -> float:
    """The largest absolute change of length over the pairs (2i, 2i + partner) for partner 1 and
    (i, i + partner) otherwise, from the key before to the key after (squared lengths when
    ``squared``)."""
    first = np.arange(0, 16, 2) if partner == 1 else np.arange(16 - partner)
    lengths = [v[first] ** 2 + v[first + partner] ** 2 for v in checkpoint_key()]
    if not squared:
        lengths = [np.sqrt(length) for length in lengths]
    return float(np.max(np.abs(lengths[1] - lengths[0])))


_FILLER = {"rotate", "the", "layout", "pairs", "pairing", "pair"}
_CODEBASES = {"neox": "half-split", "gpt neox": "half-split", "gptj": "interleaved",
              "gpt j": "interleaved", "roformer": "interleaved",
              "rotate every two": "interleaved"}  # the statement's option names


def _layout_name(answer: Any) -> Any:
    """``(layout, evidence)`` with the layout named by its first word, in lower case ("_" and
    "-" split words; a codebase's name (GPT-NeoX, rotate_every_two) reads as its pairing and the
    words of :data:`_FILLER` are skipped); any other answer as it is."""
    if not (isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], str)):
        return answer
    words = answer[0].strip().lower().replace("_", " ").replace("-", " ").split()
    if " ".join(words) in _CODEBASES:  # a codebase's name for its pairing
        words = _CODEBASES[" ".join(words)].replace("-", " ").split()
    words = [word for word in words if word not in _FILLER]
    return (words[0] if words else answer[0]), answer[1]


layout = Exercise(
    key="05.layout", answer_name="layout", level="warm-up", kind="detector", minutes=10, rtol=1e-4,
    answer_form=_layout_name,
    params=_KEY,
    mistakes=(
        Mistake("the evidence measured over other pairs than the {measured} pairs {pairs} "
                "the statement defines it on",
                lambda right: (right[0], _length_change(_measured(other=True))), from_answer=True),
        Mistake("the change of the squared lengths: the evidence is the change of the lengths, "
                "np.hypot of each pair",
                lambda right: (right[0], _length_change(_measured(), squared=True)),
                from_answer=True),
    ),
)


_HALF_SPLIT = {"m": 2}
"""05.half_matrix: the position m of R_m (d = 6, base 10000)."""

half_matrix = Exercise(
    key="05.half_matrix", answer_name="r_half", level="core", kind="construction", minutes=15,
    params=_HALF_SPLIT,
    mistakes=(
        Mistake("the interleaved layout: pairs (2i, 2i+1)",
                lambda: rope_matrix(_HALF_SPLIT["m"], inverse_frequencies(6))),
        Mistake("the sines' signs swapped: that is R_(-m), a rotation the other way",
                lambda right: np.asarray(right).T, from_answer=True),
        Mistake("the interleaved matrix permuted with the inverse permutation argsort(perm)",
                lambda: rope_matrix(_HALF_SPLIT["m"], inverse_frequencies(6))[
                    np.ix_(*[np.argsort(split_permutation(6))] * 2)]),
    ),
    shortcuts=(
        Shortcut("rope_matrix or apply_rope (build the matrix yourself)",
                 r"\brope_matrix\b|\bapply_rope\b",
                 "r_half = rope_matrix(2, theta, pairing=layout)"),
    ),
)


def _wrapped_reading(position: int, pair: int) -> int:
    """The position read off pair ``pair``'s angle when the key sits at ``position``: the angle
    position * theta_i folded into (-pi, pi], divided by theta_i and rounded."""
    theta = inverse_frequencies(16)[pair]
    return round(float(np.angle(np.exp(1j * position * theta))) / theta)


def _measured_reading() -> int:
    """The position read from the angle of the slowest pair of the layout 05.layout measures its
    evidence on (the interleaved pair (14, 15) of the notebook's key, the half-split pair (7, 15)
    of a release's key rotated in the interleaved pairs)."""
    before, after = checkpoint_key()
    first = 14 if _measured() == 1 else 7
    second = first + _measured()
    turn = complex(after[first], after[second]) / complex(before[first], before[second])
    return round(float(np.angle(turn)) / inverse_frequencies(16)[7])


key_position = Exercise(
    key="05.key_position", answer_name="m_key", level="core", kind="derivation", minutes=15,
    params=_KEY,
    mistakes=(
        Mistake("the fastest pair's angle divided by theta_0: it wraps every 2 pi = 6.28 positions",
                lambda right: _wrapped_reading(right, 0), from_answer=True),
        Mistake("pair 5, whose angle m * theta_5 has already passed pi and wrapped",
                lambda right: _wrapped_reading(right, 5), from_answer=True),
        Mistake("the pairs of the other layout: read the slowest pair of the layout exercise 2 "
                "found", _measured_reading),
        Mistake("the angle measured from the rotated key back to the original (sign flipped)",
                lambda right: -right, from_answer=True),
    ),
    shortcuts=(
        Shortcut("apply_rope or rope_matrix (read the position off a pair's angle instead of "
                 "trying positions)", r"\bapply_rope\b|\brope_matrix\b",
                 "m_key = next(m for m in range(9000) if np.allclose(apply_rope(x[None], [m], "
                 "th), y))"),
    ),
)


_CASES = {"first": "q", "second": "rot(q)", "even": "a", "odd": "b"}
"""05.direction: the key of case (a) and of case (b), and the letters of the case whose ratio is
even in r (a key along q) and of the one whose ratio is odd (the quarter turn)."""


direction = Exercise(
    key="05.direction", answer_name="ratios", level="challenge", kind="prediction", minutes=15,
    params=_CASES,
    mistakes=(
        Mistake("RoPE scores taken to be as blind to direction as PE·PE in notebook 03",
                lambda: np.array([1.0, 1.0])),
        Mistake("the two cases swapped", lambda right: np.asarray(right)[::-1],
                from_answer=True),
    ),
    shortcuts=(
        Shortcut("code that computes the scores (@, apply_rope, relative_scores, rope_matrix; "
                 "reason it out, then run the cell after the check)", _COMPUTING,
                 "ratios = [relative_scores(q, q, [-3], th)[0] / relative_scores(q, q, [3], "
                 "th)[0]]"),
    ),
)

"""Build steps of notebook 03: the offset similarity f(k) (derived) and the direction count.

Notebook: 03_properties (``nb03.steps``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.analysis import directions_for_variance, offset_similarity, similarity_matrix
from posenc_lib.exercises._steps import BuildStep, StepMistake
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.sinusoidal import (
    encoding_from_frequencies,
    sinusoidal_encoding,
    sinusoidal_encoding_at,
)

__all__ = ["direction_count", "offset_similarity_f"]


def _f(k: Any, d_model: int) -> NDArray[np.float64]:
    return offset_similarity(k, d_model)


def _phase_sum(k: Any, theta: NDArray[np.float64]) -> NDArray[np.complex128]:
    """sum over the speeds theta of exp(i theta k), for each offset k."""
    return np.exp(1j * np.multiply.outer(np.asarray(k, dtype=float), theta)).sum(axis=-1)


offset_similarity_f = BuildStep(
    key="03.steps.offset_similarity_f", name="offset similarity f(k)",
    answer_name="offset_similarity_by_me", reference=_f,
    cases=({"k": np.arange(-3, 40), "d_model": 16},
           {"k": np.array([5, 250, 4000]), "d_model": 128}),
    hints=(
        "Write PE(t) . PE(t+k) as a sum over the pairs and look at one pair's two products, "
        "sin(a) sin(b) + cos(a) cos(b) with a = theta_i t and b = theta_i (t + k). One "
        "angle-addition formula turns that into a single cosine.",
        "cos(b - a) = cos a cos b + sin a sin b: the bracket is one cosine. Work out b - a for "
        "pair i and check that t is gone, then sum that cosine over the d/2 pairs. In NumPy: an "
        "outer product of the offsets and the theta_i (shape (len(k), d/2)), the function, then "
        "a sum over the last axis.",
    ),
    shortcuts=(offset_similarity, similarity_matrix, sinusoidal_encoding, sinusoidal_encoding_at,
               encoding_from_frequencies),
    mistakes=(
        StepMistake("sin(b - a) instead of cos(b - a)", lambda right, k, d_model:
                    _phase_sum(k, inverse_frequencies(d_model)).imag),
        StepMistake("each pair counted twice (d terms instead of d/2)",
                    lambda right, **_: 2 * right),
        StepMistake("the exponent i/d instead of 2i/d", lambda right, k, d_model:
                    _phase_sum(k, np.sqrt(inverse_frequencies(d_model))).real),
        StepMistake("one frequency per column (d of them) instead of one per pair",
                    lambda right, k, d_model: _phase_sum(
                        k, inverse_frequencies(2 * d_model) ** 2).real),
    ),
    derived=True,
)


def _directions(encoding: Any) -> int:
    return directions_for_variance(encoding)


def _count(weights: NDArray[np.float64], share: float = 0.99) -> int:
    """How many of ``weights`` (largest first) reach ``share`` of their sum."""
    return int(np.searchsorted(np.cumsum(weights) / weights.sum(), share * (1 - 1e-12)) + 1)


def _sigmas(encoding: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.linalg.svd(encoding - encoding.mean(axis=0), compute_uv=False)


direction_count = BuildStep(
    key="03.steps.direction_count", name="direction count", answer_name="directions_by_me",
    reference=_directions,
    cases=({"encoding": sinusoidal_encoding(64, 64)}, {"encoding": sinusoidal_encoding(100, 64)}),
    hints=(
        "The variation along direction j is sigma_j squared, and the singular values come "
        "largest first: the question is how many of the first ones it takes to reach the share.",
        "Subtract the mean row, take np.linalg.svd(..., compute_uv=False), square. The running "
        "sum (np.cumsum) divided by the total is the share held by the first r directions; the "
        "first place where it reaches `share` is found with np.searchsorted, and it is an index "
        "counted from 0, while r counts directions.",
    ),
    shortcuts=(directions_for_variance,),
    mistakes=(
        # rows E and -E have mean 0: their centred directions are E's uncentred ones
        StepMistake("the rows not centred", lambda right, encoding:
                    directions_for_variance(np.vstack([encoding, -encoding]))),
        StepMistake("sigma_j instead of sigma_j^2",
                    lambda right, encoding: _count(_sigmas(encoding))),
        StepMistake("one direction short (an index counted from 0, not a count)",
                    lambda right, **_: right - 1),
    ),
)

"""Build steps of notebook 07: T5's encoder bucket of an offset, and ALiBi's causal bias with its
slopes derived from the condition on the last head.

Notebook: 07_other_schemes (``nb07.steps``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.bias import (
    alibi_bias,
    alibi_slopes,
    alibi_weights_by_distance,
    t5_bias,
    t5_relative_position_bucket,
)  # fmt: skip
from posenc_lib.bias_variants import kerple_bias
from posenc_lib.exercises._steps import BuildStep, StepMistake

__all__ = ["alibi", "t5_bucket"]


def _bucket(relative_position: Any) -> NDArray[np.int64]:
    return t5_relative_position_bucket(relative_position)


t5_bucket = BuildStep(
    key="07.steps.t5_bucket", name="T5 bucket", answer_name="t5_bucket_by_me",
    reference=_bucket, cases=({"relative_position": np.arange(-300, 301)},
                              {"relative_position": np.array([0, 7, 8, 127, 128, -9, -1000])}),
    hints=(
        "Work per direction on the distance n = |j - i|: the formula gives a bucket from 0 to 15; "
        "keys after the query (j - i > 0) then move to the second set of 16 buckets.",
        "n = np.abs(relative_position); for n < 8 the bucket is n; otherwise it is 8 plus the "
        "truncated logarithmic part (.astype(int)), capped at 15 with np.minimum. np.where picks "
        "between the two (np.maximum(n, 8) keeps the logarithm finite where it is not used); "
        "finally add 16 where relative_position > 0.",
    ),
    shortcuts=(t5_relative_position_bucket, t5_bias, _bucket),
    mistakes=(
        StepMistake("query - key instead of key - query",
                    lambda right, relative_position: _bucket(-np.asarray(relative_position))),
        StepMistake("the decoder's rule (every future key in bucket 0)",
                    lambda right, relative_position: t5_relative_position_bucket(
                        relative_position, bidirectional=False)),
        StepMistake("the offset 0 counted as a key after the query (j - i >= 0 moved by 16)",
                    lambda right, relative_position: np.where(
                        np.asarray(relative_position) == 0, 16, right)),
    ),
)


def _alibi(n_heads: int, length: int) -> NDArray[np.float64]:
    return alibi_bias(alibi_slopes(n_heads), length)


alibi = BuildStep(
    key="07.steps.alibi", name="ALiBi bias", answer_name="alibi_bias_by_me", reference=_alibi,
    cases=({"n_heads": 8, "length": 12}, {"n_heads": 4, "length": 5},
           {"n_heads": 16, "length": 6}),
    hints=(
        "Start with the slopes: m_h = r^h for h = 1, ..., H, and the condition is on the last "
        "head, r^H = 2^-8. Solve it for r (a power of 2). Then the bias: -m_h times the distance "
        "i - j on and below the diagonal, -inf above it.",
        "Take log2 of both sides of r^H = 2^-8 to find r, then raise r to the head numbers "
        "np.arange(1, H + 1) (the first head has slope r, not 1). For the bias, "
        "np.subtract.outer(np.arange(length), np.arange(length)) is i - j; multiply it by -m_h "
        "with the slopes shaped (H, 1, 1), and put -np.inf where i - j < 0 with np.where.",
    ),
    shortcuts=(_alibi, alibi_bias, alibi_slopes, alibi_weights_by_distance, kerple_bias),
    mistakes=(
        StepMistake("heads counted from h = 0, so the first head gets slope 1",
                    lambda right, n_heads, length: alibi_bias(
                        alibi_slopes(n_heads) * 2.0 ** (8 / n_heads), length)),
        StepMistake("the slopes 1/2, 1/4, 1/8, ... whatever H (the ratio of 8 heads): the last "
                    "head must reach 2^-8", lambda right, n_heads, length: alibi_bias(
                        0.5 ** np.arange(1, n_heads + 1), length)),
        StepMistake("+m (i - j): a reward for distance, not a penalty",
                    lambda right, **_: np.where(np.isinf(right), right, -right)),
        StepMistake("no causal mask: -m |i - j| both ways",
                    lambda right, n_heads, length: alibi_bias(
                        alibi_slopes(n_heads), length, causal=False)),
    ),
    derived=True,
)

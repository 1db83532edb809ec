"""Exercises that rebuild registered figures and read their data back.

Notebook: 11_figure_gallery.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from posenc_lib import analysis
from posenc_lib.analysis import offset_similarity
from posenc_lib.exercises._core import Exercise, Mistake
from posenc_lib.sinusoidal import sinusoidal_encoding

__all__ = ["dot_row", "heatmap_shape", "yarn_untouched"]


def _untouched_pairs(method: str, **extra: Any) -> int:
    """Pairs whose frequency ratio is 1 for head_dim 128, factor 8, trained length 4096."""
    config = {
        "rope_type": method,
        "factor": 8.0,
        "original_max_position_embeddings": 4096,
        **extra,
    }
    ratio = analysis.frequency_ratio(128, 10000.0, config, seq_len=8 * 4096)
    return int(np.count_nonzero(np.isclose(ratio, 1.0)))


heatmap_shape = Exercise(
    key="11.heatmap_shape",
    title="The shape of the image in heatmap_002 rebuilt with d_model=128 and 60 positions",
    answer_name="shape",
    # shape of encoding.T = (d_model, n_positions)
    expected=lambda: np.array(sinusoidal_encoding(60, 128).T.shape),
    hint_text=(
        "build_figure(name, **parameters) returns a Figure; its first axes holds one image, "
        "fig.axes[0].images[0], and get_array() gives the numbers drawn. Which axis of the "
        "picture shows the dimension in write-up 002?"
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the encoding's own shape (n_positions, d_model); heatmap_002 draws its transpose",
            lambda: np.array(sinusoidal_encoding(60, 128).shape),
        ),
        Mistake(
            "the registry's defaults (300 dimensions x 100 positions)", lambda: np.array([300, 100])
        ),
    ),
)

dot_row = Exercise(
    key="11.dot_row",
    title="Row 0 of dot_product_matrix rebuilt with d_model=32 and base=100",
    answer_name="row",
    expected=lambda: offset_similarity(np.arange(50), 32, base=100.0),
    hint_text=(
        "Pass both parameters to build_figure, then take row 0 of the image's array: "
        "PE(0)·PE(k) for k = 0 .. 49."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the default base 10000 (base=100.0 not passed)",
            lambda: offset_similarity(np.arange(50), 32),
        ),
        Mistake(
            "the default d_model 128 (d_model=32 not passed)",
            lambda: offset_similarity(np.arange(50), 128, base=100.0),
        ),
    ),
)

yarn_untouched = Exercise(
    key="11.yarn_untouched",
    title="How many of the 64 pairs YaRN leaves untouched (ratio 1) for factor 8",
    answer_name="untouched",
    expected=lambda: _untouched_pairs("yarn"),
    hint_text=(
        "Rebuild frequency_ratio with factor=8.0 (and methods=('yarn',) to keep one line), find "
        "the line whose get_label() is 'yarn', and count the y values close to 1 "
        "(np.isclose)."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the count of the NTK-aware line (only pair 0 keeps its frequency)",
            lambda: _untouched_pairs("ntk"),
        ),
        Mistake(
            "the count of the llama3 line (its high-frequency band is wider)",
            lambda: _untouched_pairs("llama3", low_freq_factor=1.0, high_freq_factor=4.0),
        ),
    ),
)

"""Exercises on RoPE in today's models: slow pairs from a config, pairings, p-RoPE, MLA's cache.

Notebook: 09_rope_in_todays_models.

Each exercise computes its expected answer with posenc_lib (the configs of
:mod:`posenc_lib.presets`, the frequencies of :mod:`posenc_lib.models` and
:mod:`posenc_lib.rope_variants`); the solution code is the notebook's solution cell, word for
word.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from posenc_lib.exercises._core import Exercise, Mistake
from posenc_lib.frequencies import inverse_frequencies, turns_in_context
from posenc_lib.models import rope_frequencies_from_config
from posenc_lib.presets import PRESETS
from posenc_lib.rope import apply_rope
from posenc_lib.rope_variants import p_rope_frequencies

__all__ = ["llama31_slow_pairs", "mystery_rotation", "pairing", "p_rope", "mla_cache"]

# --------------------------------------------------------------------------- 09.llama31_slow_pairs


def _slow(inv_freq: NDArray[np.float64], length: int = 8192) -> int:
    return int(np.count_nonzero(turns_in_context(inv_freq, length) < 1))


llama31_slow_pairs = Exercise(
    key="09.llama31_slow_pairs",
    title="Llama 3.1 8B: how many pairs make less than one turn in 8192 tokens?",
    answer_name="n_slow",
    expected=lambda: _slow(rope_frequencies_from_config(PRESETS["llama-3.1-8b"])[0]),
    hint_text=(
        "Read the frequencies the model really uses, llama3 scaling included: "
        "rope_frequencies_from_config(PRESETS['llama-3.1-8b']). Pair i makes "
        "L * theta_i / (2 pi) turns in L positions; count the pairs below 1 (a Python int)."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the unscaled frequencies 500000**(-2i/128) (the llama3 scaling is part of the config)",
            lambda: _slow(inverse_frequencies(128, 500000.0)),
        ),
        Mistake(
            "counting at max_position_embeddings = 131072 instead of L = 8192",
            lambda: _slow(rope_frequencies_from_config(PRESETS["llama-3.1-8b"])[0], 131072),
        ),
        Mistake(
            "base 10000 (Llama 2's), not the config's rope_theta 500000",
            lambda: _slow(inverse_frequencies(128, 10000.0)),
        ),
    ),
)

# --------------------------------------------------------------------------- 09.pairing

_MYSTERY_PAIRING = "half"


def mystery_rotation() -> tuple[NDArray[np.float64], NDArray[np.float64], int, NDArray[np.float64]]:
    """Return ``(x, rotated, position, inv_freq)``: a key and the same key after RoPE at
    ``position``, with a pairing the learner has to find. x has shape (1, 16)."""
    rng = np.random.default_rng(2024)
    x = rng.normal(size=(1, 16))
    inv_freq = inverse_frequencies(16, 10000.0)
    position = 37
    rotated = apply_rope(x, [position], inv_freq, pairing=_MYSTERY_PAIRING)
    return x, rotated, position, inv_freq


pairing = Exercise(
    key="09.pairing",
    title="Which pairing rotated the mystery key: 'interleaved' or 'half'?",
    answer_name="pairing",
    expected=lambda: _MYSTERY_PAIRING,
    hint_text=(
        "Rotate x yourself with apply_rope(x, [position], inv_freq, pairing=p) for both values "
        "of p and compare with `rotated` (np.allclose). Only one matches."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "the other layout: (2i, 2i+1) is 'interleaved' (Meta's and GPT-J's code), "
            "(i, i + d/2) is 'half' (GPT-NeoX and Hugging Face)",
            lambda: "interleaved",
        ),
    ),
)

# --------------------------------------------------------------------------- 09.p_rope

p_rope = Exercise(
    key="09.p_rope",
    title="p-RoPE frequencies for head_dim 64, base 10000, p = 0.25",
    answer_name="inv_freq_p",
    expected=lambda: p_rope_frequencies(64, 0.25, 10000.0),
    hint_text=(
        "Start from the 32 ordinary frequencies base**(-2i/64). p-RoPE keeps the fastest "
        "floor(p * 64 / 2) of them unchanged (the first ones) and sets the others to 0."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake(
            "keeping the slowest pairs instead of the fastest (p-RoPE drops the low frequencies)",
            lambda: np.where(np.arange(32) >= 24, inverse_frequencies(64), 0.0),
        ),
        Mistake(
            "respacing the kept frequencies as partial rotary does (base**(-2i/16))",
            lambda: np.concatenate([inverse_frequencies(16), np.zeros(24)]),
        ),
        Mistake(
            "keeping p * d = 16 pairs instead of p * d / 2 = 8",
            lambda: np.where(np.arange(32) < 16, inverse_frequencies(64), 0.0),
        ),
    ),
)

# --------------------------------------------------------------------------- 09.mla_cache

_V3 = PRESETS["deepseek-v3"]

mla_cache = Exercise(
    key="09.mla_cache",
    title="DeepSeek-V3 without a shared rotary key: numbers cached per token and layer",
    answer_name="per_token",
    expected=lambda: _V3["kv_lora_rank"] + _V3["num_attention_heads"] * _V3["qk_rope_head_dim"],
    hint_text=(
        "The cache keeps the latent c_kv (kv_lora_rank numbers) and the rotated keys k^R. "
        "If every head had its own k^R instead of one shared, how many k^R numbers would a "
        "token need? Read the sizes from PRESETS['deepseek-v3']."
    ),
    level="core",
    kind="derivation",
    objective="TODO",
    minutes=10,
    mistakes=(
        Mistake("the shared rotary key (one k^R for all heads, what DeepSeek does)",
                lambda: _V3["kv_lora_rank"] + _V3["qk_rope_head_dim"]),
        Mistake("forgetting the latent c_kv",
                lambda: _V3["num_attention_heads"] * _V3["qk_rope_head_dim"]),
        Mistake(
            "full multi-head keys and values (what MLA avoids)",
            lambda: _V3["num_attention_heads"]
            * (_V3["qk_nope_head_dim"] + _V3["qk_rope_head_dim"] + _V3["v_head_dim"]),
        ),
    ),
)

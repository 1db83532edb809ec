"""Build steps of notebook 09: the rotated dims of a config (derived from reading five real
configs) and the frequencies of a config without rope_scaling.

Notebook: 09_rope_in_todays_models (``nb09.steps``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.exercises._steps import BuildStep, StepMistake
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.model_pairs import classify_config_pairs
from posenc_lib.models import rope_frequencies_from_config, rotary_dims_from_config
from posenc_lib.presets import PRESETS
from posenc_lib.rope_variants import partial_rotary_dims, rotary_dimension
from posenc_lib.scaling import rope_frequencies

__all__ = ["inv_freq", "rotated_dims"]


def _rotated_dims(config: Mapping[str, Any]) -> int:
    try:
        return rotary_dims_from_config(config)
    except ValueError:  # Gemma 3: one RoPE per layer type, the same dims in each
        return rotary_dims_from_config(config, layer_type="full_attention")


def _split_head(config: Mapping[str, Any]) -> int:
    """hidden_size // num_attention_heads, whatever else the config says."""
    return int(config["hidden_size"]) // int(config["num_attention_heads"])


def _head_dim_missed(right: int, config: Mapping[str, Any]) -> int:
    """What a reading that misses a given head_dim returns (the right count without one)."""
    return _split_head(config) if "head_dim" in config else right


def _mla_part_missed(right: int, config: Mapping[str, Any]) -> int:
    """What a reading that misses DeepSeek's qk_rope_head_dim returns (the right count for a
    config without one)."""
    return _split_head(config) if "qk_rope_head_dim" in config else right


def _share(config: Mapping[str, Any]) -> float:
    return float(config.get("partial_rotary_factor", config.get("rotary_pct", 1.0)))


rotated_dims = BuildStep(
    key="09.steps.rotated_dims", name="count of rotated dims", answer_name="rotated_dims_by_me",
    reference=_rotated_dims,
    cases=tuple({"config": PRESETS[name]} for name in
                ("llama-3.1-8b", "gemma-3-27b", "phi-4-mini", "pythia-1.4b", "deepseek-v3")),
    hints=(
        "Three things decide it: the size of one head, the share of it that rotates, and "
        "DeepSeek's latent attention, which states its rotary part on its own. Print each of the "
        "five configs and look for the keys of each; a key that is missing takes its default.",
        "Head size: head_dim when the config has it, else hidden_size // num_attention_heads "
        "(Gemma 3 has both, and they differ). Share: partial_rotary_factor, or Pythia's "
        "rotary_pct, 1 when neither is there; multiply and round down with int(). When "
        "qk_rope_head_dim is in the config, return it as it is.",
    ),
    shortcuts=(rotary_dims_from_config, _rotated_dims, rope_frequencies_from_config,
               classify_config_pairs, partial_rotary_dims, rotary_dimension),
    mistakes=(
        StepMistake("DeepSeek's qk_rope_head_dim not read: its rotary part is stated apart from "
                    "the head", lambda right, config: _mla_part_missed(right, config)),
        StepMistake("hidden_size // num_attention_heads although the config gives head_dim",
                    lambda right, config: _head_dim_missed(right, config)),
        StepMistake("the whole head: the share that rotates (partial_rotary_factor, Pythia's "
                    "rotary_pct) left out", lambda right, config: round(right / _share(config))),
        StepMistake("the number of rotated pairs, not of rotated dims",
                    lambda right, config: right // 2),
    ),
    derived=True,
)


def _rope_theta(config: Mapping[str, Any]) -> float:
    return float(config.get("rope_theta", config.get("rotary_emb_base", 10000.0)))


def _inv_freq(config: Mapping[str, Any]) -> NDArray[np.float64]:
    theta, _ = rope_frequencies_from_config(config)
    return theta


inv_freq = BuildStep(
    key="09.steps.inv_freq", name="frequency table", answer_name="inv_freq_by_me",
    reference=_inv_freq,
    cases=tuple({"config": PRESETS[name]} for name in ("pythia-1.4b", "qwen3-8b", "smollm3-3b")),
    hints=(
        "Notebook 05's frequencies, spaced over the r rotated dims instead of the whole head, "
        "with the config's own base.",
        "Take r from my_rotated_dims(config) and the base from rope_theta (Pythia's config calls "
        "it rotary_emb_base); the exponents 2i/r for i = 0, ..., r/2 - 1 are "
        "np.arange(0, r, 2) / r.",
    ),
    # a right inv_freq_by_me calls my_rotated_dims, whose fallback (the rotated-dims step left
    # blank or wrong) reads the config (rotary_dims_from_config) and computes no frequency
    shortcuts=(_inv_freq, rope_frequencies_from_config, rope_frequencies, inverse_frequencies),
    mistakes=(
        StepMistake("the exponent i/r instead of 2i/r",
                    lambda right, config: np.exp(np.log(right) / 2)),
        StepMistake("spaced over the whole head instead of the rotated dims",
                    lambda right, config: inverse_frequencies(
                        2 * round(right.size / _share(config)), _rope_theta(config))),
        StepMistake("the base 10000 of the early models, not the config's own",
                    lambda right, config: inverse_frequencies(2 * right.size, 10000.0)),
    ),
)

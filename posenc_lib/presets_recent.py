"""Position-relevant ``config.json`` fields of 2025-26 models, with where each value comes from.

These configs sit beside :data:`posenc_lib.presets.PRESETS` rather than inside it: the older
presets are pinned against numbers transformers itself produced (``tests/data``), and the course's
explorers and exercises iterate over them. The models here need what the older ones lack -- a
per-layer-type RoPE with a wider global head (Gemma 4), layers with no position encoding at all
(Qwen3-Next, Kimi Linear), an explicit ``rotary_dim`` (MiniMax-M2), a position-dependent logit
temperature (Ministral 3) -- and ``tests/test_models.py`` checks each of them against a hand
computation from the published config and code instead.

``RECENT_PRESETS[name]`` is a plain dict (a multimodal model's ``text_config`` fields), so
``rope_frequencies_from_config(RECENT_PRESETS["glm-4.5-air"])`` works. ``_RECENT_SOURCES[name]``
names the repository, file and commit (or the copies) each value was read from, and what could
not be verified.

Notebook: 09_rope_in_todays_models.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RECENT_PRESETS"]

_GEMMA4_E2B_LAYER_TYPES = (["sliding_attention"] * 4 + ["full_attention"]) * 7
_KIMI_LINEAR_FULL = [4, 8, 12, 16, 20, 24, 27]  # 1-based, as the checkpoint writes them
# 43 layers and the MTP block: 2 sliding layers, then 4 and 128 alternating, then the MTP's 0
_DEEPSEEK_V4_FLASH_RATIOS = [0, 0] + [4, 128] * 20 + [4, 0]

RECENT_PRESETS: dict[str, dict[str, Any]] = {
    "gemma-4-e2b": {
        "model_type": "gemma4_text",
        "hidden_size": 1536,
        "num_hidden_layers": 35,
        "num_attention_heads": 8,
        "num_key_value_heads": 1,
        "head_dim": 256,
        "global_head_dim": 512,
        "num_kv_shared_layers": 20,
        "sliding_window": 512,
        "max_position_embeddings": 131072,
        "layer_types": _GEMMA4_E2B_LAYER_TYPES,
        "rope_parameters": {
            "full_attention": {
                "partial_rotary_factor": 0.25,
                "rope_theta": 1000000.0,
                "rope_type": "proportional",
            },
            "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"},
        },
    },
    "qwen3-next-80b-a3b": {
        "model_type": "qwen3_next",
        "hidden_size": 2048,
        "num_hidden_layers": 48,
        "num_attention_heads": 16,
        "num_key_value_heads": 2,
        "head_dim": 256,
        "max_position_embeddings": 262144,
        "rope_theta": 10000000,
        "partial_rotary_factor": 0.25,
        "full_attention_interval": 4,
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 32,
        "linear_key_head_dim": 128,
        "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4,
    },
    "kimi-linear-48b-a3b": {
        "model_type": "kimi_linear",
        "hidden_size": 2304,
        "num_hidden_layers": 27,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
        "rope_theta": 10000.0,
        "kv_lora_rank": 512,
        "q_lora_rank": None,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
        "mla_use_nope": True,
        "linear_attn_config": {
            "head_dim": 128,
            "num_heads": 32,
            "short_conv_kernel_size": 4,
            "kda_layers": [i for i in range(1, 28) if i not in _KIMI_LINEAR_FULL],
            "full_attn_layers": _KIMI_LINEAR_FULL,
        },
    },
    "ministral-3-8b": {
        "model_type": "ministral3",
        "hidden_size": 4096,
        "num_hidden_layers": 34,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "max_position_embeddings": 262144,
        "rope_parameters": {
            "type": "yarn",
            "rope_theta": 1000000.0,
            "factor": 16.0,
            "original_max_position_embeddings": 16384,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
            "llama_4_scaling_beta": 0.1,
        },
    },
    "glm-4.5-air": {
        "model_type": "glm4_moe",
        "hidden_size": 4096,
        "num_hidden_layers": 46,
        "num_attention_heads": 96,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "max_position_embeddings": 131072,
        "partial_rotary_factor": 0.5,
        "rope_theta": 1000000,
        "rope_scaling": None,
    },
    "minimax-m2": {
        "model_type": "minimax_m2",
        "hidden_size": 3072,
        "num_hidden_layers": 62,
        "num_attention_heads": 48,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "rotary_dim": 64,
        "rope_theta": 5000000,
        "max_position_embeddings": 196608,
    },
    "qwen3-vl-4b": {
        "model_type": "qwen3_vl_text",
        "hidden_size": 2560,
        "num_hidden_layers": 36,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "max_position_embeddings": 262144,
        "rope_scaling": {
            "mrope_interleaved": True,
            "mrope_section": [24, 20, 20],
            "rope_type": "default",
        },
        "rope_theta": 5000000,
    },
    "deepseek-v3.2-exp": {
        "model_type": "deepseek_v32",
        "hidden_size": 7168,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "num_hidden_layers": 61,
        "q_lora_rank": 1536,
        "kv_lora_rank": 512,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
        "index_n_heads": 64,
        "index_head_dim": 128,
        "index_topk": 2048,
        "max_position_embeddings": 163840,
        "rope_theta": 10000,
        "rope_scaling": {
            "beta_fast": 32,
            "beta_slow": 1,
            "factor": 40,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
            "original_max_position_embeddings": 4096,
            "type": "yarn",
        },
    },
    "deepseek-v4-flash": {
        "model_type": "deepseek_v4",
        "hidden_size": 4096,
        "num_hidden_layers": 43,
        "num_attention_heads": 64,
        "num_key_value_heads": 1,
        "head_dim": 512,
        "qk_rope_head_dim": 64,
        "sliding_window": 128,
        "index_n_heads": 64,
        "index_head_dim": 128,
        "index_topk": 512,
        "max_position_embeddings": 1048576,
        "rope_theta": 10000,
        "compress_rope_theta": 160000,
        "compress_ratios": _DEEPSEEK_V4_FLASH_RATIOS,
        "rope_scaling": {
            "beta_fast": 32,
            "beta_slow": 1,
            "factor": 16,
            "original_max_position_embeddings": 65536,
            "type": "yarn",
        },
    },
}
"""Position-relevant config.json fields of 2025-26 models, keyed by a short name."""

_TF = "huggingface/transformers"
_RECENT_SOURCES: dict[str, str] = {
    "gemma-4-e2b": (
        f"google/gemma-4-E2B-it text_config. Sizes and layer pattern from {_TF} "
        "src/transformers/models/gemma4/convert_gemma4_weights.py (_VARIANTS['gemma-4-e2b'], "
        "commit 0f3f0632a38798af2adf264adc752130ecc5fa66); head_dim 256, global_head_dim 512, "
        "sliding_window 512 and max_position_embeddings 131072 are Gemma4TextConfig defaults "
        "(configuration_gemma4.py, commit 008e574391258935f3ecc3035c882e73bbcac419); a third-party "
        "test fixture quoting the Hub file agrees on every field kept here. 'proportional' from "
        "modeling_rope_utils.py (_compute_proportional_rope_parameters) and modeling_gemma4.py "
        "(head_dim_key='global_head_dim' on full_attention layers)."
    ),
    "qwen3-next-80b-a3b": (
        "Qwen/Qwen3-Next-80B-A3B-Instruct config.json (Hub), as quoted by two third-party copies "
        "(one at revision 9c7f2fbe): head_dim 256, rope_theta 1e7, partial_rotary_factor 0.25, "
        "full_attention_interval 4 with layer_types unset, max_position_embeddings 262144. 16 "
        "heads / 2 KV heads and the linear-attention sizes also match Qwen3NextConfig's defaults "
        f"({_TF} configuration_qwen3_next.py, commit 008e574391258935f3ecc3035c882e73bbcac419)."
    ),
    "kimi-linear-48b-a3b": (
        "moonshotai/Kimi-Linear-48B-A3B-Instruct config.json (Hub, revision "
        "e1df551a447157d4658b573f9a695d57658590e9), fields quoted verbatim by a third-party "
        "package pinned to that revision: mla_use_nope true, qk_rope_head_dim 64, "
        "full_attn_layers 4, 8, ..., 24, 27 (1-based). KimiLinearConfig in "
        f"{_TF} configuration_kimi_linear.py (commit 0bc4dd0d6a7cbd5dee2280a076b8ea89e8af22cd) "
        "documents mla_use_nope as 'pure NoPE mode'."
    ),
    "ministral-3-8b": (
        f"mistralai/Ministral-3-8B-Base-2512: Ministral3Config defaults in {_TF} "
        "configuration_ministral3.py (commit 008e574391258935f3ecc3035c882e73bbcac419), whose "
        "docstring names that checkpoint; a third-party config derived from it agrees (34 layers,"
        " yarn 16 over 16384, llama_4_scaling_beta 0.1). The query scale "
        "1 + beta ln(1 + floor(m / 16384)) is _get_llama_4_attn_scale in modeling_ministral3.py. "
        "The Hub file itself was not read."
    ),
    "glm-4.5-air": (
        "zai-org/GLM-4.5-Air: 46 layers, 96 heads, 8 KV heads, head_dim 128, "
        "partial_rotary_factor 0.5, max_position_embeddings 131072 and rope_theta 1000000 as in "
        "the Hub config.json of PrimeIntellect/INTELLECT-3-Base, a model trained on top of "
        "GLM-4.5-Air-Base with its architecture unchanged (Glm4MoeForCausalLM, transformers "
        "4.54.0); zai-org/GLM-4.7's config.json (same Glm4Moe family) also has rope_theta 1e6 "
        f"and partial 0.5, which is Glm4MoeConfig's default ({_TF} configuration_glm4_moe.py). "
        "zai-org's own GLM-4.5-Air file was not read; an earlier version of this preset had "
        "rope_theta 10000, which no source supports."
    ),
    "minimax-m2": (
        "MiniMaxAI/MiniMax-M2 config.json (Hub): hidden 3072, 62 layers, 48 heads, 8 KV heads, "
        "head_dim 128, rotary_dim 64 as quoted by two third-party loaders; rope_theta 5e6 and "
        f"max_position_embeddings 196608 are MiniMaxM2Config's defaults ({_TF} "
        "configuration_minimax_m2.py, commit 008e574391258935f3ecc3035c882e73bbcac419). Whether "
        "the Hub file also sets partial_rotary_factor could not be verified."
    ),
    "qwen3-vl-4b": (
        "Qwen/Qwen3-VL-4B-Instruct config.json text_config (Hub), quoted verbatim by a "
        "third-party port (kohya-ss/musubi-tuner's krea2 encoder): mrope_section [24, 20, 20], "
        "mrope_interleaved true, rope_theta 5e6, head_dim 128. The interleaving is "
        f"apply_interleaved_mrope in {_TF} modeling_qwen3_vl.py."
    ),
    "deepseek-v3.2-exp": (
        "deepseek-ai/DeepSeek-V3.2-Exp, inference/config_671B_v3.2.json (GitHub, commit "
        "3b99a5350d260b7c2a357e82362305509e2d0724): the MLA sizes of V3 and the indexer's "
        "index_n_heads 64, index_head_dim 128, index_topk 2048; inference/model.py there gives "
        "rope_theta 10000, rope_factor 40 over original_seq_len 4096, mscale 1, the same rotary "
        "table for MLA and the indexer, and the indexer's split [rope, nope]. The half-split "
        "pairing of the indexer is the repository README's update of 2025-11-17 (the commit above "
        "predates it and still rotates the indexer interleaved), quoted by a third-party copy "
        "(fredericowieser/DS-V3.2-Indexer-Viz). max_position_embeddings 163840 as in V3."
    ),
    "deepseek-v4-flash": (
        "deepseek-ai/DeepSeek-V4-Flash config.json (Hub), quoted verbatim by a third-party port "
        "(a mistral.rs audit note that fetched it): head_dim 512, qk_rope_head_dim 64, one KV "
        "head, sliding_window 128, rope_theta 10000, compress_rope_theta 160000, yarn factor 16 "
        "over 65536 without mscale, compress_ratios of 44 entries (the last is the MTP block). "
        f"DeepseekV4Config in {_TF} configuration_deepseek_v4.py (commit "
        "015c078164151a049126942989817713e83a8f3e) has the same defaults and reads the ratios "
        "0, 4, 128 as sliding, compressed sparse and heavily compressed layers; its comments say "
        "sliding layers rotate with rope_theta and no scaling, compressed layers with "
        "compress_rope_theta and YaRN, with attention_factor forced to 1.0."
    ),
}
"""Where each recent preset's values come from, and what could not be verified."""

"""Position-relevant fields of real models' ``config.json``, with where each value comes from.

``PRESETS[name]`` is a plain dict of the config.json fields that decide positions (a multimodal
model's ``text_config``), so ``rope_frequencies_from_config(PRESETS["llama-3.1-8b"])`` works and
compares with the file on the Hub; fields a Hub file leaves out are left out here too, so the
model type's defaults apply. The models run from 2021 (Pythia) to 2026 (DeepSeek-V4).
``PRESET_SOURCES[name]`` says where the values were read and what could not be checked; every
preset feeds ``tools/make_hf_reference.py``, which the parity tests compare against.

Notebook: 09_rope_in_todays_models.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PRESETS", "PRESET_SOURCES"]

_LLAMA4_NO_ROPE_LAYERS = [1, 1, 1, 0] * 12  # 0 = NoPE layer: layers 3, 7, ..., 47
_SMOLLM3_NO_ROPE_LAYERS = [1, 1, 1, 0] * 9  # 0 = NoPE layer: layers 3, 7, ..., 35
_GPT_OSS_LAYER_TYPES = ["sliding_attention", "full_attention"] * 12

_PHI35_LONG = [
    1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601,
    1.5899999141693115, 1.600000023841858, 1.6200000047683716, 2.620000123977661,
    3.2300000190734863, 3.2300000190734863, 4.789999961853027, 7.400000095367432,
    7.700000286102295, 9.09000015258789, 12.199999809265137, 17.670000076293945,
    24.46000099182129, 28.57000160217285, 30.420001983642578, 30.840002059936523,
    32.590003967285156, 32.93000411987305, 42.320003509521484, 44.96000289916992,
    50.340003967285156, 50.45000457763672, 57.55000305175781, 57.93000411987305,
    58.21000289916992, 60.1400032043457, 62.61000442504883, 62.62000274658203,
    62.71000289916992, 63.1400032043457, 63.1400032043457, 63.77000427246094,
    63.93000411987305, 63.96000289916992, 63.970001220703125, 64.02999877929688,
    64.06999969482422, 64.08000183105469, 64.12000274658203, 64.41000366210938,
    64.4800033569336, 64.51000213623047, 64.52999877929688, 64.83999633789062,
]  # fmt: skip
_PHI35_SHORT = [
    1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705, 1.0499999523162842,
    1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842,
    1.0699999332427979, 1.0999999046325684, 1.1099998950958252, 1.1599998474121094,
    1.1599998474121094, 1.1699998378753662, 1.2899998426437378, 1.339999794960022,
    1.679999828338623, 1.7899998426437378, 1.8199998140335083, 1.8499997854232788,
    1.8799997568130493, 1.9099997282028198, 1.9399996995925903, 1.9899996519088745,
    2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346,
    2.0199997425079346, 2.0199997425079346, 2.0299997329711914, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0799996852874756,
    2.0899996757507324, 2.189999580383301, 2.2199995517730713, 2.5899994373321533,
    2.729999542236328, 2.749999523162842, 2.8399994373321533,
]  # fmt: skip
_PHI4_LONG = [
    1, 1.118320672, 1.250641126, 1.398617824, 1.564103225, 1.74916897, 1.956131817,
    2.187582649, 2.446418898, 2.735880826, 3.059592084, 3.421605075, 3.826451687, 4.279200023,
    4.785517845, 5.351743533, 5.984965424, 6.693110555, 7.485043894, 8.370679318, 9.36110372,
    10.4687158, 11.70738129, 13.09260651, 14.64173252, 16.37415215, 18.31155283, 20.47818807,
    22.90118105, 25.61086418, 28.64115884, 32.03, 32.1, 32.13, 32.23, 32.6, 32.61, 32.64,
    32.66, 32.7, 32.71, 32.93, 32.97, 33.28, 33.49, 33.5, 44.16, 47.77,
]  # fmt: skip
_GEMMA4_E2B_LAYER_TYPES = (["sliding_attention"] * 4 + ["full_attention"]) * 7
_KIMI_LINEAR_FULL = [4, 8, 12, 16, 20, 24, 27]  # 1-based, as the checkpoint writes them
# 43 layers and the MTP block: 2 sliding layers, then 4 and 128 alternating, then the MTP's 0
_DEEPSEEK_V4_FLASH_RATIOS = [0, 0] + [4, 128] * 20 + [4, 0]

_TF = "huggingface/transformers"


PRESETS: dict[str, dict[str, Any]] = {
    "llama-3.1-8b": {
        "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
        "num_key_value_heads": 8, "num_hidden_layers": 32, "max_position_embeddings": 131072,
        "rope_theta": 500000.0,
        "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    },
    "llama-3.2-1b": {
        "model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32,
        "num_key_value_heads": 8, "head_dim": 64, "num_hidden_layers": 16,
        "max_position_embeddings": 131072, "rope_theta": 500000.0,
        "rope_scaling": {"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    },
    "llama-4-scout": {
        "model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40,
        "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 48,
        "max_position_embeddings": 10485760, "rope_theta": 500000.0,
        "rope_scaling": {"factor": 16.0, "low_freq_factor": 1.0, "high_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        "no_rope_layers": _LLAMA4_NO_ROPE_LAYERS, "attention_chunk_size": 8192,
        "attn_temperature_tuning": True, "floor_scale": 8192, "attn_scale": 0.1,
    },
    "qwen3-8b": {
        "model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32,
        "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 36,
        "max_position_embeddings": 40960, "rope_theta": 1000000.0, "rope_scaling": None,
        "sliding_window": None, "use_sliding_window": False,
    },
    "qwen2.5-vl-7b": {
        "model_type": "qwen2_5_vl", "hidden_size": 3584, "num_attention_heads": 28,
        "num_key_value_heads": 4, "num_hidden_layers": 28, "max_position_embeddings": 128000,
        "rope_theta": 1000000.0, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        "sliding_window": 32768, "use_sliding_window": False,
    },
    "gemma-3-27b": {
        "model_type": "gemma3_text", "hidden_size": 5376, "num_attention_heads": 32,
        "num_key_value_heads": 16, "head_dim": 128, "num_hidden_layers": 62,
        "query_pre_attn_scalar": 168, "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024,
    },
    "deepseek-v3": {
        "model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128,
        "num_key_value_heads": 128, "num_hidden_layers": 61, "q_lora_rank": 1536,
        "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "max_position_embeddings": 163840, "rope_theta": 10000,
        "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0,
                         "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096,
                         "type": "yarn"},
    },
    "gpt-oss-20b": {
        "model_type": "gpt_oss", "hidden_size": 2880, "num_attention_heads": 64,
        "num_key_value_heads": 8, "head_dim": 64, "num_hidden_layers": 24,
        "max_position_embeddings": 131072, "rope_theta": 150000,
        "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
                         "original_max_position_embeddings": 4096, "rope_type": "yarn",
                         "truncate": False},
        "sliding_window": 128, "layer_types": _GPT_OSS_LAYER_TYPES,
    },
    "phi-3.5-mini": {
        "model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32,
        "num_key_value_heads": 32, "num_hidden_layers": 32, "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
        "rope_scaling": {"long_factor": _PHI35_LONG, "short_factor": _PHI35_SHORT,
                         "type": "longrope"},
        "sliding_window": 262144,
    },
    "phi-4-mini": {
        "model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 24,
        "num_key_value_heads": 8, "num_hidden_layers": 32, "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096, "partial_rotary_factor": 0.75,
        "rope_theta": 10000.0,
        "rope_scaling": {"long_factor": _PHI4_LONG, "short_factor": [1.0] * 48, "type": "longrope"},
        "sliding_window": 262144,
    },
    "mistral-7b-v0.3": {
        "model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32,
        "num_key_value_heads": 8, "num_hidden_layers": 32, "max_position_embeddings": 32768,
        "rope_theta": 1000000.0, "sliding_window": None,
    },
    "smollm3-3b": {
        "model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16,
        "num_key_value_heads": 4, "num_hidden_layers": 36, "max_position_embeddings": 65536,
        "rope_theta": 5000000.0, "rope_scaling": None, "no_rope_layers": _SMOLLM3_NO_ROPE_LAYERS,
        "no_rope_layer_interval": 4, "sliding_window": None, "use_sliding_window": False,
    },
    "pythia-1.4b": {
        "model_type": "gpt_neox", "hidden_size": 2048, "num_attention_heads": 16,
        "num_hidden_layers": 24, "max_position_embeddings": 2048, "rotary_pct": 0.25,
        "rotary_emb_base": 10000,
    },
    # 2025-26 models
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
"""Position-relevant config.json fields of real models, keyed by a short name."""

PRESET_SOURCES: dict[str, str] = {
    "llama-3.1-8b": (
        "meta-llama/Llama-3.1-8B, config.json (Hugging Face Hub). rope_scaling and rope_theta "
        "checked against several independent copies of the file and Meta's apply_scaling "
        "defaults (factor 8, low 1, high 4, 8192); sizes from the same copies."
    ),
    "llama-3.2-1b": (
        "meta-llama/Llama-3.2-1B, config.json (Hub), checked against independent verbatim "
        "copies: head_dim 64, llama3 factor 32."
    ),
    "llama-4-scout": (
        "meta-llama/Llama-4-Scout-17B-16E-Instruct, config.json text_config (Hub), as quoted by "
        "inference engines' test fixtures: max_position_embeddings 10485760 and llama3 factor 16 "
        "with low_freq_factor = high_freq_factor = 1. A dump labelled Llama-4-Scout-17B-16E "
        "shows max_position_embeddings 262144 and factor 8 / low 1 / high 4 instead; which Hub "
        "revision carries which could not be verified. attn_temperature_tuning is 4 (truthy) in "
        "that dump and true elsewhere; transformers only tests its truth. no_rope_layers, "
        "floor_scale 8192 and attn_scale 0.1 verified; NoPE temperature in "
        "transformers/models/llama4/modeling_llama4.py."
    ),
    "qwen3-8b": "Qwen/Qwen3-8B, config.json (Hub), verified against a verbatim copy.",
    "qwen2.5-vl-7b": (
        "Qwen/Qwen2.5-VL-7B-Instruct, config.json (Hub; language-model fields at the top "
        "level), verified against verbatim copies; mrope_section [16, 24, 24]."
    ),
    "gemma-3-27b": (
        "google/gemma-3-27b-it, config.json text_config (Hub), verified against two copies: "
        "rope_theta, rope_local_base_freq, max_position_embeddings and the sliding-window "
        "pattern are absent from the file, so transformers' Gemma3TextConfig defaults apply "
        "(1e6 for full_attention, 1e4 for sliding_attention, 131072, every 6th layer full)."
    ),
    "deepseek-v3": (
        "deepseek-ai/DeepSeek-V3, config.json (Hub), verified against several copies: MLA "
        "sizes, yarn factor 40 with mscale = mscale_all_dim = 1."
    ),
    "gpt-oss-20b": (
        "openai/gpt-oss-20b, config.json (Hub), verified against verbatim copies: yarn factor "
        "32 with truncate false, rope_theta 150000, 24 layers alternating sliding (128) and "
        "full, 64 heads, 8 KV heads. hidden_size 2880 and head_dim 64 seen in a copy of the "
        "gpt-oss-120b config (same attention shape), not in a 20b copy. YaRN and the sink "
        "softmax also checked in openai/gpt-oss gpt_oss/torch/model.py."
    ),
    "phi-3.5-mini": (
        "microsoft/Phi-3.5-mini-instruct, config.json (Hub): the Phi-3 mini architecture with "
        "128k LongRoPE. Factor lists verified in two independent repositories (one Microsoft's "
        "own); the lists of Phi-3-mini-128k-instruct itself could not be verified, so this "
        "preset stands for it. max_position_embeddings 131072 not seen in a verbatim copy."
    ),
    "phi-4-mini": (
        "microsoft/Phi-4-mini-instruct, config.json (Hub), verified against several verbatim "
        "copies: partial_rotary_factor 0.75 (96 of 128 dims rotate), longrope lists of 48."
    ),
    "mistral-7b-v0.3": (
        "mistralai/Mistral-7B-v0.3, config.json (Hub). Sizes verified; rope_theta 1e6 verified "
        "in Mistral's own parameters for the v0.2 architecture (v0.3 changes only the "
        "vocabulary); max_position_embeddings 32768 and sliding_window null not seen in a "
        "verbatim copy of the v0.3 file."
    ),
    "smollm3-3b": (
        "HuggingFaceTB/SmolLM3-3B, config.json (Hub), verified against verbatim copies: "
        "rope_theta 5e6, every 4th layer NoPE (no_rope_layers 1,1,1,0 ...)."
    ),
    "pythia-1.4b": (
        "EleutherAI/pythia-1.4b, config.json (Hub): rotary_pct 0.25 and rotary_emb_base 10000 "
        "verified for the Pythia family; 24 layers and hidden size 2048 verified; 16 heads "
        "from the Pythia paper (Biderman et al. 2023, table 1), not seen in a verbatim copy."
    ),
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
"""Where each preset's values come from, and what could not be verified."""

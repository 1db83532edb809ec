"""Tests for posenc_lib.models and posenc_lib.presets.

The parity tests compare with numbers that Hugging Face transformers itself produced
(tests/data/hf_rope_reference.json, written by tools/make_hf_reference.py in a separate
environment: the course never imports torch). The property tests recompute the expected values
with plain ``math`` from the formulas, never from the code under test.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import posenc_lib
from posenc_lib.model_pairs import UNROTATED_KINDS, _transformers_layer_type, config_layer_kinds
from posenc_lib.models import rope_frequencies_from_config
from posenc_lib.presets import PRESET_SOURCES, PRESETS
from tests.rope_by_hand import theta, yarn_by_hand

REFERENCE = json.loads(
    (Path(__file__).parent / "data" / "hf_rope_reference.json").read_text(encoding="utf-8")
)
CASES = REFERENCE["cases"]
RTOL = 1e-6  # transformers computes in float32; this library in float64


def case_id(case: dict[str, Any]) -> str:
    return f"{case['name']}-{case['layer_type'] or 'all'}-{case['seq_len']}"


# --------------------------------------------------------------------------- parity with HF


def test_reference_records_versions_and_command() -> None:
    versions = REFERENCE["versions"]
    assert versions["transformers"] == "5.23.0"
    assert versions["torch"].startswith("2.13.0")
    assert {"python", "numpy"} <= set(versions)
    assert "make_hf_reference.py" in REFERENCE["command"]


def test_reference_covers_every_preset_with_the_same_config() -> None:
    every = PRESETS
    stored = {c["preset"]: c["config"] for c in CASES if c["preset"] is not None}
    no_rope = set(REFERENCE["no_rope"])
    assert set(stored) | no_rope == set(every), "regenerate the reference after changing presets"
    for name, config in stored.items():
        assert config == json.loads(json.dumps(every[name])), name
    for name in no_rope:  # transformers builds no rotary embedding: the reader says why
        with pytest.raises(ValueError, match="no RoPE|NoPE"):
            rope_frequencies_from_config(every[name])


def test_reference_leaves_every_default_to_the_model_type() -> None:
    """One bare config per model type the reader knows a default for: no rope_theta, head_dim,
    partial rotary factor or RoPE dict, so each of those defaults meets transformers'."""
    from posenc_lib import models

    bare = {c["config"]["model_type"]: c["config"] for c in CASES if c["name"].startswith("bare-")}
    named = (set(models._MODEL_DEFAULTS) | set(models._PARTIAL_DEFAULTS) | set(models._DEFAULT_ROPE)
             | set(models._MLA_ROPE_HEAD_DIM) | {"phi3"})
    assert named <= set(bare), sorted(named - set(bare))
    rope_keys = {"rope_theta", "head_dim", "partial_rotary_factor", "rope_scaling",
                 "rope_parameters", "rotary_pct", "rotary_emb_base", "qk_rope_head_dim"}
    for config in bare.values():
        assert not rope_keys & set(config.get("text_config", config)), config


def test_reference_has_seq_lens_and_layer_types() -> None:
    assert any(c["rope_type"] == "dynamic" and c["seq_len"] for c in CASES)
    assert any(c["rope_type"] == "longrope" and c["seq_len"] for c in CASES)
    assert {"full_attention", "sliding_attention"} <= {c["layer_type"] for c in CASES}


# DeepseekV4RotaryEmbedding names its two RoPEs "main" and "compress"; the reader names the
# layer types that use them (DeepseekV4Config's compress_ratios 0, and 4 or 128)
_V4_LAYERS = {"main": ["sliding_attention"],
              "compress": ["compressed_sparse_attention", "heavily_compressed_attention"]}


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_transformers(case: dict[str, Any]) -> None:
    layers = _V4_LAYERS.get(case["layer_type"], [case["layer_type"]])
    for layer_type in layers:
        _check_case(case, layer_type)


def _check_case(case: dict[str, Any], layer_type: str | None) -> None:
    inv_freq, attention = rope_frequencies_from_config(
        case["config"], seq_len=case["seq_len"], layer_type=layer_type
    )
    expected = np.asarray(case["inv_freq"])
    assert inv_freq.shape == expected.shape
    np.testing.assert_allclose(inv_freq, expected, rtol=RTOL, atol=0)
    assert attention == pytest.approx(case["attention_factor"], rel=RTOL, abs=0)


def test_exported_at_the_top_level() -> None:
    assert posenc_lib.rope_frequencies_from_config is rope_frequencies_from_config
    assert "rope_frequencies_from_config" in posenc_lib.__all__


# --------------------------------------------------------------------------- presets


def test_every_preset_has_a_source() -> None:
    assert set(PRESET_SOURCES) == set(PRESETS)
    for name, source in PRESET_SOURCES.items():
        assert "/" in source or "paper" in source, name  # a Hub repository or a paper


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_gives_finite_positive_frequencies(name: str) -> None:
    config = PRESETS[name]
    kinds = [k for k in config_layer_kinds(config) if k not in UNROTATED_KINDS]
    if not kinds:  # Kimi Linear: no layer rotates, and the reader says so
        with pytest.raises(ValueError, match="NoPE"):
            rope_frequencies_from_config(config)
    for kind in kinds:
        layer = _transformers_layer_type(config, kind)
        inv_freq, attention = rope_frequencies_from_config(config, layer_type=layer)
        turning = inv_freq[inv_freq > 0]  # p-RoPE (Gemma 4) stops the slowest pairs: 0
        assert np.all(np.isfinite(inv_freq)) and np.all(inv_freq >= 0) and turning.size >= 16
        assert turning[0] <= 1.0 and np.all(np.diff(turning) < 0)
        assert attention >= 1.0


def test_presets_are_json_plain_dicts() -> None:
    assert json.loads(json.dumps(PRESETS)) == PRESETS


# --------------------------------------------------------------------------- properties


def test_partial_rotary_gives_rotary_dim_over_two_frequencies() -> None:
    # Pythia-1.4b: head 2048 // 16 = 128, rotary_pct 0.25 -> 32 rotated dims -> 16 pairs
    inv_freq, _ = rope_frequencies_from_config(PRESETS["pythia-1.4b"])
    assert inv_freq.shape == (16,)
    # the exponent's denominator is the rotary dimension, not the head size
    np.testing.assert_allclose(inv_freq, theta(32, 10000.0), rtol=1e-12)
    # Phi-4-mini: 3072 // 24 = 128, factor 0.75 -> 96 -> 48 pairs
    assert rope_frequencies_from_config(PRESETS["phi-4-mini"])[0].shape == (48,)


def test_gpt_neox_defaults_to_a_quarter_rotary() -> None:
    config = {"model_type": "gpt_neox", "hidden_size": 512, "num_attention_heads": 4}
    inv_freq, _ = rope_frequencies_from_config(config)
    assert inv_freq.shape == (16,)  # 128 * 0.25 / 2


def test_partial_rotary_in_rope_parameters_wins_over_the_top_level() -> None:
    config = {
        "hidden_size": 256,
        "num_attention_heads": 2,
        "partial_rotary_factor": 0.25,
        "rope_parameters": {"rope_theta": 100.0, "partial_rotary_factor": 0.5},
    }
    inv_freq, _ = rope_frequencies_from_config(config)
    np.testing.assert_allclose(inv_freq, theta(64, 100.0), rtol=1e-12)


def test_legacy_and_new_forms_agree() -> None:
    legacy = PRESETS["llama-3.1-8b"]
    new = {k: v for k, v in legacy.items() if k not in ("rope_scaling", "rope_theta")}
    new["rope_parameters"] = {**legacy["rope_scaling"], "rope_theta": legacy["rope_theta"]}
    old_type = copy.deepcopy(legacy)
    old_type["rope_scaling"]["type"] = old_type["rope_scaling"].pop("rope_type")
    reference = rope_frequencies_from_config(legacy)[0]
    np.testing.assert_array_equal(rope_frequencies_from_config(new)[0], reference)
    np.testing.assert_array_equal(rope_frequencies_from_config(old_type)[0], reference)


def test_legacy_dynamic_uses_max_position_embeddings_as_trained_length() -> None:
    config = {
        "hidden_size": 512,
        "num_attention_heads": 4,
        "max_position_embeddings": 4096,
        "rope_theta": 10000.0,
        "rope_scaling": {"type": "dynamic", "factor": 2.0},
    }
    untouched, _ = rope_frequencies_from_config(config)
    np.testing.assert_allclose(untouched, theta(128, 10000.0), rtol=1e-12)
    short, _ = rope_frequencies_from_config(config, seq_len=4096)
    np.testing.assert_allclose(short, theta(128, 10000.0), rtol=1e-12)
    # seq_len = 2 L: s_eff = 2 * 2 - 1 = 3, base' = base * 3^(d/(d-2))
    long, _ = rope_frequencies_from_config(config, seq_len=8192)
    np.testing.assert_allclose(long, theta(128, 10000.0 * 3.0 ** (128 / 126)), rtol=1e-12)


def test_gemma3_has_two_bases_and_scales_only_global_layers() -> None:
    config = PRESETS["gemma-3-27b"]
    full, _ = rope_frequencies_from_config(config, layer_type="full_attention")
    local, _ = rope_frequencies_from_config(config, layer_type="sliding_attention")
    np.testing.assert_allclose(full, [t / 8.0 for t in theta(128, 1e6)], rtol=1e-12)
    np.testing.assert_allclose(local, theta(128, 1e4), rtol=1e-12)


def test_gemma3_local_base_from_rope_local_base_freq() -> None:
    config = {**PRESETS["gemma-3-27b"], "rope_local_base_freq": 500.0, "rope_theta": 2e5}
    local, _ = rope_frequencies_from_config(config, layer_type="sliding_attention")
    full, _ = rope_frequencies_from_config(config, layer_type="full_attention")
    np.testing.assert_allclose(local, theta(128, 500.0), rtol=1e-12)
    np.testing.assert_allclose(full, [t / 8.0 for t in theta(128, 2e5)], rtol=1e-12)


def test_gemma3_head_dim_defaults_to_the_class_default() -> None:
    config = {k: v for k, v in PRESETS["gemma-3-27b"].items() if k != "head_dim"}
    full, _ = rope_frequencies_from_config(config, layer_type="full_attention")
    assert full.shape == (128,)  # Gemma3TextConfig.head_dim = 256, not 5376 // 32 = 168


def test_mla_rotates_only_qk_rope_head_dim() -> None:
    inv_freq, attention = rope_frequencies_from_config(PRESETS["deepseek-v3"])
    assert inv_freq.shape == (32,)  # qk_rope_head_dim 64, not 7168 // 128 = 56
    assert attention == pytest.approx(1.0)  # mscale == mscale_all_dim


def test_llama4_equal_band_edges_make_a_step() -> None:
    # low_freq_factor == high_freq_factor == 1: pairs whose wavelength exceeds L = 8192 are
    # divided by 16, the others are untouched (transformers' result)
    inv_freq, _ = rope_frequencies_from_config(PRESETS["llama-4-scout"])
    plain = theta(128, 500000.0)
    expected = [t / 16.0 if 2 * math.pi / t > 8192 else t for t in plain]
    np.testing.assert_allclose(inv_freq, expected, rtol=1e-12)
    assert 0 < sum(e != t for e, t in zip(expected, plain, strict=True)) < 64


def test_phi3_longrope_factor_and_lists() -> None:
    config = PRESETS["phi-3.5-mini"]
    short, attention = rope_frequencies_from_config(config)
    # s = max_position_embeddings / original = 32; a = sqrt(1 + ln s / ln L)
    assert attention == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-12)
    lists = config["rope_scaling"]
    base = np.array(theta(96, 10000.0))  # head 3072 // 32 = 96
    np.testing.assert_allclose(short, base / np.array(lists["short_factor"]), rtol=1e-12)
    at_l, _ = rope_frequencies_from_config(config, seq_len=4096)
    np.testing.assert_array_equal(at_l, short)
    long, _ = rope_frequencies_from_config(config, seq_len=4097)
    np.testing.assert_allclose(long, base / np.array(lists["long_factor"]), rtol=1e-12)


def test_top_level_original_length_wins_over_the_scaling_dict() -> None:
    config = copy.deepcopy(PRESETS["phi-3.5-mini"])
    config["rope_scaling"]["original_max_position_embeddings"] = 1024  # ignored, as in HF
    _, attention = rope_frequencies_from_config(config)
    assert attention == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-12)


def test_phi3_yarn_is_read_as_longrope() -> None:
    config = copy.deepcopy(PRESETS["phi-3.5-mini"])
    config["rope_scaling"]["type"] = "yarn"
    np.testing.assert_array_equal(
        rope_frequencies_from_config(config)[0],
        rope_frequencies_from_config(PRESETS["phi-3.5-mini"])[0],
    )


def test_yarn_attention_factor_and_falsy_betas() -> None:
    config = copy.deepcopy(PRESETS["gpt-oss-20b"])
    _, attention = rope_frequencies_from_config(config)
    assert attention == pytest.approx(0.1 * math.log(32.0) + 1.0, rel=1e-12)
    zeroed = copy.deepcopy(config)
    zeroed["rope_scaling"]["beta_fast"] = 0  # transformers: get("beta_fast") or 32
    np.testing.assert_array_equal(
        rope_frequencies_from_config(zeroed)[0], rope_frequencies_from_config(config)[0]
    )


def test_mrope_frequencies_are_the_default_ones() -> None:
    inv_freq, _ = rope_frequencies_from_config(PRESETS["qwen2.5-vl-7b"])
    np.testing.assert_allclose(inv_freq, theta(128, 1e6), rtol=1e-12)


def test_text_config_is_merged() -> None:
    flat = PRESETS["llama-4-scout"]
    wrapped = {"model_type": "llama4", "text_config": flat, "vision_config": {"hidden_size": 8}}
    np.testing.assert_array_equal(
        rope_frequencies_from_config(wrapped)[0], rope_frequencies_from_config(flat)[0]
    )


def test_layer_type_of_a_flat_config_changes_nothing() -> None:
    config = PRESETS["gpt-oss-20b"]
    ref = rope_frequencies_from_config(config)[0]
    for kind in ("sliding_attention", "full_attention"):
        np.testing.assert_array_equal(rope_frequencies_from_config(config, layer_type=kind)[0], ref)


def test_missing_theta_uses_the_model_class_default() -> None:
    config = {k: v for k, v in PRESETS["smollm3-3b"].items() if k != "rope_theta"}
    inv_freq, _ = rope_frequencies_from_config(config)
    np.testing.assert_allclose(inv_freq, theta(128, 2e6), rtol=1e-12)
    generic = {"hidden_size": 64, "num_attention_heads": 2}
    np.testing.assert_allclose(rope_frequencies_from_config(generic)[0], theta(32, 1e4))


# --------------------------------------------------------------------------- bad configs

LLAMA = PRESETS["llama-3.1-8b"]
PHI = PRESETS["phi-3.5-mini"]


def with_scaling(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    config = copy.deepcopy(base)
    for key, value in changes.items():
        if value is None:
            config["rope_scaling"].pop(key, None)
        else:
            config["rope_scaling"][key] = value
    return config


V, T = ValueError, TypeError
NO_LENGTH = {k: v for k, v in LLAMA.items() if k != "max_position_embeddings"}
GEMMA = PRESETS["gemma-3-27b"]
BAD = [
    ("not a dict", [1, 2], {}, T, "config must be a dict"),
    ("unknown type", with_scaling(LLAMA, rope_type="ntk-by-parts"), {}, V, "'ntk-by-parts'"),
    ("su", with_scaling(PHI, type="su"), {}, V, "rope_type.*'su'.*longrope"),
    ("missing factor", with_scaling(LLAMA, factor=None), {}, V, r"\['factor'\] is required"),
    ("missing low", with_scaling(LLAMA, low_freq_factor=None), {}, V, "low_freq_factor"),
    ("high below low", with_scaling(LLAMA, high_freq_factor=0.5), {}, V, "high_freq_factor"),
    ("factor below 1", with_scaling(LLAMA, factor=0.5), {}, V, r"\['factor'\].*0\.5"),
    ("negative factor", with_scaling(LLAMA, factor=-2.0), {}, V, r"\['factor'\].*-2"),
    ("nan factor", with_scaling(LLAMA, factor=float("nan")), {}, V, r"\['factor'\].*nan"),
    ("string factor", with_scaling(LLAMA, factor="8"), {}, T, r"\['factor'\]"),
    ("nan theta", {**LLAMA, "rope_theta": float("nan")}, {}, V, r"rope_theta.*nan"),
    ("theta below 1", {**LLAMA, "rope_theta": 0.5}, {}, V, r"rope_theta.*0\.5"),
    ("short list", with_scaling(PHI, long_factor=[1.0] * 47), {}, V, r"long_factor.*48.*47"),
    ("nan in list", with_scaling(PHI, short_factor=[float("nan")] * 48), {}, V, "short_factor"),
    ("zero in list", with_scaling(PHI, short_factor=[0.0] * 48), {}, V, "short_factor"),
    ("list not a list", with_scaling(PHI, short_factor=3.0), {}, T, "short_factor"),
    ("missing list", with_scaling(PHI, long_factor=None), {}, V, "long_factor"),
    ("scaling not a dict", {**LLAMA, "rope_scaling": [8.0]}, {}, T, "rope_scaling"),
    ("no head size", {"rope_theta": 1e4}, {}, V, "hidden_size"),
    ("negative heads", {**LLAMA, "num_attention_heads": -4}, {}, V, "num_attention_heads"),
    ("odd rotary dim", {"head_dim": 10, "partial_rotary_factor": 0.5}, {}, V, "rotary"),
    ("partial zero", {**LLAMA, "partial_rotary_factor": 0.0}, {}, V, "partial_rotary_factor"),
    ("partial 1.5", {**LLAMA, "partial_rotary_factor": 1.5}, {}, V, "partial_rotary_factor"),
    ("dynamic no length", {**NO_LENGTH, "rope_scaling": {"type": "dynamic", "factor": 2.0}}, {},
     V, "max_position_embeddings"),
    ("gemma without layer", GEMMA, {}, V, "layer_type is required"),
    ("gemma wrong layer", GEMMA, {"layer_type": "chunked"}, V, "layer_type must be one of"),
    ("flat wrong layer", LLAMA, {"layer_type": "sliding_attention"}, V, "layer_type"),
    ("seq_len zero", LLAMA, {"seq_len": 0}, V, "seq_len"),
    ("seq_len float", LLAMA, {"seq_len": 10.5}, T, "seq_len"),
    ("text_config", {"text_config": "llama"}, {}, T, "text_config"),
    ("truncate text", with_scaling(PRESETS["gpt-oss-20b"], truncate="no"), {}, T, "truncate"),
]  # fmt: skip


@pytest.mark.parametrize("config,kwargs,error,match", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_configs_name_the_key(
    config: Any, kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        rope_frequencies_from_config(config, **kwargs)


def test_nope_layer_type_is_refused_with_a_reason() -> None:
    config = {
        "head_dim": 8,
        "rope_parameters": {"full_attention": None, "sliding_attention": {"rope_type": "default"}},
    }
    with pytest.raises(ValueError, match="NoPE"):
        rope_frequencies_from_config(config, layer_type="full_attention")
    assert rope_frequencies_from_config(config, layer_type="sliding_attention")[0].shape == (4,)


# --------------------------------------------------------------------------- 2025-26 presets
# Each expected value is recomputed here from the published config and the model's code, with
# plain loops and math, never with the library.

def test_gemma4_proportional_keeps_full_head_frequencies_for_a_quarter() -> None:
    config = PRESETS["gemma-4-e2b"]
    full, attention = rope_frequencies_from_config(config, layer_type="full_attention")
    # global head 512, p = 0.25: int(0.25 * 512 // 2) = 64 pairs turn, with exponent 2i/512
    expected = [1e6 ** (-(2 * i) / 512) if i < 64 else 0.0 for i in range(256)]
    np.testing.assert_allclose(full, expected, rtol=1e-12, atol=0)
    assert attention == 1.0 and int(np.count_nonzero(full)) == 64
    # not the "default" partial form, whose exponent would be 2i/128
    assert full[15] > 10 * 1e6 ** (-30 / 128)
    local, _ = rope_frequencies_from_config(config, layer_type="sliding_attention")
    np.testing.assert_allclose(local, theta(256, 1e4), rtol=1e-12)


def test_gemma4_pattern_and_window() -> None:
    config = PRESETS["gemma-4-e2b"]
    full_layers = [i for i, k in enumerate(config["layer_types"]) if k == "full_attention"]
    assert full_layers == [4, 9, 14, 19, 24, 29, 34] and config["sliding_window"] == 512


def test_proportional_factor_divides_and_tiny_fraction_is_refused() -> None:
    config = copy.deepcopy(PRESETS["gemma-4-e2b"])
    config["rope_parameters"]["full_attention"]["factor"] = 8.0
    full, _ = rope_frequencies_from_config(config, layer_type="full_attention")
    assert full[1] == pytest.approx(1e6 ** (-2 / 512) / 8.0, rel=1e-12)
    config["rope_parameters"]["full_attention"]["partial_rotary_factor"] = 0.001
    with pytest.raises(ValueError, match="no rotated pair"):
        rope_frequencies_from_config(config, layer_type="full_attention")


def test_qwen3_next_rotates_a_quarter_on_full_layers_only() -> None:
    config = PRESETS["qwen3-next-80b-a3b"]
    inv_freq, attention = rope_frequencies_from_config(config, layer_type="full_attention")
    # head 256, p = 0.25 -> 64 rotated dims -> 32 pairs, exponent over 64
    np.testing.assert_allclose(inv_freq, theta(64, 1e7), rtol=1e-12)
    assert attention == 1.0
    with pytest.raises(ValueError, match="linear_attention.*no position encoding"):
        rope_frequencies_from_config(config, layer_type="linear_attention")
    without = {k: v for k, v in config.items() if k != "partial_rotary_factor"}
    assert rope_frequencies_from_config(without)[0].shape == (32,)  # the class default 0.25


def test_kimi_linear_mla_without_rope_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="mla_use_nope.*NoPE"):
        rope_frequencies_from_config(PRESETS["kimi-linear-48b-a3b"])
    zero = {**PRESETS["kimi-linear-48b-a3b"], "mla_use_nope": False, "qk_rope_head_dim": 0}
    with pytest.raises(ValueError, match="no RoPE"):
        rope_frequencies_from_config(zero)


def test_ministral3_yarn_frequencies_and_unit_attention_factor() -> None:
    inv_freq, attention = rope_frequencies_from_config(PRESETS["ministral-3-8b"])
    np.testing.assert_allclose(inv_freq, yarn_by_hand(128, 1e6, 16.0, 16384), rtol=1e-12)
    assert attention == pytest.approx(1.0)  # mscale == mscale_all_dim: the ratio is 1


def test_glm45_rotates_half_of_each_head() -> None:
    inv_freq, _ = rope_frequencies_from_config(PRESETS["glm-4.5-air"])
    np.testing.assert_allclose(inv_freq, theta(64, 1e6), rtol=1e-12)  # 128 * 0.5 = 64 dims


def test_minimax_m2_rotary_dim_is_read_and_checked() -> None:
    config = PRESETS["minimax-m2"]
    inv_freq, _ = rope_frequencies_from_config(config)
    np.testing.assert_allclose(inv_freq, theta(64, 5e6), rtol=1e-12)  # 64 of 128 dims
    agreeing = {**config, "partial_rotary_factor": 0.5}
    np.testing.assert_array_equal(rope_frequencies_from_config(agreeing)[0], inv_freq)
    for bad, match in (({"partial_rotary_factor": 0.25}, "disagrees"),
                       ({"rotary_dim": 63}, "even"), ({"rotary_dim": 256}, "<= head_dim")):
        with pytest.raises(ValueError, match=match):
            rope_frequencies_from_config({**config, **bad})


def test_qwen3_vl_default_frequencies_and_checked_sections() -> None:
    config = PRESETS["qwen3-vl-4b"]
    inv_freq, _ = rope_frequencies_from_config(config)
    np.testing.assert_allclose(inv_freq, theta(128, 5e6), rtol=1e-12)
    assert sum(config["rope_scaling"]["mrope_section"]) == 64
    bad = copy.deepcopy(config)
    bad["rope_scaling"]["mrope_section"] = [24, 20, 16]
    with pytest.raises(ValueError, match="mrope_section.*64"):
        rope_frequencies_from_config(bad)


def test_effective_logit_scale_per_model_by_hand() -> None:
    from posenc_lib.models import effective_logit_scale

    m = [0, 16383, 16384, 262143]
    # Ministral 3: 1 + 0.1 ln(1 + floor(m / 16384)); a = 1
    expected = [1 + 0.1 * math.log(1 + k // 16384) for k in m]
    np.testing.assert_allclose(effective_logit_scale(PRESETS["ministral-3-8b"], m),
                               expected, rtol=1e-12)
    # DeepSeek-V3: a = 1 in the rotary module, softmax scale * (0.1 ln 40 + 1)^2 = 1.874
    v3 = effective_logit_scale(PRESETS["deepseek-v3"], [5])
    assert v3[0] == pytest.approx((math.log(40) / 10 + 1) ** 2, rel=1e-12)
    assert round(float(v3[0]), 3) == 1.874
    # gpt-oss: YaRN a = 0.1 ln 32 + 1 on cos and sin -> a^2 on the logits
    oss = effective_logit_scale(PRESETS["gpt-oss-20b"], [7])
    assert oss[0] == pytest.approx((0.1 * math.log(32) + 1) ** 2, rel=1e-12)
    # Llama 4 Scout: RoPE layers 1, NoPE layers 1 + 0.1 ln(1 + floor((m + 1) / 8192))
    scout = PRESETS["llama-4-scout"]
    assert effective_logit_scale(scout, [10**6])[0] == 1.0
    nope = effective_logit_scale(scout, [10**6], nope_layer=True)[0]
    assert nope == pytest.approx(1 + 0.1 * math.log(1 + (10**6 + 1) // 8192), rel=1e-12)
    with pytest.raises(ValueError, match="positions"):
        effective_logit_scale(scout, [-1])
    with pytest.raises(TypeError, match="nope_layer"):
        effective_logit_scale(scout, [1], nope_layer="yes")


def _yarn_dict(config: dict) -> dict | None:
    """The preset's YaRN dict (legacy rope_scaling or rope_parameters), None without YaRN."""
    params = config.get("rope_scaling") or config.get("rope_parameters") or {}
    kind = params.get("rope_type", params.get("type"))
    return params if kind == "yarn" else None


def _m(s: float, k: float) -> float:
    """YaRN's get_mscale written out: 0.1 k ln s + 1 (1 for s <= 1)."""
    return 1.0 if s <= 1 else 0.1 * k * math.log(s) + 1.0


def test_effective_logit_scale_of_every_yarn_preset_by_hand() -> None:
    from posenc_lib.models import effective_logit_scale

    positions = [0, 5, 16384, 100_000]
    checked = []
    for name, config in PRESETS.items():
        params = _yarn_dict(config)
        if params is None:
            continue
        s = float(params["factor"])
        mscale, all_dim = params.get("mscale"), params.get("mscale_all_dim")
        # the rotary module's a on cos and sin (transformers' _compute_yarn_parameters)
        if "attention_factor" in params:
            a = params["attention_factor"]
        elif mscale and all_dim:
            a = _m(s, mscale) / _m(s, all_dim)
        else:
            a = _m(s, 1.0)
        # MLA's attention (DeepSeek's inference/model.py; transformers' DeepseekV3Attention):
        # softmax_scale *= mscale**2 with mscale = 0.1 * mscale_all_dim * ln(factor) + 1
        mla = "kv_lora_rank" in config
        softmax = (0.1 * all_dim * math.log(s) + 1) ** 2 if mla and all_dim else 1.0
        beta = params.get("llama_4_scaling_beta", 0.0)
        trained = params.get("original_max_position_embeddings", 1)
        query = [1 + beta * math.log(1 + m // trained) for m in positions]
        if name == "deepseek-v4-flash":  # its compressed layers' YaRN has a = 1, sliding none
            for kind in ("sliding_attention", "compressed_sparse_attention"):
                got = effective_logit_scale(config, positions, layer_type=kind)
                np.testing.assert_allclose(got, 1.0, rtol=1e-12)
        else:
            expected = [a**2 * softmax * q for q in query]
            got = effective_logit_scale(config, positions)
            np.testing.assert_allclose(got, expected, rtol=1e-12, err_msg=name)
        checked.append(name)
    assert {"deepseek-v3", "deepseek-v3.2-exp", "gpt-oss-20b", "ministral-3-8b"} <= set(checked)


def test_deepseek_v32_logit_scale_is_v3s() -> None:
    from posenc_lib.models import effective_logit_scale

    # DeepSeek-V3.2-Exp inference/model.py: max_seq_len > original_seq_len (4096), so
    # softmax_scale *= (0.1 * mscale * ln(rope_factor) + 1)**2 with mscale 1, rope_factor 40
    expected = (0.1 * 1.0 * math.log(40) + 1) ** 2
    for name in ("deepseek-v3", "deepseek-v3.2-exp"):
        assert effective_logit_scale(PRESETS[name], [0])[0] == pytest.approx(expected, rel=1e-12)
    assert round(expected, 4) == 1.8739
    # a config that drops mscale_all_dim loses the softmax factor, as transformers' port does
    bare = copy.deepcopy(PRESETS["deepseek-v3.2-exp"])
    del bare["rope_scaling"]["mscale_all_dim"], bare["rope_scaling"]["mscale"]
    assert effective_logit_scale(bare, [0])[0] == pytest.approx(_m(40, 1.0) ** 2, rel=1e-12)


# --------------------------------------------------------------------------- one rope-type registry

_SMALL = {"hidden_size": 256, "num_attention_heads": 2, "max_position_embeddings": 8192}
_DICTS = {
    "default": {},
    "linear": {"factor": 4.0},
    "dynamic": {"factor": 2.0, "original_max_position_embeddings": 8192},
    "yarn": {"factor": 4.0, "original_max_position_embeddings": 2048, "beta_fast": 16.0},
    "llama3": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_position_embeddings": 1024},
    "longrope": {"short_factor": [1.5] * 64, "long_factor": [3.0] * 64, "factor": 4.0,
                 "original_max_position_embeddings": 2048},
    "proportional": {"partial_rotary_factor": 0.25},
}


def test_both_entry_points_read_the_same_types() -> None:
    from posenc_lib.scaling import ROPE_TYPES, rope_frequencies

    hf_types = {name for name, spec in ROPE_TYPES.items() if spec.transformers}
    assert set(_DICTS) == hf_types  # a new transformers type gets a case here
    for name, extra in _DICTS.items():
        params = {"rope_type": name, "rope_theta": 5000.0, **extra}
        config = {**_SMALL, "model_type": "llama", "rope_parameters": params}
        for seq_len in (None, 20000):
            by_config = rope_frequencies_from_config(config, seq_len=seq_len)
            direct = rope_frequencies(128, 5000.0, params, seq_len=seq_len)
            np.testing.assert_array_equal(by_config[0], direct[0])
            assert by_config[1] == direct[1], name


def test_ntk_is_the_courses_own_type() -> None:
    from posenc_lib.scaling import ROPE_TYPES, rope_frequencies

    assert not ROPE_TYPES["ntk"].transformers
    config = {**_SMALL, "rope_scaling": {"rope_type": "ntk", "factor": 2.0}}
    with pytest.raises(ValueError, match="course's own name.*'ntk'|'ntk'.*course's own"):
        rope_frequencies_from_config(config)
    # static NTK-aware: base' = base s^(d/(d-2)), computed by hand
    inv_freq, _ = rope_frequencies(128, 10000.0, {"rope_type": "ntk", "factor": 2.0})
    np.testing.assert_allclose(inv_freq, theta(128, 10000.0 * 2.0 ** (128 / 126)), rtol=1e-12)


def test_mrope_and_proportional_reach_rope_frequencies() -> None:
    from posenc_lib.scaling import rope_frequencies

    inv_freq, _ = rope_frequencies(64, 100.0, {"rope_type": "mrope", "mrope_section": [8, 12, 12]})
    np.testing.assert_allclose(inv_freq, theta(64, 100.0), rtol=1e-12)
    inv_freq, _ = rope_frequencies(16, 100.0, {"rope_type": "proportional",
                                               "partial_rotary_factor": 0.5})
    np.testing.assert_allclose(inv_freq, theta(16, 100.0)[:4] + [0.0] * 4, rtol=1e-12)


@pytest.mark.parametrize("where", ["rope_frequencies", "config"])
def test_unknown_keys_warn_as_transformers_does(where: str) -> None:
    from posenc_lib.scaling import rope_frequencies

    scaling = {"rope_type": "linear", "factor": 2.0, "foo": 1}
    with pytest.warns(UserWarning, match=r"'linear' does not read: \['foo'\]"):
        if where == "config":
            inv_freq, _ = rope_frequencies_from_config({**_SMALL, "rope_scaling": scaling})
        else:
            inv_freq, _ = rope_frequencies(128, 10000.0, scaling)
    np.testing.assert_allclose(inv_freq, np.asarray(theta(128, 10000.0)) / 2.0, rtol=1e-12)


def test_keys_transformers_knows_do_not_warn(recwarn: pytest.WarningsRecorder) -> None:
    # M-RoPE sections, Ministral 3's beta, legacy "type", rope_theta inside the dict
    config = {**_SMALL, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24],
                                         "rope_theta": 100.0}}
    rope_frequencies_from_config(config)
    yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048,
            "llama_4_scaling_beta": 0.1}
    rope_frequencies_from_config({**_SMALL, "rope_parameters": yarn})
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]


def test_gpt_neox_falls_back_to_rope_theta_and_refuses_two_bases() -> None:
    neox = {"model_type": "gpt_neox", "hidden_size": 512, "num_attention_heads": 4}
    # head 128, rotary_pct 0.25 by default -> r = 32
    inv_freq, _ = rope_frequencies_from_config({**neox, "rope_theta": 500000.0})
    np.testing.assert_allclose(inv_freq, theta(32, 500000.0), rtol=1e-12)
    agree = {**neox, "rope_theta": 20000.0, "rotary_emb_base": 20000}
    np.testing.assert_allclose(rope_frequencies_from_config(agree)[0], theta(32, 20000.0),
                               rtol=1e-12)
    with pytest.raises(ValueError, match=r"rotary_emb_base.*rope_theta.*disagree"):
        rope_frequencies_from_config({**neox, "rope_theta": 500000.0, "rotary_emb_base": 10000})
    with pytest.raises(ValueError, match=r"rotary_pct.*partial_rotary_factor.*disagree"):
        rope_frequencies_from_config({**neox, "rotary_pct": 0.5, "partial_rotary_factor": 1.0})


def test_a_stray_neox_key_does_not_change_how_a_llama_config_reads() -> None:
    llama = {"model_type": "llama", **_SMALL, "rope_theta": 500000.0}
    for stray in ({"rotary_pct": 1.0}, {"rotary_pct": 0.25}, {"rotary_emb_base": 10000}):
        inv_freq, _ = rope_frequencies_from_config({**llama, **stray})
        np.testing.assert_allclose(inv_freq, theta(128, 500000.0), rtol=1e-12, err_msg=str(stray))

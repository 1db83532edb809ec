"""What real configs do to each RoPE pair (posenc_lib.model_pairs), checked against the
published rules of each model, written out here from their definitions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc_lib.model_pairs import PAIR_CLASSES, classify_config_pairs, config_layer_kinds
from posenc_lib.presets import PRESETS

ROTATED, KEPT, INTERPOLATED, NOT_ROTATED = range(4)


def default_wavelengths(dim: int, base: float) -> np.ndarray:
    """lambda_i = 2 pi base**(2i/dim), from the definition."""
    return np.array([2 * math.pi * base ** (2 * i / dim) for i in range(dim // 2)])


def test_class_names() -> None:
    assert PAIR_CLASSES == ("rotated", "under one turn", "interpolated", "not rotated")


@pytest.mark.parametrize("length", [2048, 8192, 131072])
def test_llama31_keeps_the_pairs_faster_than_the_high_frequency_band(length: int) -> None:
    wavelengths, classes = classify_config_pairs(PRESETS["llama-3.1-8b"], length)
    plain = default_wavelengths(128, 500000.0)
    # Llama 3: wavelengths below L_orig / high_freq_factor = 2048 are untouched
    np.testing.assert_array_equal(classes == INTERPOLATED, plain >= 8192 / 4)
    untouched = plain < 2048
    np.testing.assert_allclose(wavelengths[untouched], plain[untouched], rtol=1e-12)
    # pairs slower than L_orig / low_freq_factor = 8192 are divided by 8: wavelength times 8
    slow = plain > 8192
    np.testing.assert_allclose(wavelengths[slow], 8 * plain[slow], rtol=1e-12)


@pytest.mark.parametrize("length", [512, 4096, 40960])
def test_qwen3_turns_or_keeps_by_the_number_of_turns(length: int) -> None:
    wavelengths, classes = classify_config_pairs(PRESETS["qwen3-8b"], length)
    plain = default_wavelengths(128, 1e6)
    np.testing.assert_allclose(wavelengths, plain, rtol=1e-12)
    np.testing.assert_array_equal(classes, np.where(length / plain >= 1, ROTATED, KEPT))


def test_pythia_rotates_a_quarter_of_each_head() -> None:
    wavelengths, classes = classify_config_pairs(PRESETS["pythia-1.4b"], 2048)
    assert classes.shape == (64,)  # head_dim 2048 / 16 = 128
    # rotary_pct 0.25: 32 dims, 16 pairs with base**(-2i/32)
    np.testing.assert_allclose(wavelengths[:16], default_wavelengths(32, 10000.0), rtol=1e-12)
    assert np.all(classes[16:] == NOT_ROTATED) and np.all(np.isinf(wavelengths[16:]))
    assert np.all(classes[:16] != NOT_ROTATED)


def test_deepseek_rotates_only_the_decoupled_64_dims() -> None:
    wavelengths, classes = classify_config_pairs(PRESETS["deepseek-v3"], 4096)
    assert classes.shape == (32 + 64,)
    assert np.all(classes[32:] == NOT_ROTATED)
    assert np.all(classes[:32] != NOT_ROTATED)
    # YaRN leaves the fastest pairs alone and interpolates the slowest by the factor 40
    assert classes[0] == ROTATED and classes[31] == INTERPOLATED
    np.testing.assert_allclose(wavelengths[31], 40 * default_wavelengths(64, 10000.0)[31],
                               rtol=1e-9)


def test_gemma3_local_and_global_layers() -> None:
    config = PRESETS["gemma-3-27b"]
    kinds = config_layer_kinds(config)
    assert kinds == {"sliding_attention": 52, "full_attention": 10}  # 62 layers, every 6th full
    local, local_classes = classify_config_pairs(config, 8192, layer_kind="sliding_attention")
    np.testing.assert_allclose(local, default_wavelengths(128, 10000.0), rtol=1e-12)
    assert not np.any(local_classes == INTERPOLATED)
    wide, wide_classes = classify_config_pairs(config, 8192, layer_kind="full_attention")
    np.testing.assert_allclose(wide, 8 * default_wavelengths(128, 1e6), rtol=1e-12)
    assert np.all(wide_classes == INTERPOLATED)
    assert classify_config_pairs(config, 8192)[0].tolist() == local.tolist()  # the first kind
    # a local layer sees at most its window of 1024 tokens, however long the context
    _, far = classify_config_pairs(config, 131072, layer_kind="sliding_attention")
    plain = default_wavelengths(128, 10000.0)
    np.testing.assert_array_equal(far, np.where(1024 / plain >= 1, ROTATED, KEPT))


def test_nope_layers_of_llama4_and_smollm3() -> None:
    assert config_layer_kinds(PRESETS["llama-4-scout"]) == {"chunked_attention": 36, "nope": 12}
    assert config_layer_kinds(PRESETS["smollm3-3b"]) == {"full_attention": 27, "nope": 9}
    wavelengths, classes = classify_config_pairs(PRESETS["smollm3-3b"], 4096, layer_kind="nope")
    assert np.all(classes == NOT_ROTATED) and np.all(np.isinf(wavelengths))
    _, classes = classify_config_pairs(PRESETS["smollm3-3b"], 4096)
    assert not np.any(classes == NOT_ROTATED)


def test_gpt_oss_alternates_with_one_rope() -> None:
    config = PRESETS["gpt-oss-20b"]
    assert config_layer_kinds(config) == {"sliding_attention": 12, "full_attention": 12}
    a = classify_config_pairs(config, 8192, layer_kind="sliding_attention")
    b = classify_config_pairs(config, 8192, layer_kind="full_attention")
    np.testing.assert_array_equal(a[0], b[0])


def test_longrope_switches_its_factors_past_the_trained_length() -> None:
    config = PRESETS["phi-3.5-mini"]
    short = classify_config_pairs(config, 4096)
    long = classify_config_pairs(config, 8192)
    plain = default_wavelengths(96, 10000.0)
    # short factors: the first is exactly 1, so pair 0 keeps its frequency
    assert short[1][0] != INTERPOLATED and np.all(short[1][1:] == INTERPOLATED)
    np.testing.assert_allclose(long[0] / plain, config["rope_scaling"]["long_factor"], rtol=1e-9)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: classify_config_pairs([1], 10), TypeError, "config"),
        (lambda: classify_config_pairs(PRESETS["qwen3-8b"], 1), ValueError, "length"),
        (lambda: classify_config_pairs(PRESETS["qwen3-8b"], 10, layer_kind="nope"), ValueError,
         "layer_kind"),
        (lambda: config_layer_kinds({"head_dim": 8}), ValueError, "num_hidden_layers"),
        (lambda: config_layer_kinds({"num_hidden_layers": 2, "no_rope_layers": [1]}), ValueError,
         "no_rope_layers"),
        (lambda: config_layer_kinds({"num_hidden_layers": 2, "layer_types": ["full"] * 2}),
         ValueError, "layer_types"),
    ],
)
def test_bad_input(call: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()  # type: ignore[operator]


# --------------------------------------------------------------------------- 2025-26 layer kinds


def test_qwen3_next_kinds_follow_its_full_attention_interval() -> None:
    config = PRESETS["qwen3-next-80b-a3b"]  # full attention at every 4th layer, Gated DeltaNet else
    n = config["num_hidden_layers"]
    assert config_layer_kinds(config) == {"linear_attention": n - n // 4, "full_attention": n // 4}
    _, linear = classify_config_pairs(config, 4096, layer_kind="linear_attention")
    assert set(linear.tolist()) == {3}  # no pair of a linear-attention layer rotates


def test_kimi_linear_has_no_layer_that_rotates() -> None:
    config = PRESETS["kimi-linear-48b-a3b"]
    full = config["linear_attn_config"]["full_attn_layers"]  # its MLA layers, with mla_use_nope
    kinds = config_layer_kinds(config)
    assert kinds == {"linear_attention": config["num_hidden_layers"] - len(full), "nope": len(full)}
    with pytest.raises(ValueError, match="NoPE"):
        classify_config_pairs(config, 4096)


def test_deepseek_v4_kinds_are_its_compress_ratios() -> None:
    config = PRESETS["deepseek-v4-flash"]
    ratios = config["compress_ratios"][: config["num_hidden_layers"]]
    assert config_layer_kinds(config) == {
        "sliding_attention": ratios.count(0), "compressed_sparse_attention": ratios.count(4),
        "heavily_compressed_attention": ratios.count(128)}
    with pytest.raises(ValueError, match="compress_ratios"):
        config_layer_kinds({**config, "compress_ratios": [0, 3] + ratios[2:]})


def test_gemma4_full_layers_keep_a_quarter_of_the_wide_head() -> None:
    config = PRESETS["gemma-4-e2b"]
    wavelengths, classes = classify_config_pairs(config, 4096, layer_kind="full_attention")
    pairs = config["global_head_dim"] // 2  # 256 pairs; p-RoPE with p = 1/4 keeps the first 64
    kept = pairs // 4
    assert wavelengths.size == pairs
    assert np.all(classes[kept:] == 3) and np.all(classes[:kept] != 3)
    # kept pairs keep base**(-2i/512): pair 63 turns 4096 / (2 pi 1e6**(126/512)) > 1 times
    np.testing.assert_allclose(wavelengths[:kept], 2 * np.pi * 1e6 ** (np.arange(kept) * 2 / 512))

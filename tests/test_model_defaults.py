"""What a config.json leaves out comes from its model type's configuration class, pinned here
against that class's source in huggingface/transformers (file and commit read for each row), and
recomputed by hand (tests/rope_by_hand.py), never from the reader's own tables.

tests/test_models.py checks the same defaults a second way, against the frequencies transformers
5.23.0 itself computed for bare configs (tools/make_hf_reference.py). Where the source read here
is an older version and its default differs from 5.23.0's, the row is left out and the reason
is given below.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from posenc_lib.models import rope_frequencies_from_config
from tests.rope_by_hand import theta

_TF = "huggingface/transformers, src/transformers/models/"
# model_type -> (rope_theta, head_dim or None for hidden_size // heads, partial rotary factor,
# the configuration file and commit the defaults were read from)
CLASS_DEFAULTS: dict[str, tuple[float, int | None, float, str]] = {
    "gpt_oss": (150_000.0, 64, 1.0,
                "gpt_oss/configuration_gpt_oss.py @ 828a27fd326e49d4a1c4b08210bfd32c107facc9"),
    "llama4_text": (500_000.0, 128, 1.0,
                    "llama4/configuration_llama4.py @ b17cfe48c5a9631dcf9f57f3865a055903800f81"),
    "smollm3": (2_000_000.0, None, 1.0,
                "smollm3/configuration_smollm3.py @ 6551e17f8b5c3d17840d6be0ee8ce40a3626c544"),
    "qwen2_5_vl": (1_000_000.0, None, 1.0, "qwen2_5_vl/configuration_qwen2_5_vl.py @ "
                   "aa0dc95c2f288788c2cf06eb3e17bb182cea66d0"),
    "qwen3": (10_000.0, 128, 1.0,
              "qwen3/configuration_qwen3.py @ 1f3ae2b3ac7e5b32262588602ff42efb372a6232"),
    "gemma3_text": (1_000_000.0, 256, 1.0,
                    "gemma3/configuration_gemma3.py @ d98ac17cc00f337eeee9a1e2380072dc8cafabd4"),
    "qwen3_next": (10_000.0, 256, 0.25, "qwen3_next/configuration_qwen3_next.py @ "
                   "249ef8164cfbd8e288c2f6d8395539b9e90e8300"),
    "phi3": (10_000.0, None, 1.0,
             "phi3/configuration_phi3.py @ d7991107f1114ec9fd32a4fdfed4c2dd8a76e0e4"),
}
# Left out, with the reason (the reader follows transformers 5.23.0, checked in test_models.py):
# - qwen3_vl_text: configuration_qwen3_vl.py @ e1b551679e267be053b45581cbabd028a14defd2 has
#   rope_theta 5000000.0; transformers 5.23.0 computes a bare config with base 500000.
# - minimax_m2: configuration_minimax_m2.py @ 3e108993dfb76b70428b374a3536e75465bb792c has
#   default_theta 5000000.0 and head_dim 128 (pinned below), but sets partial_rotary_factor to
#   rotary_dim / head_dim with rotary_dim defaulting to head_dim // 2; 5.23.0 rotates the whole
#   128-dim head of a bare config.
_SIZES = {"hidden_size": 768, "num_attention_heads": 8, "num_hidden_layers": 8}
_WRAPPED = {"qwen2_5_vl"}  # a multimodal config: the sizes sit in text_config
# gpt-oss's class default is a YaRN dict (checked below); an unscaled dict shows its bare base
_UNSCALED = {"gpt_oss": {"rope_scaling": {"rope_type": "default"}}}


def _bare(model_type: str, **extra: Any) -> dict[str, Any]:
    if model_type in _WRAPPED:
        return {"model_type": model_type, "text_config": {**_SIZES, **extra}}
    return {"model_type": model_type, **_SIZES, **extra}


@pytest.mark.parametrize("model_type", sorted(CLASS_DEFAULTS))
def test_a_bare_config_takes_its_class_defaults(model_type: str) -> None:
    base, head_dim, partial, _ = CLASS_DEFAULTS[model_type]
    head = head_dim if head_dim is not None else 768 // 8
    # rotary_dim = int(head_dim * p), theta_i = base^(-2i / rotary_dim)
    expected = theta(int(head * partial), base)
    layer = "full_attention" if model_type == "gemma3_text" else None
    config = _bare(model_type, **_UNSCALED.get(model_type, {}))
    inv_freq, attention = rope_frequencies_from_config(config, layer_type=layer)
    np.testing.assert_allclose(inv_freq, expected, rtol=1e-12)
    assert attention == 1.0


def test_minimax_m2_theta_and_head_dim() -> None:
    # configuration_minimax_m2.py @ 3e108993dfb76b70428b374a3536e75465bb792c: default_theta
    # 5000000.0, head_dim 128
    inv_freq, _ = rope_frequencies_from_config(_bare("minimax_m2"))
    np.testing.assert_allclose(inv_freq, theta(128, 5_000_000.0), rtol=1e-12)


def test_gemma3_local_layers_default_to_base_10000() -> None:
    # configuration_gemma3.py @ d98ac17c...: rope_local_base_freq=10_000.0
    inv_freq, _ = rope_frequencies_from_config(_bare("gemma3_text"),
                                               layer_type="sliding_attention")
    np.testing.assert_allclose(inv_freq, theta(256, 10_000.0), rtol=1e-12)


def test_gemma4_default_rope_dicts() -> None:
    # configuration_gemma4.py @ 351f643ab9f582c01026b6d75aab3e2c5a8338cd: head_dim 256,
    # global_head_dim 512; sliding: default RoPE, base 10000; full: proportional, p = 0.25,
    # base 1000000 on the 512-dim global head (p-RoPE: the fastest int(p D / 2) pairs turn)
    sliding, _ = rope_frequencies_from_config(_bare("gemma4_text"), layer_type="sliding_attention")
    np.testing.assert_allclose(sliding, theta(256, 10_000.0), rtol=1e-12)
    full, _ = rope_frequencies_from_config(_bare("gemma4_text"), layer_type="full_attention")
    kept = int(0.25 * 512 // 2)
    np.testing.assert_allclose(full, theta(512, 1_000_000.0)[:kept] + [0.0] * (256 - kept),
                               rtol=1e-12)


def test_gpt_oss_and_ministral3_default_yarn() -> None:
    # gpt-oss (configuration_gpt_oss.py @ 828a27fd...): yarn, factor 32, beta 32 / 1, L = 4096,
    # truncate False; a = 0.1 ln 32 + 1
    _, attention = rope_frequencies_from_config(_bare("gpt_oss"))
    assert attention == pytest.approx(0.1 * math.log(32.0) + 1.0, rel=1e-12)
    # Ministral 3 (configuration_ministral3.py @ 646910192fa74fbc1106a01fe61ed0668c02d5c2): yarn
    # with rope_theta 1e6, factor 16, L = 16384, mscale = mscale_all_dim = 1, head_dim 128:
    # a = (0.1 ln 16 + 1) / (0.1 ln 16 + 1) = 1, and the fastest pairs keep base 1e6
    inv_freq, attention = rope_frequencies_from_config(_bare("ministral3"))
    assert attention == pytest.approx(1.0, rel=1e-12) and inv_freq.shape == (64,)
    assert inv_freq[:4] == pytest.approx(theta(128, 1_000_000.0)[:4], rel=1e-12)
    assert inv_freq[-1] == pytest.approx(theta(128, 1_000_000.0)[-1] / 16.0, rel=1e-12)


def test_phi3_trained_length_defaults_to_4096() -> None:
    """configuration_phi3.py @ d7991107...: original_max_position_embeddings=4096. A longrope
    config without it (at the top or in the dict) stretches 4096 to max_position_embeddings:
    s = 131072 / 4096 = 32, a = sqrt(1 + ln 32 / ln 4096), and the long list from 4097 on."""
    short, long = [1.0] * 48, [4.0] * 48
    config = _bare("phi3", max_position_embeddings=131072,
                   rope_scaling={"type": "longrope", "short_factor": short, "long_factor": long})
    plain = np.asarray(theta(96, 10_000.0))
    inv_freq, attention = rope_frequencies_from_config(config, seq_len=4096)
    assert attention == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-12)
    np.testing.assert_allclose(inv_freq, plain, rtol=1e-12)
    inv_freq, _ = rope_frequencies_from_config(config, seq_len=4097)
    np.testing.assert_allclose(inv_freq, plain / 4.0, rtol=1e-12)

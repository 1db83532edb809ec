"""Write tests/data/hf_rope_reference.json: RoPE frequencies computed by Hugging Face transformers.

Run once, by hand, in a virtual environment OUTSIDE the project (the course never depends on
torch or transformers; CI only reads the stored JSON)::

    python3 -m venv /tmp/hfenv
    /tmp/hfenv/bin/pip install torch==2.13.0 transformers==5.23.0 numpy
    /tmp/hfenv/bin/python tools/make_hf_reference.py

(``torch==2.13.0`` resolves to the CPU wheel on the course machine; do not install an unpinned
``torch``, which pulls the CUDA wheels.) The reference was made with Python 3.11.7,
torch 2.13.0+cpu, transformers 5.23.0 and NumPy 2.4.6; the JSON records the versions and the
command it was made with.

For every preset of :mod:`posenc_lib.presets`, a few extra
config forms (legacy ``type`` keys, transformers-5 ``rope_parameters``, Gemma 3's nested per-layer
dict, partial rotary inside ``rope_parameters``, dynamic NTK), and, for every model type the config
reader names, a bare config that leaves ``rope_theta``, ``head_dim``, ``partial_rotary_factor`` and
the RoPE dict to the model type's defaults, the script builds the model's own configuration class
from the dict (``AutoConfig.for_model(model_type, **config)``) and its text ``RotaryEmbedding``
class, and stores the ``inv_freq`` buffer and ``attention_scaling`` it computes (per layer type
where a model has several). For ``dynamic`` and ``longrope`` it also calls
``ROPE_INIT_FUNCTIONS[rope_type](config, seq_len=...)`` at a few sequence lengths, as
``dynamic_rope_update`` does during generation. A preset whose model has no RoPE in transformers
(Kimi Linear's MLA with ``mla_use_nope``) is listed under ``no_rope``.

transformers computes in float32; the stored numbers are those float32 values, written exactly.
"""

from __future__ import annotations

import copy
import json
import platform
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from posenc_lib.presets import PRESETS  # noqa: E402

OUT = ROOT / "tests" / "data" / "hf_rope_reference.json"
COMMAND = "/tmp/hfenv/bin/python tools/make_hf_reference.py"

# Bare configs: sizes only (head 768 // 8 = 96, which no model type defaults to), so that
# rope_theta, head_dim, partial_rotary_factor and the RoPE dict are the model type's defaults.
# Multimodal types take their text fields in text_config (without a model_type of its own).
_BARE_SIZES = {"hidden_size": 768, "num_attention_heads": 8, "num_hidden_layers": 8}
_MULTIMODAL = ("llama4", "qwen2_5_vl", "gemma3", "gemma4", "qwen3_vl")
BARE_MODEL_TYPES = (
    "llama", "mistral", "qwen2", "qwen3", "phi3", "gpt_neox", "smollm3", "gpt_oss", "llama4_text",
    "qwen2_5_vl_text", "gemma3_text", "gemma4_text", "qwen3_next", "ministral3", "minimax_m2",
    "glm4_moe", "qwen3_vl_text", "deepseek_v2", "deepseek_v3", "deepseek_v32", *_MULTIMODAL,
)


def bare_config(model_type: str) -> dict[str, Any]:
    if model_type in _MULTIMODAL:
        return {"model_type": model_type, "text_config": dict(_BARE_SIZES)}
    return {"model_type": model_type, **_BARE_SIZES}


_LLAMA_SIZES = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32}

# Config forms found on the Hub that the presets do not all show, written as small dicts.
FORMS: dict[str, dict[str, Any]] = {
    "form-legacy-dynamic": {
        **_LLAMA_SIZES,
        "max_position_embeddings": 4096,
        "rope_theta": 10000.0,
        "rope_scaling": {"type": "dynamic", "factor": 2.0},
    },
    "form-legacy-linear": {
        **_LLAMA_SIZES,
        "max_position_embeddings": 16384,
        "rope_theta": 10000.0,
        "rope_scaling": {"type": "linear", "factor": 4.0},
    },
    "form-rope-parameters-llama3": {
        **_LLAMA_SIZES,
        "max_position_embeddings": 131072,
        "rope_parameters": {
            "rope_type": "llama3",
            "rope_theta": 500000.0,
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
    },
    "form-qwen2-yarn": {
        "model_type": "qwen2",
        "hidden_size": 3584,
        "num_attention_heads": 28,
        "max_position_embeddings": 131072,
        "rope_theta": 1000000.0,
        "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
    },
    "form-gemma3-nested": {
        "model_type": "gemma3_text",
        "hidden_size": 5376,
        "num_attention_heads": 32,
        "head_dim": 128,
        "num_hidden_layers": 12,
        "rope_theta": 1000000,
        "rope_local_base_freq": 10000,
        "rope_scaling": None,
        "rope_parameters": {
            "full_attention": {"factor": 8.0, "rope_type": "linear"},
            "sliding_attention": {"rope_type": "default"},
        },
        "sliding_window": 1024,
    },
    "form-gemma3-nested-and-scaling": {
        "model_type": "gemma3_text",
        "hidden_size": 2560,
        "num_attention_heads": 8,
        "num_hidden_layers": 6,
        "rope_theta": 500000,
        "rope_scaling": {"factor": 4.0, "rope_type": "linear"},
        "rope_parameters": {
            "full_attention": {"factor": 8.0, "rope_type": "linear"},
            "sliding_attention": {"rope_type": "default", "rope_theta": 20000.0},
        },
    },
    "form-phi4-rope-parameters": {
        **{
            k: v
            for k, v in PRESETS["phi-4-mini"].items()
            if k not in ("rope_scaling", "partial_rotary_factor", "rope_theta")
        },
        "rope_parameters": {
            "rope_type": "longrope",
            "rope_theta": 10000.0,
            "partial_rotary_factor": 0.75,
            "long_factor": PRESETS["phi-4-mini"]["rope_scaling"]["long_factor"],
            "short_factor": PRESETS["phi-4-mini"]["rope_scaling"]["short_factor"],
            "original_max_position_embeddings": 4096,
        },
    },
    # Phi3Config's original_max_position_embeddings defaults to 4096 when config.json omits it
    "form-phi3-longrope-default-length": {
        k: v for k, v in PRESETS["phi-3.5-mini"].items() if k != "original_max_position_embeddings"
    },
    # a RoPE dict without rope_theta: the model type's default_theta fills it in
    "form-ministral3-yarn-without-theta": {
        "model_type": "ministral3", **_BARE_SIZES,
        "rope_parameters": {"rope_type": "yarn", "factor": 16.0,
                            "original_max_position_embeddings": 16384},
    },
    "form-neox-dynamic": {
        **PRESETS["pythia-1.4b"],
        "rope_scaling": {"type": "dynamic", "factor": 2.0},
    },
}


def _rotary_class(model_type: str) -> Any:
    """The model's text RotaryEmbedding class (its vision one, if any, is left out)."""
    import importlib

    from transformers.models.auto.configuration_auto import model_type_to_module_name

    module = model_type_to_module_name(model_type)
    modeling = importlib.import_module(f"transformers.models.{module}.modeling_{module}")
    names = [n for n in dir(modeling) if n.endswith("RotaryEmbedding") and "Vision" not in n]
    if len(names) != 1:
        raise LookupError(f"{model_type}: no single text RotaryEmbedding class ({names})")
    return getattr(modeling, names[0])


def _hf_config(config: dict[str, Any]) -> Any:
    from transformers import AutoConfig

    cfg = copy.deepcopy(config)
    built = AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    return built.get_text_config()


def _as_list(tensor: Any) -> list[float]:
    return [float(x) for x in tensor.detach().to("cpu").float().numpy().tolist()]


def _rope_type(hf_cfg: Any, layer_type: str | None) -> str:
    params = hf_cfg.rope_parameters
    return str((params[layer_type] if layer_type else params)["rope_type"])


def _cases_for(name: str, config: dict[str, Any], preset: bool) -> list[dict[str, Any]]:
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    hf_cfg = _hf_config(config)
    rotary_cls = _rotary_class(config["model_type"])
    rotary = rotary_cls(hf_cfg)
    layer_types = sorted(rotary.rope_type) if isinstance(rotary.rope_type, dict) else [None]
    cases = []
    for layer_type in layer_types:
        prefix = f"{layer_type}_" if layer_type else ""
        rope_type = _rope_type(hf_cfg, layer_type)
        base_case = {
            "name": name,
            "preset": name if preset else None,
            "config": config,
            "layer_type": layer_type,
            "rope_type": rope_type,
        }
        cases.append(
            {
                **base_case,
                "seq_len": None,
                "source": f"{rotary_cls.__name__}(config).{prefix}inv_freq",
                "inv_freq": _as_list(getattr(rotary, f"{prefix}inv_freq")),
                "attention_factor": float(getattr(rotary, f"{prefix}attention_scaling")),
            }
        )
        if rope_type in ("dynamic", "longrope"):
            params = hf_cfg.rope_parameters[layer_type] if layer_type else hf_cfg.rope_parameters
            trained = (
                hf_cfg.max_position_embeddings
                if rope_type == "dynamic"
                else params["original_max_position_embeddings"]
            )
            for seq_len in (trained // 2, trained, trained + 1, 2 * trained, 4 * trained + 3):
                kwargs = {"layer_type": layer_type} if layer_type else {}
                inv_freq, attention = ROPE_INIT_FUNCTIONS[rope_type](
                    hf_cfg, None, seq_len=seq_len, **kwargs
                )
                cases.append(
                    {
                        **base_case,
                        "seq_len": seq_len,
                        "source": f"ROPE_INIT_FUNCTIONS[{rope_type!r}](config, seq_len={seq_len})",
                        "inv_freq": _as_list(inv_freq),
                        "attention_factor": float(attention),
                    }
                )
    return cases


def _p_rope_cases() -> list[dict[str, Any]]:
    """p-RoPE as transformers' "proportional" rope type computes it."""
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    cases = []
    for head_dim, p, base in ((256, 0.25, 1e6), (128, 0.5, 1e4), (64, 0.75, 1e4), (10, 0.3, 100.0)):
        config = LlamaConfig(
            hidden_size=head_dim * 2,
            num_attention_heads=2,
            head_dim=head_dim,
            rope_parameters={
                "rope_type": "proportional",
                "rope_theta": base,
                "partial_rotary_factor": p,
            },
        )
        inv_freq, _ = ROPE_INIT_FUNCTIONS["proportional"](config, None)
        cases.append({"head_dim": head_dim, "p": p, "base": base, "inv_freq": _as_list(inv_freq)})
    return cases


def _mrope_axes_cases() -> list[dict[str, Any]]:
    """Which position axis each pair reads, from the models' recomposition_frequencies."""
    from types import SimpleNamespace

    import torch
    from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VLRotaryEmbedding
    from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLTextRotaryEmbedding

    cases = []
    for cls, section, interleaved in (
        (Qwen2_5_VLRotaryEmbedding, [16, 24, 24], False),
        (Qwen3VLTextRotaryEmbedding, [24, 20, 20], True),
    ):
        n_pairs = sum(section)
        marker = torch.arange(3, dtype=torch.float64).view(3, 1, 1, 1).expand(3, 1, 1, n_pairs)
        out = cls.recomposition_frequencies(SimpleNamespace(mrope_section=section), marker.clone())
        cases.append(
            {
                "source": f"{cls.__name__}.recomposition_frequencies",
                "mrope_section": section,
                "interleaved": interleaved,
                "axes": [int(a) for a in out[0, 0, :n_pairs].tolist()],
            }
        )
    return cases


def _sink_case() -> dict[str, Any]:
    """gpt-oss attention weights with sinks, from transformers' eager_attention_forward."""
    from types import SimpleNamespace

    import torch
    from transformers.models.gpt_oss.modeling_gpt_oss import eager_attention_forward

    generator = torch.Generator().manual_seed(0)
    heads, n, d = 2, 4, 8
    query = torch.randn(1, heads, n, d, generator=generator, dtype=torch.float64)
    key = torch.randn(1, heads, n, d, generator=generator, dtype=torch.float64)
    value = torch.randn(1, heads, n, d, generator=generator, dtype=torch.float64)
    sinks = torch.tensor([0.5, -1.5], dtype=torch.float64)
    causal = torch.triu(torch.full((n, n), float("-inf"), dtype=torch.float64), diagonal=1)
    module = SimpleNamespace(sinks=sinks, num_key_value_groups=1, training=False)
    scaling = d**-0.5
    _, weights = eager_attention_forward(
        module, query, key, value, causal.view(1, 1, n, n), scaling=scaling
    )
    scores = torch.matmul(query, key.transpose(2, 3)) * scaling
    return {
        "source": "transformers.models.gpt_oss.modeling_gpt_oss.eager_attention_forward",
        "scores": scores[0].tolist(),
        "sinks": sinks.tolist(),
        "causal": True,
        "weights": weights[0].tolist(),
    }


def main() -> None:
    import numpy
    import torch
    import transformers

    torch.set_grad_enabled(False)
    cases: list[dict[str, Any]] = []
    no_rope = []
    for name, config in PRESETS.items():
        if config.get("mla_use_nope"):
            no_rope.append(name)  # transformers builds no rotary embedding for it
            continue
        cases.extend(_cases_for(name, config, preset=True))
    for name, config in FORMS.items():
        cases.extend(_cases_for(name, config, preset=False))
    for model_type in BARE_MODEL_TYPES:
        cases.extend(_cases_for(f"bare-{model_type}", bare_config(model_type), preset=False))
    reference = {
        "about": (
            "RoPE inv_freq and attention_factor computed by Hugging Face transformers' own code "
            "(each model's RotaryEmbedding class and ROPE_INIT_FUNCTIONS) for the configs of "
            "posenc_lib.presets, a few extra config forms, and bare configs "
            "that leave the RoPE keys to each model type's defaults; float32 values written "
            "exactly."
        ),
        "generated_by": "tools/make_hf_reference.py",
        "command": COMMAND,
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "numpy": numpy.__version__,
        },
        "cases": cases,
        "no_rope": no_rope,
        "p_rope": _p_rope_cases(),
        "mrope_axes": _mrope_axes_cases(),
        "sink_attention": _sink_case(),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    tmp = OUT.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(reference, indent=1) + "\n", encoding="utf-8")
    tmp.replace(OUT)
    print(f"wrote {len(cases)} cases to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

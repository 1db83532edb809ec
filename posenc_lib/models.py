"""RoPE frequencies straight from a model's ``config.json``, as transformers 5.23.0 computes them.

Every Hub form (legacy ``rope_scaling``, flat or per-layer ``rope_parameters``, GPT-NeoX, MLA,
Gemma 3/4, DeepSeek-V4, hybrid layers, M-RoPE) is normalised (:func:`_read_config`), its keys
checked once (``read_keys``) and handed to its entry in :data:`~posenc_lib.scaling.ROPE_TYPES`;
what a config leaves out comes from its model type's configuration class.

Notebook: 09_rope_in_todays_models.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import (
    _describe,
    check_bool,
    check_float,
    check_fraction,
    check_int,
    check_mapping,
    check_positions,
)
from posenc_lib._scaling_checks import read_keys, whole_number
from posenc_lib.attention_variants import nope_attention_scale
from posenc_lib.rope_variants import rotary_dimension
from posenc_lib.scaling import ROPE_TYPE_ALIASES, ROPE_TYPES, yarn_get_mscale

__all__ = ["effective_logit_scale", "rope_frequencies_from_config", "rotary_dims_from_config"]

# Phi-3 runs a legacy "yarn" as longrope; its "su" is refused, as transformers 5.23.0 fails on it.
_PHI3_ALIASES: dict[str, str] = {"yarn": "longrope"}

# transformers' configuration class defaults for keys a config.json may leave out
_DEFAULT_THETA = 10_000.0
_GEMMA3_LOCAL_THETA = 10_000.0
# model_type -> (default rope_theta, default head_dim); None: no default (theta: 10000; head_dim:
# hidden_size // heads). Gemma4TextConfig has no rope_theta: its per-layer dicts carry one.
# tests/test_model_defaults.py pins each against transformers' configuration classes.
_MODEL_DEFAULTS: dict[str, tuple[float | None, int | None]] = {
    "gpt_oss": (150_000.0, 64), "llama4": (500_000.0, 128), "llama4_text": (500_000.0, 128),
    "smollm3": (2_000_000.0, None), "qwen2_5_vl": (1_000_000.0, None),
    "qwen2_5_vl_text": (1_000_000.0, None), "qwen3": (_DEFAULT_THETA, 128),
    "gemma3": (1_000_000.0, 256), "gemma3_text": (1_000_000.0, 256),
    "gemma4": (None, 256), "gemma4_text": (None, 256),
    "qwen3_next": (_DEFAULT_THETA, 256), "ministral3": (_DEFAULT_THETA, 128),
    "minimax_m2": (5_000_000.0, 128), "qwen3_vl": (500_000.0, 128),
    "qwen3_vl_text": (500_000.0, 128),
}
# MLA (DeepSeek-V2/V3/V3.2): the rotated part of a head when qk_rope_head_dim is left out
_MLA_ROPE_HEAD_DIM: dict[str, int] = {"deepseek_v2": 64, "deepseek_v3": 64, "deepseek_v32": 64}
# model_type -> the RoPE dict its configuration class fills in when config.json gives none
_GEMMA4_ROPE = {"sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25,
                                   "rope_theta": 1_000_000.0}}
_DEFAULT_ROPE: dict[str, dict[str, Any]] = {
    "gpt_oss": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                "truncate": False, "original_max_position_embeddings": 4096},
    "ministral3": {"rope_type": "yarn", "rope_theta": 1_000_000.0, "factor": 16.0,
                   "original_max_position_embeddings": 16384, "beta_fast": 32.0,
                   "beta_slow": 1.0, "mscale_all_dim": 1.0, "mscale": 1.0,
                   "llama_4_scaling_beta": 0.1},
    "gemma4": _GEMMA4_ROPE, "gemma4_text": _GEMMA4_ROPE,
}
# Gemma4TextConfig: full-attention layers use 512-wide heads unless global_head_dim says otherwise
_GEMMA4_GLOBAL_HEAD_DIM = 512
# Qwen3NextConfig: every 4th layer is full attention by default
_QWEN3_NEXT_INTERVAL = 4
# layer types whose attention carries no position encoding at all
_UNROTATED_LAYER_TYPES = ("linear_attention",)
# model_type -> default partial_rotary_factor (GPT-NeoX's rotary_pct, Qwen3NextConfig's)
_PARTIAL_DEFAULTS: dict[str, float] = {"gpt_neox": 0.25, "qwen3_next": 0.25, "glm4_moe": 0.5}
_PHI3_ORIGINAL_MAX_POSITION_EMBEDDINGS = 4096


def _flatten(config: Mapping[str, Any]) -> dict[str, Any]:
    """Merge a multimodal config's ``text_config`` over its top level (text_config wins)."""
    check_mapping("config", config, " (a model's config.json)")
    text = check_mapping("config['text_config']", config.get("text_config"),
                         " (the language model's config)", allow_none=True)
    flat = {k: v for k, v in config.items() if k not in ("text_config", "vision_config")}
    return {**flat, **(text or {})}


def _int_field(cfg: Mapping[str, Any], key: str, *, minimum: int = 1) -> int:
    """``cfg[key]`` as an int >= ``minimum`` (32768.0 accepted), named ``config['key']``."""
    return whole_number(f"config[{key!r}]", cfg[key], minimum)


def _head_dim(cfg: Mapping[str, Any], model_type: str | None) -> int:
    """Head size the rotation is computed for, before the partial rotary factor."""
    if cfg.get("qk_rope_head_dim") is not None:
        # MLA (DeepSeek-V2/V3): only the decoupled qk_rope_head_dim part rotates
        return _int_field(cfg, "qk_rope_head_dim", minimum=2)
    if cfg.get("head_dim") is not None:
        return _int_field(cfg, "head_dim", minimum=2)
    if model_type in _MLA_ROPE_HEAD_DIM:
        return _MLA_ROPE_HEAD_DIM[model_type]
    default_head_dim = _MODEL_DEFAULTS.get(model_type or "", (None, None))[1]
    if default_head_dim is not None:
        # the configuration class's default head_dim wins over hidden_size // heads
        return default_head_dim
    missing = [k for k in ("hidden_size", "num_attention_heads") if cfg.get(k) is None]
    if missing:
        raise ValueError(
            "config needs 'head_dim' (or 'qk_rope_head_dim'), or both 'hidden_size' and "
            f"'num_attention_heads' to derive it; missing {missing}")
    # head_dim = hidden_size // num_attention_heads
    return _int_field(cfg, "hidden_size") // _int_field(cfg, "num_attention_heads")


def _rope_type(params: Mapping[str, Any], where: str, model_type: str | None) -> str:
    raw = params.get("rope_type", params.get("type"))
    raw = "default" if raw is None else raw
    if not isinstance(raw, str):
        raise TypeError(f"{where}['rope_type'] must be a string; got {_describe(raw)}")
    name = ROPE_TYPE_ALIASES.get(raw, raw)
    if model_type == "phi3":
        name = _PHI3_ALIASES.get(name, name)
    if name in ROPE_TYPES and not ROPE_TYPES[name].transformers:
        raise ValueError(
            f"{where}['rope_type'] is {raw!r}, the course's own name for static NTK-aware scaling"
            ", which transformers has no rope_type for: a config.json cannot name it (use "
            "rope_frequencies, or 'dynamic')")
    if name not in ROPE_TYPES:
        hf_types = [n for n, t in ROPE_TYPES.items() if t.transformers] + list(ROPE_TYPE_ALIASES)
        hint = " (Phi-3's old name for 'longrope': rename it)" if raw == "su" else ""
        raise ValueError(f"{where}['rope_type'] must be one of {', '.join(map(repr, hf_types))};"
                         f" got {raw!r}{hint}")
    return name


def _scaling_dict(cfg: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """Return the config's RoPE dict (a copy) and the name it was found under."""
    legacy = cfg.get("rope_scaling")
    # transformers: rope_parameters = rope_scaling or rope_parameters
    key = "rope_scaling" if legacy else "rope_parameters"
    value = legacy if legacy else cfg.get("rope_parameters")
    if value is None:
        # none given: the configuration class's own dict (gpt-oss, Ministral 3, Gemma 4), else {}
        model_type = cfg.get("model_type")
        default = _DEFAULT_ROPE.get(model_type) if isinstance(model_type, str) else None
        return copy.deepcopy(default or {}), key
    return dict(check_mapping(f"config[{key!r}]", value, allow_none=True)), key


def _is_nested(params: Mapping[str, Any]) -> bool:
    return bool(params) and all(isinstance(v, Mapping) or v is None for v in params.values())


def _gemma3_parameters(cfg: Mapping[str, Any], model_type: str | None) -> dict[str, Any]:
    """Gemma 3: global layers take rope_scaling and rope_theta, local ones rope_local_base_freq."""
    raw = check_mapping("config['rope_parameters']", cfg.get("rope_parameters"), allow_none=True)
    if raw and _is_nested(raw):
        nested = {k: (dict(v) if v is not None else None) for k, v in raw.items()}
    else:
        nested = {"full_attention": {"rope_type": "default", **(raw or {})}}
    # Gemma3TextConfig: a missing or null entry becomes {"rope_type": "default"}
    full = nested.get("full_attention") or {"rope_type": "default"}
    sliding = nested.get("sliding_attention") or {"rope_type": "default"}
    legacy = check_mapping("config['rope_scaling']", cfg.get("rope_scaling"), allow_none=True)
    if legacy is not None:
        full.update(legacy)  # the legacy scaling applies to the global layers only
    full.setdefault("rope_theta", cfg.get("rope_theta", _default_theta(model_type)))
    sliding.setdefault("rope_theta", cfg.get("rope_local_base_freq", _GEMMA3_LOCAL_THETA))
    nested["full_attention"], nested["sliding_attention"] = full, sliding
    return nested


def _select_layer(nested: Mapping[str, Any], layer_type: Any,
                  where: str) -> tuple[dict[str, Any], str]:
    kinds = ", ".join(map(repr, nested))
    if layer_type is None:
        raise ValueError(
            f"layer_type is required: {where} has one RoPE per layer type; pass one of {kinds}")
    if not isinstance(layer_type, str) or layer_type not in nested:
        raise ValueError(f"layer_type must be one of {kinds}; got {_describe(layer_type)}")
    chosen = nested[layer_type]
    if chosen is None:
        raise ValueError(
            f"{where}[{layer_type!r}] is null: layers of type {layer_type!r} use no RoPE (NoPE)")
    return dict(chosen), f"{where}[{layer_type!r}]"


def _max_positions(cfg: Mapping[str, Any], rope_type: str) -> int:
    if cfg.get("max_position_embeddings") is None:
        raise ValueError(
            f"config['max_position_embeddings'] is required for rope_type {rope_type!r}; "
            "transformers reads the trained or target length from it")
    return _int_field(cfg, "max_position_embeddings")


def _declared_layer_types(cfg: Mapping[str, Any], model_type: str | None) -> list[str]:
    """The config's ``layer_types``, or Qwen3-Next's pattern from ``full_attention_interval``."""
    declared = cfg.get("layer_types")
    if isinstance(declared, list):
        return [str(kind) for kind in declared]
    if model_type != "qwen3_next" or cfg.get("num_hidden_layers") is None:
        return []
    layers = _int_field(cfg, "num_hidden_layers")
    interval = _QWEN3_NEXT_INTERVAL
    if cfg.get("full_attention_interval") is not None:
        interval = _int_field(cfg, "full_attention_interval")
    # full attention where (l + 1) mod interval == 0, linear attention elsewhere
    return [
        "full_attention" if (i + 1) % interval == 0 else "linear_attention" for i in range(layers)
    ]


def _refuse_unrotated(cfg: Mapping[str, Any], layer_type: Any) -> None:
    """Raise a ValueError for attention that carries no RoPE at all (nothing to compute)."""
    if isinstance(layer_type, str) and layer_type in _UNROTATED_LAYER_TYPES:
        raise ValueError(
            f"layer_type {layer_type!r} has no position encoding: a linear-attention layer "
            "(Gated DeltaNet, KDA) keeps a recurrent state, not rotated keys; pass "
            "'full_attention' for the layers that rotate")
    if cfg.get("mla_use_nope") is True or (
        cfg.get("qk_rope_head_dim") == 0 and cfg.get("kv_lora_rank") is not None
    ):
        raise ValueError(
            "config['mla_use_nope'] is true (or qk_rope_head_dim is 0): the MLA layers use no "
            "RoPE (NoPE, as in Kimi Linear), so there are no frequencies to compute; its linear-"
            "attention (KDA) layers carry order through their recurrence instead")


def _check_mrope_section(params: Mapping[str, Any], where: str, rotary_dim: int) -> None:
    """M-RoPE's sections split the rotated pairs between time, height and width."""
    section = params.get("mrope_section")
    if section is None:
        return
    if not isinstance(section, (list, tuple)):
        raise TypeError(f"{where}['mrope_section'] must be a list of 3 integers; got "
                        f"{_describe(section)}")
    counts = [check_int(f"{where}['mrope_section'][{i}]", v, minimum=1)
              for i, v in enumerate(section)]
    if len(counts) != 3 or sum(counts) != rotary_dim // 2:
        raise ValueError(
            f"{where}['mrope_section'] must be 3 counts (time, height, width) adding up to the "
            f"{rotary_dim // 2} rotated pairs; got {counts}")


# DeepseekV4Config: compress_ratios 0, 4 and 128 name these layer types
_DEEPSEEK_V4_KINDS = {0: "sliding_attention", 4: "compressed_sparse_attention",
                      128: "heavily_compressed_attention"}


def _deepseek_v4_parameters(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """DeepSeek-V4: sliding layers use ``rope_theta`` unscaled, compressed ones
    ``compress_rope_theta`` with the config's YaRN (attention factor 1).
    """
    scaling, _ = _scaling_dict(cfg)
    main = {"rope_type": "default", "rope_theta": cfg.get("rope_theta", _DEFAULT_THETA)}
    compress = {**scaling, "rope_theta": cfg["compress_rope_theta"]}
    if _rope_type(compress, "config['rope_scaling']", None) == "yarn":
        compress.setdefault("attention_factor", 1.0)
    return {kind: (main if ratio == 0 else compress) for ratio, kind in _DEEPSEEK_V4_KINDS.items()}


def _layer_parameters(cfg: Mapping[str, Any], model_type: str | None,
                      layer_type: Any) -> tuple[dict[str, Any], str, bool]:
    """The scaling dict for ``layer_type``, its name, and whether it is per layer type."""
    params, key = _scaling_dict(cfg)
    where = f"config[{key!r}]"
    if model_type in ("gemma3", "gemma3_text") or "rope_local_base_freq" in cfg:
        params, where = _gemma3_parameters(cfg, model_type), "config['rope_parameters']"
    if "compress_rope_theta" in cfg:
        params, where = _deepseek_v4_parameters(cfg), "config (DeepSeek-V4)"
    _refuse_unrotated(cfg, layer_type)
    if _is_nested(params):
        params, where = _select_layer(params, layer_type, where)
        return params, where, True
    kinds = sorted(set(_declared_layer_types(cfg, model_type)))
    if layer_type is not None and layer_type not in kinds:
        raise ValueError(
            "layer_type must be None for a config with one RoPE for every layer, or one of "
            f"its layer_types {kinds}; got {_describe(layer_type)}")
    return params, where, False


def _top_level(cfg: Mapping[str, Any], keys: tuple[str, ...],
               check: Callable[[str, Any], float]) -> tuple[str, float] | None:
    """The checked top-level value of ``keys`` and its name (None if absent); two values raise."""
    values = {f"config[{key!r}]": check(f"config[{key!r}]", cfg[key])
              for key in keys if cfg.get(key) is not None}
    if len(set(values.values())) > 1:
        stated = " and ".join(f"{name} = {value}" for name, value in values.items())
        raise ValueError(f"{stated} disagree; keep one of them")
    return next(iter(values.items()), None)


def _base(cfg: Mapping[str, Any], params: Mapping[str, Any], where: str, model_type: str | None,
          neox: bool) -> float:
    """``rope_theta``: the dict's, the top level's (GPT-NeoX: ``rotary_emb_base``), the default."""
    if params.get("rope_theta") is not None:
        return check_float(f"{where}['rope_theta']", params["rope_theta"], greater_than=1.0)
    keys = ("rotary_emb_base", "rope_theta") if neox else ("rope_theta",)
    found = _top_level(cfg, keys, lambda name, v: check_float(name, v, greater_than=1.0))
    return _default_theta(model_type) if found is None else found[1]


def _default_theta(model_type: str | None) -> float:
    """The configuration class's default ``rope_theta`` (``_MODEL_DEFAULTS``), else 10000."""
    theta = _MODEL_DEFAULTS.get(model_type or "", (None, None))[0]
    return _DEFAULT_THETA if theta is None else theta


def _partial_rotary_factor(cfg: Mapping[str, Any], params: Mapping[str, Any], where: str,
                           model_type: str | None, neox: bool) -> tuple[float, str, bool]:
    """``p`` in (0, 1], its name, whether given: dict, top level, default, else 1."""
    if params.get("partial_rotary_factor") is not None:
        name = f"{where}['partial_rotary_factor']"
        return check_fraction(name, params["partial_rotary_factor"]), name, True
    keys = ("rotary_pct", "partial_rotary_factor") if neox else ("partial_rotary_factor",)
    found = _top_level(cfg, keys, check_fraction)
    if found is not None:
        return found[1], found[0], True
    name = f"config[{keys[0]!r}]"
    default = _PARTIAL_DEFAULTS.get(model_type or "")
    return (1.0, name, False) if default is None else (default, name, True)


def _rotary_dim(cfg: Mapping[str, Any], head_dim: int, partial: float, given: bool,
                neox: bool) -> int:
    """``rotary_dim = int(head_dim * p)``, even and >= 2; MiniMax-M2 gives ``rotary_dim`` itself
    (even, <= head_dim, and ``int(head_dim * p)`` when ``p`` is given too)."""
    if cfg.get("rotary_dim") is None or neox:
        return rotary_dimension(head_dim, partial)
    explicit = _int_field(cfg, "rotary_dim", minimum=2)
    if explicit > head_dim or explicit % 2:
        raise ValueError(
            f"config['rotary_dim'] must be an even number of dimensions <= head_dim = {head_dim};"
            f" got {explicit}")
    if given and int(head_dim * partial) != explicit:
        raise ValueError(
            f"config['rotary_dim'] = {explicit} disagrees with partial_rotary_factor {partial} "
            f"(int({head_dim} * {partial}) = {int(head_dim * partial)}); give one of them")
    return explicit


def _proportional_head(cfg: Mapping[str, Any], model_type: str | None, layer_type: Any,
                       head_dim: int, partial: float, partial_name: str) -> int:
    """Gemma 4's head ``D`` for p-RoPE: ``global_head_dim``, else 512 on Gemma 4's
    full-attention layers, else ``head_dim``; ``int(p D // 2)`` pairs must turn (at least 1)."""
    head = head_dim
    if cfg.get("global_head_dim") is not None:
        head = _int_field(cfg, "global_head_dim", minimum=2)
    elif model_type in ("gemma4", "gemma4_text") and layer_type == "full_attention":
        head = _GEMMA4_GLOBAL_HEAD_DIM
    if int((partial * head) // 2) < 1:
        raise ValueError(f"{partial_name} = {partial} leaves no rotated pair of a {head}-dim head")
    return head


def _trained_length(cfg: Mapping[str, Any], params: Mapping[str, Any], where: str, nested: bool,
                    model_type: str | None, rope_type: str) -> int:
    """``L``: top-level ``original_max_position_embeddings`` (Phi-3: 4096), the dict's, else M."""
    if not nested and cfg.get("original_max_position_embeddings") is not None:
        return _int_field(cfg, "original_max_position_embeddings")
    if not nested and model_type == "phi3":
        return _PHI3_ORIGINAL_MAX_POSITION_EMBEDDINGS
    if params.get("original_max_position_embeddings") is not None:
        name = f"{where}['original_max_position_embeddings']"
        return whole_number(name, params["original_max_position_embeddings"])
    return _max_positions(cfg, rope_type)


def _given_keys(cfg: Mapping[str, Any], params: Mapping[str, Any], rope_type: str, where: str,
                nested: bool, model_type: str | None) -> dict[str, Any]:
    """Keys transformers takes elsewhere: ``L``, per-layer ``truncate``, Phi-3's ``s``."""
    if rope_type == "dynamic":
        return {"original_max_position_embeddings": _max_positions(cfg, rope_type)}
    if rope_type not in ("llama3", "yarn", "longrope"):
        return {}
    length = _trained_length(cfg, params, where, nested, model_type, rope_type)
    given: dict[str, Any] = {"original_max_position_embeddings": length}
    if rope_type == "yarn" and nested:
        given["truncate"] = True
    no_factor = params.get("factor") is None and params.get("attention_factor") is None
    if rope_type == "longrope" and no_factor:
        # s = max_position_embeddings / L
        given["factor"] = max(_max_positions(cfg, rope_type) / length, 1.0)
    return given


class _RopeInputs(NamedTuple):
    """One config.json as transformers normalises it, ready for ``read_keys``."""

    rope_type: str
    head_dim: int  # the rotary dimension (Gemma 4's p-RoPE: the whole head D)
    base: float
    params: dict[str, Any]  # the layer's scaling dict, keys not yet checked
    given: dict[str, Any]  # keys read and checked here (trained length, Phi-3's factor, p)
    where: str  # the name params is read under, e.g. "config['rope_scaling']"


def _read_config(config: Mapping[str, Any], layer_type: Any) -> _RopeInputs:
    """A ``config.json`` (any Hub form) -> rope type, rotary dimension, base, scaling dict."""
    cfg = _flatten(config)
    model_type = cfg.get("model_type")
    model_type = model_type if isinstance(model_type, str) else None
    params, where, nested = _layer_parameters(cfg, model_type, layer_type)
    rope_type = _rope_type(params, where, model_type)
    # GPT-NeoX's own keys decide only for a config that names no model type
    neox = model_type == "gpt_neox" or (
        model_type is None and ("rotary_emb_base" in cfg or "rotary_pct" in cfg))
    base = _base(cfg, params, where, model_type, neox)
    partial, partial_name, given_partial = _partial_rotary_factor(
        cfg, params, where, model_type, neox)
    head_dim = _head_dim(cfg, model_type)
    if rope_type == "proportional":
        head = _proportional_head(cfg, model_type, layer_type, head_dim, partial, partial_name)
        return _RopeInputs(rope_type, head, base, params, {"partial_rotary_factor": partial}, where)
    rotary_dim = _rotary_dim(cfg, head_dim, partial, given_partial, neox)
    _check_mrope_section(params, where, rotary_dim)
    given = _given_keys(cfg, params, rope_type, where, nested, model_type)
    return _RopeInputs(rope_type, rotary_dim, base, params, given, where)


def rope_frequencies_from_config(
    config: Mapping[str, Any],
    *,
    seq_len: int | None = None,
    layer_type: str | None = None,
) -> tuple[NDArray[np.float64], float]:
    """Return ``(inv_freq, attention_factor)`` for a model's ``config.json``, as transformers does.

    Parameters
    ----------
    config : dict
        A model's ``config.json``; a multimodal config's ``text_config`` wins over its top level.
    seq_len : int or None, default None
        Current length, read by ``dynamic`` and ``longrope``; None: at initialisation.
    layer_type : str or None, default None
        Which RoPE of a config with one per layer type (Gemma 3's ``"sliding_attention"``).

    Returns
    -------
    inv_freq : ndarray of float64, shape (rotary_dim // 2,)
        ``rotary_dim = int(head_dim * partial_rotary_factor)`` (``proportional``: ``D // 2``).
    attention_factor : float
        Multiplier of cos and sin (1.0 except for ``yarn`` and ``longrope``).

    Notes
    -----
    ``theta_i = base**(-2i/d)`` rescaled by the config's rope type (:mod:`posenc_lib.scaling`),
    with transformers' defaults. A bad value raises an error that names its key.

    Examples
    --------
    >>> cfg = {"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0,
    ...        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
    ...                         "high_freq_factor": 4.0,
    ...                         "original_max_position_embeddings": 8192}}
    >>> inv_freq, attention = rope_frequencies_from_config(cfg)
    >>> inv_freq.shape, attention
    ((64,), 1.0)
    """
    if seq_len is not None:
        seq_len = check_int("seq_len", seq_len, minimum=1)
    rope = _read_config(config, layer_type)
    spec = ROPE_TYPES[rope.rope_type]
    keys = read_keys(rope.rope_type, rope.params, rope.head_dim, required=spec.required,
                     optional=spec.optional, given=rope.given, where=rope.where,
                     head_dim_name="rotary_dim")
    return spec.compute(rope.head_dim, rope.base, keys, seq_len)


def rotary_dims_from_config(config: Mapping[str, Any], *, layer_type: Any = None) -> int:
    """Return how many dims of a query/key head RoPE rotates in a config (notebook 09).

    Parameters
    ----------
    config : mapping
        A model's config.json as a dict, in any form :func:`rope_frequencies_from_config` reads.
    layer_type : str, optional
        As for :func:`rope_frequencies_from_config` (a config with one RoPE per layer type).

    Returns
    -------
    int
        ``2 * len(inv_freq)`` of :func:`rope_frequencies_from_config`, read without computing
        any frequency.

    Notes
    -----
    ``r = int(head_dim * partial_rotary_factor)`` (Pythia: ``rotary_pct``; ``head_dim``, else
    ``hidden_size // num_attention_heads``), or an MLA config's ``qk_rope_head_dim``.

    Examples
    --------
    >>> rotary_dims_from_config({"hidden_size": 3072, "num_attention_heads": 24,
    ...                          "partial_rotary_factor": 0.75})
    96
    """
    return _read_config(config, layer_type).head_dim


def effective_logit_scale(config: Mapping[str, Any], positions: Any, *,
                          layer_type: str | None = None,
                          nope_layer: bool = False) -> NDArray[np.float64]:
    """Return the temperature that multiplies a model's attention logits at each query position.

    Parameters
    ----------
    config, layer_type
        As for :func:`rope_frequencies_from_config`.
    positions : array_like of int, shape (seq,)
        Query positions ``m`` >= 0.
    nope_layer : bool, default False
        True for a NoPE layer (Llama 4's every 4th): only its own temperature applies.

    Returns
    -------
    scale : ndarray of float64, shape (seq,)
        Factor on ``q . k / sqrt(d)`` beyond what the rotation does.

    Notes
    -----
    The product of (each 1 when absent): ``a**2`` for the YaRN / LongRoPE attention factor
    ``a`` (cos and sin both carry it); ``(0.1 mscale_all_dim ln s + 1)**2`` on the softmax
    scale of a multi-head latent attention config (DeepSeek-V2, V3, V3.2: ``kv_lora_rank`` or
    ``qk_rope_head_dim``) whose YaRN dict sets ``mscale_all_dim``; Ministral 3's
    ``1 + beta ln(1 + floor(m / L))`` with ``llama_4_scaling_beta``; Llama 4 NoPE layers'
    ``1 + attn_scale ln(1 + floor((m + 1) / floor_scale))``
    (:func:`~posenc_lib.attention_variants.nope_attention_scale`).

    Examples
    --------
    >>> cfg = {"model_type": "deepseek_v3", "qk_rope_head_dim": 64, "rope_theta": 10000,
    ...        "rope_scaling": {"type": "yarn", "factor": 40, "mscale": 1.0,
    ...                         "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096}}
    >>> effective_logit_scale(cfg, [0, 100000]).round(4)
    array([1.8739, 1.8739])
    """
    pos = check_positions("positions", positions, nonnegative=True).astype(np.float64, copy=False)
    cfg = _flatten(config)
    if check_bool("nope_layer", nope_layer):
        # Llama 4's NoPE-layer query temperature (1 without attn_temperature_tuning)
        if not cfg.get("attn_temperature_tuning"):
            return np.ones_like(pos)
        floor_scale = check_float("config['floor_scale']", cfg.get("floor_scale", 8192.0))
        attn_scale = check_float("config['attn_scale']", cfg.get("attn_scale", 0.1))
        return nope_attention_scale(pos, floor_scale, attn_scale)
    _, attention = rope_frequencies_from_config(config, layer_type=layer_type)
    return attention**2 * _softmax_and_query_scale(cfg, pos)  # cos and sin both carry a


def _is_mla(cfg: Mapping[str, Any]) -> bool:
    """True for multi-head latent attention: the config has a latent KV rank or MLA's split."""
    return (cfg.get("kv_lora_rank") is not None or cfg.get("qk_rope_head_dim") is not None
            or cfg.get("model_type") in _MLA_ROPE_HEAD_DIM)


def _softmax_and_query_scale(cfg: Mapping[str, Any], pos: NDArray[np.float64]
                             ) -> NDArray[np.float64]:
    """DeepSeek's softmax-scale factor times Ministral 3's position-dependent query scale."""
    scale = np.ones_like(pos)
    params, _ = _scaling_dict(cfg)
    kind = params.get("rope_type", params.get("type"))
    if _is_mla(cfg) and kind == "yarn" and params.get("mscale_all_dim"):
        # MLA's attention (DeepSeek-V2/V3/V3.2 and their ports) multiplies its softmax scale
        all_dim = check_float("mscale_all_dim", params["mscale_all_dim"], at_least=0.0)
        factor = check_float("factor", params.get("factor"), at_least=1.0)
        scale = scale * yarn_get_mscale(factor, all_dim) ** 2  # (0.1 m ln s + 1)^2
    beta = params.get("llama_4_scaling_beta")
    if beta is not None:
        beta = check_float("llama_4_scaling_beta", beta, at_least=0.0)
        trained = _int_field(params, "original_max_position_embeddings")
        scale = scale * (1.0 + beta * np.log1p(np.floor(pos / trained)))  # 1 + b ln(1 + m // L)
    return scale

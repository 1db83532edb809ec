"""What a real model's config does to each RoPE pair at a given context length, layer by layer.

The frequencies come from :func:`posenc_lib.models.rope_frequencies_from_config`.

Notebook: 09_rope_in_todays_models.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import _describe, check_int
from posenc_lib.models import _DEEPSEEK_V4_KINDS as _V4_KINDS
from posenc_lib.models import (
    _declared_layer_types,
    _flatten,
    _head_dim,
    _is_nested,
    rope_frequencies_from_config,
)

__all__ = ["PAIR_CLASSES", "UNROTATED_KINDS", "config_layer_kinds", "classify_config_pairs"]

PAIR_CLASSES: tuple[str, ...] = ("rotated", "under one turn", "interpolated", "not rotated")
"""The classes of :func:`classify_config_pairs`, by index ("kept" means unchanged by scaling
throughout the course: both "rotated" and "under one turn" pairs are kept)."""

_LAYER_KINDS: tuple[str, ...] = (
    "full_attention", "sliding_attention", "chunked_attention", *list(_V4_KINDS.values())[1:],
    "linear_attention", "nope",
)  # fmt: skip
UNROTATED_KINDS: tuple[str, ...] = ("linear_attention", "nope")
"""The layer kinds of :func:`config_layer_kinds` that rotate nothing (Gated DeltaNet, NoPE)."""

_GEMMA3_PATTERN = 6  # Gemma3TextConfig: every 6th layer is global (full attention)
_MAX_LAYERS = 1 << 16


def _attention_kinds(cfg: Mapping[str, Any], n_layers: int) -> list[str]:
    """Full, sliding or chunked attention per layer, before the NoPE layers are marked."""
    model_type = cfg.get("model_type")
    declared = _declared_layer_types(cfg, model_type if isinstance(model_type, str) else None)
    if declared:  # layer_types, or Qwen3-Next's full_attention_interval
        if len(declared) != n_layers or not all(k in _LAYER_KINDS[:-1] for k in declared):
            raise ValueError(f"config['layer_types'] must list one of {_LAYER_KINDS[:-1]} for each "
                             f"of the {n_layers} layers; got {_describe(declared)}")
        return declared
    linear = cfg.get("linear_attn_config")
    if isinstance(linear, Mapping) and isinstance(linear.get("full_attn_layers"), list):
        # Kimi Linear: full_attn_layers lists the MLA layers, 1-based; the others are KDA
        full = {check_int("config['linear_attn_config']['full_attn_layers']", layer) - 1
                for layer in linear["full_attn_layers"]}
        return ["full_attention" if i in full else "linear_attention" for i in range(n_layers)]
    if isinstance(cfg.get("compress_ratios"), list):
        return _compressed_kinds(cfg["compress_ratios"][:n_layers], n_layers)
    if cfg.get("model_type") in ("gemma3", "gemma3_text"):
        pattern = check_int("config['sliding_window_pattern']",
                            cfg.get("sliding_window_pattern", _GEMMA3_PATTERN))
        # layer l is global when (l + 1) mod pattern == 0
        return ["full_attention" if (i + 1) % pattern == 0 else "sliding_attention"
                for i in range(n_layers)]
    return ["full_attention"] * n_layers


def _compressed_kinds(ratios: list[Any], n_layers: int) -> list[str]:
    """DeepSeek-V4: compress ratio 0, 4 or 128 per layer (the list's extra entries: MTP)."""
    if len(ratios) != n_layers or not all(r in _V4_KINDS for r in ratios):
        raise ValueError(f"config['compress_ratios'] must give one of {list(_V4_KINDS)} for each "
                         f"of the {n_layers} layers; got {_describe(ratios)}")
    return [_V4_KINDS[r] for r in ratios]


def _with_nope_layers(cfg: Mapping[str, Any], kinds: list[str]) -> list[str]:
    """The kinds with ``no_rope_layers[l] == 0`` as "nope" (Llama 4, SmolLM3), and every
    attention layer as "nope" when ``mla_use_nope`` is true (Kimi Linear)."""
    if cfg.get("mla_use_nope") is True:
        return ["nope" if kind != "linear_attention" else kind for kind in kinds]
    no_rope = cfg.get("no_rope_layers")
    if not no_rope:
        return kinds
    n_layers = len(kinds)
    if not (isinstance(no_rope, list) and len(no_rope) == n_layers
            and all(v in (0, 1) for v in no_rope)):
        raise ValueError(f"config['no_rope_layers'] must list 0 (NoPE) or 1 (RoPE) for each of "
                         f"the {n_layers} layers; got {_describe(no_rope)}")
    # Llama 4: RoPE layers attend within chunks of attention_chunk_size, NoPE layers globally
    rope_kind = "chunked_attention" if cfg.get("attention_chunk_size") else None
    return ["nope" if flag == 0 else (rope_kind or kind)
            for kind, flag in zip(kinds, no_rope, strict=True)]


def config_layer_kinds(config: Mapping[str, Any]) -> dict[str, int]:
    """Return how many layers of each kind a model has, in the order they first appear.

    Parameters
    ----------
    config : dict
        A model's ``config.json`` with ``num_hidden_layers``.

    Returns
    -------
    dict of str to int

    Notes
    -----
    ``layer_types`` when listed, else Gemma 3's full attention where ``(l + 1) mod 6 == 0``;
    ``no_rope_layers[l] == 0`` marks a NoPE layer (Llama 4's others are chunked).

    Examples
    --------
    >>> config_layer_kinds({"num_hidden_layers": 8, "no_rope_layers": [1, 1, 1, 0] * 2})
    {'full_attention': 6, 'nope': 2}
    """
    cfg = _flatten(config)
    if cfg.get("num_hidden_layers") is None:
        raise ValueError("config['num_hidden_layers'] is required to list the layer kinds")
    n_layers = check_int("config['num_hidden_layers']", cfg["num_hidden_layers"])
    if n_layers > _MAX_LAYERS:
        raise ValueError(f"config['num_hidden_layers'] must be <= {_MAX_LAYERS}; got {n_layers}")
    # dicts keep insertion order: the kinds in the order they first appear
    return dict(Counter(_with_nope_layers(cfg, _attention_kinds(cfg, n_layers))))


def _without_scaling(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The same config with every RoPE scaling removed (the base and rotary dims kept)."""
    plain = dict(cfg)
    plain["rope_scaling"] = None

    def default(params: Any) -> Any:
        if not isinstance(params, Mapping):
            return params
        kept = {k: params[k] for k in ("rope_theta", "partial_rotary_factor") if k in params}
        # Gemma 4's proportional p-RoPE chooses the pairs that turn; it stretches nothing
        kind = "proportional" if params.get("rope_type") == "proportional" else "default"
        return {"rope_type": kind, **kept}

    params = cfg.get("rope_parameters")
    if isinstance(params, Mapping) and params:
        plain["rope_parameters"] = (
            {k: default(v) for k, v in params.items()} if _is_nested(params) else default(params)
        )
    return plain


def classify_config_pairs(
    config: Mapping[str, Any], length: int, *, layer_kind: str | None = None
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Return every pair's wavelength and class for a model's config at context length ``L``.

    Parameters
    ----------
    config : dict
    length : int
        Context length ``L`` >= 2 (also the ``seq_len`` of dynamic NTK and LongRoPE).
    layer_kind : str or None, default None
        One of :func:`config_layer_kinds`; None is the first kind with RoPE.

    Returns
    -------
    wavelengths, classes : ndarray of float64 and of int64, shape (n_pairs,)
        ``2 pi / theta_i`` (``inf`` last, never rotating); index into :data:`PAIR_CLASSES`.

    Notes
    -----
    With ``theta_i^0`` the frequency without scaling: "interpolated" when ``|theta_i / theta_i^0
    - 1| > 1e-9``, else "rotated" when ``L' theta_i / (2 pi) >= 1``, ``L' = min(L, window)``.

    Examples
    --------
    >>> cfg = {"head_dim": 8, "rope_theta": 10000.0, "partial_rotary_factor": 0.5}
    >>> wavelengths, classes = classify_config_pairs(cfg, 64)
    >>> wavelengths.round(1).tolist(), classes.tolist()
    ([6.3, 628.3, inf, inf], [0, 1, 3, 3])
    """
    cfg = _flatten(config)
    length = check_int("length", length, minimum=2)
    layer_kind = _chosen_layer_kind(cfg, layer_kind)
    if layer_kind in UNROTATED_KINDS:
        return np.full(_n_pairs(cfg), np.inf), np.full(_n_pairs(cfg), 3, dtype=np.int64)
    layer_type = _transformers_layer_type(cfg, layer_kind)
    theta, _ = rope_frequencies_from_config(cfg, seq_len=length, layer_type=layer_type)
    # Gemma 4's full layers rotate a wider head (global_head_dim) than head_dim
    wavelengths = np.full(max(_n_pairs(cfg), theta.size), np.inf)
    classes = np.full(wavelengths.size, 3, dtype=np.int64)  # "not rotated"
    plain, _ = rope_frequencies_from_config(_without_scaling(cfg), seq_len=length,
                                            layer_type=layer_type)
    # lambda_i = 2 pi / theta_i; zero frequencies (p-RoPE) never turn
    rotated = theta > 0
    wavelengths[: theta.size][rotated] = 2.0 * math.pi / theta[rotated]
    # turns r_i = L' theta_i / (2 pi), L' = min(L, window)
    turns = _span(cfg, length, layer_kind) * theta / (2.0 * math.pi)
    changed = np.abs(theta - plain) > 1e-9 * plain  # |theta / plain - 1| > 1e-9, and 0 = 0
    classes[: theta.size] = np.where(~rotated, 3, np.where(changed, 2, np.where(turns >= 1, 0, 1)))
    return wavelengths, classes


def _chosen_layer_kind(cfg: Mapping[str, Any], layer_kind: Any) -> str | None:
    """``layer_kind`` checked against the config's kinds; None: the first kind with RoPE."""
    kinds = config_layer_kinds(cfg) if cfg.get("num_hidden_layers") is not None else {}
    if layer_kind is not None and layer_kind not in kinds:
        raise ValueError(f"layer_kind must be None or one of the config's layer kinds "
                         f"{list(kinds)}; got {_describe(layer_kind)}")
    if layer_kind is None:
        return next((k for k in kinds if k not in UNROTATED_KINDS), None)
    return str(layer_kind)


def _transformers_layer_type(cfg: Mapping[str, Any], layer_kind: str | None) -> str | None:
    """The ``layer_type`` to read a per-layer RoPE with, or None when the config has one RoPE."""
    # transformers knows a RoPE per layer type for full and sliding layers, and DeepSeek-V4's
    if layer_kind not in ("full_attention", *_V4_KINDS.values()):
        return None
    params = cfg.get("rope_parameters")
    nested = (cfg.get("model_type") in ("gemma3", "gemma3_text") or "rope_local_base_freq" in cfg
              or "compress_rope_theta" in cfg
              or (isinstance(params, Mapping) and _is_nested(params)))
    if not nested and not isinstance(cfg.get("layer_types"), list):
        return None
    return layer_kind


def _n_pairs(cfg: Mapping[str, Any]) -> int:
    """head_dim / 2, plus qk_nope_head_dim / 2 for MLA's content dims."""
    model_type = cfg.get("model_type")
    head_dim = _head_dim(cfg, model_type if isinstance(model_type, str) else None)
    extra = 0
    if cfg.get("qk_rope_head_dim") is not None and cfg.get("qk_nope_head_dim") is not None:
        extra = check_int("config['qk_nope_head_dim']", cfg["qk_nope_head_dim"]) // 2
    return head_dim // 2 + extra


def _window(cfg: Mapping[str, Any], layer_kind: str | None) -> int | None:
    """The window of a sliding or chunked layer (tokens it sees), None for any other layer."""
    window = {"sliding_attention": cfg.get("sliding_window"),
              "chunked_attention": cfg.get("attention_chunk_size")}.get(layer_kind or "")
    return None if window is None else check_int("the layer's window", window, minimum=1)


def _span(cfg: Mapping[str, Any], length: int, layer_kind: str | None) -> int:
    """``L' = min(L, window)``: a local layer never sees two tokens further apart."""
    window = _window(cfg, layer_kind)
    return length if window is None else min(length, window)

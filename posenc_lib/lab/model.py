"""A tiny decoder-only Transformer as pure JAX functions of a parameter pytree; the position
scheme arrives as data (:func:`posenc_lib.lab.schemes.position_inputs`). Shapes: B batch, T
length, D d_model, H heads, K head size, V vocabulary.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from posenc_lib._checks import check_int
from posenc_lib._extras import missing_extra

try:
    import jax
    import jax.numpy as jnp
except ModuleNotFoundError as error:
    raise missing_extra(__name__, "lab", error) from error

from posenc_lib.lab.learned_bias import with_learned_bias

__all__ = ["ModelConfig", "forward", "init_params", "loss_fn"]

Params = dict[str, Any]


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of the model; frozen, so it can be a static argument of ``jax.jit``."""

    vocab_size: int = 32
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 128
    max_len: int = 256  # rows of the learned absolute table (rows past training stay untrained)
    t5_buckets: int = 16

    def __post_init__(self) -> None:
        for name in ("vocab_size", "d_model", "n_heads", "n_layers", "d_ff", "max_len",
                     "t5_buckets"):
            check_int(name, getattr(self, name))
        if self.d_model % self.n_heads or (self.d_model // self.n_heads) % 2:
            raise ValueError(f"d_model must be n_heads times an even head size; got d_model="
                             f"{self.d_model} with n_heads={self.n_heads}")

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads


def _dense(key: jax.Array, n_in: int, n_out: int) -> Params:
    return {"w": jax.random.normal(key, (n_in, n_out)) / math.sqrt(n_in), "b": jnp.zeros(n_out)}


def init_params(key: jax.Array, cfg: ModelConfig) -> Params:
    """Random initial float32 parameters: dense weights ~ N(0, 1/n_in), the learned table
    ~ N(0, 0.02^2) as in GPT-2, T5's bias table 0."""
    if not isinstance(cfg, ModelConfig):
        raise ValueError(f"cfg must be a ModelConfig; got {type(cfg).__name__}")
    keys = jax.random.split(key, 3 + cfg.n_layers)
    layers = []
    for layer_key in keys[3:]:
        k = jax.random.split(layer_key, 4)
        layers.append({
            "ln1": {"g": jnp.ones(cfg.d_model), "b": jnp.zeros(cfg.d_model)},
            "qkv": _dense(k[0], cfg.d_model, 3 * cfg.d_model),
            "proj": _dense(k[1], cfg.d_model, cfg.d_model),
            "ln2": {"g": jnp.ones(cfg.d_model), "b": jnp.zeros(cfg.d_model)},
            "fc": _dense(k[2], cfg.d_model, cfg.d_ff),
            "out": _dense(k[3], cfg.d_ff, cfg.d_model),
        })
    return {
        "tok": jax.random.normal(keys[0], (cfg.vocab_size, cfg.d_model)),
        "wpe": 0.02 * jax.random.normal(keys[1], (cfg.max_len, cfg.d_model)),
        "t5": jnp.zeros((cfg.t5_buckets, cfg.n_heads)),
        "layers": layers,
        "ln_f": {"g": jnp.ones(cfg.d_model), "b": jnp.zeros(cfg.d_model)},
        "head": _dense(keys[2], cfg.d_model, cfg.vocab_size),
    }


def _layer_norm(p: Params, x: jax.Array) -> jax.Array:
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return p["g"] * (x - mean) / jnp.sqrt(var + 1e-5) + p["b"]  # g (x - mu) / sqrt(var + eps) + b


def _rotate_pairs(x: jax.Array, cos: jax.Array, sin: jax.Array) -> jax.Array:
    """Rotate interleaved pairs of ``x`` (..., T, K) by cos/sin (T, K/2):
    a' = a cos - b sin, b' = a sin + b cos, in cos's dtype (bfloat16 casts x to it, as engines
    do), returned in x's.
    """
    a, b = x[..., 0::2].astype(cos.dtype), x[..., 1::2].astype(cos.dtype)  # (..., T, K/2)
    rotated = jnp.stack([a * cos - b * sin, a * sin + b * cos], axis=-1)  # a', b'
    return rotated.reshape(x.shape).astype(x.dtype)


def _attention(p: Params, x: jax.Array, pos: dict[str, jax.Array], t5_table: jax.Array,
               cfg: ModelConfig) -> tuple[jax.Array, jax.Array]:
    B, T, _ = x.shape
    H, K = cfg.n_heads, cfg.head_dim
    qkv = x @ p["qkv"]["w"] + p["qkv"]["b"]  # (B, T, 3D)
    q, k, v = jnp.split(qkv, 3, axis=-1)  # (B, T, D) each
    q, k, v = (t.reshape(B, T, H, K).transpose(0, 2, 1, 3) for t in (q, k, v))  # (B, H, T, K)
    q = _rotate_pairs(q, pos["cos"], pos["sin"])
    k = _rotate_pairs(k, pos["cos"], pos["sin"])
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(K)  # (B, H, T, T): q . k / sqrt(K)
    t5_bias = t5_table[pos["buckets"]].transpose(2, 0, 1)  # (H, T, T)
    scores = scores + pos["bias"] + pos["t5"] * t5_bias
    causal = jnp.tril(jnp.ones((T, T), dtype=bool))
    scores = jnp.where(causal, scores, -jnp.inf)
    weights = jax.nn.softmax(scores, axis=-1)  # (B, H, T, T)
    y = (weights @ v).transpose(0, 2, 1, 3).reshape(B, T, H * K)  # (B, T, D)
    return y @ p["proj"]["w"] + p["proj"]["b"], weights


def forward(params: Params, tokens: jax.Array, pos: dict[str, jax.Array], cfg: ModelConfig
            ) -> tuple[jax.Array, list[jax.Array]]:
    """Logits (B, T, V) and every layer's attention weights (B, H, T, T) for ``tokens`` (B, T):
    pre-norm blocks x <- x + Attn(LN(x)), x <- x + MLP(LN(x)) on x_t = E[token_t] + table_t +
    learned W_pe[t]."""
    T = tokens.shape[1]
    pos = with_learned_bias(params, pos, T)  # FIRE, KERPLE: their bias from their parameters
    x = params["tok"][tokens] + pos["table"] + pos["learned"] * params["wpe"][:T]  # (B, T, D)
    maps = []
    for p in params["layers"]:
        a, w = _attention(p, _layer_norm(p["ln1"], x), pos, params["t5"], cfg)
        x = x + a
        h = jax.nn.gelu(_layer_norm(p["ln2"], x) @ p["fc"]["w"] + p["fc"]["b"])  # (B, T, F)
        x = x + h @ p["out"]["w"] + p["out"]["b"]
        maps.append(w)
    x = _layer_norm(params["ln_f"], x)
    return x @ params["head"]["w"] + params["head"]["b"], maps  # (B, T, V)


def loss_fn(params: Params, tokens: jax.Array, targets: jax.Array, mask: jax.Array,
            pos: dict[str, jax.Array], cfg: ModelConfig) -> jax.Array:
    """Mean cross-entropy over the scored positions: -sum m log p(y) / sum m."""
    logits, _ = forward(params, tokens, pos, cfg)
    logp = jax.nn.log_softmax(logits, axis=-1)  # (B, T, V)
    picked = jnp.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]  # (B, T)
    return -(picked * mask).sum() / jnp.maximum(mask.sum(), 1.0)  # -sum m log p / sum m

"""FIRE and KERPLE in the lab: attention biases whose parameters are learned with the model.

The formulas are the library's (:func:`posenc_lib.bias_variants.kerple_log_kernel` and
:func:`posenc_lib.bias_variants.fire_inputs`, called with ``jax.numpy``); this module holds
their parameters, one set per head shared by every layer (as the lab's T5 table is). Positive
parameters are the softplus of a free one, softplus(u) = ln(1 + e^u).

Notebook: 07_other_schemes (the lab of notebook 10 trains them).
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp

from posenc_lib.bias import alibi_slopes
from posenc_lib.bias_variants import fire_inputs, kerple_log_kernel

__all__ = ["init_bias_params", "learned_bias", "with_learned_bias"]

FIRE_HIDDEN = 32  # width of each head's MLP f


def _free(value: Any) -> Any:
    """u with softplus(u) = value: u = ln(e^value - 1)."""
    return jnp.log(jnp.expm1(jnp.asarray(value, dtype=jnp.float32)))  # ln(e^y - 1)


def init_bias_params(scheme: str, key: jax.Array, n_heads: int) -> dict[str, Any]:
    """The learned bias's parameters of ``scheme`` (empty for the other schemes), from a key
    of their own (``fold_in(key, 1)``), so the shared model's parameters stay as they were.

    KERPLE: r1 = 1 and r2 = ALiBi's slopes, so each head starts near ALiBi
    (-r1 ln(1 + r2 t) ~ -r2 t for small r2 t). FIRE: c = 1 and per head an MLP 1 -> 32 -> 1
    with ReLU, first layer ~ N(0, 1), second ~ N(0, 1/32), output bias 0 (it shifts a whole
    row of scores, so the softmax ignores it; kept so that f is the library's general MLP).
    """
    if scheme == "kerple":
        return {"kerple": {"r1": _free(jnp.ones(n_heads)),
                           "r2": _free(jnp.asarray(alibi_slopes(n_heads)))}}
    if scheme == "fire":
        k = jax.random.split(jax.random.fold_in(key, 1), 3)
        return {"fire": {
            "c": _free(jnp.ones(n_heads)),
            "w1": jax.random.normal(k[0], (n_heads, FIRE_HIDDEN)),
            "b1": jax.random.normal(k[1], (n_heads, FIRE_HIDDEN)),
            "w2": jax.random.normal(k[2], (n_heads, FIRE_HIDDEN)) / math.sqrt(FIRE_HIDDEN),
            "b2": jnp.zeros(n_heads)}}
    return {}


def _kerple(p: dict[str, jax.Array], length: int) -> jax.Array:
    r1, r2 = (jax.nn.softplus(p[name])[:, None, None] for name in ("r1", "r2"))  # (H, 1, 1)
    query = jnp.arange(length)[:, None]
    distance = jnp.maximum(query - jnp.arange(length)[None, :], 0)  # t = max(i - j, 0)
    return kerple_log_kernel(distance, r1, r2, xp=jnp)  # (H, T, T)


def _fire(p: dict[str, jax.Array], length: int) -> jax.Array:
    c = jax.nn.softplus(p["c"])[:, None, None]  # (H, 1, 1)
    x = fire_inputs(length, c, xp=jnp)[..., None]  # (H, T, T, 1): psi(i - j) / psi(i)
    hidden = jax.nn.relu(x * p["w1"][:, None, None] + p["b1"][:, None, None])  # (H, T, T, 32)
    return (hidden * p["w2"][:, None, None]).sum(-1) + p["b2"][:, None, None]  # f_h(x)


def learned_bias(params: dict[str, Any], length: int) -> jax.Array | None:
    """The bias (H, T, T) of the model's FIRE or KERPLE parameters at ``length`` tokens
    (finite above the diagonal, where the model masks the keys), or None without them."""
    if "kerple" in params:
        return _kerple(params["kerple"], length)
    if "fire" in params:
        return _fire(params["fire"], length)
    return None


def with_learned_bias(params: dict[str, Any], pos: dict[str, Any], length: int
                      ) -> dict[str, Any]:
    """``pos`` with the learned bias added to its ``bias``; ``pos`` itself for other schemes
    (their computation is untouched)."""
    extra = learned_bias(params, length)
    return pos if extra is None else {**pos, "bias": pos["bias"] + extra}

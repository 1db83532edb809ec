"""The rules that check every input of :mod:`posenc_lib.scaling`, in one place: a rule takes a
name and a value and returns the cleaned value or raises naming both. :func:`read_keys` is the
one pass over a ``rope_scaling`` dict for both entry points; ``_compute_<type>`` trusts it.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import (
    _describe,
    check_bool,
    check_even,
    check_float,
    check_fraction,
    check_frequencies,
    check_int,
)


def whole_number(name: str, value: Any, minimum: int = 1) -> int:
    """An int >= ``minimum``; a whole float such as JSON's 32768.0 is accepted, as in HF."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return check_int(name, value, minimum=minimum)


def _factor_list(name: str, value: Any) -> NDArray[np.float64]:
    if not isinstance(value, (list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a list of positive numbers; got {_describe(value)}")
    return check_frequencies(name, value)


_RULES: dict[str, Callable[[str, Any], Any]] = {
    "head_dim": check_even,
    "base": lambda name, v: check_float(name, v, greater_than=1.0),
    "factor": lambda name, v: check_float(name, v, at_least=1.0),
    "scale": lambda name, v: check_float(name, v, greater_than=0.0),
    "original_max_position_embeddings": whole_number,
    "seq_len": lambda name, v: None if v is None else check_int(name, v),
    "beta_fast": lambda name, v: check_float(name, v, greater_than=0.0),
    "beta_slow": lambda name, v: check_float(name, v, greater_than=0.0),
    "truncate": check_bool,
    "mscale": lambda name, v: None if v is None else check_float(name, v, at_least=0.0),
    "mscale_all_dim": lambda name, v: None if v is None else check_float(name, v, at_least=0.0),
    "attention_factor": lambda name, v: None if v is None else check_float(name, v,
                                                                           greater_than=0.0),
    "low_freq_factor": lambda name, v: check_float(name, v, greater_than=0.0),
    "high_freq_factor": lambda name, v: check_float(name, v, greater_than=0.0),
    "low": check_float,
    "high": check_float,
    "n": check_int,
    "short_factor": _factor_list,
    "long_factor": _factor_list,
    "partial_rotary_factor": check_fraction,
}


def checked(prefix: str = "", **values: Any) -> tuple[Any, ...]:
    """Check each named value by its rule; return them in order. ``prefix`` names a dict."""
    return tuple(_RULES[key](prefix.format(key) if prefix else key, v) for key, v in
                 values.items())


def _key(where: str, key: str) -> str:
    return f"{where}[{key!r}]" if where else key


def check_ntk_head_dim(head_dim: int, name: str = "head_dim") -> None:
    if head_dim < 4:
        raise ValueError(f"{name} must be an even integer >= 4 for NTK scaling (exponent "
                         f"d/(d-2)); got {head_dim}")


def check_betas(beta_fast: float, beta_slow: float, where: str = "") -> None:
    if not beta_fast > beta_slow:
        zero = ", also for 0" if where else ""
        raise ValueError(f"{_key(where, 'beta_fast')} must be > {_key(where, 'beta_slow')} "
                         f"(defaults 32 and 1{zero}); got beta_fast={beta_fast} and "
                         f"beta_slow={beta_slow}")


def check_bands(low: float, high: float, where: str = "") -> None:
    if not low <= high:
        raise ValueError(f"{_key(where, 'low_freq_factor')} must be <= "
                         f"{_key(where, 'high_freq_factor')}; got low_freq_factor={low} and "
                         f"high_freq_factor={high}")


# transformers: beta_fast = get("beta_fast") or 32, beta_slow = get("beta_slow") or 1 (so None
# and 0 both mean the default), truncate = get("truncate", True)
_OR_DEFAULTS: dict[str, float] = {"beta_fast": 32.0, "beta_slow": 1.0}
_DEFAULTS: dict[str, dict[str, Any]] = {"yarn": {**_OR_DEFAULTS, "truncate": True},
                                        "proportional": {"partial_rotary_factor": 1.0}}


def _absent(key: str, value: Any) -> bool:
    """None, or a numeric 0 for a key that transformers reads with ``get(key) or default``."""
    if value is None:
        return True
    is_number = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    return key in _OR_DEFAULTS and is_number and value == 0


# keys any rope dict may hold besides its type's own: the type, what the config reader takes
# from it (rope_theta, partial_rotary_factor) and what transformers' configuration classes keep
# there (ignore_keys_at_rope_validation: Qwen-VL's M-RoPE sections, Ministral 3's query scale)
_ALWAYS_READ = frozenset({"rope_type", "type", "rope_theta", "partial_rotary_factor",
                          "mrope_section", "mrope_interleaved", "llama_4_scaling_beta",
                          "max_position_embeddings"})


def read_keys(rope_type: str, rope_scaling: Mapping[str, Any], head_dim: int, *,
              required: tuple[str, ...], optional: tuple[str, ...],
              given: Mapping[str, Any] | None = None, where: str = "rope_scaling",
              head_dim_name: str = "head_dim") -> dict[str, Any]:
    """Check, once, every key ``rope_type`` reads (``required``, ``optional``) and return them
    with their defaults; None (and 0 for the betas) counts as absent, as transformers' ``get(key) or
    default``; unread keys warn; ``given`` values count as present and are not checked again.
    """
    given = dict(given or {})
    for key in required:
        if key not in given and _absent(key, rope_scaling.get(key)):
            raise ValueError(f"{where}[{key!r}] is required for rope_type {rope_type!r}; "
                             f"got keys {sorted(map(str, rope_scaling))}")
    unread = set(map(str, rope_scaling)) - set(required) - set(optional) - _ALWAYS_READ
    if unread:
        warnings.warn(f"{where} has keys that rope_type {rope_type!r} does not read: "
                      f"{sorted(unread)}; they are ignored", UserWarning, stacklevel=3)
    present = {key: rope_scaling[key] for key in required + optional
               if key not in given and not _absent(key, rope_scaling.get(key))}
    keys = dict(zip(present, checked(where + "[{!r}]", **present), strict=True))
    keys = {**_DEFAULTS.get(rope_type, {}), **keys, **given}
    check = _CROSS_CHECKS.get(rope_type)
    if check is not None:
        check(keys, head_dim, where, head_dim_name)
    return keys


def _check_longrope(keys: Mapping[str, Any], head_dim: int, where: str, head_dim_name: str) -> None:
    for key in ("short_factor", "long_factor"):
        if keys[key].shape[0] != head_dim // 2:
            raise ValueError(f"{where}[{key!r}] must have {head_dim_name} // 2 = {head_dim // 2} "
                             f"entries; got {keys[key].shape[0]}")
    if "attention_factor" in keys:
        return
    if "factor" not in keys:
        raise ValueError(f"{where}['factor'] (or {where}['attention_factor']) is required for "
                         "rope_type 'longrope': Hugging Face derives it from "
                         "max_position_embeddings / original_max_position_embeddings, which "
                         "this function does not receive")
    length = keys["original_max_position_embeddings"]
    if keys["factor"] > 1.0 and length < 2:
        raise ValueError("the trained length original_max_position_embeddings must be >= 2 for "
                         f"the LongRoPE attention factor sqrt(1 + ln s / ln L); got {length}")


# rope_type -> its cross-check (keys, rotary dimension, where, the dimension's name)
_CROSS_CHECKS: dict[str, Callable[[Mapping[str, Any], int, str, str], None]] = {
    "ntk": lambda keys, d, where, d_name: check_ntk_head_dim(d, d_name),
    "dynamic": lambda keys, d, where, d_name: check_ntk_head_dim(d, d_name),
    "yarn": lambda keys, d, where, d_name: check_betas(keys["beta_fast"], keys["beta_slow"], where),
    "llama3": lambda keys, d, where, d_name: check_bands(keys["low_freq_factor"],
                                                         keys["high_freq_factor"], where),
    "longrope": _check_longrope,
}


def refuse_misplaced_keys(config: Mapping[str, Any], base: float, rope_type: str) -> None:
    """Refuse a dict ``rope_theta`` != ``base``, and a partial factor != 1 outside proportional."""
    theta = config.get("rope_theta")
    if theta is not None and check_float("rope_scaling['rope_theta']", theta) != base:
        raise ValueError(f"rope_scaling['rope_theta'] ({theta}) disagrees with base ({base}); "
                         "pass the config's rope_theta as base")
    partial = config.get("partial_rotary_factor")
    if rope_type != "proportional" and partial is not None and check_float(
            "rope_scaling['partial_rotary_factor']", partial) != 1.0:
        raise ValueError(f"rope_scaling['partial_rotary_factor'] is {partial}, but head_dim is "
                         f"the rotary dimension here; pass head_dim=int(head_dim * {partial}) "
                         "and drop the key")

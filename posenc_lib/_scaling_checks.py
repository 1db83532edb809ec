"""The rules that every input of :mod:`posenc_lib.scaling` is checked by, in one place.

Each rule takes the parameter's name and its value and returns the cleaned value, or raises a
ValueError or TypeError that names the parameter, the value and what is allowed. A public
function of :mod:`posenc_lib.scaling` calls :func:`checked` once, first; :func:`read_keys`
does the same for the keys of a Hugging Face ``rope_scaling`` dict, under the names
``rope_scaling['key']``. The formulas then trust their inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_array, check_bool, check_even, check_float, check_int


def _length(name: str, value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON configs sometimes store 32768.0; Hugging Face accepts it
    return check_int(name, value)


def _factor_list(name: str, value: Any) -> NDArray[np.float64]:
    array = check_array(name, value, ndim=1).astype(np.float64, copy=False)
    if array.size == 0 or not np.all(array > 0):
        raise ValueError(f"{name} must be a list of positive numbers; got {value!r}")
    return array


_RULES: dict[str, Callable[[str, Any], Any]] = {
    "head_dim": check_even,
    "base": lambda name, v: check_float(name, v, greater_than=1.0),
    "factor": lambda name, v: check_float(name, v, at_least=1.0),
    "scale": lambda name, v: check_float(name, v, greater_than=0.0),
    "original_max_position_embeddings": _length,
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
}


def checked(prefix: str = "", **values: Any) -> tuple[Any, ...]:
    """Check each named value by its rule; return them in order. ``prefix`` names a dict."""
    return tuple(_RULES[key](prefix.format(key) if prefix else key, v) for key, v in
                 values.items())


def check_ntk_head_dim(head_dim: int) -> None:
    if head_dim < 4:
        raise ValueError(f"head_dim must be an even integer >= 4 for NTK scaling (exponent "
                         f"d/(d-2)); got {head_dim}")


def check_betas(beta_fast: float, beta_slow: float) -> None:
    if not beta_fast > beta_slow:
        raise ValueError(f"beta_fast must be > beta_slow (defaults 32 and 1); got "
                         f"beta_fast={beta_fast} and beta_slow={beta_slow}")


_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {  # (required, optional) keys
    "default": ((), ()),
    "linear": (("factor",), ()),
    "ntk": (("factor",), ()),
    "dynamic": (("factor", "original_max_position_embeddings"), ()),
    "yarn": (("factor", "original_max_position_embeddings"),
             ("beta_fast", "beta_slow", "truncate", "mscale", "mscale_all_dim",
              "attention_factor")),
    "llama3": (("factor", "low_freq_factor", "high_freq_factor",
                "original_max_position_embeddings"), ()),
    "longrope": (("short_factor", "long_factor", "original_max_position_embeddings"),
                 ("factor", "attention_factor")),
}


def read_keys(rope_type: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """The keys the method reads, each checked by its rule under the name rope_scaling['key']."""
    required, optional = _KEYS[rope_type]
    for key in required:
        if config.get(key) is None:
            raise ValueError(f"rope_scaling['{key}'] is required for rope_type {rope_type!r}; "
                             f"got keys {sorted(map(str, config))}")
    present = {key: config[key] for key in required + optional if config.get(key) is not None}
    values = checked("rope_scaling['{}']", **present)
    return dict(zip(present, values, strict=True))


def refuse_misplaced_keys(config: Mapping[str, Any], base: float) -> None:
    theta = config.get("rope_theta")
    if theta is not None and check_float("rope_scaling['rope_theta']", theta) != base:
        raise ValueError(f"rope_scaling['rope_theta'] ({theta}) disagrees with base ({base}); "
                         "pass the config's rope_theta as base")
    partial = config.get("partial_rotary_factor")
    if partial is not None and check_float("rope_scaling['partial_rotary_factor']",
                                           partial) != 1.0:
        raise ValueError(f"rope_scaling['partial_rotary_factor'] is {partial}, but head_dim is "
                         f"the rotary dimension here; pass head_dim=int(head_dim * {partial}) "
                         "and drop the key")

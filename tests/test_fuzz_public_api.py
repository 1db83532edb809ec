"""Fuzz every public function of the math modules with arbitrary values.

Whatever a caller passes, only ValueError or TypeError may escape (with a message), no NumPy
RuntimeWarning is raised on the way, and a value that is returned holds no NaN. Valid inputs of
the stable API always give finite numbers.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from posenc_lib.rope import apply_rope
from posenc_lib.scaling import rope_frequencies
from posenc_lib.sinusoidal import sinusoidal_encoding

MATH_MODULES = [
    "binary",
    "frequencies",
    "sinusoidal",
    "shift",
    "analysis",
    "attention",
    "rope",
    "scaling",
    "bias_variants",
    "remapping",
    "precision",
    "low_precision",
    "scorecard",
    "bias",
    "learned",
    "models",
    "rope_variants",
    "attention_variants",
    "model_pairs",
    "toy_head",
]

SCALING_KEYS = [
    "rope_type", "type", "factor", "original_max_position_embeddings", "beta_fast", "beta_slow",
    "mscale", "mscale_all_dim", "attention_factor", "truncate", "low_freq_factor",
    "high_freq_factor", "short_factor", "long_factor",
]  # fmt: skip

WORDS = [
    "interleaved", "half", "concat", "default", "linear", "ntk", "dynamic", "yarn", "llama3",
    "longrope", "float16", "bfloat16", "float32", "float64", "nearest", "truncate", "sinusoidal",
    "alibi", "integer", "", "nope",
]  # fmt: skip

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 33),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-40, 40),
    st.sampled_from(WORDS),
)
small_arrays = hnp.arrays(
    dtype=st.sampled_from([np.float64, np.float32, np.int64, np.bool_]),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
)  # float elements include NaN and inf by default
values = st.one_of(
    scalars,
    st.lists(st.integers(-3, 20), max_size=6),
    st.lists(st.floats(-10, 10), max_size=6),
    small_arrays,
    st.dictionaries(st.sampled_from(SCALING_KEYS), scalars, max_size=5),
)


def public_functions() -> list[tuple[str, Callable[..., Any]]]:
    found = []
    for name in MATH_MODULES:
        module = importlib.import_module(f"posenc_lib.{name}")
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if inspect.isfunction(obj):
                found.append((f"{name}.{attr}", obj))
    return found


FUNCTIONS = public_functions()


def contains_nan(result: Any) -> bool:
    if isinstance(result, (tuple, list)):
        return any(contains_nan(r) for r in result)
    if isinstance(result, dict):
        return any(contains_nan(r) for r in result.values())
    array = np.asarray(result) if isinstance(result, (np.ndarray, float, np.floating)) else None
    return array is not None and np.issubdtype(array.dtype, np.floating) and np.isnan(array).any()


def test_every_math_module_has_public_functions() -> None:
    modules = {name.split(".")[0] for name, _ in FUNCTIONS}
    assert modules == set(MATH_MODULES)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # no overflow or 0/0 deep inside NumPy
@pytest.mark.parametrize("name,function", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_only_value_or_type_errors_escape(
    name: str, function: Callable[..., Any], data: st.DataObject
) -> None:
    signature = inspect.signature(function)
    args, kwargs = [], {}
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        required = parameter.default is parameter.empty
        if not required and not data.draw(st.booleans(), label=f"pass {parameter.name}"):
            continue
        value = data.draw(values, label=parameter.name)
        if parameter.kind == parameter.KEYWORD_ONLY:
            kwargs[parameter.name] = value
        else:
            args.append(value)
    try:
        result = function(*args, **kwargs)
    except (ValueError, TypeError) as err:
        assert str(err), f"{name} raised {type(err).__name__} with no message"
        return
    assert not contains_nan(result), f"{name}{tuple(args)} {kwargs} returned NaN"


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 40),
    half_d=st.integers(1, 40),
    base=st.floats(1.0001, 1e7),
    layout=st.sampled_from(["interleaved", "concat"]),
    dtype=st.sampled_from([np.float16, np.float32, np.float64]),
)
def test_sinusoidal_encoding_is_finite_for_valid_input(
    n: int, half_d: int, base: float, layout: str, dtype: Any
) -> None:
    pe = sinusoidal_encoding(n, 2 * half_d, base, layout=layout, dtype=dtype)
    assert pe.shape == (n, 2 * half_d) and pe.dtype == dtype
    assert np.isfinite(pe).all() and np.abs(pe).max() <= 1


rope_scalings = st.one_of(
    st.none(),
    st.fixed_dictionaries({"rope_type": st.just("linear"), "factor": st.floats(1, 64)}),
    st.fixed_dictionaries({"rope_type": st.just("ntk"), "factor": st.floats(1, 64)}),
    st.fixed_dictionaries(
        {
            "rope_type": st.just("dynamic"),
            "factor": st.floats(1, 64),
            "original_max_position_embeddings": st.integers(16, 8192),
        }
    ),
    st.fixed_dictionaries(
        {
            "rope_type": st.just("yarn"),
            "factor": st.floats(1, 64),
            "original_max_position_embeddings": st.integers(16, 8192),
        }
    ),
    st.fixed_dictionaries(
        {
            "rope_type": st.just("llama3"),
            "factor": st.floats(1, 64),
            "low_freq_factor": st.floats(0.5, 2),
            "high_freq_factor": st.floats(2.5, 8),
            "original_max_position_embeddings": st.integers(16, 8192),
        }
    ),
)


@settings(max_examples=80, deadline=None)
@given(
    half_d=st.integers(2, 64),
    base=st.floats(1.5, 1e7),
    rope_scaling=rope_scalings,
    seq_len=st.one_of(st.none(), st.integers(1, 100_000)),
)
def test_rope_frequencies_are_finite_and_positive_for_valid_input(
    half_d: int, base: float, rope_scaling: dict[str, Any] | None, seq_len: int | None
) -> None:
    inv_freq, attention_factor = rope_frequencies(2 * half_d, base, rope_scaling, seq_len=seq_len)
    assert inv_freq.shape == (half_d,)
    assert np.isfinite(inv_freq).all() and (inv_freq > 0).all()
    assert np.isfinite(attention_factor) and attention_factor > 0


@settings(max_examples=60, deadline=None)
@given(
    x=hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 3), st.integers(1, 8), st.sampled_from([2, 4, 8])),
        elements=st.floats(-1e3, 1e3),
    ),
    pairing=st.sampled_from(["interleaved", "half"]),
)
def test_apply_rope_is_finite_and_keeps_norms(x: np.ndarray, pairing: str) -> None:
    positions = np.arange(x.shape[-2])
    inv_freq = 10000.0 ** (-np.arange(0, x.shape[-1], 2) / x.shape[-1])
    out = apply_rope(x, positions, inv_freq, pairing=pairing)
    assert np.isfinite(out).all()
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), atol=1e-9)

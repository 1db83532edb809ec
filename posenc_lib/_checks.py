"""Input validation shared by every public function of posenc_lib: each checker takes the
parameter's name first, so its error names the parameter, the value and what is allowed, and
returns the cleaned value (``d_model = check_even("d_model", d_model)``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray


def _describe(value: Any) -> str:
    """Short, safe description of a received value for an error message."""
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` as a Python bool; only True or False (not 0, 1 or "yes") is accepted."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {_describe(value)}")
    return bool(value)


def _at_most(name: str, result: int, maximum: int | None) -> int:
    """Return ``result`` unless it exceeds ``maximum`` (when given); then raise naming ``name``."""
    if maximum is not None and result > maximum:
        raise ValueError(f"{name} must be <= {maximum}; got {result}")
    return result


def check_int(name: str, value: Any, *, minimum: int | None = 1,
              maximum: int | None = None) -> int:
    """Return ``value`` as an int >= ``minimum`` (and <= ``maximum`` when given); bools, floats
    (even 4.0) and strings raise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        allowed = "an integer" if minimum is None else f"an integer >= {minimum}"
        kind = type(value).__name__
        raise TypeError(f"{name} must be {allowed}; got {_describe(value)} ({kind})")
    result = int(value)
    if minimum is not None and result < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {result}")
    return _at_most(name, result, maximum)


def check_even(name: str, value: Any, *, minimum: int = 2, maximum: int | None = None) -> int:
    """Return ``value`` as an even int >= ``minimum`` (and <= ``maximum`` when given): dimensions
    that come in pairs."""
    result = check_int(name, value, minimum=minimum)
    if result % 2:
        raise ValueError(
            f"{name} must be an even integer >= {minimum} (sin/cos pairs); got {result}"
        )
    return _at_most(name, result, maximum)


def check_float(
    name: str,
    value: Any,
    *,
    greater_than: float | None = None,
    at_least: float | None = None,
) -> float:
    """Return ``value`` as a finite float, ``> greater_than`` / ``>= at_least`` when given."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        kind = type(value).__name__
        raise TypeError(f"{name} must be a real number; got {_describe(value)} ({kind})")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name} must be a finite number; got {result}")
    if greater_than is not None and not result > greater_than:
        raise ValueError(f"{name} must be > {greater_than}; got {result}")
    if at_least is not None and not result >= at_least:
        raise ValueError(f"{name} must be >= {at_least}; got {result}")
    return result


def check_fraction(name: str, value: Any, *, allow_zero: bool = False) -> float:
    """Return ``value`` as a float in (0, 1], or in [0, 1] when ``allow_zero``."""
    fraction = check_float(name, value)
    if not (fraction >= 0.0 if allow_zero else fraction > 0.0) or fraction > 1.0:
        interval = "[0, 1]" if allow_zero else "(0, 1]"
        raise ValueError(f"{name} must be in {interval}; got {fraction}")
    return fraction


def check_mapping(name: str, value: Any, what: str = "", *, allow_none: bool = False) -> Any:
    """Return ``value`` if a dict (or None when ``allow_none``), else raise naming ``name``."""
    if (value is None and allow_none) or isinstance(value, Mapping):
        return value
    null = " (or null)" if allow_none else ""
    raise TypeError(f"{name} must be a dict{what}{null}; got {_describe(value)} "
                    f"({type(value).__name__})")


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise naming ``name``."""
    options = tuple(choices)
    if not isinstance(value, str) or value not in options:
        allowed = ", ".join(map(repr, options))
        raise ValueError(f"{name} must be one of {allowed}; got {_describe(value)}")
    return value


def check_array(
    name: str,
    value: Any,
    *,
    ndim: int | None = None,
    min_ndim: int | None = None,
    finite: bool = True,
) -> NDArray[Any]:
    """Return a real int or float array (ndim, min_ndim, finite checked); bools, complex raise."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an array of real numbers; got {_describe(value)}")
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as err:  # ragged nested lists
        raise TypeError(f"{name} must be an array of real numbers; got {_describe(value)}") from err
    if array.dtype == np.bool_ or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(
            f"{name} must be an array of real numbers (int or float dtype); got dtype {array.dtype}"
        )
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} axes; got shape {array.shape}")
    if min_ndim is not None and array.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} axes; got shape {array.shape}")
    if finite and np.issubdtype(array.dtype, np.floating) and not np.all(np.isfinite(array)):
        raise ValueError(
            f"{name} must contain only finite numbers; got NaN or inf in {_describe(array)}"
        )
    return array


def check_positions(name: str, value: Any, *, nonnegative: bool = False) -> NDArray[Any]:
    """Return a 1-D array of finite positions (ints, or floats when interpolated), >= 0 if asked."""
    array = check_array(name, value, ndim=1)
    if nonnegative and np.any(array < 0):
        raise ValueError(f"{name} must be >= 0; got a minimum of {array.min()}")
    return array


_FLOAT_DTYPES = ("float16", "float32", "float64")


def check_float_dtype(name: str, value: Any) -> np.dtype[Any]:
    """Return ``value`` (dtype, scalar type or name) as the dtype float16, float32 or float64."""
    allowed = ", ".join(_FLOAT_DTYPES)
    if not isinstance(value, (str, type, np.dtype)):
        raise TypeError(f"{name} must be one of {allowed}; got {_describe(value)}")
    try:
        dtype: np.dtype[Any] = np.dtype(value)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be one of {allowed}; got {value!r}") from err
    if dtype.name not in _FLOAT_DTYPES:
        raise TypeError(f"{name} must be one of {allowed}; got dtype {dtype.name}")
    return dtype


def check_frequencies(name: str, value: Any) -> NDArray[np.float64]:
    """Return a non-empty 1-D float64 array of positive frequencies, or raise naming ``name``."""
    array = check_array(name, value, ndim=1).astype(np.float64, copy=False)
    if array.size == 0 or not np.all(array > 0):
        raise ValueError(f"{name} must be a non-empty 1-D array of positive numbers; got "
                         f"{_describe(array)}")
    return array

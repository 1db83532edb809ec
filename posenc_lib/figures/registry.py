"""The figure registry: every figure the course can rebuild, with its source and parameters.

Notebook: 11_figure_gallery.

A registered figure is a function with keyword-only parameters whose defaults reproduce the
source figure, returning a ``matplotlib.figure.Figure`` (never pyplot state). The registry knows
each parameter's type from its default, so the command line can parse ``--set key=value`` and
the Python API can reject a value of the wrong type before anything is drawn.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from matplotlib.figure import Figure

from posenc_lib.plots.style import course_style, freeze_layout

__all__ = [
    "REGISTRY",
    "FigureSpec",
    "build_figure",
    "coerce_parameter",
    "figure_names",
    "get_figure",
    "parse_parameter",
    "register",
]

_SCALARS = (bool, int, float, str)


@dataclass(frozen=True)
class FigureSpec:
    """One registered figure: name, source, one-line description and the drawing function."""

    name: str
    """Identifier used on the command line and as the file name (``name.svg``)."""
    source: str
    """Which write-up and which of its figures ("000 fig 2"), or "course"."""
    description: str
    """One line saying what the figure shows."""
    function: Callable[..., Figure]
    """Keyword-only parameters with the source's defaults; returns a new Figure."""

    @property
    def defaults(self) -> dict[str, Any]:
        """Parameter name -> default value, in signature order."""
        return {
            name: parameter.default
            for name, parameter in inspect.signature(self.function).parameters.items()
        }

    def build(self, **params: Any) -> Figure:
        """Draw the figure with the defaults overridden by ``params`` (types are checked).

        Parameters
        ----------
        **params
            Any of ``defaults``; each value must have the type of its default (an int is
            accepted for a float, a list for a tuple).

        Returns
        -------
        matplotlib.figure.Figure
            A new figure drawn in the course style, not registered with pyplot.
        """
        values = {key: coerce_parameter(self, key, value) for key, value in params.items()}
        return self.function(**values)

    def command(self, out: str = "figures", formats: Iterable[str] = ("svg", "png")) -> str:
        """The shell command that rebuilds this figure with its defaults."""
        fmt = ",".join(formats)
        return f"python -m posenc_lib.figures build {self.name} --out {out} --format {fmt}"


REGISTRY: dict[str, FigureSpec] = {}
"""Every registered figure by name, in registration order (grouped by source)."""


def _check_default(function_name: str, name: str, default: Any) -> None:
    if isinstance(default, _SCALARS):
        return
    if isinstance(default, tuple) and default and isinstance(default[0], _SCALARS):
        if all(type(item) is type(default[0]) for item in default):
            return
    raise TypeError(
        f"figure function {function_name}: parameter {name} must default to a bool, int, float, "
        f"str or a non-empty tuple of one of those; got {default!r}"
    )


def register(
    name: str, *, source: str, description: str
) -> Callable[[Callable[..., Figure]], Callable[..., Figure]]:
    """Decorator adding a figure function to ``REGISTRY``.

    Parameters
    ----------
    name : str
        Unique figure name (letters, digits and underscores).
    source : str
        The write-up and figure it reproduces, or "course".
    description : str
        One line.

    Returns
    -------
    callable
        The decorator. The decorated function draws in the course style whoever calls it, and
        its figure's layout is frozen (``freeze_layout``), so that its files do not depend on
        what was saved before.
    """
    if not name.replace("_", "").isalnum() or name in REGISTRY:
        raise ValueError(f"name must be a new identifier of letters, digits and _; got {name!r}")

    def decorator(function: Callable[..., Figure]) -> Callable[..., Figure]:
        for key, parameter in inspect.signature(function).parameters.items():
            if parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
                raise TypeError(f"figure function {name}: parameter {key} must be keyword-only")
            _check_default(name, key, parameter.default)

        @functools.wraps(function)
        def styled(**params: Any) -> Figure:
            with course_style():
                return freeze_layout(function(**params))

        REGISTRY[name] = FigureSpec(name, source, description, styled)
        return styled

    return decorator


def figure_names() -> list[str]:
    """Names of every registered figure, in registry order.

    Returns
    -------
    list of str

    Examples
    --------
    >>> "division_term" in figure_names()
    True
    """
    return list(REGISTRY)


def get_figure(name: str) -> FigureSpec:
    """The registry entry called ``name``; a ValueError lists the known names otherwise.

    Parameters
    ----------
    name : str
        A registered figure name.

    Returns
    -------
    FigureSpec

    Examples
    --------
    >>> get_figure("heatmap_002").source
    '002 heatmap'
    """
    if not isinstance(name, str) or name not in REGISTRY:
        raise ValueError(f"unknown figure {name!r}; known figures: {', '.join(REGISTRY)}")
    return REGISTRY[name]


def build_figure(name: str, **params: Any) -> Figure:
    """Draw the registered figure ``name`` with some parameters changed.

    Parameters
    ----------
    name : str
        A registered figure name (see ``figure_names()``).
    **params
        Parameters to override; each must be one of the figure's parameters, with the type of
        its default.

    Returns
    -------
    matplotlib.figure.Figure
        A new figure (not registered with pyplot).

    Examples
    --------
    >>> fig = build_figure("heatmap_002", d_model=64)
    >>> fig.axes[0].images[0].get_array().shape
    (64, 100)
    """
    return get_figure(name).build(**params)


def _type_name(default: Any) -> str:
    if isinstance(default, tuple):
        return f"a comma-separated tuple of {_type_name(default[0])}"
    return {bool: "bool", int: "int", float: "float", str: "str"}[type(default)]


def _default_of(spec: FigureSpec, key: str) -> Any:
    """The default of parameter ``key`` of ``spec``; a ValueError lists the parameters else."""
    defaults = spec.defaults
    if key not in defaults:
        raise ValueError(
            f"unknown parameter {key!r} for figure {spec.name}; "
            f"its parameters are: {', '.join(defaults)}"
        )
    return defaults[key]


def coerce_parameter(spec: FigureSpec, key: str, value: Any) -> Any:
    """Check that ``value`` suits parameter ``key`` of ``spec`` and return it in the right type.

    Parameters
    ----------
    spec : FigureSpec
        The figure that ``value`` is meant for.
    key : str
        One of ``spec.defaults``.
    value : Any
        Proposed value: the default's type, or an int for a float, a list for a tuple.

    Returns
    -------
    Any
        ``value`` converted to the default's type (int -> float, list -> tuple).

    Examples
    --------
    >>> coerce_parameter(get_figure("division_term"), "base", 100)
    100.0
    """
    return _coerce(f"{spec.name}.{key}", value, _default_of(spec, key))


def _coerce(label: str, value: Any, default: Any) -> Any:
    wrong = TypeError(f"{label} must be {_type_name(default)}; got {value!r}")
    if isinstance(default, tuple):
        return _coerce_tuple(label, value, default, wrong)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise wrong
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise wrong
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise wrong
        if not math.isfinite(value):
            raise ValueError(f"{label} must be a finite number; got {value!r}")
        return float(value)
    if not isinstance(value, str):
        raise wrong
    return value


def _coerce_tuple(label: str, value: Any, default: tuple[Any, ...], wrong: TypeError) -> Any:
    """A non-empty list or tuple, each item like the default's first, as a tuple."""
    if not isinstance(value, (tuple, list)) or not value:
        raise wrong
    try:
        return tuple(_coerce(label, item, default[0]) for item in value)
    except TypeError:
        raise wrong from None


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def parse_parameter(spec: FigureSpec, key: str, text: str) -> Any:
    """Parse the command-line text of ``--set key=text`` to the type of the default.

    Parameters
    ----------
    spec : FigureSpec
        The figure whose ``--set`` option is parsed.
    key : str
        One of ``spec.defaults``.
    text : str
        int, float, str, bool (true/false/yes/no/1/0) or comma-separated items for a tuple.

    Returns
    -------
    Any
        The parsed value.

    Examples
    --------
    >>> spec = get_figure("theta_offsets")
    >>> parse_parameter(spec, "positions", "0,10,20"), parse_parameter(spec, "d_model", "64")
    ((0, 10, 20), 64)
    """
    default = _default_of(spec, key)
    if isinstance(default, tuple):
        items = [item.strip() for item in text.split(",") if item.strip()]
        try:
            values = [_parse_scalar(spec, key, item, default[0]) for item in items]
        except TypeError:
            raise TypeError(
                f"{spec.name}.{key} must be {_type_name(default)}; got {text!r}"
            ) from None
        return coerce_parameter(spec, key, values)
    return coerce_parameter(spec, key, _parse_scalar(spec, key, text, default))


def _parse_scalar(spec: FigureSpec, key: str, text: str, default: Any) -> Any:
    label = f"{spec.name}.{key}"
    wrong = TypeError(f"{label} must be {_type_name(default)}; got {text!r}")
    if isinstance(default, bool):
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise wrong
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise wrong from None
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise wrong from None
    return text


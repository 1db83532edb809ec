"""The figure registry: functions with keyword-only parameters whose defaults reproduce the source
figure; a parameter's type is its default's, so ``--set key=value`` is parsed and checked.

Notebook: 11_figure_gallery.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import matplotlib as mpl
from matplotlib.figure import Figure

from posenc_lib.plots.style import course_style, draw_png, freeze_layout

__all__ = [
    "REGISTRY",
    "FigureSpec",
    "build_figure",
    "get_figure",
    "parse_parameter",
    "register",
]

_SCALARS = (bool, int, float, str)
_T = TypeVar("_T")
_BOOLS = {"1": True, "true": True, "yes": True, "on": True,
          "0": False, "false": False, "no": False, "off": False}


@dataclass(frozen=True)
class FigureSpec:
    """One registered figure: name (also its file name), source ("000 fig 2", "course" or
    "notebook 06"), one-line description, the drawing function (keyword-only parameters), what
    a reader should look for in the picture ("" where the notebook says it) and the function
    before styling and freezing (``function`` itself where it is missing)."""

    name: str
    source: str
    description: str
    function: Callable[..., Figure]
    look_for: str = ""
    unfrozen: Callable[..., Figure] | None = field(default=None, repr=False, compare=False)

    @property
    def defaults(self) -> dict[str, Any]:
        """Parameter name -> default value, in signature order."""
        return {name: parameter.default for name,
            parameter in inspect.signature(self.function).parameters.items()}

    def build(self, **params: Any) -> Figure:
        """A new figure with the defaults overridden by ``params`` (types checked)."""
        values = {key: _coerce_parameter(self, key, value) for key, value in params.items()}
        return self.function(**values)

    def picture(self, dpi: float, **params: Any) -> tuple[Figure, bytes]:
        """A new figure as ``build`` makes it and its PNG at ``dpi``, from one draw: the layout
        is made (and frozen) in that draw, at ``dpi``, where ``build`` makes it at 100 dpi in a
        draw of its own, so the two layouts may differ by a fraction of a pixel."""
        values = {key: _coerce_parameter(self, key, value) for key, value in params.items()}
        return _drawn(self.unfrozen or self.function, values, lambda fig: draw_png(fig, dpi=dpi))

    def command(self, out: str = "figures") -> str:
        """The shell command that rebuilds this figure with its defaults."""
        return f"python -m posenc_lib.figures build {self.name} --out {out} --format svg,png"


REGISTRY: dict[str, FigureSpec] = {}
"""Every registered figure by name, in registration order (grouped by source)."""


def _check_default(function_name: str, name: str, default: Any) -> None:
    if isinstance(default, _SCALARS) or (isinstance(default,
        tuple) and default and isinstance(default[0],
        _SCALARS) and all(type(item) is type(default[0]) for item in default)):
        return
    raise TypeError(
        f"figure function {function_name}: parameter {name} must default to a bool, int, float, "
        f"str or a non-empty tuple of one of those; got {default!r}"
    )


def register(name: str, *, source: str, description: str,
        look_for: str = "") -> Callable[[Callable[..., Figure]], Callable[..., Figure]]:
    """Decorator adding a figure function to ``REGISTRY`` under the new identifier ``name``,
    with ``look_for``, the sentence saying what the picture shows.

    The decorated function draws in the course style and freezes its figure's layout, so that
    its files do not depend on what was saved before.
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
            return _drawn(function, params, freeze_layout)[0]

        REGISTRY[name] = FigureSpec(name, source, description, styled, look_for, function)
        return styled

    return decorator


def _drawn(function: Callable[..., Figure], params: dict[str, Any],
        finish: Callable[[Figure], _T]) -> tuple[Figure, _T]:
    """``function(**params)`` and ``finish`` of it (a first draw), in the course style with the
    titles at the top of their axes. matplotlib's own placement (axes.titley None) measures the
    y axis again for each title, a tenth of the drawing time, only to lift a title above tick
    labels on top or an offset text such as "1e7": a figure that has one is drawn again with it."""
    for at_top in (True, False):
        with course_style(), mpl.rc_context({"axes.titley": 1.0} if at_top else {}):
            fig = function(**params)
            result = finish(fig)
        if not at_top or not _titles_may_move(fig):
            break
    return fig, result


def _titles_may_move(fig: Figure) -> bool:
    """Whether matplotlib's title placement could lift a title of the drawn ``fig``: a title,
    and tick labels or a label above an x axis, or an offset text on a y axis."""
    axes = fig.axes
    titled = any(ax.get_title(loc) for ax in axes for loc in ("left", "center", "right"))
    return titled and any(ax.yaxis.offsetText.get_text() or ax.xaxis.get_label_position() == "top"
        or any(tick.label2.get_visible() for tick in (*ax.xaxis.majorTicks[:1],
        *ax.xaxis.minorTicks[:1])) for ax in axes)


def get_figure(name: str) -> FigureSpec:
    """The registry entry called ``name``; a ValueError lists the known names otherwise.

    Examples
    --------
    >>> get_figure("heatmap_002").source
    '002 heatmap'
    """
    if not isinstance(name, str) or name not in REGISTRY:
        raise ValueError(f"unknown figure {name!r}; known figures: {', '.join(REGISTRY)}")
    return REGISTRY[name]


def build_figure(name: str, **params: Any) -> Figure:
    """Draw the registered figure ``name`` with some parameters changed."""
    return get_figure(name).build(**params)


def _type_name(default: Any) -> str:
    if isinstance(default, tuple):
        return f"a comma-separated tuple of {_type_name(default[0])}"
    return {bool: "bool", int: "int", float: "float", str: "str"}[type(default)]


def _default_of(spec: FigureSpec, key: str) -> Any:
    defaults = spec.defaults
    if key not in defaults:
        raise ValueError(
            f"unknown parameter {key!r} for figure {spec.name}; "
            f"its parameters are: {', '.join(defaults)}"
        )
    return defaults[key]


def _coerce_parameter(spec: FigureSpec, key: str, value: Any) -> Any:
    """``value`` for parameter ``key`` of ``spec`` in the default's type (int -> float,
    list -> tuple); a TypeError or ValueError naming ``spec.name.key`` otherwise.

    Examples
    --------
    >>> _coerce_parameter(get_figure("division_term"), "base", 100)
    100.0
    """
    return _coerce(f"{spec.name}.{key}", value, _default_of(spec, key))


def _coerce(label: str, value: Any, default: Any) -> Any:
    wrong = TypeError(f"{label} must be {_type_name(default)}; got {value!r}")
    if isinstance(default, tuple):
        if not isinstance(value, (tuple, list)) or not value:
            raise wrong
        try:
            return tuple(_coerce(label, item, default[0]) for item in value)
        except TypeError:
            raise wrong from None
    kinds: Any = {bool: bool, int: int, float: (int, float), str: str}[type(default)]
    if not isinstance(value, kinds) or (isinstance(value, bool) and type(default) is not bool):
        raise wrong
    if isinstance(default, float):
        if not math.isfinite(value):
            raise ValueError(f"{label} must be a finite number; got {value!r}")
        return float(value)
    return value


def parse_parameter(spec: FigureSpec, key: str, text: str) -> Any:
    """Parse the text of ``--set key=text`` to the type of the default of ``key``.
    Booleans are true/false/yes/no/on/off/1/0; tuples are comma-separated items.
    """
    default = _default_of(spec, key)
    wrong = TypeError(f"{spec.name}.{key} must be {_type_name(default)}; got {text!r}")
    try:
        if isinstance(default, tuple):
            items = [item.strip() for item in text.split(",") if item.strip()]
            values: Any = [_parse_scalar(item, default[0]) for item in items]
        else:
            values = _parse_scalar(text, default)
    except ValueError:
        raise wrong from None
    return _coerce_parameter(spec, key, values)


def _parse_scalar(text: str, default: Any) -> Any:
    """``text`` as the type of ``default``; a ValueError if it is not one."""
    if isinstance(default, bool):
        if text.strip().lower() not in _BOOLS:
            raise ValueError(text)
        return _BOOLS[text.strip().lower()]
    if isinstance(default, (int, float)):
        return type(default)(text)
    return text

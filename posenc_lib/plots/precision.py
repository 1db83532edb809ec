"""Drawing the precision pictures of notebook 08: bit patterns and errors on log-log axes.

As everywhere in ``posenc_lib.plots``, each function takes an ``Axes`` and data already
computed (with ``posenc_lib.precision``), draws it and returns the artists it created, so an
explorer can update them in place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.text import Text
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import check_array, check_bool, check_int
from posenc_lib.plots._common import OKABE_ITO, as_vector, check_axes, set_labels
from posenc_lib.precision import float32_bits

__all__ = ["BitRows", "draw_error_curves", "draw_float32_bits", "for_log_axis"]

_LINESTYLES = ("-", "--", "-.", ":")


def for_log_axis(values: ArrayLike) -> NDArray[np.float64]:
    """Values ready for a log axis: zeros, negatives, NaN and infinities become NaN (gaps).

    Introduced in notebook 08_numerical_precision.

    Parameters
    ----------
    values : array_like, any shape
        Errors or sizes; an exact result (error 0) or an overflow (inf) has no place on a log
        axis, so it is left out of the line rather than breaking it.

    Returns
    -------
    numpy.ndarray, same shape, float64

    Examples
    --------
    >>> for_log_axis([0.0, 0.5, np.inf, 2.0]).tolist()
    [nan, 0.5, nan, 2.0]
    """
    array = np.asarray(check_array("values", values, finite=False), dtype=np.float64)
    return np.where(np.isfinite(array) & (array > 0), array, np.nan)


def draw_error_curves(
    ax: Axes,
    positions: ArrayLike,
    errors: Mapping[str, ArrayLike],
    *,
    xlabel: str | None = "Position",
    ylabel: str | None = "Absolute error",
    legend: bool = True,
    **style: Any,
) -> dict[str, Line2D]:
    """Draw errors against position on log-log axes, one line per label.

    Introduced in notebook 08_numerical_precision.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw; both axes are set to log scale.
    positions : array_like, shape (n,)
        Positive positions (x values).
    errors : mapping of str to array_like, each shape (n,)
        Label -> errors. Zeros (exact) and infinities (overflow) leave gaps, see
        :func:`for_log_axis`. Labels starting with ``"_"`` stay out of the legend.
    xlabel, ylabel : str or None
        Axis labels; None leaves a label unchanged.
    legend : bool, default True
        Add a legend.
    **style
        Passed on to every ``Axes.plot`` call.

    Returns
    -------
    dict of str to matplotlib.lines.Line2D
        One line per label; update one with ``line.set_ydata(for_log_axis(new))``.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> lines = draw_error_curves(ax, [1, 10, 100], {"float16": [0.0, 1e-3, np.inf]})
    >>> lines["float16"].get_ydata().tolist()
    [nan, 0.001, nan]
    """
    ax = check_axes(ax)
    xs = as_vector("positions", positions)
    if np.any(xs <= 0):
        raise ValueError("positions must be > 0 on a log axis")
    if not isinstance(errors, Mapping) or not errors:
        raise TypeError(f"errors must be a non-empty mapping of label to array; got {errors!r}")
    legend = check_bool("legend", legend)
    lines: dict[str, Line2D] = {}
    for k, (label, values) in enumerate(errors.items()):
        ys = for_log_axis(values)
        if ys.shape != xs.shape:
            raise ValueError(
                f"errors[{label!r}] must have the shape of positions {xs.shape}; got {ys.shape}"
            )
        options = {"linestyle": _LINESTYLES[k % len(_LINESTYLES)], **style}
        (lines[str(label)],) = ax.plot(xs, ys, label=str(label), **options)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    set_labels(ax, xlabel, ylabel)
    if legend and any(not str(label).startswith("_") for label in errors):
        ax.legend()
    return lines


@dataclass
class BitRows:
    """Artists of :func:`draw_float32_bits`: the bit image and the digit texts."""

    image: AxesImage
    digits: list[Text]


def draw_float32_bits(
    ax: Axes,
    values: ArrayLike,
    *,
    labels: Sequence[str] | None = None,
    kept_bits: int = 16,
) -> BitRows:
    """Draw the float32 bit pattern of each value, coloured by field, with dropped bits faded.

    Introduced in notebook 08_numerical_precision (bfloat16 keeps the first 16 bits).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    values : array_like, shape (n,)
        Finite numbers, rounded to float32.
    labels : sequence of str, length n, optional
        Row labels; the values themselves (8 significant digits) when omitted.
    kept_bits : int, default 16
        Bits kept by the narrow format (16 for bfloat16); the others are drawn faded.

    Returns
    -------
    BitRows
        The image (shape (n, 32)) and the 0/1 texts written in the cells.

    Notes
    -----
    Colours: sign (vermillion), exponent (blue), fraction (green); the bits past
    ``kept_bits`` are lighter: they are what bfloat16 drops.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> rows = draw_float32_bits(ax, [1.0, -2.0])
    >>> rows.image.get_array().shape, rows.digits[32].get_text()
    ((2, 32, 4), '1')
    """
    ax = check_axes(ax)
    bits = float32_bits(values)
    kept = check_int("kept_bits", kept_bits, minimum=1)
    if kept > 32:
        raise ValueError(f"kept_bits must be in 1..32; got {kept}")
    n = bits.shape[0]
    if labels is None:
        names = [f"{v:.8g}" for v in np.asarray(values, dtype=np.float32).tolist()]
    else:
        if isinstance(labels, str) or len(labels) != n:
            raise ValueError(f"labels must be a sequence of {n} strings; got {labels!r}")
        names = [str(label) for label in labels]
    field = np.array([3] + [0] * 8 + [2] * 23)  # Okabe-Ito index: sign, exponent, fraction
    colours = np.array([_rgba(OKABE_ITO[i]) for i in field])  # (32, 4)
    rgba = np.repeat(colours[None, :, :], n, axis=0)
    strength = np.where(bits == 1, 1.0, 0.25)[:, :, None]
    faded = np.where(np.arange(32) < kept, 1.0, 0.35)[None, :, None]
    rgba[..., :3] = 1.0 - (1.0 - rgba[..., :3]) * strength * faded
    image = ax.imshow(rgba, aspect="auto", interpolation="nearest")
    # white digits on the strong (kept, set) cells, black elsewhere
    strong = (bits == 1) & (np.arange(32) < kept)[None, :]
    digits = [
        ax.text(k, r, str(bits[r, k]), ha="center", va="center", fontsize=7,
                color="white" if strong[r, k] else "black")
        for r in range(n)
        for k in range(32)
    ]
    ax.axvline(kept - 0.5, color="#000000", linewidth=1.2)
    ax.set_yticks(range(n), names)
    ax.set_xticks([0, 1, 8, 9, 31])
    ax.set_xlabel("Bit (0 = sign, 1-8 = exponent, 9-31 = fraction)")
    ax.grid(False)
    return BitRows(image, digits)


def _rgba(colour: str) -> tuple[float, float, float, float]:
    value = int(colour.lstrip("#"), 16)
    return ((value >> 16) / 255.0, ((value >> 8) & 255) / 255.0, (value & 255) / 255.0, 1.0)

"""Drawing the schemes of notebook 07: bias matrices with masked (-inf) entries.

As everywhere in ``posenc_lib.plots``, a function takes an ``Axes`` and data already computed
(here with ``posenc_lib.bias``), draws it and returns the artist, so an explorer can update it
in place with :func:`masked_bias` and ``image.set_data``.
"""

from __future__ import annotations

from typing import Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.image import AxesImage
from numpy.typing import ArrayLike

from posenc_lib._checks import check_array, check_bool, check_float
from posenc_lib.plots._common import check_axes, figure_of, set_labels

__all__ = ["MASKED_COLOUR", "draw_bias_matrix", "masked_bias"]

MASKED_COLOUR = "#D9D9D9"
"""Colour of masked entries (``-inf``: a key the query may not see)."""


def masked_bias(bias: ArrayLike) -> np.ma.MaskedArray:
    """A 2-D bias matrix as a masked array: ``-inf`` entries (masked keys) are hidden.

    Introduced in notebook 07_other_schemes.

    Parameters
    ----------
    bias : array_like, shape (n_queries, n_keys)
        Finite values or ``-inf`` (NaN and ``+inf`` are rejected).

    Returns
    -------
    numpy.ma.MaskedArray, shape (n_queries, n_keys), float64
        Masked where ``bias`` is ``-inf``.

    Examples
    --------
    >>> masked_bias([[0.0, -np.inf], [-1.0, 0.0]]).mask.tolist()
    [[False, True], [False, False]]
    """
    values = np.asarray(check_array("bias", bias, ndim=2, finite=False), dtype=np.float64)
    if np.isnan(values).any() or np.isposinf(values).any():
        raise ValueError("bias must not contain NaN or +inf (-inf marks a masked key)")
    return np.ma.masked_invalid(np.where(np.isneginf(values), np.nan, values))


def draw_bias_matrix(
    ax: Axes,
    bias: ArrayLike,
    *,
    vmin: float | None = None,
    vmax: float = 0.0,
    cmap: str = "viridis",
    colorbar: bool = False,
    xlabel: str | None = "Key position $j$",
    ylabel: str | None = "Query position $i$",
    **style: Any,
) -> AxesImage:
    """Draw an attention bias matrix (ALiBi, T5, ...) with masked keys in light grey.

    Introduced in notebook 07_other_schemes.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    bias : array_like, shape (n_queries, n_keys)
        One head's bias, e.g. ``alibi_bias(slopes, n)[h]``; ``-inf`` entries are masked.
    vmin : float, optional
        Lower colour limit; the smallest finite entry when omitted.
    vmax : float, default 0.0
        Upper colour limit (ALiBi's biases are <= 0).
    cmap : str, default "viridis"
        Colormap name; masked entries use :data:`MASKED_COLOUR`.
    colorbar : bool, default False
        Add a colorbar (reachable as ``image.colorbar``).
    xlabel, ylabel : str or None
        Axis labels; None leaves a label unchanged.
    **style
        Passed on to ``Axes.imshow``.

    Returns
    -------
    matplotlib.image.AxesImage
        Its array is :func:`masked_bias` of ``bias``; update it with
        ``image.set_data(masked_bias(new))`` and ``image.set_clim(...)``.

    Notes
    -----
    Row ``i`` is what query ``i`` adds to its scores before the softmax: the further the key,
    the darker the cell for ALiBi.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> image = draw_bias_matrix(ax, [[0.0, -np.inf], [-0.5, 0.0]])
    >>> image.get_clim(), bool(image.get_array().mask[0, 1])
    ((-0.5, 0.0), True)
    """
    ax = check_axes(ax)
    data = masked_bias(bias)
    high = check_float("vmax", vmax)
    if vmin is None:
        finite = data.compressed()
        low = float(finite.min()) if finite.size else high - 1.0
        if low >= high:
            low = high - 1.0
    else:
        low = check_float("vmin", vmin)
        if not low < high:
            raise ValueError(f"vmin must be < vmax; got vmin={low}, vmax={high}")
    colorbar = check_bool("colorbar", colorbar)
    colours = matplotlib.colormaps[cmap].with_extremes(bad=MASKED_COLOUR)
    style.setdefault("interpolation", "nearest")
    image = ax.imshow(data, cmap=colours, vmin=low, vmax=high, **style)
    ax.grid(False)
    set_labels(ax, xlabel, ylabel)
    if colorbar:
        figure_of(ax).colorbar(image, ax=ax, fraction=0.046, pad=0.03)
    return image

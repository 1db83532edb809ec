"""Drawing context-extension methods side by side (notebook 06)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from numpy.typing import ArrayLike

from posenc_lib.plots._common import as_vector, check_axes, set_labels

__all__ = ["draw_frequency_ratios"]

_LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))


def draw_frequency_ratios(
    ax: Axes,
    ratios: Mapping[str, ArrayLike],
    *,
    log_scale: bool = True,
    legend: bool = True,
    xlabel: str | None = "Pair index $i$",
    ylabel: str | None = r"Frequency ratio $\theta_i' / \theta_i$",
    **style: Any,
) -> dict[str, Line2D]:
    """Draw the per-dimension frequency ratio (scaled / original) of several methods.

    Introduced in notebook 06_context_extension (the key picture: every method on one chart).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    ratios : mapping of str to array_like, each of shape (head_dim // 2,)
        Method name -> ``frequency_ratio(head_dim, base, rope_scaling)``; all the same length.
    log_scale : bool, default True
        Logarithmic y axis (ratios such as 1/s are then evenly spaced).
    legend : bool, default True
        Add a legend.
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to every ``Axes.plot`` call.

    Returns
    -------
    dict of str to matplotlib.lines.Line2D
        One line per method, in the order of ``ratios``; y = the ratios, x = i.

    Notes
    -----
    A ratio of 1 leaves the pair as trained (extrapolation); 1/s interpolates it fully (PI).
    Colours follow the course cycle and line styles differ too, so the chart reads in grey.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> lines = draw_frequency_ratios(ax, {"linear": np.full(4, 0.25), "default": np.ones(4)})
    >>> list(lines), lines["linear"].get_ydata().tolist()
    (['linear', 'default'], [0.25, 0.25, 0.25, 0.25])
    """
    ax = check_axes(ax)
    if not isinstance(ratios, Mapping) or not ratios:
        raise TypeError(
            f"ratios must be a non-empty mapping of method name to array; got {ratios!r}"
        )
    vectors = {str(name): as_vector(f"ratios[{name!r}]", value) for name, value in ratios.items()}
    sizes = {vector.size for vector in vectors.values()}
    if len(sizes) != 1:
        raise ValueError(f"ratios must all have the same length; got lengths {sorted(sizes)}")
    if log_scale and any(np.any(vector <= 0) for vector in vectors.values()):
        raise ValueError("ratios must be > 0 on a log scale")
    index = np.arange(sizes.pop())
    lines: dict[str, Line2D] = {}
    for k, (name, vector) in enumerate(vectors.items()):
        options = {"linestyle": _LINESTYLES[k % len(_LINESTYLES)], **style}
        (lines[name],) = ax.plot(index, vector, label=name, **options)
    if log_scale:
        ax.set_yscale("log")
    set_labels(ax, xlabel, ylabel)
    if legend:
        ax.legend(loc="lower left")
    return lines

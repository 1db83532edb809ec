"""Two panels side by side, the learner's result ("yours") and the library's ("posenc_lib"),
drawn by the same drawing function: what a wrong build step does, made visible.

Notebooks: 01-09 (a build step's ``beside``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from matplotlib.figure import Figure

__all__ = ["draw_yours_beside"]


def draw_yours_beside(draw: Callable[..., Any], yours: Any, reference: Any, *args: Any,
                      panel_size: tuple[float, float] = (4.2, 3.0), **kwargs: Any) -> Figure:
    """Draw ``yours`` and ``reference`` with ``draw(ax, *args, value, **kwargs)``, side by side.

    Parameters
    ----------
    draw : callable
        A posenc_lib.plots drawing function: an axes, then ``args``, then the value to draw
        (``draw_division_term``, ``draw_encoding_heatmap``, ``draw_stacked_waves`` with x...).
    yours, reference : array-like
        The learner's result (None: it failed) and the library's, for the same arguments.
    *args
        Passed to ``draw`` before the value.
    panel_size : (float, float)
        Width and height of one panel, in inches.
    **kwargs
        Passed on to ``draw`` for both panels.

    Returns
    -------
    matplotlib.figure.Figure
        The figure; the two panels share their axes' limits, titled "yours" and "posenc_lib".
        Curves of the library's panel are drawn over yours too, thin and dashed. When ``yours``
        cannot be drawn (a wrong shape), its panel says why instead.
    """
    import matplotlib.pyplot as plt  # at call time: importing posenc_lib.plots selects no backend

    width, height = panel_size
    fig, (left, right) = plt.subplots(1, 2, figsize=(2 * width, height), sharex=True,
                                      sharey=True, layout="constrained")
    draw(right, *args, reference, **kwargs)
    try:
        if yours is None:
            raise ValueError("yours raised an error on these arguments")
        draw(left, *args, yours, **kwargs)
    except Exception as error:  # the learner's result may be of any shape: say so, do not stop
        left.text(0.5, 0.5, f"yours cannot be drawn:\n{type(error).__name__}",
                  ha="center", va="center", transform=left.transAxes)
    else:
        for line in right.lines:  # curves: the library's also over yours, thin and dashed
            left.plot(line.get_xdata(), line.get_ydata(), color="0.45", linestyle="--",
                      linewidth=0.9, zorder=1)
    mine = "yours (dashed: posenc_lib)" if right.lines else "yours"
    left.set_title(mine, color="#b2182b")
    right.set_title("posenc_lib")
    return fig

"""Drawing RoPE quantities (notebook 05)."""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from numpy.typing import ArrayLike

from posenc_lib.plots._common import as_vector, check_axes, set_labels

__all__ = ["draw_decay_bound"]


def draw_decay_bound(
    ax: Axes,
    distances: ArrayLike,
    bound: ArrayLike,
    *,
    xlabel: str | None = "Relative distance $m$",
    ylabel: str | None = r"Bound $\frac{1}{d/2}\sum_j |S_j|$",
    **style: Any,
) -> Line2D:
    """Draw RoFormer's long-term decay bound against the relative distance.

    Introduced in notebook 05_rope.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    distances : array_like, shape (n,)
        Relative distances m.
    bound : array_like, shape (n,)
        ``rope_decay_bound(distances, head_dim, base)``.
    xlabel, ylabel : str or None
        Axis labels; None leaves the label unchanged.
    **style
        Passed on to ``Axes.plot``.

    Returns
    -------
    matplotlib.lines.Line2D
        x = ``distances``, y = ``bound``.

    Notes
    -----
    B(m) = (1/(d/2)) * sum_{j=1}^{d/2} |S_j| with S_j = sum_{k=0}^{j-1} exp(i m theta_k)
    (Su et al., RoFormer, section 3.4.3). It decays with m but not monotonically.

    References
    ----------
    Su, J. et al. (2021). RoFormer: Enhanced Transformer with Rotary Position Embedding.
    arXiv:2104.09864.

    Examples
    --------
    >>> from posenc_lib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> line = draw_decay_bound(ax, [0, 1, 2], [5.0, 4.0, 4.5])
    >>> line.get_ydata().tolist()
    [5.0, 4.0, 4.5]
    """
    ax = check_axes(ax)
    x = as_vector("distances", distances)
    y = as_vector("bound", bound)
    if x.shape != y.shape:
        raise ValueError(f"bound must have the shape of distances {x.shape}; got {y.shape}")
    (line,) = ax.plot(x, y, **style)
    set_labels(ax, xlabel, ylabel)
    return line

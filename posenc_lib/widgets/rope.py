"""Explorer of the RoPE score |<R_m q, R_n k>| / d for q = k = (1, ..., 1) against the relative
distance, beside RoFormer's bound (1/(d/2)) sum_j |S_j| on it.

Notebook: 05_rope.
"""

from __future__ import annotations

import ipywidgets
import numpy as np

from posenc_lib._checks import check_even, check_float, check_int
from posenc_lib.plots import draw_curves, draw_reference_lines
from posenc_lib.rope import normalised_score_curves
from posenc_lib.widgets._base import Explorer, check_slider_range

__all__ = ["RopeScoreExplorer"]

_SCORE_LABEL = r"$|$score$|$ for $q = k = (1, \ldots, 1)$"
_BOUND_LABEL = "RoFormer's bound on that score"


class RopeScoreExplorer(Explorer):
    """Score and decay bound against the relative distance, with base and ``d`` sliders."""

    site_values = {"base": tuple(10.0 ** (k / 5) for k in range(10, 36))}

    def __init__(self, head_dim: int = 128, base: float = 10000.0,
            max_distance: int = 500) -> None:
        head_dim = check_slider_range("head_dim", check_even("head_dim", head_dim), 8, 256)
        base = check_float("base", base, greater_than=1.0)
        base = check_slider_range("base", base, 100.0, 1e7, "[100, 1e7]")
        self.distances = np.arange(check_int("max_distance", max_distance, minimum=10) + 1)
        super().__init__(figsize=(7.0, 3.6))
        score, bound = normalised_score_curves(self.distances, head_dim, base)
        with self.style():
            ax = self.figure.add_subplot()
            lines = draw_curves(ax, self.distances, {_SCORE_LABEL: np.abs(score),
                _BOUND_LABEL: bound}, xlabel="Relative distance $r = n - m$",
                ylabel="Value / score at distance 0")
            draw_reference_lines(ax, horizontal={"": 1.0})
            ax.set_yscale("log")
            ax.set_ylim(1e-3, 200.0)
            ax.set_xlim(0, self.distances[-1])
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the axes, off the data
            self.title = ax.text(0.0, 1.03, "", transform=ax.transAxes, ha="left", va="bottom",
                fontsize=10, fontweight="bold")
        self.axes = ax
        self.score_line = lines[_SCORE_LABEL]
        self.bound_line = lines[_BOUND_LABEL]
        self.changing = [self.score_line, self.bound_line, self.title]
        self.add_control("base", ipywidgets.FloatLogSlider(value=base, base=10, min=2, max=7,
            step=0.1, description="base", continuous_update=True))
        self.add_control("head_dim", ipywidgets.IntSlider(value=head_dim, min=8, max=256, step=8,
            description="d", continuous_update=True))
        self.freeze_layout()  # the axes never move
        self.refresh()

    def update(self, base: float, head_dim: int) -> None:  # type: ignore[override]
        score, bound = normalised_score_curves(self.distances, int(head_dim), float(base))
        self.score_line.set_ydata(np.abs(score))
        self.bound_line.set_ydata(bound)
        rises = int(np.count_nonzero(np.diff(bound) > 0))
        self.title.set_text(
            f"d = {int(head_dim)}, base = {float(base):.3g}: the bound rises on {rises} of "
            f"{len(bound) - 1} steps"
        )

"""Explorer of how the base and d_model shape PE·PEᵀ and its decay.

Notebook: 03_properties.
"""

from __future__ import annotations

import ipywidgets
import numpy as np

from posenc_lib._checks import check_even, check_float, check_int
from posenc_lib.analysis import local_minima, offset_similarity
from posenc_lib.plots import draw_offset_curve, draw_similarity_matrix
from posenc_lib.widgets._base import Explorer
from posenc_lib.widgets.sinusoidal import SITE_D_MODELS

__all__ = ["SimilarityDecayExplorer"]


class SimilarityDecayExplorer(Explorer):
    """PE·PEᵀ / (d/2) (left) and its offset curve with the bounces marked (right)."""

    site_values = {"d_model": SITE_D_MODELS}

    def __init__(self, d_model: int = 128, base: float = 10000.0, *, n_positions: int = 64,
            max_offset: int = 100) -> None:
        d_model = check_even("d_model", d_model, minimum=8)
        base = check_float("base", base, greater_than=1.0)
        self.n_positions = check_int("n_positions", n_positions, minimum=2)
        self.offsets = np.arange(check_int("max_offset", max_offset, minimum=2) + 1)
        grid = np.subtract.outer(np.arange(self.n_positions), np.arange(self.n_positions))
        self._distance = np.abs(grid)
        super().__init__(figsize=(9.0, 3.8))
        with self.style():
            left, right = self.figure.subplots(1, 2, width_ratios=[1.0, 1.5])
            self.matrix = draw_similarity_matrix(left, np.zeros((self.n_positions,) * 2),
                vmin=-1.0, vmax=1.0)
            left.set_title(r"$PE\,PE^\top / (d/2)$")
            self.curve = draw_offset_curve(right, self.offsets, np.zeros(self.offsets.size),
                ylabel=r"$PE(t)\cdot PE(t+k)\,/\,(d/2)$")
            right.set_ylim(-1.05, 1.05)
            right.set_xlim(0, int(self.offsets[-1]))
            # under the axis: the curve may reach any height at any offset
            right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))
            self.title = right.set_title(" ")
        self.changing = [self.matrix, self.curve.line, self.curve.bounces, self.title]
        self.add_control("d_model", ipywidgets.IntSlider(value=d_model, min=8, max=1024, step=8,
            description="d_model", continuous_update=True))
        self.add_control("base", ipywidgets.FloatLogSlider(value=base, base=10, min=1, max=6,
            step=0.25, description="base", continuous_update=True))
        self.refresh()

    def update(self, d_model: int, base: float) -> None:  # type: ignore[override]
        # S(k) for every offset up to max(n, max_offset)
        reach = max(self.n_positions, self.offsets.size)
        curve = offset_similarity(np.arange(reach), d_model, base, normalised=True)
        # PE PE^T depends on |t - t'| only: fill the Toeplitz matrix from the curve
        self.matrix.set_data(curve[self._distance])
        shown = curve[: self.offsets.size]
        bounces = local_minima(shown)
        self.curve.update(self.offsets, shown, bounces)
        first = f"first bounce at k = {int(bounces[0])}" if bounces.size else "no bounce"
        self.title.set_text(f"d = {d_model}, base = {base:g}: {first}")

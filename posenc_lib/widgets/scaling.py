"""Explorer of what each context-extension method does to every RoPE pair of a model trained on
L positions and stretched to sL: the ratio theta'_i / theta_i, and the angles never seen.

Notebook: 06_context_extension.
"""

from __future__ import annotations

import ipywidgets
import numpy as np
from matplotlib.layout_engine import ConstrainedLayoutEngine

from posenc_lib._checks import check_choice, check_even, check_float, check_int
from posenc_lib.analysis import (
    DERIVED_METHODS,
    extension_positions,
    method_frequencies,
    method_frequency_ratios,
    method_unseen_mask,
)
from posenc_lib.plots import draw_frequency_ratios, draw_reference_lines, draw_unseen_angles
from posenc_lib.widgets._base import Explorer, check_slider_range
from posenc_lib.widgets._raster import PixelRaster

__all__ = ["ScalingExplorer"]


class ScalingExplorer(Explorer):
    """Frequency ratio per pair and unseen angles, with method, factor and base controls."""

    site_values = {"factor": (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0, 14.0,
        16.0, 20.0, 24.0, 28.0, 32.0), "base": tuple(10.0 ** (k / 5) for k in range(15, 36))}

    def __init__(self, method: str = "yarn", factor: float = 8.0, base: float = 10000.0,
            head_dim: int = 128, trained_length: int = 4096, n_columns: int = 512) -> None:
        method = check_choice("method", method, DERIVED_METHODS)
        factor = check_float("factor", factor, at_least=1.0)
        factor = check_slider_range("factor", factor, 1.0, 32.0, "[1, 32]")
        base = check_float("base", base, greater_than=1.0)
        base = check_slider_range("base", base, 1e3, 1e7, "[1e3, 1e7]")
        self.head_dim = check_even("head_dim", head_dim, minimum=4)
        self.trained_length = check_int("trained_length", trained_length, minimum=2)
        n_columns = check_int("n_columns", n_columns, minimum=2)
        self.n_columns = check_slider_range("n_columns", n_columns, 2, self.trained_length)
        super().__init__(figsize=(8.0, 3.6))
        n_pairs = self.head_dim // 2
        with self.style():
            left, right = self.figure.subplots(1, 2, width_ratios=(1.0, 1.25))
            lines = draw_frequency_ratios(left, {"trained (default)": np.ones(n_pairs),
                "scaled": np.ones(n_pairs)})
            left.set_ylim(1.0 / 60.0, 1.6)
            # under the axis: a method's curve may run anywhere from 1 down to 1/32
            left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncols=2)
            columns = np.linspace(0.0, 1.0, self.n_columns)
            self.unseen_image = draw_unseen_angles(right, np.zeros((self.n_columns, n_pairs),
                dtype=bool), columns, xlabel="Position $m$ / target length $L' = sL$")
            right.set_xlim(0.0, 1.0)
            self.raster = PixelRaster(self.unseen_image)  # paints the mask without resampling
            self.trained_line = draw_reference_lines(right, vertical={"": 1.0 / factor},
                color="#333333", linewidth=1.2)[""]
            engine = self.figure.get_layout_engine()
            assert isinstance(engine, ConstrainedLayoutEngine), "the course style lays out"
            engine.set(rect=(0.0, 0.0, 1.0, 0.93))
            self.title = self.figure.text(0.01, 0.985, "", ha="left", va="top", fontsize=10,
                fontweight="bold")
        self.ratio_line = lines["scaled"]
        # the spines drawn again over the mask's edges
        self.changing = [self.ratio_line, self.raster, *right.spines.values(), self.trained_line,
            self.title]
        self.axes = (left, right)
        self.add_control("method", ipywidgets.Dropdown(options=list(DERIVED_METHODS), value=method,
            description="method"))
        self.add_control("factor", ipywidgets.FloatSlider(value=factor, min=1.0, max=32.0,
            step=0.5, description="factor s"))
        self.add_control("base", ipywidgets.FloatLogSlider(value=base, base=10, min=3, max=7,
            step=0.1, description="base"))
        self.freeze_layout()  # the axes never move
        self.refresh()

    def update(self, method: str, factor: float, base: float) -> None:  # type: ignore[override]
        factor, base = float(factor), float(base)
        length = self.trained_length
        _, attention = method_frequencies(method, self.head_dim, base, factor, length)
        (ratio,) = method_frequency_ratios(self.head_dim, base, factor, length, (method,)).values()
        self.ratio_line.set_ydata(ratio)
        pos = extension_positions(length, factor, self.n_columns)  # 0 .. sL - 1, sampled
        unseen = method_unseen_mask(method, pos, self.head_dim, base, factor, length)
        self.unseen_image.set_data(unseen.T.astype(np.float64))
        self.trained_line.set_xdata([1.0 / factor, 1.0 / factor])
        self.unseen_percent = 100.0 * float(unseen.mean())
        self.pairs_hit = int(unseen.any(axis=0).sum())
        self.title.set_text(
            f"{method}, s = {factor:g}, base = {base:.3g}: unseen {self.unseen_percent:.2f} % "
            f"of cells, {self.pairs_hit} of {self.head_dim // 2} pairs; "
            f"attention factor {attention:.3f}"
        )

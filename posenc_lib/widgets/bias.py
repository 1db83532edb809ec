"""Explorer of ALiBi's head slopes (the weights softmax(-m_h d) of the last query over the
distance d, one line per head) beside T5's bucket of every relative position j - i.

Notebook: 07_other_schemes.
"""

from __future__ import annotations

from typing import Any

import ipywidgets
import matplotlib
import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.colors import ListedColormap, Normalize
from matplotlib.ticker import MaxNLocator, NullLocator

from posenc_lib._checks import check_bool, check_even, check_int
from posenc_lib.bias import (
    alibi_slopes,
    alibi_weights_by_distance,
    t5_exact_buckets,
    t5_relative_position_bucket,
)
from posenc_lib.plots import draw_curves
from posenc_lib.widgets._base import Explorer, check_slider_range

__all__ = ["RelativeBiasExplorer"]

MAX_HEADS = 16
_HEAD_COLOURS = "viridis"  # steepest head dark, gentlest yellow-green (0.9 of the map)


class RelativeBiasExplorer(Explorer):
    """ALiBi head slopes (left) and T5 buckets (right), with sliders for both."""

    site_values = {"max_distance": (40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 192, 224, 256)}

    def __init__(self, n_heads: int = 8, num_buckets: int = 32, max_distance: int = 128,
            bidirectional: bool = True, length: int = 64, span: int = 300) -> None:
        n_heads = check_slider_range("n_heads", check_int("n_heads", n_heads), 1, MAX_HEADS)
        num_buckets = check_even("num_buckets", num_buckets, minimum=4)
        num_buckets = check_slider_range("num_buckets", num_buckets, 4, 64, "even 4..64")
        max_distance = check_int("max_distance", max_distance)
        max_distance = check_slider_range("max_distance", max_distance, 40, 256)
        bidirectional = check_bool("bidirectional", bidirectional)
        self.distances = np.arange(check_int("length", length, minimum=2))
        self.offsets = np.arange(-check_int("span", span, minimum=1), span + 1)
        super().__init__(figsize=(8.6, 3.5))
        with self.style():
            left, right = self.figure.subplots(1, 2)
            zeros = np.full(self.distances.shape, 1.0 / self.distances.size)
            curves = {f"_head {h}": zeros for h in range(1, MAX_HEADS + 1)}
            lines = draw_curves(left, self.distances, curves, yscale="log", legend=False,
                linestyle="-", xlabel="Distance to the key $i - j$", ylabel="Attention weight")
            self.head_lines = list(lines.values())
            left.set_ylim(1e-6, 1.0)
            left.set_xlim(0, self.distances[-1])
            left.yaxis.set_minor_locator(NullLocator())  # 60 minor ticks would double the cost
            self.head_key = self._draw_head_key(left)
            left.xaxis.set_major_locator(MaxNLocator(5))
            self.alibi_title = left.set_title("", fontsize="medium")
            (self.bucket_line,) = draw_curves(right, self.offsets,
                {"_buckets": np.zeros(self.offsets.shape)}, legend=False, drawstyle="steps-mid",
                linestyle="-", xlabel="Relative position $j - i$", ylabel="T5 bucket").values()
            self.distance_lines = [right.axvline(x, color="#666666", linestyle="--",
                linewidth=0.9) for x in (-max_distance, max_distance)]
            right.set_xlim(self.offsets[0], self.offsets[-1])
            # symlog: linear for the exact buckets, logarithmic where T5's buckets are
            right.set_xscale("symlog", linthresh=16, linscale=1.0)
            ticks = [-256, -64, -16, 0, 16, 64, 256]
            right.set_xticks(ticks, [str(t) for t in ticks])
            right.xaxis.set_minor_locator(NullLocator())
            self.t5_title = right.set_title("", fontsize=9)  # fits at 64 buckets, max 256
        self.alibi_axes, self.t5_axes = left, right
        self.add_control("n_heads", ipywidgets.IntSlider(value=n_heads, min=1, max=MAX_HEADS,
            description="ALiBi heads"))
        self.add_control("num_buckets", ipywidgets.IntSlider(value=num_buckets, min=4, max=64,
            step=2, description="buckets"))
        self.add_control("max_distance", ipywidgets.IntSlider(value=max_distance, min=40, max=256,
            description="max dist."))
        self.add_control("bidirectional", ipywidgets.Checkbox(value=bidirectional,
            description="bidirectional"))
        self._num_buckets = num_buckets
        self.t5_axes.set_ylim(-0.5, num_buckets - 0.5)
        self.changing = [
            *self.head_lines, self.bucket_line, *self.distance_lines, self.alibi_title,
            self.t5_title,
        ]
        self.freeze_layout(num_buckets=64)  # the most buckets: the widest tick labels
        self.refresh()

    def _draw_head_key(self, ax: Any) -> Any:
        head_colours = ListedColormap(matplotlib.colormaps[_HEAD_COLOURS](np.linspace(0, 0.9, 256)))
        key = self.figure.colorbar(ScalarMappable(Normalize(0.0, 1.0), cmap=head_colours), ax=ax,
            fraction=0.06, pad=0.02)
        key.set_ticks([0.0, 1.0], labels=["steepest\nhead", "gentlest\nhead"])
        key.ax.tick_params(labelsize=8)
        return key

    def update(  # type: ignore[override]
        self, n_heads: int, num_buckets: int, max_distance: int, bidirectional: bool
    ) -> None:
        n_heads = int(n_heads)
        weights = alibi_weights_by_distance(n_heads, self.distances.size)
        slopes = alibi_slopes(n_heads)
        order = np.argsort(np.argsort(-slopes))  # 0 = steepest head
        colours = matplotlib.colormaps[_HEAD_COLOURS]
        for h, line in enumerate(self.head_lines):
            line.set_visible(h < n_heads)
            if h < n_heads:
                line.set_ydata(weights[h])
                line.set_color(colours(0.9 * order[h] / max(n_heads - 1, 1)))
        self.alibi_title.set_text(
            f"ALiBi, {n_heads} heads: slopes 1/{1 / slopes.max():.3g} ... 1/{1 / slopes.min():.3g}"
        )
        buckets = t5_relative_position_bucket(self.offsets, bidirectional=bool(bidirectional),
            num_buckets=int(num_buckets), max_distance=int(max_distance))
        self.bucket_line.set_ydata(buckets)
        if int(num_buckets) != self._num_buckets:  # new y limits: the background changes
            self._num_buckets = int(num_buckets)
            self.t5_axes.set_ylim(-0.5, self._num_buckets - 0.5)
            self.invalidate_background()
        for sign, line in zip((-1, 1), self.distance_lines, strict=True):
            line.set_xdata([sign * int(max_distance)] * 2)
        exact = t5_exact_buckets(int(num_buckets), bidirectional=bool(bidirectional))
        mode = "encoder" if bidirectional else "decoder"
        self.t5_title.set_text(
            f"T5 {mode}: {int(num_buckets)} buckets ({exact} exact), max {int(max_distance)}"
        )

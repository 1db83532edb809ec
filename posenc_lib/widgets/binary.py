"""The binary-counting explorer: one position in the bit table and on the waves.

Notebook: 01_binary_counting.
"""

from __future__ import annotations

import ipywidgets
import numpy as np
from matplotlib.patches import Rectangle

from posenc_lib._checks import check_int
from posenc_lib.binary import binary_table, bit_periods, bit_wave, smooth_bit_wave
from posenc_lib.plots import draw_binary_table, draw_stacked_waves
from posenc_lib.widgets._base import Explorer, check_slider_range

__all__ = ["BinaryCountingExplorer"]


class BinaryCountingExplorer(Explorer):
    """A position slider on the table of ``n_bits`` bits (2 to 6; 2**n_bits rows, left) and on
    each bit's square and smooth wave, starting at ``position``."""

    def __init__(self, n_bits: int = 4, position: int = 5) -> None:
        n_bits = check_slider_range("n_bits", check_int("n_bits", n_bits), 2, 6)
        n_positions = 2**n_bits
        position = check_int("position", position, minimum=0)
        position = check_slider_range("position", position, 0, n_positions - 1)
        super().__init__(figsize=(9.0, 4.2))
        self.n_bits = n_bits
        self.bits = binary_table(n_positions, n_bits)
        # position p holds its bits on [p - 1/2, p + 1/2): the samples stop just before
        # n_positions - 1/2, which already belongs to position n_positions (all bits 0)
        x = np.linspace(-0.5, n_positions - 0.5, 40 * n_positions, endpoint=False)
        bits_lsb_first = range(n_bits)
        # each bit's value held over the cell around its integer position: b_k(x + 1/2)
        square = np.stack([bit_wave(x + 0.5, k) for k in bits_lsb_first], axis=1)
        smooth = np.stack([smooth_bit_wave(x, k) for k in bits_lsb_first], axis=1)
        labels = [f"bit {k} ($2^{k}$)" for k in bits_lsb_first]
        with self.style():
            left, right = self.figure.subplots(1, 2, width_ratios=[1.0, 2.2])
            self.table = draw_binary_table(left, self.bits, periods=bit_periods(n_bits))
            self.highlight = left.add_patch(Rectangle((-0.5, position - 0.5), n_bits, 1.0,
                fill=False, linewidth=2.5, edgecolor="black"))
            self.square = draw_stacked_waves(right, x, square, labels=labels, spacing=1.6)
            self.smooth = draw_stacked_waves(right, x, smooth, labels=labels, spacing=1.6,
                linestyle="--", linewidth=1.2)
            for square_line, smooth_line in zip(self.square.waves, self.smooth.waves, strict=True):
                smooth_line.set_color(square_line.get_color())
            self.cursor = right.axvline(position, color="black", linewidth=1.0)
            self.markers = [right.plot([position], [0.0], marker="o", markersize=8, color="black",
                linestyle="none")[0] for _ in bits_lsb_first]
            self.title = right.set_title("", y=1.0)  # fixed y: drawn alone
        self.changing = [self.highlight, self.cursor, *self.markers, self.title]
        self.add_control("position", ipywidgets.IntSlider(value=position, min=0,
            max=n_positions - 1, description="position"))
        self.refresh()

    def update(self, position: int) -> None:  # type: ignore[override]
        self.highlight.set_y(position - 0.5)
        self.cursor.set_xdata([position, position])
        row = self.bits[position]
        for k, marker in enumerate(self.markers):
            bit = row[self.n_bits - 1 - k]
            marker.set_data([position], [bit + self.square.offsets[k]])
        written = "".join(str(int(b)) for b in row)
        self.title.set_text(f"position {position} = {written} in binary")

"""Explorer of the rotation proof: the shift by k positions is a rotation of each pair.

Notebook: 04_rotation_proof.
"""

from __future__ import annotations

import ipywidgets
import numpy as np

from posenc_lib._checks import check_even, check_int
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.plots import draw_pair_waves, draw_unit_circle
from posenc_lib.shift import pair_shift_matrix
from posenc_lib.sinusoidal import encoding_from_frequencies
from posenc_lib.widgets._base import Explorer

__all__ = ["RotationExplorer"]


class RotationExplorer(Explorer):
    """One (sin, cos) pair on the unit circle moved by M_k (left), and as two waves (right).
    The point is p(t) = (sin(theta t), cos(theta t)); M_k p(t) lands on p(t + k).
    """

    site_values = {"t": (*range(13), *range(14, 41, 2)),
        "k": (*range(-20, -8, 2), *range(-8, 9), *range(10, 21, 2))}

    def __init__(self, t: int = 5, k: int = 3, pair: int = 0, *, d_model: int = 16,
            base: float = 10000.0, max_position: int = 40, max_offset: int = 20) -> None:
        self.theta = inverse_frequencies(check_even("d_model", d_model), base)
        max_position = check_int("max_position", max_position)
        max_offset = check_int("max_offset", max_offset)
        samples = np.linspace(-max_offset, max_position + max_offset, 400)
        super().__init__(figsize=(9.0, 3.8))
        with self.style():
            left, right = self.figure.subplots(1, 2, width_ratios=[1.0, 1.6])
            self.circle = draw_unit_circle(left, [0.0, 1.0], [0.0, 1.0], point_label="$p(t)$",
                rotated_label="$M_k\\,p(t)$")
            left.set_xlabel(r"$\sin(\theta t)$")
            left.set_ylabel(r"$\cos(\theta t)$")
            self.waves = draw_pair_waves(right, samples, float(self.theta[0]), 0.0, 0.0)
            # the legend under the axis, where the lines at t and t + k never cross it
            right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=4, fontsize=8)
            right.set_ylim(-1.15, 1.15)
            self.title = right.set_title(" ", fontsize=9)
        c, w = self.circle, self.waves
        self.changing = [
            c.point_radius, c.rotated_radius, c.arc, c.point, c.rotated, *c.labels,
            w.now_line, w.later_line, w.sine, w.cosine, w.now, w.later, self.title,
        ]
        self.add_control("t", ipywidgets.IntSlider(
            value=check_int("t", t, minimum=0), min=0, max=max_position, description="t"))
        self.add_control("k", ipywidgets.IntSlider(value=check_int("k", k, minimum=None),
            min=-max_offset, max=max_offset, description="k"))
        self.add_control("pair", ipywidgets.IntSlider(value=check_int("pair", pair, minimum=0),
            min=0, max=self.theta.size - 1, description="pair i"))
        self.refresh()

    def update(self, t: int, k: int, pair: int) -> None:  # type: ignore[override]
        theta = float(self.theta[pair])
        point = encoding_from_frequencies([t], [theta])[0]  # p(t) = (sin(theta t), cos(theta t))
        shift = pair_shift_matrix(k, theta)
        self.circle.update(point, shift @ point)
        self.circle.spread_labels()
        self.waves.update(theta, t, k)
        (c, s), (minus_s, _) = shift
        self.title.set_text(
            f"θ = {theta:.3g}, θk = {theta * k:.2f}: M_k = [[{c:.2f}, {s:.2f}], "
            f"[{minus_s:.2f}, {c:.2f}]]"
        )

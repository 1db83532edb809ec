"""Explorer of how far the angle m theta_i drifts in a narrow floating-point format: the error
|fl(fl(m) fl(theta_i)) - m theta_i| against m beside the guide m theta_i eps, and on the circle.

Notebook: 08_numerical_precision.
"""

from __future__ import annotations

import ipywidgets
import numpy as np
from matplotlib.ticker import NullLocator
from numpy.typing import NDArray

from posenc_lib._checks import check_choice, check_even, check_int
from posenc_lib.frequencies import angles, inverse_frequencies
from posenc_lib.plots import draw_error_curves, draw_unit_circle, for_log_axis
from posenc_lib.precision import angle_error, machine_epsilon, round_to_dtype, rounded_angles
from posenc_lib.shift import rotation_matrix
from posenc_lib.widgets._base import Explorer, check_slider_range

__all__ = ["AngleErrorExplorer"]

_DTYPES = ("float16", "bfloat16", "float32")
_FLOAT16_MAX = 65504.0


class AngleErrorExplorer(Explorer):
    """Angle error against position, with format, position and pair controls."""

    site_values = {"position": tuple(2.0**k for k in range(21))}

    def __init__(self, dtype_name: str = "float16", position: int = 1857, pair: int = 1,
            d_model: int = 32) -> None:
        dtype_name = check_choice("dtype_name", dtype_name, _DTYPES)
        position = check_slider_range("position", check_int("position", position), 1, 2**20)
        self.thetas = inverse_frequencies(check_even("d_model", d_model, minimum=4))
        pair = check_int("pair", pair, minimum=0)
        pair = check_slider_range("pair", pair, 0, self.thetas.size - 1)
        self.positions = np.unique(np.round(2.0 ** np.linspace(0.0, 20.0, 321))).astype(np.int64)
        super().__init__(figsize=(8.6, 3.6))
        with self.style():
            left, right = self.figure.subplots(1, 2, width_ratios=[1.6, 1.0])
            ones = np.ones(self.positions.shape)
            lines = draw_error_curves(left, self.positions, {"angle error": ones,
                r"$m\,\theta_i\,\epsilon$": ones}, xlabel="Position", ylabel="Angle error (rad)")
            self.error_line, self.guide_line = lines.values()
            self.guide_line.set_color("#888888")
            (self.marker,) = left.plot([1.0], [1.0], "o", color="#D55E00", markersize=8)
            self.overflow_line = left.axvline(_FLOAT16_MAX, color="#D55E00", linestyle=":")
            self.overflow_label = left.text(_FLOAT16_MAX, 1e3, "float16 max\n65504 ",
                color="#D55E00", fontsize=8, ha="right", va="top")
            left.set_xlim(1, 2**20)
            left.set_ylim(1e-9, 1e4)
            left.yaxis.set_minor_locator(NullLocator())
            left.xaxis.set_minor_locator(NullLocator())
            left.set_xticks([2.0**k for k in range(0, 21, 4)])
            left.legend(loc="upper left")
            self.error_title = left.set_title("")
            self.circle = draw_unit_circle(right, [1.0, 0.0], [1.0, 0.0], point_label="exact",
                rotated_label="rounded")
            right.set_xlim(-2.0, 2.0)  # room for the labels beside the points
            self.circle_title = right.set_title("", fontsize=9)
        self.error_axes, self.circle_axes = left, right
        self.add_control("dtype_name", ipywidgets.Dropdown(options=_DTYPES, value=dtype_name,
            description="dtype"))
        self.add_control("position", ipywidgets.FloatLogSlider(value=position, base=2, min=0,
            max=20, step=0.01, description="position"))
        self.add_control("pair", ipywidgets.IntSlider(value=pair, min=0, max=self.thetas.size - 1,
            description="pair i"))
        c = self.circle
        self.changing = [
            self.error_line, self.guide_line, self.marker, self.overflow_line,
            self.overflow_label, c.point,
            c.point_radius, c.rotated, c.rotated_radius, c.arc, *c.labels, self.error_title,
            self.circle_title,
        ]
        self.refresh()

    def curves(self, dtype_name: str, pair: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The angle error at every sampled position and the guide ``m theta_i eps``."""
        theta = self.thetas[pair]
        # positions a format cannot hold (float16 past 65504) get inf: a gap on the log axis
        fits = np.isfinite(round_to_dtype(self.positions, dtype_name))
        error = np.full(self.positions.shape, np.inf)
        error[fits] = angle_error(self.positions[fits], [theta], dtype_name)[:, 0]
        guide = angles(self.positions, [theta])[:, 0] * machine_epsilon(dtype_name)  # m theta_i eps
        return error, guide

    def update(self, dtype_name: str, position: float, pair: int) -> None:  # type: ignore[override]
        pair, pos = int(pair), int(round(position))
        theta = float(self.thetas[pair])
        error, guide = self.curves(dtype_name, pair)
        self.error_line.set_ydata(for_log_axis(error))
        self.guide_line.set_ydata(for_log_axis(guide))
        self.overflow_line.set_visible(dtype_name == "float16")
        self.overflow_label.set_visible(dtype_name == "float16")
        exact = float(angles([pos], [theta])[0, 0])  # m theta_i
        approx = float(rounded_angles([pos], [theta], dtype_name)[0, 0])
        gap = abs(approx - exact)
        self.marker.set_data([pos], [for_log_axis([gap])[0]])
        self.error_title.set_text(f"{dtype_name}, pair {pair} ($\\theta_i$ = {theta:.4g})")
        start = rotation_matrix(exact)[:, 0]  # (cos, sin) of the angle
        if np.isfinite(approx):
            end = rotation_matrix(approx)[:, 0]
            self.circle.update(start, end)
            self.circle.spread_labels()
            self.circle_title.set_text(f"pos {pos}: error {gap:.3g} rad")
        else:
            self.circle.update(start, None)
            self.circle_title.set_text(f"pos {pos}: inf in {dtype_name}")

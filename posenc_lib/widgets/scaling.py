"""Explorer of notebook 06_context_extension: what each method does to every RoPE pair.

The explorer stretches a model trained on ``L`` positions to ``L' = s L``. A method dropdown,
a factor slider ``s`` and a base slider redraw two panels in place:

- the per-pair frequency ratio ``theta'_i / theta_i`` of the chosen method (log scale);
- for positions ``0 .. L' - 1``, which pairs show a rotation angle never seen in training.

The helpers :func:`method_rope_scaling` and :func:`method_unseen_mask` build the same
comparison for the notebook's pictures, so the explorer and the static charts agree.
"""

from __future__ import annotations

from typing import Any

import ipywidgets
import numpy as np
from matplotlib.artist import Artist
from matplotlib.layout_engine import ConstrainedLayoutEngine
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import check_choice, check_even, check_float, check_int, check_positions
from posenc_lib.plots.context import draw_reference_lines, draw_unseen_angles
from posenc_lib.plots.scaling import draw_frequency_ratios
from posenc_lib.rope import default_inv_freq
from posenc_lib.scaling import SCALING_METHODS, rope_frequencies, unseen_angle_mask
from posenc_lib.widgets._base import Explorer

__all__ = [
    "ScalingExplorer",
    "illustrative_longrope_factors",
    "method_frequencies",
    "method_rope_scaling",
    "method_unseen_mask",
]


def illustrative_longrope_factors(
    head_dim: int, factor: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Return made-up LongRoPE rescale lists ``(short, long)`` for pictures (not a real model's).

    Parameters
    ----------
    head_dim : int
        Rotary dimension, even and >= 2.
    factor : float
        Extension factor ``s`` >= 1.

    Returns
    -------
    short : ndarray of float64, shape (head_dim // 2,)
        All ones: short inputs keep the trained frequencies.
    long : ndarray of float64, shape (head_dim // 2,)
        ``lambda_i = s**e_i`` with ``e_i = max(u_i**0.6 + 0.05 sin(7 pi u_i), 0)`` and
        ``u_i = i / (d/2 - 1)``: 1 for pair 0, ``s`` for the last pair, uneven in between.

    Notes
    -----
    LongRoPE finds its per-pair factors ``lambda_i`` by an evolutionary search on perplexity,
    and the lists it ships (for example in Phi-3 configs) are not smooth. This stand-in only has
    their rough shape: little rescaling of the fast pairs, more of the slow ones, and some
    wobble. Introduced in notebook 06_context_extension.

    Examples
    --------
    >>> short, long = illustrative_longrope_factors(8, 4.0)
    >>> short.tolist(), round(float(long[0]), 6), round(float(long[-1]), 6)
    ([1.0, 1.0, 1.0, 1.0], 1.0, 4.0)
    """
    head_dim = check_even("head_dim", head_dim)
    factor = check_float("factor", factor, at_least=1.0)
    n_pairs = head_dim // 2
    u = np.linspace(0.0, 1.0, n_pairs) if n_pairs > 1 else np.ones(1)
    # e_i = max(u_i^0.6 + 0.05 sin(7 pi u_i), 0)
    exponent = np.maximum(u**0.6 + 0.05 * np.sin(7.0 * np.pi * u), 0.0)
    exponent[-1] = 1.0
    # lambda_i = s^(e_i)
    return np.ones(n_pairs), factor**exponent


def method_rope_scaling(
    method: str, factor: float, original_max_position_embeddings: int, head_dim: int = 128
) -> dict[str, Any] | None:
    """Return a Hugging Face style ``rope_scaling`` dict that stretches ``L`` by ``factor``.

    Parameters
    ----------
    method : str
        One of :data:`posenc_lib.scaling.SCALING_METHODS`.
    factor : float
        Extension factor ``s = L' / L`` >= 1.
    original_max_position_embeddings : int
        Trained length ``L``.
    head_dim : int, default 128
        Rotary dimension (LongRoPE needs one factor per pair).

    Returns
    -------
    dict or None
        None for ``"default"``. ``"dynamic"`` gets ``factor = 1`` so that its effective factor
        at the current length ``l`` is ``l / L`` (pass ``seq_len`` to
        :func:`posenc_lib.scaling.rope_frequencies`). ``"llama3"`` uses Llama 3.1's band edges
        (low 1, high 4). ``"longrope"`` uses :func:`illustrative_longrope_factors`.

    Notes
    -----
    Hugging Face's dynamic NTK uses ``s_eff = factor * l / L - (factor - 1)``; with
    ``factor = 1`` that is ``l / L``, the "scale follows the length" rule of the YaRN paper.
    Introduced in notebook 06_context_extension.

    Examples
    --------
    >>> method_rope_scaling("yarn", 4.0, 4096)
    {'rope_type': 'yarn', 'factor': 4.0, 'original_max_position_embeddings': 4096}
    >>> method_rope_scaling("default", 4.0, 4096) is None
    True
    """
    method = check_choice("method", method, SCALING_METHODS)
    factor = check_float("factor", factor, at_least=1.0)
    length = check_int("original_max_position_embeddings", original_max_position_embeddings)
    head_dim = check_even("head_dim", head_dim)
    if method == "default":
        return None
    if method in ("linear", "ntk"):
        return {"rope_type": method, "factor": factor}
    config: dict[str, Any] = {"rope_type": method, "factor": factor}
    if method == "dynamic":
        config["factor"] = 1.0
    if method == "llama3":
        config.update(low_freq_factor=1.0, high_freq_factor=4.0)
    if method == "longrope":
        short, long = illustrative_longrope_factors(head_dim, factor)
        config.update(short_factor=short.tolist(), long_factor=long.tolist())
    config["original_max_position_embeddings"] = length
    return config


def method_frequencies(
    method: str,
    head_dim: int,
    base: float,
    factor: float,
    trained_length: int,
    seq_len: int | None = None,
) -> tuple[NDArray[np.float64], float]:
    """Return ``(inv_freq, attention_factor)`` of a method at the current length.

    Parameters
    ----------
    method : str
        One of :data:`posenc_lib.scaling.SCALING_METHODS`.
    head_dim : int
        Rotary dimension, even (>= 4 for ntk and dynamic).
    base : float
        RoPE base, > 1.
    factor : float
        Extension factor ``s`` >= 1.
    trained_length : int
        Trained length ``L``.
    seq_len : int or None, default None
        Current length (used by dynamic and longrope); None means the target ``s L``.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
    attention_factor : float

    Notes
    -----
    ``rope_frequencies(head_dim, base, method_rope_scaling(...), seq_len=seq_len)``.
    Introduced in notebook 06_context_extension.

    Examples
    --------
    >>> inv, att = method_frequencies("linear", 4, 100.0, 2.0, 10)
    >>> np.round(inv, 6), att
    (array([0.5 , 0.05]), 1.0)
    """
    length = check_int("trained_length", trained_length)
    factor = check_float("factor", factor, at_least=1.0)
    if seq_len is None:
        seq_len = max(1, round(factor * length))
    config = method_rope_scaling(method, factor, length, head_dim)
    return rope_frequencies(head_dim, base, config, seq_len=seq_len)


def method_unseen_mask(
    method: str,
    positions: ArrayLike,
    head_dim: int,
    base: float,
    factor: float,
    trained_length: int,
) -> NDArray[np.bool_]:
    """Return where each pair shows an angle never seen in training, for one method.

    Parameters
    ----------
    method : str
        One of :data:`posenc_lib.scaling.SCALING_METHODS`.
    positions : array_like of int, shape (n,)
        Non-negative integer positions, increasing.
    head_dim : int
        Rotary dimension, even.
    base : float
        RoPE base the model was trained with, > 1.
    factor : float
        Extension factor ``s`` >= 1.
    trained_length : int
        Trained length ``L``.

    Returns
    -------
    unseen : ndarray of bool, shape (n, head_dim // 2)

    Notes
    -----
    Training used ``theta_i = base**(-2i/d)`` on positions ``0 .. L - 1``. Every method is
    evaluated on one sequence of length ``l = positions[-1] + 1`` (for ``"dynamic"`` that means
    NTK-aware with the factor ``l / L``). See :func:`posenc_lib.scaling.unseen_angle_mask` for
    the test itself. Introduced in notebook 06_context_extension.

    Examples
    --------
    >>> mask = method_unseen_mask("default", [0, 100, 400], 8, 10000.0, 4.0, 100)
    >>> mask.astype(int).tolist()
    [[0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]
    """
    pos = check_positions("positions", positions)
    if not np.issubdtype(pos.dtype, np.integer) or pos.size == 0 or np.any(pos < 0):
        raise ValueError("positions must be a non-empty array of non-negative integers")
    if np.any(np.diff(pos) <= 0):
        raise ValueError("positions must be strictly increasing")
    method = check_choice("method", method, SCALING_METHODS)
    length = check_int("trained_length", trained_length)
    trained = default_inv_freq(head_dim, base)
    current = int(pos[-1]) + 1
    inv_freq, _ = method_frequencies(method, head_dim, base, factor, length, seq_len=current)
    return unseen_angle_mask(pos, inv_freq, trained, length)


class ScalingExplorer(Explorer):
    """Frequency ratio per pair and unseen angles, with method, factor and base controls.

    Parameters
    ----------
    method : str, default "yarn"
        Initial method, one of :data:`posenc_lib.scaling.SCALING_METHODS`.
    factor : float, default 8.0
        Initial extension factor ``s`` (1..32).
    base : float, default 10000.0
        Initial RoPE base (1e3..1e7).
    head_dim : int, default 128
        Rotary dimension (fixed).
    trained_length : int, default 4096
        Trained length ``L`` (fixed).
    n_columns : int, default 240
        Number of positions sampled evenly in ``0 .. sL - 1`` for the right panel.

    Notes
    -----
    Controls: ``method`` (dropdown), ``factor`` and ``base`` (sliders). Artists kept:
    ``ratio_line`` (y data), ``unseen_image`` (array), ``trained_line`` (x data, at ``L / L'``)
    and ``title``. The right panel's x axis is the position divided by ``L' = s L``, so its
    limits never change. Introduced in notebook 06_context_extension.

    Examples
    --------
    >>> explorer = ScalingExplorer()
    >>> explorer.controls["method"].value = "linear"
    >>> round(float(explorer.ratio_line.get_ydata()[-1]), 6)
    0.125
    """

    def __init__(
        self,
        method: str = "yarn",
        factor: float = 8.0,
        base: float = 10000.0,
        head_dim: int = 128,
        trained_length: int = 4096,
        n_columns: int = 240,
    ) -> None:
        method = check_choice("method", method, SCALING_METHODS)
        factor = check_float("factor", factor, at_least=1.0)
        if factor > 32.0:
            raise ValueError(f"factor must be in [1, 32] (the slider range); got {factor}")
        base = check_float("base", base, greater_than=1.0)
        if not 1e3 <= base <= 1e7:
            raise ValueError(f"base must be in [1e3, 1e7] (the slider range); got {base}")
        self.head_dim = check_even("head_dim", head_dim, minimum=4)
        self.trained_length = check_int("trained_length", trained_length, minimum=2)
        self.n_columns = check_int("n_columns", n_columns, minimum=2)
        super().__init__(figsize=(8.0, 3.6))
        n_pairs = self.head_dim // 2
        with self.style():
            left, right = self.figure.subplots(1, 2, width_ratios=(1.0, 1.25))
            lines = draw_frequency_ratios(
                left, {"trained (default)": np.ones(n_pairs), "scaled": np.ones(n_pairs)}
            )
            left.set_ylim(1.0 / 60.0, 1.6)
            left.legend(loc="lower left")
            columns = np.linspace(0.0, 1.0, self.n_columns, endpoint=False)
            self.unseen_image = draw_unseen_angles(
                right, np.zeros((self.n_columns, n_pairs), dtype=bool), columns,
                xlabel="Position $m$ / target length $L' = sL$",
            )
            right.set_xlim(0.0, 1.0)
            self.trained_line = draw_reference_lines(
                right, vertical={"": 1.0 / factor}, color="#333333", linewidth=1.2
            )[""]
            engine = self.figure.get_layout_engine()
            assert isinstance(engine, ConstrainedLayoutEngine), "the course style lays out"
            engine.set(rect=(0.0, 0.0, 1.0, 0.93))
            self.title = self.figure.text(
                0.01, 0.985, "", ha="left", va="top", fontsize=10, fontweight="bold"
            )
        self.ratio_line = lines["scaled"]
        self.axes = (left, right)
        self.add_control(
            "method", ipywidgets.Dropdown(options=list(SCALING_METHODS), value=method,
                                          description="method")
        )
        self.add_control(
            "factor", ipywidgets.FloatSlider(value=factor, min=1.0, max=32.0, step=0.5,
                                             description="factor s")
        )
        self.add_control(
            "base", ipywidgets.FloatLogSlider(value=base, base=10, min=3, max=7, step=0.1,
                                              description="base")
        )
        self.update(**self.values())
        self.canvas.draw()
        # the axes never move: freeze the layout computed by that first draw
        self.figure.set_layout_engine("none")
        self.refresh()

    def positions(self, factor: float) -> NDArray[np.int64]:
        """The sampled positions ``0 .. sL - 1`` of the right panel, shape (n_columns,)."""
        target = max(int(round(factor * self.trained_length)), self.n_columns)
        return np.floor(np.arange(self.n_columns) * (target / self.n_columns)).astype(np.int64)

    def changing_artists(self) -> list[Artist]:
        """The ratio curve, the unseen-angle image, the trained-length line and the title."""
        return [self.ratio_line, self.unseen_image, self.trained_line, self.title]

    def update(self, method: str, factor: float, base: float) -> None:  # type: ignore[override]
        """Recompute the method's ratio and unseen angles; change the artists in place."""
        factor, base = float(factor), float(base)
        length = self.trained_length
        inv_freq, attention = method_frequencies(method, self.head_dim, base, factor, length)
        self.ratio_line.set_ydata(inv_freq / default_inv_freq(self.head_dim, base))
        pos = self.positions(factor)
        unseen = method_unseen_mask(method, pos, self.head_dim, base, factor, length)
        self.unseen_image.set_data(unseen.T.astype(np.float64))
        self.trained_line.set_xdata([1.0 / factor, 1.0 / factor])
        share = 100.0 * float(unseen.mean())
        pairs = int(unseen.any(axis=0).sum())
        self.title.set_text(
            f"{method}, s = {factor:g}, base = {base:.3g}: unseen {share:.1f} % of cells, "
            f"{pairs} of {self.head_dim // 2} pairs; attention factor {attention:.3f}"
        )

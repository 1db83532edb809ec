"""Stretching RoPE's context: how each published method rescales ``theta_i = base**(-2i/d)``.

``s`` is the scale factor, ``L`` the trained length; YaRN and LongRoPE also return an attention
factor on cos and sin. Both entry points read one registry, :data:`ROPE_TYPES`, as transformers'
``ROPE_INIT_FUNCTIONS`` (float64, agreeing with its ``modeling_rope_utils.py``). References: PI
arXiv 2306.15595; bloc97's NTK-aware RoPE (2023); YaRN 2309.00071; LongRoPE 2402.13753.

Notebook: 06_context_extension.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_choice
from posenc_lib._scaling_checks import (
    check_bands,
    check_betas,
    check_ntk_head_dim,
    checked,
    read_keys,
    refuse_misplaced_keys,
)
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.rope_variants import p_rope_frequencies

__all__ = ["ROPE_TYPES", "SCALING_METHODS", "rope_frequencies", "resolve_rope_type",
           "linear_inv_freq", "ntk_scaled_base", "ntk_inv_freq", "dynamic_ntk_factor",
           "yarn_get_mscale", "yarn_correction_range", "yarn_ramp", "yarn_inv_freq",
           "llama3_inv_freq"]


def linear_inv_freq(head_dim: int, base: float, factor: float) -> NDArray[np.float64]:
    """Return Position Interpolation's frequencies ``theta_i / s``.

    Parameters
    ----------
    head_dim, base, factor : int, float, float
        Rotary dimension (even), RoPE base (> 1), scale ``s = L' / L`` (>= 1).

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
        Each pair's frequency divided by ``s``, radians per position.

    Notes
    -----
    ``theta'_i = theta_i / s``, the same as feeding the positions ``m / s``.

    Examples
    --------
    >>> linear_inv_freq(4, 100.0, 2.0)
    array([0.5 , 0.05])
    """
    head_dim, base, factor = checked(head_dim=head_dim, base=base, factor=factor)
    # theta'_i = theta_i / s
    return inverse_frequencies(head_dim, base) / factor


def ntk_scaled_base(head_dim: int, base: float, factor: float) -> float:
    """Return the NTK-aware base ``base s**(d/(d-2))``.

    Parameters
    ----------
    head_dim, base, factor : int, float, float
        Rotary dimension (even, >= 4), RoPE base (> 1), scale ``s`` (>= 1).

    Returns
    -------
    base : float
        The enlarged base ``base'`` (larger than ``base`` when ``s > 1``).

    Notes
    -----
    ``base' = base s**(d/(d-2))``: the slowest pair slows by ``s``, ``theta_0 = 1`` stays.

    Examples
    --------
    >>> ntk_scaled_base(4, 100.0, 4.0)
    1600.0
    """
    head_dim, base, factor = checked(head_dim=head_dim, base=base, factor=factor)
    check_ntk_head_dim(head_dim)
    # base' = base s^(d/(d-2))
    return base * factor ** (head_dim / (head_dim - 2))


def ntk_inv_freq(head_dim: int, base: float, factor: float) -> NDArray[np.float64]:
    """Return static NTK-aware frequencies: :func:`inverse_frequencies` with the enlarged base.

    Parameters
    ----------
    head_dim, base, factor : int, float, float
        As for :func:`ntk_scaled_base`.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
        Each pair's frequency, radians per position, from the enlarged base.

    Notes
    -----
    ``theta'_i = (base s**(d/(d-2)))**(-2i/d) = theta_i s**(-2i/(d-2))``.

    Examples
    --------
    >>> np.round(ntk_inv_freq(4, 100.0, 4.0), 6)
    array([1.   , 0.025])
    """
    return inverse_frequencies(head_dim, ntk_scaled_base(head_dim, base, factor))


def dynamic_ntk_factor(factor: float, original_max_position_embeddings: int,
                       seq_len: int | None) -> float:
    """Return dynamic NTK's effective scale at the current length.

    Parameters
    ----------
    factor, original_max_position_embeddings, seq_len : float, int, int or None
        The configured ``s``, trained length ``L``, current length ``l`` (None: no scaling).

    Returns
    -------
    s_eff : float
        The scale NTK-aware scaling uses at length ``l``, at least 1.

    Notes
    -----
    ``s_eff = s l / L - (s - 1)`` when ``l > L`` (1 at ``l = L``), else 1.

    Examples
    --------
    >>> dynamic_ntk_factor(2.0, 4096, 8192)
    3.0
    """
    factor, length, current = checked(factor=factor, original_max_position_embeddings=(
        original_max_position_embeddings), seq_len=seq_len)
    if current is None or current <= length:
        return 1.0
    # s_eff = s l / L - (s - 1)
    return float(factor * current / length - (factor - 1.0))


def yarn_get_mscale(scale: float, mscale: float = 1.0) -> float:
    """Return YaRN's attention factor on cos and sin (1 for s <= 1).

    Parameters
    ----------
    scale, mscale : float, float (default 1.0)
        Scale ``s`` > 0; multiplier of the log term (DeepSeek) >= 0.

    Returns
    -------
    value : float
        The factor ``sqrt(1/t)`` that multiplies cos and sin, at least 1.

    Notes
    -----
    ``sqrt(1/t) = 0.1 mscale ln(s) + 1`` (YaRN eq. 22); the logits take its square.

    Examples
    --------
    >>> round(yarn_get_mscale(4.0), 10)
    1.1386294361
    """
    scale, mscale = checked(scale=scale, mscale=mscale)
    if scale <= 1.0:
        return 1.0
    # sqrt(1/t) = 0.1 mscale ln(s) + 1
    return 0.1 * mscale * math.log(scale) + 1.0


def yarn_correction_range(head_dim: int, base: float, original_max_position_embeddings: int,
                          beta_fast: float = 32.0, beta_slow: float = 1.0,
                          truncate: bool = True) -> tuple[float, float]:
    """Return the pair indices where YaRN's ramp starts and ends.

    Parameters
    ----------
    head_dim, base, original_max_position_embeddings : int, float, int
        Rotary dimension ``d``, RoPE base and trained length ``L``.
    beta_fast, beta_slow, truncate : float, float, bool, default 32, 1 and True
        Turn counts (the paper's ``beta`` > ``alpha`` > 0); floor ``low`` and ceil ``high``.

    Returns
    -------
    low, high : float
        The pair indices where the ramp leaves 0 and where it reaches 1, ``low <= high``.

    Notes
    -----
    Solving ``r_i = L theta_i / (2 pi) = r`` gives ``i(r) = d ln(L / (2 pi r)) / (2 ln base)``;
    ``low = i(beta_fast)``, ``high = i(beta_slow)``, clamped to ``[0, d - 1]`` (eq. 17-18).

    Examples
    --------
    >>> yarn_correction_range(128, 10000.0, 4096)
    (20.0, 46.0)
    """
    head_dim, base, length, fast, slow, truncate = checked(
        head_dim=head_dim, base=base, original_max_position_embeddings=(
            original_max_position_embeddings), beta_fast=beta_fast, beta_slow=beta_slow,
        truncate=truncate)
    check_betas(fast, slow)

    def pair_index(turns: float) -> float:
        # i(r) = d ln(L / (2 pi r)) / (2 ln base): the pair that turns r times in L
        return head_dim * math.log(length / (turns * 2.0 * math.pi)) / (2.0 * math.log(base))

    low, high = pair_index(fast), pair_index(slow)
    if truncate:
        low, high = float(math.floor(low)), float(math.ceil(high))
    # clamp to [0, d - 1], as every reference does (d - 1, not d/2 - 1)
    return max(low, 0.0), min(high, float(head_dim - 1))


def yarn_ramp(low: float, high: float, n: int) -> NDArray[np.float64]:
    """Return YaRN's ramp ``gamma_i``: 0 where a pair is kept, 1 where it is divided by ``s``.

    Parameters
    ----------
    low, high, n : float, float, int
        The range from :func:`yarn_correction_range`; number of pairs, >= 1.

    Returns
    -------
    gamma : ndarray of float64, shape (n,)
        Each pair's weight on the divided frequency, between 0 and 1.

    Notes
    -----
    ``gamma_i = clip((i - low) / (high - low), 0, 1)``.

    Examples
    --------
    >>> yarn_ramp(1.0, 3.0, 5)
    array([0. , 0. , 0.5, 1. , 1. ])
    """
    low, high, n = checked(low=low, high=high, n=n)
    # equal bounds: the references add 0.001 to high
    span = high - low if low != high else 0.001
    # gamma_i = clip((i - low) / (high - low), 0, 1)
    return np.clip((np.arange(n, dtype=np.float64) - low) / span, 0.0, 1.0)


def yarn_inv_freq(head_dim: int, base: float, factor: float,
                  original_max_position_embeddings: int, beta_fast: float = 32.0,
                  beta_slow: float = 1.0, truncate: bool = True) -> NDArray[np.float64]:
    """Return YaRN's (NTK-by-parts) frequencies.

    Parameters
    ----------
    head_dim, base, factor, original_max_position_embeddings, beta_fast, beta_slow, truncate
        As for :func:`yarn_correction_range`, with the scale ``s`` (>= 1).

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
        Fast pairs kept, slow pairs divided by ``s``, the ramp's pairs blended.

    Notes
    -----
    ``theta'_i = (1 - gamma_i) theta_i + gamma_i theta_i / s``, ``gamma`` from :func:`yarn_ramp`
    (linear in the pair index, as the reference code; the paper's is over ``r_i``).

    Examples
    --------
    >>> inv = yarn_inv_freq(8, 10000.0, 4.0, 4096)
    >>> np.round(inv / inverse_frequencies(8, 10000.0), 6)
    array([1.   , 1.   , 0.625, 0.25 ])
    """
    low, high = yarn_correction_range(head_dim, base, original_max_position_embeddings,
                                      beta_fast, beta_slow, truncate)
    (factor,) = checked(factor=factor)
    theta = inverse_frequencies(head_dim, base)
    gamma = yarn_ramp(low, high, theta.shape[0])
    # theta'_i = (1 - gamma_i) theta_i + gamma_i theta_i / s
    return (1.0 - gamma) * theta + gamma * (theta / factor)


def llama3_inv_freq(head_dim: int, base: float, factor: float, low_freq_factor: float,
                    high_freq_factor: float,
                    original_max_position_embeddings: int) -> NDArray[np.float64]:
    """Return Llama 3.1's frequencies: keep the fast pairs, divide the slow ones, blend between.

    Parameters
    ----------
    head_dim, base, factor : int, float, float
        Rotary dimension, RoPE base, scale ``s`` (8 for Llama 3.1).
    low_freq_factor, high_freq_factor, original_max_position_embeddings : float, float, int
        Band edges (``0 < low <= high``; equal: a step) and the trained length ``L``.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
        Each pair's frequency after Llama 3's rule, radians per position.

    Notes
    -----
    With ``lambda_i = 2 pi / theta_i``: ``theta_i`` if ``lambda_i < L / high_freq_factor``,
    ``theta_i / s`` if ``lambda_i > L / low_freq_factor``, else ``(1 - g) theta_i / s + g
    theta_i`` with ``g = (L / lambda_i - low_freq_factor) / (high_freq_factor - low_freq_factor)``.

    Examples
    --------
    >>> inv = llama3_inv_freq(8, 10000.0, 8.0, 1.0, 4.0, 64)
    >>> np.round(inv / inverse_frequencies(8, 10000.0), 4)
    array([1.    , 0.1304, 0.125 , 0.125 ])
    """
    factor, low_ff, high_ff, length = checked(
        factor=factor, low_freq_factor=low_freq_factor, high_freq_factor=high_freq_factor,
        original_max_position_embeddings=original_max_position_embeddings)
    check_bands(low_ff, high_ff)
    theta = inverse_frequencies(head_dim, base)
    # lambda_i = 2 pi / theta_i
    wavelength = 2.0 * math.pi / theta
    # g = (L / lambda_i - low_freq_factor) / (high_freq_factor - low_freq_factor); equal edges
    # (Llama 4) leave no band to blend in, only a step at lambda_i = L / low_freq_factor
    g = (length / wavelength - low_ff) / (high_ff - low_ff) if high_ff > low_ff else 0.0
    # (1 - g) theta_i / s + g theta_i
    blended = (1.0 - g) * theta / factor + g * theta
    slow = np.where(wavelength > length / low_ff, theta / factor, blended)
    return np.where(wavelength < length / high_ff, theta, slow)


def resolve_rope_type(rope_scaling: Mapping[str, Any] | None) -> str:
    """Return the method a ``rope_scaling`` dict names (``rope_type`` or the legacy ``type``).

    Parameters
    ----------
    rope_scaling : dict or None
        A config's ``rope_scaling``; both keys, if present, must agree.

    Returns
    -------
    rope_type : str
        The method's name as :data:`ROPE_TYPES` spells it.

    Notes
    -----
    A key of :data:`ROPE_TYPES` (``"mrope"`` reads as ``"default"``); ``"default"`` for None.

    Examples
    --------
    >>> resolve_rope_type({"type": "linear", "factor": 2.0})
    'linear'
    """
    if rope_scaling is None:
        return "default"
    if not isinstance(rope_scaling, Mapping):
        raise TypeError("rope_scaling must be a dict in the Hugging Face config format (or "
                        f"None); got {type(rope_scaling).__name__}")
    names = {rope_scaling[key] for key in ("rope_type", "type") if key in rope_scaling}
    if len(names) != 1:
        raise ValueError("rope_scaling must have one 'rope_type' (or legacy 'type'), one of "
                         f"{', '.join(map(repr, ROPE_TYPES))}; got {dict(rope_scaling)!r}")
    name = names.pop()
    name = ROPE_TYPE_ALIASES.get(name, name) if isinstance(name, str) else name
    return check_choice("rope_scaling['rope_type']", name, tuple(ROPE_TYPES))


def rope_frequencies(head_dim: int, base: float = 10000.0,
                     rope_scaling: Mapping[str, Any] | None = None, *,
                     seq_len: int | None = None) -> tuple[NDArray[np.float64], float]:
    """Return RoPE's frequencies and attention factor for a Hugging Face ``rope_scaling`` dict.

    Parameters
    ----------
    head_dim, base : int, float, default base 10000.0
        Rotary dimension (>= 4 for ``ntk`` and ``dynamic``); ``rope_theta``.
    rope_scaling : dict or None, default None
        The config's ``rope_scaling``, its ``rope_type`` a key of :data:`ROPE_TYPES`; a key
        the type does not read is ignored with a warning, as transformers does.
    seq_len : int or None, default None
        Current sequence length, read by ``dynamic`` and ``longrope``.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
        Each pair's frequency after the scaling, radians per position.
    attention_factor : float
        Multiplier of cos and sin (1.0 except for ``yarn`` and ``longrope``).

    Notes
    -----
    ``theta_i = base**(-2i/d)`` rescaled by the type's function above. Without
    ``max_position_embeddings``, ``dynamic``'s ``L`` is ``original_max_position_embeddings`` and
    ``longrope`` needs ``factor`` or ``attention_factor``. ``beta_fast`` / ``beta_slow`` absent,
    None or 0 mean 32 / 1; ``truncate`` defaults to True. ``yarn`` uses the dict's ``factor``
    (transformers #38224 replaced it by the ratio of lengths, leaving Qwen2.5's cards unscaled,
    until #40320). A config.json goes to :func:`~posenc_lib.models.rope_frequencies_from_config`.

    Examples
    --------
    >>> inv, att = rope_frequencies(128, 1e6, {"rope_type": "yarn", "factor": 4.0,
    ...     "original_max_position_embeddings": 32768})
    >>> inv.shape, round(att, 10)
    ((64,), 1.1386294361)
    """
    rope_type = resolve_rope_type(rope_scaling)
    head_dim, base, seq_len = checked(head_dim=head_dim, base=base, seq_len=seq_len)
    config: Mapping[str, Any] = rope_scaling or {}
    refuse_misplaced_keys(config, base, rope_type)
    spec = ROPE_TYPES[rope_type]
    keys = read_keys(rope_type, config, head_dim, required=spec.required, optional=spec.optional)
    return spec.compute(head_dim, base, keys, seq_len)


# --------------------------------------------------------------------------- one per rope_type
# (d, base, keys checked by read_keys, seq_len) -> (inv_freq, attention_factor), as transformers'
# _compute_<type>_parameters.

Frequencies = tuple[NDArray[np.float64], float]
Keys = Mapping[str, Any]


def _compute_default(d: int, base: float, keys: Keys, seq_len: int | None) -> Frequencies:
    return inverse_frequencies(d, base), 1.0


def _compute_linear(d: int, base: float, keys: Keys, seq_len: int | None) -> Frequencies:
    return linear_inv_freq(d, base, keys["factor"]), 1.0


def _compute_ntk(d: int, base: float, keys: Keys, seq_len: int | None) -> Frequencies:
    return ntk_inv_freq(d, base, keys["factor"]), 1.0


def _compute_dynamic(d: int, base: float, keys: Keys, seq_len: int | None) -> Frequencies:
    # s_eff = s l / L - (s - 1) once l > L
    s_eff = dynamic_ntk_factor(keys["factor"], keys["original_max_position_embeddings"], seq_len)
    return ntk_inv_freq(d, base, s_eff), 1.0


def _compute_yarn(d: int, base: float, keys: Keys, seq_len: int | None) -> Frequencies:
    """YaRN's ramp; ``a`` = attention_factor, else (DeepSeek) ``m(s, mscale) / m(s,
    mscale_all_dim)`` with ``m(s, k) = 0.1 k ln s + 1``, else ``0.1 ln s + 1``."""
    s = keys["factor"]
    inv_freq = yarn_inv_freq(d, base, s, keys["original_max_position_embeddings"],
                             keys["beta_fast"], keys["beta_slow"], keys["truncate"])
    if "attention_factor" in keys:
        return inv_freq, keys["attention_factor"]
    mscale, mscale_all_dim = keys.get("mscale"), keys.get("mscale_all_dim")
    if mscale and mscale_all_dim:
        # a = m(s, mscale) / m(s, mscale_all_dim)
        return inv_freq, yarn_get_mscale(s, mscale) / yarn_get_mscale(s, mscale_all_dim)
    return inv_freq, yarn_get_mscale(s)  # a = 0.1 ln s + 1


def _compute_llama3(d: int, base: float, keys: Keys, seq_len: int | None) -> Frequencies:
    return llama3_inv_freq(d, base, keys["factor"], keys["low_freq_factor"],
                           keys["high_freq_factor"], keys["original_max_position_embeddings"]), 1.0


def _compute_longrope(d: int, base: float, keys: Keys, seq_len: int | None) -> Frequencies:
    """LongRoPE: ``theta_i / f_i`` (long list past ``L``); ``a = sqrt(1 + ln s / ln L)``."""
    length = keys["original_max_position_embeddings"]
    chosen = "long_factor" if seq_len is not None and seq_len > length else "short_factor"
    # theta'_i = theta_i / f_i, with the long list past L
    inv_freq = inverse_frequencies(d, base) / keys[chosen]
    if "attention_factor" in keys:
        return inv_freq, keys["attention_factor"]
    if keys["factor"] <= 1.0:
        return inv_freq, 1.0
    # a = sqrt(1 + ln s / ln L)
    return inv_freq, math.sqrt(1.0 + math.log(keys["factor"]) / math.log(length))


def _compute_proportional(d: int, base: float, keys: Keys, seq_len: int | None) -> Frequencies:
    """Gemma 4's p-RoPE on a whole head of ``d`` dims; attention factor 1."""
    # theta_i = base^(-2i / d) for i < int(p d // 2), 0 after; / factor
    inv_freq = p_rope_frequencies(d, keys["partial_rotary_factor"], base)
    return inv_freq / keys.get("factor", 1.0), 1.0


class RopeType(NamedTuple):
    """One ``rope_type``: its ``_compute_<type>`` and the scaling keys it requires and reads."""

    compute: Callable[[int, float, Keys, int | None], Frequencies]
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    transformers: bool = True  # False: the course's own name, not in transformers


_TRAINED = ("original_max_position_embeddings",)
ROPE_TYPES: dict[str, RopeType] = {
    "default": RopeType(_compute_default),
    "linear": RopeType(_compute_linear, ("factor",)),
    "ntk": RopeType(_compute_ntk, ("factor",), transformers=False),
    "dynamic": RopeType(_compute_dynamic, ("factor", *_TRAINED)),
    "yarn": RopeType(_compute_yarn, ("factor", *_TRAINED), (
        "beta_fast", "beta_slow", "truncate", "mscale", "mscale_all_dim", "attention_factor")),
    "llama3": RopeType(_compute_llama3, (
        "factor", "low_freq_factor", "high_freq_factor", *_TRAINED)),
    "longrope": RopeType(_compute_longrope, ("short_factor", "long_factor", *_TRAINED),
                         ("factor", "attention_factor")),
    "proportional": RopeType(_compute_proportional, (), ("partial_rotary_factor", "factor")),
}
"""Every ``rope_type`` both entry points read (transformers' own plus the course's ``ntk``)."""

ROPE_TYPE_ALIASES: dict[str, str] = {"mrope": "default"}
"""Legacy names transformers rewrites first (Qwen2-VL's ``"mrope"``: default frequencies)."""

# The context-extension methods of notebook 06, its figures and its explorer, written out: a new
# ROPE_TYPES entry joins them only here (p-RoPE changes which pairs turn, not the context).
SCALING_METHODS: tuple[str, ...] = (
    "default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope")

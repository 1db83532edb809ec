"""Context extension for RoPE: how each published method rescales the frequencies.

Every method changes the inverse frequencies ``theta_i = base**(-2i/d)`` of RoPE (and some also
return an attention factor that multiplies cos and sin). The entry point is
:func:`rope_frequencies`, which reads a ``rope_scaling`` dict in the Hugging Face config format:

============  =====================================================================================
rope_type     effect on ``theta_i`` (``s`` = factor, ``L`` = original_max_position_embeddings)
============  =====================================================================================
default       none
linear        ``theta_i / s`` (Position Interpolation)
ntk           base -> ``base * s**(d/(d-2))`` (static NTK-aware)
dynamic       NTK-aware with the factor ``s * seq_len / L - (s - 1)`` once ``seq_len > L``
yarn          ramp between ``theta_i`` and ``theta_i / s`` over the rotations ``L theta_i/(2 pi)``,
              attention factor ``0.1 ln s + 1``
llama3        ``theta_i`` kept for short wavelengths, ``theta_i / s`` for long ones, smooth between
longrope      ``theta_i / lambda_i`` with per-pair factors (short or long list)
============  =====================================================================================

The values agree with Hugging Face ``transformers`` (``modeling_rope_utils.py``), the YaRN
reference code and Meta's ``apply_scaling``; the docstrings say where the references differ and
which choice is made here. Everything is computed in float64.

Introduced in notebook 06_context_extension.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import (
    check_array,
    check_bool,
    check_choice,
    check_even,
    check_float,
    check_int,
    check_positions,
)
from .rope import default_inv_freq

__all__ = [
    "SCALING_METHODS",
    "resolve_rope_type",
    "rope_frequencies",
    "linear_inv_freq",
    "ntk_scaled_base",
    "ntk_inv_freq",
    "dynamic_ntk_factor",
    "dynamic_ntk_inv_freq",
    "yarn_get_mscale",
    "yarn_attention_factor",
    "yarn_correction_dim",
    "yarn_correction_range",
    "yarn_ramp",
    "yarn_inv_freq",
    "llama3_inv_freq",
    "longrope_attention_factor",
    "longrope_inv_freq",
    "frequency_ratio",
    "rope_wavelengths",
    "rotations_in_context",
    "max_trained_angle",
    "unseen_angle_mask",
]

SCALING_METHODS: tuple[str, ...] = (
    "default",
    "linear",
    "ntk",
    "dynamic",
    "yarn",
    "llama3",
    "longrope",
)
"""The ``rope_type`` values understood by :func:`rope_frequencies`."""

YARN_BETA_FAST_DEFAULT = 32.0
YARN_BETA_SLOW_DEFAULT = 1.0


# --------------------------------------------------------------------------- small checks


def _check_factor(value: Any, name: str = "factor") -> float:
    return check_float(name, value, at_least=1.0)


def _check_ntk_head_dim(head_dim: Any) -> int:
    head_dim = check_even("head_dim", head_dim)
    if head_dim < 4:
        raise ValueError(
            f"head_dim must be an even integer >= 4 for NTK scaling (exponent d/(d-2)); "
            f"got {head_dim}"
        )
    return head_dim


def _check_seq_len(seq_len: Any) -> int | None:
    return None if seq_len is None else check_int("seq_len", seq_len, minimum=1)


# --------------------------------------------------------------------------- linear / NTK


def linear_inv_freq(head_dim: int, base: float, factor: float) -> NDArray[np.float64]:
    """Return Position Interpolation frequencies ``theta_i / s``.

    Parameters
    ----------
    head_dim : int
        Rotary dimension, even and >= 2.
    base : float
        RoPE base, > 1.
    factor : float
        Scale ``s = L' / L`` >= 1.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)

    Notes
    -----
    ``theta'_i = theta_i / s``, the same as feeding the positions ``m / s``: neighbouring
    positions move ``s`` times closer. Introduced in notebook 06_context_extension.

    References
    ----------
    Chen et al., "Extending Context Window of Large Language Models via Positional
    Interpolation", arXiv 2306.15595. HF ``_compute_linear_scaling_rope_parameters``.

    Examples
    --------
    >>> np.round(linear_inv_freq(4, 100.0, 2.0), 6)
    array([0.5 , 0.05])
    """
    theta = default_inv_freq(head_dim, base)
    factor = _check_factor(factor)
    # theta'_i = theta_i / s
    return theta / factor


def ntk_scaled_base(head_dim: int, base: float, factor: float) -> float:
    """Return the NTK-aware base ``base * s**(d/(d-2))``.

    Parameters
    ----------
    head_dim : int
        Rotary dimension, even and >= 4.
    base : float
        RoPE base, > 1.
    factor : float
        Scale ``s`` >= 1.

    Returns
    -------
    base : float
        The enlarged base.

    Notes
    -----
    ``base' = base * s**(d/(d-2))`` is chosen so that the slowest pair
    ``theta_(d/2-1) = base**(-(d-2)/d)`` is divided by exactly ``s`` while ``theta_0 = 1`` does not
    change. Introduced in notebook 06_context_extension.

    References
    ----------
    bloc97, "NTK-Aware Scaled RoPE" (reddit r/LocalLLaMA, 2023); YaRN arXiv 2309.00071, eq. (16).

    Examples
    --------
    >>> round(ntk_scaled_base(4, 100.0, 4.0), 6)
    1600.0
    """
    head_dim = _check_ntk_head_dim(head_dim)
    base = check_float("base", base, greater_than=1.0)
    factor = _check_factor(factor)
    # base' = base * s^(d/(d-2))
    return base * factor ** (head_dim / (head_dim - 2))


def ntk_inv_freq(head_dim: int, base: float, factor: float) -> NDArray[np.float64]:
    """Return static NTK-aware frequencies ``base'**(-2i/d)`` with ``base' = base s**(d/(d-2))``.

    Parameters
    ----------
    head_dim : int
        Rotary dimension, even and >= 4.
    base : float
        RoPE base, > 1.
    factor : float
        Scale ``s`` >= 1.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
        ``theta'_i = theta_i * s**(-2i/(d-2))``: pair 0 unchanged, the last pair divided by ``s``.

    Notes
    -----
    See :func:`ntk_scaled_base`. Introduced in notebook 06_context_extension.

    References
    ----------
    bloc97, "NTK-Aware Scaled RoPE" (2023); YaRN arXiv 2309.00071, section 3.1.

    Examples
    --------
    >>> np.round(ntk_inv_freq(4, 100.0, 4.0), 6)
    array([1.   , 0.025])
    """
    return default_inv_freq(head_dim, ntk_scaled_base(head_dim, base, factor))


def dynamic_ntk_factor(
    factor: float, original_max_position_embeddings: int, seq_len: int | None
) -> float:
    """Return the effective NTK factor of dynamic NTK at the current length.

    Parameters
    ----------
    factor : float
        Configured scale ``s`` >= 1.
    original_max_position_embeddings : int
        Trained length ``L`` >= 1.
    seq_len : int or None
        Current sequence length (>= 1), or None.

    Returns
    -------
    effective : float
        ``s * seq_len / L - (s - 1)`` when ``seq_len > L``, else ``1.0`` (no scaling).

    Notes
    -----
    At ``seq_len = L`` the formula gives 1; it grows linearly with the length and equals ``s`` at
    ``seq_len = L (2s - 1) / s``.
    Introduced in notebook 06_context_extension.

    References
    ----------
    emozilla, "Dynamically Scaled RoPE" (reddit r/LocalLLaMA, 2023); HF
    ``_compute_dynamic_ntk_parameters``.

    Examples
    --------
    >>> dynamic_ntk_factor(2.0, 4096, 8192)
    3.0
    >>> dynamic_ntk_factor(2.0, 4096, 100)
    1.0
    """
    factor = _check_factor(factor)
    length = check_int("original_max_position_embeddings", original_max_position_embeddings)
    current = _check_seq_len(seq_len)
    if current is None or current <= length:
        return 1.0
    # s_eff = s * seq_len / L - (s - 1)
    return factor * current / length - (factor - 1.0)


def dynamic_ntk_inv_freq(
    head_dim: int,
    base: float,
    factor: float,
    original_max_position_embeddings: int,
    seq_len: int | None = None,
) -> NDArray[np.float64]:
    """Return dynamic NTK frequencies: NTK-aware with the effective factor at ``seq_len``.

    Parameters
    ----------
    head_dim : int
        Rotary dimension, even and >= 4.
    base : float
        RoPE base, > 1.
    factor : float
        Scale ``s`` >= 1.
    original_max_position_embeddings : int
        Trained length ``L``.
    seq_len : int or None, default None
        Current length; None or ``<= L`` leaves the frequencies unchanged.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)

    Notes
    -----
    ``base' = base * (s * seq_len / L - (s - 1))**(d/(d-2))`` for ``seq_len > L``.
    Hugging Face reads ``L`` from ``config.max_position_embeddings``; this API takes it from
    ``original_max_position_embeddings``. Introduced in notebook 06_context_extension.

    References
    ----------
    HF ``_compute_dynamic_ntk_parameters``; jquesnelle/yarn
    ``LlamaDynamicScaledRotaryEmbedding``.

    Examples
    --------
    >>> np.round(dynamic_ntk_inv_freq(4, 100.0, 2.0, 10, seq_len=25), 6)
    array([1.  , 0.025])
    """
    effective = dynamic_ntk_factor(factor, original_max_position_embeddings, seq_len)
    return ntk_inv_freq(head_dim, base, effective)


# --------------------------------------------------------------------------- YaRN


def yarn_get_mscale(scale: float, mscale: float = 1.0) -> float:
    """Return YaRN's magnitude factor ``0.1 * mscale * ln(scale) + 1`` (1 when scale <= 1).

    Parameters
    ----------
    scale : float
        Context scale ``s`` (finite, > 0).
    mscale : float, default 1.0
        Multiplier of the log term (DeepSeek configs use e.g. 0.707 or 1.0), >= 0.

    Returns
    -------
    value : float

    Notes
    -----
    ``sqrt(1/t) = 0.1 ln(s) + 1`` is the paper's fitted attention temperature; it multiplies cos
    and sin, so the logits are scaled by its square. Introduced in notebook 06_context_extension.

    References
    ----------
    Peng et al., "YaRN", arXiv 2309.00071, eq. (22); HF ``get_mscale`` in
    ``_compute_yarn_parameters``.

    Examples
    --------
    >>> round(yarn_get_mscale(4.0), 10)
    1.1386294361
    >>> yarn_get_mscale(1.0)
    1.0
    """
    scale = check_float("scale", scale, greater_than=0.0)
    mscale = check_float("mscale", mscale, at_least=0.0)
    if scale <= 1.0:
        return 1.0
    # m(s) = 0.1 * mscale * ln(s) + 1
    return 0.1 * mscale * math.log(scale) + 1.0


def yarn_attention_factor(
    factor: float,
    *,
    mscale: float | None = None,
    mscale_all_dim: float | None = None,
    attention_factor: float | None = None,
) -> float:
    """Return YaRN's attention factor (multiplier of cos and sin).

    Parameters
    ----------
    factor : float
        Scale ``s`` >= 1.
    mscale, mscale_all_dim : float or None
        DeepSeek-style multipliers (>= 0). Used only when BOTH are truthy (non-zero).
    attention_factor : float or None
        If given (> 0) it is returned unchanged.

    Returns
    -------
    attention_factor : float

    Notes
    -----
    As in Hugging Face: ``attention_factor`` if given; else
    ``yarn_get_mscale(s, mscale) / yarn_get_mscale(s, mscale_all_dim)`` when both are truthy;
    else ``0.1 ln s + 1``. Introduced in notebook 06_context_extension.

    References
    ----------
    HF ``_compute_yarn_parameters``; DeepSeek-V2 technical report (arXiv 2405.04434).

    Examples
    --------
    >>> round(yarn_attention_factor(40.0, mscale=1.0, mscale_all_dim=1.0), 6)
    1.0
    >>> round(yarn_attention_factor(4.0), 6)
    1.138629
    """
    factor = _check_factor(factor)
    if attention_factor is not None:
        return check_float("attention_factor", attention_factor, greater_than=0.0)
    m_num = None if mscale is None else check_float("mscale", mscale, at_least=0.0)
    m_den = (
        None
        if mscale_all_dim is None
        else check_float("mscale_all_dim", mscale_all_dim, at_least=0.0)
    )
    if m_num and m_den:
        return float(yarn_get_mscale(factor, m_num) / yarn_get_mscale(factor, m_den))
    return yarn_get_mscale(factor)


def yarn_correction_dim(
    num_rotations: float, head_dim: int, base: float, original_max_position_embeddings: int
) -> float:
    """Return the (fractional) pair index whose frequency makes ``num_rotations`` turns in ``L``.

    Parameters
    ----------
    num_rotations : float
        Number of full turns ``r`` over the trained length, > 0.
    head_dim : int
        Rotary dimension ``d``, even and >= 2.
    base : float
        RoPE base, > 1.
    original_max_position_embeddings : int
        Trained length ``L``.

    Returns
    -------
    index : float
        ``d * ln(L / (2 pi r)) / (2 ln base)``.

    Notes
    -----
    Pair ``i`` turns ``L theta_i / (2 pi)`` times in ``L`` positions; solving
    ``L base**(-2i/d) / (2 pi) = r`` for ``i`` gives the formula.
    Introduced in notebook 06_context_extension.

    References
    ----------
    YaRN arXiv 2309.00071, eq. (17)-(18); jquesnelle/yarn ``find_correction_dim``.

    Examples
    --------
    >>> round(yarn_correction_dim(32, 128, 10000.0, 4096), 6)
    20.944482
    """
    rotations = check_float("num_rotations", num_rotations, greater_than=0.0)
    head_dim = check_even("head_dim", head_dim)
    base = check_float("base", base, greater_than=1.0)
    length = check_int("original_max_position_embeddings", original_max_position_embeddings)
    # i(r) = d ln(L / (2 pi r)) / (2 ln b)
    return head_dim * math.log(length / (rotations * 2.0 * math.pi)) / (2.0 * math.log(base))


def yarn_correction_range(
    head_dim: int,
    base: float,
    original_max_position_embeddings: int,
    *,
    beta_fast: float = YARN_BETA_FAST_DEFAULT,
    beta_slow: float = YARN_BETA_SLOW_DEFAULT,
    truncate: bool = True,
) -> tuple[float, float]:
    """Return the pair-index range ``(low, high)`` over which YaRN ramps from extrapolation to PI.

    Parameters
    ----------
    head_dim : int
        Rotary dimension ``d``, even and >= 2.
    base : float
        RoPE base, > 1.
    original_max_position_embeddings : int
        Trained length ``L``.
    beta_fast, beta_slow : float, default 32 and 1
        Rotation counts (``beta`` and ``alpha`` of the paper), ``beta_fast > beta_slow > 0``.
    truncate : bool, default True
        Floor ``low`` and ceil ``high`` (as the reference code does); False keeps them fractional.

    Returns
    -------
    low, high : float
        ``low = max(floor(i(beta_fast)), 0)``, ``high = min(ceil(i(beta_slow)), d - 1)`` with
        ``i(r)`` from :func:`yarn_correction_dim`.

    Notes
    -----
    Pairs below ``low`` make more than ``beta_fast`` turns in ``L`` and are left alone; pairs
    above ``high`` make fewer than ``beta_slow`` and are interpolated. The upper clamp is
    ``d - 1`` (not ``d/2 - 1``) in every reference, so it is reproduced: when even the last pair
    turns more than ``beta_fast`` times (huge ``L``), ``low > high`` and the references then
    interpolate every pair; this function keeps that behaviour.
    Introduced in notebook 06_context_extension.

    References
    ----------
    jquesnelle/yarn ``find_correction_range``; HF ``_compute_yarn_parameters``.

    Examples
    --------
    >>> yarn_correction_range(128, 10000.0, 4096)
    (20.0, 46.0)
    """
    fast = check_float("beta_fast", beta_fast, greater_than=0.0)
    slow = check_float("beta_slow", beta_slow, greater_than=0.0)
    if not fast > slow:
        raise ValueError(
            f"beta_fast must be > beta_slow (turns of the fast and slow boundary); "
            f"got beta_fast={fast} and beta_slow={slow}"
        )
    truncate = check_bool("truncate", truncate)
    low = yarn_correction_dim(fast, head_dim, base, original_max_position_embeddings)
    high = yarn_correction_dim(slow, head_dim, base, original_max_position_embeddings)
    if truncate:
        low, high = float(math.floor(low)), float(math.ceil(high))
    # clamp to [0, d - 1]
    return max(low, 0.0), min(high, float(head_dim - 1))


def yarn_ramp(low: float, high: float, n: int) -> NDArray[np.float64]:
    """Return YaRN's ramp ``clip((i - low) / (high - low), 0, 1)`` for ``i = 0 .. n - 1``.

    Parameters
    ----------
    low, high : float
        Range of the ramp (from :func:`yarn_correction_range`). If equal, ``high`` is nudged by
        0.001 to avoid dividing by zero, as the references do.
    n : int
        Number of entries (``head_dim // 2``).

    Returns
    -------
    ramp : ndarray of float64, shape (n,)
        0 where the frequency is kept (extrapolation), 1 where it is divided by ``s``.

    Notes
    -----
    ``gamma_i = clip((i - low)/(high - low), 0, 1)`` and
    ``theta'_i = (1 - gamma_i) theta_i + gamma_i theta_i / s``.
    Introduced in notebook 06_context_extension.

    References
    ----------
    jquesnelle/yarn ``linear_ramp_mask``; HF ``linear_ramp_factor``.

    Examples
    --------
    >>> yarn_ramp(1.0, 3.0, 5)
    array([0. , 0. , 0.5, 1. , 1. ])
    """
    lo = check_float("low", low)
    hi = check_float("high", high)
    count = check_int("n", n, minimum=1)
    # equal bounds: the reference code adds 0.001 to high, so the span is 0.001 (computed as
    # such, since lo + 0.001 rounds back to lo when |lo| is huge)
    span = hi - lo if lo != hi else 0.001
    # gamma_i = clip((i - low) / (high - low), 0, 1)
    return np.clip((np.arange(count, dtype=np.float64) - lo) / span, 0.0, 1.0)


def yarn_inv_freq(
    head_dim: int,
    base: float,
    factor: float,
    original_max_position_embeddings: int,
    *,
    beta_fast: float = YARN_BETA_FAST_DEFAULT,
    beta_slow: float = YARN_BETA_SLOW_DEFAULT,
    truncate: bool = True,
) -> NDArray[np.float64]:
    """Return YaRN ("NTK-by-parts") frequencies.

    Parameters
    ----------
    head_dim : int
        Rotary dimension, even and >= 2.
    base : float
        RoPE base, > 1.
    factor : float
        Scale ``s`` >= 1.
    original_max_position_embeddings : int
        Trained length ``L``.
    beta_fast, beta_slow : float, default 32 and 1
        Rotation boundaries of the ramp.
    truncate : bool, default True
        Round the correction range outward to whole pairs.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
        Pairs that make more than ``beta_fast`` turns in ``L`` keep ``theta_i``; pairs with fewer
        than ``beta_slow`` get ``theta_i / s``; a linear ramp over the pair index in between.

    Notes
    -----
    ``theta'_i = (1 - gamma_i) theta_i + gamma_i theta_i / s`` with ``gamma`` from
    :func:`yarn_ramp`. The attention factor is :func:`yarn_attention_factor`.

    The paper writes the ramp as a function of the rotation count ``r_i = L / lambda_i``
    (``gamma = (r - alpha) / (beta - alpha)``, clipped). The reference code, Hugging Face and
    this function ramp linearly in the pair index between the two boundary indices, rounded
    outward (``truncate``); both are 0 above ``beta_fast`` turns and 1 below ``beta_slow``, and
    differ slightly in between. The code's version is the one models are run with.
    Introduced in notebook 06_context_extension.

    References
    ----------
    Peng et al., "YaRN: Efficient Context Window Extension of Large Language Models",
    arXiv 2309.00071, section 3.2-3.4; jquesnelle/yarn ``LlamaYaRNScaledRotaryEmbedding.yarn``;
    HF ``_compute_yarn_parameters``.

    Examples
    --------
    >>> inv = yarn_inv_freq(8, 10000.0, 4.0, 4096)
    >>> np.round(inv / default_inv_freq(8, 10000.0), 6)
    array([1.   , 1.   , 0.625, 0.25 ])
    """
    theta = default_inv_freq(head_dim, base)
    factor = _check_factor(factor)
    low, high = yarn_correction_range(
        head_dim,
        base,
        original_max_position_embeddings,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
    )
    gamma = yarn_ramp(low, high, head_dim // 2)
    # theta'_i = (1 - gamma_i) theta_i + gamma_i theta_i / s
    return (1.0 - gamma) * theta + gamma * (theta / factor)


# --------------------------------------------------------------------------- Llama 3


def llama3_inv_freq(
    head_dim: int,
    base: float,
    factor: float,
    low_freq_factor: float,
    high_freq_factor: float,
    original_max_position_embeddings: int,
) -> NDArray[np.float64]:
    """Return Llama 3.1 frequencies: short wavelengths kept, long ones divided, smooth between.

    Parameters
    ----------
    head_dim : int
        Rotary dimension, even and >= 2.
    base : float
        RoPE base (500000 for Llama 3), > 1.
    factor : float
        Scale ``s`` >= 1 (8 for Llama 3.1).
    low_freq_factor, high_freq_factor : float
        Band edges as fractions of ``L`` (1 and 4 for Llama 3.1), ``0 < low < high``.
    original_max_position_embeddings : int
        Trained length ``L`` (8192 for Llama 3.1).

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)

    Notes
    -----
    With ``lambda_i = 2 pi / theta_i``:

    - ``lambda_i < L / high_freq_factor``: ``theta_i`` unchanged;
    - ``lambda_i > L / low_freq_factor``: ``theta_i / s``;
    - otherwise ``(1 - g) theta_i / s + g theta_i`` with
      ``g = (L / lambda_i - low_freq_factor) / (high_freq_factor - low_freq_factor)``.

    Both band edges belong to the smooth band, as in Meta's and Hugging Face's code (the
    formula is continuous there anyway). Introduced in notebook 06_context_extension.

    References
    ----------
    Meta llama-models ``apply_scaling`` (models/llama3/model.py); HF
    ``_compute_llama3_parameters``; "The Llama 3 Herd of Models", arXiv 2407.21783.

    Examples
    --------
    >>> inv = llama3_inv_freq(8, 10000.0, 8.0, 1.0, 4.0, 64)
    >>> np.round(inv / default_inv_freq(8, 10000.0), 4)
    array([1.    , 0.1304, 0.125 , 0.125 ])
    """
    theta = default_inv_freq(head_dim, base)
    factor = _check_factor(factor)
    low_ff = check_float("low_freq_factor", low_freq_factor, greater_than=0.0)
    high_ff = check_float("high_freq_factor", high_freq_factor, greater_than=0.0)
    if not low_ff < high_ff:
        raise ValueError(
            f"low_freq_factor must be < high_freq_factor; got low_freq_factor={low_ff} "
            f"and high_freq_factor={high_ff}"
        )
    length = check_int("original_max_position_embeddings", original_max_position_embeddings)
    # lambda_i = 2 pi / theta_i
    wavelength = 2.0 * math.pi / theta
    # g = (L / lambda - low) / (high - low)
    smooth = (length / wavelength - low_ff) / (high_ff - low_ff)
    # (1 - g) theta / s + g theta
    blended = (1.0 - smooth) * theta / factor + smooth * theta
    is_high_freq = wavelength < length / high_ff
    is_low_freq = wavelength > length / low_ff
    return np.where(is_high_freq, theta, np.where(is_low_freq, theta / factor, blended))


# --------------------------------------------------------------------------- LongRoPE


def longrope_attention_factor(factor: float, original_max_position_embeddings: int) -> float:
    """Return LongRoPE's default attention factor ``sqrt(1 + ln s / ln L)`` (1 when s <= 1).

    Parameters
    ----------
    factor : float
        Scale ``s`` >= 1 (Phi-3: ``max_position_embeddings / original_max_position_embeddings``).
    original_max_position_embeddings : int
        Trained length ``L`` >= 2.

    Returns
    -------
    attention_factor : float

    Notes
    -----
    ``sqrt(1 + ln(s) / ln(L))`` multiplies cos and sin. Introduced in notebook 06_context_extension.

    References
    ----------
    Ding et al., "LongRoPE", arXiv 2402.13753; HF ``_compute_longrope_parameters``; Phi-3
    ``Phi3LongRoPEScaledRotaryEmbedding``.

    Examples
    --------
    >>> round(longrope_attention_factor(32.0, 4096), 6)
    1.190238
    """
    factor = _check_factor(factor)
    length = check_int(
        "original_max_position_embeddings", original_max_position_embeddings, minimum=2
    )
    if factor <= 1.0:
        return 1.0
    # a = sqrt(1 + ln s / ln L)
    return math.sqrt(1.0 + math.log(factor) / math.log(length))


def _check_rescale_list(name: str, values: Any, n_pairs: int) -> NDArray[np.float64]:
    array = check_array(name, values, ndim=1).astype(np.float64, copy=False)
    if array.shape[0] != n_pairs:
        raise ValueError(
            f"{name} must have length head_dim // 2 = {n_pairs}; got length {array.shape[0]}"
        )
    if not np.all(array > 0):
        raise ValueError(f"{name} must contain only positive numbers; got min {array.min()}")
    return array


def longrope_inv_freq(
    head_dim: int,
    base: float,
    short_factor: ArrayLike,
    long_factor: ArrayLike,
    original_max_position_embeddings: int,
    seq_len: int | None = None,
) -> NDArray[np.float64]:
    """Return LongRoPE frequencies ``theta_i / lambda_i`` with the short or the long list.

    Parameters
    ----------
    head_dim : int
        Rotary dimension, even and >= 2.
    base : float
        RoPE base, > 1.
    short_factor, long_factor : array_like, shape (head_dim // 2,)
        Positive per-pair rescale factors ``lambda_i`` found by LongRoPE's search.
    original_max_position_embeddings : int
        Trained length ``L``.
    seq_len : int or None, default None
        Current length: ``long_factor`` when ``seq_len > L``, ``short_factor`` otherwise
        (including None).

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)

    Notes
    -----
    ``theta'_i = 1 / (lambda_i * base**(2i/d))``. Introduced in notebook 06_context_extension.

    References
    ----------
    Ding et al., "LongRoPE: Extending LLM Context Window Beyond 2 Million Tokens",
    arXiv 2402.13753; HF ``_compute_longrope_parameters``.

    Examples
    --------
    >>> np.round(longrope_inv_freq(4, 100.0, [1.0, 1.0], [1.0, 4.0], 10, seq_len=20), 6)
    array([1.   , 0.025])
    """
    theta = default_inv_freq(head_dim, base)
    short = _check_rescale_list("short_factor", short_factor, theta.shape[0])
    long = _check_rescale_list("long_factor", long_factor, theta.shape[0])
    length = check_int("original_max_position_embeddings", original_max_position_embeddings)
    current = _check_seq_len(seq_len)
    chosen = long if current is not None and current > length else short
    # theta'_i = theta_i / lambda_i
    return theta / chosen


# --------------------------------------------------------------------------- config entry point


def resolve_rope_type(rope_scaling: Mapping[str, Any] | None) -> str:
    """Return the ``rope_type`` of a Hugging Face ``rope_scaling`` dict (or "default" for None).

    Parameters
    ----------
    rope_scaling : dict or None
        A config's ``rope_scaling`` field. The legacy key ``type`` is accepted; if both
        ``rope_type`` and ``type`` are present they must agree.

    Returns
    -------
    rope_type : str
        One of :data:`SCALING_METHODS`.

    Notes
    -----
    A dict without ``rope_type``/``type`` is an error (Hugging Face cannot pick a function for
    it either). Introduced in notebook 06_context_extension.

    Examples
    --------
    >>> resolve_rope_type({"type": "linear", "factor": 2.0})
    'linear'
    >>> resolve_rope_type(None)
    'default'
    """
    if rope_scaling is None:
        return "default"
    if not isinstance(rope_scaling, Mapping):
        raise TypeError(
            "rope_scaling must be a dict in the Hugging Face config format (or None); "
            f"got {type(rope_scaling).__name__}"
        )
    has_new, has_old = "rope_type" in rope_scaling, "type" in rope_scaling
    if has_new and has_old and rope_scaling["rope_type"] != rope_scaling["type"]:
        raise ValueError(
            "rope_scaling['rope_type'] and its legacy alias rope_scaling['type'] must agree; "
            f"got rope_type={rope_scaling['rope_type']!r} and type={rope_scaling['type']!r}"
        )
    if not (has_new or has_old):
        raise ValueError(
            "rope_scaling must have a 'rope_type' (or legacy 'type') key, one of "
            f"{', '.join(map(repr, SCALING_METHODS))}; got keys {sorted(map(str, rope_scaling))}"
        )
    value = rope_scaling["rope_type"] if has_new else rope_scaling["type"]
    return check_choice("rope_scaling['rope_type']", value, SCALING_METHODS)


def _key_name(key: str) -> str:
    return f"rope_scaling['{key}']"


def _get(cfg: Mapping[str, Any], key: str, rope_type: str, *, required: bool) -> Any:
    """Return cfg[key], None if absent (or None); raise if required and absent."""
    value = cfg.get(key)
    if value is None and required:
        raise ValueError(
            f"{_key_name(key)} is required for rope_type {rope_type!r}; got keys "
            f"{sorted(map(str, cfg))}"
        )
    return value


def _cfg_factor(cfg: Mapping[str, Any], rope_type: str, *, required: bool = True) -> float | None:
    value = _get(cfg, "factor", rope_type, required=required)
    return None if value is None else check_float(_key_name("factor"), value, at_least=1.0)


def _cfg_length(cfg: Mapping[str, Any], rope_type: str, *, minimum: int = 1) -> int:
    key = "original_max_position_embeddings"
    value = _get(cfg, key, rope_type, required=True)
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON configs sometimes store 32768.0, as HF accepts
    return check_int(_key_name(key), value, minimum=minimum)


def _cfg_optional_float(
    cfg: Mapping[str, Any], key: str, rope_type: str, **bounds: float
) -> float | None:
    value = _get(cfg, key, rope_type, required=False)
    return None if value is None else check_float(_key_name(key), value, **bounds)


def _yarn_parameters(
    head_dim: int, base: float, cfg: Mapping[str, Any]
) -> tuple[NDArray[np.float64], float]:
    factor = _cfg_factor(cfg, "yarn")
    assert factor is not None
    length = _cfg_length(cfg, "yarn")
    fast = _cfg_optional_float(cfg, "beta_fast", "yarn", greater_than=0.0)
    slow = _cfg_optional_float(cfg, "beta_slow", "yarn", greater_than=0.0)
    fast = YARN_BETA_FAST_DEFAULT if fast is None else fast
    slow = YARN_BETA_SLOW_DEFAULT if slow is None else slow
    if not fast > slow:
        raise ValueError(
            f"rope_scaling['beta_fast'] must be > rope_scaling['beta_slow'] (defaults 32 and 1); "
            f"got beta_fast={fast} and beta_slow={slow}"
        )
    truncate = cfg.get("truncate", True)
    truncate = check_bool("rope_scaling['truncate']", truncate)
    mscale = _cfg_optional_float(cfg, "mscale", "yarn", at_least=0.0)
    mscale_all_dim = _cfg_optional_float(cfg, "mscale_all_dim", "yarn", at_least=0.0)
    given = _cfg_optional_float(cfg, "attention_factor", "yarn", greater_than=0.0)
    inv_freq = yarn_inv_freq(
        head_dim, base, factor, length, beta_fast=fast, beta_slow=slow, truncate=bool(truncate)
    )
    attention = yarn_attention_factor(
        factor, mscale=mscale, mscale_all_dim=mscale_all_dim, attention_factor=given
    )
    return inv_freq, attention


def _longrope_parameters(
    head_dim: int, base: float, cfg: Mapping[str, Any], seq_len: int | None
) -> tuple[NDArray[np.float64], float]:
    short = _get(cfg, "short_factor", "longrope", required=True)
    long = _get(cfg, "long_factor", "longrope", required=True)
    given = _cfg_optional_float(cfg, "attention_factor", "longrope", greater_than=0.0)
    factor = _cfg_factor(cfg, "longrope", required=False)
    length = _cfg_length(cfg, "longrope", minimum=1)
    n_pairs = head_dim // 2
    short = _check_rescale_list(_key_name("short_factor"), short, n_pairs)
    long = _check_rescale_list(_key_name("long_factor"), long, n_pairs)
    inv_freq = longrope_inv_freq(head_dim, base, short, long, length, seq_len)
    if given is not None:
        return inv_freq, given
    if factor is None:
        raise ValueError(
            "rope_scaling['factor'] (or rope_scaling['attention_factor']) is required for "
            "rope_type 'longrope': Hugging Face derives the factor from "
            "max_position_embeddings / original_max_position_embeddings, which this function "
            f"does not receive; pass it as 'factor'. Got keys {sorted(map(str, cfg))}"
        )
    if factor > 1.0 and length < 2:
        raise ValueError(
            "rope_scaling['original_max_position_embeddings'] must be >= 2 for the LongRoPE "
            f"attention factor sqrt(1 + ln s / ln L); got {length}"
        )
    return inv_freq, longrope_attention_factor(factor, max(length, 2))


def rope_frequencies(
    head_dim: int,
    base: float = 10000.0,
    rope_scaling: Mapping[str, Any] | None = None,
    *,
    seq_len: int | None = None,
) -> tuple[NDArray[np.float64], float]:
    """Return ``(inv_freq, attention_factor)`` for a model's ``rope_scaling`` config.

    Parameters
    ----------
    head_dim : int
        Rotary dimension of one head (``hidden_size // num_attention_heads`` times any partial
        rotary factor), even and >= 2 (>= 4 for ``ntk`` and ``dynamic``).
    base : float, default 10000.0
        ``rope_theta`` of the config, > 1.
    rope_scaling : dict or None, default None
        The config's ``rope_scaling`` field (``rope_type`` or legacy ``type``; see
        :data:`SCALING_METHODS`). None means no scaling. Keys read: ``factor``,
        ``original_max_position_embeddings``, ``beta_fast``, ``beta_slow``, ``mscale``,
        ``mscale_all_dim``, ``attention_factor``, ``truncate``, ``low_freq_factor``,
        ``high_freq_factor``, ``short_factor``, ``long_factor``; other keys are ignored, and a
        key set to None counts as absent (as ``dict.get`` does in Hugging Face).
    seq_len : int or None, default None
        Current sequence length, used by ``dynamic`` and ``longrope``.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
        ``base**(-2i/head_dim)`` before scaling, rescaled by the method.
    attention_factor : float
        Multiplier of cos and sin (1.0 except for ``yarn`` and ``longrope``).

    Notes
    -----
    Required keys, by type: ``linear``/``ntk``: factor; ``dynamic``: factor and
    original_max_position_embeddings; ``yarn``: factor and original_max_position_embeddings;
    ``llama3``: factor, low_freq_factor, high_freq_factor, original_max_position_embeddings;
    ``longrope``: short_factor, long_factor, original_max_position_embeddings, and factor unless
    attention_factor is given.

    Where Hugging Face reads ``config.max_position_embeddings`` (which this function does not
    receive), the trained length is ``original_max_position_embeddings`` from ``rope_scaling``:

    - ``dynamic``: HF uses ``max_position_embeddings`` as ``L``; here ``L`` is
      ``original_max_position_embeddings`` (the same numbers when the two are equal).
    - ``yarn``: the correction range uses ``original_max_position_embeddings`` (as the YaRN code
      and HF >= 4.45 with that key do), and ``factor`` is the config's factor. HF 4.4x-4.5x
      replaces ``factor`` by ``max_position_embeddings / original_max_position_embeddings``
      when the key is present; published configs (Qwen, DeepSeek) set both consistently.
    - ``longrope``: the attention factor uses ``factor`` (HF: the same ratio); without
      ``factor`` and ``attention_factor`` it is an error rather than a guess.

    ``beta_fast``/``beta_slow`` default to 32/1 when absent or None (a 0 is rejected rather
    than replaced, HF's ``or 32`` would replace it). ``truncate`` defaults to True.
    Introduced in notebook 06_context_extension.

    References
    ----------
    Hugging Face transformers ``src/transformers/modeling_rope_utils.py``; YaRN arXiv 2309.00071;
    PI arXiv 2306.15595; LongRoPE arXiv 2402.13753; Llama 3 arXiv 2407.21783.

    Examples
    --------
    >>> inv, att = rope_frequencies(128, 500000.0, {"rope_type": "llama3", "factor": 8.0,
    ...     "low_freq_factor": 1.0, "high_freq_factor": 4.0,
    ...     "original_max_position_embeddings": 8192})
    >>> inv.shape, att
    ((64,), 1.0)
    >>> inv, att = rope_frequencies(128, 1e6, {"rope_type": "yarn", "factor": 4.0,
    ...     "original_max_position_embeddings": 32768})
    >>> round(att, 10)
    1.1386294361
    """
    rope_type = resolve_rope_type(rope_scaling)
    head_dim = check_even("head_dim", head_dim)
    base = check_float("base", base, greater_than=1.0)
    current = _check_seq_len(seq_len)
    cfg: Mapping[str, Any] = rope_scaling if rope_scaling is not None else {}
    theta_in_cfg = cfg.get("rope_theta")
    if theta_in_cfg is not None and check_float(_key_name("rope_theta"), theta_in_cfg) != base:
        raise ValueError(
            f"rope_scaling['rope_theta'] ({theta_in_cfg}) disagrees with base ({base}); "
            "pass the config's rope_theta as base"
        )
    partial = cfg.get("partial_rotary_factor")
    if partial is not None and check_float(_key_name("partial_rotary_factor"), partial) != 1.0:
        raise ValueError(
            f"rope_scaling['partial_rotary_factor'] is {partial}, but head_dim is the rotary "
            f"dimension here; pass head_dim=int(head_dim * {partial}) and drop the key"
        )

    if rope_type == "default":
        return default_inv_freq(head_dim, base), 1.0
    if rope_type == "linear":
        factor = _cfg_factor(cfg, rope_type)
        assert factor is not None
        return linear_inv_freq(head_dim, base, factor), 1.0
    if rope_type == "ntk":
        factor = _cfg_factor(cfg, rope_type)
        assert factor is not None
        return ntk_inv_freq(head_dim, base, factor), 1.0
    if rope_type == "dynamic":
        factor = _cfg_factor(cfg, rope_type)
        assert factor is not None
        length = _cfg_length(cfg, rope_type)
        return dynamic_ntk_inv_freq(head_dim, base, factor, length, current), 1.0
    if rope_type == "yarn":
        return _yarn_parameters(head_dim, base, cfg)
    if rope_type == "llama3":
        factor = _cfg_factor(cfg, rope_type)
        assert factor is not None
        low_ff = _get(cfg, "low_freq_factor", rope_type, required=True)
        high_ff = _get(cfg, "high_freq_factor", rope_type, required=True)
        length = _cfg_length(cfg, rope_type)
        low_ff = check_float(_key_name("low_freq_factor"), low_ff, greater_than=0.0)
        high_ff = check_float(_key_name("high_freq_factor"), high_ff, greater_than=0.0)
        if not low_ff < high_ff:
            raise ValueError(
                "rope_scaling['low_freq_factor'] must be < rope_scaling['high_freq_factor']; "
                f"got low_freq_factor={low_ff} and high_freq_factor={high_ff}"
            )
        return llama3_inv_freq(head_dim, base, factor, low_ff, high_ff, length), 1.0
    return _longrope_parameters(head_dim, base, cfg, current)


# --------------------------------------------------------------------------- analysis helpers


def frequency_ratio(
    head_dim: int,
    base: float,
    rope_scaling: Mapping[str, Any] | None,
    *,
    seq_len: int | None = None,
) -> NDArray[np.float64]:
    """Return the per-pair ratio of scaled to default frequency, ``theta'_i / theta_i``.

    Parameters
    ----------
    head_dim : int
        Rotary dimension, even.
    base : float
        RoPE base, > 1.
    rope_scaling : dict or None
        As for :func:`rope_frequencies`.
    seq_len : int or None, default None
        Current length (dynamic, longrope).

    Returns
    -------
    ratio : ndarray of float64, shape (head_dim // 2,)
        1 where a pair is untouched, ``1/s`` where it is fully interpolated.

    Notes
    -----
    The key picture of notebook 06_context_extension draws this ratio against the pair index
    for every method.

    Examples
    --------
    >>> np.round(frequency_ratio(4, 100.0, {"rope_type": "ntk", "factor": 4.0}), 6)
    array([1.  , 0.25])
    """
    scaled, _ = rope_frequencies(head_dim, base, rope_scaling, seq_len=seq_len)
    # ratio_i = theta'_i / theta_i
    return scaled / default_inv_freq(head_dim, base)


def _check_inv_freq(inv_freq: Any) -> NDArray[np.float64]:
    array = check_array("inv_freq", inv_freq, ndim=1).astype(np.float64, copy=False)
    if array.size == 0 or not np.all(array > 0):
        raise ValueError("inv_freq must be a non-empty 1-D array of positive numbers")
    return array


def rope_wavelengths(inv_freq: ArrayLike) -> NDArray[np.float64]:
    """Return the wavelength ``lambda_i = 2 pi / theta_i`` of every pair, in positions.

    Parameters
    ----------
    inv_freq : array_like, shape (head_dim // 2,)
        Positive angular speeds.

    Returns
    -------
    wavelength : ndarray of float64, shape (head_dim // 2,)

    Notes
    -----
    ``lambda_i = 2 pi / theta_i``: the number of positions for one full turn.
    Introduced in notebook 06_context_extension.

    Examples
    --------
    >>> np.round(rope_wavelengths([1.0, 0.01]), 4)
    array([  6.2832, 628.3185])
    """
    theta = _check_inv_freq(inv_freq)
    if np.any(theta < 2.0 * math.pi / np.finfo(np.float64).max):
        raise ValueError(
            f"inv_freq must be >= {2.0 * math.pi / np.finfo(np.float64).max:.3g} so that the "
            f"wavelength 2*pi/theta is finite; got min {theta.min():.3g}"
        )
    # lambda_i = 2 pi / theta_i
    return 2.0 * math.pi / theta


def rotations_in_context(inv_freq: ArrayLike, context_length: int) -> NDArray[np.float64]:
    """Return how many full turns each pair makes over ``context_length`` positions.

    Parameters
    ----------
    inv_freq : array_like, shape (head_dim // 2,)
        Positive angular speeds.
    context_length : int
        Length ``L`` >= 1.

    Returns
    -------
    rotations : ndarray of float64, shape (head_dim // 2,)
        ``r_i = L / lambda_i = L theta_i / (2 pi)``.

    Notes
    -----
    Pairs with ``r_i < 1`` never complete a turn in training, so positions past ``L`` show them
    angles they have never seen; YaRN's ``beta_fast``/``beta_slow`` are thresholds on ``r``.
    Introduced in notebook 06_context_extension.

    Examples
    --------
    >>> np.round(rotations_in_context([1.0, 0.001], 4096), 4)
    array([651.8986,   0.6519])
    """
    theta = _check_inv_freq(inv_freq)
    length = check_int("context_length", context_length)
    # r_i = L theta_i / (2 pi)
    return length * theta / (2.0 * math.pi)


def max_trained_angle(inv_freq: ArrayLike, trained_length: int) -> NDArray[np.float64]:
    """Return the largest angle each pair reached in training, ``(L - 1) theta_i``.

    Parameters
    ----------
    inv_freq : array_like, shape (head_dim // 2,)
        The frequencies used in training (positive).
    trained_length : int
        Trained length ``L`` (positions ``0 .. L-1``).

    Returns
    -------
    angle : ndarray of float64, shape (head_dim // 2,)

    Notes
    -----
    A pair whose largest angle is below ``2 pi`` saw only the arc ``[0, (L-1) theta_i]``.
    Introduced in notebook 06_context_extension.

    Examples
    --------
    >>> np.round(max_trained_angle([1.0, 0.001], 11), 4)
    array([10.  ,  0.01])
    """
    theta = _check_inv_freq(inv_freq)
    length = check_int("trained_length", trained_length)
    # angle_max_i = (L - 1) theta_i
    return (length - 1) * theta


def unseen_angle_mask(
    positions: ArrayLike,
    inv_freq: ArrayLike,
    trained_inv_freq: ArrayLike,
    trained_length: int,
) -> NDArray[np.bool_]:
    """Return where the angle ``m theta'_i`` lies outside the arc seen in training.

    Parameters
    ----------
    positions : array_like, shape (n,)
        Positions to look at (e.g. ``0 .. L' - 1``), >= 0.
    inv_freq : array_like, shape (head_dim // 2,)
        Frequencies used now (scaled by a method).
    trained_inv_freq : array_like, shape (head_dim // 2,)
        Frequencies used in training (usually the default ones).
    trained_length : int
        Trained length ``L``.

    Returns
    -------
    unseen : ndarray of bool, shape (n, head_dim // 2)
        True where pair ``i`` at position ``m`` shows an angle never seen in training.

    Notes
    -----
    Training covered the arc ``[0, A_i]`` with ``A_i = (L - 1) theta_i`` (the whole circle when
    ``A_i >= 2 pi``). The angle ``phi = m theta'_i`` is unseen when ``A_i < 2 pi`` and
    ``phi mod 2 pi > A_i``. Introduced in notebook 06_context_extension.

    Examples
    --------
    >>> unseen_angle_mask([0, 5, 20], [1.0, 0.01], [1.0, 0.01], 11)
    array([[False, False],
           [False, False],
           [False,  True]])
    """
    pos = check_positions("positions", positions).astype(np.float64, copy=False)
    theta = _check_inv_freq(inv_freq)
    trained = max_trained_angle(trained_inv_freq, trained_length)
    if trained.shape != theta.shape:
        raise ValueError(
            f"trained_inv_freq must have the same shape as inv_freq {theta.shape}; "
            f"got {trained.shape}"
        )
    if np.any(pos < 0):
        raise ValueError("positions must be >= 0")
    # phi = m theta'_i mod 2 pi
    phase = np.mod(np.multiply.outer(pos, theta), 2.0 * math.pi)
    full_circle = trained >= 2.0 * math.pi
    return np.logical_and(~full_circle, phase > trained)

"""Stretching RoPE's context: how each published method rescales the frequencies.

Every method changes the frequencies ``theta_i = base**(-2i/d)`` of RoPE; YaRN and LongRoPE also
return an *attention factor* that multiplies cos and sin. ``s`` is the scale factor and ``L`` the
trained length (``original_max_position_embeddings``); ``lambda_i = 2 pi / theta_i`` is always a
wavelength, never a scale.

============  =====================================================================================
rope_type     effect on ``theta_i``
============  =====================================================================================
default       none
linear        ``theta_i / s`` (Position Interpolation)
ntk           ``base -> base s**(d/(d-2))`` (static NTK-aware; a course name, not a HF type)
dynamic       NTK-aware with ``s_eff = s l / L - (s - 1)`` once the current length ``l > L``
yarn          a ramp from ``theta_i`` to ``theta_i / s`` over the turns ``r_i = L / lambda_i``,
              attention factor ``0.1 ln s + 1``
llama3        ``theta_i`` for short wavelengths, ``theta_i / s`` for long ones, a blend between
longrope      ``theta_i / f_i`` with searched per-pair factors ``f_i`` (short or long list)
============  =====================================================================================

:func:`rope_frequencies` reads a ``rope_scaling`` dict in the Hugging Face format: one
validation pass (``posenc_lib._scaling_checks.read_keys``, shared with
:func:`posenc_lib.models.rope_frequencies_from_config`), then the method's ``_compute_<type>``
function from the dispatch table ``COMPUTE``, as transformers' ``ROPE_INIT_FUNCTIONS``. Each
public formula function checks its own arguments through the same table of rules
(``posenc_lib._scaling_checks``). Everything is float64.

The values agree with Hugging Face ``transformers`` (``modeling_rope_utils.py``), the YaRN
reference code and Meta's ``apply_scaling`` (tests/test_scaling.py).

Notebook: 06_context_extension.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_choice
from posenc_lib._scaling_checks import (
    check_betas,
    check_ntk_head_dim,
    checked,
    read_keys,
    refuse_misplaced_keys,
)
from posenc_lib.frequencies import inverse_frequencies

__all__ = [
    "SCALING_METHODS",
    "rope_frequencies",
    "resolve_rope_type",
    "linear_inv_freq",
    "ntk_scaled_base",
    "ntk_inv_freq",
    "dynamic_ntk_factor",
    "yarn_get_mscale",
    "yarn_correction_range",
    "yarn_ramp",
    "yarn_inv_freq",
    "llama3_inv_freq",
]

SCALING_METHODS: tuple[str, ...] = ("default", "linear", "ntk", "dynamic", "yarn", "llama3",
                                    "longrope")
"""The ``rope_type`` values understood by :func:`rope_frequencies`."""


# --------------------------------------------------------------------------- one function each


def linear_inv_freq(head_dim: int, base: float, factor: float) -> NDArray[np.float64]:
    """Return Position Interpolation's frequencies ``theta_i / s``.

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
    positions move ``s`` times closer.

    References
    ----------
    Chen et al., "Extending Context Window of Large Language Models via Positional
    Interpolation", arXiv 2306.15595.

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
    head_dim : int
        Rotary dimension, even and >= 4.
    base : float
        RoPE base, > 1.
    factor : float
        Scale ``s`` >= 1.

    Returns
    -------
    base : float

    Notes
    -----
    ``base' = base s**(d/(d-2))`` divides the slowest frequency ``base**(-(d-2)/d)`` by exactly
    ``s`` and leaves ``theta_0 = 1`` alone; in between ``theta'_i / theta_i = s**(-2i/(d-2))``.

    References
    ----------
    bloc97, "NTK-Aware Scaled RoPE" (r/LocalLLaMA, 2023); YaRN arXiv 2309.00071, eq. (16).

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

    Notes
    -----
    ``theta'_i = (base s**(d/(d-2)))**(-2i/d) = theta_i s**(-2i/(d-2))``: pair 0 is kept, the
    last pair is divided by ``s``.

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
    factor : float
        The configured ``s`` >= 1.
    original_max_position_embeddings : int
        Trained length ``L`` >= 1.
    seq_len : int or None
        Current length ``l`` >= 1; None means no scaling.

    Returns
    -------
    s_eff : float
        ``s l / L - (s - 1)`` when ``l > L``, else 1.

    Notes
    -----
    ``s_eff(l) = s l / L - (s - 1)``: 1 at ``l = L``, growing linearly with ``l``. With
    ``factor = 1`` it is ``l / L`` (the scale follows the length); with ``factor = s`` it
    reaches ``s**2 - s + 1`` at ``l = s L``.

    References
    ----------
    emozilla, "Dynamically Scaled RoPE" (r/LocalLLaMA, 2023); HF
    ``_compute_dynamic_ntk_parameters``.

    Examples
    --------
    >>> dynamic_ntk_factor(2.0, 4096, 8192)
    3.0
    >>> dynamic_ntk_factor(2.0, 4096, 100)
    1.0
    """
    factor, length, current = checked(factor=factor, original_max_position_embeddings=(
        original_max_position_embeddings), seq_len=seq_len)
    if current is None or current <= length:
        return 1.0
    # s_eff = s l / L - (s - 1)
    return float(factor * current / length - (factor - 1.0))


def yarn_get_mscale(scale: float, mscale: float = 1.0) -> float:
    """Return YaRN's attention temperature ``sqrt(1/t) = 0.1 mscale ln(s) + 1`` (1 for s <= 1).

    Parameters
    ----------
    scale : float
        Scale ``s`` > 0.
    mscale : float, default 1.0
        Multiplier of the log term (DeepSeek configs use such values), >= 0.

    Returns
    -------
    value : float

    Notes
    -----
    ``sqrt(1/t) = 0.1 ln(s) + 1`` is the paper's fitted temperature. It multiplies cos and sin,
    so the logits are multiplied by its square.

    References
    ----------
    Peng et al., "YaRN", arXiv 2309.00071, eq. (22).

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
    head_dim : int
        Rotary dimension ``d``, even.
    base : float
        RoPE base, > 1.
    original_max_position_embeddings : int
        Trained length ``L``.
    beta_fast, beta_slow : float, default 32 and 1
        Turn counts (``beta`` and ``alpha`` of the paper), ``beta_fast > beta_slow > 0``.
    truncate : bool, default True
        Floor ``low`` and ceil ``high``, as the reference code does.

    Returns
    -------
    low, high : float

    Notes
    -----
    Pair ``i`` turns ``r_i = L theta_i / (2 pi)`` times in ``L``; solving ``r_i = r`` gives
    ``i(r) = d ln(L / (2 pi r)) / (2 ln base)``. ``low = i(beta_fast)`` and
    ``high = i(beta_slow)``, clamped to ``[0, d - 1]``.

    References
    ----------
    YaRN arXiv 2309.00071, eq. (17)-(18); jquesnelle/yarn ``find_correction_range``.

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
    low, high : float
        The range from :func:`yarn_correction_range`.
    n : int
        Number of pairs, >= 1.

    Returns
    -------
    gamma : ndarray of float64, shape (n,)

    Notes
    -----
    ``gamma_i = clip((i - low) / (high - low), 0, 1)``; YaRN then uses
    ``theta'_i = (1 - gamma_i) theta_i + gamma_i theta_i / s``.

    Examples
    --------
    >>> yarn_ramp(1.0, 3.0, 5)
    array([0. , 0. , 0.5, 1. , 1. ])
    """
    low, high, n = checked(low=low, high=high, n=n)
    # equal bounds: the references add 0.001 to high, so the span is 0.001
    span = high - low if low != high else 0.001
    # gamma_i = clip((i - low) / (high - low), 0, 1)
    return np.clip((np.arange(n, dtype=np.float64) - low) / span, 0.0, 1.0)


def yarn_inv_freq(head_dim: int, base: float, factor: float,
                  original_max_position_embeddings: int, beta_fast: float = 32.0,
                  beta_slow: float = 1.0, truncate: bool = True) -> NDArray[np.float64]:
    """Return YaRN's (NTK-by-parts) frequencies.

    Parameters
    ----------
    head_dim : int
        Rotary dimension, even.
    base : float
        RoPE base, > 1.
    factor : float
        Scale ``s`` >= 1.
    original_max_position_embeddings : int
        Trained length ``L``.
    beta_fast, beta_slow : float, default 32 and 1
        Turn counts that bound the ramp.
    truncate : bool, default True
        Round the ramp's range outward to whole pairs.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)

    Notes
    -----
    ``theta'_i = (1 - gamma_i) theta_i + gamma_i theta_i / s`` with ``gamma`` from
    :func:`yarn_ramp` over :func:`yarn_correction_range`. Pairs with more than ``beta_fast``
    turns in ``L`` keep their frequency, which keeps the model's local resolution; pairs with
    fewer than ``beta_slow`` are interpolated like PI. The paper writes the ramp over the turn
    count ``r_i``; the reference code, Hugging Face and this function ramp linearly over the
    pair index between the two boundaries (both agree outside the ramp).

    References
    ----------
    Peng et al., "YaRN", arXiv 2309.00071, sections 3.2-3.4; HF ``_compute_yarn_parameters``.

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
    head_dim : int
        Rotary dimension, even.
    base : float
        RoPE base (500000 for Llama 3), > 1.
    factor : float
        Scale ``s`` >= 1 (8 for Llama 3.1).
    low_freq_factor, high_freq_factor : float
        Band edges as fractions of ``L`` (1 and 4 for Llama 3.1), ``0 < low <= high``
        (Llama 4 Scout sets both to 1: a step, no blend).
    original_max_position_embeddings : int
        Trained length ``L`` (8192 for Llama 3.1).

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)

    Notes
    -----
    With the wavelength ``lambda_i = 2 pi / theta_i``: ``theta_i`` when
    ``lambda_i < L / high_freq_factor``; ``theta_i / s`` when ``lambda_i > L / low_freq_factor``;
    otherwise ``(1 - g) theta_i / s + g theta_i`` with
    ``g = (L / lambda_i - low_freq_factor) / (high_freq_factor - low_freq_factor)``.

    References
    ----------
    Meta llama-models ``apply_scaling``; "The Llama 3 Herd of Models", arXiv 2407.21783.

    Examples
    --------
    >>> inv = llama3_inv_freq(8, 10000.0, 8.0, 1.0, 4.0, 64)
    >>> np.round(inv / inverse_frequencies(8, 10000.0), 4)
    array([1.    , 0.1304, 0.125 , 0.125 ])
    """
    factor, low_ff, high_ff, length = checked(
        factor=factor, low_freq_factor=low_freq_factor, high_freq_factor=high_freq_factor,
        original_max_position_embeddings=original_max_position_embeddings)
    if not low_ff <= high_ff:
        raise ValueError(f"low_freq_factor must be <= high_freq_factor; got low_freq_factor="
                         f"{low_ff} and high_freq_factor={high_ff}")
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


# --------------------------------------------------------------------------- a config dict


def resolve_rope_type(rope_scaling: Mapping[str, Any] | None) -> str:
    """Return the method a ``rope_scaling`` dict names (``rope_type`` or the legacy ``type``).

    Parameters
    ----------
    rope_scaling : dict or None
        A config's ``rope_scaling`` field; if both keys are present they must agree.

    Returns
    -------
    rope_type : str
        One of :data:`SCALING_METHODS`; ``"default"`` for None.

    Notes
    -----
    A dict with neither key is an error: Hugging Face cannot pick a function for it either.

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
                         f"{', '.join(map(repr, SCALING_METHODS))}; got {dict(rope_scaling)!r}")
    return check_choice("rope_scaling['rope_type']", names.pop(), SCALING_METHODS)


def rope_frequencies(head_dim: int, base: float = 10000.0,
                     rope_scaling: Mapping[str, Any] | None = None, *,
                     seq_len: int | None = None) -> tuple[NDArray[np.float64], float]:
    """Return RoPE's frequencies and attention factor for a Hugging Face ``rope_scaling`` dict.

    Parameters
    ----------
    head_dim : int
        Rotary dimension of one head, even and >= 2 (>= 4 for ``ntk`` and ``dynamic``).
    base : float, default 10000.0
        ``rope_theta`` of the config, > 1.
    rope_scaling : dict or None, default None
        The config's ``rope_scaling`` field (``rope_type`` or legacy ``type``, one of
        :data:`SCALING_METHODS`). Keys read: factor, original_max_position_embeddings,
        beta_fast, beta_slow, mscale, mscale_all_dim, attention_factor, truncate,
        low_freq_factor, high_freq_factor, short_factor, long_factor. Other keys are ignored,
        and a key set to None counts as absent (as ``dict.get`` does in Hugging Face).
    seq_len : int or None, default None
        Current sequence length, read by ``dynamic`` and ``longrope``.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
        ``base**(-2i/head_dim)`` rescaled by the method.
    attention_factor : float
        Multiplier of cos and sin (1.0 except for ``yarn`` and ``longrope``).

    Notes
    -----
    Where Hugging Face reads ``config.max_position_embeddings``, which this function does not
    receive, the trained length is the dict's ``original_max_position_embeddings``:

    - ``dynamic``: Hugging Face takes ``L = max_position_embeddings``; here ``L`` is
      ``original_max_position_embeddings`` (the same numbers when the two are equal).
    - ``yarn``: ``factor`` is the dict's factor. Some transformers versions replace it by
      ``max_position_embeddings / original_max_position_embeddings`` when both are set
      (transformers issue #38224, fixed in #40320); a config whose two lengths are equal, as in
      Qwen2.5's model cards, then runs unscaled under those versions.
    - ``longrope``: the attention factor uses ``factor``; without ``factor`` and
      ``attention_factor`` it is an error rather than a guess.

    ``beta_fast`` / ``beta_slow`` follow transformers' ``get(key) or default``: absent, None or
    0 mean 32 / 1 (so ``beta_fast = 0`` is 32, here and in
    :func:`~posenc_lib.models.rope_frequencies_from_config`); ``truncate`` defaults to True.
    ``posenc_lib.models.rope_frequencies_from_config`` reads a whole config.json instead.

    References
    ----------
    Hugging Face transformers ``src/transformers/modeling_rope_utils.py``; YaRN arXiv 2309.00071;
    PI arXiv 2306.15595; LongRoPE arXiv 2402.13753; Llama 3 arXiv 2407.21783.

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
    refuse_misplaced_keys(config, base)
    keys = read_keys(rope_type, config, head_dim)
    return COMPUTE[rope_type](head_dim, base, keys, seq_len)


# --------------------------------------------------------------------------- one per rope_type
# Each takes the rotary dimension d, the base, the keys checked by read_keys (defaults filled
# in) and the current length, and returns (inv_freq, attention_factor), as transformers'
# _compute_<type>_parameters do. They trust their inputs.

Frequencies = tuple[NDArray[np.float64], float]


def _compute_default(head_dim: int, base: float, keys: Mapping[str, Any],
                     seq_len: int | None) -> Frequencies:
    """``theta_i = base**(-2i/d)``; attention factor 1."""
    return inverse_frequencies(head_dim, base), 1.0


def _compute_linear(head_dim: int, base: float, keys: Mapping[str, Any],
                    seq_len: int | None) -> Frequencies:
    """Position Interpolation: ``theta_i / s``; attention factor 1."""
    return linear_inv_freq(head_dim, base, keys["factor"]), 1.0


def _compute_ntk(head_dim: int, base: float, keys: Mapping[str, Any],
                 seq_len: int | None) -> Frequencies:
    """Static NTK-aware: ``base' = base s**(d/(d-2))``; attention factor 1."""
    return ntk_inv_freq(head_dim, base, keys["factor"]), 1.0


def _compute_dynamic(head_dim: int, base: float, keys: Mapping[str, Any],
                     seq_len: int | None) -> Frequencies:
    """Dynamic NTK: NTK-aware with ``s_eff = s l / L - (s - 1)`` once ``l > L``, else unscaled."""
    effective = dynamic_ntk_factor(keys["factor"], keys["original_max_position_embeddings"],
                                   seq_len)
    return ntk_inv_freq(head_dim, base, effective), 1.0


def _compute_yarn(head_dim: int, base: float, keys: Mapping[str, Any],
                  seq_len: int | None) -> Frequencies:
    """YaRN: the ramp of :func:`yarn_inv_freq`; attention factor ``a`` as transformers picks it.

    ``a`` is the config's ``attention_factor`` if given; else, when ``mscale`` and
    ``mscale_all_dim`` are both non-zero (DeepSeek), ``m(s, mscale) / m(s, mscale_all_dim)``
    with ``m(s, k) = 0.1 k ln s + 1``; else ``0.1 ln s + 1``.
    """
    factor = keys["factor"]
    inv_freq = yarn_inv_freq(head_dim, base, factor, keys["original_max_position_embeddings"],
                             keys["beta_fast"], keys["beta_slow"], keys["truncate"])
    if "attention_factor" in keys:
        return inv_freq, keys["attention_factor"]
    mscale, mscale_all_dim = keys.get("mscale"), keys.get("mscale_all_dim")
    if mscale and mscale_all_dim:
        # DeepSeek: a = m(s, mscale) / m(s, mscale_all_dim)
        return inv_freq, yarn_get_mscale(factor, mscale) / yarn_get_mscale(factor, mscale_all_dim)
    # a = 0.1 ln s + 1
    return inv_freq, yarn_get_mscale(factor)


def _compute_llama3(head_dim: int, base: float, keys: Mapping[str, Any],
                    seq_len: int | None) -> Frequencies:
    """Llama 3.1's wavelength bands (:func:`llama3_inv_freq`; equal edges make a step)."""
    return llama3_inv_freq(head_dim, base, keys["factor"], keys["low_freq_factor"],
                           keys["high_freq_factor"], keys["original_max_position_embeddings"]), 1.0


def _compute_longrope(head_dim: int, base: float, keys: Mapping[str, Any],
                      seq_len: int | None) -> Frequencies:
    """LongRoPE: ``theta_i / f_i``, long list past ``L``; ``a = sqrt(1 + ln s / ln L)``.

    ``a`` is the config's ``attention_factor`` if given, else 1 when ``s <= 1``.
    """
    length = keys["original_max_position_embeddings"]
    past_trained = seq_len is not None and seq_len > length
    chosen = keys["long_factor"] if past_trained else keys["short_factor"]
    # theta'_i = theta_i / f_i, with the long list past L and the short list up to L
    inv_freq = inverse_frequencies(head_dim, base) / chosen
    if "attention_factor" in keys:
        return inv_freq, keys["attention_factor"]
    if keys["factor"] <= 1.0:
        return inv_freq, 1.0
    # a = sqrt(1 + ln s / ln L)
    return inv_freq, math.sqrt(1.0 + math.log(keys["factor"]) / math.log(length))


COMPUTE: dict[str, Callable[[int, float, Mapping[str, Any], int | None], Frequencies]] = {
    "default": _compute_default,
    "linear": _compute_linear,
    "ntk": _compute_ntk,
    "dynamic": _compute_dynamic,
    "yarn": _compute_yarn,
    "llama3": _compute_llama3,
    "longrope": _compute_longrope,
}
"""``rope_type`` -> its ``_compute_<type>`` (transformers' ``ROPE_INIT_FUNCTIONS``)."""

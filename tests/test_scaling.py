"""Tests for posenc_lib.scaling: each method's defining property, reference values computed
independently (plain ``math`` loops written from the published code and papers) for published
model configs, and every bad-input case.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from posenc_lib.analysis import frequency_ratio, max_trained_angle, unseen_angle_mask
from posenc_lib.frequencies import inverse_frequencies, turns_in_context, wavelengths
from posenc_lib.models import rope_frequencies_from_config
from posenc_lib.scaling import (
    ROPE_TYPES,
    SCALING_METHODS,
    dynamic_ntk_factor,
    linear_inv_freq,
    llama3_inv_freq,
    ntk_inv_freq,
    ntk_scaled_base,
    resolve_rope_type,
    rope_frequencies,
    yarn_correction_range,
    yarn_get_mscale,
    yarn_inv_freq,
    yarn_ramp,
)

RTOL = 1e-10  # both sides are float64; the brief's bar against float32 references is 1e-5

# --------------------------------------------------------------------------- independent references


def ref_theta(d: int, base: float) -> list[float]:
    """theta_i = exp(-(2i/d) ln base), a loop."""
    return [math.exp(-(2 * i / d) * math.log(base)) for i in range(d // 2)]


def ref_ntk(d: int, base: float, s: float) -> list[float]:
    new_base = base * s ** (d / (d - 2))
    return ref_theta(d, new_base)


def ref_yarn(
    d: int,
    base: float,
    s: float,
    length: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> list[float]:
    """YaRN as in the reference code: index ramp between the rounded correction dims."""

    def index_for(rotations: float) -> float:
        # solve L theta_i / (2 pi) = rotations for i
        return d * math.log(length / (2 * math.pi * rotations)) / (2 * math.log(base))

    lo, hi = index_for(beta_fast), index_for(beta_slow)
    if truncate:
        lo, hi = math.floor(lo), math.ceil(hi)
    lo, hi = max(lo, 0), min(hi, d - 1)
    if lo == hi:
        hi += 0.001
    assert lo < hi, "reference written for the regular case"
    out = []
    for i, t in enumerate(ref_theta(d, base)):
        if i <= lo:
            gamma = 0.0
        elif i >= hi:
            gamma = 1.0
        else:
            gamma = (i - lo) / (hi - lo)
        out.append(t * (1 - gamma) + (t / s) * gamma)
    return out


def ref_llama3(d: int, base: float, s: float, low: float, high: float, length: int) -> list[float]:
    """Meta's apply_scaling, the loop version."""
    out = []
    for t in ref_theta(d, base):
        wavelength = 2 * math.pi / t
        if wavelength < length / high:
            out.append(t)
        elif wavelength > length / low:
            out.append(t / s)
        else:
            smooth = (length / wavelength - low) / (high - low)
            out.append((1 - smooth) * t / s + smooth * t)
    return out


def ref_mscale(s: float, m: float = 1.0) -> float:
    return 1.0 if s <= 1 else 0.1 * m * math.log(s) + 1.0


# --------------------------------------------------------------------------- published configs

LLAMA31_8B = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}
QWEN_YARN = {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
DEEPSEEK_V3 = {
    "type": "yarn",
    "factor": 40,
    "beta_fast": 32,
    "beta_slow": 1,
    "mscale": 1.0,
    "mscale_all_dim": 1.0,
    "original_max_position_embeddings": 4096,
}
PHI3_SHORT = [1.0 + 0.01 * i for i in range(48)]
PHI3_LONG = [1.0 + 0.9 * i for i in range(48)]
PHI3_LONGROPE = {
    "type": "longrope",
    "short_factor": PHI3_SHORT,
    "long_factor": PHI3_LONG,
    "factor": 32.0,  # = max_position_embeddings 131072 / original 4096
    "original_max_position_embeddings": 4096,
}


def test_llama31_8b_matches_meta_apply_scaling() -> None:
    inv, att = rope_frequencies(128, 500000.0, LLAMA31_8B)
    want = ref_llama3(128, 500000.0, 8.0, 1.0, 4.0, 8192)
    np.testing.assert_allclose(inv, want, rtol=RTOL)
    assert att == 1.0
    assert inv.shape == (64,) and inv.dtype == np.float64
    # Hand count: lambda_i = 2 pi 500000^(i/64) < 2048 for i <= 28 (i < 28.22),
    # > 8192 for i >= 35 (i > 34.98): 29 pairs kept, 6 smoothed, 29 divided by 8.
    ratio = inv / inverse_frequencies(128, 500000.0)
    assert np.all(ratio[:29] == 1.0)
    np.testing.assert_allclose(ratio[35:], 1 / 8, rtol=1e-14)
    assert np.all((ratio[29:35] > 1 / 8) & (ratio[29:35] < 1))


def test_code_llama_is_default_with_large_base() -> None:
    inv, att = rope_frequencies(128, 1e6, None)
    np.testing.assert_allclose(inv, ref_theta(128, 1e6), rtol=RTOL)
    assert att == 1.0
    inv2, att2 = rope_frequencies(128, 1e6, {"rope_type": "default"})
    np.testing.assert_array_equal(inv, inv2)
    assert att2 == 1.0


def test_qwen_yarn_config() -> None:
    inv, att = rope_frequencies(128, 1e6, QWEN_YARN)
    np.testing.assert_allclose(inv, ref_yarn(128, 1e6, 4.0, 32768), rtol=RTOL)
    assert math.isclose(att, 1.1386294361, rel_tol=1e-10)
    # hand computation: i(32) = 23.60 -> 23, i(1) = 39.65 -> 40
    assert yarn_correction_range(128, 1e6, 32768) == (23.0, 40.0)
    ratio = inv / inverse_frequencies(128, 1e6)
    assert np.all(ratio[:24] == 1.0)
    np.testing.assert_allclose(ratio[40:], 0.25, rtol=1e-14)


def test_deepseek_yarn_mscale() -> None:
    inv, att = rope_frequencies(64, 10000.0, DEEPSEEK_V3)
    assert att == 1.0
    np.testing.assert_allclose(inv, ref_yarn(64, 10000.0, 40.0, 4096), rtol=RTOL)
    # mscale 0.707 against mscale_all_dim 1.0: a ratio of two get_mscale values
    cfg = dict(DEEPSEEK_V3, mscale=0.707)
    _, att = rope_frequencies(64, 10000.0, cfg)
    want = (1 + 0.1 * 0.707 * math.log(40)) / (1 + 0.1 * math.log(40))
    assert math.isclose(att, want, rel_tol=1e-12)
    assert att < 1.0
    # DeepSeek-V2: both 0.707 -> 1.0
    _, att = rope_frequencies(64, 10000.0, dict(DEEPSEEK_V3, mscale=0.707, mscale_all_dim=0.707))
    assert math.isclose(att, 1.0, rel_tol=1e-15)
    # only one of them truthy (0 and None are falsy, as in HF) -> the plain 0.1 ln s + 1
    for cfg in (
        dict(DEEPSEEK_V3, mscale_all_dim=0),
        dict(DEEPSEEK_V3, mscale=None),
        dict(DEEPSEEK_V3, mscale=0.0),
        dict(DEEPSEEK_V3, mscale=0, mscale_all_dim=0.707),
    ):
        _, att = rope_frequencies(64, 10000.0, cfg)
        assert math.isclose(att, 0.1 * math.log(40) + 1, rel_tol=1e-12)
    # an explicit attention_factor wins
    _, att = rope_frequencies(64, 10000.0, dict(DEEPSEEK_V3, attention_factor=0.5))
    assert att == 0.5


def test_phi3_longrope_config() -> None:
    theta = ref_theta(96, 10000.0)
    short_want = [t / f for t, f in zip(theta, PHI3_SHORT, strict=True)]
    long_want = [t / f for t, f in zip(theta, PHI3_LONG, strict=True)]
    for seq_len in (None, 1, 4096):
        inv, att = rope_frequencies(96, 10000.0, PHI3_LONGROPE, seq_len=seq_len)
        np.testing.assert_allclose(inv, short_want, rtol=RTOL)
        # ln 32 / ln 4096 = 5/12
        assert math.isclose(att, math.sqrt(17 / 12), rel_tol=1e-12)
    for seq_len in (4097, 131072):
        inv, _ = rope_frequencies(96, 10000.0, PHI3_LONGROPE, seq_len=seq_len)
        np.testing.assert_allclose(inv, long_want, rtol=RTOL)


def test_longrope_factor_absent() -> None:
    """Decision: without factor the attention factor needs attention_factor, else an error."""
    cfg = {k: v for k, v in PHI3_LONGROPE.items() if k != "factor"}
    with pytest.raises(ValueError, match="factor"):
        rope_frequencies(96, 10000.0, cfg)
    inv, att = rope_frequencies(96, 10000.0, dict(cfg, attention_factor=1.19))
    assert att == 1.19
    np.testing.assert_allclose(inv, rope_frequencies(96, 10000.0, PHI3_LONGROPE)[0])
    # factor 1 -> attention 1 (no extension)
    assert rope_frequencies(96, 10000.0, dict(cfg, factor=1.0))[1] == 1.0


# --------------------------------------------------------------------------- defining properties

dims = st.integers(2, 128).map(lambda h: 2 * h)  # head_dim 4..256
bases = st.floats(10.0, 1e7)
factors = st.floats(1.0, 64.0)


@settings(max_examples=60, deadline=None)
@given(d=dims, base=bases, s=factors)
def test_ntk_keeps_fastest_and_scales_slowest_by_s(d: int, base: float, s: float) -> None:
    ratio = frequency_ratio(d, base, {"rope_type": "ntk", "factor": s})
    assert ratio[0] == 1.0
    assert math.isclose(ratio[-1], 1 / s, rel_tol=1e-11)
    assert np.all(np.diff(ratio) <= 1e-15)
    np.testing.assert_allclose(ntk_inv_freq(d, base, s), ref_ntk(d, base, s), rtol=RTOL)


@settings(max_examples=40, deadline=None)
@given(d=dims, base=bases, s=factors)
def test_linear_divides_all_by_s(d: int, base: float, s: float) -> None:
    inv, att = rope_frequencies(d, base, {"rope_type": "linear", "factor": s})
    np.testing.assert_allclose(inv, [t / s for t in ref_theta(d, base)], rtol=RTOL)
    assert att == 1.0


@settings(max_examples=60, deadline=None)
@given(
    d=dims,
    base=bases,
    s=factors,
    length=st.integers(16, 200_000),
    seq_len=st.integers(1, 2_000_000),
)
def test_dynamic_default_below_and_ntk_above(
    d: int, base: float, s: float, length: int, seq_len: int
) -> None:
    cfg = {"rope_type": "dynamic", "factor": s, "original_max_position_embeddings": length}
    inv, att = rope_frequencies(d, base, cfg, seq_len=seq_len)
    assert att == 1.0
    if seq_len <= length:
        np.testing.assert_allclose(inv, ref_theta(d, base), rtol=RTOL)
    else:
        effective = s * seq_len / length - (s - 1)
        np.testing.assert_allclose(inv, ref_ntk(d, base, effective), rtol=RTOL)
        ntk, _ = rope_frequencies(d, base, {"rope_type": "ntk", "factor": effective})
        np.testing.assert_allclose(inv, ntk, rtol=1e-12)


def test_dynamic_without_seq_len_is_default() -> None:
    cfg = {"type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4096}
    np.testing.assert_allclose(rope_frequencies(64, 1e4, cfg)[0], ref_theta(64, 1e4), rtol=RTOL)
    assert dynamic_ntk_factor(2.0, 4096, None) == 1.0
    assert dynamic_ntk_factor(2.0, 4096, 4096) == 1.0
    assert dynamic_ntk_factor(2.0, 4096, 3 * 4096) == 5.0


@settings(max_examples=80, deadline=None)
@given(
    d=st.integers(4, 128).map(lambda h: 2 * h),
    base=st.floats(100.0, 1e7),
    s=factors,
    length=st.integers(64, 1_000_000),
    beta=st.sampled_from([(32.0, 1.0), (16.0, 2.0), (64.0, 0.5)]),
    truncate=st.booleans(),
)
def test_yarn_bands(
    d: int, base: float, s: float, length: int, beta: tuple[float, float], truncate: bool
) -> None:
    beta_fast, beta_slow = beta
    low, high = yarn_correction_range(
        d, base, length, beta_fast=beta_fast, beta_slow=beta_slow, truncate=truncate
    )
    assume(low < high)  # the regular case (see test_yarn_degenerate_ranges)
    cfg = {
        "rope_type": "yarn",
        "factor": s,
        "original_max_position_embeddings": length,
        "beta_fast": beta_fast,
        "beta_slow": beta_slow,
        "truncate": truncate,
    }
    inv, att = rope_frequencies(d, base, cfg)
    theta = inverse_frequencies(d, base)
    rotations = length * theta / (2 * math.pi)
    ratio = inv / theta
    fast, slow = rotations > beta_fast, rotations < beta_slow
    np.testing.assert_allclose(ratio[fast], 1.0, rtol=1e-14)
    np.testing.assert_allclose(ratio[slow], 1 / s, rtol=1e-12)
    assert np.all((ratio >= 1 / s - 1e-12) & (ratio <= 1 + 1e-12))
    assert math.isclose(att, 0.1 * math.log(s) + 1, rel_tol=1e-12)
    want = ref_yarn(d, base, s, length, beta_fast, beta_slow, truncate)
    np.testing.assert_allclose(inv, want, rtol=RTOL)


def test_yarn_attention_factor_value() -> None:
    assert math.isclose(yarn_get_mscale(4.0), 1.1386294361, rel_tol=1e-10)
    yarn = {"rope_type": "yarn", "factor": 4.0, **_L(4096)}
    assert math.isclose(rope_frequencies(64, 1e4, yarn)[1], 1.1386294361, rel_tol=1e-10)
    assert yarn_get_mscale(1.0) == 1.0
    assert yarn_get_mscale(0.5) == 1.0
    assert math.isclose(yarn_get_mscale(40.0, 0.707), ref_mscale(40.0, 0.707), rel_tol=1e-14)


def test_yarn_truncate_false_keeps_fractional_range() -> None:
    low, high = yarn_correction_range(128, 10000.0, 4096, truncate=False)
    # the continuous pair index i(r) turns exactly r times over L: r = L base^(-2i/d) / (2 pi)
    for index, turns in ((low, 32.0), (high, 1.0)):
        assert math.isclose(4096 * 10000.0 ** (-2 * index / 128) / (2 * math.pi), turns)
    assert low != math.floor(low)
    a = rope_frequencies(128, 10000.0, {"rope_type": "yarn", "factor": 8.0, **_L(4096)})[0]
    cfg = {"rope_type": "yarn", "factor": 8.0, "truncate": False, **_L(4096)}
    b = rope_frequencies(128, 10000.0, cfg)[0]
    assert not np.allclose(a, b)
    np.testing.assert_allclose(b, ref_yarn(128, 10000.0, 8.0, 4096, truncate=False), rtol=RTOL)


def _L(length: int) -> dict[str, int]:
    return {"original_max_position_embeddings": length}


def test_yarn_ramp_and_degenerate_ranges() -> None:
    np.testing.assert_allclose(yarn_ramp(1.0, 3.0, 5), [0, 0, 0.5, 1, 1])
    # min == max: max is nudged by 0.001
    np.testing.assert_allclose(yarn_ramp(2.0, 2.0, 5), [0, 0, 0, 1, 1])
    np.testing.assert_allclose(yarn_ramp(2.995, 2.995, 5), [0, 0, 0, 1, 1])  # (3-2.995)/0.001 > 1
    np.testing.assert_allclose(yarn_ramp(2.9995, 2.9995, 5), [0, 0, 0, 0.5, 1])
    # tiny L (< 2 pi beta_slow): both ends clamp to 0, pair 0 kept, the rest divided
    assert yarn_correction_range(16, 10000.0, 6) == (0.0, 0.0)
    inv = rope_frequencies(16, 10000.0, {"rope_type": "yarn", "factor": 2.0, **_L(6)})[0]
    ratio = inv / inverse_frequencies(16, 10000.0)
    np.testing.assert_allclose(ratio, [1.0] + [0.5] * 7, rtol=1e-14)
    # the upper clamp is d - 1 (not d/2 - 1), as in every reference
    low, high = yarn_correction_range(16, 10.0, 10_000_000)
    assert high == 15.0 and low == 37.0  # floor(16 ln(1e7 / (64 pi)) / (2 ln 10)) = 37
    # ... so low > high, and the references then interpolate every pair, although every pair
    # turns more than beta_fast times: reproduced, not "fixed"
    inv = rope_frequencies(16, 10.0, {"rope_type": "yarn", "factor": 2.0, **_L(10_000_000)})[0]
    np.testing.assert_allclose(inv / inverse_frequencies(16, 10.0), 0.5, rtol=1e-14)


@settings(max_examples=60, deadline=None)
@given(
    d=dims,
    base=st.floats(1000.0, 1e7),
    s=factors,
    length=st.integers(256, 1_000_000),
    bands=st.sampled_from([(1.0, 4.0), (1.0, 2.0), (0.5, 8.0)]),
)
def test_llama3_bands(
    d: int, base: float, s: float, length: int, bands: tuple[float, float]
) -> None:
    low, high = bands
    inv = llama3_inv_freq(d, base, s, low, high, length)
    theta = inverse_frequencies(d, base)
    wavelength = 2 * math.pi / theta
    ratio = inv / theta
    kept, divided = wavelength < length / high, wavelength > length / low
    assert np.all(ratio[kept] == 1.0)
    np.testing.assert_allclose(ratio[divided], 1 / s, rtol=1e-14)
    middle = ~kept & ~divided
    assert np.all((ratio[middle] >= 1 / s - 1e-12) & (ratio[middle] <= 1 + 1e-12))
    # smooth: the ratio never increases with the pair index (no jump at the band edges)
    assert np.all(np.diff(ratio) <= 1e-12)
    np.testing.assert_allclose(inv, ref_llama3(d, base, s, low, high, length), rtol=RTOL)


def test_llama3_is_continuous_at_band_edges() -> None:
    # a wavelength exactly at L/high or L/low gives the same value from both sides
    length, s = 8192, 8.0
    for edge_factor in (1.0, 4.0):
        wavelength = length / edge_factor
        theta = 2 * math.pi / wavelength
        smooth = (length / wavelength - 1.0) / (4.0 - 1.0)
        blended = (1 - smooth) * theta / s + smooth * theta
        outside = theta if edge_factor == 4.0 else theta / s
        assert math.isclose(blended, outside, rel_tol=1e-14)


def test_longrope_helpers() -> None:
    config = {"rope_type": "longrope", "short_factor": [2.0, 4.0], "long_factor": [8.0, 16.0],
              "factor": 32.0, **_L(4096)}
    inv_short, attention = rope_frequencies(4, 100.0, config)
    np.testing.assert_allclose(inv_short, [0.5, 0.1 / 4])
    inv_long, _ = rope_frequencies(4, 100.0, config, seq_len=4097)
    np.testing.assert_allclose(inv_long, [1 / 8, 0.1 / 16])
    # a = sqrt(1 + ln 32 / ln 4096) = sqrt(1 + 5/12)
    assert math.isclose(attention, math.sqrt(17 / 12))
    assert rope_frequencies(4, 100.0, {**config, "factor": 1.0})[1] == 1.0


def test_helper_functions_agree_with_rope_frequencies() -> None:
    d, base = 64, 10000.0
    np.testing.assert_array_equal(
        linear_inv_freq(d, base, 4.0), rope_frequencies(d, base, {"type": "linear", "factor": 4})[0]
    )
    assert math.isclose(ntk_scaled_base(d, base, 4.0), base * 4.0 ** (64 / 62))
    np.testing.assert_array_equal(
        ntk_inv_freq(d, base, dynamic_ntk_factor(2.0, 1024, 4096)),
        rope_frequencies(d, base, {"type": "dynamic", "factor": 2, **_L(1024)}, seq_len=4096)[0],
    )
    np.testing.assert_array_equal(
        yarn_inv_freq(d, base, 8.0, 2048),
        rope_frequencies(d, base, {"type": "yarn", "factor": 8, **_L(2048)})[0],
    )


# --------------------------------------------------------------------------- analysis helpers


def test_rotations_wavelengths_and_ratio() -> None:
    theta = inverse_frequencies(8, 10000.0)
    np.testing.assert_allclose(wavelengths(theta), [2 * math.pi / t for t in theta])
    r = turns_in_context(theta, 4096)
    np.testing.assert_allclose(r, 4096 / wavelengths(theta))
    assert math.isclose(r[0], 4096 / (2 * math.pi))
    np.testing.assert_allclose(frequency_ratio(8, 10000.0, None), 1.0)
    np.testing.assert_allclose(frequency_ratio(8, 10000.0, {"type": "linear", "factor": 2}), 0.5)


_MINIMAL = {"factor": 4.0, "original_max_position_embeddings": 64, "low_freq_factor": 1.0,
            "high_freq_factor": 4.0, "short_factor": [1.0, 2.0, 3.0, 4.0],
            "long_factor": [2.0, 4.0, 6.0, 8.0]}


@pytest.mark.parametrize("method", SCALING_METHODS)
def test_every_scaling_method_stretches_the_context(method: str) -> None:
    """A context-extension method never makes a pair turn faster, and every one but "default"
    slows the slowest pair; each is a type of the one registry both entry points read."""
    assert method in ROPE_TYPES and resolve_rope_type({"type": method}) == method
    spec = ROPE_TYPES[method]
    rope_scaling = {"rope_type": method,
                    **{k: _MINIMAL[k] for k in spec.required + spec.optional if k in _MINIMAL}}
    inv_freq, _ = rope_frequencies(8, 10000.0, rope_scaling, seq_len=256)
    theta = inverse_frequencies(8, 10000.0)
    assert np.all(inv_freq <= theta * (1 + 1e-12))
    assert (inv_freq[-1] < theta[-1]) == (method != "default")


def test_angle_coverage() -> None:
    theta = inverse_frequencies(64, 10000.0)
    length = 2048
    np.testing.assert_allclose(max_trained_angle(theta, length), (length - 1) * theta)
    inside = unseen_angle_mask(np.arange(length), theta, theta, length)
    assert inside.shape == (length, 32)
    assert not inside.any()
    beyond = unseen_angle_mask(np.arange(length, 4 * length), theta, theta, length)
    assert beyond[:, -1].any()  # the slowest pair shows new angles
    assert not beyond[:, 0].any()  # the fastest pair already went round the circle
    # Position Interpolation by s keeps positions up to s (L - 1) inside the trained arc
    s = 4
    pi = unseen_angle_mask(np.arange(s * (length - 1) + 1), theta / s, theta, length)
    assert not pi.any()


# ------------------------------------------------------------------ config parsing, bad input


def test_rope_type_alias_and_extra_keys() -> None:
    assert resolve_rope_type({"type": "yarn"}) == "yarn"
    assert resolve_rope_type({"rope_type": "yarn", "type": "yarn"}) == "yarn"
    cfg = {"rope_type": "linear", "factor": 2.0, "finetuned": True, "something_else": [1, 2]}
    expected = inverse_frequencies(8, 100.0) / 2
    with pytest.warns(UserWarning, match=r"\['finetuned', 'something_else'\]; they are ignored"):
        np.testing.assert_allclose(rope_frequencies(8, 100.0, cfg)[0], expected)
    # None counts as absent for optional keys
    cfg_none = {**QWEN_YARN, "beta_fast": None, "beta_slow": None, "attention_factor": None}
    a, att_a = rope_frequencies(128, 1e6, cfg_none)
    b, att_b = rope_frequencies(128, 1e6, QWEN_YARN)
    np.testing.assert_array_equal(a, b)
    assert att_a == att_b
    # rope_theta inside the dict (transformers v5 style) must agree with base
    rope_frequencies(8, 1e6, {"rope_type": "default", "rope_theta": 1e6})


def test_zero_betas_mean_the_defaults_as_in_transformers() -> None:
    # transformers: beta_fast = get("beta_fast") or 32, beta_slow = get("beta_slow") or 1; the
    # config reader (posenc_lib.models) follows the same rule through the same validation
    yarn = {"rope_type": "yarn", "factor": 4.0, **_L(4096)}
    explicit = rope_frequencies(64, 1e4, {**yarn, "beta_fast": 32, "beta_slow": 1})[0]
    zeroed = rope_frequencies(64, 1e4, {**yarn, "beta_fast": 0, "beta_slow": 0.0})[0]
    np.testing.assert_array_equal(zeroed, explicit)
    other = rope_frequencies(64, 1e4, {**yarn, "beta_fast": 8, "beta_slow": 2})[0]
    assert not np.array_equal(other, explicit)  # the betas do move the ramp
    config = {"head_dim": 64, "rope_theta": 1e4, "max_position_embeddings": 16384,
              "rope_scaling": {**yarn, "beta_fast": 0}}
    np.testing.assert_array_equal(rope_frequencies_from_config(config)[0], explicit)


_YARN4 = {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 8}
_LLAMA8 = {"rope_type": "llama3", "factor": 8}
BAD_CONFIGS: list[tuple[object, type[Exception], str]] = [
    ({"rope_type": "su"}, ValueError, "rope_type"),
    ({"rope_type": "Linear", "factor": 2.0}, ValueError, "rope_type"),
    ({"factor": 2.0}, ValueError, "rope_type"),
    ({"rope_type": "linear", "type": "dynamic", "factor": 2.0}, ValueError, "type"),
    ([("rope_type", "linear")], TypeError, "rope_scaling"),
    ("linear", TypeError, "rope_scaling"),
    ({"rope_type": "linear"}, ValueError, "factor"),
    ({"rope_type": "ntk"}, ValueError, "factor"),
    ({"rope_type": "dynamic", **_L(4096)}, ValueError, "factor"),
    ({"rope_type": "yarn", **_L(4096)}, ValueError, "factor"),
    (
        {"rope_type": "llama3", "low_freq_factor": 1, "high_freq_factor": 4, **_L(8192)},
        ValueError,
        "factor",
    ),
    ({"rope_type": "dynamic", "factor": 2.0}, ValueError, "original_max_position_embeddings"),
    ({"rope_type": "yarn", "factor": 2.0}, ValueError, "original_max_position_embeddings"),
    (
        {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4},
        ValueError,
        "original_max_position_embeddings",
    ),
    (
        {"rope_type": "longrope", "short_factor": [1.0] * 4, "long_factor": [1.0] * 4},
        ValueError,
        "original_max_position_embeddings",
    ),
    ({**_LLAMA8, "high_freq_factor": 4, **_L(8192)}, ValueError, "low_freq_factor"),
    ({**_LLAMA8, "low_freq_factor": 1, **_L(8192)}, ValueError, "high_freq_factor"),
    (
        {"rope_type": "llama3", "factor": 8, "low_freq_factor": 5, "high_freq_factor": 4, **_L(8)},
        ValueError,
        "low_freq_factor",
    ),
    (
        {"rope_type": "llama3", "factor": 8, "low_freq_factor": 0, "high_freq_factor": 4, **_L(8)},
        ValueError,
        "low_freq_factor",
    ),
    ({"rope_type": "longrope", "long_factor": [1.0] * 4, **_L(8)}, ValueError, "short_factor"),
    ({"rope_type": "longrope", "short_factor": [1.0] * 4, **_L(8)}, ValueError, "long_factor"),
    ({"rope_type": "linear", "factor": 0.5}, ValueError, "factor"),
    ({"rope_type": "yarn", "factor": 0.99, **_L(8)}, ValueError, "factor"),
    ({"rope_type": "linear", "factor": float("nan")}, ValueError, "factor"),
    ({"rope_type": "linear", "factor": float("inf")}, ValueError, "factor"),
    ({"rope_type": "linear", "factor": True}, TypeError, "factor"),
    ({"rope_type": "linear", "factor": "2"}, TypeError, "factor"),
    ({"rope_type": "dynamic", "factor": 2, **_L(True)}, TypeError, "original_max"),
    (
        {"rope_type": "dynamic", "factor": 2, "original_max_position_embeddings": 4096.5},
        TypeError,
        "original_max",
    ),
    ({"rope_type": "dynamic", "factor": 2, **_L(0)}, ValueError, "original_max"),
    ({**_YARN4, "beta_fast": 1, "beta_slow": 1}, ValueError, "beta_fast"),
    ({**_YARN4, "beta_fast": 1, "beta_slow": 2}, ValueError, "beta_fast"),
    ({"rope_type": "yarn", "factor": 4, "beta_fast": 0.5, **_L(8)}, ValueError, "beta_fast"),
    ({**_YARN4, "beta_slow": float("nan")}, ValueError, "beta_slow"),
    ({"rope_type": "yarn", "factor": 4, "beta_fast": True, **_L(8)}, TypeError, "beta_fast"),
    ({"rope_type": "yarn", "factor": 4, "truncate": "yes", **_L(8)}, TypeError, "truncate"),
    ({"rope_type": "yarn", "factor": 4, "truncate": 1, **_L(8)}, TypeError, "truncate"),
    ({"rope_type": "yarn", "factor": 4, "attention_factor": 0.0, **_L(8)}, ValueError, "attention"),
    ({"rope_type": "yarn", "factor": 4, "attention_factor": True, **_L(8)}, TypeError, "attention"),
    ({"rope_type": "yarn", "factor": 4, "mscale": -1.0, **_L(8)}, ValueError, "mscale"),
    ({**_YARN4, "mscale_all_dim": float("inf")}, ValueError, "mscale_all_dim"),
    ({"rope_type": "default", "rope_theta": 500000.0}, ValueError, "rope_theta"),
]


@pytest.mark.parametrize("cfg,error,name", BAD_CONFIGS)
def test_rope_frequencies_bad_config(cfg: object, error: type[Exception], name: str) -> None:
    with pytest.raises(error, match=name):
        rope_frequencies(8, 10000.0, cfg)  # type: ignore[arg-type]


def _longrope(**changes: object) -> dict[str, object]:
    cfg: dict[str, object] = {
        "rope_type": "longrope",
        "short_factor": [1.0, 1.0, 1.0, 1.0],
        "long_factor": [1.0, 2.0, 3.0, 4.0],
        "factor": 4.0,
        **_L(64),
    }
    cfg.update(changes)
    return cfg


@pytest.mark.parametrize(
    "cfg,error,name",
    [
        (_longrope(short_factor=[1.0, 1.0, 1.0]), ValueError, "short_factor"),
        (_longrope(long_factor=[1.0] * 5), ValueError, "long_factor"),
        (_longrope(long_factor=[1.0, float("nan"), 1.0, 1.0]), ValueError, "long_factor"),
        (_longrope(short_factor=[1.0, float("inf"), 1.0, 1.0]), ValueError, "short_factor"),
        (_longrope(short_factor=[1.0, 0.0, 1.0, 1.0]), ValueError, "short_factor"),
        (_longrope(long_factor=[True, False, True, True]), TypeError, "long_factor"),
        (_longrope(long_factor="1234"), TypeError, "long_factor"),
        (_longrope(short_factor=[[1.0, 1.0], [1.0, 1.0]]), ValueError, "short_factor"),
        (_longrope(factor=0.5), ValueError, "factor"),
        (_longrope(factor=None), ValueError, "factor"),
        (_longrope(attention_factor=-1.0), ValueError, "attention_factor"),
    ],
)
def test_longrope_bad_config(cfg: dict[str, object], error: type[Exception], name: str) -> None:
    with pytest.raises(error, match=name):
        rope_frequencies(8, 10000.0, cfg)


@pytest.mark.parametrize(
    "kwargs,error,name",
    [
        ({"head_dim": 7}, ValueError, "head_dim"),
        ({"head_dim": 0}, ValueError, "head_dim"),
        ({"head_dim": 1}, ValueError, "head_dim"),
        ({"head_dim": 8.0}, TypeError, "head_dim"),
        ({"head_dim": True}, TypeError, "head_dim"),
        ({"base": 1.0}, ValueError, "base"),
        ({"base": 0.5}, ValueError, "base"),
        ({"base": -10.0}, ValueError, "base"),
        ({"base": float("nan")}, ValueError, "base"),
        ({"base": float("inf")}, ValueError, "base"),
        ({"base": True}, TypeError, "base"),
        ({"seq_len": 0}, ValueError, "seq_len"),
        ({"seq_len": -5}, ValueError, "seq_len"),
        ({"seq_len": 2.5}, TypeError, "seq_len"),
        ({"seq_len": True}, TypeError, "seq_len"),
    ],
)
def test_rope_frequencies_bad_arguments(
    kwargs: dict[str, object], error: type[Exception], name: str
) -> None:
    args: dict[str, object] = {"head_dim": 8, "base": 10000.0, "seq_len": None}
    args.update(kwargs)
    seq_len = args.pop("seq_len")
    for cfg in (None, {"rope_type": "linear", "factor": 2.0}):
        with pytest.raises(error, match=name):
            rope_frequencies(rope_scaling=cfg, seq_len=seq_len, **args)  # type: ignore[arg-type]


@pytest.mark.parametrize("rope_type", ["ntk", "dynamic"])
def test_ntk_needs_head_dim_at_least_4(rope_type: str) -> None:
    cfg = {"rope_type": rope_type, "factor": 2.0, **(_L(16) if rope_type == "dynamic" else {})}
    with pytest.raises(ValueError, match="head_dim"):
        rope_frequencies(2, 10000.0, cfg, seq_len=64)


def test_helper_bad_input() -> None:
    with pytest.raises(ValueError, match="factor"):
        linear_inv_freq(8, 100.0, 0.9)
    with pytest.raises(ValueError, match="beta_fast"):
        yarn_correction_range(8, 100.0, 64, beta_fast=1.0, beta_slow=1.0)
    with pytest.raises(TypeError, match="truncate"):
        yarn_correction_range(8, 100.0, 64, truncate=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="low"):
        yarn_ramp(float("nan"), 1.0, 4)
    with pytest.raises(ValueError, match="n"):
        yarn_ramp(0.0, 1.0, 0)
    with pytest.raises(ValueError, match="scale"):
        yarn_get_mscale(0.0)
    with pytest.raises(ValueError, match="low_freq_factor"):
        llama3_inv_freq(8, 100.0, 8.0, 4.0, 1.0, 64)
    with pytest.raises(ValueError, match="original_max_position_embeddings"):
        rope_frequencies(4, 100.0, {"rope_type": "longrope", "short_factor": [1, 1],
                                    "long_factor": [1, 1], "factor": 4.0, **_L(1)})
    with pytest.raises(ValueError, match="inv_freq"):
        turns_in_context([1.0, -1.0], 10)
    with pytest.raises(ValueError, match="length"):
        turns_in_context([1.0], 0)
    with pytest.raises(ValueError, match="trained_length"):
        max_trained_angle([1.0], 0)
    with pytest.raises(ValueError, match="trained_inv_freq"):
        unseen_angle_mask([0, 1], [1.0, 0.1], [1.0], 8)
    with pytest.raises(ValueError, match="positions"):
        unseen_angle_mask([-1, 1], [1.0], [1.0], 8)
    with pytest.raises(ValueError, match="seq_len"):
        dynamic_ntk_factor(2.0, 16, 0)


def test_integral_float_original_length_is_accepted_as_in_hf_configs() -> None:
    config = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
    as_float = dict(config, original_max_position_embeddings=32768.0)
    np.testing.assert_array_equal(
        rope_frequencies(128, 1e6, config)[0], rope_frequencies(128, 1e6, as_float)[0]
    )
    with pytest.raises(TypeError, match="original_max_position_embeddings"):
        rope_frequencies(128, 1e6, dict(config, original_max_position_embeddings=32768.5))


def test_partial_rotary_factor_is_not_silently_ignored() -> None:
    with pytest.raises(ValueError, match="partial_rotary_factor.*head_dim=int"):
        rope_frequencies(128, 1e4, {"rope_type": "default", "partial_rotary_factor": 0.5})
    inv, _ = rope_frequencies(128, 1e4, {"rope_type": "default", "partial_rotary_factor": 1.0})
    assert inv.shape == (64,)


def test_yarn_ramp_with_equal_bounds_is_a_step_even_for_huge_bounds() -> None:
    np.testing.assert_array_equal(yarn_ramp(2.0, 2.0, 5), [0.0, 0.0, 0.0, 1.0, 1.0])
    with np.errstate(all="raise"):
        ramp = yarn_ramp(1e300, 1e300, 4)
    np.testing.assert_array_equal(ramp, np.zeros(4))


def test_rope_wavelengths_refuses_frequencies_whose_wavelength_overflows() -> None:
    with pytest.raises(ValueError, match="inv_freq"):
        wavelengths([1.0, 2.2250738585072014e-308])


def test_llama3_with_equal_band_edges_is_a_step_as_in_llama_4_scout() -> None:
    # Llama 4 Scout: factor 16, low_freq_factor = high_freq_factor = 1, L = 8192
    inv, _ = rope_frequencies(128, 500000.0, {"rope_type": "llama3", "factor": 16.0,
                                              "low_freq_factor": 1.0, "high_freq_factor": 1.0,
                                              **_L(8192)})
    theta = np.array(ref_theta(128, 500000.0))
    wavelength = 2 * math.pi / theta
    # keep the pairs that turn within L, divide the others by 16
    np.testing.assert_allclose(inv, np.where(wavelength < 8192, theta, theta / 16), rtol=1e-14)
    assert np.isfinite(inv).all()

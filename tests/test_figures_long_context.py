"""The registered figures of notebooks 06-09: their data and their "what to look for" sentences.

Each figure's drawn data is compared with the formula written out here, in Python's math or
NumPy written another way (not the library function that drew it), and each sentence of
``look_for`` that states a fact is checked on the drawn data. Byte-identical rebuilds and the
committed files are checked for every registered figure by test_figures.py; the command line
by test_figures_cli.py.
"""

from __future__ import annotations

import math
import re

import matplotlib
import numpy as np
import pytest

from posenc_lib.figures import REGISTRY, build_figure, get_figure, main

matplotlib.use("Agg")


def lines(ax) -> dict[str, np.ndarray]:
    return {line.get_label(): np.asarray(line.get_ydata(), dtype=float)
            for line in ax.get_lines() if not line.get_label().startswith("_")}


def theta(d: int, base: float) -> np.ndarray:
    return np.array([base ** (-2 * i / d) for i in range(d // 2)])


# ----------------------------------------------------------------------------- notebook 06


def test_unseen_angles_marks_slow_pairs_past_l_only() -> None:
    ax = build_figure("unseen_angles").axes[0]
    unseen = np.asarray(ax.images[0].get_array()).astype(bool)
    d, base, L, s = 128, 10000.0, 4096, 8.0
    positions = np.rint(np.linspace(0, s * L - 1, 512)).astype(int)
    expected = np.zeros((64, 512), dtype=bool)  # (pair, position): as drawn, pairs on y
    for i, w in enumerate(theta(d, base)):
        arc = (L - 1) * w  # the largest angle pair i reached in training
        for k, m in enumerate(positions):
            expected[i, k] = arc < 2 * math.pi and math.fmod(m * w, 2 * math.pi) > arc
    drawn = unseen if unseen.shape == expected.shape else unseen.T
    np.testing.assert_array_equal(drawn, expected)
    # look for: starts at L, slow pairs only
    assert not drawn[:, positions < L].any()
    first_pair = int(np.flatnonzero(drawn.any(axis=1))[0])
    assert (L - 1) * theta(d, base)[first_pair] < 2 * math.pi
    assert drawn.any(axis=1)[first_pair:].all() or first_pair > 32


def test_unseen_by_method_titles_state_the_drawn_share() -> None:
    fig = build_figure("unseen_by_method")
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert len(shown) == len(get_figure("unseen_by_method").defaults["methods"])
    share = {}
    for ax in shown:
        method, percent = re.match(r"(\w+): ([\d.]+) % unseen", ax.get_title(loc="left")).groups()
        mask = np.asarray(ax.images[0].get_array()).astype(bool)
        assert float(percent) == pytest.approx(100 * mask.mean(), abs=0.05)
        share[method] = mask.mean()
    # look for: PI, YaRN and Llama 3 leave a sliver; NTK-aware and dynamic far more; default most
    assert max(share["linear"], share["yarn"], share["llama3"]) < 0.002
    assert min(share["ntk"], share["dynamic"]) > 10 * max(share["linear"], share["yarn"])
    assert share["default"] == max(share.values())


def test_yarn_code_and_paper_ramps() -> None:
    ax = build_figure("yarn_code_vs_paper").axes[0]
    drawn = lines(ax)
    d, base, L, s, fast, slow = 128, 10000.0, 4096, 8.0, 32.0, 1.0
    w = theta(d, base)
    turns = L * w / (2 * math.pi)
    kept = np.clip((turns - slow) / (fast - slow), 0, 1)  # the paper's Eq. 18, share kept
    np.testing.assert_allclose(drawn["YaRN, paper"], kept + (1 - kept) / s, rtol=1e-12)

    def index(r: float) -> float:  # pair index whose turn count is r
        return d * math.log(L / (2 * math.pi * r)) / (2 * math.log(base))

    low, high = math.floor(index(fast)), math.ceil(index(slow))
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)  # share interpolated
    np.testing.assert_allclose(drawn["YaRN, code"], (1 - ramp) + ramp / s, rtol=1e-12)
    # look for: same kept and divided pairs; in between the paper's ratio is below the code's
    code, paper = drawn["YaRN, code"], drawn["YaRN, paper"]
    assert np.array_equal(code == 1, np.isclose(paper, 1)) or np.array_equal(code >= 1, paper >= 1)
    assert np.array_equal(np.isclose(code, 1 / s), np.isclose(paper, 1 / s))
    between = ~np.isclose(code, 1) & ~np.isclose(code, 1 / s)
    below = paper[between] < code[between]
    assert between.sum() > 10 and below.mean() > 0.9 and below[-1]  # "over most of the ramp"


def test_llama3_bands_keep_blend_divide() -> None:
    ax = build_figure("llama3_bands").axes[0]
    (ratio,) = lines(ax).values()
    d, base, s, L = 128, 500000.0, 8.0, 8192
    lam = 2 * math.pi / theta(d, base)
    np.testing.assert_allclose(ax.get_lines()[0].get_xdata(), lam, rtol=1e-12)
    smooth = (L / lam - 1.0) / (4.0 - 1.0)
    expected = np.where(lam < L / 4, 1.0, np.where(lam > L, 1 / s, (1 - smooth) / s + smooth))
    np.testing.assert_allclose(ratio, expected, rtol=1e-12)
    blended = (lam >= L / 4) & (lam <= L)
    assert 0 < blended.sum() < 10  # "only the few pairs between the two dashed lines"


# ----------------------------------------------------------------------------- notebook 08


def test_float_spacing_gaps_and_where_integers_collide() -> None:
    ax = build_figure("float_spacing").axes[0]
    drawn = {line.get_label(): line for line in ax.get_lines()
             if not line.get_label().startswith("_")}
    x = np.asarray(drawn["float32"].get_xdata(), dtype=float)
    exponent = np.floor(np.log2(x))
    for name, fraction_bits in (("float16", 10), ("bfloat16", 7), ("float32", 23)):
        y = np.asarray(drawn[name].get_ydata(), dtype=float)
        expected = 2.0 ** (exponent - fraction_bits)
        fits = np.isfinite(y) & (y > 0)
        np.testing.assert_allclose(y[fits], expected[fits], rtol=1e-12)
        one = x[fits][np.argmax(y[fits] >= 1.0)] if np.any(y[fits] >= 1.0) else None
        two = x[fits][np.argmax(y[fits] >= 2.0)] if np.any(y[fits] >= 2.0) else None
        stated = {"float16": (1024.0, 2048.0), "bfloat16": (128.0, 256.0), "float32": (None, None)}
        # the sentence: gap 1 from 1024 / 128, gap 2 past 2048 / 256
        assert (one, two) == stated[name]
    assert x.max() < 2.0**24


def test_angle_precision_grows_like_the_position_and_saturates_near_2() -> None:
    angle_ax, sincos_ax = build_figure("angle_precision").axes[:2]
    x = np.asarray(angle_ax.get_lines()[0].get_xdata(), dtype=float)
    w64 = theta(32, 10000.0)
    expected = np.array([
        max(abs(float(np.float32(np.float32(m) * np.float32(wi))) - m * wi) for wi in w64)
        for m in x.astype(np.int64)
    ])  # m and theta_i rounded to float32, multiplied in float32, against the exact m theta_i
    drawn = lines(angle_ax)["float32"]
    np.testing.assert_allclose(drawn, expected, rtol=1e-9)
    big = x > 2**10
    slope = np.polyfit(np.log2(x[big]), np.log2(drawn[big]), 1)[0]
    assert slope == pytest.approx(1.0, abs=0.15)  # "in proportion to the position"
    sincos = lines(sincos_ax)
    top = np.nanmax(np.where(np.isfinite(sincos["bfloat16"]), sincos["bfloat16"], np.nan))
    assert 1.0 < top <= 2.0  # sin and cos differ by at most 2


# ----------------------------------------------------------------------------- notebook 07


def test_alibi_bias_matrix_is_minus_m_times_distance() -> None:
    fig = build_figure("alibi_bias_matrix")
    heads = [ax for ax in fig.axes if ax.images]
    for ax, head in zip(heads, (1, 8), strict=True):
        m = 2.0 ** (-8 * head / 8)  # m_h = 2^(-8h/H)
        drawn = np.ma.getdata(ax.images[0].get_array())
        mask = np.ma.getmaskarray(ax.images[0].get_array())
        for i in range(12):
            for j in range(12):
                if j <= i:
                    assert drawn[i, j] == pytest.approx(-m * (i - j), abs=1e-12)
                else:
                    assert mask[i, j] or not np.isfinite(drawn[i, j])
    titles = [ax.get_title(loc="left") or ax.get_title() for ax in heads]
    assert titles[0].endswith("1/2") and titles[1].endswith("1/256")


def t5_bucket(relative: int, bidirectional: bool, buckets: int = 32, distance: int = 128) -> int:
    """Mesh TensorFlow's bucket, written element by element."""
    bucket = 0
    if bidirectional:
        buckets //= 2
        bucket += buckets if relative > 0 else 0
        n = abs(relative)
    else:
        n = max(-relative, 0)
    exact = buckets // 2
    if n < exact:
        return bucket + n
    large = exact + int(math.log(n / exact) / math.log(distance / exact) * (buckets - exact))
    return bucket + min(large, buckets - 1)


def test_t5_buckets_and_where_the_last_one_starts() -> None:
    ax = build_figure("t5_buckets").axes[0]
    drawn = lines(ax)
    offsets = np.arange(-160, 161)
    for label, both in (("encoder (bidirectional)", True), ("decoder (causal)", False)):
        expected = [t5_bucket(int(k), both) for k in offsets]
        np.testing.assert_array_equal(drawn[label], expected)
    # look for: the last bucket of each side starts at 91 (encoder) and 113 (decoder)
    encoder, decoder = drawn["encoder (bidirectional)"], drawn["decoder (causal)"]
    assert offsets[np.argmax(encoder == 31)] == 91
    assert min(-k for k, b in zip(offsets, decoder, strict=True) if k < 0 and b == 31) == 113
    assert min(-k for k in offsets if k < 0 and t5_bucket(int(k), False) == 31) == 113


def test_t5_bias_matrix_reads_the_table_by_bucket() -> None:
    fig = build_figure("t5_bias_matrix")
    encoder, decoder = (ax for ax in fig.axes if ax.images)
    table = np.random.default_rng(0).normal(size=(32, 12))
    enc = np.ma.getdata(encoder.images[0].get_array())
    dec = np.ma.getdata(decoder.images[0].get_array())
    for i in range(40):
        for j in range(40):
            assert enc[i, j] == table[t5_bucket(j - i, True), 0]
            if j <= i:
                assert dec[i, j] == table[t5_bucket(j - i, False), 0]


# ----------------------------------------------------------------------------- notebook 09


def test_mrope_wavelengths_contiguous_sections() -> None:
    from posenc_lib.presets import PRESETS

    config = PRESETS["qwen3-vl-4b"]
    section = config["rope_scaling"]["mrope_section"]
    d = 2 * sum(section)
    lam = 2 * math.pi * np.array([config["rope_theta"] ** (2 * i / d) for i in range(d // 2)])
    contiguous, interleaved = build_figure("mrope_wavelengths").axes[:2]
    start = 0
    by_axis = {}
    for line, size in zip(contiguous.get_lines(), section, strict=False):
        x = np.asarray(line.get_xdata())
        np.testing.assert_array_equal(x, np.arange(start, start + size))
        np.testing.assert_allclose(line.get_ydata(), lam[start : start + size], rtol=1e-9)
        by_axis[line.get_label()] = lam[start : start + size]
        start += size
    # look for: time the fastest pairs, width the slowest; interleaved, each spans the range
    assert by_axis["t (time)"].max() < by_axis["h (height)"].min()
    assert by_axis["h (height)"].max() < by_axis["w (width)"].min()
    for line in interleaved.get_lines()[:3]:
        x = np.asarray(line.get_xdata()).astype(int)
        assert x.min() <= 2 and x.max() >= d // 2 - 6
        np.testing.assert_allclose(line.get_ydata(), lam[x], rtol=1e-9)


def test_model_pairs_titles_count_what_is_drawn() -> None:
    fig = build_figure("model_pairs", preset="gemma-3-27b", length=32768)
    panels = [ax for ax in fig.axes if ax.get_lines()]
    assert len(panels) == 2  # sliding and full attention
    for ax in panels:
        counted = dict((name, int(n)) for n, name in re.findall(
            r"(\d+) (rotated|under one turn|interpolated|not rotated)",
            ax.get_title(loc="left") or ax.get_title()))
        drawn = {line.get_label(): len(line.get_xdata()) for line in ax.get_lines()
                 if not line.get_label().startswith("_") and line.get_linestyle() == "None"}
        assert drawn == counted and sum(counted.values()) == 64
    sliding = panels[0]
    reference = [line for line in sliding.get_lines() if line.get_linestyle() == "--"]
    assert reference and reference[0].get_ydata()[0] == 1024  # Gemma 3's window, not L


# --------------------------------------------------------------------- rebuilt from the shell


def test_long_context_figure_rebuilds_with_a_parameter_from_the_command_line(tmp_path) -> None:
    assert main(["build", "llama3_bands", "--out", str(tmp_path), "--format", "png",
                 "--set", "factor=16"]) == 0
    default = tmp_path / "default"
    default.mkdir()
    assert main(["build", "llama3_bands", "--out", str(default), "--format", "png"]) == 0
    changed = (tmp_path / "llama3_bands.png").read_bytes()
    assert changed != (default / "llama3_bands.png").read_bytes()
    (ratio,) = lines(build_figure("llama3_bands", factor=16.0).axes[0]).values()
    assert ratio.min() == pytest.approx(1 / 16)


def test_bad_parameters_name_the_parameter() -> None:
    with pytest.raises(ValueError, match="preset"):
        build_figure("mrope_wavelengths", preset="llama-3.1-8b")
    with pytest.raises(ValueError, match="heads"):
        build_figure("alibi_bias_matrix", heads=(9,))
    with pytest.raises(ValueError, match="methods"):
        build_figure("unseen_by_method", methods=("pi",))
    assert all(REGISTRY[name].look_for for name in REGISTRY
               if REGISTRY[name].source.startswith("notebook"))

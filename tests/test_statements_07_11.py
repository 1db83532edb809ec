"""Statements of notebooks 01, 02, 07, 08 and 11 and of the figure defaults (issue 12).

Each test pins a corrected sentence or picture against an independent computation and, where the
notebook prints the number, against its stored output, so the wrong version cannot come back.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest

from posenc_lib.attention import causal_mask, self_attention
from posenc_lib.bias import t5_relative_position_bucket
from posenc_lib.figures import build_figure
from posenc_lib.plots import draw_encoding_heatmap, draw_values_by_dimension, new_figure
from posenc_lib.rope import apply_rope
from posenc_lib.scorecard import CRITERIA
from posenc_lib.sinusoidal import sinusoidal_encoding
from tests.statements_helpers import FRACTION_WORDS, stated
from tools.notebook_cells import NOTEBOOKS, ROOT, load, source

NB07 = ROOT / "notebooks" / "07_other_schemes.ipynb"
NB08 = ROOT / "notebooks" / "08_numerical_precision.ipynb"
NB11 = ROOT / "notebooks" / "11_figure_gallery.ipynb"


def outputs_text(cell: dict) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            text = out["text"]
        else:
            text = out.get("data", {}).get("text/plain", "")
        parts.append("".join(text) if isinstance(text, list) else text)
    return "".join(parts)


def all_markdown(path: Path) -> str:
    return "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")


def printed(path: Path, marker: str) -> str:
    """The stored output of the code cell whose source contains ``marker``."""
    cells = load(path)["cells"]
    (cell,) = [c for c in cells if c["cell_type"] == "code" and marker in source(c)]
    return outputs_text(cell)


# ---------------------------------------------------------------- notebook 11: the crossing


def code_minus_typeset(i: np.ndarray, t: float = 5.0, d: float = 300.0) -> np.ndarray:
    return np.sin(t * 10.0 ** (-4.0 * i / d)) - np.sin(np.exp(i / d * np.log(t * 1e-4)))


def test_the_two_readings_of_write_up_002_cross_near_21() -> None:
    # independent: sign changes on a fine grid, then linear interpolation between the samples
    grid = np.linspace(0.0, 298.0, 29801)
    gap = code_minus_typeset(grid)
    (at,) = np.flatnonzero(np.diff(np.sign(gap)) != 0)
    crossing = grid[at] - gap[at] * (grid[at + 1] - grid[at]) / (gap[at + 1] - gap[at])
    value = np.sin(5.0 * 10.0 ** (-4.0 * crossing / 300.0))
    shown = printed(NB11, "def code_minus_typeset")
    match = re.search(r"cross at i = ([\d.]+), where both equal ([\d.]+)", shown)
    assert match is not None
    assert float(match.group(1)) == pytest.approx(crossing, abs=0.01)
    assert float(match.group(2)) == pytest.approx(value, abs=0.001)
    text = " ".join(all_markdown(NB11).split())
    at, where = stated(r"they cross once near \$i \\approx ([\d.]+)\$ at about ([\d.]+)", text, str)
    assert (at, where) == (f"{crossing:.1f}", f"{value:.2f}")
    # over the sine columns (i even), the largest gap between the two readings
    columns = np.arange(0, 300, 2)
    gaps = np.abs(code_minus_typeset(columns))
    most, at_column = stated(r"they differ, by as much as ([\d.]+) \(at \$i = (\d+)\$\)", text, str)
    assert (most, int(at_column)) == (f"{gaps.max():.2f}", columns[gaps.argmax()])


def test_frequency_ratio_figure_is_notebook_06s_chart() -> None:
    fig = build_figure("frequency_ratio")
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert "dynamic (factor 1)" in labels
    shown = printed(NB11, "same curves as notebook 06")
    assert "same curves as notebook 06: True" in shown
    assert "'factor': 8.0" in shown and "'trained_length': 4096" in shown


# ---------------------------------------------------- notebook 11: the gallery (issue 22)


def test_notebook_11_shows_no_matplotlib_internal_names() -> None:
    shown = "".join(outputs_text(c) for c in load(NB11)["cells"] if c["cell_type"] == "code")
    assert "_child" not in shown


def test_half_of_the_pairs_have_a_division_term_above_a_hundredth() -> None:
    count = sum(1 for i in range(256) if 10000.0 ** (-2 * i / 512) > 0.01)  # i < d/4
    assert f"{count} of 256 pairs have a division term above 0.01" in printed(
        NB11, "theta > 0.01"
    )


def test_ntk_ratios_follow_from_the_new_base() -> None:
    from posenc_lib.exercises import nb11

    d, s = 128, 4.0
    new_base = 10000.0 * s ** (d / (d - 2))  # NTK-aware: the last pair slowed by exactly s
    ratios = [(new_base / 10000.0) ** (-2 * i / d) for i in (0, 32, 63)]  # 0.4945 at i = 32
    np.testing.assert_allclose(nb11.ntk_ratios._expected(), ratios, rtol=1e-12)
    assert nb11.ntk_ratios.check([1.0, 0.5, 0.25]).passed is False


def test_offset_distance_is_a_function_of_the_offset_alone() -> None:
    from posenc_lib.exercises import nb11

    def pe(t: int) -> list[float]:
        return [f(t / 100.0 ** (2 * (j // 2) / 32)) for j in range(32)
                for f in ((math.sin,) if j % 2 == 0 else (math.cos,))]

    for t in (0, 7):
        distances = [math.dist(pe(t), pe(t + k)) for k in range(50)]
        np.testing.assert_allclose(nb11.offset_distance._expected(), distances, atol=1e-12)


# ------------------------------------------------------- figure defaults against the seeds


def test_heatmap_002_follows_the_source_code() -> None:
    # write-up 002: plt.subplots(figsize=(10,10)); imshow(encoding.T, aspect=.3,
    # cmap='coolwarm', interpolation='none'); MultipleLocator(5) major, (1) minor on x
    fig = build_figure("heatmap_002")
    ax = fig.axes[0]
    image = ax.images[0]
    assert tuple(fig.get_size_inches()) == (10.0, 10.0)
    assert image.get_cmap().name == "coolwarm" and image.get_interpolation() == "none"
    assert ax.get_aspect() == pytest.approx(0.3)
    major = ax.xaxis.get_major_locator().tick_values(0, 20)
    minor = ax.xaxis.get_minor_locator().tick_values(0, 3)
    assert 0 in major and np.allclose(np.diff(major), 5.0)
    assert 0 in minor and np.allclose(np.diff(minor), 1.0)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Position", "Dimension")
    assert np.array_equal(image.get_array(), sinusoidal_encoding(100, 300).T)


def test_value_by_dimension_draws_sine_and_cosine_columns_apart() -> None:
    fig = build_figure("value_by_dimension")
    top, bottom = fig.axes[:2]
    pe = sinusoidal_encoding(5, 512)
    for ax, parity in ((top, 0), (bottom, 1)):
        lines = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
        assert len(lines) == 5
        for row, line in enumerate(lines):
            x = np.asarray(line.get_xdata())
            assert np.array_equal(x, np.arange(parity, 512, 2))
            assert np.array_equal(line.get_ydata(), pe[row, parity::2])


def test_values_by_dimension_rejects_an_unknown_column_choice() -> None:
    fig, ax = new_figure()
    with pytest.raises(ValueError, match="columns"):
        draw_values_by_dimension(ax, np.zeros((1, 4)), columns="odd")


# ------------------------------------------------------------- diverging colormap on zero


def assert_diverging_on_zero(image: matplotlib.image.AxesImage) -> None:
    low, high = image.get_clim()
    assert low == -high  # the middle of the colormap is 0
    cmap = image.get_cmap()
    middle, negative, positive = cmap(0.5), cmap(0.0), cmap(1.0)
    assert abs(middle[0] - middle[2]) < 0.05  # neutral (white or grey) at 0
    assert negative[2] > negative[0] + 0.2  # blue below 0
    assert positive[0] > positive[2] + 0.2  # red above 0


def test_encoding_heatmaps_use_a_diverging_colormap_centred_on_zero() -> None:
    fig, ax = new_figure()
    image = draw_encoding_heatmap(ax, sinusoidal_encoding(10, 16))
    assert image.get_clim() == (-1.0, 1.0)
    assert_diverging_on_zero(image)
    for name in ("heatmap_000", "heatmap_002"):
        assert_diverging_on_zero(build_figure(name).axes[0].images[0])
    # more columns (512) than pixels: the registered figure filters instead of aliasing
    assert build_figure("heatmap_000").axes[0].images[0].get_interpolation() == "antialiased"


# ------------------------------------------------------------------------- notebook 07


def test_identical_tokens_give_identical_causal_outputs() -> None:
    rng = np.random.default_rng(7)
    token = rng.normal(size=8)
    w_q, w_k, w_v = rng.normal(size=(3, 8, 8))
    out, _ = self_attention(np.tile(token, (6, 1)), w_q, w_k, w_v, mask=causal_mask(6))
    # by hand: every visible key has the same score, so each output is the value vector itself
    assert np.allclose(out, token @ w_v, atol=1e-12)
    shown = printed(NB07, "out_copies")
    assert ("no start token, causal: largest distance between the 7 copies' outputs below 1e-12: "
            "True") in shown


def test_kernel_table_and_t5_counts_two_stacks() -> None:
    table = printed(NB07, "past the trained length")
    header = re.split(r"\s{2,}", table.splitlines()[0].strip())
    assert header == ["scheme", "parameters", "FlashAttention 2", "FlexAttention",
                      "past the trained length"]
    rows = {line.split()[0]: re.split(r"\s{2,}", line.strip()) for line in table.splitlines()[1:8]}
    flash = {name: row[2].split(":")[0] for name, row in rows.items()}
    flex = {name: row[3].split(":")[0] for name, row in rows.items()}
    assert flash == {"none": "yes", "sinusoidal": "yes", "learned": "yes", "shaw": "no",
                     "t5": "no", "rope": "yes", "alibi": "yes"}
    assert flex == {**flash, "t5": "yes"}  # score_mod looks T5's bucket up in the kernel
    # independent: 12 heads x 2048^2 scores x 2 bytes
    assert f"{12 * 2048**2 * 2 / 1e6:.1f} MB per stack" in table
    shown = printed(NB07, "two stacks")
    assert re.search(r"two stacks\s*: 768\b", shown)  # 2 stacks x 32 buckets x 12 heads


def test_alibi_lines_have_a_legend() -> None:
    cells = load(NB07)["cells"]
    (cell,) = [c for c in cells if "alibi_weights_by_distance(8, 64)" in source(c)]
    assert "ax.legend(" in source(cell)
    assert any("image/png" in out.get("data", {}) for out in cell.get("outputs", []))


# ------------------------------------------------------------------------- notebook 08


def test_only_the_bound_of_the_relative_error_is_uniform() -> None:
    import ml_dtypes

    text = " ".join(all_markdown(NB08).split())
    halves = stated(r"Only the bound \$\\varepsilon/(\d+)\$ is uniform", text, int)
    # the formats' bit counts, against NumPy's and ml_dtypes' own description of each format
    formats = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32,
               "float64": np.float64}
    counts = stated(r"float16 has (\d+) exponent and (\d+) fraction bits, bfloat16 (\d+) and "
                    r"(\d+), float32 (\d+) and (\d+), float64 (\d+) and (\d+)\.", text, int)
    pairs = [counts[k:k + 2] for k in range(0, len(counts), 2)]
    for (exponent, fraction), dtype in zip(pairs, formats.values(), strict=True):
        info = ml_dtypes.finfo(dtype) if dtype is ml_dtypes.bfloat16 else np.finfo(dtype)
        assert (exponent, fraction) == (info.nexp, info.nmant), dtype
    x = 2.0 ** np.linspace(0, 10, 20001)
    relative = np.abs(x.astype(np.float16).astype(np.float64) - x) / x
    bound = 2.0 ** -counts[1] / halves  # eps/2 of float16, eps = 2^-fraction bits
    assert relative.max() <= bound  # the bound holds everywhere ...
    just_above_1, just_below_2 = relative[x < 1.01].max(), relative[(x > 1.98) & (x < 2)].max()
    assert just_above_1 > 1.8 * just_below_2  # ... but the error itself halves across a binade
    shown = printed(NB08, "half_gap = ")
    assert f"every error within eps/2: {bool(relative.max() <= bound)}" in shown
    assert f"eps/2 = {bound:.4e}" in shown


# ------------------------------------------------------------------ the scorecard column


def test_scorecard_column_says_what_it_checks() -> None:
    assert "sentence length" in CRITERIA["length-free"]
    tables = 0
    for path in NOTEBOOKS:
        for cell in load(path)["cells"]:
            text = outputs_text(cell)
            if "deterministic" in text and "relative" in text and "unique" in text:
                first = text.splitlines()[0]
                # a scorecard table heads its columns with the criteria; a legend names them
                if ":" in first:
                    names = [line.split(":")[0].strip() for line in text.splitlines()[:6]]
                else:
                    names = first.split()
                assert names == list(CRITERIA), path.name
                tables += 1
    assert tables >= 5


# ------------------------------------------------------------ notebook 07: issues 21 and 22


def test_t5_last_buckets_start_at_91_and_113() -> None:
    # independent: solve E + floor(ln(n/E) / ln(D/E) (B' - E)) = B' - 1 for the smallest integer n
    def first(exact: int, side: int, far: float = 128.0) -> int:
        n = exact * (far / exact) ** ((side - 1 - exact) / (side - exact))  # the real threshold
        return math.ceil(n)

    text = " ".join(all_markdown(NB07).split())
    encoder_at, encoder = stated(r"that is \$n \\ge D/\\sqrt 2 \\approx ([\d.]+)\$: the last "
                                 r"bucket starts at (\d+), well below \$D\$", text, str)
    decoder_at, decoder = stated(r"The decoder's reaches 31 at \$n \\ge 16\\cdot 8\^\{15/16\} "
                                 r"\\approx ([\d.]+)\$, so at (\d+)\.", text, str)
    assert (encoder_at, int(encoder)) == (f"{128 / math.sqrt(2):.1f}", first(8, 16))
    assert (decoder_at, int(decoder)) == (f"{16 * 8 ** (15 / 16):.1f}", first(16, 32))
    assert t5_relative_position_bucket(-91) == 15 and t5_relative_position_bucket(-90) == 14
    assert t5_relative_position_bucket(-113, bidirectional=False) == 31
    assert t5_relative_position_bucket(-112, bidirectional=False) == 30
    shown = printed(NB07, "decoder_past")
    assert (f"D / sqrt 2 = {128 / math.sqrt(2):.2f}; the decoder's bucket 31 starts at "
            f"{first(16, 32)}") in shown
    assert f"encoder's bucket 15 starts at: {first(8, 16)}" in shown


def test_rope_does_not_extend_per_dimension() -> None:
    """Scorecard: RoPE and sinusoidal fail the per-dimension test, ALiBi passes (07 vs 06)."""
    # independent: the slowest sinusoid of d = 16 reaches angles at 2L..3L it never had below L
    theta_slow = 10000.0 ** (-14 / 16)
    seen = np.sin(np.arange(64) * theta_slow)
    unseen = np.sin(np.arange(128, 192) * theta_slow)
    beyond = unseen.max() > seen.max() + 0.01 * 2  # beyond the 1% slack of the [-1, 1] span
    shown = printed(NB07, "scorecard(SCHEMES + BIAS_SCHEMES, per_dimension=True)")
    rows = {line.split()[0]: line.split()[1:] for line in shown.splitlines()[1:]}
    extends = list(CRITERIA).index("extends")
    assert rows["rope"][extends] == rows["sinusoidal"][extends] == ("no" if beyond else "yes")
    assert rows["alibi"][extends] == "yes"
    from posenc_lib.scorecard import scorecard

    assert scorecard(["sinusoidal"]).results["sinusoidal"]["extends"]  # notebook 03's reading


def test_07_predictions_are_computed() -> None:
    assert "nothing for position 600: {'learned'}" in printed(NB07, "compare(no_row_guess")
    # ALiBi's flattest of 8 heads has slope 2^-8; exp(-m n) halves at n = ln 2 / m
    halves = f"{math.log(2) * 2**8:.1f}"
    shown = printed(NB07, "compare(halving_guess")
    assert f"flattest head halves after (tokens): {halves}" in shown
    shown = printed(NB07, "compare(copies_differ_guess")
    assert "no start token: the outputs differ: False" in shown


# ------------------------------------------------------------ notebook 08: issues 21 and 22


def _float32_angle_error(positions: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """|fl32(fl32(m) fl32(theta)) - m theta| in plain NumPy float32, worst pair per position."""
    approx = positions.astype(np.float32)[:, None] * theta.astype(np.float32)[None, :]
    return np.abs(approx.astype(np.float64) - np.multiply.outer(positions, theta)).max(axis=1)


def test_float32_angles_at_llama_4_scouts_context() -> None:
    # Llama 4 Scout: head_dim 128, base 5e5, llama3 with low = high = 1, factor 16, L = 8192:
    # pairs whose wavelength exceeds 8192 are divided by 16 (meta-llama model card config)
    theta = 500000.0 ** (-np.arange(0, 128, 2) / 128)
    theta = np.where(2 * np.pi / theta > 8192, theta / 16, theta)
    near_2_20 = _float32_angle_error(np.arange(2**20 - 4096, 2**20), theta).max()
    near_1e7 = _float32_angle_error(np.arange(10**7 - 4096, 10**7), theta).max()
    shown = printed(NB08, "scout_error = angle_error(")
    assert f"below 10,000,000: worst error {near_1e7:.3f} rad" in shown
    assert f"below  1,048,576: worst error {near_2_20:.3f} rad" in shown


def test_float32_angles_depart_from_bfloat16s_gap_near_2_to_the_17() -> None:
    # every integer position: recipe 3 (float32 angles, one cast of sin to bfloat16) against the
    # float64 truth, and the first position where it errs by more than 2^-8
    import ml_dtypes

    theta = 10000.0 ** (-np.arange(0, 32, 2) / 32)
    positions = np.arange(1, 2**18)
    approx = positions.astype(np.float32)[:, None] * theta.astype(np.float32)[None, :]
    table = np.sin(approx.astype(np.float64)).astype(ml_dtypes.bfloat16).astype(np.float64)
    error = np.abs(table - np.sin(np.multiply.outer(positions, theta))).max(axis=1)
    departs = int(positions[np.argmax(error > 2.0**-8)])
    shown = printed(NB08, "compare(recipe3_guess")
    assert f"recipe 3 departs from 2^-8 at position: {departs}" in shown
    text = " ".join(all_markdown(NB08).split())
    low, high = stated(r"Recipe 3, production's, leaves it at the position printed above, between "
                       r"\$2\^\{(\d+)\}\$ and \$2\^\{(\d+)\}\$", text, int)
    assert high == low + 1 and 2**low < departs < 2**high  # not "fine until 2^20"


def test_08_predictions_and_the_kv_cache_statements() -> None:
    shown = printed(NB08, "compare(first_lost_guess")
    assert f"first integer bfloat16 cannot hold: {2**8 + 1}" in shown  # 8 significant bits
    ratio = printed(NB08, "compare(fp8_ratio_guess")
    assert "e5m2's mean logit error / e4m3's: 1.99" in ratio  # one fraction bit fewer: twice
    text = " ".join(all_markdown(NB08).split())
    # FlashMLA's FP8 entry (deepseek-ai/FlashMLA README): the latent in e4m3 (1 byte), one
    # float32 scale (4 bytes) per tile, the RoPE part in bfloat16 (2 bytes)
    latent, rope = stated(r"caches per token a (\d+)-number latent and one (\d+)-dim rotated key",
                          text, int)
    tile = stated(r"one power-of-two scale per (\d+) numbers", text, int)
    layouts = printed(NB08, "layouts = {")
    assert f"{latent * 1 + latent // tile * 4 + rope * 2} bytes per token" in layouts
    assert f"{(latent + rope) * 2} bytes per token" in layouts  # all of it in bfloat16
    wander = printed(NB08, "wander = {}")
    times = int(re.search(r"wander (\d+) times more", wander).group(1))
    assert times >= 4  # an 8-bit RoPE part makes the offset score wander far more


# ------------------------------------------------------------ notebook 09: issues 21 and 22

NB09 = ROOT / "notebooks" / "09_rope_in_todays_models.ipynb"


def test_the_slowest_smollm3_pair_covers_a_quarter_of_a_percent() -> None:
    # lambda_63 = 2 pi 5e6^(126/128); turns in 65,536 tokens = 65,536 / lambda_63
    turns = 65536 / (2 * math.pi * 5e6 ** (126 / 128))
    text = " ".join(all_markdown(NB09).split())
    share, shown = stated(r"the slowest pair covers about a (\w+) of a percent of a turn in 65 536 "
                          r"tokens \(the ([\d.]+) above\)", text, str)
    assert shown == f"{turns:.4f}"
    assert FRACTION_WORDS[share] == pytest.approx(100 * turns, abs=0.05)  # 0.27 %, not a third
    assert f"the slowest makes {turns:.4f}" in printed(NB09, "compare(smollm3_slow_guess")


def test_partial_rotary_is_credited_to_gpt_j_first() -> None:
    # GPT-J-6B's published config: n_embd 4096, n_head 16, rotary_dim 64
    text = " ".join(all_markdown(NB09).split())
    rotary, head = stated(r"\*\*Partial rotary\*\* \(GPT-J 2021: `rotary_dim` (\d+) of a (\d+)-dim "
                          r"head", text, int)
    assert (rotary, head) == (64, 4096 // 16)
    pct = stated(r"then GPT-NeoX and Pythia's `rotary_pct = ([\d.]+)`", text)
    assert pct == rotary / head  # the same quarter, credited to GPT-J first


def test_streaming_llm_reindexing_invalidates_keys_rotated_at_their_old_positions() -> None:
    """09: StreamingLLM keeps the first few tokens and gives every cached token its position
    inside the cache, so it must cache keys before RoPE: after an eviction the sinks' offsets to
    the query shrink, and keys rotated at their old positions give other scores (the window's
    tokens, all shifted alike, keep theirs)."""
    sinks = stated(r"keeps the first (\d+) tokens beside the window", " ".join(
        all_markdown(NB09).split()), int)
    rng = np.random.default_rng(0)
    query, keys = rng.normal(size=(1, 64)), rng.normal(size=(sinks + 100, 64))
    theta = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    before = np.r_[np.arange(sinks), np.arange(500, 600)]  # sinks, then the window, then 600
    inside = np.arange(sinks + 100)  # their positions inside the cache after the eviction

    def scores(positions: np.ndarray, at: int) -> np.ndarray:
        return (apply_rope(query, [at], theta) @ apply_rope(keys, positions, theta).T)[0]

    cached_rotated, reindexed = scores(before, 600), scores(inside, sinks + 100)
    np.testing.assert_allclose(cached_rotated[sinks:], reindexed[sinks:], atol=1e-9)
    assert np.abs(cached_rotated[:sinks] - reindexed[:sinks]).min() > 1e-3


def test_09_predictions_are_computed() -> None:
    # SmolLM3: pairs with 65,536 / (2 pi 5e6^(2i/128)) < 1
    slow = sum(65536 / (2 * math.pi * 5e6 ** (2 * i / 128)) < 1 for i in range(64))
    assert f"SmolLM3: pairs below one turn in 65,536 tokens: {slow}" in printed(
        NB09, "compare(smollm3_slow_guess")
    # Gemma 3 global: theta_i = 1e6^(-2i/128) / 8 turns at least once in 1024 tokens
    turning = sum(1024 * 1e6 ** (-2 * i / 128) / 8 >= 2 * math.pi for i in range(64))
    assert f"global layers: pairs turning within 1024 tokens: {turning}" in printed(
        NB09, "compare(global_turning_guess")
    # DeepSeek-V3's config: kv_lora_rank 512 + qk_rope_head_dim 64
    assert "numbers cached per token and layer: 576" in printed(NB09, "compare(mla_cache_guess")
    assert "mean relative error of the stale keys: 1.2" in printed(NB09, "compare(stale_key_guess")

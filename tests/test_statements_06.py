"""Numbers and claims of notebook 06's prose, checked against independent computations.

Issue 12 found statements in notebook 06 that no code checked. Each test here recomputes what
the markdown says with plain NumPy, from the formulas of the papers (not from the function under
test), or reads the stored output that prints it, so that a wrong sentence cannot come back.
Only the cells before "## Exercises" are read: the exercises are tested elsewhere.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from posenc_lib.analysis import extension_positions, method_frequencies
from posenc_lib.scaling import SCALING_METHODS, dynamic_ntk_factor, rope_frequencies
from tests.statements_helpers import NUMBER_WORDS, stated
from tools.notebook_cells import ROOT, load, source

NB06 = ROOT / "notebooks" / "06_context_extension.ipynb"
D, BASE, L, S = 128, 10000.0, 4096, 8.0  # the running example: Llama 2 7B stretched 8 times


def lesson_cells() -> list[dict]:
    cells = load(NB06)["cells"]
    end = next(k for k, c in enumerate(cells) if source(c).startswith("## Exercises"))
    return cells[:end]


def markdown() -> str:
    text = "\n".join(source(c) for c in lesson_cells() if c["cell_type"] == "markdown")
    return " ".join(text.split())


def output_of(cell_id: str) -> str:
    cell = next(c for c in lesson_cells() if c.get("id") == cell_id)
    texts = [o.get("text", "") or o.get("data", {}).get("text/plain", "")
             for o in cell.get("outputs", [])]  # prints and a reveal's shown value
    return "".join("".join(t) if isinstance(t, list) else t for t in texts)


def theta(d: int = D, base: float = BASE) -> np.ndarray:
    return base ** (-np.arange(0, d, 2) / d)


def turns(d: int = D, base: float = BASE, length: int = L) -> np.ndarray:
    # r_i = L theta_i / (2 pi)
    return length * theta(d, base) / (2 * math.pi)


# --------------------------------------------------------------------------- the problem


def test_slow_and_fast_pair_counts() -> None:
    r = turns()
    out = output_of("5c6c4005")
    slow = f"{np.sum(r < 1)}, from pair {np.argmax(r < 1)} on"
    assert f"r < 1 (not one full turn in L): {slow}" in out
    assert f"pairs with r >= 32 (many turns in L):      {np.sum(r >= 32)}" in out


def test_the_grid_has_the_positions_the_prose_states_and_ends_at_the_last_one() -> None:
    count = stated(r"at (\d+) evenly spaced positions", markdown(), int)
    grid = extension_positions(L, S)  # the library's default grid, the one the cell uses
    assert grid.size == count and grid[0] == 0 and grid[-1] == int(S * L) - 1
    assert np.all(np.diff(grid) > 0) and np.ptp(np.diff(grid)) <= 1  # evenly spaced, integers


def test_pi_turns_pair_0_one_radian_then_one_over_s() -> None:
    back = stated(r"a key \$5/s = ([\d.]+)\$ positions back sat in training", markdown())
    inv_freq, _ = rope_frequencies(D, BASE, {"rope_type": "linear", "factor": S})
    assert back == 5 * theta()[0] / S == pytest.approx(5 * inv_freq[0])  # pair 0 turns 1 rad
    assert f"angle to the key 5 back after PI (rad): {back}" in output_of("7fec72b4")


# --------------------------------------------------------------------------- the methods


def test_ntk_base_divides_the_slowest_pair_by_exactly_s() -> None:
    # the formula as the page writes it, spacing aside; its exponent is evaluated at d = D
    exponent = stated(r"\\text\{base\}'\s*=\s*\\text\{base\}\s*\\cdot\s*s\^\{([d()+\-/*\d ]+)\}",
                      markdown(), str)
    new = BASE * S ** eval(exponent, {"__builtins__": {}}, {"d": D})
    scaled = new ** (-np.arange(0, D, 2) / D)
    ntk, _ = method_frequencies("ntk", D, BASE, S, L)
    np.testing.assert_allclose(ntk, scaled, rtol=1e-12)
    assert ntk[0] == theta()[0] and ntk[-1] == pytest.approx(theta()[-1] / S, rel=1e-12)


@pytest.mark.parametrize("s", [2.0, 4.0, 8.0, 16.0, 32.0])
def test_dynamic_with_factor_s_reaches_s_squared_minus_s_plus_1(s: float) -> None:
    # independent: NTK-aware with scale s_eff slows the slowest pair by exactly s_eff,
    # and s_eff = s^2 - s + 1 at l = sL when the config sets factor = s
    expected = s * s - s + 1
    inv_freq, _ = rope_frequencies(D, BASE, {"rope_type": "dynamic", "factor": s,
                                             "original_max_position_embeddings": L},
                                   seq_len=int(s * L))
    assert theta()[-1] / inv_freq[-1] == pytest.approx(expected, rel=1e-12)
    assert dynamic_ntk_factor(s, L, int(s * L)) == pytest.approx(expected, rel=1e-12)
    # with factor 1 the scale at sL is s
    assert dynamic_ntk_factor(1.0, L, int(s * L)) == pytest.approx(s, rel=1e-12)


def test_dynamic_conventions_are_stated_and_printed() -> None:
    text = markdown()
    s, slowed, not_s = stated(r"so with \$s = (\d+)\$ the slowest pair is slowed (\d+) times, "
                              r"not (\d+)", text, int)
    assert s == not_s == S and slowed == s * s - (s - 1)  # s_eff = factor * l / L - (factor - 1)
    out = output_of("3bb514ee")
    assert "factor = 1 (scale follows length)" in out and f"at L' = sL: {s}\n" in out
    assert f"factor = s = {s} " in out and f"at L' = sL: {slowed}\n" in out
    from posenc_lib.presets import PRESETS

    dynamic = [name for name, c in PRESETS.items()
               if "dynamic" in ((c.get("rope_scaling") or {}).get("rope_type"),
                                (c.get("rope_scaling") or {}).get("type"))]
    assert f"presets using dynamic: {len(dynamic)} of {len(PRESETS)}" in out
    said = stated(r"(\w+) of the configs shipped in `posenc_lib.presets` uses dynamic", text, str)
    assert {"none": 0, "one": 1, **NUMBER_WORDS}[said] == len(dynamic)


def test_yarn_ramp_runs_from_pair_20_to_46() -> None:
    # i(r) = d ln(L / (2 pi r)) / (2 ln base), rounded outward
    def index(r: float) -> float:
        return D * math.log(L / (2 * math.pi * r)) / (2 * math.log(BASE))

    low, high = stated(r"YaRN's code over pairs (\d+) to (\d+) \(by index\)", markdown(), int)
    assert (low, high) == (math.floor(index(32)), math.ceil(index(1)))


def test_yarn_ramps_pairs_that_have_seen_every_angle() -> None:
    text = markdown()
    beta = stated(r"\$r_i > \\beta\$ \(`beta_fast`, (\d+)\)", text)  # as the YaRN section states
    alpha = stated(r"\$r_i < \\alpha\$ \(`beta_slow`, (\d+)\)", text)
    yarn, _ = method_frequencies("yarn", D, BASE, S, L)
    np.testing.assert_allclose(yarn[turns() > beta], theta()[turns() > beta], rtol=1e-12)  # kept
    np.testing.assert_allclose(yarn[turns() < alpha], theta()[turns() < alpha] / S, rtol=1e-12)
    middle = (turns() >= alpha) & (turns() <= beta)
    assert middle.any()
    assert np.all((L - 1) * theta()[middle] >= 2 * math.pi)  # every angle seen in training
    assert np.all(yarn[middle] < theta()[middle])  # yet interpolated, at least partly


@pytest.mark.parametrize("s", [4.0, 8.0, 16.0, 32.0])
def test_yarn_temperature(s: float) -> None:
    slope, offset = stated(r"\\sqrt\{1/t\} = ([\d.]+) \\ln s \+ ([\d.]+)\$", markdown())
    _, attention = rope_frequencies(D, BASE, {"rope_type": "yarn", "factor": s,
                                              "original_max_position_embeddings": L})
    assert attention == pytest.approx(slope * math.log(s) + offset, rel=1e-12)


def paper_bands(sentence: str) -> tuple[float, float]:
    """The alpha and beta a sentence of 06 gives Llama 3's rule, read from the prose."""
    return stated(rf"{sentence} \$\\alpha = (\d+)\$, \$\\beta = (\d+)\$", markdown())


def test_llama3_bands_in_turns() -> None:
    alpha, beta = paper_bands(r"this is \$\\gamma\(r\)\$ with")
    r = turns(D, 500000.0, 8192)
    config = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
              "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
    ratio = rope_frequencies(D, 500000.0, config)[0] / theta(D, 500000.0)
    np.testing.assert_allclose(ratio[r > beta], 1.0)
    np.testing.assert_allclose(ratio[r < alpha], 1 / 8)
    blend = (r >= alpha) & (r <= beta)
    assert f"Llama 3.1 pairs in the blend: {np.sum(blend)}" in output_of("afc0b0ea")
    assert np.all((ratio[blend] > 1 / 8 - 1e-12) & (ratio[blend] < 1 + 1e-12))


def test_longrope_attention_factor() -> None:
    # Phi-3.5-mini: L = 4096 stretched to 131072, s = 32
    factor = f"{math.sqrt(1 + math.log(131072 / 4096) / math.log(4096)):.4f}"
    assert f"attention factor {factor} = sqrt(1 + ln s / ln L): {factor}" in output_of("8347a89c")


def test_dynamic_with_factor_1_lies_on_ntk_at_the_target_length() -> None:
    dynamic, _ = method_frequencies("dynamic", D, BASE, S, L)
    ntk = (BASE * S ** (D / (D - 2))) ** (-np.arange(0, D, 2) / D)
    np.testing.assert_allclose(dynamic, ntk, rtol=1e-12)


def test_pi_overshoots_by_a_fraction_of_a_step() -> None:
    # under PI the slowest pair at L' - 1 = sL - 1 lies past the last trained angle, by less than
    # one step of that pair
    linear, _ = method_frequencies("linear", D, BASE, S, L)
    last = (S * L - 1) * linear[-1]
    assert (L - 1) * theta()[-1] < last < L * theta()[-1]


# --------------------------------------------------------------------------- local resolution


def test_resolution_numbers_of_the_prose() -> None:
    text = markdown()
    out = output_of("b9d4f7a0")
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    # independent: radians per step on a pair is theta'_i here (all theta'_i <= pi)
    fast = turns() >= 32
    assert f"keeps $1/s = {1 / S}$ of the resolution" in text
    assert rows["linear"][1:5] == [f"{1 / S:.3f}", "rad", f"{1 / S:.3f}", f"{1 / S:.3f}"]
    kept, unseen = stated(r"keep all of it \((1\.\d+)\) with the same ([\d.]+) % unseen", text, str)
    assert rows["yarn"][3:5] == rows["llama3"][3:5] == [kept, kept] and kept == "1.000"
    assert rows["yarn"][5] == rows["llama3"][5] == rows["linear"][5] == f"{unseen}%"
    slowest_fast = np.flatnonzero(fast)[-1]
    ntk_kept = S ** (-2 * slowest_fast / (D - 2))  # theta'_i / theta_i = s^(-2i/(d-2))
    assert f"**ntk** and **dynamic** keep {ntk_kept:.3f}" in text
    assert rows["ntk"][4] == rows["dynamic"][4] == f"{ntk_kept:.3f}"
    for method, percent in (("linear", "0.05"), ("ntk", "5.61"), ("default", "17.68")):
        assert rows[method][5] == f"{percent}%"
    assert stated(r"and leave ([\d.]+) % unseen", text, str) + "%" == rows["ntk"][5]
    assert rows["default"][4] == "1.000"


# --------------------------------------------------------------------------- explorer and table


def stored_unseen_table() -> dict[str, tuple[str, int]]:
    rows = {}
    for line in output_of("496e72a2").splitlines()[1:]:
        parts = line.split()
        if parts and parts[0] in SCALING_METHODS:
            rows[parts[0]] = (parts[1], int(parts[2]))
    return rows


def test_explorer_numbers_equal_the_notebook_table() -> None:
    from posenc_lib.widgets.scaling import ScalingExplorer

    table = stored_unseen_table()
    derived = [m for m in SCALING_METHODS if m != "longrope"]  # LongRoPE: real lists, elsewhere
    assert set(table) == set(derived)
    assert table["ntk"] == ("5.61%", 18)
    explorer = ScalingExplorer(method="default", factor=S, base=BASE)
    for method in derived:
        explorer.controls["method"].value = method
        shown = (f"{explorer.unseen_percent:.2f}%", explorer.pairs_hit)
        assert shown == table[method], method
        assert f"unseen {table[method][0][:-1]} % of cells" in explorer.title.get_text()


# --------------------------------------------------------------------------- real configs


def test_qwen_caveat_is_on_the_page() -> None:
    out = output_of("a8e61d27")
    assert "factor 4: min ratio 0.2500, attention factor 1.1386, unscaled: False" in out
    assert "factor 1: min ratio 1.0000, attention factor 1.0000, unscaled: True" in out
    # independent: YaRN with factor 32768 / 32768 = 1 is plain RoPE
    config = {"type": "yarn", "factor": 32768 / 32768, "original_max_position_embeddings": 32768}
    inv_freq, attention = rope_frequencies(128, 1e6, config)
    np.testing.assert_allclose(inv_freq, theta(128, 1e6), rtol=1e-12)
    assert attention == 1.0
    # the attention factor the page prints for factor 4 is YaRN's 0.1 ln s + 1
    printed = float(re.search(r"factor 4: .*attention factor ([\d.]+)", out).group(1))
    assert printed == pytest.approx(0.1 * math.log(4) + 1, abs=5e-5)


def test_phi2_partial_rotary_has_16_pairs() -> None:
    # phi-2's published config: hidden_size 2560, 32 heads, partial_rotary_factor 0.4
    head = 2560 // 32
    rotary = int(0.4 * head)
    text = " ".join(markdown().split())
    claim = re.search(r"0\.4 of each (\d+)-dimensional head rotates, so it has (\d+) pairs", text)
    assert claim and (int(claim.group(1)), int(claim.group(2))) == (head, rotary // 2)
    printed = re.search(r"rotary dims\s+(\d+)", output_of("cb678fc8"))
    assert printed and int(printed.group(1)) == rotary


def test_yarn_table_sentence_matches_the_quoted_table() -> None:
    text = markdown()
    rows = re.findall(r"\| (7B|13B) \| YaRN \(\$s = 32\$\) \| 128k \| YaRN \| ([^|]+)\| ([^|]+)\| "
                      r"([^|]+)\| ([^|]+)\| ([^|]+)\|", text)
    assert len(rows) == 2
    for size, *values in rows:
        ppl = [float(v) for v in values]  # at 8192, 32768, 65536, 98304, 131072 tokens
        assert ppl[3] < ppl[2] and ppl[4] >= ppl[3]  # improves to 98304, not beyond
        assert f"{size}: {ppl[3]:.2f}, then {ppl[4]:.2f}" in text


def test_freq_scale_keeps_the_slowest_pair_in_range_up_to_s_times_l_minus_1() -> None:
    # "stays on its trained arc up to s(L-1), a few steps short of L'"
    slowest = theta()[-1]
    largest = (L - 1) * slowest  # the largest trained angle of the slowest pair
    last_inside = math.floor(largest / (slowest / S) + 1e-9)
    assert last_inside == S * (L - 1) and 1 < S * L - 1 - last_inside < 10  # "a few steps"
    assert f"scaled one after {last_inside}" in output_of("d43087d9")


def test_exactly_the_slow_pairs_are_hit_past_l() -> None:
    below = stated(r"Exactly the pairs with \$r_i < (\d+)\$ are hit, right after \$L\$", markdown())
    # position L's angle L theta_i lies past the trained arc [0, (L - 1) theta_i] unless it has
    # wrapped round onto it (L theta_i >= 2 pi); computed from the angles, not from r
    hit = L * theta() < 2 * math.pi
    assert np.array_equal(hit, turns() < below)
    assert f"in {np.sum(hit)} pairs" in output_of("0dba355e")


def test_two_symbols_wavelength_and_scale() -> None:
    least = stated(r"with a per-pair factor \$f_i \\ge (\d+)\$", markdown())
    from posenc_lib.presets import PRESETS

    for name in ("phi-3.5-mini", "phi-4-mini"):  # the published LongRoPE lists: f_i >= 1
        scaling = PRESETS[name]["rope_scaling"]
        assert min(scaling["short_factor"] + scaling["long_factor"]) >= least, name


# --------------------------------------------------------------------------- issues 21 and 22


def test_causal_offsets_are_the_positions() -> None:
    # independent: the offsets m - n with 0 <= n <= m < N are exactly 0 .. N - 1
    n = 300
    offsets = {m - k for m in range(n) for k in range(m + 1)}
    every = offsets == set(range(min(offsets), max(offsets) + 1))
    assert (f"causal offsets of a {n}-token sequence are {min(offsets)}..{max(offsets)}: {every}"
            in output_of("0dba355e"))


def test_predict_reveals_match_independent_values() -> None:
    assert f"pairs with r < 1: {np.sum(turns() < 1)}" in output_of("5c6c4005")
    assert "methods with under 0.1 % unseen: {'linear', 'llama3', 'yarn'}" in output_of("107ba2f8")


def test_paper_ramp_and_code_ramp() -> None:
    """The paper's Eq. 18 (linear in r) against the code (linear in the index), by hand."""
    r, th = turns(), theta()
    kept = np.clip((r - 1) / (32 - 1), 0, 1)  # gamma(r) of the paper: share kept
    paper = (1 - kept) / S + kept  # ratio theta'/theta
    index = np.arange(D // 2)
    low = math.floor(D * math.log(L / (2 * math.pi * 32)) / (2 * math.log(BASE)))
    high = math.ceil(D * math.log(L / (2 * math.pi * 1)) / (2 * math.log(BASE)))
    interp = np.clip((index - low) / (high - low), 0, 1)  # code: share interpolated
    code = (1 - interp) + interp / S
    gap = np.abs(code - paper)
    out = output_of("3ae01f4e")
    assert f"largest gap between the two ratios: {gap.max():.3f}, at pair {gap.argmax()}" in out
    assert "paper's form == Llama 3's rule with bands 1 and 32: True" in out
    # Llama 3's blend is the paper's form with alpha = 1, beta = 4
    llama = rope_frequencies(D, BASE, {"rope_type": "llama3", "factor": S, "low_freq_factor": 1.0,
                                       "high_freq_factor": 4.0,
                                       "original_max_position_embeddings": L})[0]
    alpha, beta = paper_bands(r"is the paper's form with")
    kept4 = np.clip((r - alpha) / (beta - alpha), 0, 1)
    np.testing.assert_allclose(llama, (1 - kept4) * th / S + kept4 * th, rtol=1e-12)


def test_longrope_real_phi_lists() -> None:
    from posenc_lib.presets import PRESETS

    long = np.array(PRESETS["phi-3.5-mini"]["rope_scaling"]["long_factor"])
    s, length, target = 131072 / 4096, 4096, 131072
    th = 10000.0 ** (-np.arange(0, 96, 2) / 96)
    r = length * th / (2 * math.pi)
    assert f"{long[-1]:.2f}" == "64.84" and f"{long[-1] / s:.2f}" == "2.03"
    assert long[r < 1].min() >= 63.1
    # no unseen angle: a pair with r < 1 stays on its arc when f_i >= (L' - 1)/(L - 1)
    assert np.all(long[r < 1] >= (target - 1) / (length - 1))
    phi4 = PRESETS["phi-4-mini"]["rope_scaling"]["long_factor"]
    assert f"{phi4[-1] / s:.2f}" == "1.49"
    out = output_of("8347a89c")
    assert "slowest factor 64.84 = 2.03 s; smallest factor of a pair with r < 1: 63.14" in out
    assert "unseen (position, pair) cells up to 131072: 0.00 %" in out
    assert "Phi-4-mini: slowest factor 47.77 = 1.49 s" in out


def test_hidden_temperatures() -> None:
    m = 0.1 * math.log(40) + 1  # DeepSeek-V3: mscale = mscale_all_dim = 1, factor 40
    out = output_of("f0ae121e")
    assert "rotary attention factor 1.0000" in out and f"= {m * m:.4f} = {m * m:.4f}" in out
    # truncate's line: test_statements_06_07_practice, on the running example


def test_entropy_follows_the_gaussian_logit_law() -> None:
    """With n random keys and logits of spread c, the row's entropy is about ln n - c^2 / 2."""
    out = output_of("416db9d5")
    rows = re.findall(r"n = +(\d+): entropy ([\d.]+) nats without the factor, ([\d.]+) with it",
                      out)
    assert len(rows) == 3
    factor = (0.1 * math.log(S) + 1) ** 2
    for n, plain, sharp in rows:
        assert math.log(int(n)) - float(plain) == pytest.approx(0.5, abs=0.1)
        assert math.log(int(n)) - float(sharp) == pytest.approx(factor**2 / 2, abs=0.15)
    growth = float(rows[2][1]) - float(rows[1][1])
    assert growth == pytest.approx(math.log(S), abs=0.1)

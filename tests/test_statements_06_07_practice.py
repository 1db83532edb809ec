"""Notebooks 06 and 07 at today's practice (issue 34) and with the learner thinking (issue 32).

Each test recomputes what a new cell prints or a new sentence says, independently of the code
under test (plain JSON and NumPy, loops, the papers' formulas written another way), and checks
the stored output or the sentence. Predict prompts are checked for give-away words above them.
"""

from __future__ import annotations

import functools
import json
import math
import re

import numpy as np

from tests.statements_helpers import NUMBER_WORDS, stated
from tools.notebook_cells import ROOT, load, source

NB06 = ROOT / "notebooks" / "06_context_extension.ipynb"
NB07 = ROOT / "notebooks" / "07_other_schemes.ipynb"


def cells_of(path) -> list[dict]:
    return load(path)["cells"]


def main_path(path) -> list[dict]:
    cells = cells_of(path)
    end = next(k for k, c in enumerate(cells) if c["cell_type"] == "markdown"
               and source(c).startswith(("## Going further", "## Exercises")))
    return cells[:end]


def text_of(cell: dict) -> str:
    parts = []
    for out in cell.get("outputs", []):
        text = out.get("text", "") if out.get("output_type") == "stream" else \
            out.get("data", {}).get("text/plain", "")
        parts.append("".join(text) if isinstance(text, list) else text)
    return "".join(parts)


def flat(text: str) -> str:
    return " ".join(text.split())


def cell_with(path, start: str, kind: str | None = None) -> tuple[int, dict]:
    for k, c in enumerate(cells_of(path)):
        if source(c).startswith(start) and (kind is None or c["cell_type"] == kind):
            return k, c
    raise AssertionError(f"no cell starts with {start!r}")


def above(path, index: int, *, outputs: bool = True) -> str:
    """Markdown (and, with ``outputs``, printed outputs) above ``index``, lowercased."""
    parts = []
    for c in cells_of(path)[:index]:
        if c["cell_type"] == "markdown":
            parts.append(source(c))
        elif outputs:
            parts.append(text_of(c))
    return flat("\n".join(parts)).lower()


# --------------------------------------------------------------------------- 06: retrieval


def heading_cell(path, heading: str) -> tuple[int, dict]:
    """The markdown cell with a line ``heading`` (a heading may follow a paragraph in its cell)."""
    for k, c in enumerate(cells_of(path)):
        if c["cell_type"] == "markdown" and heading in source(c).splitlines():
            return k, c
    raise AssertionError(f"no markdown cell has the line {heading!r}")


LAB_TASKS = ("copy_back", "assoc_recall", "induction", "induction_once")
LAB_METHODS = ("rope", "pi", "ntk", "dynamic", "yarn")
# t_{0.975, df} for df = 1 .. 9 (2 to 10 seeds), from a printed table of Student's t
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
         9: 2.262}


@functools.cache
def lab_entries() -> dict[str, dict]:
    """Every "task/method/seed" entry of the two lab files, read once from the JSON directly
    (each file is megabytes: reading them again for each of the hundreds of lookups below
    took over a minute)."""
    folder = ROOT / "results"
    extensions = json.loads((folder / "lab_extensions.json").read_text())
    curves = json.loads((folder / "lab_curves.json").read_text())
    return {**extensions["extensions"], **curves["curves"]}


def lab_seeds(task: str, method: str) -> dict[str, dict]:
    """seed -> {"1": curve, ...} of one lab cell."""
    return {k.rsplit("/", 1)[1]: v for k, v in lab_entries().items()
            if k.rsplit("/", 1)[0] == f"{task}/{method}"}


def lab_past_l(task: str, method: str, multiple: int, trained: int = 32) -> np.ndarray:
    """Per-seed mean accuracy over the positions past L (every position at 1x), seeds sorted."""
    found = []
    seeds = lab_seeds(task, method)
    for seed in sorted(seeds, key=int):
        values = [np.nan if x is None else x for x in seeds[seed][str(multiple)]]
        found.append(np.nanmean(values[trained:] if multiple > 1 else values))
    return np.array(found)


def t_bounds(values: np.ndarray) -> tuple[float, float, float]:
    n = len(values)
    half = T_975[n - 1] * np.std(values, ddof=1) / math.sqrt(n)
    return float(values.mean()), float(values.mean() - half), float(values.mean() + half)


def rule_label(task: str, method: str) -> str:
    """The rule written out: a_4 - a_1 over seeds with a_1 >= 0.9, t interval against -0.1."""
    first, fourth = lab_past_l(task, method, 1), lab_past_l(task, method, 4)
    _, low, high = t_bounds((fourth - first)[first >= 0.9])
    return "holds" if low > -0.1 else "drops" if high < -0.1 else "borderline"


def paired_label(task: str, method: str) -> str:
    _, low, high = t_bounds(lab_past_l(task, method, 4) - lab_past_l(task, "rope", 4))
    return "better" if low > 0 else "worse" if high < 0 else "no clear difference"


def test_retrieval_reveal_shows_every_lab_task_with_t_intervals_and_the_rule() -> None:
    k, _ = heading_cell(NB06, "## Does the model still find what it read?")
    assert k < len(main_path(NB06))
    reveal = next(c for c in cells_of(NB06) if "least_recall_guess" in source(c)
                  and "predict" in c.get("metadata", {}).get("tags", []))
    assert 'results.load("extensions")' in source(reveal) and "import jax" not in source(reveal)
    assert source(reveal).rstrip().splitlines()[-1].startswith("compare(")
    out = text_of(reveal)
    for task in LAB_TASKS:                                  # every task, every method, 1x..8x
        for method in LAB_METHODS:
            cells = [t_bounds(lab_past_l(task, method, m)) for m in (1, 2, 4, 8)]
            row = " ".join(f"{mean:.2f} ± {mean - low:.2f}" for mean, low, _ in cells)
            seeds = len(lab_seeds(task, method))
            table = out.split(f"{task} ", 1)[1]
            assert re.search(rf"^{method}\s+{seeds} {re.escape(row)}$", table, re.M), (task, method)
    grids = {name: out.split(f"{name} ", 1)[1].split("\n\n", 1)[0].splitlines()
             for name in ("1x to 4x", "minus rope")}
    assert grids["1x to 4x"][0].split() == list(dict.fromkeys(grids["1x to 4x"][0].split()))
    header = grids["1x to 4x"][0].split()
    for method in LAB_METHODS:
        line = next(x for x in grids["1x to 4x"][1:] if x.split()[0] == method)
        assert line.split()[1:] == [rule_label(t, method) for t in header], method
        if method != "rope":
            line = next(x for x in grids["minus rope"][1:] if x.split()[0] == method)
            words = [paired_label(t, method) for t in header]
            assert " ".join(line.split()[1:]) == " ".join(words), method
    at_8x = {m: lab_past_l("assoc_recall", m, 8).mean() for m in LAB_METHODS}
    assert f"least recall on assoc_recall at 8x: {min(at_8x, key=at_8x.get)!r}" in out
    short = [np.nanmean([np.nan if x is None else x for x in c["4"][:32]])
             for c in lab_seeds("copy_back", "yarn").values()]
    assert f"copy_back, yarn for 4x on positions 0-31: {np.mean(short):.2f} (10 seeds)" in out


def test_retrieval_conclusions_match_the_rule_and_every_number_is_recomputed() -> None:
    from posenc_lib.lab import results
    extended, grid = results.load("extensions"), results.load("curves")
    plain = {k: v for k, v in grid["curves"].items() if "/rope/" in k}
    lab = results.summary({**extended["extensions"], **plain}, 32)
    _, cell = cell_with(NB06, "At 4x, by notebook 10's rule (every seed learned)")
    prose = flat(source(cell).split("## Summary", 1)[0])
    verdicts = {(t, m): results.cell_verdict(lab, t, m) for t in LAB_TASKS for m in LAB_METHODS}
    assert all(v.not_learned == 0 for v in verdicts.values())  # "every seed learned"
    versus = {(t, m): results.compared(lab, t, m) for t in LAB_TASKS for m in LAB_METHODS[1:]}
    # PI: drops on all four tasks, worse than RoPE on each
    count = stated(r"\*\*PI\*\* drops on all (\w+) tasks, worse than RoPE on each", prose, str)
    assert NUMBER_WORDS[count] == len(LAB_TASKS)
    assert all(verdicts[t, "pi"].label == "drops" and versus[t, "pi"].label == "worse"
               for t in LAB_TASKS)
    # NTK-aware and dynamic NTK: better than RoPE where they drop, no different on copy_back
    for method in ("ntk", "dynamic"):
        assert all(versus[t, method].label == "better" for t in ("induction", "induction_once"))
        assert versus["copy_back", method].label == "no clear difference"
    # YaRN: 0.59 above RoPE on induction; on copy_back 0.61 against 0.88, worse by 0.27 [0.14, 0.41]
    gain = versus["induction", "yarn"]
    assert gain.label == "better" and f"though {gain.difference:.2f} above RoPE" in prose
    copy = versus["copy_back", "yarn"]
    at_4x = {m: lab["copy_back", m][:, results.MULTIPLES.index(4)].mean() for m in ("yarn", "rope")}
    low, high = copy.interval
    assert (f"YaRN drops ({at_4x['yarn']:.2f} at 4x, RoPE {at_4x['rope']:.2f}; worse by "
            f"{-copy.difference:.2f} [{-high:.2f}, {-low:.2f}], {copy.seeds} seeds)") in prose
    assert copy.label == "worse" and verdicts["copy_back", "yarn"].label == "drops"
    short = [np.nanmean(np.array(v["4"][:32], dtype=float))   # positions 0-31 of a 4x input
             for k, v in extended["extensions"].items() if k.startswith("copy_back/yarn/")]
    unscaled = lab["copy_back", "rope"][:, 0].mean()
    assert (f"set for 4x it scores {np.mean(short):.2f} on positions 0-31 "
            f"(unscaled: {unscaled:.2f})") in prose
    # the summary: "in the lab no method holds on every task"
    assert not any(all(verdicts[t, m].label == "holds" for t in LAB_TASKS) for m in LAB_METHODS)


# --------------------------------------------------------------------------- 06: issue 34 item 6


def test_unseen_angle_grid_has_a_panel_per_method_and_tick_labels_on_top() -> None:
    reveal = next(c for c in cells_of(NB06) if "covered_guess" in source(c)
                  and "predict" in c.get("metadata", {}).get("tags", []))
    assert "plt.subplots(2, 3" in source(reveal) and "labelbottom=True" in source(reveal)
    assert "with 6 Axes>" in text_of(reveal)  # six methods, six panels, none empty


# --------------------------------------------------------------------------- 07: scorecard rows


def scorecard_rows(cell: dict) -> dict[str, list[str]]:
    lines = text_of(cell).splitlines()
    return {line.split()[0]: line.split()[1:] for line in lines[1:] if line.strip()}


def test_scorecard_has_shaw_and_t5_rows_consistent_with_the_summary() -> None:
    _, card = cell_with(NB07, "scorecard(SCHEMES + BIAS_SCHEMES", "code")
    rows = scorecard_rows(card)
    # independent: Shaw's row index clip(j - i, -16, 16) + 16 and T5's bucket by integer arithmetic
    trained, longer = 64, 192
    shaw_far = {min(max(-k, -16), 16) + 16 for k in range(trained, longer)}      # keys behind
    t5_seen = {min(8 + (n * n // 64).bit_length() - 1, 15) if n >= 8 else n for n in range(trained)}
    t5_far = {min(8 + (n * n // 64).bit_length() - 1, 15) for n in range(trained, longer)}
    assert len(shaw_far) == 1                    # every far key shares one end row: no new code
    assert not t5_far <= t5_seen                 # far keys reach buckets training never filled
    for scheme in ("shaw", "t5"):
        # unique, length-free, bounded, deterministic, extends, relative
        assert rows[scheme] == ["no", "yes", "yes", "no", "no", "yes"], scheme
    extends = {name: row[4] for name, row in rows.items()}
    summary = flat(source(cell_with(NB07, "## Summary")[1]))
    only = stated(r"Scored dimension by dimension, only (\w+) extends", summary, str)
    assert [name for name, value in extends.items() if value == "yes"] == [only.lower()]


# --------------------------------------------------------------------------- 07: newer biases


def test_newer_biases_printed_numbers() -> None:
    k, cell = cell_with(NB07, "from posenc_lib.bias_variants import", "code")
    out = text_of(cell)
    assert "KERPLE's power kernel with r2 = 1 is ALiBi: True" in out
    for n in (64, 256):
        # psi(n - 1) / psi(max(0, n - 1)) for the farthest key: exactly 1
        value = math.log(n - 1 + 1) / math.log(max(0, n - 1) + 1)
        assert f"FIRE's input for the farthest key of {n} tokens: {value:.3f}" in out
    cells = cells_of(NB07)
    out2 = text_of(cells[k + 1])
    assert "every gate open: p = i - j + 1 for the last query: True" in out2
    zeta = lambda i, d=128: (2 * i / d + 0.4) / 1.4  # noqa: E731  xPos's zeta_i
    assert (f"xPos at distance 512: pair 0 x {zeta(0):.4f}, pair 63 x {zeta(63):.4f}; "
            f"at 4096: {zeta(0) ** 8:.2e}, {zeta(63) ** 8:.4f}") in out2
    # CoPE with random gates: the first key counts between 0 and 64, near half of 64
    counted = float(re.search(r"first key counts as position ([\d.]+), not 64", out2).group(1))
    assert 16 < counted < 48


def test_flex_attention_score_mod_equals_materialised_biases() -> None:
    _, cell = cell_with(NB07, "slopes8, table8 = alibi_slopes(8)", "code")
    assert "def alibi_mod(score, b, h, q_idx, kv_idx)" in source(cell)
    assert "def t5_mod(score, b, h, q_idx, kv_idx)" in source(cell)
    out = text_of(cell)
    for name in ("ALiBi", "T5"):
        assert f"{name}: score_mod, tile by tile == score + materialised bias: True" in out


# ------------------------------------------------------------ 06: remapping, LongRoPE2, engines


def test_remapping_table_of_the_running_example() -> None:
    _, cell = cell_with(NB06, "from posenc_lib.remapping import", "code")
    out = text_of(cell)
    last, trained = 32767, 4096
    # independent: Self-Extend with G = 16, w = 1024; DCA with chunk 3072, local 256 (loops)
    def self_extend(j: int) -> int:
        return last - j if last - j < 1024 else last // 16 - j // 16 + 1024 - 1024 // 16

    def dca(j: int) -> int:
        c = 3072 - 256
        apart = last // c - j // c
        if apart == 0:
            query = last % c
        else:
            query = min(last % c + c, 3072) if apart == 1 else min(2 * c - 1, 3072)
        return query - j % c

    shown = (0, 1023, 1024, 1040, 2816, 5000, 32767)
    for name, fn in (("Self-Extend", self_extend), ("DCA", dca)):
        values = [fn(last - x) for x in shown]
        largest = max(fn(j) for j in range(last + 1))
        line = f"{name:>13s}" + "".join(f"{v:>7d}" for v in values)
        assert line + f"   largest {largest}, below L: {largest < trained}" in out
    assert f"reaches (L - w) G + w = {(trained - 1024) * 16 + 1024} tokens" in out
    text = flat(source(cell_with(NB06, "Both keep every distance the model sees below")[1]))
    far, near = stated(r"\((\d+) back looks nearer than (\d+)\)", text, int)
    assert far > near and dca(last - far) < dca(last - near)  # DCA's distances, by the loop


def test_longrope2_closest_sourced_factors() -> None:
    _, cell = cell_with(NB06, 'phi4 = PRESETS["phi-4-mini"]', "code")
    from posenc_lib.presets import PRESETS  # the published list, the source of the numbers
    phi4 = PRESETS["phi-4-mini"]
    factors = phi4["rope_scaling"]["long_factor"]
    s = 131072 / 4096
    turns = [4096 * 10000.0 ** (-2 * i / 96) / (2 * math.pi) for i in range(48)]
    critical = next(i for i, r in enumerate(turns) if r < 1)
    reach = next(i for i, f in enumerate(factors) if f >= s)
    assert (f"first pair with r < 1: {critical}; first pair with f >= s: {reach}"
            in text_of(cell))
    prose = flat(source(cell_with(NB06, "The searched factors reach")[1]))
    before = stated(r"The searched factors reach \$s\$ (\w+) pairs before the theoretical "
                    r"critical pair", prose, str)
    assert critical - reach == NUMBER_WORDS[before]
    last_two = stated(r"the last two pairs are slowed further \(about \$([\d.]+)s\$ and "
                      r"\$([\d.]+)s\$\)", prose)
    assert last_two == (round(factors[-2] / s, 1), round(factors[-1] / s, 1))


def test_engine_table_vllm_dynamic_is_unscaled() -> None:
    _, cell = cell_with(NB06, "factor_dyn = s", "code")
    factor, trained = 8.0, 4096
    hf = factor * (factor * trained) / trained - (factor - 1)    # transformers at l = 8L
    vllm = (trained * factor) / trained - (factor - 1)          # vLLM's static formula
    assert f"transformers {hf:g} (at l = L'), vLLM {vllm:g}" in text_of(cell)
    assert vllm == 1 and hf == 57


def engine_table_rows() -> dict[tuple[str, str], list[str]]:
    """The engine table 06 shows (its stored Markdown output) as {(rope type, engine): cells}."""
    _, cell = cell_with(NB06, "from posenc_lib.engines import", "code")
    (shown,) = [out["data"]["text/markdown"] for out in cell["outputs"]
                if "text/markdown" in out.get("data", {})]
    text = "".join(shown)
    rows = [line.strip().strip("|").split(" | ") for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| `rope_type` |")]
    return {(row[0].strip(), row[1].strip()): [c.strip() for c in row[2:]] for row in rows}


def test_engine_table_sglang_dynamic_is_transformers_at_the_longest_length() -> None:
    _, cell = cell_with(NB06, "factor_dyn = s", "code")
    factor, trained, d = 8, 4096, 128
    # independent: SGLang's s_eff written as the closed form factor^2 - factor + 1 (integers),
    # transformers' at l = 8L in integers; the base by logarithms
    sglang = factor ** 2 - factor + 1
    longest = sum(trained for _ in range(factor))               # l = 8L
    hf = factor * longest // trained - (factor - 1)
    assert sglang == hf == 57
    sglang_base = math.exp(math.log(10000.0) + d / (d - 2) * math.log(sglang))
    out = text_of(cell)
    assert f"vLLM 1 (every length), SGLang {sglang} (every length)" in out
    assert f"bases: vLLM 10000, SGLang {round(sglang_base):,d}" in out
    # the slowest pair is slowed by exactly s_eff: base'^(-(d-2)/d) / base^(-(d-2)/d)
    slowest = (sglang_base / 10000.0) ** ((d - 2) / d)
    assert abs(slowest - sglang) < 1e-9


def test_every_engine_cell_cites_a_source_file_and_a_commit() -> None:
    """Each claim of the engine table about an engine's code says where it was read: a file and
    the exact code read (a commit hash, or a released version for transformers), in every row;
    a cell the course has not read would have neither."""
    rows = engine_table_rows()
    engines = {engine for _, engine in rows}
    assert {"transformers", "vLLM", "SGLang"} <= engines and len(rows) >= 3 * len(engines)
    for key, (_, where) in rows.items():
        assert re.search(r"`[\w/.]+\.py`", where), key
        assert re.search(r"commit [0-9a-f]{8}\b|transformers \d+\.\d+\.\d+", where), key


# ----------------------------------------------------------- build steps (issues 32 and 45)
# The build steps of 06 and 07 are course objects (nb06.steps, nb07.steps): tests/
# test_build_steps_objects.py, _pictures.py and _05_09.py check them.


# ------------------------------------------------------------ predictions not answered above

GIVEAWAYS_06 = {
    "**Predict.** Pair 0 makes about 650 turns": ["18 pairs", "eighteen", "from pair 46",
                                                   "r < 1: 18"],
    "**Predict.** In training, the key 5 tokens behind": ["0.625", "5/8", "5/s", "five eighths"],
    "**Predict.** Llama 3.1 blends the pairs": ["6 pairs", "six pairs", "blend: 6"],
    "**Predict.** Of `default`, `linear`, `ntk`": ["leave a sliver", "0.05 %", "0.05%",
                                                   "leave only a sliver"],
    "**Predict.** At 8 times the trained length": ["recalls least", "recalls less", "least recall",
                                                  "recall least", "lowest recall",
                                                  "assoc_recall accuracy", "worse than no scaling"],
}
GIVEAWAYS_07 = {
    "**Predict.** From which distance $n$ on does the encoder's last bucket": [
        "91 and beyond", "from 91", "starts at 91", "ninety-one"],
    "**Predict.** With 8 heads, the flattest head": ["177", "halves after", "ln 2 / m"],
    "**Predict.** Seven copies of one word": ["outputs are identical", "seven causal outputs",
                                              "average of copies of one value"],
    "**Predict.** A model trained on 512 tokens meets position 600": [
        "only the lookup table runs out", "only the learned", "position 600 has no row"],
}


def test_every_prompt_of_06_and_07_has_give_away_words_not_above_it() -> None:
    for path, giveaways in ((NB06, GIVEAWAYS_06), (NB07, GIVEAWAYS_07)):
        prompts = [source(c) for c in main_path(path) if source(c).startswith("**Predict")]
        assert len(prompts) == len(giveaways), path.name   # a new prompt needs its words here
        for start, words in giveaways.items():
            k, _ = cell_with(path, start, "markdown")
            text = above(path, k)
            for word in words:
                assert word.lower() not in text, (path.name, start, word)


def test_06_truncate_is_shown_on_the_running_example_not_on_exercise_2s_head() -> None:
    """Going further shows what `truncate` changes on the Llama 2 head; gpt-oss's bounds, the
    first half of exercise 2, are not printed anywhere in the notebook."""
    _, cell = cell_with(NB06, '_, rotary_factor = rope_frequencies_from_config(', "code")
    at = lambda r: 128 * math.log(4096 / (2 * math.pi * r)) / (2 * math.log(10000.0))  # noqa: E731
    low, high = at(32.0), at(1.0)   # i(beta), i(alpha), written out here
    assert (f"the running example's ramp, rounded: ({math.floor(low)}, {math.ceil(high)}); "
            f"with truncate false: ({low:.2f}, {high:.2f})") in text_of(cell)
    oss_low = 64 * math.log(4096 / (2 * math.pi * 32.0)) / (2 * math.log(150000.0))
    oss_high = 64 * math.log(4096 / (2 * math.pi)) / (2 * math.log(150000.0))
    shown = " ".join(text_of(c) + source(c) for c in cells_of(NB06))
    for value in (oss_low, oss_high):
        assert f"{value:.2f}" not in shown and f"{value:.3f}" not in shown


# ------------------------------------------------------------------ 07's cost table (issue 48)


def test_cost_table_counts_t5s_bias_once_per_batch_and_eight_copies_otherwise() -> None:
    nb07 = ROOT / "notebooks" / "07_other_schemes.ipynb"
    _, cell = cell_with(nb07, "notes = {", "code")
    out = text_of(cell)
    # independent: 12 heads x 2048^2 offsets x 2 bytes, once for the batch; 8 copies otherwise
    per_stack = 12 * 2048**2 * 2 / 10**6
    assert f"{per_stack:.1f} MB per stack, broadcast over a batch of 8" in out
    assert f"8 x {per_stack:.1f} = {8 * per_stack:.1f} MB" in out
    assert f"{32 * 12} values, {32 * 12 * 2} bytes" in out

"""Other values a graded release poses for some exercises, drawn from the instructor's seed.

The solutions of the source notebooks are public, so a graded release (tools/build_nbgrader.py)
redraws the values of the exercises of :data:`VARIANTS`: the release's prompt names the drawn
values, the setup cell calls ``nbNN.<name>.use(**values)`` so that the check names the mistakes
for them, and the grader (tools/grader.py) computes the answer for them here, never shipped. The
instructor's source notebooks get the solution for the drawn values.

Each :class:`Variant` says which texts of the prompt and stub cells name the values, and writes
the solution code for any values; tests/test_variants.py checks that both reproduce the source
notebook for the notebook's own values, and that every drawn answer differs from the notebook's
and from every named mistake.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from posenc_lib.exercises import all_exercises
from posenc_lib.exercises._core import Exercise
from posenc_lib.presets import PRESETS
from tools.answer_key import (
    EXPECTED,
    YARN_CONFIGS,
    checkpoint_key,
    checkpoint_table,
    drawn_table,
    llama3_hidden,
    mystery_frequencies,
)


@dataclass(frozen=True)
class Variant:
    """The values an exercise may be posed with, besides the notebook's (``sets``); ``prompt``
    gives the texts of the prompt and stub cells that name the values, ``solution`` the solution
    code (between the markers), both for given values."""

    sets: tuple[dict[str, Any], ...]
    prompt: Callable[[dict[str, Any]], list[str]]
    solution: Callable[[dict[str, Any]], str]


_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _carry_prompt(v: dict[str, Any]) -> list[str]:
    listed = ", ".join(map(str, v["positions"]))
    return [f"$p = {listed}$", f"for p = {listed}"]


def _carry_solution(v: dict[str, Any]) -> str:
    def trailing_ones(p: int) -> int:
        return len(format(p, "b")) - len(format(p, "b").rstrip("1"))

    first, *rest = v["positions"]
    parts = [f"{first} = {first:b} ({_WORDS[trailing_ones(first)]} trailing 1s)"]
    parts += [f"{p} = {p:b} ({_WORDS[trailing_ones(p)]})" for p in rest]
    counts = [trailing_ones(p) + 1 for p in v["positions"]]
    return ("# Adding 1 turns the trailing 1s of p into 0s and the 0 just before them into a 1.\n"
            f"# {', '.join(parts)}.\n"
            f"carry_counts = {counts}")


def _ramp_solution(v: dict[str, Any]) -> str:
    return ("import math\n\n"
            f"def pair_with_turns(r, d=128, base=10000.0, trained={v['L']}):\n"
            "    # i(r) = d ln(L / (2 pi r)) / (2 ln base): the pair that turns r times in L\n"
            "    return d * math.log(trained / (2 * math.pi * r)) / (2 * math.log(base))\n\n"
            "ramp_bounds = (math.floor(pair_with_turns(32)), math.ceil(pair_with_turns(1)))")


def _cache_solution(v: dict[str, Any]) -> str:
    return (f"d_c, base_c, trained_c, m_key = 64, 10000.0, 2048, {v['key']}\n"
            "slowest = base_c ** (-(d_c - 2) / d_c)            # trained theta of the last pair\n"
            f"s_then, s_now = {v['key']} / trained_c, {v['now']} / trained_c"
            "  # s_eff = l / L with factor 1\n"
            "# NTK-aware scaling with s_eff divides the slowest pair by exactly s_eff\n"
            "cache_drift = m_key * (slowest / s_then - slowest / s_now)")


def _ties_prompt(v: dict[str, Any]) -> list[str]:
    *head, last = v["positions"]
    return [f"positions {', '.join(map(str, head))} and {last}",
            f"for {', '.join(map(str, v['positions']))}"]


def _ties_solution(v: dict[str, Any]) -> str:
    power = v["low"].bit_length() - 1
    gap = f"gap = 2 ** ({power} - 7)".ljust(39)
    return (f"x = np.array([{', '.join(map(str, v['positions']))}])\n"
            f"{gap}# {v['low']} <= x < {v['high']} is 2**{power} times 1.f with 7 fraction bits\n"
            "q, rest = np.divmod(x, gap)            # x = q gap + rest\n"
            "up = (rest > gap / 2) | ((rest == gap / 2) & (q % 2 == 1))   "
            "# a tie goes to the even q\n"
            "stored = (q + up) * gap")


def _context_solution(v: dict[str, Any]) -> str:
    last = v["last"]
    return ("# The slowest pair is i = 63: theta = base ** (-126 / 128). "
            f"Over {last} steps it turns by\n"
            f"# {last} * base ** (-126 / 128) <= pi, so base >= ({last} / pi) ** (128 / 126).\n"
            f"base_needed = ({last} / np.pi) ** (128 / 126)")


def _ntk_solution(v: dict[str, Any]) -> str:
    s = v["s"]
    return ("# NTK-aware's base is base * s**(d/(d-2)), so theta'_i / theta_i = s**(-2i/(d-2)): "
            "exactly 1\n"
            "# for pair 0 and 1/s for pair 63 = d/2 - 1. Pair 32 gets s**(-64/126), a little "
            "under\n"
            f"# 1/sqrt(s) = {1 / math.sqrt(s):g}, because the exponent has d - 2 where 2i/d would "
            "give exactly one half.\n"
            f"ntk_ratios = [1.0, {s:.1f} ** (-64 / 126), {1 / s:g}]")


def _slow_pair_solution(v: dict[str, Any]) -> str:
    angle = f"{v['pos'] / 1000:g}"
    return ("# Columns 6 and 7 are pair i = 3: theta_3 = 10000^(-6/8) = 10^(-3), so the angle is "
            f"{angle}.\n"
            f"last_pair = [np.sin({angle}), np.cos({angle})]")


def _octaves_prompt(v: dict[str, Any]) -> list[str]:
    if v["d"] == 512:
        return ["write-up 000's encoding ($d_{model} = 512$, base 10000)"]
    return [f"the encoding of write-up 000 at $d_{{model}} = {v['d']}$ instead of its 512 "
            "(base 10000)"]


def _octaves_solution(v: dict[str, Any]) -> str:
    d, bits = v["d"], math.log2(10000.0)
    lam = f"lam = wavelengths(inverse_frequencies({d}, 10000.0))".ljust(54)
    return ("from posenc_lib.frequencies import inverse_frequencies, wavelengths\n\n"
            f"{lam} # 2 pi 10000**(2i/{d}), {d // 2} pairs\n"
            f"{'step = np.log2(lam[1] / lam[0])'.ljust(54)} "
            f"# doublings per pair: (2/{d}) log2(10000)\n"
            "doubling = [1 / step, np.log2(lam[-1] / lam[0])]\n"
            f"# About {d / (2 * bits):.0f} pairs per doubling and {(1 - 2 / d) * bits:.1f} "
            "doublings: the periods of a 13 to 14 bit counter. The\n"
            "# total is (1 - 2/d) log2(base): d_model sets how finely the doublings are sampled, "
            "not how many.")


def _mrope_prompt(v: dict[str, Any]) -> list[str]:
    n = v["before"] + v["rows"] * v["cols"] + v["after"]
    return [f"the positions of {v['before']} text tokens, an",
            f"image of {v['rows']} rows × {v['cols']} columns of patches (read row by row), then "
            f"{v['after']} text tokens", f"as 3 lists of {n} ints", f"{n} ints each"]


def _mrope_solution(v: dict[str, Any]) -> str:
    # M-RoPE's rule (Qwen2-VL), written here apart from the library: text t = h = w = index;
    # patch (r, c) of an image starting at s: (s, s + r, s + c); text after it resumes at
    # s + max(rows, cols), one past the largest position used.
    s, rows, cols = v["before"], v["rows"], v["cols"]
    resume = s + max(rows, cols)
    text_before = [[i, i, i] for i in range(s)]
    patches = [[s, s + r, s + c] for r in range(rows) for c in range(cols)]
    text_after = [[resume + i] * 3 for i in range(v["after"])]
    axes = list(zip(*(text_before + patches + text_after), strict=True))
    lists = [f"[{', '.join(map(str, axis))}]" for axis in axes]
    return ("# Text: t = h = w = the token's index. Patch (r, c): "
            f"t = {s}, h = {s} + r, w = {s} + c, row by row.\n"
            "# The text after the image resumes one past the largest position so far, "
            f"{s} + {max(rows, cols) - 1} + 1 = {resume}.\n"
            f"mrope_ids = [{lists[0]},\n             {lists[1]},\n             {lists[2]}]")


_TIMES_T5 = {256: "twice", 384: "three times", 512: "four times", 1024: "eight times"}
"""07.t5_decoder_starts: each maximum distance as a multiple of T5's 128, in words."""


def _decoder_solution(v: dict[str, Any]) -> str:
    values = f"n_exact, n_side, max_distance = 16, 32, {v['max_distance']}".ljust(55)
    return ("dist = np.arange(2000)\n"
            f"{values}# decoder: E = B'/2 = 16 of B' = 32\n"
            "growth = np.log(np.maximum(dist, n_exact) / n_exact) / "
            "np.log(max_distance / n_exact)\n"
            "decoder_bucket = np.where(dist < n_exact, dist,\n"
            "                          np.minimum(n_exact + (growth * (n_side - n_exact))"
            ".astype(int), n_side - 1))\n"
            "first_distance = np.array([dist[decoder_bucket == b].min() for b in range(16, 32)])")


def _window_solution(v: dict[str, Any]) -> str:
    recent, last = v["recent"], v["last"]
    return ("m_heads = alibi_slopes(12)\n"
            f"recent_share = (1 - np.exp(-{recent} * m_heads)) / (1 - np.exp(-512 * m_heads))"
            f"   # r = 0..{last} of 0..511\n"
            "local_heads = {int(h) + 1 for h in np.flatnonzero(recent_share > 0.5)}\n"
            'print("halving distance ln 2 / m per head:", np.round(np.log(2) / m_heads, 1))')


def _shift_back_prompt(v: dict[str, Any]) -> list[str]:
    known, target = v["known"], v["target"]
    return [f"only $PE({known})$ of a", f"as `pe_{known}`. Compute $PE({target})$ from it",
            f"Reading position {target} directly (a row {target}, the formula at {target}, or a",
            f"pe_{known} = sinusoidal_encoding_at([{known}], 24)[0]  # PE({known}) at d_model = 24",
            f"back = ...  # your answer: PE({target}), computed from pe_{known}"]


def _ternary_solution(v: dict[str, Any]) -> str:
    n = v["last"] + 1
    return (f"p3 = np.arange({n})\n"
            f"digits = (p3[:, None] // 3 ** np.arange({v['digits'] - 1}, -1, -1)) % 3  "
            "# most significant digit first\n"
            "ternary_periods = np.array(\n"
            f"    [next(t for t in range(1, {n + 1}) if np.array_equal(col[t:], col[:-t])) "
            "for col in digits.T]\n"
            ")\n"
            "# A digit holds each of its three values for 3^k steps: it changes 3 times per "
            "period 3^(k+1),\n"
            '# so "twice the time it stays put" (2 * 3^k) is wrong here.')


def _partial_solution(v: dict[str, Any]) -> str:
    dims, pairs = v["dims"], v["pairs"]
    return (f"d, base, p = 64, 10000.0, {v['p']}\n"
            f"rotating_dims = int(p * d)          # partial rotary: the first {dims} dims, "
            f"{pairs} pairs\n"
            f"kept_pairs = int(p * d / 2)         # p-RoPE: the fastest {pairs} pairs\n"
            "two_ways = np.zeros((2, d // 2))\n"
            "two_ways[0, : rotating_dims // 2] = base ** (-np.arange(0, rotating_dims, 2) / "
            "rotating_dims)\n"
            "two_ways[1, :kept_pairs] = base ** (-np.arange(0, 2 * kept_pairs, 2) / d)\n"
            f"# Same count of still pairs; partial rotary respaces its {pairs} frequencies from 1 "
            f"to base**(-{dims - 2}/{dims}),\n"
            f"# p-RoPE keeps the first {pairs} of the 32 ordinary ones, from 1 to "
            f"base**(-{dims - 2}/64).")


_SENTENCES = ("the mouse was chasing the cat", "chasing the cat the was mouse",
              "the cat was chasing the cat", "the cat was chasing mouse",
              "the cat was chasing the mouse the")
"""00.same_cat's sentences in the notebook's order (lettered a to e there)."""


def _same_cat_prompt(v: dict[str, Any]) -> list[str]:
    listed = sorted(zip(v["letters"], _SENTENCES, strict=True))
    items = [f'({letter}) "{sentence}"' for letter, sentence in listed]
    return [f"{items[0]} · {items[1]} ·\n{items[2]} · {items[3]} ·\n{items[4]}"]


def _same_cat_solution(v: dict[str, Any]) -> str:
    a, b, c, d, e = v["letters"]
    first, second = sorted((a, b))
    return ("# Without position, the cat's output depends on its own vector and on the collection "
            "of all the\n"
            f"# vectors, counts included. ({first}) and ({second}) hold the same words as A, each "
            f"as often; ({c}) replaces the\n"
            f'# mouse by a cat, ({d}) has one "the" fewer and ({e}) one more, which changes the '
            "softmax's sums.\n"
            f'same_as_a = {{"{first}", "{second}"}}')


# --- notebooks 06 to 10 (second helper of issue 33) -------------------------------------------


def _self_weight_solution(v: dict[str, Any]) -> str:
    ratio = f"q = np.exp(-{v['slope']:g})".ljust(43)
    return (f"{ratio}# the weight ratio from one key to the next one back\n"
            "self_weight = (1 - q) / (1 - q ** 10)      # 1 / (1 + q + ... + q**9)")


def _truncation_solution(v: dict[str, Any]) -> str:
    low, high = v["low"], v["high"]
    widths = [low * 2**k for k in range(round(math.log2(high / low)))]
    listed = ", ".join(map(str, widths))
    binades = [f"[{w}, {2 * w})" for w in widths]
    named = f"{', '.join(binades[:-1])} and {binades[-1]}"
    total = high - low
    return (f"{f'gaps = 2.0 ** -7 * np.array([{listed}])'.ljust(44)}"
            f"# bfloat16's gap in {named}\n"
            f"{f'shares = np.array([{listed}]) / {total}'.ljust(44)}"
            f"# an even spread over [{low}, {high}): each binade's width / {total}\n"
            "mean_error = float(-(shares * gaps / 2).sum())   "
            "# truncation loses half a gap on average")


_TIMES = {4: "four", 8: "eight", 32: "thirty-two", 64: "sixty-four"}
"""10.turning_pairs: each length as a multiple of the lab's trained 32, in words."""


def _covered_prompt(v: dict[str, Any]) -> list[str]:
    if v["times"] == 4:  # the lab's own fine-tune
        start = "The PI fine-tune trains at 4x, on 128\npositions"
    else:
        start = f"A fine-tune at {v['times']}x would train on {v['length']}\npositions"
    return [f"{start}: predict, without running code, how many of the 8 pairs make at least "
            f"one full turn\nwithin {v['length']} positions"]


def _covered_solution(v: dict[str, Any]) -> str:
    length = v["length"]
    turns = length / (2 * math.pi) * 10.0 ** (-np.arange(8) / 2)
    shown = [f"{t:.1f}" for t in turns[turns >= 1]] + [f"{turns[turns < 1][0]:.2g}"]
    return ("# theta_i = 10000**(-2i/16) = 10**(-i/2): 1, 0.32, 0.1, 0.03, ...\n"
            f"# Turns in {length} positions: {length} * theta_i / (2 pi), about "
            f"{length / (2 * math.pi):.1f} * theta_i: {', '.join(shown)}, ...\n"
            f"# ({_TIMES[v['times']]} times the turns within 32 positions printed in Going "
            "further).\n"
            f"n_turning = {int(np.count_nonzero(turns >= 1))}")


def _break_solution(v: dict[str, Any]) -> str:
    return ('t5_curve = results.mean_curves(grid["curves"], "induction", ["t5"], 8)["t5"]\n'
            "past_training = np.nan_to_num(t5_curve[L:], nan=1.0)   "
            "# positions with no score are NaN\n"
            f"t5_breaks_at = int(L + np.flatnonzero(past_training < {v['threshold']})[0])")


def _far_prompt(v: dict[str, Any]) -> list[str]:
    article = "an" if str(v["times"]).startswith("8") else "a"
    return [f"{article} {v['times']}x input ({v['tokens']} tokens), how many of its\n"
            f"{v['tokens']} keys"]


def _far_solution(v: dict[str, Any]) -> str:
    tokens = v["tokens"]
    many = "about a hundred keys" if tokens == 128 else f"{tokens - 27} keys"
    offsets = "last_query_offsets = np.arange(n_tokens) - (n_tokens - 1)"
    return ("from posenc_lib.bias import t5_relative_position_bucket\n\n"
            f"n_tokens = {v['times']} * L\n"
            f"{offsets}      # j - i for i = {tokens - 1}\n"
            "bucket = t5_relative_position_bucket(last_query_offsets, bidirectional=False,\n"
            "                                     num_buckets=16, max_distance=32)\n"
            "far_keys = int(np.sum(bucket == bucket[0]))\n"
            f"# Every key 27 or more tokens back shares one bias: {many} the bias cannot rank\n"
            "# compete with the key 5 back, and there are more of them the longer the input.")


_SPELLED = {1: ("one full turn", "one turn"), 2: ("two full turns", "two turns")}
"""09.llama31_slow_pairs: the turn counts, as the prompt writes them."""


def _slow_pairs_prompt(v: dict[str, Any]) -> list[str]:
    full, short = _SPELLED[v["turns"]]
    pairs = v["head"] // 2
    return [f"{v['name']} also has", f"(of its {pairs}) that make less than {full}",
            f"$\\text{{rope\\_theta}}^{{-2i/{v['head']}}}$. Store in `pushed_below` how many "
            f"more pairs stay under {short}", f"the {v['line']} line"]


def _slow_pairs_solution(v: dict[str, Any]) -> str:
    model, turn, factor = v["model"], v["turn"], PRESETS[v["model"]]["rope_scaling"]["factor"]
    if v["turns"] == 1:
        why = (f"# Pairs with wavelengths over 8192 were below one turn already (the low band, "
               f"divided by {factor:g}).\n"
               "# The middle band, wavelengths between 8192 / 4 and 8192, is interpolated "
               "smoothly: its slowest\n# pairs made just over one turn and now make less.")
    else:
        why = (f"# Pairs with wavelengths over 8192 / {v['turns']} were below {turn} already: "
               "scaling only slows pairs.\n"
               "# The middle band, wavelengths between 8192 / 4 and 8192, is interpolated "
               f"smoothly: some of its\n# pairs made just over {turn} and now make less.")
    return (f'scaled, _ = rope_frequencies_from_config(PRESETS["{model}"])\n'
            f'unscaled = inverse_frequencies({v["head"]}, PRESETS["{model}"]["rope_theta"])\n'
            f"below_with = np.count_nonzero(turns_in_context(scaled, 8192) < {v['turns']})\n"
            f"below_without = np.count_nonzero(turns_in_context(unscaled, 8192) < {v['turns']})\n"
            f"pushed_below = int(below_with - below_without)\n{why}")


def _bands_set(d: int, base: int, length: int) -> dict[str, Any]:
    """06.llama3_bands posed with (d, base, length) and the frequencies of the instructor's hidden
    bands for them (tools.answer_key.LLAMA3_BANDS)."""
    return {"d": d, "base": base, "L": length,
            "frequencies": tuple(map(float, llama3_hidden(d, base, length)))}


def _bands_prompt(v: dict[str, Any]) -> list[str]:
    return [f"returns the {v['d'] // 2} frequencies",
            f"$d = {v['d']}$, base {v['base']} and\n`original_max_position_embeddings` {v['L']} "
            "after", f"hidden_llama3_frequencies()   # theta'_i, shape ({v['d'] // 2},)"]


def _bands_solution(v: dict[str, Any]) -> str:
    d, turns = v["d"], f"r_h = {v['L']} * trained_h / (2 * np.pi)".ljust(56)
    return (f"trained_h = {float(v['base'])!r} ** (-np.arange(0, {d}, 2) / {d})\n"
            "ratio_h = hidden / trained_h\n"
            "factor_h = 1 / ratio_h.min()                            # the slowest pairs: "
            "theta / factor\n"
            "g_h = (ratio_h - 1 / factor_h) / (1 - 1 / factor_h)     # 0 divided, 1 kept\n"
            f"{turns}# turns in L\n"
            "blend_h = (g_h > 1e-9) & (g_h < 1 - 1e-9)\n"
            "slope_h, intercept_h = np.polyfit(r_h[blend_h], g_h[blend_h], 1)   "
            "# g = (r - low) / (high - low)\n"
            "bands = (factor_h, -intercept_h / slope_h, (1 - intercept_h) / slope_h)")


_FRACTION_BITS = {10: "all ten fraction bits", 3: "all three fraction bits",
                  2: "both fraction bits"}
"""08.float16_edges: the fraction bits of each format, in words."""


def _edges_prompt(v: dict[str, Any]) -> list[str]:
    name, largest = v["name"], v["largest"]
    if name == "float16":
        said = 'The first section says float16\noverflows "a little past 65504".'
    else:
        said = (f"ml_dtypes' {name}, an 8-bit format\nwith an infinity, overflows a little "
                f"past {largest}.")
    return [f"{name}'s last step.** {said}",
            f"the smallest integer that {name} stores as {largest} and the smallest",
            f"({v['bits']} fraction bits, exponents up to {v['top']}, round to nearest",
            f"no {name} computation (the check refuses `{name}`",
            f"(first integer stored as {largest}, first"]


def _edges_solution(v: dict[str, Any]) -> str:
    bits, top, nxt, largest = v["bits"], v["top"], v["next"], v["largest"]
    step = 2 ** (top - bits)
    return (f"p, e_max = {bits}, {top}\n"
            f"step = 2.0 ** (e_max - p)                    # neighbours in [2**{top}, 2**{nxt}) "
            f"are {step} apart\n"
            f"largest = (2 - 2.0 ** -p) * 2.0 ** e_max     # {largest}: "
            f"{_FRACTION_BITS[bits]} are 1 (odd)\n"
            f"# the midpoint below is a tie between {largest - step} (even) and {largest}: it "
            "goes down, so the edge is one\n"
            f"# above it; the midpoint above is a tie between {largest} and 2**{nxt} (even): it "
            "goes up, to inf\n"
            "edges = (int(largest - step / 2) + 1, int(largest + step / 2))")


def _mla_prompt(v: dict[str, Any]) -> list[str]:
    if v["group"] == 1:
        return ["gave each\nof its heads its own rotary key $k^R$"]
    return [f"gave each\ngroup of {v['group']} of its heads a rotary key $k^R$ of its own"]


def _mla_solution(v: dict[str, Any]) -> str:
    group = v["group"]
    if group == 1:
        keys = ('own_rotary_keys = deepseek["num_attention_heads"] * '
                'deepseek["qk_rope_head_dim"]\n'
                'per_token = deepseek["kv_lora_rank"] + own_rotary_keys\n'
                "# 128 heads times 64 rotary dims dwarf the 512-number latent: sharing k^R keeps "
                "the cache small.")
    else:
        keys = (f'group_keys = deepseek["num_attention_heads"] // {group} * '
                'deepseek["qk_rope_head_dim"]\n'
                'per_token = deepseek["kv_lora_rank"] + group_keys\n'
                f"# {128 // group} groups times 64 rotary dims outweigh the 512-number latent: "
                "sharing k^R keeps the cache small.")
    return f'deepseek = PRESETS["deepseek-v3"]\n{keys}'


def _stale_prompt(v: dict[str, Any]) -> list[str]:
    if v["models"] == tuple(PRESETS):
        return ["Which models of `PRESETS` would hold wrong"]
    *head, last = (f"`{name}`" for name in v["models"])
    return [f"Which of the models {', '.join(head)} and {last} of `PRESETS` would hold wrong"]


def _stale_solution(v: dict[str, Any]) -> str:
    models = "PRESETS" if v["models"] == tuple(PRESETS) else repr(v["models"])
    return ("stale_cache = set()\n"
            f"for name in {models}:\n"
            "    config = PRESETS[name]\n"
            "    rotating = [k for k in config_layer_kinds(config) if k not in UNROTATED_KINDS]\n"
            "    if len(rotating) < 2:  # one RoPE for every layer, or none at all (Kimi Linear)\n"
            "        rotating = [None] * len(rotating)\n"
            "    for layer in rotating:\n"
            "        early, f_early = rope_frequencies_from_config(config, seq_len=1024, "
            "layer_type=layer)\n"
            "        late, f_late = rope_frequencies_from_config(config, seq_len=131072, "
            "layer_type=layer)\n"
            "        if f_early != f_late or not np.array_equal(early, late):\n"
            "            stale_cache.add(name)\n"
            "# Only LongRoPE switches its factors with the length. PI, YaRN and llama3 fix the "
            "frequencies\n# once, so a scaled model's cache stays valid.")


# --- notebooks 00-05 (issue 33, second round) -------------------------------------------------


def _gray_offsets_solution(v: dict[str, Any]) -> str:
    return ("def gray(p):\n"
            "    return p ^ (p >> 1)\n\n\n"
            "consistent_offsets = {\n"
            f"    k for k in range(1, {v['max_offset'] + 1})\n"
            '    if len({bin(gray(p) ^ gray(p + k)).count("1") for p in range(256 - k)}) == 1\n'
            "}\n"
            "# The powers of two. Step q flips the Gray bit numbered by the trailing 0s of q. "
            "Among 2^m\n"
            "# steps in a row, every bit below m - 1 flips an even number of times and cancels; "
            "bit m - 1\n"
            "# flips once and one bit >= m flips once: always 2 bits apart (1 bit for k = 1).")


def _half_turns_solution(v: dict[str, Any]) -> str:
    d, last = v["d"], v["pairs"] - 1
    return (f"# Half of the {d // 2} pairs is pairs 0 .. {last}. The wavelengths grow with i, "
            f"so pair {last} decides,\n"
            f"# and L tokens are L - 1 steps apart: we need lambda_{last} <= L - 1.\n"
            f"lambda_{last} = 2 * np.pi * 10000 ** (2 * {last} / {d})\n"
            f"n_tokens = int(np.ceil(lambda_{last})) + 1")


def _lost_pairs_solution(v: dict[str, Any]) -> str:
    return ("# base^(2i/d) > 65504  <=>  2i/d > ln(65504) / ln(base)\n"
            f"threshold = np.log(65504) / np.log({v['base']}.0)\n"
            "pair_index = np.arange(64)\n"
            "n_lost = int(np.sum(2 * pair_index / 128 > threshold))")


def _min_width_solution(v: dict[str, Any]) -> str:
    return (f"def nearest_miss_offset(d, base={v['base']:_}.0, n_positions=1000):\n"
            "    freqs = base ** (-np.arange(0, d, 2) / d)\n"
            "    k_all = np.arange(1, n_positions)\n"
            "    squared_gap = d - 2 * np.cos(np.outer(k_all, freqs)).sum(axis=1)  "
            "# |PE(t+k) - PE(t)|^2\n"
            "    return k_all[np.argmin(squared_gap)]\n\n\n"
            "min_width = next(d for d in range(2, 200, 2) if nearest_miss_offset(d) == 1)")


def _flat_columns_solution(v: dict[str, Any]) -> str:
    return (f"theta = inverse_frequencies({v['d']})\n"
            "turn = 99 * theta  # the angle each pair reaches over t = 0..99\n"
            "# A sine column rises from 0 while the angle is below pi/2 (beyond that it has moved "
            "a lot);\n"
            "# a cosine column falls from 1 by 1 - cos(angle) while the angle is below pi.\n"
            "sine_flat = (turn < np.pi / 2) & (np.sin(turn) < 0.01)\n"
            "cosine_flat = (turn < np.pi) & (1 - np.cos(turn) < 0.01)\n"
            "n_flat = int(sine_flat.sum() + cosine_flat.sum())")


def _previous_sines_solution(v: dict[str, Any]) -> str:
    k = v["k"]
    return ("# sin w(t-1) = sin(wt) cos w - cos(wt) sin w, so cos(wt) = (sin(wt) cos w - "
            "sin w(t-1)) / sin w.\n"
            f"# Then sin w(t+{k}) = cos({k}w) sin(wt) + sin({k}w) cos(wt)\n"
            f"#                 = [sin({k + 1}w) / sin w] sin(wt) - [sin({k}w) / sin w] "
            "sin w(t-1).\n"
            "w8 = 10000.0 ** (-np.arange(0, 16, 2) / 16)\n"
            f"w_two = np.hstack([np.diag(np.sin({k + 1} * w8) / np.sin(w8)), "
            f"np.diag(-np.sin({k} * w8) / np.sin(w8))])")


def _no_bounce_solution(v: dict[str, Any]) -> str:
    reach = v["reach"]
    return (f"# cos(w k) falls only while w k < pi, so for k up to {reach} every w must stay at or "
            f"below pi / {reach}.\n"
            "# The neighbour distance grows with the w's, so keep them large; but 64 equal speeds "
            "are one pair\n"
            f"# written 64 times, which repeats every {v['repeat']} positions. Spread them below "
            f"pi / {reach} instead.\n"
            f"freqs = np.pi / {reach} * np.linspace(0.6, 1.0, 64)")


_KEYS_05 = {"q": "$k=q$", "-q": "$k=-q$",
            "rot(q)": "$k=\\operatorname{rot}(q)$, the\nquarter turn of every pair "
                      "(`rotate_interleaved(q)`)"}
"""05.direction: how the prompt names each case's key."""
_WHY_05 = {"q": "s(-r) = q^T R_r^T q is the transpose of the number q^T R_r q, so it is the same "
                "number.",
           "-q": "s(-r) = -q^T R_r^T q is the transpose of the number -q^T R_r q, so it is the "
                 "same number.",
           "rot(q)": "Pair i of rot(q) is i times pair i of q, so s(r) = -sum_i |q_i|^2 "
                     "sin(r theta_i): odd in r."}
"""05.direction: the solution's reason for each case's ratio."""


def _direction_prompt(v: dict[str, Any]) -> list[str]:
    return [f"(a) {_KEYS_05[v['first']]}; (b) {_KEYS_05[v['second']]}",
            f"[ratio for k = {v['first']}, ratio for k = {v['second']}]"]


def _direction_solution(v: dict[str, Any]) -> str:
    ratios = ", ".join("-1.0" if v[case] == "rot(q)" else "1.0" for case in ("first", "second"))
    return (f"# (a) {_WHY_05[v['first']]}\n# (b) {_WHY_05[v['second']]}\n"
            f"ratios = [{ratios}]")


def _row_form_prompt(v: dict[str, Any]) -> list[str]:
    start, a, b = v["start"], v["a"], v["b"]
    return [f"`pe_{start} = sinusoidal_encoding_at([{start}], 16)[0]`",
            f"`M{a} = shift_matrix({a}, 16)`", f"`M{b} = shift_matrix({b}, 16)`",
            f"`pe_{start} @ M{a} @ M{a} @ M{b}.T`"]


def _row_form_solution(v: dict[str, Any]) -> str:
    start, a, b = v["start"], v["a"], v["b"]
    return ("# Row form: x @ M_k = (M_k^T x^T)^T = (M_(-k) x^T)^T, a shift back by k; and "
            f"M_{b}^T = M_(-{b}),\n"
            f"# so on the right it shifts forward by {b}. Net: {start} - {a} - {a} + {b}.\n"
            f"position = {start} - {a} - {a} + {b}")


_CONCAT_REST = (
    "angle = k_c * 10000.0 ** (-np.arange(0, d_c, 2) / d_c)     # theta_i k\n"
    "cos_k, sin_k = np.diag(np.cos(angle)), np.diag(np.sin(angle))\n"
    "# sin theta(t+k) =  cos(theta k) sin(theta t) + sin(theta k) cos(theta t)  "
    "(sines: rows 0..3)\n"
    "# cos theta(t+k) = -sin(theta k) sin(theta t) + cos(theta k) cos(theta t)  "
    "(cosines: rows 4..7)\n"
    "m = np.block([[cos_k, sin_k], [-sin_k, cos_k]])   # the course's M_k, rows and columns "
    "permuted")
"""04.concat_shift: the solution after its first line (which names k)."""


_TWINS_WHY = {
    "the mouse the cat was chasing": (
        'Position 0 is "the" in both sentences;\n'
        "# positions 1 to 3 differ (cat or mouse); from position 4 on both prefixes hold the same "
        "words.", "out_mouse_first", "out_cat_first"),
    "was the cat chasing the mouse": (
        'Positions 0 and 1 are "was the" in\n'
        "# both; from 2 to 4 one prefix holds cat where the other holds mouse; at 5 the prefixes "
        "agree,\n# but the words (mouse, cat) do not.", "out_cat_asked", "out_mouse_asked"),
    "chasing the cat the mouse was": (
        'Positions 0 and 1 are "chasing the" in\n'
        "# both; from 2 to 4 one prefix holds cat where the other holds mouse; at 5 both prefixes "
        'hold\n# the same words and the word is "was" in both.', "out_cat_chased",
        "out_mouse_chased"),
}
"""00.causal_twins: by first sentence, why the outputs agree where they do, and the names of
the two outputs in the solution."""


def _twins_prompt(v: dict[str, Any]) -> list[str]:
    words = v["first"].split()  # the notebook's line breaks after the fourth word
    # the stub's example answer, never the right one ({0, 1} is the question pair's answer)
    example = "{0, 1}" if v["first"] == "the mouse the cat was chasing" else "{1, 2}"
    return [f'"{" ".join(words[:4])}\n{" ".join(words[4:])}" and "{v["second"]}"',
            f"for example {example}"]


def _twins_solution(v: dict[str, Any]) -> str:
    why, first, second = _TWINS_WHY[v["first"]]
    return ("# With the mask, the output at t mixes tokens 0..t in no particular order: it "
            "depends on the\n"
            f"# word at t and on the collection of words up to t. {why}\n"
            f'{first} = causal_attention(embed("{v["first"]}"), w_q, w_k, w_v)\n'
            f'{second} = causal_attention(embed("{v["second"]}"), w_q, w_k, w_v)\n'
            f"same_positions = {{t for t in range(6) if np.allclose({first}[t], {second}[t])}}")


# --- detectors (issue 33, third round) ----------------------------------------------------------


def _checkpoint_set(layout: str, spacing: str) -> dict[str, Any]:
    """02.checkpoint_layout posed with the table of ``layout`` and ``spacing``, its numbers to
    10 significant digits (the release's setup cell writes them; the labels stay here)."""
    table = checkpoint_table(layout, spacing).ravel()
    return {"table": tuple(float(f"{x:.10g}") for x in table)}


def _checkpoint_solution(v: dict[str, Any]) -> str:
    # the layout from row 0 (interleaved: column 1 is cos 0 = 1), the spacing from the slowest
    # pair's sine at position 1, both read here apart from tools/answer_key.py
    table = np.array(v["table"]).reshape(40, 24)
    interleaved = table[0, 1] == 1.0
    column = 22 if interleaved else 11
    slowest = math.asin(table[1, column])
    spacing = "t2t" if abs(slowest / 1e-4 - 1) < 1e-6 else "paper"
    layout, where, said, row = (
        ("interleaved", "-2", "the last pair's sine", "0, 1, 0, 1, ...: sine and cosine alternate")
        if interleaved else
        ("concat", "11", "the last sine", "twelve 0s, then twelve 1s: all sines, then all cosines"))
    return ("stored = nb02.checkpoint_table()\n"
            f'print("row 0:", stored[0])  # {row}, so {layout}\n'
            f"theta_slowest = np.arcsin(stored[1, {where}])  # {said} at position 1\n"
            'print(f"slowest theta {theta_slowest:.4e}: paper {10000 ** (-22 / 24):.4e}, '
            't2t {1 / 10000:.4e}")\n'
            f'checkpoint = ("{layout}-{spacing}", theta_slowest)')


def _key_set(seed: int, position: int) -> dict[str, Any]:
    """05.layout and 05.key_position posed with a key (drawn from ``seed``) rotated in the
    interleaved pairs at ``position`` (the answer of 05.key_position, which the key's numbers
    hold and no value names), and the evidence measured on the half-split pairs, which then
    change their lengths; 12 significant digits."""
    key = checkpoint_key("interleaved", seed, position).ravel()
    return {"key": tuple(float(f"{x:.12g}") for x in key), "measured": "half-split",
            "pairs": "(i, i+8)"}


def _key_prompt(v: dict[str, Any]) -> list[str]:
    pair, article = (("2i", "2i+1"), "an") if v["measured"] == "interleaved" else (
        ("i", "i+8"), "a")
    lengths = [f"\\|({n}_{{{pair[0]}}}, {n}_{{{pair[1]}}})\\|" for n in "yx"]
    return [f"largest change of {article} {v['measured']}\npair's length, "
            f"$\\max_i \\left|\\,{lengths[0]} - {lengths[1]}\\,\\right|$",
            f"largest change of {article} {v['measured']} pair's length)"]


def _key_solution(v: dict[str, Any]) -> str:
    measured = "interleaved" if v["measured"] == "interleaved" else "half"
    return ("def pair_lengths(v, pairing):\n"
            '    first = np.arange(0, 16, 2) if pairing == "interleaved" else np.arange(8)\n'
            '    partner = first + 1 if pairing == "interleaved" else first + 8\n'
            "    return np.hypot(v[first], v[partner])\n\n\n"
            'kept = [p for p in ("interleaved", "half") if np.allclose(pair_lengths(x_key, p), '
            "pair_lengths(y_key, p))]\n"
            f'change = np.max(np.abs(pair_lengths(y_key, "{measured}") - '
            f'pair_lengths(x_key, "{measured}")))\n'
            'layout = (kept[0] if kept else "neither", change)')


KEY_AT = ((7, 4409), (33, 1861), (2718, 6547))
"""05.layout and 05.key_position: the seed of each drawn key and the position it is rotated at,
between 994 (pair 5 has wrapped: pi / theta_5 = 993.5) and the statement's context of 8000 (the
slowest pair has not: pi / theta_7 = 9934.6)."""
_KEY_SETS = tuple(_key_set(seed, position) for seed, position in KEY_AT)
"""The values 05.layout and 05.key_position are posed with together."""


def _scaling_prompt(v: dict[str, Any]) -> list[str]:
    if v["line"] == "i":
        return ["a straight line in the pair index:", "$\\ell$ is the straight line in $i$ through",
                "the line in i)"]
    return ["a straight line in the turn count (in $\\theta_i$):",
            "$\\ell$ is the straight line in $\\theta_i$ through", "the line in theta_i)"]


def _scaling_solution(v: dict[str, Any]) -> str:
    lines = {"i": "first + (last - first) * (pairs - pairs[0]) / (pairs[-1] - pairs[0])",
             "theta": "first + (last - first) * (trained_m[pairs] - trained_m[pairs[0]]) / (\n"
                      "    trained_m[pairs[-1]] - trained_m[pairs[0]])"}
    measured, other = ("i", "theta") if v["line"] == "i" else ("theta", "i")
    said = {"i": "in theta_i below 1e-12", "theta": "in i below 1e-12"}[measured]
    why = {"theta": "Llama 3's rule, the YaRN paper's form", "i": "YaRN's reference code"}[other]
    straight, bent = ("yarn", "llama3") if measured == "i" else ("llama3", "yarn")
    return ("trained_m = 1e6 ** (-np.arange(0, 64, 2) / 64)\n"
            "ratio_m = mystery / trained_m\n"
            "pairs = np.flatnonzero((ratio_m < 1 - 1e-9) & (ratio_m > ratio_m.min() + 1e-9))"
            "  # the blend\n"
            "first, last = ratio_m[pairs[0]], ratio_m[pairs[-1]]\n"
            f"line_in_{measured} = {lines[measured]}\n"
            f"gap = np.max(np.abs(ratio_m[pairs] - line_in_{measured}))\n"
            f"# the same blend against a straight line in {'theta_i' if other == 'theta' else 'i'}"
            f" ({why})\n"
            f"line_in_{other} = {lines[other]}\n"
            'print(f"{pairs.size} pairs blend; largest gap to a line in '
            f"{'i' if measured == 'i' else 'theta_i'}: {{gap:.3f}}, \"\n"
            f'      f"{said}: {{np.max(np.abs(ratio_m[pairs] - line_in_{other})) < 1e-12}}")\n'
            f'method = ("{straight}" if gap < 1e-9 else "{bent}", gap)')


def _tables_set(*tables: tuple[int, int, bool]) -> dict[str, Any]:
    """11.table_orientation posed with smaller tables ((n_positions, d_model, transposed) each;
    widths of no other exercise), row by row to 10 significant digits."""
    return {"tables": tuple(tuple(tuple(float(f"{x:.10g}") for x in row)
                                  for row in drawn_table(*table)) for table in tables)}


_TABLES_SOLUTION = """tables = nb11.mystery_tables()
rows_are_positions = np.array([
    np.allclose(np.linalg.norm(table, axis=1), np.sqrt(table.shape[1] / 2)) for table in tables
])
# Every position vector has norm sqrt(d_model / 2). A row of a transposed table is one dimension
# across the positions, and those norms differ from row to row (a slow cosine stays near 1)."""
"""11.table_orientation's solution, which reads any tables."""


_SHIFT_WORDS = {3: "three", 2: "two", 5: "five", 7: "seven"}
"""03.offset_only: the shift of the third matrix, in words."""


def _offset_prompt(v: dict[str, Any]) -> list[str]:
    items = ["the sinusoidal $PE\\,PE^\\top$", "the dot products of a random (learned-like) table",
             f"the sinusoidal score of $a$ against the position {_SHIFT_WORDS[v['shift']]} places "
             "after $b$",
             "the dot products of word embedding plus position, $(e+p)(e+p)^\\top$"]
    listed = [items[i] for i in v["order"]]
    sentence = f"position $b$: {', '.join(listed[:3])}, and {listed[3]}."
    if v["order"] == (0, 1, 2, 3):  # the notebook's own line breaks
        sentence = sentence.replace(": the sinusoidal", ": the\nsinusoidal").replace(
            "sinusoidal score of", "sinusoidal score\nof").replace(" plus position",
                                                                    " plus\nposition")
    return [sentence]


_OFFSET_SOLUTION = """def constant_diagonals(matrix):
    size = len(matrix)
    return all(np.ptp(np.diagonal(matrix, j)) < 1e-9 for j in range(1 - size, size))


offset_only = [constant_diagonals(matrix) for matrix in candidates.values()]"""
"""03.offset_only's solution, which reads any matrices."""


_LAYERS_SOLUTION = """def is_equivariant(layer, trials=20, seed=0):
    draw = np.random.default_rng(seed)
    for _ in range(trials):  # one permutation can agree by chance; several cannot
        x, p = draw.normal(size=(6, 4)), draw.permutation(6)
        if not np.allclose(layer(x[p]), layer(x)[p]):
            return False
    return True


equivariant = {name for name, layer in nb00.layers().items() if is_equivariant(layer)}
# sort_rows is invariant (same output in any order), so it is NOT equivariant; pool_broadcast
# has equal rows, so it is both. A mask or an added index ties a token to its place."""
"""00.equivariant_layers' solution, which tests any layers."""


def _spread_solution(v: dict[str, Any]) -> str:
    column = ("1x", "2x", "4x", "8x").index(v["multiple"])
    return ("from posenc_lib.lab.verdicts import t_quantile\n\n"
            f'other = stats[("{v["task"]}", "{v["scheme"]}")][:5, {column}]  '
            f"# seeds 0-4 (rows in seed order), at {v['multiple']}\n"
            f'rope = stats[("{v["task"]}", "rope")][:5, {column}]\n'
            "d = other - rope  # one difference per seed\n"
            "n = len(d)\n"
            "half = t_quantile(n - 1) * d.std(ddof=1) / np.sqrt(n)  # t_{0.975, n-1} s / sqrt(n)\n"
            "interval = (d.mean() - half, d.mean() + half)")


# --- 05 and 06, the last two value exercises (issue 33, finish) --------------------------------


def _yarn_head_prompt(v: dict[str, Any]) -> list[str]:
    ratios = [f"the {v['d'] // 2} frequency ratios", f"answer: {v['d'] // 2} ratios"]
    if v["head"] == "gpt-oss's":  # the notebook's own head, a real model's config
        return ["derivation): gpt-oss's ramp.**", "gpt-oss-20b's heads have $d = 64$ and\n"
                "base 150000; the model was trained on $L = 4096$ positions and is stretched by "
                "$s = 32$ with", *ratios]
    return ["derivation): a ramp left unrounded.**", f"A model's heads have $d = {v['d']}$ and\n"
            f"base {v['base']}; the model was trained on $L = {v['L']}$ positions and is "
            f"stretched by $s = {v['s']}$ with", *ratios]


_POSITION_SOLUTION = """\
# The slowest pair of the layout found in exercise 2: (x[7], x[15]) half-split, (x[14], x[15])
# interleaved. It turns by m * theta_7, which stays below pi for every m under pi / theta_7
# (about 9900), so its angle gives m without wrapping.
a, b = (7, 15) if layout[0].startswith("half") else (14, 15)
theta16 = 10000.0 ** (-np.arange(0, 16, 2) / 16)
turn = complex(y_key[a], y_key[b]) / complex(x_key[a], x_key[b])
m_key = int(round(np.angle(turn) / theta16[7]))"""
"""05.key_position's solution, which reads the position off any key."""


def _yarn_head_solution(v: dict[str, Any]) -> str:
    return (f"d_g, base_g, trained_g, s_g = {v['d']}, {v['base']}.0, {v['L']}, {v['s']}.0\n\n"
            "def index_of(r):\n"
            "    return d_g * np.log(trained_g / (2 * np.pi * r)) / (2 * np.log(base_g))\n\n"
            "start, stop = index_of(32.0), index_of(1.0)                       "
            "# truncate false: not rounded\n"
            "weight = np.clip((np.arange(d_g // 2) - start) / (stop - start), 0.0, 1.0)\n"
            "yarn_ratio = (1 - weight) * 1.0 + weight / s_g                     "
            "# keep ... divide by s")


VARIANTS: dict[str, Variant] = {
    "01.carry_flips": Variant(
        sets=({"positions": (39, 79, 31, 119)}, {"positions": (27, 55, 127, 71)},
              {"positions": (11, 59, 15, 103)}, {"positions": (43, 87, 191, 30)}),
        prompt=_carry_prompt, solution=_carry_solution),
    "06.ramp_bounds": Variant(
        sets=({"times": 2, "L": 8192}, {"times": 8, "L": 32768}, {"times": 16, "L": 65536}),
        prompt=lambda v: [f"trained {v['times']} times longer, $L = {v['L']}$"],
        solution=_ramp_solution),
    "06.dynamic_cache": Variant(
        sets=({"key": 3000, "now": 8000}, {"key": 2200, "now": 5000},
              {"key": 4096, "now": 10000}, {"key": 2800, "now": 7000}),
        prompt=lambda v: [f"$m = {v['key']}$", f"sequence was {v['key']} tokens",
                          f"grown to {v['now']} tokens"],
        solution=_cache_solution),
    "08.bfloat16_ties": Variant(
        sets=({"positions": (257, 258, 259, 262), "low": 256, "high": 512},
              {"positions": (1028, 1030, 1036, 1045), "low": 1024, "high": 2048},
              {"positions": (2056, 2065, 2072, 2090), "low": 2048, "high": 4096}),
        prompt=_ties_prompt, solution=_ties_solution),
    "05.base_for_context": Variant(
        sets=({"context": 65536, "last": 65535}, {"context": 262144, "last": 262143},
              {"context": 32768, "last": 32767}, {"context": 16384, "last": 16383}),
        prompt=lambda v: [f"context of {v['context']}", f"$0,\\dots,{v['last']}$"],
        solution=_context_solution),
    "11.ntk_ratios": Variant(
        sets=({"s": 2}, {"s": 16}, {"s": 32}),
        prompt=lambda v: [f"Rebuilt with $s = {v['s']}$"],
        solution=_ntk_solution),
    "02.slow_pair": Variant(
        sets=({"pos": 1700}, {"pos": 4200}, {"pos": 3100}, {"pos": 5300}),
        prompt=lambda v: [f"encoding of position {v['pos']}?",
                          f"[PE({v['pos']}, 6), PE({v['pos']}, 7)]"],
        solution=_slow_pair_solution),
    "03.half_norms": Variant(
        sets=({"d": 64, "columns": 32}, {"d": 128, "columns": 64}, {"d": 80, "columns": 40}),
        prompt=lambda v: [f"$d_{{model}}={v['d']}$ at position",
                          f"the {v['columns']} sine columns (`row[0::2]`)",
                          f"the {v['columns']} cosine columns (`row[1::2]`)"],
        solution=lambda v: (f"# At t = 0 every angle is 0: the {v['columns']} sine columns hold "
                            f"sin 0 = 0, the {v['columns']} cosine columns cos 0 = 1.\n"
                            f"halves = [0.0, {v['columns']}**0.5]")),
    "11.octaves": Variant(
        sets=({"d": 384}, {"d": 1024}, {"d": 768}),
        prompt=_octaves_prompt, solution=_octaves_solution),
    "09.mrope_positions": Variant(
        sets=({"before": 4, "rows": 2, "cols": 2, "after": 2},
              {"before": 1, "rows": 3, "cols": 3, "after": 2},
              {"before": 2, "rows": 4, "cols": 2, "after": 2},
              {"before": 2, "rows": 2, "cols": 4, "after": 3}),
        prompt=_mrope_prompt, solution=_mrope_solution),
    "07.t5_decoder_starts": Variant(
        sets=({"max_distance": 512}, {"max_distance": 384}, {"max_distance": 1024}),
        prompt=lambda v: [f"distance {v['max_distance']}, {_TIMES_T5[v['max_distance']]} T5's"],
        solution=_decoder_solution),
    "07.alibi_local_heads": Variant(  # never 20 or 40: there 1/m < window gives the same heads
        sets=({"recent": 5, "last": 4}, {"recent": 30, "last": 29}, {"recent": 60, "last": 59}),
        prompt=lambda v: [f"the {v['recent']} most recent tokens (itself and the {v['last']} "
                          "before it)"],
        solution=_window_solution),
    "04.shift_back": Variant(
        sets=({"known": 31, "target": 19, "back": 12, "forward": 43},
              {"known": 25, "target": 9, "back": 16, "forward": 41},
              {"known": 40, "target": 28, "back": 12, "forward": 52},
              {"known": 18, "target": 5, "back": 13, "forward": 31}),
        prompt=_shift_back_prompt,
        solution=lambda v: (f"back = shift_matrix(-{v['back']}, 24) @ pe_{v['known']}  "
                            f"# M_(-{v['back']}) = M_{v['back']}^T moves every pair back by "
                            f"{v['back']} positions")),
    "01.ternary_periods": Variant(
        sets=({"digits": 4, "word": "four", "last": 80}, {"digits": 6, "word": "six", "last": 728},
              {"digits": 7, "word": "seven", "last": 2186}),
        prompt=lambda v: [f"For positions 0 to {v['last']} ({v['word']} digits",
                          f"store the {v['word']} periods", f"an array of {v['digits']} periods"],
        solution=_ternary_solution),
    "09.partial_vs_p_rope": Variant(  # p at most 1/2: a mistake keeps 2p of the head
        sets=({"p": 0.5, "stopped": "1/2", "dims": 32, "pairs": 16},
              {"p": 0.125, "stopped": "7/8", "dims": 8, "pairs": 4},
              {"p": 0.375, "stopped": "5/8", "dims": 24, "pairs": 12}),
        prompt=lambda v: [f"$p = {v['p']}$: row 0 under partial rotary"],
        solution=_partial_solution),
    "00.same_cat": Variant(  # the letters of the notebook's sentences a, b, c, d, e
        sets=({"letters": "dbeac"}, {"letters": "ecabd"}, {"letters": "cdbea"}),
        prompt=_same_cat_prompt, solution=_same_cat_solution),
    # --- notebooks 06 to 10 (second helper of issue 33) ---
    "07.alibi_self_weight": Variant(  # the stored mistakes (sign, slope doubled) are not named
        sets=({"slope": 0.125, "m": "1/8"}, {"slope": 0.0625, "m": "1/16"},
              {"slope": 0.5, "m": "1/2"}),
        prompt=lambda v: [f"slope $m = {v['m']}$"], solution=_self_weight_solution),
    "08.truncation_bias": Variant(  # the stored mistakes (one binade's bias) are not named
        sets=({"low": 1, "high": 4}, {"low": 1, "high": 16}, {"low": 4, "high": 32}),
        prompt=lambda v: [f"$[{v['low']}, {v['high']})$"], solution=_truncation_solution),
    # Notebook 10's answers that read the committed training results (10.break_position) are
    # posed with another threshold on the same curves: the runs are not redone at build time.
    "10.turning_pairs": Variant(  # the stored mistakes (no 2 pi, within 32) are not named
        sets=({"length": 256, "times": 8}, {"length": 1024, "times": 32},
              {"length": 2048, "times": 64}),
        prompt=_covered_prompt, solution=_covered_solution),
    "10.break_position": Variant(  # the stored mistake (RoPE's curve) is not named
        sets=({"threshold": 0.4}, {"threshold": 0.6}, {"threshold": 0.7}),
        prompt=lambda v: [f"mean accuracy is below {v['threshold']}"],
        solution=_break_solution),
    "10.t5_far_bucket": Variant(  # the stored mistakes (8x, bidirectional) are not named
        sets=({"tokens": 64, "times": 2}, {"tokens": 256, "times": 8},
              {"tokens": 512, "times": 16}),
        prompt=_far_prompt, solution=_far_solution),
    "09.llama31_slow_pairs": Variant(  # the presets with a llama3 scaling that has a middle band
        sets=({"model": "llama-3.2-1b", "name": "Llama 3.2 1B", "head": 64, "turns": 1,
               "turn": "one turn", "line": "one-turn"},
              {"model": "llama-3.1-8b", "name": "Llama 3.1 8B", "head": 128, "turns": 2,
               "turn": "two turns", "line": "two-turn"},
              {"model": "llama-3.2-1b", "name": "Llama 3.2 1B", "head": 64, "turns": 2,
               "turn": "two turns", "line": "two-turn"}),
        prompt=_slow_pairs_prompt, solution=_slow_pairs_solution),
    "06.llama3_bands": Variant(  # other hidden bands, with a d, base and L the public code lacks
        sets=(_bands_set(128, 500000, 32768), _bands_set(128, 10000, 4096),
              _bands_set(128, 1000000, 16384)),
        prompt=_bands_prompt, solution=_bands_solution),
    "08.float16_edges": Variant(  # ml_dtypes' formats with an infinity and integer edges
        sets=({"name": "float8_e5m2", "bits": 2, "top": 15, "next": 16, "largest": 57344},
              {"name": "float8_e4m3", "bits": 3, "top": 7, "next": 8, "largest": 240}),
        prompt=_edges_prompt, solution=_edges_solution),
    "09.mla_cache": Variant(  # DeepSeek-V3's real sizes; a rotary key per group of heads
        sets=({"group": 2, "who": "group of 2 heads", "count": "num_attention_heads / 2"},
              {"group": 4, "who": "group of 4 heads", "count": "num_attention_heads / 4"},
              {"group": 8, "who": "group of 8 heads", "count": "num_attention_heads / 8"}),
        prompt=_mla_prompt, solution=_mla_solution),
    "09.cache_survives": Variant(  # five presets each, one LongRoPE model among static scalings
        sets=({"models": ("llama-3.1-8b", "phi-4-mini", "deepseek-v3", "gemma-3-27b",
                          "qwen3-8b")},
              {"models": ("gpt-oss-20b", "llama-4-scout", "phi-3.5-mini", "mistral-7b-v0.3",
                          "qwen2.5-vl-7b")},
              {"models": ("gemma-3-27b", "llama-3.2-1b", "smollm3-3b", "gpt-oss-20b",
                          "phi-4-mini")}),
        prompt=_stale_prompt, solution=_stale_solution),
    # --- notebooks 00-05 (issue 33, second round)
    "01.gray_offsets": Variant(  # k up to 100 keeps p = 0 .. 255 - k a long run for every k
        sets=({"max_offset": 12}, {"max_offset": 40}, {"max_offset": 100}),
        prompt=lambda v: [f"$k = 1, \\dots, {v['max_offset']}$"],
        solution=_gray_offsets_solution),
    "02.half_turns": Variant(  # d_model a multiple of 8: half of its dimensions are whole pairs
        sets=({"d": 64, "pairs": 16, "eighth": 8}, {"d": 96, "pairs": 24, "eighth": 12},
              {"d": 256, "pairs": 64, "eighth": 32}),
        prompt=lambda v: [f"For $d_{{model}} = {v['d']}$ (base 10000)"],
        solution=_half_turns_solution),
    "02.float16_lost_pairs": Variant(  # real models of head size 128 (posenc_lib.presets)
        sets=({"model": "Qwen3-8B", "base": 1000000}, {"model": "SmolLM3-3B", "base": 5000000},
              {"model": "Mistral-7B-v0.3", "base": 1000000}),
        prompt=lambda v: [f"{v['model']}'s base\n{v['base']}"],
        solution=_lost_pairs_solution),
    "03.min_width": Variant(  # larger bases still, as the prompt's "larger base" asks
        sets=({"base": 500000}, {"base": 1000000}, {"base": 10000000}),
        prompt=lambda v: [f"base\n{v['base']} and a"],
        solution=_min_width_solution),
    "03.flat_columns": Variant(
        sets=({"d": 768}, {"d": 1536}, {"d": 2048}),
        prompt=lambda v: [f"for $d_{{model}}={v['d']}$ and the same 100 tokens"],
        solution=_flat_columns_solution),
    "04.previous_sines": Variant(  # never k = 4: the notebook's stored mistake is its answer
        sets=({"k": 3, "before": 2}, {"k": 6, "before": 5}, {"k": 7, "before": 6}),
        prompt=lambda v: [f"$d_{{model}}=16$ and $k={v['k']}$, build the",
                          f"\\big[\\sin\\theta_i(t+{v['k']})\\big]"],
        solution=_previous_sines_solution),
    "03.no_bounce": Variant(  # a shorter reach asks for a wider gap, a longer one allows less
        sets=({"reach": 50, "gap": 0.4, "repeat": 100},
              {"reach": 60, "gap": 0.33, "repeat": 120},
              {"reach": 150, "gap": 0.13, "repeat": 300},
              {"reach": 200, "gap": 0.1, "repeat": 400}),
        prompt=lambda v: [f"$k=0$ to $k={v['reach']}$, while neighbouring positions stay at least "
                          f"{v['gap']} apart"],
        solution=_no_bounce_solution),
    "04.forward_head": Variant(
        sets=({"ahead": 3}, {"ahead": 5}, {"ahead": 6}, {"ahead": 7}),
        prompt=lambda v: [f"peaks at $j=i+{v['ahead']}$ for every query that has a token "
                          f"{v['ahead']} places ahead",
                          f"each token looks {v['ahead']} tokens forward"],
        solution=lambda v: (f"# x_i M_k is PE(i - k) in row form, so x_i M_(-{v['ahead']}) = "
                            f"PE(i + {v['ahead']}), and the score peaks at j = i + {v['ahead']}.\n"
                            f"w_forward = shift_matrix(-{v['ahead']}, 32)")),
    "05.direction": Variant(  # the cases reordered, or -q for q: [1, 1] would be a mistake's
        sets=({"first": "rot(q)", "second": "q", "even": "b", "odd": "a"},
              {"first": "rot(q)", "second": "-q", "even": "b", "odd": "a"}),
        prompt=_direction_prompt, solution=_direction_solution),
    "04.row_form_position": Variant(  # shifts other than 6 and 4, so no text is posed twice
        sets=({"start": 70, "a": 5, "b": 3}, {"start": 40, "a": 7, "b": 2},
              {"start": 90, "a": 8, "b": 5}),
        prompt=_row_form_prompt, solution=_row_form_solution),
    "04.concat_shift": Variant(
        sets=({"k": 2}, {"k": 5}, {"k": 7}),
        prompt=lambda v: [f"$d_{{model}}=8$ and $k={v['k']}$"],
        solution=lambda v: (f"d_c, k_c = 8, {v['k']}\n"
                            + _CONCAT_REST)),
    "05.half_matrix": Variant(
        sets=({"m": 3}, {"m": 5}, {"m": 7}),
        prompt=lambda v: [f"$m={v['m']}$ (base 10000)", f"by the angle ${v['m']}\\theta_i$"],
        solution=lambda v: ("theta6 = 10000.0 ** (-np.arange(0, 6, 2) / 6)\n"
                            "r_half = np.zeros((6, 6))\n"
                            f"for i, angle in enumerate({v['m']} * theta6):\n"
                            "    pair = [i, i + 3]  # half-split: coordinate i and its partner "
                            "i + d/2\n"
                            "    r_half[np.ix_(pair, pair)] = [[np.cos(angle), -np.sin(angle)], "
                            "[np.sin(angle), np.cos(angle)]]")),
    "00.causal_twins": Variant(  # not the active pair (cat/mouse swapped): {0}, a mistake's
        sets=({"first": "was the cat chasing the mouse",
               "second": "was the mouse chasing the cat"},
              {"first": "chasing the cat the mouse was",
               "second": "chasing the mouse the cat was"}),
        prompt=_twins_prompt, solution=_twins_solution),
    # --- detectors (issue 33, third round)
    "02.checkpoint_layout": Variant(  # the other three layouts and spacings; no text names them
        sets=(_checkpoint_set("concat", "t2t"), _checkpoint_set("concat", "paper"),
              _checkpoint_set("interleaved", "paper")),
        prompt=lambda v: [], solution=_checkpoint_solution),
    "05.layout": Variant(  # keys rotated in the interleaved pairs, at the positions of KEY_AT
        sets=_KEY_SETS, prompt=_key_prompt, solution=_key_solution),
    "06.which_scaling": Variant(  # YaRN's frequencies, the evidence from the line in theta_i
        sets=tuple({"frequencies": tuple(map(float, mystery_frequencies(config))),
                    "line": "theta_i", "straight": "llama3",
                    "why": "Llama 3 blends in a straight line in the turn count, proportional to "
                    "theta_i, and this blend is no such line"} for config in YARN_CONFIGS),
        prompt=_scaling_prompt, solution=_scaling_solution),
    "11.table_orientation": Variant(  # other orientations; the shapes mislead as often
        sets=(_tables_set((20, 12, True), (14, 18, False), (16, 14, True), (10, 22, False)),
              _tables_set((18, 10, False), (12, 20, True), (22, 14, True), (20, 12, False)),
              _tables_set((12, 22, True), (14, 10, True), (20, 18, False), (10, 20, False))),
        prompt=lambda v: [], solution=lambda v: _TABLES_SOLUTION),
    "03.offset_only": Variant(  # the matrices in another order, another shift and seed
        sets=({"order": (1, 0, 3, 2), "shift": 5, "seed": 11},
              {"order": (3, 2, 0, 1), "shift": 2, "seed": 23},
              {"order": (0, 3, 1, 2), "shift": 7, "seed": 5}),
        prompt=_offset_prompt, solution=lambda v: _OFFSET_SOLUTION),
    "00.equivariant_layers": Variant(  # other layers beside the four the mistakes name
        sets=({"names": ("row_mlp", "attention_plus_mean", "subtract_first", "causal_attention",
                         "column_softmax", "roll_down", "sort_rows", "pool_broadcast")},
              {"names": ("causal_attention", "row_mlp", "roll_down", "attention", "sort_rows",
                         "running_mean", "column_softmax", "pool_broadcast")},
              {"names": ("row_mlp", "attention_plus_index", "attention_plus_mean", "sort_rows",
                         "subtract_first", "centre", "causal_attention", "pool_broadcast")}),
        prompt=lambda v: [], solution=lambda v: _LAYERS_SOLUTION),
    # the same committed runs, another task or multiple (the stored fixed-gap mistake not named)
    "10.seed_spread": Variant(
        sets=({"task": "copy_back", "multiple": "2x", "scheme": "t5", "named": "T5"},
              {"task": "induction_once", "multiple": "4x", "scheme": "alibi", "named": "ALiBi"},
              {"task": "assoc_recall", "multiple": "8x", "scheme": "nope", "named": "NoPE"}),
        prompt=lambda v: [f"At {v['multiple']} on `{v['task']}`, compare {v['named']} with RoPE"],
        solution=_spread_solution),
    # --- 05 and 06, the last two value exercises (issue 33, finish)
    "06.yarn_ratios": Variant(  # heads whose ramp ends are fractions inside the pairs
        sets=({"head": "A head's", "d": 128, "base": 1000000, "L": 32768, "s": 4},
              {"head": "A head's", "d": 64, "base": 10000, "L": 4096, "s": 40},
              {"head": "A head's", "d": 96, "base": 50000, "L": 2048, "s": 8},
              {"head": "A head's", "d": 128, "base": 500000, "L": 16384, "s": 8}),
        prompt=_yarn_head_prompt, solution=_yarn_head_solution),
    "05.key_position": Variant(  # 05.layout's keys, drawn with it (DRAWN_WITH): no text names them
        sets=_KEY_SETS, prompt=lambda v: [], solution=lambda v: _POSITION_SOLUTION),
}
"""The exercises a graded release poses with other values, by key."""


DRAWN_WITH = {"05.key_position": "05.layout"}
"""Exercises posed with the values drawn for another one (the same sets, the same draw):
05.key_position reads the position off the key 05.layout hands out."""


def draw(seed: int, key: str) -> dict[str, Any]:
    """The values the release of instructor seed ``seed`` poses exercise ``key`` with (never
    the notebook's own)."""
    return dict(random.Random(f"{seed}/{DRAWN_WITH.get(key, key)}").choice(VARIANTS[key].sets))


NOTEBOOK_VALUES: dict[str, dict[str, Any]] = {
    key: dict(all_exercises()[key].params or {}) for key in VARIANTS
}
"""The values the source notebook poses each exercise of :data:`VARIANTS` with."""


@contextmanager
def posed(key: str, values: dict[str, Any] | None) -> Iterator[Exercise]:
    """Exercise ``key`` posed with ``values`` (as the notebook poses it for None), then with the
    values it had before again (so that a ``posed`` inside another one, as :func:`answer_for`
    is, leaves the outer one's values in place)."""
    exercise = all_exercises()[key]
    if values is None:
        yield exercise
        return
    before = dict(exercise.params or {})
    exercise.use(**values)
    try:
        yield exercise
    finally:
        exercise.use(**before)


def answer_for(key: str, values: dict[str, Any]) -> Any:
    """The right answer of exercise ``key`` posed with ``values``."""
    with posed(key, values):
        return EXPECTED[key]()

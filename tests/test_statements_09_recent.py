"""Notebook 09's newest sections (issue 22): Qwen3-VL's interleaved M-RoPE, DeepSeek-V3.2's
indexer and DeepSeek-V4's two bases.

Every number the notebook prints or states is recomputed here from the published config values
(``posenc_lib.presets.PRESET_SOURCES`` records where each comes from) with the formulas written out
(``tests/rope_by_hand.py``: RoPE's ``theta_i = base**(-2i/d)``, YaRN's ramp as transformers
computes it) and the score of a rotated pair as a sum of cosines.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from posenc_lib.models import rope_frequencies_from_config
from posenc_lib.presets import PRESETS
from tests.rope_by_hand import theta, yarn_by_hand
from tests.statements_helpers import FRACTION_WORDS, NUMBER_WORDS, stated
from tools.notebook_cells import ROOT, load, source

NB09 = ROOT / "notebooks" / "09_rope_in_todays_models.ipynb"


def _printed(marker: str) -> str:
    cells = [c for c in load(NB09)["cells"] if c["cell_type"] == "code" and marker in source(c)]
    assert len(cells) == 1, marker
    return "".join("".join(o.get("text", "")) for o in cells[0]["outputs"])


def _markdown() -> str:
    return "\n".join(source(c) for c in load(NB09)["cells"] if c["cell_type"] == "markdown")


def _plain(d: int, base: float) -> np.ndarray:
    return np.array(theta(d, base))


def _yarn(d: int, base: float, s: float, length: int) -> np.ndarray:
    return np.array(yarn_by_hand(d, base, s, length))


def test_qwen3_vl_wavelengths_per_axis_in_both_layouts() -> None:
    lam = 2 * np.pi / _plain(128, 5_000_000.0)
    pair = np.arange(64)
    contiguous = np.repeat([0, 1, 2], [24, 20, 20])
    interleaved = np.zeros(64, dtype=int)       # pair 3j+1 reads h, 3j+2 reads w, for j < 20
    interleaved[(pair % 3 == 1) & (pair < 60)] = 1
    interleaved[(pair % 3 == 2) & (pair < 60)] = 2
    rows = _printed("theta_vl3").splitlines()
    for row, axes in zip(rows, (contiguous, interleaved), strict=True):
        numbers = [float(x.replace(",", "")) for x in re.findall(r"[\d,]+(?:\.\d+)?", row)]
        expected = [v for axis in range(3)
                    for v in (lam[axes == axis].min(), lam[axes == axis].max())]
        assert numbers == pytest.approx(expected, abs=0.5)
    # the prose: contiguous height starts near 2 000, width near 250 000, so one step turns no
    # width pair by more than a 250 000th of a turn; interleaved, every axis spans from about
    # ten tokens to millions
    text = " ".join(_markdown().split())
    height, width, turn = (int(v.replace(" ", "")) for v in stated(
        r"height has a wavelength of about (\d[\d ]*\d) and the fastest reading width about "
        r"(\d[\d ]*\d): one step along a row of patches turns no pair by more than a "
        r"(\d[\d ]*\d)th of a turn", text, str))
    assert height == round(lam[contiguous == 1].min(), -3)
    assert width == round(lam[contiguous == 2].min(), -4)
    assert 1 / lam[contiguous == 2].min() < 1 / turn * 1.05  # one step: 1/lambda of a turn
    assert all(lam[interleaved == axis].min() < 10.5 for axis in range(3))
    assert all(lam[interleaved == axis].max() > 1e6 for axis in range(3))


def test_the_indexer_keeps_2048_of_the_earlier_tokens() -> None:
    rows = _printed("index_topk").splitlines()
    for n in (2048, 8192, 32768, 131072, 163840):
        (row,) = [r for r in rows if r.strip().startswith(f"{n:,} ")]
        assert row.endswith(f"{min(2048, n) / n:6.1%} of them")


def test_the_slow_channel_read_in_the_wrong_layout_scores_by_distance() -> None:
    theta = _yarn(64, 10_000.0, 40.0, 4096)
    read, _ = rope_frequencies_from_config(PRESETS["deepseek-v3.2-exp"])
    assert read == pytest.approx(theta)
    d = np.array([0, 100, 1000, 10000])
    half = 2 * np.cos(d * theta[31])                        # dims 31 and 63 are pair 31
    interleaved = np.cos(d * theta[15]) + np.cos(d * theta[31])   # dim 31 -> pair 15, 63 -> pair 31
    rows = _printed("keys @ channel").splitlines()
    for row, expected in zip(rows, (half, interleaved), strict=True):
        values = [float(v) for v in re.findall(r"-?\d+\.\d*", row.split(":")[1])]
        assert values == pytest.approx(np.round(expected, 3), abs=1e-3)
    text = " ".join(_markdown().split())
    slow = stated(r"whose wavelength is about ([\d.]+) million tokens", text)
    assert round(2 * np.pi / theta[31], -5) == slow * 1e6
    fast = stated(r"dim 31 belongs to pair 15 \(wavelength about (\d+) tokens\)", text)
    assert round(2 * np.pi / theta[15], -1) == fast
    over, moves = stated(r"over ([\d ]+) tokens its score moves by a (\w+)\.", text, str)
    assert int(over.replace(" ", "")) == d[-1]
    assert {"thousandth": 1e-3, "hundredth": 1e-2}[moves] <= 2 - half[-1] < 2e-3


def test_deepseek_v4_two_bases() -> None:
    v4 = PRESETS["deepseek-v4-flash"]
    out = _printed("compress_rope_theta")
    assert "{0: 2, 4: 21, 128: 20}" in out
    sliding = _plain(64, 10_000.0)
    slow = int(np.sum(sliding * 128 / (2 * np.pi) < 1))
    assert f"sliding: {slow} of 32 pairs" in out and slow == 21
    count, part = stated(r"(\w+) (\w+)s of a sliding layer's pairs never complete a turn",
                         _markdown(), str)
    assert slow / 32 == pytest.approx(NUMBER_WORDS[count.lower()] * FRACTION_WORDS[part],
                                      abs=0.02)
    compressed = _yarn(64, 160_000.0, 16.0, 65536)
    ratio = compressed / _plain(64, 160_000.0)
    kept, divided = int(np.isclose(ratio, 1).sum()), int(np.isclose(ratio, 1 / 16).sum())
    assert f"{kept} pairs kept, {divided} divided by 16" in out and (kept, divided) == (16, 7)
    assert "attention factor 1.0" in out
    slowest = 2 * np.pi / compressed.min()
    under = int(np.sum(compressed * 1_048_576 / (2 * np.pi) < 1))
    assert f"slowest wavelength {slowest:,.0f}; {under} pairs under one turn" in out
    # the YaRN factor the compressed layers do not use
    ln_of, value = stated(r"\$0\.1 \\ln (\d+) \+ 1 = (\d+\.\d+)\$", _markdown(), str)
    factor = v4["rope_scaling"]["factor"]
    assert int(ln_of) == factor
    assert value == f"{0.1 * math.log(factor) + 1:.2f}"
    for kind, expected in (("sliding_attention", sliding),
                           ("compressed_sparse_attention", compressed),
                           ("heavily_compressed_attention", compressed)):
        inv_freq, factor = rope_frequencies_from_config(v4, layer_type=kind)
        assert inv_freq == pytest.approx(expected) and factor == 1.0


def test_deepseek_v4_needs_a_layer_type() -> None:
    with pytest.raises(ValueError, match="layer_type"):
        rope_frequencies_from_config(PRESETS["deepseek-v4-flash"])


def test_going_further_reads_every_kind_of_layer_of_the_other_presets() -> None:
    from tests.test_statements_07_11 import NB09, printed

    shown = printed(NB09, "name not in read_here")
    rows = [line.split(maxsplit=2) for line in shown.splitlines()]
    table = printed(NB09, "stretch = []")
    main = {line.split()[0] for line in table.splitlines() if line.split()[0] in PRESETS}
    assert {name for name, _, _ in rows} == set(PRESETS) - main
    kimi = {kind: text for name, kind, text in rows if name == "kimi-linear-48b-a3b"}
    # 7 MLA layers with mla_use_nope and 20 KDA layers: nothing of Kimi Linear rotates
    assert set(kimi) == {"linear_attention", "nope"}
    assert all(text.startswith("no RoPE") for text in kimi.values())
    v4 = {kind: text for name, kind, text in rows if name == "deepseek-v4-flash"}
    # compress ratios 4 and 128 share compress_rope_theta with YaRN: the same 32 pairs
    assert v4["compressed_sparse_attention"] == v4["heavily_compressed_attention"]
    assert v4["sliding_attention"] != v4["compressed_sparse_attention"]

"""The long-context half's gallery figures (issue 48): their data against formulas written out
here or against the published table, the facts their "look for" sentences state, RULER's data
file, and one meaning of "kept" across every registered figure's labels.
"""

from __future__ import annotations

import json
import math
import re

import matplotlib
import numpy as np
import pytest
from matplotlib.text import Text

from posenc_lib.figures import REGISTRY, build_figure, get_figure
from posenc_lib.presets import PRESETS
from tools.notebook_cells import ROOT

matplotlib.use("Agg")

TOPICS = ("ruler_scores", "remapped_distances", "longrope_factors", "attention_temperature",
          "dynamic_ntk_engines", "engine_frequencies", "newer_biases", "stale_kv_cache",
          "mla_cache", "p_rope_partial")


def lines(ax) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {ln.get_label(): (np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float))
            for ln in ax.get_lines() if not ln.get_label().startswith("_")}


def theta(d: int, base: float) -> np.ndarray:
    return np.array([base ** (-2 * i / d) for i in range(d // 2)])


def test_every_topic_is_registered_from_notebooks_06_to_09_with_what_to_look_for() -> None:
    for name in TOPICS:
        spec = get_figure(name)
        assert re.fullmatch(r"notebook 0[6-9]", spec.source) and len(spec.look_for) > 40, name
    from_06_09 = [n for n, s in REGISTRY.items() if re.fullmatch(r"notebook 0[6-9]", s.source)]
    assert len(from_06_09) >= 21


# ------------------------------------------------------------------------- RULER's published data


def ruler_file() -> dict:
    return json.loads((ROOT / "posenc_lib" / "data" / "ruler.json").read_text(encoding="utf-8"))


def test_ruler_file_names_its_source_table_for_every_number() -> None:
    data = ruler_file()
    assert re.fullmatch(r"[0-9a-f]{40}", data["source"]["commit"])
    assert data["source"]["repository"] == "NVIDIA/RULER" and "Claimed Length" in \
        data["source"]["table"]
    assert data["threshold"]["table"].startswith("the same table, row Llama2")
    for row in data["models"]:
        assert row["table"].startswith("row ") and len(row["scores"]) == len(data["lengths"])
    # the quoted values, read again from the README: Llama 3.1 8B's row and three ends
    rows = {row["model"]: row for row in data["models"]}
    assert rows["Llama 3.1 8B"]["scores"] == [95.5, 93.8, 91.6, 87.4, 84.7, 77.0]
    assert (rows["Llama 3.1 70B"]["scores"][-1], rows["Qwen2 72B"]["scores"][-1],
            rows["Phi-3-medium 128K"]["scores"][-1]) == (66.6, 53.7, 46.1)


def test_effective_length_recomputed_from_the_scores_matches_the_readme() -> None:
    from posenc_lib.evidence import effective_length, ruler_table, tokens

    table = ruler_table()
    for row in table.models:
        # written out: the last length before the first score at or below 85.6
        below = [s <= table.threshold for s in row.scores]
        last = (below.index(True) if True in below else len(below)) - 1
        assert table.lengths[last] == row.effective == effective_length(
            row.scores, table.lengths, table.threshold), row.model
        assert tokens(row.effective) < tokens(row.claimed)
    assert effective_length((80.0, 90.0), ("4K", "8K"), 85.6) is None
    with pytest.raises(ValueError, match="label"):
        tokens("32k tokens")


def test_ruler_figure_draws_the_file_and_stars_the_claimed_length() -> None:
    from posenc_lib.evidence import ruler_table, tokens

    ax = build_figure("ruler_scores").axes[0]
    drawn = lines(ax)
    table = ruler_table()
    for row in table.models:
        x, y = drawn[row.model]
        assert list(y) == list(row.scores) and list(x) == [tokens(n) for n in table.lengths]
    stars = [ln for ln in ax.get_lines() if ln.get_marker() == "*"]
    assert sorted((float(s.get_xdata()[0]), float(s.get_ydata()[0])) for s in stars) == sorted(
        (tokens(r.claimed), r.scores[table.lengths.index(r.claimed)]) for r in table.models)
    assert any(set(ln.get_ydata()) == {85.6} for ln in ax.get_lines())  # the threshold
    assert "Published" in ax.get_title(loc="left")  # told apart from what the course measured


# ------------------------------------------------------------------------------- the other nine


def test_remapped_distances_stay_below_l_and_follow_the_diagonal_in_the_window() -> None:
    drawn = lines(build_figure("remapped_distances").axes[0])
    true = drawn["true distance"][1]
    se = drawn["Self-Extend (G = 16, w = 1024)"][1]
    dca = drawn["DCA (chunk 3072, local 256)"][1]
    inside = true < 1024
    assert np.array_equal(se[inside], true[inside]) and np.array_equal(dca[inside], true[inside])
    assert se.max() < 4096 and dca.max() < 4096 and true.max() == 32767
    # Self-Extend past w: w + floor(i/G) - floor(j/G) - floor(w/G), about (t - w) / G + w
    far = true >= 1024
    assert np.all(np.abs(se[far] - (1024 + (true[far] - 1024) / 16)) <= 2)
    assert np.any(np.diff(dca) < 0)  # DCA falls back: a farther key can look nearer


def test_longrope_factors_are_the_presets_lists() -> None:
    ax = build_figure("longrope_factors").axes[0]
    drawn = lines(ax)
    params = PRESETS["phi-3.5-mini"]["rope_scaling"]
    assert list(drawn["short_factor"][1]) == params["short_factor"]
    assert list(drawn["long_factor"][1]) == params["long_factor"]
    s = 131072 / 4096
    assert max(params["short_factor"]) < 3 and params["long_factor"][0] < 1.1
    assert s < max(params["long_factor"]) < 2.1 * s


def test_attention_temperature_by_hand() -> None:
    drawn = lines(build_figure("attention_temperature").axes[0])
    m = drawn["ministral-3-8b"][0]
    v3 = (0.1 * math.log(40) + 1) ** 2  # MLA's softmax factor, V3 and V3.2 alike
    np.testing.assert_allclose(drawn["deepseek-v3"][1], v3, rtol=1e-12)
    np.testing.assert_allclose(drawn["deepseek-v3.2-exp"][1], v3, rtol=1e-12)
    np.testing.assert_allclose(drawn["gpt-oss-20b"][1], (0.1 * math.log(32) + 1) ** 2, rtol=1e-12)
    np.testing.assert_allclose(drawn["ministral-3-8b"][1],
                               [1 + 0.1 * math.log(1 + k // 16384) for k in m], rtol=1e-12)
    np.testing.assert_allclose(drawn["llama-4-scout (NoPE layers)"][1],
                               [1 + 0.1 * math.log(1 + (k + 1) // 8192) for k in m], rtol=1e-12)
    assert (round(v3, 3), round((0.1 * math.log(32) + 1) ** 2, 3)) == (1.874, 1.813)


def test_dynamic_ntk_engines_and_engine_frequencies() -> None:
    drawn = lines(build_figure("dynamic_ntk_engines").axes[0])
    length, hf = drawn["transformers (recomputed)"]
    expected = np.where(length > 4096, 8 * length / 4096 - 7, 1.0)  # s l / L - (s - 1) past L
    np.testing.assert_allclose(hf, expected, rtol=1e-12)
    assert hf[-1] == 57 and set(drawn["vLLM (one table)"][1]) == {1.0}
    assert set(drawn["SGLang (one table)"][1]) == {8 * 8 - 8 + 1}
    short, long = build_figure("engine_frequencies").axes[:2]
    slowest = 57 ** (-1.0)  # the slowest pair of base * 57^(d/(d-2)) is divided by 57
    for ax, hf_last in ((short, 1.0), (long, slowest)):
        curves = lines(ax)
        assert set(curves["vLLM"][1]) == {1.0}
        assert curves["SGLang"][1][-1] == pytest.approx(slowest, rel=1e-12)
        assert curves["transformers"][1][-1] == pytest.approx(hf_last, rel=1e-12)


def test_newer_biases_rows_and_xpos_by_hand() -> None:
    left, right = build_figure("newer_biases").axes[:2]
    rows = lines(left)
    back = rows["ALiBi, m = 0.0625"][0]
    np.testing.assert_allclose(rows["ALiBi, m = 0.0625"][1], -back / 16, atol=1e-12)
    np.testing.assert_allclose(rows["KERPLE log (r1 1.5, r2 0.5)"][1],
                               -1.5 * np.log1p(0.5 * back), atol=1e-12)
    # FIRE: f(psi(t) / psi(max(L, i))), psi(x) = ln(x + 1), L = the query's position here
    np.testing.assert_allclose(rows["FIRE (f(x) = -6x)"][1],
                               -6 * np.log1p(back) / np.log1p(63), atol=1e-12)
    decay = lines(right)
    zeta = lambda i: (2 * i / 128 + 0.4) / 1.4  # noqa: E731  xPos's per-pair base
    assert decay["pair 0"][1][512] == pytest.approx(zeta(0), rel=1e-12) and zeta(0) < 1 / 3
    assert decay["pair 63"][1][4096] == pytest.approx(zeta(63) ** 8, rel=1e-12)
    assert zeta(63) ** 8 > 0.9


def test_stale_kv_cache_errors() -> None:
    drawn = lines(build_figure("stale_kv_cache").axes[0])
    for label, (_, error) in drawn.items():
        assert error[0] == pytest.approx(0, abs=1e-12), label   # position 0 does not rotate
        assert np.median(error) > 1.0, label


def test_mla_cache_numbers_by_hand() -> None:
    ax = build_figure("mla_cache").axes[0]
    heights = [bar.get_height() for bar in ax.patches]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    v3 = PRESETS["deepseek-v3"]
    expected = {"llama-3.1-8b": 2 * 8 * (4096 // 32), "qwen3-8b": 2 * 8 * 128,
                "gemma-3-27b": 2 * 16 * 128, "gpt-oss-20b": 2 * 8 * 64,
                "deepseek-v3 (MLA)": 512 + 64, "deepseek-v3 as full heads": 128 * (128 + 64 + 128)}
    assert dict(zip(labels, heights, strict=True)) == expected
    assert v3["kv_lora_rank"] + v3["qk_rope_head_dim"] == 576
    assert round(expected["deepseek-v3 as full heads"] / 576) == 71
    assert 576 < min(v for k, v in expected.items() if "deepseek" not in k)


def test_p_rope_against_partial_rotary() -> None:
    drawn = lines(build_figure("p_rope_partial").axes[0])
    rope = 2 * np.pi / theta(128, 1e4)
    np.testing.assert_allclose(drawn["RoPE"][1], rope, rtol=1e-12)
    np.testing.assert_allclose(drawn["partial rotary 0.75 (respaced)"][1],
                               2 * np.pi / theta(96, 1e4), rtol=1e-12)
    kept = drawn["p-RoPE 0.75 (kept, the rest dropped)"][1]
    np.testing.assert_allclose(kept, rope[:48], rtol=1e-12)  # unchanged: kept
    assert np.all(rope[48:] > 4096)  # every dropped pair's wavelength exceeds L
    assert 0.9 < (2 * np.pi / theta(96, 1e4))[-1] / rope[-1] < 1


# ------------------------------------------------------------------------- one meaning of "kept"


def _texts(fig) -> list[str]:
    fig.draw_without_rendering()
    legend = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().texts]
    return legend + [t.get_text() for t in fig.findobj(Text) if t.get_text()]


@pytest.mark.parametrize("name", list(REGISTRY))
def test_kept_means_unchanged_by_scaling_in_every_figure(name: str) -> None:
    fig = build_figure(name)
    for text in _texts(fig):
        if "kept" in text.lower():
            assert "turn" not in text.lower(), f"{name}: 'kept' for a turn count: {text}"
    for ax in fig.axes:  # a labelled set of kept pairs keeps its RoPE frequency
        for label, (x, y) in lines(ax).items():
            if "kept" in label and "p-RoPE" in label:
                np.testing.assert_allclose(y, 2 * np.pi / theta(128, 1e4)[x.astype(int)],
                                           rtol=1e-12)
    from posenc_lib.model_pairs import PAIR_CLASSES
    assert "kept" not in PAIR_CLASSES


def test_notebook_06_prints_rulers_rows_and_its_prose_holds() -> None:
    from posenc_lib.evidence import ruler_table, tokens
    from tools.notebook_cells import load, source

    cells = load(ROOT / "notebooks" / "06_context_extension.ipynb")["cells"]
    (k,) = [i for i, c in enumerate(cells) if "from posenc_lib.evidence import" in source(c)]
    out = "".join("".join(o.get("text", "")) for o in cells[k]["outputs"])
    table = ruler_table()
    for row in table.models:
        assert f"claims {row.claimed:>4}, effective {row.effective:>3}" in out, row.model
    prose = " ".join(source(cells[k + 1]).split())
    kept = re.search(r"keep at most (half|a third|a quarter) of it", prose)
    assert kept, "the sentence on the share the scaled models keep is read"
    scaled = [r for r in table.models if r.claimed == "128K" and ("llama3" in r.rope
              or "LongRoPE" in r.rope)]
    share = {"half": 1 / 2, "a third": 1 / 3, "a quarter": 1 / 4}[kept.group(1)]
    assert len(scaled) == 4
    assert max(tokens(r.effective) / tokens(r.claimed) for r in scaled) == share

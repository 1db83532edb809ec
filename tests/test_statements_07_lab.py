"""Notebook 07 with the lab's trained schemes (issue 47 item 6): the cost table's trained rows,
the FIRE and KERPLE reveal and every number of their prose, recomputed from the committed JSON
with plain NumPy and the verdict rule written out here (Student t from a printed table)."""

from __future__ import annotations

import functools
import json
import math
import re

import numpy as np
import pytest

from tests.test_statements_06_07_practice import t_bounds
from tools.notebook_cells import ROOT, load, source

NB07 = ROOT / "notebooks" / "07_other_schemes.ipynb"
TASKS = ("copy_back", "assoc_recall", "induction", "induction_once")
SCHEMES = ("nope", "learned", "sinusoidal", "rope", "p_rope", "alibi", "t5", "fire", "kerple")
REVEALED = ("rope", "alibi", "t5", "kerple", "fire")

def cells() -> list[dict]:
    return load(NB07)["cells"]


def text_of(cell: dict) -> str:
    """Printed text and the text of a returned value (a reveal's ``compare``)."""
    return "".join("".join(out.get("text", "") or out.get("data", {}).get("text/plain", ""))
                   for out in cell.get("outputs", []))


def cell_with(start: str) -> tuple[int, dict]:
    for k, c in enumerate(cells()):
        if source(c).startswith(start):
            return k, c
    raise AssertionError(f"no cell starts with {start!r}")


def going_further_at() -> int:
    return next(k for k, c in enumerate(cells())
                if c["cell_type"] == "markdown" and source(c).startswith("## Going further"))


@functools.cache
def lab_curves() -> dict[str, dict]:
    """The committed lab_curves.json, read once (1.7 MB: once per lookup took 20 s)."""
    return dict(json.loads((ROOT / "results" / "lab_curves.json").read_text()))


def seeds_of(task: str, scheme: str) -> dict[int, dict]:
    curves = lab_curves()["curves"]
    return {int(k.rsplit("/", 1)[1]): v for k, v in curves.items()
            if k.rsplit("/", 1)[0] == f"{task}/{scheme}"}


def past_l(task: str, scheme: str, multiple: int, trained: int = 32) -> np.ndarray:
    """Per-seed mean accuracy past L (every position at 1x), seeds in order."""
    found = seeds_of(task, scheme)
    out = []
    for seed in sorted(found):
        values = np.array([np.nan if x is None else x for x in found[seed][str(multiple)]])
        out.append(np.nanmean(values[trained:] if multiple > 1 else values))
    return np.array(out)


def rule(task: str, scheme: str, multiple: int = 4) -> str:
    """Notebook 10's rule written out: a_m - a_1 over the seeds with a_1 >= 0.9, t 95%
    interval against -0.1; fewer than two such seeds: not learned."""
    first, later = past_l(task, scheme, 1), past_l(task, scheme, multiple)
    learned = first >= 0.9
    if learned.sum() < 2:
        return "not learned"
    _, low, high = t_bounds((later - first)[learned])
    return "holds" if low > -0.1 else "drops" if high < -0.1 else "borderline"


def test_fire_and_kerple_have_the_same_seeds_as_the_other_schemes_on_every_task() -> None:
    for task in (*TASKS, "induction_near"):
        for scheme in ("fire", "kerple"):
            seeds = sorted(seeds_of(task, scheme))
            assert seeds[:5] == [0, 1, 2, 3, 4] and seeds in ([0, 1, 2, 3, 4], list(range(10)))
            for curves in seeds_of(task, scheme).values():
                assert sorted(curves, key=int) == ["1", "2", "4", "8"]
                assert all(len(curves[m]) == 32 * int(m) for m in curves)


def test_cost_table_trained_rows_are_the_lab_means_and_the_rule() -> None:
    k, c = cell_with("from posenc_lib.lab import results")
    assert k < going_further_at() and "import jax" not in source(c)
    lines = text_of(c).splitlines()
    assert lines[1].split() == ["scheme", *TASKS]
    rows = {line.split()[0]: line for line in lines[2:]}
    assert list(rows) == list(SCHEMES)
    for scheme in SCHEMES:
        for task, found in zip(TASKS, re.findall(r"(\d\.\d\d) -> (\d\.\d\d) +(not learned|\w+)",
                                                 rows[scheme]), strict=True):
            first, fourth = past_l(task, scheme, 1).mean(), past_l(task, scheme, 4).mean()
            assert found == (f"{first:.2f}", f"{fourth:.2f}", rule(task, scheme)), (scheme, task)


def test_fire_kerple_reveal_prints_t_intervals_and_the_rule_after_a_prediction() -> None:
    k, reveal = cell_with("lab_methods = (")
    assert k > going_further_at()  # Going further: a prompt and a guess, no "predict" tag
    prompt = source(cells()[k - 2])
    assert prompt.startswith("**Predict.**") and "kerple_holds_8x_guess = None" in source(
        cells()[k - 1])
    above = " ".join(source(c) + text_of(c) for c in cells()[:k - 1])
    assert "1x to 8x" not in above and "at 8x" not in above.split("**Predict.** The lab's")[0]
    four = {t for t in TASKS if rule(t, "kerple") == "holds"}
    assert ", ".join(f"`{t}`" for t in sorted(four, key=TASKS.index)) in " ".join(prompt.split())
    assert len(four) == 3  # "holding at 4x on three tasks"
    out = text_of(reveal)
    for task in TASKS:
        table = out.split(f"{task} ", 1)[1]
        for scheme in REVEALED:
            cells_ = [t_bounds(past_l(task, scheme, m)) for m in (1, 2, 4, 8)]
            row = " ".join(f"{mean:.2f} ± {mean - low:.2f}" for mean, low, _ in cells_)
            seeds = len(seeds_of(task, scheme))
            assert re.search(rf"^{scheme}\s+{seeds} {re.escape(row)}$", table, re.M), (task, scheme)
    for multiple in (4, 8):
        grid = out.split(f"1x to {multiple}x", 1)[1].splitlines()
        assert grid[0].split() == list(TASKS)
        for scheme in REVEALED:
            line = next(x for x in grid[1:] if x.split() and x.split()[0] == scheme)
            words = re.findall(r"not learned|\w+", line)[1:]
            assert words == [rule(t, scheme, multiple) for t in TASKS], (scheme, multiple)
    holds = {t for t in TASKS if rule(t, "kerple", 8) == "holds"}
    shown = out.split("tasks where KERPLE holds at 8x:", 1)[1].split("\n")[0]
    assert set(re.findall(r"'(\w+)'", shown)) == holds


def test_the_setup_the_prose_states() -> None:
    pytest.importorskip("jax")
    from posenc_lib.bias import alibi_slopes
    from posenc_lib.lab.learned_bias import FIRE_HIDDEN, init_bias_params
    from posenc_lib.lab.model import ModelConfig
    text = " ".join(source(cell_with("### FIRE and KERPLE, trained")[1]).split())
    setup = lab_curves()["setup"]
    cfg = ModelConfig()
    assert f"two-layer decoder with {cfg.n_heads} heads, {setup['train']['steps']} steps" in text
    assert f"sequences of {setup['train']['length']} tokens" in text
    assert setup["seeds"] == [0, 1, 2, 3, 4] and setup["extra_seeds"]["seeds"] == [5, 6, 7, 8, 9]
    assert cfg.n_layers == 2 and f"one inner layer of {FIRE_HIDDEN} ReLU units" in text
    import jax
    p = init_bias_params("kerple", jax.random.key(0), cfg.n_heads)["kerple"]
    r1, r2 = (np.log1p(np.exp(np.asarray(p[n], dtype=float))) for n in ("r1", "r2"))
    np.testing.assert_allclose(r1, 1.0, rtol=1e-6)  # "r_1 = 1"
    np.testing.assert_allclose(r2, alibi_slopes(cfg.n_heads), rtol=1e-5)  # "ALiBi's slopes"


@pytest.mark.parametrize("task", TASKS)
def test_every_trained_cell_is_decided_as_the_module_decides(task: str) -> None:
    from posenc_lib.lab import results
    stats = results.summary(results.load("curves")["curves"], 32)
    for scheme in ("fire", "kerple"):
        assert results.cell_verdict(stats, task, scheme).label == rule(task, scheme)


def conclusion() -> str:
    return " ".join(source(cell_with("KERPLE ")[1]).split())


def change(task: str, scheme: str) -> float:
    """Mean of a_4 - a_1 over the seeds that learned (a_1 >= 0.9)."""
    first, fourth = past_l(task, scheme, 1), past_l(task, scheme, 4)
    return float((fourth - first)[first >= 0.9].mean())


def said(scheme: str, text: str) -> dict[str, str]:
    """task -> verdict word of the sentence "NAME holds on `a`, is borderline on `b` and drops
    on `c` (...)"."""
    sentence = text.split(f"{scheme} ", 1)[1].split(":")[0].split(" at 4x")[0].split(". ")[0]
    found = {}
    for verb, word in (("holds on", "holds"), ("is borderline on", "borderline"),
                       ("drops on", "drops")):
        if verb in sentence:
            part = sentence.split(verb, 1)[1]
            part = re.split(r"(?:,|\band) (?:holds|is|drops)", part)[0]
            found.update({t: word for t in re.findall(r"`(\w+)`", part)})
    return found


def test_conclusion_verdicts_are_the_rule() -> None:
    text = conclusion()
    for scheme, name in (("kerple", "KERPLE"), ("fire", "FIRE")):
        decided = {t: rule(t, scheme) for t in TASKS if rule(t, scheme) != "not learned"}
        assert said(name, text) == decided, scheme
        assert rule("copy_back", scheme) == "not learned"


def test_conclusion_numbers_are_recomputed() -> None:
    text = conclusion()
    k, a, r = (change("induction", m) for m in ("kerple", "alibi", "rope"))
    assert (f"On `induction` its mean change from 1x is {k:+.2f}, against ALiBi's {a:+.2f} and "
            f"RoPE's {r:+.2f}") in text
    eight = said("KERPLE", text.split("At 8x it ", 1)[1].replace("holds", "KERPLE holds", 1))
    decided = {t: rule(t, "kerple", 8) for t in TASKS}
    assert eight == {t: w for t, w in decided.items() if w != "not learned"}
    for task, word in eight.items():
        if word != "holds":
            first, eighth = past_l(task, "kerple", 1), past_l(task, "kerple", 8)
            effect = (eighth - first)[first >= 0.9].mean()
            assert f"{word} on `{task}` ({effect:+.2f})" in text
    drops = [t for t in TASKS if rule(t, "fire") == "drops"]
    if len(drops) == 1:
        assert f"drops on `{drops[0]}` ({change(drops[0], 'fire'):+.2f})" in text
    # psi(x) = ln(x + 1): one key back at the last trained query, and at 4x
    assert f"\\psi(1)/\\psi(31) = {math.log(2) / math.log(32):.2f}$" in text
    assert f"\\psi(1)/\\psi(127) = {math.log(2) / math.log(128):.2f}$" in text
    first = {m: past_l("copy_back", m, 1).mean() for m in ("fire", "kerple", "alibi")}
    assert (f"seed means {first['fire']:.2f} for FIRE and {first['kerple']:.2f} for KERPLE at 1x, "
            f"below the 0.9 criterion), nor did ALiBi ({first['alibi']:.2f})") in text
    assert all(v < 0.9 for v in first.values())


def test_conclusion_on_longer_training_is_recomputed() -> None:
    text = conclusion()
    grid = lab_curves()
    steps = grid["setup"]["long"]["steps"]
    assert f"Trained for {steps} steps" in text
    reaches = float(re.search(r"no seed of the three reaches ([\d.]+)", text).group(1))
    assert reaches == 0.9  # notebook 10's criterion for a learned seed
    for scheme, name in (("fire", "FIRE reaches"), ("kerple", "KERPLE"), ("alibi", "ALiBi")):
        runs = [v["curves"] for k, v in grid["long"].items()
                if k.rsplit("/", 1)[0] == f"copy_back/{scheme}"]
        assert len(runs) == 5, scheme
        first = np.array([np.nanmean([np.nan if x is None else x for x in c["1"]]) for c in runs])
        fourth = np.array([np.nanmean([np.nan if x is None else x for x in c["4"][32:]])
                           for c in runs])
        assert f"{name} {first.mean():.2f} at 1x ({fourth.mean():.2f} at 4x)" in text, scheme
        assert first.max() < reaches, scheme  # "no seed of the three reaches 0.9"


def test_summary_counts_the_tasks_where_each_holds() -> None:
    summary = " ".join(source(cell_with("## Summary")[1]).split())
    words = {0: "no", 1: "one", 2: "two", 3: "three", 4: "four"}
    count = {m: sum(rule(t, m) == "holds" for t in TASKS) for m in ("kerple", "fire")}
    assert (f"trained in the lab, KERPLE held at 4x on {words[count['kerple']]} tasks, FIRE on "
            f"{words[count['fire']]}.") in summary

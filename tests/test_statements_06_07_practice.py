"""Notebooks 06 and 07 at today's practice (issue 34) and with the learner thinking (issue 32).

Each test recomputes what a new cell prints or a new sentence says, independently of the code
under test (plain JSON and NumPy, loops, the papers' formulas written another way), and checks
the stored output or the sentence. Predict prompts are checked for give-away words above them.
"""

from __future__ import annotations

import json
import re

import numpy as np

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
    """Markdown (and, with ``outputs``, printed outputs) of the cells above ``index``, lowercased."""
    parts = []
    for c in cells_of(path)[:index]:
        if c["cell_type"] == "markdown":
            parts.append(source(c))
        elif outputs:
            parts.append(text_of(c))
    return flat("\n".join(parts)).lower()


# --------------------------------------------------------------------------- 06: retrieval


def lab_recall_at(multiple: int) -> dict[str, float]:
    """Mean over seeds of assoc_recall accuracy on the positions past L, read from the JSON."""
    folder = ROOT / "results"
    extensions = json.loads((folder / "lab_extensions.json").read_text())
    curves = json.loads((folder / "lab_curves.json").read_text())
    trained = extensions["setup"]["train"]["length"]
    entries = {**extensions["extensions"], **curves["curves"]}
    means = {}
    for method in ("rope", "pi", "ntk", "dynamic", "yarn"):
        seeds = [v for k, v in entries.items() if k.startswith(f"assoc_recall/{method}/")]
        per_seed = []
        for curve in seeds:
            values = [np.nan if x is None else x for x in curve[str(multiple)]]
            past = values[trained:] if multiple > 1 else values
            per_seed.append(np.nanmean(past))
        means[method] = float(np.mean(per_seed))
    return means


def test_retrieval_section_names_what_practitioners_use_and_reads_the_lab() -> None:
    k, _ = cell_with(NB06, "## Does the model still find what it read?")
    assert k < len(main_path(NB06))
    text = flat("\n".join(source(c) for c in main_path(NB06) if c["cell_type"] == "markdown"))
    assert "needle-in-a-haystack" in text and "RULER (Hsieh et al., 2024" in text
    reveal = next(c for c in cells_of(NB06) if "least_recall_guess" in source(c)
                  and "predict" in c.get("metadata", {}).get("tags", []))
    assert 'results.load("extensions")' in source(reveal)  # read from the JSON, never typed
    at_8x = lab_recall_at(8)
    out = text_of(reveal)
    least, best = min(at_8x, key=at_8x.get), max(at_8x, key=at_8x.get)
    assert f"least recall at 8x: {least!r}" in out and f"highest at 8x: {best}" in out
    for method, value in at_8x.items():
        assert re.search(rf"^{method}\s.*\s{value:.2f} ± \d\.\d\d$", out, re.M), method


def test_retrieval_sentences_match_the_lab_data() -> None:
    at_8x = lab_recall_at(8)
    _, reading = cell_with(NB06, "PI, with almost no angle unseen, recalls less than no scaling")
    assert "YaRN, keeping the fast pairs, holds best" in source(reading)
    assert at_8x["pi"] < at_8x["rope"] and at_8x["pi"] == min(at_8x.values())
    assert at_8x["yarn"] == max(at_8x.values())
    summary = flat(source(cell_with(NB06, "## Summary")[1]))
    assert "PI without fine-tuning recalls least, YaRN best" in summary


def test_retrieval_prompt_is_not_answered_above() -> None:
    k, _ = cell_with(NB06, "**Predict.** At 8 times the trained length")
    text = above(NB06, k)
    for giveaway in ("recalls least", "recalls less", "recall least", "lowest recall",
                     "worse than no scaling", "least recall", "assoc_recall accuracy"):
        assert giveaway not in text, giveaway


def test_perplexity_and_alibi_sentences_say_what_perplexity_measures() -> None:
    nb06 = flat("\n".join(source(c) for c in cells_of(NB06) if c["cell_type"] == "markdown"))
    assert "perplexity is the evidence" not in nb06
    assert "perplexity is one measurement, and a narrow one" in nb06
    assert "mostly measures local prediction" in nb06
    nb07 = flat(source(cell_with(NB07, "## Summary")[1]))
    assert "good length extrapolation" not in nb07
    assert "local prediction" in nb07 and "notebook 10" in nb07


# --------------------------------------------------------------------------- 06: issue 34 item 6


def test_unseen_angle_grid_has_a_panel_per_method_and_tick_labels_on_top() -> None:
    reveal = next(c for c in cells_of(NB06) if "covered_guess" in source(c)
                  and "predict" in c.get("metadata", {}).get("tags", []))
    assert "plt.subplots(2, 3" in source(reveal) and "labelbottom=True" in source(reveal)
    assert "with 6 Axes>" in text_of(reveal)  # six methods, six panels, none empty


def test_gamma_is_only_the_share_kept() -> None:
    text = "\n".join(source(c) for c in cells_of(NB06))
    assert r"\gamma_i" not in text
    assert "gamma = yarn_ramp" not in text
    assert r"with $\gamma$ the share kept" in text
    assert r"a weight $w_i$, the share interpolated ($w_i = 1 - \gamma$)" in text

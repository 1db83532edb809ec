"""Issue 32 item 4: every SYLLABUS bullet of notebooks 03 and 09 sits on the main path (above
"## Going further"), and the numbers it prints there are recomputed here independently."""

from __future__ import annotations

import math
import re

import numpy as np

from tests.test_course_structure import lesson_cells
from tools.notebook_cells import ROOT, load, source

NB03 = ROOT / "notebooks" / "03_properties.ipynb"
NB09 = ROOT / "notebooks" / "09_rope_in_todays_models.ipynb"


def main_path(path) -> list[dict]:
    return lesson_cells(load(path)["cells"])


def printed(cell: dict) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


def main_code_with(path, needle: str) -> dict:
    found = [c for c in main_path(path) if c["cell_type"] == "code" and needle in source(c)]
    assert found, f"no main-path code cell of {path.name} holds {needle!r}"
    return found[0]


def main_prose(path) -> str:
    return " ".join(" ".join(source(c).split()) for c in main_path(path)
                    if c["cell_type"] == "markdown")


# ------------------------------------------------------------------------------ notebook 03


def test_03_base_and_width_widget_is_on_the_main_path() -> None:
    main_code_with(NB03, "SimilarityDecayExplorer(")


def test_03_add_or_concatenate_in_numbers() -> None:
    cell = main_code_with(NB03, "layer_weights(576)")
    # weights per layer: 4 d^2 (attention) + 2 d (4 d) (feed-forward) = 12 d^2, so the growth
    # from 512 to 576 is (576 / 512)^2 - 1, whatever the constant
    growth = (576 / 512) ** 2 - 1
    assert f"concatenating 64 dims to 512: +{growth:.0%} weights per layer" in printed(cell)
    assert f"adds {growth:.0%} weights to every layer" in main_prose(NB03)


def _probe_r2(vocab_scale: float, with_position: bool) -> float:
    """The notebook's probe, written again with plain lstsq: same seeds, same draws."""
    d, length = 64, 64
    t = np.arange(length)[:, None]
    pe = np.zeros((length, d))
    pe[:, 0::2] = np.sin(t * 10000.0 ** (-np.arange(0, d, 2) / d))
    pe[:, 1::2] = np.cos(t * 10000.0 ** (-np.arange(0, d, 2) / d))
    pe = pe if with_position else 0 * pe
    rng = np.random.default_rng(0)
    vocab = rng.normal(scale=vocab_scale, size=(1000, d))
    if not with_position:   # the notebook draws the e + p probe first, from the same generator
        for n in (30, 10):
            rng.integers(0, 1000, size=(n, length))

    def draw(n):
        tokens = rng.integers(0, 1000, size=(n, length))
        return (vocab[tokens] + pe).reshape(-1, d), np.tile(np.arange(length), n)

    x, y = draw(30)
    x_test, y_test = draw(10)
    w, *_ = np.linalg.lstsq(np.hstack([x, np.ones((len(x), 1))]), y, rcond=None)
    guess = x_test @ w[:-1] + w[-1]
    return 1 - np.mean((guess - y_test) ** 2) / np.var(y_test)


def test_03_the_probe_reads_the_position_back_out_of_the_sum() -> None:
    cell = main_code_with(NB03, "probe(vocab, pe_probe, rng)")
    out = printed(cell)
    with_p, without = _probe_r2(0.5, True), _probe_r2(0.5, False)
    assert re.search(rf"features e \+ p: test RMSE +[\d.]+ positions, R\^2 = {with_p:.3f}", out)
    assert re.search(rf"features e    : test RMSE +[\d.]+ positions, R\^2 = {without:.3f}", out)
    assert with_p > 0.85 and abs(without) < 0.1
    assert f"the probe's $R^2$ on unseen sentences is {with_p:.3f} with $p$, about 0 without" \
        in main_prose(NB03)
    assert any("image/png" in o.get("data", {}) for o in cell["outputs"])  # the probe's picture


def test_03_going_further_keeps_only_what_the_syllabus_does_not_ask() -> None:
    later = load(NB03)["cells"][len(main_path(NB03)):]
    later_code = "\n".join(source(c) for c in later if c["cell_type"] == "code")
    assert "SimilarityDecayExplorer(" not in later_code
    assert "layer_weights" not in later_code


# ------------------------------------------------------------------------------ notebook 09


def test_09_axial_rope_scores_depend_only_on_the_offset() -> None:
    cell = main_code_with(NB09, "axial_rope_angles(")
    offsets = (2 * 6 - 1) * (2 * 8 - 1)     # d_row in -5..5, d_col in -7..7 on a 6 x 8 grid
    assert (f"{offsets} offsets (d_row, d_col); largest spread within one offset below 1e-12: True"
            in printed(cell))
    assert any("image/png" in o.get("data", {}) for o in cell["outputs"])


def test_09_mrope_sections_are_read_off_the_config() -> None:
    from posenc_lib.presets import PRESETS

    cell = main_code_with(NB09, "mrope_axes(section)")
    vl = PRESETS["qwen2.5-vl-7b"]
    section = vl["rope_scaling"]["mrope_section"]
    d = vl["hidden_size"] // vl["num_attention_heads"]
    wavelength = [2 * math.pi * vl["rope_theta"] ** (2 * i / d) for i in range(d // 2)]
    start = 0
    for name, size in zip("thw", section, strict=True):
        group = wavelength[start:start + size]
        assert (f"{name}: pairs {start:>2}..{start + size - 1:>2}, wavelengths "
                f"{min(group):>12,.0f} .. {max(group):>12,.0f}") in printed(cell)
        start += size
    assert start == d // 2


def test_09_a_learned_sink_leaves_less_weight_for_the_keys() -> None:
    cell = main_code_with(NB09, "attention_with_sink(")
    scores = [-1.0, -0.5, -1.2, -0.8, -1.1]
    total = sum(math.exp(s) for s in scores)
    for z in (-5.0, 0.0, 2.0):
        left = total / (total + math.exp(z))       # the weight the keys still share
        assert re.search(rf"sink logit {z:>4}:.*- total {left:.3f}", printed(cell)), z


def test_09_the_pairs_explorer_is_on_the_main_path() -> None:
    main_code_with(NB09, "ModelPairsExplorer(")
    later = load(NB09)["cells"][len(main_path(NB09)):]
    assert not any("ModelPairsExplorer(" in source(c) or "attention_with_sink(" in source(c)
                   or "axial_rope_angles(" in source(c) for c in later)

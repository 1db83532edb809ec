"""Notebook 09: the count of presets that stretch their length (issue 34 item 6), the two build
steps (issue 32 item 2) and predictions not answered above them (issue 32 item 1)."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.build_steps import Mistake
from posenc_lib.models import rope_frequencies_from_config
from posenc_lib.presets import PRESETS
from tests.build_step_checks import assert_both_ways, assert_not_given_away
from tests.test_statements_07_11 import NB09, all_markdown, printed
from tools.notebook_cells import load, source, tags


def test_the_stretch_count_is_computed_and_said_right() -> None:
    # a preset stretches its trained length when its rope_scaling holds a factor (PI, NTK,
    # YaRN, Llama 3) or LongRoPE's per-pair factors; M-RoPE's sections stretch nothing
    shown = printed(NB09, "stretch = []")
    table = [line.split()[0] for line in shown.splitlines() if line.split()[0] in PRESETS]
    assert "pythia-1.4b" in table and "gemma-4-e2b" not in table  # Going further reads the rest
    stretch = [n for n in table
               if {"factor", "long_factor"} & set(PRESETS[n].get("rope_scaling") or {})]
    bare = [n for n in table if not PRESETS[n].get("rope_scaling")]
    assert "qwen2.5-vl-7b" not in stretch + bare and len(stretch) + len(bare) + 1 == len(table)
    assert (f"{len(stretch)} of {len(table)} presets stretch their trained length with a "
            f"rope_scaling method; {len(bare)} have no rope_scaling") in shown
    text = " ".join(all_markdown(NB09).split())
    assert "almost every model stretches" not in text
    words = {3: "three", 4: "four", 5: "five"}
    assert (f"most presets, not all, stretch their trained length with one of notebook 06's "
            f"methods (the count above): {words[len(bare)]} have no `rope_scaling`, and "
            "Qwen2.5-VL's holds only M-RoPE sections") in text


def test_rotated_dims_column_matches_the_published_configs() -> None:
    shown = printed(NB09, "stretch = []")
    # Phi-4-mini: 3072 / 24 = 128, partial_rotary_factor 0.75; Pythia-1.4B: 2048 / 16 = 128,
    # rotary_pct 0.25; DeepSeek-V3: qk_rope_head_dim 64 beside qk_nope_head_dim 128
    for name, rotated, head in (("phi-4-mini", 96, 128), ("pythia-1.4b", 32, 128),
                                ("deepseek-v3", 64, 192), ("gemma-3-27b", 128, 128)):
        line = next(x for x in shown.splitlines() if x.startswith(name + " "))
        assert line.split()[1:4] == [str(rotated), "/", str(head)], line


def _run(marker: str, extra: dict) -> dict:
    (cell,) = [c for c in load(NB09)["cells"] if c["cell_type"] == "code" and marker in source(c)]
    names = {"np": np, "Mistake": Mistake, "adopt": lambda *a, **k: None, "PRESETS": PRESETS,
             "rope_frequencies_from_config": rope_frequencies_from_config,
             "rotated_dims_by_me": None, "inv_freq_by_me": None, **extra}
    exec(source(cell), names)
    return names


def _solution(name: str, extra: dict) -> object:
    (cell,) = [c for c in load(NB09)["cells"] if "solution" in tags(c)
               and f"def {name}(" in source(c)]
    names = {"np": np, **extra}
    exec(source(cell), names)
    return names[name]


def _steps() -> list[tuple]:
    dims = _run("my_rotated_dims = adopt(", {})
    library_dims = dims["rotated_dims_in_library"]
    freq = _run("my_inv_freq = adopt(", {"my_rotated_dims": library_dims})
    return [("my_rotated_dims = adopt(", dims["dims_cases"], dims["dims_mistakes"], library_dims,
             _solution("rotated_dims_by_me", {}), "rotated dims"),
            ("my_inv_freq = adopt(", freq["freq_cases"], freq["freq_mistakes"],
             lambda config: rope_frequencies_from_config(config)[0],
             _solution("inv_freq_by_me", {"my_rotated_dims": library_dims}),
             "inverse frequencies")]


@pytest.mark.parametrize("index", [0, 1], ids=["rotated_dims", "inv_freq"])
def test_build_steps_use_a_right_function_and_name_each_mistake(index: int) -> None:
    marker, cases, mistakes, reference, worked, label = _steps()[index]
    assert "the cells below use yours" in printed(NB09, marker)
    assert_both_ways(worked, reference, cases, mistakes, label)


def test_the_worked_frequencies_are_the_formula_on_every_plain_preset() -> None:
    worked = _solution("inv_freq_by_me", {"my_rotated_dims": _steps()[0][3]})
    for name in ("qwen3-8b", "mistral-7b-v0.3", "smollm3-3b", "pythia-1.4b"):
        cfg = PRESETS[name]
        r = {"pythia-1.4b": 32}.get(name, 128)
        base = float(cfg.get("rope_theta", cfg.get("rotary_emb_base")))
        expected = np.exp(-np.arange(r // 2) * 2.0 / r * np.log(base))   # written another way
        np.testing.assert_allclose(worked(cfg), expected, rtol=1e-12)


GIVE_AWAY = {
    "smollm3_slow_guess": ["25 of 64", "twenty-five", "25 pairs"],
    "global_turning_guess": ["14 pairs", "fourteen", "14 of"],
    "mla_cache_guess": ["576", "512 + 64", "the cache holds"],
    "stale_key_guess": ["1.25", "1.248", "off by about 1"],
}


@pytest.mark.parametrize("guess", list(GIVE_AWAY))
def test_09_predictions_are_not_answered_above(guess: str) -> None:
    assert_not_given_away(NB09, guess, GIVE_AWAY[guess])

"""Notebook 09: the count of presets that stretch their length (issue 34 item 6), the worked
frequencies of the second build step (the steps themselves: tests/test_build_steps_objects.py,
_pictures.py and _05_09.py) and predictions not answered above them (issue 32 item 1)."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.presets import PRESETS
from tests.build_step_checks import assert_not_given_away, solved_namespace
from tests.test_statements_07_11 import NB09, all_markdown, printed


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


def test_the_worked_frequencies_are_the_formula_on_every_plain_preset() -> None:
    worked = solved_namespace("09")["inv_freq_by_me"]  # with the worked my_rotated_dims
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

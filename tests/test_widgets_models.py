"""Headless tests of the notebook-09 explorer: a model preset and a context length change it
in place, and what it draws follows each model's published RoPE rules."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc_lib.presets import PRESETS
from posenc_lib.widgets import EXPLORERS
from posenc_lib.widgets.models import NOT_ROTATED_Y, ModelPairsExplorer
from tests.explorer_checks import assert_changes_in_place, assert_each_rejected, assert_registered


@pytest.fixture
def explorer() -> ModelPairsExplorer:
    return ModelPairsExplorer()


def artists(explorer: ModelPairsExplorer) -> tuple[object, ...]:
    return (*explorer.class_lines[0], *explorer.class_lines[1], *explorer.context_lines,
            explorer.title)


def state(explorer: ModelPairsExplorer) -> tuple[object, ...]:
    dots = tuple(tuple(np.asarray(line.get_ydata(), float).tolist())
                 for lines in explorer.class_lines for line in lines)
    return (dots, explorer.title.get_text(), explorer.axes[1].get_visible())


def shown(explorer: ModelPairsExplorer, row: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    line = explorer.class_lines[row][k]
    return np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)


def test_it_is_registered_and_renders(explorer: ModelPairsExplorer) -> None:
    assert_registered(ModelPairsExplorer)
    assert ModelPairsExplorer in EXPLORERS
    config = PRESETS["llama-3.1-8b"]
    n_pairs = config["hidden_size"] // config["num_attention_heads"] // 2  # 4096 / 32 / 2 = 64
    assert sum(len(line.get_xdata()) for line in explorer.class_lines[0]) == n_pairs
    counts = [int(word) for word in explorer.panel_titles[0].get_text().split(": ")[1].split()
              if word.isdigit()]
    assert sum(counts) == n_pairs
    assert explorer.title.get_text() == "llama-3.1-8b at L = 8,192"
    assert set(explorer.controls) == {"preset", "length"}
    # every preset whose layer kinds fit the two panels: DeepSeek-V4 (three kinds) alone is left out
    shown = list(explorer.controls["preset"].options)
    assert shown == [name for name in PRESETS if name != "deepseek-v4-flash"]
    with pytest.raises(ValueError, match="preset"):
        ModelPairsExplorer(preset="deepseek-v4-flash")


@pytest.mark.parametrize(("name", "value"), [("preset", "gemma-3-27b"), ("length", 2.0**17),
                                              ("preset", "deepseek-v3")])
def test_each_control_changes_the_picture_in_place(
    explorer: ModelPairsExplorer, name: str, value: object
) -> None:
    assert_changes_in_place(explorer, name, value, artists, state)


def test_qwen3_pairs_turn_or_stay_by_their_wavelength(explorer: ModelPairsExplorer) -> None:
    explorer.controls["preset"].value = "qwen3-8b"
    explorer.controls["length"].value = 4096.0
    wavelengths = np.array([2 * math.pi * 1e6 ** (2 * i / 128) for i in range(64)])
    x, y = shown(explorer, 0, 0)
    np.testing.assert_array_equal(x, np.flatnonzero(wavelengths <= 4096))
    np.testing.assert_allclose(y, wavelengths[wavelengths <= 4096], rtol=1e-12)
    assert shown(explorer, 0, 1)[0].size == np.count_nonzero(wavelengths > 4096)
    assert not explorer.axes[1].get_visible()  # one RoPE for every layer: one panel
    np.testing.assert_allclose(explorer.context_lines[0].get_ydata(), [4096, 4096])


def test_two_panels_where_the_layers_differ(explorer: ModelPairsExplorer) -> None:
    explorer.controls["preset"].value = "llama-4-scout"
    assert explorer.axes[1].get_visible()
    assert "nope (12 of 48 layers)" in explorer.axes[1].get_title(loc="left")
    x, y = shown(explorer, 1, 3)
    assert x.size == 64 and np.all(y == NOT_ROTATED_Y)  # a NoPE layer rotates nothing
    explorer.controls["preset"].value = "gemma-3-27b"
    title = explorer.axes[0].get_title(loc="left")
    assert "sliding_attention (52 of 62 layers, window 1,024)" in title
    assert shown(explorer, 1, 2)[0].size == 64  # global layers: all interpolated by 8


def test_pythia_draws_three_quarters_of_its_pairs_as_not_rotated() -> None:
    explorer = ModelPairsExplorer("pythia-1.4b", 2048)
    x, _ = shown(explorer, 0, 3)
    np.testing.assert_array_equal(x, np.arange(16, 64))
    assert "pythia-1.4b at L = 2,048" == explorer.title.get_text()


def test_bad_input() -> None:
    assert_each_rejected(ModelPairsExplorer, ValueError, preset="gpt-5", length=100)
    assert_each_rejected(ModelPairsExplorer, TypeError, length=1.5)


def test_the_dashed_line_of_a_windowed_layer_is_its_window() -> None:
    # issue 22: Gemma 3 at 32768 tokens classified its local pairs against the 1024 window but
    # drew the dashed line at 32768
    explorer = ModelPairsExplorer("gemma-3-27b", 32768)
    kinds = [t.get_text().split(" (")[0] for t in explorer.panel_titles]
    window = PRESETS["gemma-3-27b"]["sliding_window"]
    lines = explorer.context_lines
    reach = {kind: line.get_ydata()[0] for kind, line in zip(kinds, lines, strict=True)}
    assert reach == {"sliding_attention": window, "full_attention": 32768}
    # the legend names both meanings of the dashed line
    assert all("window" in line.get_label() for line in lines)
    # and the local panel's rotating pairs are exactly those with a wavelength within the window
    row = kinds.index("sliding_attention")
    turning = shown(explorer, row, 0)[1]
    assert turning.size and np.all(turning <= window)

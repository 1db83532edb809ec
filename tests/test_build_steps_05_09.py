"""The build steps of notebooks 05-09 (issue 45), beyond the data-driven checks of
tests/test_build_steps_objects.py and _pictures.py: each worked solution against an independent
computation (loops over pairs, published config numbers, NumPy's own float16/float32 and
ml_dtypes' bfloat16 casts), each derived step's prose, and the cells a wrong step feeds.
"""

from __future__ import annotations

import math
import re
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from tests.build_step_checks import (
    NOTEBOOK_STEPS,
    adopted_name,
    check_cell_index,
    notebook_path,
    solved_namespace,
    step_cell_indices,
    the_step,
)
from tools.notebook_cells import load, source

KEYS_05_09 = [key for number in ("05", "06", "07", "08", "09")
              for key, _ in NOTEBOOK_STEPS[number]]


def _right(key: str) -> Any:
    return solved_namespace(key[:2])[the_step(key).answer_name]


def _turn_pairs(x: np.ndarray, positions: Any, theta: Any, partner: Any) -> np.ndarray:
    """Row m of x with coordinates (a, partner(a)) of pair i turned by positions[m] * theta[i],
    one 2x2 rotation at a time with math.cos and math.sin."""
    out = np.array(x, dtype=float)
    for m, position in enumerate(positions):
        for i, speed in enumerate(theta):
            a, b = partner(i, x.shape[1])
            c, s = math.cos(position * speed), math.sin(position * speed)
            out[m, a] = c * x[m, a] - s * x[m, b]
            out[m, b] = s * x[m, a] + c * x[m, b]
    return out


def _yarn_by_loop(d: int, base: float, s: float, L: int) -> np.ndarray:
    """YaRN's code ramp, pair by pair: i(r) = d ln(L / (2 pi r)) / (2 ln base), rounded outward."""
    index = [d * math.log(L / (2 * math.pi * r)) / (2 * math.log(base)) for r in (32.0, 1.0)]
    low, high = math.floor(index[0]), math.ceil(index[1])
    out = []
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        weight = min(max((i - low) / (high - low), 0.0), 1.0)  # the share interpolated
        out.append((1 - weight) * theta + weight * theta / s)
    return np.array(out)


def _bucket_by_integers(r: int) -> int:
    """T5's encoder bucket without a logarithm: 8 + floor(log2(n^2 / 64)) is 8 + floor(2
    log2(n / 8)), the bucket of 8 <= n < 128 (8 log buckets over a factor 16 = 2^4)."""
    n = abs(r)
    near_or_far = n if n < 8 else min(8 + (n * n // 64).bit_length() - 1, 15)
    return (16 if r > 0 else 0) + near_or_far


def _cast(values: Any, name: str) -> np.ndarray:
    """A real cast to the format (NumPy's float16 and float32, ml_dtypes' bfloat16)."""
    dtype = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32}[name]
    return np.asarray(values, dtype=np.float64).astype(dtype).astype(np.float64)


PUBLISHED_ROTATED_DIMS = {"llama-3.1-8b": 128, "gemma-3-27b": 128, "phi-4-mini": 96,
                          "pythia-1.4b": 32, "deepseek-v3": 64}
"""The rotated dims of each config of the rotated-dims step, from the model cards and configs:
Gemma 3 head_dim 128 (not 5376 / 32 = 168); Phi-4-mini 0.75 of 3072 / 24 = 128; Pythia 0.25 of
2048 / 16 = 128; DeepSeek-V3 qk_rope_head_dim 64; Llama 3.1 4096 / 32 = 128."""
ROTATED_IN_FREQUENCY_CASES = {"pythia-1.4b": 32, "qwen3-8b": 128, "smollm3-3b": 128}
"""The frequency step's configs: Qwen3-8B head_dim 128; SmolLM3-3B 2048 / 16 = 128."""


def _by_hand(key: str, case: dict[str, Any]) -> Any:
    name = key.split(".", 2)[2]
    if name in ("rope", "rope_half"):
        def partner(i: int, d: int) -> tuple[int, int]:
            return (2 * i, 2 * i + 1) if name == "rope" else (i, i + d // 2)

        return _turn_pairs(case["x"], case["positions"], case["theta"], partner)
    if name in ("pi", "ntk", "yarn"):
        d, base, s = case["d"], case["base"], case["s"]
        theta = np.array([math.pow(base, -2 * i / d) for i in range(d // 2)])
        if name == "pi":
            return theta / s
        if name == "ntk":  # the ratio falls geometrically from 1 to exactly 1/s
            return theta * np.array([s ** (-i / (d // 2 - 1)) for i in range(d // 2)])
        return _yarn_by_loop(d, base, s, case["L"])
    if name == "t5_bucket":
        return np.array([_bucket_by_integers(r) for r in case["relative_position"].tolist()])
    if name == "alibi":
        heads, n = case["n_heads"], case["length"]
        ratio = 2.0 ** (-8 / heads)  # r with r^H = 2^-8
        return np.array([[[-ratio ** h * (i - j) if j <= i else -math.inf for j in range(n)]
                          for i in range(n)] for h in range(1, heads + 1)])
    if name in ("angles", "sincos"):
        m, theta, fmt = case["positions"], case["inv_freq"], case["dtype_name"]
        rounded = _cast(np.outer(_cast(m, fmt), _cast(theta, fmt)), fmt)
        if name == "angles":
            return rounded
        exact = np.outer(m, theta)
        return np.maximum(abs(np.sin(rounded) - np.sin(exact)),
                          abs(np.cos(rounded) - np.cos(exact)))
    config = case["config"]
    model = next(k for k, v in _presets().items() if v is config)
    rotated = (PUBLISHED_ROTATED_DIMS | ROTATED_IN_FREQUENCY_CASES)[model]
    if name == "rotated_dims":
        return rotated
    assert name == "inv_freq", key
    base = float(config.get("rope_theta", config.get("rotary_emb_base")))
    return np.exp(-np.arange(0, rotated, 2) / rotated * math.log(base))


def _presets() -> dict[str, Any]:
    from posenc_lib.presets import PRESETS

    return PRESETS


@pytest.mark.parametrize("key", KEYS_05_09)
def test_the_solution_is_right_by_an_independent_computation(key: str) -> None:
    step = the_step(key)
    for case in step.cases:
        np.testing.assert_allclose(_right(key)(**case), _by_hand(key, case), rtol=1e-9,
                                   atol=1e-12)


def test_the_hand_rounding_of_08_is_the_real_cast_on_every_float16_position() -> None:
    """The derived rounding (frexp, round, ldexp) equals NumPy's float16 cast on every position
    float16 holds, and ml_dtypes' bfloat16 cast up to 2^16, at d = 32's frequencies."""
    angles = _right("08.steps.angles")
    theta = np.array([10000.0 ** (-2 * i / 32) for i in range(16)])
    for fmt, stop in (("float16", 65505), ("bfloat16", 65536)):
        m = np.arange(stop)
        want = _cast(np.outer(_cast(m, fmt), _cast(theta, fmt)), fmt)
        np.testing.assert_array_equal(angles(m, theta, fmt), want)


def _cells(number: str) -> list[dict]:
    return load(notebook_path(number))["cells"]


def test_06_ntk_states_the_condition_and_not_the_base() -> None:
    cells = _cells("06")
    stub, check = step_cell_indices(cells, the_step("06.steps.ntk"))
    prompt = source(cells[stub - 1])
    assert "divided by exactly $s$" in prompt and "i = d/2 - 1" in prompt
    assert "s^{d/(d-2)}" not in prompt and "no formula is given" in prompt
    after = source(cells[check + 2])  # the markdown after the chart of the check's next cell
    assert "\\text{base}' = \\text{base}\\cdot s^{d/(d-2)}" in after


def test_07_alibi_states_the_condition_on_the_last_head_only() -> None:
    cells = _cells("07")
    stub, check = step_cell_indices(cells, the_step("07.steps.alibi"))
    text = "\n".join(source(c) for c in cells[:stub] if c["cell_type"] == "markdown")
    assert "m_H = 2^{-8}" in text and "2^{-8h/H}" not in text
    assert "m_h = r^h" in source(cells[stub - 1])
    assert "2^{-8h/H}" in source(cells[check + 1])


def test_05_rope_asks_for_the_complex_form_and_shows_the_real_form_after() -> None:
    cells = _cells("05")
    stub, check = step_cell_indices(cells, the_step("05.steps.rope"))
    prompt = source(cells[stub - 1])
    assert "complex" in prompt and "odot" not in prompt and "cos(m\\Theta)" not in prompt
    after = source(cells[check + 1])
    assert "(x_{2i} + i\\,x_{2i+1})\\,e^{i m\\theta_i}" in after
    assert "R_m x = x \\odot \\cos(m\\Theta)" in after


def test_09_rotated_dims_gives_no_recipe_and_names_the_five_configs() -> None:
    cells = _cells("09")
    stub, check = step_cell_indices(cells, the_step("09.steps.rotated_dims"))
    prompt = " ".join(source(cells[stub - 1]).split())
    assert "No recipe" in prompt and "partial_rotary_factor" not in prompt
    assert "qk_rope_head_dim" not in prompt
    for model in ("Gemma 3", "Phi-4-mini", "Pythia-1.4B", "DeepSeek-V3", "Llama 3.1 8B"):
        assert model in prompt
    cases = [c["config"] for c in the_step("09.steps.rotated_dims").cases]
    assert [next(k for k, v in _presets().items() if v is c) for c in cases] == list(
        PUBLISHED_ROTATED_DIMS)


@pytest.mark.parametrize("key", KEYS_05_09)
def test_the_picture_or_print_comes_in_the_cell_the_step_feeds(key: str) -> None:
    """``beside`` or ``compare`` sits in the check cell or after it, in a cell that calls the
    adopted function or draws its result, on the main path and before any Predict."""
    cells = _cells(key[:2])
    step = the_step(key)
    check = check_cell_index(cells, step)
    name = adopted_name(cells, step)
    shows = dict(NOTEBOOK_STEPS[key[:2]])[key]
    method = "beside" if shows == "picture" else "compare"
    at = next(i for i in range(check, len(cells))
              if re.search(rf"\b{name}\.{method}\(", source(cells[i])))
    if shows == "picture":
        assert "plt.show()" in source(cells[at])
    assert "predict" not in cells[at].get("metadata", {}).get("tags", [])
    end = next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown"
               and source(c).startswith(("## Going further", "## Exercises")))
    assert at < end


def test_rotary_dims_from_config_is_twice_the_frequency_count_on_every_preset() -> None:
    """The rotated-dims step's reference reads the config as rope_frequencies_from_config does
    (every preset, every layer type it names), without computing a frequency."""
    from posenc_lib.models import rope_frequencies_from_config, rotary_dims_from_config
    from posenc_lib.presets import PRESETS

    checked = 0
    for name, config in PRESETS.items():
        kinds = set(config.get("layer_types") or []) or {None}
        for kind in kinds:
            try:
                theta, _ = rope_frequencies_from_config(config, layer_type=kind)
            except ValueError:  # a layer type without RoPE, or one the config must name
                with pytest.raises(ValueError):
                    rotary_dims_from_config(config, layer_type=kind)
                continue
            assert rotary_dims_from_config(config, layer_type=kind) == 2 * theta.size, name
            checked += 1
    assert checked >= len(PRESETS) - 3

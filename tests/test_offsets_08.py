"""Notebook 08's trained models at large positions (issue 47 item 7): every number its cells
print and its prose states, recomputed here from results/lab_offsets.json and from NumPy's own
float32 arithmetic, without the lab's results module; and no JAX on the way."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from posenc_lib.presets import PRESETS
from tests.test_statements_07_11 import NB08, printed, source

ROOT = NB08.parents[1]
_T_975_DF4 = 2.7764  # Student's t, 97.5% quantile, 4 degrees of freedom (a printed table)
_F32 = "float32_angles_float32_rotation"
_SHOWN = (0, 10**6, 10**7, 16 * 10**6, 2 * 10**7, 10**8)


@pytest.fixture(scope="module")
def data() -> dict:
    return json.loads((ROOT / "results" / "lab_offsets.json").read_text(encoding="utf-8"))


def _seeds(data: dict, task: str, variant: str) -> np.ndarray:
    return np.array([data["offsets"][f"{task}/{variant}/{s}"] for s in data["setup"]["seeds"]])


def _at(data: dict, task: str, variant: str, offset: int) -> np.ndarray:
    return _seeds(data, task, variant)[:, data["setup"]["offsets"].index(offset)]


def _cell(marker: str) -> str:
    cells = json.loads(NB08.read_text(encoding="utf-8"))["cells"]
    (found,) = [source(c) for c in cells if marker in source(c)]
    return " ".join(found.split())


def test_the_reveal_prints_where_copy_back_drops(data: dict) -> None:
    offsets = data["setup"]["offsets"]
    means = _seeds(data, "copy_back", _F32).mean(axis=0)
    first = next(o for o, m in zip(offsets, means, strict=True) if m < means[0] - 0.1)
    assert first == 2 * 10**7
    shown = printed(NB08, "offset_drop = int(")
    assert (f"copy_back, float32 angles, mean of 5 seeds: {means[0]:.2f} at offset 0, "
            f"{means[offsets.index(first)]:.2f} at offset {first:,}, the first offset where it "
            f"is below {means[0] - 0.1:.2f}") in shown
    assert f"copy_back with float32 angles drops at offset: {first}" in shown


def test_the_table_prints_each_mean_with_its_t_interval(data: dict) -> None:
    shown = printed(NB08, "shown = [0, 10**6")
    for task in data["setup"]["tasks"]:
        for variant, formats in data["setup"]["variants"].items():
            cells = []
            for offset in _SHOWN:
                values = _at(data, task, variant, offset)
                half = _T_975_DF4 * values.std(ddof=1) / math.sqrt(len(values))
                cells.append(f"{values.mean():.2f} ± {half:.2f}")
            name = f"{formats['angles']}, {formats['rotation']}"
            assert f"{task:<15}{name:<19}" + "".join(f"{c:>13}" for c in cells) in shown


def test_the_prose_states_what_the_results_show(data: dict) -> None:
    reveal = _cell("With exact angles every task keeps its accuracy up to $10^8$")
    assert ("With float32 angles all four tasks hold up to $1.6 \\cdot 10^7$ and fall at "
            "$2 \\cdot 10^7$, on every seed") in reveal
    for task in data["setup"]["tasks"]:
        for variant, formats in data["setup"]["variants"].items():
            values = _seeds(data, task, variant)
            if formats["angles"] == "float64":  # every offset, both rotations: unchanged
                assert np.abs(values - values[:, :1]).max() <= 0.0015, (task, variant)
        start = _at(data, task, _F32, 0)
        at_16 = _at(data, task, _F32, 16 * 10**6)
        at_20 = _at(data, task, _F32, 2 * 10**7)
        assert np.all(np.abs(at_16 - start) <= 0.002) and np.all(at_20 < start - 0.03), task
    closing = _cell("The tables get the size of the error right")
    copy_back = _at(data, "copy_back", _F32, 2 * 10**7).mean()
    assert f"falls to {copy_back:.2f}" in closing


def test_the_float32_window_facts_come_from_numpy_s_own_float32() -> None:
    """pair 1's sin/cos error at 10^7, the distinct positions at 2 10^7 and 2^24, computed with
    NumPy's float32 product (not posenc_lib's emulation); the prose and the printed row."""
    theta = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    window = 10**7 + np.arange(32)
    hat = (window.astype(np.float32)[:, None] * theta.astype(np.float32)[None, :]).astype(float)
    exact = window[:, None] * theta[None, :]
    error = np.maximum(np.abs(np.sin(hat) - np.sin(exact)), np.abs(np.cos(hat) - np.cos(exact)))
    assert error.max(axis=0).argmax() == 1 and np.abs(hat - exact)[:, 0].max() == 0.0
    distinct = len(np.unique((2 * 10**7 + np.arange(32)).astype(np.float32)))
    closing = _cell("The tables get the size of the error right")
    assert f"pair 1's sine or cosine errs by {error.max():.2f}, more than the 0.1" in closing
    assert f"({distinct} distinct among 32 at $2 \\cdot 10^7$)" in closing
    assert f"$2^{{24}}$ = {2**24:,} float32 cannot store" in closing
    assert np.float32(2**24 + 1) == np.float32(2**24)  # the first integer float32 loses
    scout = PRESETS["llama-4-scout"]["max_position_embeddings"]
    assert f"Llama 4 Scout's {scout:,} lies below" in closing and scout < 2**24
    rows = printed(NB08, "lab_theta = inverse_frequencies(16)")
    assert f"  10,000,000{np.abs(hat - exact).max():>13.3f}{1:>6}{error.max():>15.3f}" in rows
    assert "  20,000,000" in rows and f"{distinct:>15} of 32" in rows


def test_08_reads_the_lab_without_jax() -> None:
    cells = json.loads(NB08.read_text(encoding="utf-8"))["cells"]
    assert not any("import jax" in source(c) or "from jax" in source(c) for c in cells)
    code = ("import sys, posenc_lib.lab.results, posenc_lib.lab.plots, "
            "posenc_lib.lab.verdicts; print('jax' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"

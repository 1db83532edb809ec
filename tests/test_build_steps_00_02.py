"""Build steps of notebooks 01 and 02 (issue 32): the worked function is right by an independent
computation, the stored check says the cells below use it, each named mistake is diagnosed by
name with the library taking over, an unwritten stub falls back, and the cells after the check
draw the notebook's pictures from the adopted function."""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from posenc_lib.binary import binary_table, smooth_bit_wave
from posenc_lib.build_steps import Mistake, adopt
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.sinusoidal import encoding_from_frequencies, sinusoidal_encoding
from tools.notebook_cells import BEGIN, END, ROOT, load, source, tags

NB01 = ROOT / "notebooks" / "01_binary_counting.ipynb"
NB02 = ROOT / "notebooks" / "02_sinusoidal_formula.ipynb"

# (notebook, learner's function, library reference, adopted name, code that must use it after)
STEPS = [
    (NB01, "binary_table_by_me", binary_table, "my_table",
     ["draw_binary_table(ax, my_table(16, 4)", "table = my_table(256, 8)"]),
    (NB01, "smooth_bit_wave_by_me", smooth_bit_wave, "my_smooth",
     ["smooth = np.stack([my_smooth(x, k)"]),
    (NB02, "inverse_frequencies_by_me", inverse_frequencies, "my_theta",
     ["div_term = my_theta(d_model)", "wavelengths(my_theta(d_model))"]),
    (NB02, "sinusoidal_by_me", sinusoidal_encoding, "my_encoding",
     ["pe_shown = my_encoding(", "pe = my_encoding(100, d_model)"]),
]
ids = [step[1] for step in STEPS]


def _namespace() -> dict[str, Any]:
    return {"np": np, "Mistake": Mistake, "binary_table": binary_table,
            "smooth_bit_wave": smooth_bit_wave, "inverse_frequencies": inverse_frequencies,
            "sinusoidal_encoding": sinusoidal_encoding,
            "encoding_from_frequencies": encoding_from_frequencies}


def _cells_of(path: Path, name: str) -> tuple[int, int, int]:
    """Indices of the stub, the worked version and the adopt check of one build step."""
    cells = load(path)["cells"]
    worked = next(i for i, c in enumerate(cells)
                  if "solution" in tags(c) and re.search(rf"^def {name}\(", source(c), re.M))
    return worked - 1, worked, worked + 1


def _until_adopt(code: str) -> str:
    """The statements of a check cell up to and including the one that calls adopt()."""
    tree = ast.parse(code)
    kept = []
    for node in tree.body:
        kept.append(node)
        if "adopt(" in ast.unparse(node):
            break
    return "\n".join(ast.unparse(node) for node in kept)


def _run_steps(path: Path) -> dict[str, Any]:
    """Run the worked versions and the check cells (up to adopt) of a notebook, in order, with
    an adopt that records its arguments and returns the learner's function."""
    space = _namespace()
    calls: dict[str, dict[str, Any]] = {}

    def recorder(yours, reference, cases, *, name, mistakes=()):
        calls[yours.__name__] = dict(reference=reference, cases=cases, name=name,
                                     mistakes=list(mistakes), yours=yours)
        return yours

    space["adopt"] = recorder
    for _, step_name, _, _, _ in (s for s in STEPS if s[0] == path):
        _, worked, check = _cells_of(path, step_name)
        cells = load(path)["cells"]
        body = source(cells[worked])
        exec(body.split(BEGIN, 1)[1].split(END, 1)[0], space)
        exec(_until_adopt(source(cells[check])), space)
    space["calls"] = calls
    return space


RUNS = {path: _run_steps(path) for path in (NB01, NB02)}


def _by_hand(name: str, case: dict[str, Any]) -> np.ndarray:
    """Each function computed an independent way, one number at a time with math."""
    if name == "binary_table_by_me":
        n, bits = case["n_positions"], case["n_bits"]
        return np.array([[int(b) for b in format(p, f"0{bits}b")] for p in range(n)])
    if name == "smooth_bit_wave_by_me":
        k = case["bit"]
        return np.array([0.5 - 0.5 * math.sin(math.pi * (x + 0.5) / 2**k)
                         for x in case["positions"]])
    if name == "inverse_frequencies_by_me":
        d, base = case["dim"], case["base"]
        return np.array([math.pow(base, -2 * i / d) for i in range(d // 2)])
    n, d, base = case["n_positions"], case["d_model"], case["base"]
    return np.array([[(math.sin if j % 2 == 0 else math.cos)(p / math.pow(base, (j - j % 2) / d))
                      for j in range(d)] for p in range(n)])


@pytest.mark.parametrize("step", STEPS, ids=ids)
def test_the_worked_version_is_right_by_an_independent_computation(step) -> None:
    path, name = step[0], step[1]
    call = RUNS[path]["calls"][name]
    assert call["reference"] is step[2] and len(call["cases"]) >= 2
    for case in call["cases"]:
        assert np.allclose(call["yours"](**case), _by_hand(name, case), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("step", STEPS, ids=ids)
def test_the_stored_check_uses_yours_and_the_cells_below_use_it(step) -> None:
    path, name, _, adopted, uses = step
    cells = load(path)["cells"]
    stub, worked, check = _cells_of(path, name)
    assert f"{adopted} = adopt({name}," in source(cells[check])
    printed = "".join("".join(o.get("text", "")) for o in cells[check]["outputs"])
    cases = len(RUNS[path]["calls"][name]["cases"])
    assert f"agrees with posenc_lib on {cases} cases: the cells below use yours" in printed
    below = "\n".join(source(c) for c in cells[check:] if c["cell_type"] == "code")
    for use in uses:
        assert use in below, use
    assert "raise NotImplementedError" in source(cells[stub])
    assert "solution" not in tags(cells[stub])


def _mistakes() -> list[tuple[str, Mistake]]:
    return [(name, m) for path in RUNS for name, call in RUNS[path]["calls"].items()
            for m in call["mistakes"]]


@pytest.mark.parametrize("named", _mistakes(), ids=lambda nm: f"{nm[0]}:{nm[1].name[:24]}")
def test_each_named_mistake_is_diagnosed_and_the_library_takes_over(
        named, capsys: pytest.CaptureFixture[str]) -> None:
    name, mistake = named
    call = next(RUNS[p]["calls"][name] for p in RUNS if name in RUNS[p]["calls"])
    # the mistake is a real one: it differs from the independent computation on some case
    assert any(np.shape(mistake.wrong(**case)) != np.shape(_by_hand(name, case))
               or not np.allclose(mistake.wrong(**case), _by_hand(name, case))
               for case in call["cases"])
    chosen = adopt(mistake.wrong, call["reference"], call["cases"], name=call["name"],
                   mistakes=call["mistakes"])
    out = capsys.readouterr().out
    assert chosen is call["reference"]
    assert f"it looks like {mistake.name}" in out
    assert f"the cells below use posenc_lib's {call['name']}" in out


def test_every_build_step_names_at_least_two_mistakes() -> None:
    for path in RUNS:
        for name, call in RUNS[path]["calls"].items():
            assert len(call["mistakes"]) >= 2, name
    assert len(RUNS[NB01]["calls"]) >= 2 and len(RUNS[NB02]["calls"]) >= 2


@pytest.mark.parametrize("step", STEPS, ids=ids)
def test_the_stub_falls_back_to_the_library(step, capsys: pytest.CaptureFixture[str]) -> None:
    path, name = step[0], step[1]
    space = _namespace()
    exec(source(load(path)["cells"][_cells_of(path, name)[0]]), space)
    call = RUNS[path]["calls"][name]
    assert adopt(space[name], call["reference"], call["cases"], name=call["name"]) is step[2]
    assert f"{call['name']} not written yet" in capsys.readouterr().out

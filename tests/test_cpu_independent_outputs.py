"""No stored notebook output prints a number at the level of float64 rounding.

Such digits come from the last bits of sums, dot products and libm calls, which depend on the
CPU's SIMD width, on BLAS's kernels and on summation order: a value printed as "1.1e-16" on one
machine is "2.2e-16" or "0.0e+00" on another, and nbval then fails there. The notebooks print
which side of a bound such a quantity falls ("below 1e-12: True") instead. Exact constants
(powers of two such as float64's epsilon, 2**-52) and well-conditioned small values listed
below are allowed. `make test-baseline` checks the rest of the rule by running the notebooks that
compute in a narrow float (tools/simd_notebooks.py) with numpy's dispatched SIMD paths off.
"""

from __future__ import annotations

import re

import pytest

from tools.notebook_cells import NOTEBOOKS, load

TINY = re.compile(r"(?<![\w.])(\d(?:\.\d+)?)e-(\d+)\b")
ROUNDING_LEVEL = 1e-12
BOUND_WORDS = re.compile(r"(\bto|below|under|than|within|<)\s*$")  # a stated bound, not a result
# small values that are not rounding noise: each is a smooth function of its inputs, known to a
# relative precision far finer than the digits printed
WELL_CONDITIONED = {
    # float64's epsilon 2**-52 and its gap at 1000, 2**-43: exact constants of the format
    ("08_numerical_precision.ipynb", "float64    2.22e-16"),
    # the loss halves its residual every step in exact arithmetic: 10.9 * 4**-40 or so, with a
    # relative rounding error near 1e-5, far below the two digits shown
    ("07_other_schemes.ipynb", "after 40 steps: 3.6e-23"),
}


def _printed(cell: dict) -> str:
    texts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            texts.append("".join(output.get("text", "")))
        else:
            texts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "\n".join(texts)


def _rounding_level_numbers(path) -> list[str]:
    found = []
    for cell in load(path)["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or "nbval-ignore-output" in tags:
            continue
        printed = _printed(cell)
        for match in TINY.finditer(printed):
            mantissa, exponent = match.group(1), int(match.group(2))
            value = float(mantissa) * 10.0**-exponent
            before = printed[max(match.start() - 8, 0):match.start()]
            if value == 0 or value >= ROUNDING_LEVEL or BOUND_WORDS.search(before):
                continue
            start = printed.rfind("\n", 0, match.start()) + 1
            line = printed[start:printed.find("\n", match.end())]
            if any(path.name == name and text in line for name, text in WELL_CONDITIONED):
                continue
            found.append(line.strip())
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_output_prints_rounding_noise(path) -> None:
    assert _rounding_level_numbers(path) == []


def test_the_scan_finds_rounding_noise_and_spares_the_listed_constants(tmp_path) -> None:
    import json

    cell = {"cell_type": "code", "metadata": {}, "source": "", "outputs": [
        {"output_type": "stream", "name": "stdout",
         "text": "float64    2.22e-16  1.14e-13\nspread 1.1e-16 (to 1e-13)\nresidual 1.3e-14\n"}]}
    notebook = tmp_path / "08_numerical_precision.ipynb"
    notebook.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4,
                                    "nbformat_minor": 5}), encoding="utf-8")
    found = _rounding_level_numbers(notebook)
    assert found == ["spread 1.1e-16 (to 1e-13)", "residual 1.3e-14"]

"""Statements the notebooks make in prose, checked against their stored outputs and the library.

Each test pins a sentence that was once wrong (issue 12), so the wrong version cannot come back
without a test failing.
"""

from __future__ import annotations

import math
import re
import struct
from pathlib import Path

import numpy as np
import pytest

from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.scorecard import CRITERIA, check_extends, encode
from posenc_lib.sinusoidal import sinusoidal_encoding
from tests.statements_helpers import NUMBER_WORDS, stated
from tools.notebook_cells import ROOT, load, source

NB00 = ROOT / "notebooks" / "00_why_position.ipynb"
NB01 = ROOT / "notebooks" / "01_binary_counting.ipynb"
NB02 = ROOT / "notebooks" / "02_sinusoidal_formula.ipynb"


def stdout(cell: dict) -> str:
    return "".join(
        "".join(o["text"]) if isinstance(o["text"], list) else o["text"]
        for o in cell.get("outputs", [])
        if o.get("output_type") == "stream"
    )


def markdown_and_code_above(path: Path, marker: str) -> tuple[str, dict]:
    """The markdown cell containing ``marker`` and the nearest code cell above it."""
    cells = load(path)["cells"]
    at = next(
        i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and marker in source(c)
    )
    above = next(c for c in reversed(cells[:at]) if c["cell_type"] == "code")
    return source(cells[at]), above


def all_markdown(path: Path) -> str:
    return "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")


def test_extends_fails_the_normalised_index_and_00_prints_its_definition() -> None:
    # the normalised index stays inside the seen range but repeats seen codes, and fails
    normalised = lambda p, n, trained: encode("normalised", p, sentence_length=n)  # noqa: E731
    assert not check_extends(normalised)
    printed = stdout(markdown_and_code_above(NB00, "**Predict.** Which of the six criteria")[1])
    assert CRITERIA["extends"] in printed


def test_collision_example_is_in_the_middle_of_a_sentence() -> None:
    text, code = markdown_and_code_above(NB00, "2/8 = 16/64")
    # the normalised index of position p in a sentence of n tokens is p / (n - 1)
    value, p_short, last_short, p_long, last_long = stated(
        r"Both get ([\d.]+), because (\d+)/(\d+) = (\d+)/(\d+)", text)
    assert value == p_short / last_short == p_long / last_long
    printed = stdout(code)
    assert (f"position {p_long:.0f} of {last_long + 1:.0f} gets {value:.4f}; "
            f"position {p_short:.0f} of {last_short + 1:.0f} gets {value:.4f}") in printed
    assert "they share a code: True" in printed
    assert np.array_equal(
        encode("normalised", [2], sentence_length=9), encode("normalised", [16], sentence_length=65)
    )


def test_float_columns_differ_in_resolution_not_in_information() -> None:
    # issue 21: "about 10 bits per column: ten times more information" was wrong; 1024
    # positions need log2 1024 = 10 bits in total, in either code
    text, code = markdown_and_code_above(NB01, "in *resolution*, not in information")
    assert "np.float32" in source(code)
    printed = stdout(code)
    assert "distinct values per column: {2}" in printed and "1023" in printed
    # the information: distinct rows, counted here from the integers and the angles themselves
    positions = np.arange(1024)
    bits = (positions[:, None] >> np.arange(10)) & 1
    angles = positions[:, None] * 10000.0 ** (-np.arange(0, 20, 2) / 20)
    sines = np.concatenate([np.sin(angles), np.cos(angles)], axis=1).astype(np.float32)
    told_apart, log_of = stated(
        r"both codes tell all (\d+) apart: that takes \$\\log_2 (\d+)\$ bits",
        " ".join(text.split()), int)
    assert told_apart == log_of == len({tuple(r) for r in bits}) == len({tuple(r) for r in sines})
    assert 2 ** bits.shape[1] == told_apart  # the 10 bit columns are exactly log2 of it
    per_column = [len(np.unique(c)) for c in sines.T]
    # issue 32: the column with 1023 values is a cosine: in the paper's interleaved layout
    # (column 2i sin, 2i + 1 cos) it is column 1, computed here from the angles
    interleaved = np.empty((1024, 20), dtype=np.float32)
    interleaved[:, 0::2], interleaved[:, 1::2] = np.sin(angles), np.cos(angles)
    counts = [len(np.unique(c)) for c in interleaved.T]
    fewest, column = stated(r"\((\d+) in column (\d+), a cosine, where two positions' float32 "
                            r"values round", " ".join(text.split()), int)
    assert fewest == min(per_column) == min(counts) and counts.index(fewest) == column
    assert column % 2 == 1 and counts.count(fewest) == 1
    _, told = markdown_and_code_above(NB01, "**3. A fixed number of bits runs out.**")
    shown = stdout(told)
    assert "{'binary': 1024, 'sinusoidal': 1024}" in shown and "log2 1024 = 10" in shown
    assert f"{sum(n == 1024 for n in per_column)} of 20" in shown


def test_smooth_bit_wave_phase_is_explained_and_computed() -> None:
    text, code = markdown_and_code_above(NB01, "falls on the centre of its first run of zeros")
    lines = [line.split("|") for line in stdout(code).splitlines()[1:]]
    assert len(lines) == 4
    for k, (bit, trough, centre, checks) in enumerate(lines):
        assert int(bit) == k and float(trough) == float(centre) == (2**k - 1) / 2
        assert checks.split() == ["True", "False", "False"]


def test_pitfall_box_says_sin_0_03() -> None:
    text, code = markdown_and_code_above(NB02, '"pos 4"')
    flat = " ".join(text.replace(">", " ").split())
    # position 3 of d = 4: angles 3 / 10000^(2i/4) for the pairs i = 0, 1
    angles = 3 / 10000.0 ** (np.arange(0, 4, 2) / 4)
    row = stated(r"That row holds \$\\sin ([\d.]+)\$, \$\\cos ([\d.]+)\$, \$\\sin ([\d.]+)\$, "
                 r"\$\\cos ([\d.]+)\$", flat)
    assert row == pytest.approx(np.repeat(angles, 2), rel=1e-12)
    assert stated(r"the angle is \$3/100 = ([\d.]+)\$", flat) == pytest.approx(angles[1], rel=1e-12)
    slip = 3 / 10000.0 ** (1 / 4)  # the exponent 2 * 1/4 misread as 1/4
    assert stated(r"gives the angle \$3/10 = ([\d.]+)\$", flat) == pytest.approx(slip, rel=1e-12)
    assert stated(r"The table's value (\d+\.\d+) is", flat, str) == f"{np.sin(angles[1]):.7f}"
    assert stated(r"\$\\sin 0\.3\$ would be (\d+\.\d+)", flat, str) == f"{np.sin(slip):.7f}"
    # issue 32: a reply to a source's slip sits in Going further, off the main path
    cells = load(NB02)["cells"]
    going_further = next(i for i, c in enumerate(cells) if source(c).startswith("## Going further"))
    assert next(i for i, c in enumerate(cells) if '"pos 4"' in source(c)) > going_further
    assert "sin(0.03) = 0.0299955" in stdout(code)
    angle = 3 * inverse_frequencies(4)[1]
    assert round(angle, 12) == 0.03
    assert f"{sinusoidal_encoding(4, 4)[3, 2]:.7f}" == f"{np.sin(0.03):.7f}" == "0.0299955"


def _closest_rows(m: np.ndarray) -> float:
    """Smallest Euclidean distance between two different rows, from the pairwise differences."""
    gaps = np.sqrt(((m[:, None, :] - m[None, :, :]) ** 2).sum(axis=-1))
    np.fill_diagonal(gaps, np.inf)
    return float(gaps.min())


def test_pitfall_5_is_measured_with_the_column_index() -> None:
    """Pitfall 5, sin((t/10^4)^(j/d)) in column j, is the source's formula read with j the
    column index (cosines sharing their sine's angle); read with the pair index it would give
    other damage. The printed damage is recomputed both ways, the table's d_model = 512."""
    cells = load(NB02)["cells"]
    table = stdout(next(c for c in cells if "closest_rows(m)" in source(c)
                        and c["cell_type"] == "code"))
    line = next(row for row in table.splitlines() if row.startswith("5. "))
    worst, _, closest = line.split()[-3:]
    d, t, j = 512, np.arange(100.0)[:, None], np.arange(512)
    right = sinusoidal_encoding(100, d)

    def version_5(index: np.ndarray, cosine_index: np.ndarray) -> np.ndarray:
        return np.where(j % 2 == 0, np.sin((t / 1e4) ** (index / d)),
                        np.cos((t / 1e4) ** (cosine_index / d)))

    by_column = version_5(j, j - j % 2)
    by_pair = version_5(j // 2, j // 2)
    assert (float(worst), float(closest)) == (round(float(np.abs(by_column - right).max()), 3),
                                               round(_closest_rows(by_column), 3))
    assert round(float(np.abs(by_pair - right).max()), 3) != float(worst)
    assert round(_closest_rows(by_pair), 3) != float(closest)


def test_exp_and_power_forms_differ_only_in_rounding() -> None:
    # issue 21: the float16 argument was wrong (nobody builds frequencies in float16); the forms
    # differ in float32 rounding, the exp form amplifying the rounding of its large argument
    text, code = markdown_and_code_above(NB02, "off by up to a few epsilons")
    printed = stdout(code)
    d, eps = 512, float(np.finfo(np.float32).eps)
    # in float64 the two forms agree to the power of ten the prose states
    k64 = np.arange(0, d, 2)
    power_of_ten = stated(r"the two forms agree to \$10\^\{(-\d+)\}\$", " ".join(text.split()), int)
    for base in (10000.0, 500000.0):
        exp64, pow64 = np.exp(k64 * -(np.log(base) / d)), 1.0 / base ** (k64 / d)
        assert np.max(np.abs(exp64 - pow64) / pow64) < 10.0**power_of_ten
    # float32 emulated without numpy: struct's 'f' rounds to the nearest float32 and math's exp
    # and pow are the C library's float64 ones; the cell must print what a correctly rounded
    # float32 library gives, the same on every CPU
    errors = {}
    for base in (10000.0, 500000.0):
        worst_exp = worst_pow = 0.0
        for k in range(0, d, 2):
            exact = base ** (-k / d)
            exp32 = fl32(math.exp(fl32(k * fl32(-math.log(base) / d))))
            pow32 = fl32(1.0 / fl32(math.pow(fl32(base), fl32(k / d))))
            worst_exp = max(worst_exp, abs(exp32 - exact) / exact / eps)
            worst_pow = max(worst_pow, abs(pow32 - exact) / exact / eps)
        errors[base] = (worst_exp, worst_pow)
        line = f"exp form {worst_exp:.1f} eps, power form {worst_pow:.1f} eps"
        assert line in printed, line
    # the prose: "off by up to a few epsilons and the power form by less than one"
    few, below = stated(r"the exp form is off by up to a (\w+) epsilons and the power form by "
                        r"less than (\w+)\W", " ".join(text.split()), str)
    assert few == "few" and all(2 < e < 10 for e, _ in errors.values())
    assert all(p < {"one": 1, **NUMBER_WORDS}[below] for _, p in errors.values())


def fl32(x: float) -> float:
    """The float32 nearest to x (IEEE round to nearest, ties to even), as a Python float."""
    return struct.unpack("f", struct.pack("f", x))[0]


NB11 = ROOT / "notebooks" / "11_figure_gallery.ipynb"


def test_11_counts_the_write_ups_it_lists() -> None:
    """The number of write-ups 11 says it lists under Further reading is the number of the
    write-up identifiers (000, 001, ...) that sentence goes on to list."""
    text = " ".join(all_markdown(NB11).split())
    word, listing = stated(r"The (\w+) write-ups are listed under Further reading: ([^\n]*?)\.\s",
                           text, str)
    assert NUMBER_WORDS[word] == len(set(re.findall(r"\b(0\d\d) ", listing))) > 1


def test_pairs_that_turn_and_columns_that_change_in_02() -> None:
    import math

    # pair i turns fully within L tokens when 2 pi 10000^(2i/512) <= L - 1
    turning = sum(2 * math.pi * 10000 ** (2 * i / 512) <= 511 for i in range(256))
    cells = load(NB02)["cells"]
    reveal = next(c for c in cells if "predict" in c.get("metadata", {}).get("tags", [])
                  and "turns_guess" in source(c))
    shown = "".join("".join(o.get("data", {}).get("text/plain", "")) for o in reveal["outputs"])
    assert f"pairs that turn fully in 512 tokens: {turning}" in shown
    assert f"({turning} of 256 pairs" in stdout(reveal)
    # columns whose value changes by more than 0.1 over positions 0..99, counted by hand
    t = np.arange(100)[:, None]
    freq = 10000.0 ** (-np.arange(0, 512, 2) / 512)
    ranges = np.concatenate([np.ptp(np.sin(t * freq), 0), np.ptp(np.cos(t * freq), 0)])
    busy = next(c for c in cells if "busy_guess" in source(c) and "predict" in
                c.get("metadata", {}).get("tags", []))
    assert f"{int(np.sum(ranges > 0.1))} in all" in stdout(busy)


def test_02_scores_extends_per_dimension_and_shows_the_slow_columns_leave() -> None:
    from posenc_lib.scorecard import evaluate

    cells = load(NB02)["cells"]
    cell = next(c for c in cells if "scorecard(" in source(c) and c["cell_type"] == "code")
    assert "per_dimension=True" in source(cell)
    table = "".join("".join(o.get("data", {}).get("text/plain", "")) for o in cell["outputs"])
    row = next(line for line in table.splitlines() if line.startswith("sinusoidal"))
    assert row.split()[1:] == ["yes", "yes", "yes", "yes", "no", "yes"]
    assert not evaluate("sinusoidal", per_dimension=True)["extends"]
    assert evaluate("sinusoidal")["extends"]  # the global-range test the notebook no longer uses
    # independently: d = 16, trained on 0..63, then 128..191; a column leaves its seen interval
    # by more than 1% of the seen span (about 0.02), one position at a time with math
    def value(p: int, j: int) -> float:
        angle = p / 10000 ** ((j - j % 2) / 16)
        return math.sin(angle) if j % 2 == 0 else math.cos(angle)

    seen = [[value(p, j) for p in range(64)] for j in range(16)]
    span = max(map(max, seen)) - min(map(min, seen))
    leaving = [j for j in range(16) if any(
        not min(seen[j]) - 0.01 * span <= value(p, j) <= max(seen[j]) + 0.01 * span
        for p in range(128, 192))]
    printed = stdout(cell)
    assert [int(m) for m in re.findall(r"^column\s+(\d+):", printed, re.M)] == leaving
    assert leaving and all(j >= 4 for j in leaving)  # the slow columns, not the fast ones

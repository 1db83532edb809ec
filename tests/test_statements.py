"""Statements the notebooks make in prose, checked against their stored outputs and the library.

Each test pins a sentence that was once wrong (issue 12), so the wrong version cannot come back
without a test failing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.scorecard import CRITERIA, check_extends, encode
from posenc_lib.sinusoidal import sinusoidal_encoding
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


def test_extends_definition_asks_for_new_codes() -> None:
    # the normalised index stays inside the seen range but repeats seen codes, and fails
    assert "new codes" in CRITERIA["extends"]
    normalised = lambda p, n, trained: encode("normalised", p, sentence_length=n)  # noqa: E731
    assert not check_extends(normalised)
    printed = stdout(markdown_and_code_above(NB00, "**Predict.** Which of the six criteria")[1])
    assert CRITERIA["extends"] in printed


def test_collision_example_is_in_the_middle_of_a_sentence() -> None:
    text, code = markdown_and_code_above(NB00, "2/8 = 16/64")
    assert "0.25" in text and "Position 191 of" not in all_markdown(NB00)
    printed = stdout(code)
    assert "position 16 of 65 gets 0.2500; position 2 of 9 gets 0.2500" in printed
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
    assert "distinct values per column: {2}" in printed and "1023" in printed and "1023" in text
    prose = all_markdown(NB01)
    assert "ten times more information" not in prose and "bits per column" not in prose
    assert "each float carries one bit" not in prose
    # the information: distinct rows, counted here from the integers and the angles themselves
    positions = np.arange(1024)
    bits = (positions[:, None] >> np.arange(10)) & 1
    angles = positions[:, None] * 10000.0 ** (-np.arange(0, 20, 2) / 20)
    sines = np.concatenate([np.sin(angles), np.cos(angles)], axis=1).astype(np.float32)
    assert len({tuple(r) for r in bits}) == len({tuple(r) for r in sines}) == 1024
    assert np.log2(1024) == 10
    _, told = markdown_and_code_above(NB01, "**3. A fixed number of bits runs out.**")
    shown = stdout(told)
    assert "{'binary': 1024, 'sinusoidal': 1024}" in shown and "log2 1024 = 10" in shown
    columns = [len(np.unique(c)) for c in sines.T]
    assert f"{sum(n == 1024 for n in columns)} of 20" in shown


def test_smooth_bit_wave_phase_is_explained_and_computed() -> None:
    text, code = markdown_and_code_above(NB01, "falls on the centre of its first run of zeros")
    lines = [line.split("|") for line in stdout(code).splitlines()[1:]]
    assert len(lines) == 4
    for k, (bit, trough, centre, checks) in enumerate(lines):
        assert int(bit) == k and float(trough) == float(centre) == (2**k - 1) / 2
        assert checks.split() == ["True", "False", "False"]
    assert "minus sign" in all_markdown(NB01)


def test_pitfall_box_says_sin_0_03() -> None:
    text, code = markdown_and_code_above(NB02, '"pos 4"')
    assert r"$\sin 0.03$, $\cos 0.03$" in text and r"$\sin 0.3$, $\cos 0.3$" not in text
    assert "second slip" in text and "0.0299955" in text
    assert "study notes" not in text and "popular" not in text  # issue 21: no unnamed source
    assert "sin(0.03) = 0.0299955" in stdout(code)
    angle = 3 * inverse_frequencies(4)[1]
    assert round(angle, 12) == 0.03
    assert f"{sinusoidal_encoding(4, 4)[3, 2]:.7f}" == f"{np.sin(0.03):.7f}" == "0.0299955"


def test_write_up_exponent_uses_the_column_index() -> None:
    text = all_markdown(NB02)
    assert r"(t/10^4)^{j/d}" in text and r"(t/10^4)^{i/d}" not in text


def test_exp_and_power_forms_differ_only_in_rounding() -> None:
    # issue 21: the float16 argument was wrong (nobody builds frequencies in float16); the forms
    # differ in float32 rounding, the exp form amplifying the rounding of its large argument
    text, code = markdown_and_code_above(NB02, "off by up to a few epsilons")
    prose = all_markdown(NB02)
    assert "beyond float16's 65504" not in prose and "size of the intermediate" not in prose
    assert "power form" in text and "style" in text
    printed = stdout(code)
    d, eps = 512, float(np.finfo(np.float32).eps)
    for base in (10000.0, 500000.0):
        exact = np.array([base ** (-k / d) for k in range(0, d, 2)])  # Python floats
        k32 = np.arange(0, d, 2, dtype=np.float32)
        exp32 = np.exp(k32 * np.float32(-np.log(base) / d)).astype(float)
        pow32 = (np.float32(1.0) / np.float32(base) ** (k32 / np.float32(d))).astype(float)
        err_exp = np.max(np.abs(exp32 - exact) / exact) / eps
        err_pow = np.max(np.abs(pow32 - exact) / exact) / eps
        assert err_exp > 3 > 1.05 > err_pow  # "a few epsilons" against "about one"
        line = f"exp form {err_exp:.1f} eps, power form {err_pow:.1f} eps"
        assert line in printed, line


def test_no_misquote_and_no_unnamed_sources_in_00_to_02() -> None:
    for path in (NB00, NB01, NB02):
        prose = all_markdown(path)
        assert "mod 0" not in prose and r"\pmod 0" not in prose, path.name
        for phrase in ("popular", "write-ups", "one write-up", "study notes", "well-known post"):
            assert phrase not in prose, (path.name, phrase)


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

"""Predictions of notebooks 00-02 are real (issue 32): nothing above a prompt answers it.

For every **Predict** prompt of 00, 01 and 02 this file holds the words that would give it
away, the answer in words and in digits, and checks that none of them appears in the markdown
above the prompt, nor in the printed output of the cells above it. The rewritten prompts'
answers are also recomputed here, independently of the notebooks.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import pytest

from tools.notebook_cells import ROOT, load, source

NB = {n: ROOT / "notebooks" / name for n, name in (
    ("00", "00_why_position.ipynb"), ("01", "01_binary_counting.ipynb"),
    ("02", "02_sinusoidal_formula.ipynb"))}

# notebook, words that find the prompt, give-away patterns (regular expressions, lower case)
GIVE_AWAY = [
    ("00", "largest difference between the cat's outputs",
     [r"no other way", r"nothing else changes", r"does not change", r"unchanged", r"equivariant",
      r"same output", r"identical output", r"(difference|gap) (is|of) 0\b"]),
    ("00", "appears twice in sentence a",
     [r"causal mask.{0,120}(differ|tells|leaks|separat)", r"sees (only )?(one|1) token",
      r"copies (get|have|receive) different", r"with (a|the) (causal )?mask.{0,60}: false"]),
    ("00", "a query's largest weight be",
     [r"0\.99", r"saturat", r"looks at one token", r"almost every query"]),
    ("00", "how many *different* codes does position 4 get",
     [r"\b46\b", r"forty-six", r"different size in every", r"different code in every"]),
    ("00", "which of the six criteria does the integer index meet",
     [r"unique and independent", r"unique, length-free and deterministic",
      r"'deterministic', 'length-free', 'unique'"]),
    ("01", "for how many steps in a row does the left-most column",
     [r"\b512\b", r"2\^\{?9\b", r"2\^\{n-1\}", r"flips every", r"2\^k\$ steps", r"stays put for"]),
    ("01", "do you get bit $k$ of\n$p$ back",
     [r"rounds back", r"gives the bit back", r"bit back", r"== bit k of p: true"]),
    ("01", "how many bits change from 7 to 8",
     [r"7 to 8 (differs|changes) (in )?4", r"all of them", r"h\(7, 8\) = 4", r"\[4, 1\]",
      r"changes 4 bits", r"all four bits change"]),
    ("01", "how many distinct values can one\nof its columns take",
     [r"1,?024 (distinct|different) values", r"a different value at every", r"value per position",
      r"1,?023"]),
    ("02", "which of the four columns",
     [r"changes the most", r"changes (the )?least", r"\[1, 3\]", r"barely (moves|changes)"]),
    ("02", "how many of its 256 sine columns are negative",
     [r"\b7\b", r"seven", r"first 7 pairs", r"\\pi/4"]),
    ("02", "in how many of the 512 columns does the value change",
     [r"\b342\b", r"0\.\.382"]),
    ("02", "how many of the 256 pairs complete at least one full\nturn",
     [r"\b123\b", r"0\.\.122"]),
    ("02", "what is the norm $\\lVert p_n\\rVert$ for $d_{model} = 512$",
     [r"\b16\.00\b", r"sixteen", r"\\sqrt\{d_\{model\}/2\}", r"norm is 16",
      r"sin\^2 ?\+ ?\\?cos\^2", r"same norm"]),
]


def _prompts(path: Path) -> list[int]:
    cells = load(path)["cells"]
    return [i for i, c in enumerate(cells)
            if c["cell_type"] == "markdown" and source(c).startswith("**Predict")]


def _printed(cell: dict) -> str:
    text = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            text.append("".join(output["text"]))
        text.append("".join(output.get("data", {}).get("text/plain", "")))
    return "\n".join(text)


def test_every_prompt_of_00_to_02_has_its_give_away_words() -> None:
    for number, path in NB.items():
        cells = load(path)["cells"]
        held = [words for n, words, _ in GIVE_AWAY if n == number]
        for at in _prompts(path):
            prompt = " ".join(source(cells[at]).lower().split())
            assert sum(" ".join(w.lower().split()) in prompt for w in held) == 1, (path.name, at)
        assert len(held) == len(_prompts(path)), path.name


@pytest.mark.parametrize("entry", GIVE_AWAY, ids=lambda e: f"{e[0]}:{e[1][:30]}")
def test_nothing_above_a_prompt_gives_it_away(entry) -> None:
    number, words, patterns = entry
    cells = load(NB[number])["cells"]
    at = next(i for i in _prompts(NB[number])
              if " ".join(words.lower().split()) in " ".join(source(cells[i]).lower().split()))
    above = cells[:at]
    prose = "\n".join(source(c) for c in above if c["cell_type"] == "markdown").lower()
    printed = "\n".join(_printed(c) for c in above if c["cell_type"] == "code").lower()
    for pattern in patterns:
        assert not re.search(pattern, prose), (pattern, "in the markdown above")
        assert not re.search(pattern, printed), (pattern, "in an output above")


def _reveal_text(number: str, guess: str) -> str:
    cells = load(NB[number])["cells"]
    reveal = next(c for c in cells if "predict" in c.get("metadata", {}).get("tags", [])
                  and guess in source(c))
    return _printed(reveal)


def test_rewritten_prompts_reveal_the_independent_answers() -> None:
    # 00: position 4 gets 4/(n - 1) in a sentence of n >= 5 tokens: one code per length
    codes = {Fraction(4, n - 1) for n in range(2, 51) if n >= 5}
    assert (f"different codes of position 4, lengths 2 to 50: {len(codes)}"
            in _reveal_text("00", "code_guess"))
    # 02: over positions 0..3, the spread of sin(p), cos(p), sin(p/100), cos(p/100)
    columns = [[f(p / 10000 ** (2 * i / 4)) for p in range(4)]
               for i in (0, 1) for f in (math.sin, math.cos)]
    spread = [max(v) - min(v) for v in columns]
    answer = [spread.index(max(spread)), spread.index(min(spread))]
    assert f"[most, least]: [{answer[0]}, {answer[1]}]" in _reveal_text("02", "columns_guess")
    # 02: sin(4 theta_i) < 0 for theta_i = 10000^(-2i/512), counted one pair at a time
    negative = sum(math.sin(4 * 10000 ** (-2 * i / 512)) < 0 for i in range(256))
    assert (f"negative sine columns at position 4: {negative}"
            in _reveal_text("02", "negative_guess"))
    # the sentence after it: theta_i > pi/4 exactly for the first `negative` pairs
    assert sum(10000 ** (-2 * i / 512) > math.pi / 4 for i in range(256)) == negative
    text = " ".join(s for s in (source(c) for c in load(NB["02"])["cells"]) if "first" in s)
    assert f"the first {negative} pairs" in " ".join(text.split())

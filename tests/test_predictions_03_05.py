"""Predict prompts of notebooks 03-05 (issue 32 item 1): nothing above a prompt gives it away.

For every **Predict** prompt on the main path this file holds the words that would answer it,
the answer in words and in digits (regular expressions, case-insensitive). None may appear in the
markdown above the prompt (title, objectives, headings, prose); the ``shown`` ones may not appear
in the printed outputs above it either. A new prompt without its words fails the coverage test.
"""

from __future__ import annotations

import re

import pytest

from tools.notebook_cells import ROOT, load, source

NB = {name[:2]: ROOT / "notebooks" / name
      for name in ("03_properties.ipynb", "04_rotation_proof.ipynb", "05_rope.ipynb")}

# notebook -> {a phrase of the prompt: (give-away words in markdown, give-away words in outputs)}
GIVE_AWAY: dict[str, dict[str, tuple[list[str], list[str]]]] = {
    "03": {
        "How far apart are the two most distant of the 1000 rows?": (
            [r"10\.9", r"perpendicular", r"orthogonal rows", r"nearly cancel",
             r"most distant.{0,40}(are|is) (only|about|near)"],
            [r"largest distance", r"\b10\.9"]),
        "Position 50 scores the token 5 places after it": (
            [r"cannot tell", r"f\(-k\)", r"\beven\b", r"before from after",
             r"same .{0,20}before as after",
             r"symmetric in", r"\\cos\(\\theta_i k\)", r"\\sum_i\\cos"],
            [r"f\(k\) == f\(-k\)", r"5 before it"]),
        "does $f(k)$ fall at *every* step": (
            [r"bounce", r"not monotonic", r"non-?monotonic", r"turns? up", r"rises? again",
             r"wiggle", r"local minim"],
            [r"bounces? at", r"steps that go up"]),
        "What share of the variance across the 100 positions": (
            [r"0\.62\b", r"\b62 ?%", r"0\.620"], [r"first 128 columns: 0\.62"]),
    },
    "04": {
        "Which offset $k$ between 1\nand 50": (
            [r"\b44\b", r"forty-four", r"(seven|7) (full )?turns", r"closest to the identity: "],
            [r"\bk = 44\b"]),
        "For which offset $j$ is": (
            [r"M_\{-5\}", r"M_\{-k\}", r"M_-5", r"(is|=) (its |the )?transpose", r"M_k\^\\top",
             r"rotat\w* back",
             r"j ?= ?-5", r"M_k\^\{-1\}"],
            [r"inverse = M_-5", r"M_5\^T = M_j"]),
        "can a linear map send the 8\nsine channels": (
            [r"cannot", r"both sine and cosine", r"needs? the cosine", r"not enough",
             r"sines? alone (can ?not|fail)"],
            [r"sine channels only"]),
        "which key $j$ does query 10 give": (
            [r"k\$? (tokens|places) back", r"j ?= ?i ?- ?k", r"shifted diagonal", r"key 7\b",
             r"j ?= ?7\b", r"position 7\b", r"previous-token"],
            [r"attends to most: 7"]),
    },
    "05": {
        "is the score of a key 5 places after the query": (
            [r"tell (a key )?before", r"can tell", r"they differ", r"not equal", r"asymmetric",
             r"R_\{-r\} ?= ?R_r\^\\top"],
            [r"5 after and 5 before score the same"]),
        "by what factor does the wavelength of the fastest pair": (
            [r"\\theta_0 ?= ?1", r"1\.97", r"1\.98", r"does not change", r"unchanged",
             r"2\^\{126/128\}", r"2\^\{\(d-2\)/d\}"],
            [r"1\.97", r"1\.98"]),
        "run them, *without* the\npermutation, through a half-split": (
            [r"still (depends?|relative)", r"relative like every", r"relative for (any|every)",
             r"same \$R_m\$ and \$R_n\$"],
            [r"depend on n - m only: True", r"unpermuted W gives the same scores"]),
        "If $v$ is rotated too": (
            [r"never (the )?values", r"never \$?v\b", r"only \$q\$ and \$k\$ are rotated",
             r"stamped with", r"changes the result"],
            [r"rotate v as well"]),
    },
}


def _prompts(number: str) -> list[tuple[int, str]]:
    cells = load(NB[number])["cells"]
    end = next(i for i, c in enumerate(cells) if source(c).startswith(("## Going further",
                                                                        "## Exercises")))
    return [(i, source(c)) for i, c in enumerate(cells[:end])
            if c["cell_type"] == "markdown" and source(c).startswith("**Predict")]


def _above(number: str, index: int) -> tuple[str, str]:
    """The markdown and the printed outputs of the cells above cell ``index``."""
    cells = load(NB[number])["cells"][:index]
    markdown = "\n".join(source(c) for c in cells if c["cell_type"] == "markdown")
    shown = []
    for cell in cells:
        for output in cell.get("outputs", []):
            for text in (output.get("text", ""), output.get("data", {}).get("text/plain", "")):
                shown.append("".join(text) if isinstance(text, list) else text)
    return markdown, "\n".join(shown)


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("number", sorted(NB))
def test_every_prompt_has_its_give_away_words(number: str) -> None:
    prompts = [_flat(text) for _, text in _prompts(number)]
    keys = [_flat(key) for key in GIVE_AWAY[number]]
    assert len(prompts) >= 4
    for prompt in prompts:
        assert sum(key in prompt for key in keys) == 1, f"no give-away words for: {prompt[:80]}"
    for key in keys:
        assert any(key in prompt for prompt in prompts), f"a prompt is gone: {key}"


CASES = [(number, key) for number, prompts in GIVE_AWAY.items() for key in prompts]


@pytest.mark.parametrize(("number", "key"), CASES, ids=[f"{n}-{k[:30]}" for n, k in CASES])
def test_nothing_above_the_prompt_gives_it_away(number: str, key: str) -> None:
    index = next(i for i, text in _prompts(number) if _flat(key) in _flat(text))
    markdown, shown = _above(number, index)
    in_words, in_outputs = GIVE_AWAY[number][key]
    for word in in_words:
        found = re.search(word, _flat(markdown), re.I)
        assert not found, f"the markdown above says {found.group(0)!r}"
    for word in in_outputs:
        found = re.search(word, shown, re.I)
        assert not found, f"an output above shows {found.group(0)!r}"


@pytest.mark.parametrize(("number", "key"), CASES, ids=[f"{n}-{k[:30]}" for n, k in CASES])
def test_the_give_away_words_find_the_answer_below(number: str, key: str) -> None:
    """The words are not vacuous: the reveal or the text after it uses at least one of them."""
    cells = load(NB[number])["cells"]
    index = next(i for i, text in _prompts(number) if _flat(key) in _flat(text))
    below = _flat("\n".join(source(c) for c in cells[index + 1:index + 8])) + "\n" + _above(
        number, index + 8)[1]
    in_words, in_outputs = GIVE_AWAY[number][key]
    assert any(re.search(w, below, re.I) for w in in_words + in_outputs), key


# Issue 32 item 4: short lessons. 03 keeps all five exercises (26 cells) and now shows the slow
# columns leaving their trained range, so its total is 89.
MAIN_PATH_CELLS = 45
TOTAL_CELLS = {"03": 89, "04": 85, "05": 85}


@pytest.mark.parametrize("number", sorted(NB))
def test_the_lesson_is_short(number: str) -> None:
    cells = load(NB[number])["cells"]
    main = next(i for i, c in enumerate(cells) if source(c).startswith(("## Going further",
                                                                         "## Exercises")))
    assert main <= MAIN_PATH_CELLS, f"{main} cells on the main path"
    assert len(cells) <= TOTAL_CELLS[number], f"{len(cells)} cells"

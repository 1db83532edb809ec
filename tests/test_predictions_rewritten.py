"""The six Predicts of issue 45 that were not predictions, rewritten: each answer is recomputed
here independently of the notebook, shown by its reveal, and found nowhere above its prompt
(neither the value nor the fact the old prompt or the cells before it stated).

00[15] asked again what [6] had shown, 01[6] what the table above it printed, 02[34] what its own
words said (each pair gives sin^2 + cos^2), 03[7] what 02 had answered, 04[19] what its own words
said (undoing is a shift), 05[32] what cell 30 had said (the permutation is needed).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from posenc_lib.attention import VOCAB, self_attention, word_order_model
from tools.notebook_cells import ROOT, load, source, tags

NB = {name[:2]: ROOT / "notebooks" / name for name in (
    "00_why_position.ipynb", "01_binary_counting.ipynb", "02_sinusoidal_formula.ipynb",
    "03_properties.ipynb", "04_rotation_proof.ipynb", "05_rope.ipynb")}


def _flat(text: str) -> str:
    return " ".join(text.split())


def _texts(cell: dict) -> str:
    parts = []
    for output in cell.get("outputs", []):
        for text in (output.get("text", ""), output.get("data", {}).get("text/plain", "")):
            parts.append("".join(text) if isinstance(text, list) else text)
    return "\n".join(parts)


def _prompt_and_reveal(number: str, guess: str) -> tuple[str, str, str, str]:
    """The prompt, its reveal's shown value line, and the markdown and outputs above the prompt."""
    cells = load(NB[number])["cells"]
    reveal = next(i for i, c in enumerate(cells)
                  if "predict" in tags(c) and re.search(rf"compare\({guess},", source(c)))
    prompt = max(i for i in range(reveal) if source(cells[i]).startswith("**Predict"))
    assert source(cells[prompt + 1]).startswith(f"{guess} = None")
    result = next(o for o in cells[reveal]["outputs"] if o["output_type"] == "execute_result")
    value_line = "".join(result["data"]["text/plain"]).splitlines()[0]  # the Reveal's first line
    above = cells[:prompt]
    markdown = _flat("\n".join(source(c) for c in above if c["cell_type"] == "markdown"))
    printed = "\n".join(_texts(c) for c in above)
    return _flat(source(cells[prompt])), value_line, markdown, printed


def _theta(d: int) -> np.ndarray:
    return 10000.0 ** (-np.arange(0, d, 2) / d)


def test_00_the_causal_mask_separates_the_two_copies_of_the() -> None:
    prompt, shown, markdown, printed = _prompt_and_reveal("00", "same_the_guess")
    # independently: token t attends to tokens 0..t only, so it is self-attention on the prefix
    table, w_q, w_k, w_v = word_order_model()
    x = table[[VOCAB.index(word) for word in "the cat was chasing the mouse".split()]]
    prefix_outputs = np.array([self_attention(x[: t + 1], w_q, w_k, w_v)[0][t] for t in range(6)])
    assert not np.allclose(prefix_outputs[0], prefix_outputs[4])
    assert np.allclose(prefix_outputs[0], x[0] @ w_v)  # the first copy sees only itself
    assert shown == "with a causal mask, the two 'the' get the same output: False"
    assert "causal mask" in prompt
    for said in ("causal mask", "mask lets", "leaks"):  # the mask first appears in the prompt
        assert said not in markdown.lower(), said


def test_01_the_left_most_of_ten_bits_holds_for_512_steps() -> None:
    prompt, shown, markdown, printed = _prompt_and_reveal("01", "hold_guess")
    first_flip = next(p for p in range(1, 1024) if (p >> 9) & 1 != 0)  # bit 9 becomes 1
    assert shown == f"steps the left-most of 10 columns holds its value: {first_flip}"
    assert first_flip == 512 and "10 bits" in prompt
    assert not re.search(r"\b512\b", markdown + printed)  # the table above shows 4 bits only


def test_02_the_prompt_no_longer_says_why_the_norm_is_constant() -> None:
    prompt, shown, markdown, printed = _prompt_and_reveal("02", "norm_guess")
    assert shown == f"|p| for d_model = 512: {np.sqrt(512 / 2):.4g}"
    assert not re.search(r"sin\^2|cos\^2|same norm", prompt + markdown)
    stated = r"\|p\| ?= ?16|norm (is|of) 16|\\sqrt\{d(_\{model\})?/2"
    assert not re.search(stated, prompt + markdown + printed)


def test_03_the_farthest_rows_are_about_perpendicular() -> None:
    prompt, shown, markdown, printed = _prompt_and_reveal("03", "farthest_guess")
    offsets = np.arange(1, 1000)  # |PE(a) - PE(b)|^2 = 2 sum_i (1 - cos theta_i (b - a))
    far = np.sqrt(2 * (1 - np.cos(np.outer(offsets, _theta(128)))).sum(axis=1)).max()
    assert shown == f"largest distance between two rows: {far:.4g}"
    assert 8 * np.sqrt(2) - 0.5 < far < 8 * np.sqrt(2)  # near perpendicular, far from 16
    assert f"{far:.2f}" not in markdown + printed and "perpendicular" not in markdown


def test_04_the_transpose_of_m5_is_m_minus_5() -> None:
    prompt, shown, markdown, printed = _prompt_and_reveal("04", "inverse_guess")

    def block(angle: float) -> np.ndarray:  # the shift of one (sin, cos) pair by angle
        return np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])

    theta = _theta(128)
    transposed = [block(5 * t).T for t in theta]
    j = next(j for j in range(-10, 11) if all(np.allclose(b, block(j * t))
                                              for b, t in zip(transposed, theta, strict=True)))
    assert shown == f"M_5^T = M_j for j: {j}" and j == -5
    assert not re.search(r"undo|inverse is|itself a shift", prompt)
    assert not re.search(r"M_\{-5\}|M_\{-k\}|M_k\^\\top", markdown)


def test_05_unpermuted_weights_are_still_relative() -> None:
    prompt, shown, markdown, printed = _prompt_and_reveal("05", "relative_guess")
    rng = np.random.default_rng(7)
    q_w, k_w, x = rng.normal(size=(16, 8)), rng.normal(size=(16, 8)), rng.normal(size=(6, 16))
    theta = _theta(8)

    def half_split(v: np.ndarray, positions: np.ndarray) -> np.ndarray:  # pairs (i, i + 4)
        z = (v[:, :4] + 1j * v[:, 4:]) * np.exp(1j * np.outer(positions, theta))
        return np.concatenate([z.real, z.imag], axis=1)

    scores = [half_split(x @ q_w, p) @ half_split(x @ k_w, p).T
              for p in (np.arange(6), np.arange(6) + 100)]
    assert np.allclose(*scores)
    assert shown == "unpermuted weights, scores depend on n - m only: True"
    assert not re.search(r"still (depends?|relative)|relative for any", markdown)


@pytest.mark.parametrize("number", sorted(NB))
def test_a_rewritten_prompt_is_short_and_asks_one_thing(number: str) -> None:
    guesses = {"00": "same_the_guess", "01": "hold_guess", "02": "norm_guess",
               "03": "farthest_guess", "04": "inverse_guess", "05": "relative_guess"}
    prompt, _, _, _ = _prompt_and_reveal(number, guesses[number])
    assert prompt.count("Type") == 1 and len(prompt) < 450

"""Every SYLLABUS bullet of notebooks 04 and 05 is taught on the main path (issue 32 item 4).

The main path is everything above ``## Going further``; "Going further" may hold only what the
syllabus does not require. For each bullet this file looks on the main path for content that would
be absent if the bullet were missing or had moved to Going further: a sentence, a call in a code
cell, a stored output. Every number such an output prints is recomputed here independently (the
formula written out with NumPy, not taken from ``posenc_lib``).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.statements_helpers import FRACTION_WORDS, stated
from tools.notebook_cells import ROOT, load, source, tags

NB04 = ROOT / "notebooks" / "04_rotation_proof.ipynb"
NB05 = ROOT / "notebooks" / "05_rope.ipynb"


@cache
def _parts(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(main path, Going further): the cells above "## Going further", and those up to Exercises."""
    cells = load(path)["cells"]
    starts = [source(c).split("\n", 1)[0] for c in cells]
    further, exercises = starts.index("## Going further"), starts.index("## Exercises")
    return cells[:further], cells[further:exercises]


def _main(path: Path) -> list[dict[str, Any]]:
    return _parts(path)[0]


def _optional(path: Path) -> list[dict[str, Any]]:
    return _parts(path)[1]


def _markdown(cells: list[dict[str, Any]]) -> str:
    text = "\n".join(source(c) for c in cells if c["cell_type"] == "markdown")
    return " ".join(text.split())


def _code(cells: list[dict[str, Any]]) -> str:
    return "\n".join(source(c) for c in cells if c["cell_type"] == "code")


def _shown(cells: list[dict[str, Any]]) -> str:
    """Every text the cells show: prints and the plain text of results."""
    texts = []
    for cell in cells:
        for output in cell.get("outputs", []):
            for text in (output.get("text", ""), output.get("data", {}).get("text/plain", "")):
                texts.append("".join(text) if isinstance(text, list) else text)
    return "\n".join(texts)


def _cell_with(cells: list[dict[str, Any]], snippet: str) -> dict[str, Any]:
    found = [c for c in cells if c["cell_type"] == "code" and snippet in source(c)]
    assert found, f"no main-path code cell holds {snippet!r}"
    return found[0]


def _theta(d: int, base: float = 10000.0) -> np.ndarray:
    """theta_i = base^(-2i/d), written out."""
    return base ** (-np.arange(0, d, 2) / d)


def _pe(positions: np.ndarray, d: int) -> np.ndarray:
    """The sinusoidal table: sine in column 2i, cosine in column 2i + 1."""
    angles = np.multiply.outer(np.asarray(positions, dtype=float), _theta(d))
    return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(len(positions), d)


def _m_pair(k: float, theta: float) -> np.ndarray:
    """The course's 2 x 2 shift of a (sin, cos) pair, from the angle-addition formulas."""
    c, s = np.cos(theta * k), np.sin(theta * k)
    return np.array([[c, s], [-s, c]])


def _wrap(angle: np.ndarray) -> np.ndarray:
    """An angle moved into (-pi, pi] by whole turns."""
    return np.pi - np.mod(np.pi - angle, 2 * np.pi)


# Notebook 04


def test_04_the_claim_and_the_derivation_of_m_k() -> None:
    out = _shown(_main(NB04))
    # pair 3 of d = 128, offset 7, solved from three different pairs of positions
    m = np.round(_m_pair(7, _theta(128)[3]), 6).tolist()
    for t1, t2 in [(0, 1), (100, 357), (2_000, 2_013)]:
        assert f"from t = {t1:5d}, {t2:5d}: {m}" in out
    assert "M_k p(t) = p(t+k) for t = 0..999: True" in out


def test_04_every_pair_many_offsets_and_the_block_diagonal_matrix() -> None:
    out = _shown(_main(NB04))
    t = np.arange(0, 10_000, 157)
    assert f"checked 201 offsets x {t.size} positions (0..{t.max()}) x 64 pairs" in out
    assert "every pair within 1e-10: True" in out
    # the same check written out: one 2 x 2 block per pair on the diagonal
    for k in (-100, -1, 3, 100):
        m = np.zeros((128, 128))
        for i, theta in enumerate(_theta(128)):
            m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = _m_pair(k, theta)
        assert np.abs(_pe(t, 128) @ m.T - _pe(t + k, 128)).max() < 1e-10


def test_04_m_k_is_a_rotation() -> None:
    out = _shown(_main(NB04))
    for line in ("orthogonal, M M^T = I: True", "determinant: 1.000000",
                 "M_3 M_4 = M_7:        True", "inverse = M_-5:       True"):
        assert line in out, line


def test_04_sign_conventions_say_which_the_course_uses_and_why_texts_differ() -> None:
    text, out = " ".join(_markdown(_main(NB04)).split()), _shown(_main(NB04))
    # the way the prose says p(t) turns in each storage order, against the signed area its
    # first two steps sweep there (positive: counter-clockwise), computed here
    said = dict(re.findall(r"store (?:a pair as )?\$\((\\\w+),\\\w+\)\$.*?turns "
                           r"\*\*([\w-]+)\*\*", text))
    steps = np.array([[np.sin(0.3 * t), np.cos(0.3 * t)] for t in range(3)])
    for first, order in (("\\sin", steps), ("\\cos", steps[:, ::-1])):
        (ax, ay), (bx, by) = order[1] - order[0], order[2] - order[1]
        area = ax * by - ay * bx
        assert said[first] == ("counter-clockwise" if area > 0 else "clockwise"), said
    theta, k = 0.3, 2
    sin_cos = _m_pair(k, theta)
    cos_sin = sin_cos[::-1, ::-1]  # the same map with both coordinates swapped
    assert f"(sin, cos) order: {np.round(sin_cos, 4).tolist()}  rotation by -theta k: True" in out
    assert f"(cos, sin) order: {np.round(cos_sin, 4).tolist()}  rotation by +theta k: True" in out
    assert cos_sin[0, 1] < 0 < cos_sin[1, 0]  # the textbook counter-clockwise form
    # the angle of p(t) from the first axis: pi/2 - theta t in the (sin, cos) plane, theta t in
    # the (cos, sin) plane: clockwise in the first, counter-clockwise in the other
    t = np.arange(5)
    for plane, angle, turn in (("(sin, cos)", np.pi / 2 - theta * t, "clockwise"),
                               ("(cos, sin)", theta * t, "counter-clockwise")):
        line = f"{plane} plane: angle of p(t) for t = 0..4: {np.round(angle, 2)}, so p(t) turns "
        line += turn
        assert line in out, line


def test_04_least_squares_learns_m_k_and_recovers_every_angle() -> None:
    main = _main(NB04)
    assert "## Learn $M_k$ from data" in _markdown(main)
    cell = _cell_with(main, "learned, residual = fit_linear_map(pe[:-k], pe[k:])")
    out = _shown([cell])
    assert "residual below 1e-10: True" in out and "learned M = your M_5: True" in out
    # the fit written out: least squares of PE(t + 5) on PE(t), t = 0..999, d = 16
    d, k = 16, 5
    pe = _pe(np.arange(1000 + k), d)
    fitted = np.linalg.lstsq(pe[:-k], pe[k:], rcond=None)[0].T
    even = np.arange(0, d, 2)
    angles = np.arctan2(fitted[even, even + 1], fitted[even, even])
    wrapped = _wrap(_theta(d) * k)
    np.testing.assert_allclose(angles, wrapped, atol=1e-9)
    rows = re.findall(r"^\s*(\d+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s*$",
                      out.split("theta_i k (wrapped)", 1)[1], re.M)
    assert [int(i) for i, _, _ in rows] == list(range(d // 2))
    for (_, learned, expected), angle, target in zip(rows, angles, wrapped, strict=True):
        assert learned == f"{angle:.6f}" and expected == f"{target:.6f}"
    assert float(rows[0][2]) < 0  # 5 rad is past half a turn: the wrapped angle shows up


def test_04_the_sines_alone_leave_the_even_part() -> None:
    out = _shown(_main(NB04))
    d, k, t = 16, 5, np.arange(-100, 101)
    sines = _pe(t, d)[:, 0::2], _pe(t + k, d)[:, 0::2]
    fitted = np.linalg.lstsq(sines[0], sines[1], rcond=None)[0]
    residual = np.sqrt(np.mean((sines[0] @ fitted - sines[1]) ** 2))
    even_part = np.sin(_theta(d) * k) * np.cos(np.multiply.outer(t, _theta(d)))
    assert abs(residual - np.sqrt(np.mean(even_part**2))) < 1e-9
    assert f"sine channels only:       residual {residual:.6f}" in out
    assert f"predicted (even part): residual {residual:.6f}" in out


def test_04_an_attention_head_built_from_m_k_looks_k_back() -> None:
    main = _main(NB04)
    out = _shown(main)
    n, d, k, beta = 16, 64, 3, 32.0
    x = _pe(np.arange(n), d)
    m = np.zeros((d, d))
    for i, theta in enumerate(_theta(d)):
        m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = _m_pair(k, theta)
    scores = x @ (beta * m) @ x.T / np.sqrt(d)
    scores[np.triu_indices(n, 1)] = -np.inf  # causal mask
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    assert np.all(weights[k:].argmax(axis=1) == np.arange(k, n) - k)  # the shifted diagonal
    largest = np.round(np.sort(weights[10])[::-1][:3], 3)
    assert f"query 10, its three largest weights: {largest}" in out
    assert "the key query 10 attends to most: 7" in out
    assert "draw_similarity_matrix(ax, weights" in _code(main)


def test_04_the_unit_circle_explorer_is_on_the_main_path() -> None:
    cell = _cell_with(_main(NB04), "RotationExplorer()")
    assert "nbval-ignore-output" in tags(cell)
    assert _shown([cell]).strip().startswith("RotationExplorer(t=5, k=3, pair=0)")
    assert "RotationExplorer(" not in _code(_optional(NB04))
    from posenc_lib.widgets import RotationExplorer

    explorer = RotationExplorer()
    assert {"t", "k"} <= set(explorer.controls)  # sliders for t and k


# Notebook 05


def test_05_motivation_the_offset_inside_the_dot_product() -> None:
    out = _shown(_main(NB05))
    assert "W_q W_k^T block diagonal: middle terms +0.0000" in out
    # the motivation's identity q^T R_m^T R_n k = q^T R_(n-m) k, on 2 x 2 rotations by hand
    def rotation(angle: float) -> np.ndarray:
        return np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])

    for m, n in ((0, 3), (5, 2), (40, 41)):
        np.testing.assert_allclose(rotation(0.6 * m).T @ rotation(0.6 * n),
                                   rotation(0.6 * (n - m)), atol=1e-12)


def test_05_the_complex_form_is_the_2d_rotation() -> None:
    main = _main(NB05)
    cell = _cell_with(main, "np.exp(1j * np.arange(20) * theta)")
    out = _shown([cell])
    # q^T R((n - m) theta) k with R written out, for the notebook's q, k, m, n, theta
    q, k, m, n, theta = np.array([1.0, 0.5]), np.array([0.3, 1.2]), 2, 5, 0.6
    a = (n - m) * theta
    real = q @ np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) @ k
    assert f"Re[conj(q) k e^(i(n-m)theta)] = {real:.6f}" in out
    assert f"<R_m q, R_n k>                = {real:.6f}" in out
    assert "q e^(i m theta) = R(m theta) q for m = 0..19: True" in out
    # the property itself: (q1 + i q2) e^(i phi) has the coordinates of R(phi) q
    for phi in np.arange(20) * theta:
        z = complex(*q) * np.exp(1j * phi)
        turned = [q[0] * np.cos(phi) - q[1] * np.sin(phi), q[0] * np.sin(phi) + q[1] * np.cos(phi)]
        assert np.allclose([z.real, z.imag], turned)


def test_05_block_diagonal_r_m_and_the_element_wise_form() -> None:
    main = _main(NB05)
    out = _shown(main)
    # d = 8: four 2 x 2 blocks hold the 16 nonzero entries (cos 3 theta_i is never 0)
    assert f"entries of R_3 that are exactly 0: {64 - 4 * 4} of 64" in out
    assert np.all(np.cos(3 * _theta(8)) != 0) and np.all(np.sin(3 * _theta(8)) != 0)
    # the element-wise form x * cos(m Theta) + rot(x) * sin(m Theta), rot(x) = (-x2, x1, ...),
    # against the block-diagonal R_m written out, for d = 8 and m = 3
    x, m, theta = np.arange(1.0, 9.0), 3, np.repeat(_theta(8), 2)
    rot = np.stack([-x[1::2], x[0::2]], axis=-1).ravel()
    r_m = np.zeros((8, 8))
    for i, angle in enumerate(m * _theta(8)):
        r_m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(angle), -np.sin(angle)],
                                                 [np.sin(angle), np.cos(angle)]]
    np.testing.assert_allclose(x * np.cos(m * theta) + rot * np.sin(m * theta), r_m @ x,
                               atol=1e-12)
    assert "my_rope = nb05.steps.rope.check(rope_by_me)" in _code(main)
    assert f"R_m @ x takes {128 * 128} multiplications, the element-wise form {2 * 128}" in out


def test_05_the_relative_property_is_verified() -> None:
    out = _shown(_main(NB05))
    assert "S[m, n] == <q, R_(n-m) k> for all 48 x 48 pairs: True" in out
    assert "largest difference below 1e-12: True" in out


def test_05_frequencies_and_the_frequency_wavelength_pitfall() -> None:
    # the pitfall: theta close to 1 is the *fastest* pair, wavelength 2 pi
    fastest = 2 * np.pi / _theta(128)[0]
    assert f"wavelength {fastest:9.1f} positions at base 10000" in _shown(_main(NB05))


def test_05_two_layouts_the_same_scores_and_the_permutation_shown() -> None:
    main = _main(NB05)
    out = _shown(main)
    perm = np.concatenate([np.arange(0, 8, 2), np.arange(1, 8, 2)])  # even indices, then odd
    assert f"perm = {perm}    q_half = q_interleaved[perm]" in out
    assert str(np.eye(8, dtype=int)[perm]) in out  # the permutation matrix P, printed
    assert "interleaved with W == half-split with W[:, perm]: True" in out


def test_05_q_and_k_only_and_multiplicative_not_additive() -> None:
    main = _main(NB05)
    out = _shown(main)
    assert "rotate v as well: True   ->  output unchanged after the shift: False" in out
    rows = re.findall(r"positions \(\s*(\d+),\s*(\d+)\), offset 4: additive\s+([+-][\d.]+)"
                      r"\s+RoPE\s+([+-][\d.]+)", out)
    assert len(rows) == 3 and all(int(n) - int(m) == 4 for m, n, _, _ in rows)
    additive, rotary = [float(r[2]) for r in rows], [r[3] for r in rows]
    assert len(set(rotary)) == 1 and np.ptp(additive) > 1  # only the additive score moves
    # the same contrast with vectors of this test and RoPE written out
    draw = np.random.default_rng(3)
    x_a, x_b, w_q, w_k = draw.normal(size=8), draw.normal(size=8), *draw.normal(size=(2, 8, 8))
    pe = _pe(np.arange(200), 8)

    def turn(v: np.ndarray, m: int) -> np.ndarray:
        z = (v[0::2] + 1j * v[1::2]) * np.exp(1j * m * _theta(8))
        return np.stack([z.real, z.imag], axis=-1).ravel()

    pairs = ((3, 7), (103, 107), (150, 154))
    added = [(x_a + pe[m]) @ w_q @ ((x_b + pe[n]) @ w_k) for m, n in pairs]
    turned = [turn(x_a @ w_q, m) @ turn(x_b @ w_k, n) for m, n in pairs]
    assert np.ptp(turned) < 1e-9 and np.ptp(added) > 1e-3


@cache
def _decay_bound(distances: tuple[int, ...], d: int = 128) -> np.ndarray:
    """(1/(d/2)) sum_j |S_j|, S_j = sum_{i<j} exp(i r theta_i), with an explicit loop over j."""
    turns = np.exp(1j * np.multiply.outer(np.array(distances), _theta(d)))
    partial = np.zeros(len(distances), dtype=complex)
    total = np.zeros(len(distances))
    for j in range(d // 2):
        partial = partial + turns[:, j]
        total += np.abs(partial)
    return total / (d // 2)


def test_05_the_decay_bound_is_plotted_and_not_monotonic() -> None:
    main = _main(NB05)
    text = " ".join(_markdown(main).split())
    cell = _cell_with(main, "bound = rope_decay_bound(distances, head_dim, base)")
    assert "draw_decay_bound(wide, distances, bound" in source(cell)
    assert any("image/png" in o.get("data", {}) for o in cell["outputs"])  # the plot is stored
    out = _shown([cell])
    bound = _decay_bound(tuple(range(1001)))
    steps = np.diff(bound)
    assert np.abs(steps).min() > 1e-9  # no step so flat that rounding could flip its sign
    rises = np.flatnonzero(steps > 0) + 1
    assert f"bound at distance 0: {bound[0]:.2f}  ((d/2 + 1)/2 = {(64 + 1) / 2:.2f})" in out
    assert f"first rise at distance {rises[0]}; it goes up on {rises.size} of 1000 steps" in out
    share = FRACTION_WORDS[stated(r"it rises again on almost (\w+) of the steps", text, str)]
    assert 0.8 * share < rises.size / 1000 < share  # "almost": a little under, not over
    low, high = bound[500:].min(), bound[500:].max()
    assert f"between 500 and 1000 it moves between {low:.2f} and {high:.2f}" in out
    at = f"{bound[10]:.2f}, {bound[100]:.2f}, {bound[1000]:.2f}"
    assert f"at distances 10, 100, 1000: {at}" in out
    start, end, at_100 = stated(r"its peaks between (\d+) and (\d+) back above its value at "
                                r"(\d+)", text, int)
    assert bound[start:end + 1].max() > bound[at_100]
    assert "draw_decay_bound(" not in _code(_optional(NB05))


def test_05_the_score_explorer_is_on_the_main_path() -> None:
    cell = _cell_with(_main(NB05), "RopeScoreExplorer(")
    assert "nbval-ignore-output" in tags(cell)
    assert _shown([cell]).strip().startswith("RopeScoreExplorer(base=10000.0, head_dim=128)")
    assert "RopeScoreExplorer(" not in _code(_optional(NB05))
    from posenc_lib.widgets import RopeScoreExplorer

    explorer = RopeScoreExplorer(head_dim=128, base=10000.0)
    assert {"base", "head_dim"} <= set(explorer.controls)  # sliders for the base and d


@pytest.mark.parametrize("path", [NB04, NB05], ids=["04", "05"])
def test_going_further_still_exists_and_is_optional(path: Path) -> None:
    main, optional = _parts(path)
    assert optional and source(optional[0]).startswith("## Going further\n\nOptional:")
    assert len(main) <= 45

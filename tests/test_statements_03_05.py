"""Statements of notebooks 03-05 that were once wrong (issue 12), checked on the stored notebooks.

Each test reads the markdown and the stored outputs, so a wrong sentence cannot come back
without a test failing, and a number in the prose must agree with the output that prints it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from posenc_lib.analysis import fit_position_probe
from posenc_lib.shift import fit_linear_map, shift_matrix
from posenc_lib.sinusoidal import sinusoidal_encoding
from tests.statements_helpers import FRACTION_WORDS, NUMBER_WORDS, stated
from tools.notebook_cells import ROOT, load, source

NB03 = ROOT / "notebooks" / "03_properties.ipynb"
NB04 = ROOT / "notebooks" / "04_rotation_proof.ipynb"
NB05 = ROOT / "notebooks" / "05_rope.ipynb"


def markdown(path) -> str:
    return "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")


def outputs(path) -> str:
    texts = []
    for cell in load(path)["cells"]:
        for output in cell.get("outputs", []):
            text = output.get("text", "")
            texts.append("".join(text) if isinstance(text, list) else text)
    return "\n".join(texts)


def shown(path) -> str:
    """Every text a code cell shows: prints and the plain text of results (reveals, checks)."""
    texts = []
    for cell in load(path)["cells"]:
        for output in cell.get("outputs", []):
            for text in (output.get("text", ""), output.get("data", {}).get("text/plain", "")):
                texts.append("".join(text) if isinstance(text, list) else text)
    return "\n".join(texts)


def flat(text: str) -> str:
    return " ".join(text.replace(">", " ").split())


# Notebook 03


def _pe(positions: np.ndarray, d: int) -> np.ndarray:
    """Sine in column 2i, cosine in column 2i + 1, angle t 10000^(-2i/d), written out here."""
    angles = np.multiply.outer(positions, 10000.0 ** (-np.arange(0, d, 2) / d))
    return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(len(positions), d)


def test_03_does_not_credit_evenness_with_symmetry() -> None:
    text = flat(markdown(NB03))
    # the dot product k places after equals the one k places before, for every t
    places = NUMBER_WORDS[stated(r"the same (\w+) places before as after", text, str)]
    pe = _pe(np.arange(-200, 300), 64)
    now = pe[200:300]
    after, before = (np.sum(now * pe[200 + s:300 + s], axis=1) for s in (places, -places))
    np.testing.assert_allclose(after, before, rtol=0, atol=1e-12)
    assert np.ptp(after) < 1e-12  # the same number for every t
    assert f"{places} after and {places} before score the same: True" in shown(NB03)
    assert "f(k) == f(-k) for k = 1..99: True" in outputs(NB03)


def test_03_the_decay_turns_up_dozens_of_times() -> None:
    text = flat(markdown(NB03))
    offsets, d = stated(r"in the first (\d+) offsets at \$d_\{model\}=(\d+)\$ it turns up dozens "
                        r"of times", text, int)
    f = np.cos(np.outer(np.arange(offsets + 1), _theta(d))).sum(axis=1)  # sum_i cos(theta_i k)
    bounces = np.flatnonzero((f[1:-1] < f[:-2]) & (f[1:-1] < f[2:])) + 1
    assert 24 <= bounces.size < 144  # "dozens": at least two, fewer than a gross
    assert np.mean(np.diff(bounces[:6])) == pytest.approx(2 * np.pi, abs=1)  # "about every 2 pi"
    out = outputs(NB03)
    assert f"first bounces at k = {bounces[:8]}" in out
    assert f"steps that go up: {np.sum(np.diff(f) > 0)} of {offsets}" in out
    assert re.search(rf"^\s+{d}\s+{bounces[0]}\s+[\d.]+\s+{bounces.size}$", out, re.M)


def test_03_flat_columns_are_all_cosine_columns() -> None:
    count, line = stated(r"all (\d+) columns under the ([\d.]+) line are cosine columns",
                         flat(markdown(NB03)), str)
    still = np.flatnonzero(np.ptp(_pe(np.arange(100), 512), axis=0) < float(line))
    assert int(count) == still.size and np.all(still % 2 == 1)  # cosine: odd column index
    out = outputs(NB03)
    assert f"{still.size} of 512 (from column {still[0]} on)" in out
    assert f"cosine columns (odd index): {still.size};" in out


def test_03_shuffled_label_control_is_printed_and_near_zero() -> None:
    match = re.search(r"shuffled positions: R\^2 on the training tokens\s+(-?[\d.]+), "
                      r"on unseen sentences\s+(-?[\d.]+)", outputs(NB03))
    assert match, "the shuffled-label control's output is missing"
    train, test = map(float, match.groups())
    assert abs(train) < 0.1 and abs(test) < 0.1
    assert f"explains {train:.3f} of it" in flat(markdown(NB03))


def test_03_shuffled_labels_give_no_probe() -> None:
    rng = np.random.default_rng(0)
    pe = sinusoidal_encoding(64, 64)
    tokens = rng.integers(0, 1000, size=(30, 64))
    features = (rng.normal(scale=0.5, size=(1000, 64))[tokens] + pe).reshape(-1, 64)
    labels = rng.permutation(np.tile(np.arange(64), 30))
    _, fitted = fit_position_probe(features, labels)
    assert 1 - np.mean((fitted - labels) ** 2) / np.var(labels) < 0.1


# Notebook 04


def test_04_does_not_claim_gradient_training_converges() -> None:
    text = flat(markdown(NB04))
    header = "(below 1e-10?)   gradient descent"
    table = outputs(NB04).split(header, 1)[1].split("eigenvalues", 1)[0]
    rows = re.findall(r"^\s*(\d+)\s+(True|False)\s+([\d.]+)\s*$", table, re.M)
    errors = {int(i): float(gd) for i, _, gd in rows}
    assert sorted(errors) == list(range(8))
    assert all(below == "True" for _, below, _ in rows), "least squares must recover every block"
    assert errors[0] < 1e-3 and errors[6] > 0.1 and errors[7] > 0.1
    assert f"{errors[6]:.3f} and {errors[7]:.3f}" in text


def test_04_conditioning_is_shown_to_matter() -> None:
    out = outputs(NB04)
    # issue 30: only which side of each bound an error falls is printed; its digits are noise
    for n, within, off in ((1000, True, False), (200, True, False), (50, False, True)):
        assert re.search(rf"{n} positions: .*right to 1e-3: {within!s:5}, off by more than 0.1: "
                         rf"{off}", out)
    assert re.search(r"50 positions: condition number beyond 1/eps", out)
    text = flat(markdown(NB04))
    right = 10.0 ** stated(r"the fit is still right to better than \$10\^\{(-\d+)\}\$", text)
    off = stated(r"the fitted matrix is off by more than ([\d.]+)\.", text)
    target = shift_matrix(5, 16)
    for n, low, high in ((1000, 0.0, right), (200, 0.0, right), (50, off, np.inf)):
        pe = sinusoidal_encoding(n + 5, 16)
        fitted, _ = fit_linear_map(pe[:-5], pe[5:])
        assert low <= np.abs(fitted - target).max() < high
        # the condition number, from the singular values: float64 resolves it below 1/eps only
        singular = np.linalg.svd(pe[:-5], compute_uv=False)
        assert (singular[0] / singular[-1] > 1 / np.finfo(float).eps) == (n == 50)


# Notebook 05


def test_05_states_the_fastest_pair_turns_every_2_pi_positions() -> None:
    text = flat(markdown(NB05))
    every = stated(r"is the \*fastest\* pair, one turn every ([\d.]+) positions", text, str)
    assert every == f"{2 * np.pi / _theta(128)[0]:.1f}"
    assert f"wavelength {2 * np.pi:9.1f} positions at base 10000" in outputs(NB05)  # theta_0 = 1


@pytest.mark.parametrize("line", [
    "scores from the cache == scores recomputed from scratch: True",
    "renumbering the cache = one more rotation by R_(-2): True",
])
def test_05_kv_cache_holds_rotated_keys(line: str) -> None:
    assert line in outputs(NB05)


def test_04_prose_matches_the_gradient_descent_cell() -> None:
    """The step count and step size the prose states are the ones the cell runs."""
    code = "\n".join(source(c) for c in load(NB04)["cells"] if c["cell_type"] == "code")
    text = flat(markdown(NB04))
    steps, size = stated(r"([\d,]+) steps of full-batch gradient descent \(step size ([\d.]+)\)",
                         text, str)
    ran = int(stated(r"for _ in range\(([\d_]+)\):\n\s+M_gd -= ", code, str).replace("_", ""))
    assert int(steps.replace(",", "")) == ran
    assert float(size) == stated(r"M_gd -= ([\d.]+) \* 2 \*", code)


# Issue 21: predict first, and the explanations corrected (checked against computations made here)


def _theta(d: int, base: float = 10000.0) -> np.ndarray:
    """Angular speeds base^(-2i/d), written out here rather than taken from posenc_lib."""
    return base ** (-np.arange(0, d, 2) / d)


@pytest.mark.parametrize("d", [32, 128, 512, 2048])
def test_03_the_share_of_fast_pairs_does_not_fall_with_the_width(d: int) -> None:
    # theta_i >= 0.1 <=> 2i/d <= 1/4 <=> i <= d/8: (d/8 + 1) of the d/2 pairs, tending to 1/4
    assert f"{d:8d}   {np.mean(_theta(d) >= 0.1):12.0%}" in outputs(NB03)
    text = flat(markdown(NB03))
    least, eighth = stated(r"the share of pairs with \$\\theta_i\\ge ([\d.]+)\$ is "
                           r"\$\(d/(\d+)\+1\)/\(d/2\)\$", text)
    assert np.mean(_theta(d) >= least) == pytest.approx((d / eighth + 1) / (d / 2), abs=1e-12)
    limit = FRACTION_WORDS[stated(r"\$\(d/8\+1\)/\(d/2\)\$, which tends to a (\w+)", text, str)]
    assert np.mean(_theta(2**20) >= 0.1) == pytest.approx(limit, abs=1e-4)


def test_03_a_wider_encoding_approaches_a_smooth_limit_without_bounces() -> None:
    k = np.arange(201)
    # the mean of cos(k 10000^-x) over x in [0, 1], by the trapezoid rule on a fine grid
    x = np.linspace(0.0, 1.0, 200_001)
    values = np.cos(np.outer(k, 10000.0 ** -x))
    limit = (values[:, :-1] + values[:, 1:]).mean(axis=1) / 2
    gaps = []
    for d in (32, 128, 512, 2048):
        curve = np.cos(np.outer(k, _theta(d))).mean(axis=1)
        gaps.append(np.abs(curve - limit).max())
    falls = bool(np.all(np.diff(limit) < 0))
    assert f"smooth limit falls at every step up to 200: {falls}" in outputs(NB03)
    for d, gap in zip((32, 128, 512, 2048), gaps, strict=True):
        assert re.search(rf"^\s+{d}\s.*\s{gap:.3f}$", outputs(NB03), re.M), d
    ratios = {d: _theta(d)[1] / _theta(d)[0] for d in (32, 512)}
    assert f"{ratios[32]:.2f} at $d=32$ but {ratios[512]:.2f}" in flat(markdown(NB03))


def test_03_the_d512_heatmap_is_drawn_in_the_split_order_without_antialiasing() -> None:
    code = "\n".join(source(c) for c in load(NB03)["cells"] if c["cell_type"] == "code")
    assert "antialiased" not in code
    assert "pe512[:, split_permutation(512)]" in code


def test_03_reveals_answer_their_questions() -> None:
    out = shown(NB03)
    pe = sinusoidal_encoding(1000, 128)
    # |PE(a) - PE(b)|^2 = 2 sum_i (1 - cos(theta_i (b - a))): the distance of an offset, any t
    k = np.arange(1, 1000)
    far = np.sqrt(2 * (1 - np.cos(np.outer(k, _theta(128)))).sum(axis=1)).max()
    assert f"largest distance between two rows: {far:.2f}" in out
    assert far < 8 * np.sqrt(2) < 16 and f"{np.linalg.norm(pe[0]):.6f}" == "8.000000"
    assert f"only {far:.2f} apart" in flat(markdown(NB03))
    f = np.cos(np.outer(np.arange(201), _theta(128))).sum(axis=1)
    assert f"f(k) falls at every step up to 200: {bool(np.all(np.diff(f) < 0))}" in out
    variance = sinusoidal_encoding(100, 512).var(axis=0)
    assert f"share in the first 128 columns: {variance[:128].sum() / variance.sum():.4g}" in out
    assert "5 after and 5 before score the same: True" in out


def test_04_two_whole_positions_fix_the_rotation() -> None:
    text = flat(markdown(NB04))
    fixing, unknowns = stated(r"(\w+) positions fix all (\w+) numbers", text, str)
    assert NUMBER_WORDS[fixing.lower()] == 2 and NUMBER_WORDS[unknowns] == 2 * 2  # M_k is 2 x 2
    # the two positions are whole numbers, and sin(theta t) != 0 at the second for every pair
    first, second = stated(r"At \$t=(\d+)\$ \(\$\\sin=0\$, \$\\cos=1\$\).*? At \$t=(\d+)\$",
                           text, int)
    top = stated(r"since \$0<\\theta\\le(\d+)\$, \$\\sin\\theta\\neq0\$", text, int)
    for d in (2, 16, 128, 512):
        theta = _theta(d)
        assert np.all((theta > 0) & (theta <= top)) and np.sin(first * theta).max() == 0
        assert np.all(np.abs(np.sin(second * theta)) > 0)


def test_04_sine_near_collision_between_whole_positions() -> None:
    # theta = 1: 100 + 255 = 355 is close to 113 pi, so sin 255 = sin(113 pi - 100 + eps)
    a, b, gap, sent_a, sent_b = stated(
        r"The sines of (\d+) and (\d+) differ by ([\d.e+-]+), yet the map would have to send one "
        r"to \$([+-][\d.]+)\$ and the other to \$([+-][\d.]+)\$", flat(markdown(NB04)), str)
    a, b = int(a), int(b)  # whole positions: the old pair t = 0.4, pi - 0.4 does not match
    assert gap == f"{abs(np.sin(a) - np.sin(b)):.1e}"
    assert (sent_a, sent_b) == (f"{np.sin(a + 5):+.2f}", f"{np.sin(b + 5):+.2f}")  # shift by 5
    out = outputs(NB04)
    assert f"the two sines differ by {gap}" in out
    for t in (a, b):
        assert f"t = {t}: sin t = {np.sin(t):+.6f}, sin(t + 5) = {np.sin(t + 5):+.6f}" in out


def test_04_gradient_descent_speed_is_set_by_the_uncentred_second_moments() -> None:
    pe = sinusoidal_encoding(1005, 16)[:-5]
    second = pe.T @ pe / len(pe)
    lam = np.linalg.eigvalsh(second)
    text = flat(markdown(NB04))
    steps, slow = stated(r"after ([\d,]+) steps, still misses the (\w+) slowest blocks", text, str)
    steps, slow = int(steps.replace(",", "")), NUMBER_WORDS[slow]
    eta = stated(r"by \$1-2\\eta\\lambda\$, with step size \$\\eta=([\d.]+)\$", text)
    kept = np.abs(1 - 2 * eta * lam) ** steps  # the share of error left along each eigenvector
    assert np.all(kept[:slow] > 0.99) and np.all(kept[slow:] < 1e-3)  # only the slowest keep it
    column = pe[:, 15]
    assert column.var() < 1e-3 and np.mean(column**2) > 0.9  # tiny variance, mean square near 1
    assert f"variance {column.var():.1e}, mean square {np.mean(column**2):.2f}" in outputs(NB04)


def test_04_fifty_positions_have_full_rank_in_exact_arithmetic() -> None:
    # Vandermonde: 16 distinct nodes e^{+-i theta_m}, n consecutive powers -> rank 16 exactly
    text = flat(markdown(NB04))
    rows, columns, rank = stated(r"in exact arithmetic the \$(\d+)\\times(\d+)\$ matrix has full "
                                 r"rank (\d+)", text, int)
    theta = 10000.0 ** (-np.arange(0, columns, 2) / columns)
    nodes = np.concatenate([np.exp(1j * theta), np.exp(-1j * theta)])
    apart = np.abs(nodes[:, None] - nodes[None, :])[~np.eye(columns, dtype=bool)].min()
    assert apart > 1e-6 and rank == nodes.size == columns <= rows  # distinct nodes: full rank
    pe = _pe(np.arange(rows), columns)  # the same matrix, written out here
    reported = np.linalg.matrix_rank(pe)
    assert reported < rank
    assert f"rank float64 reports for {rows} positions: {reported} of {columns}" in outputs(NB04)


def test_05_middle_terms_vanish_only_without_content_position_coupling() -> None:
    out = outputs(NB05)
    assert "W_q W_k^T block diagonal: middle terms +0.0000" in out
    # "Any other weights mix content with absolute positions, as the cell after this one shows"
    generic = stated(r"W_q W_k\^T generic\s*: middle terms ([+-][\d.]+)", out)
    assert abs(generic) > 1e-3


def test_05_decay_bound_needs_h_at_d_over_2_equal_to_zero() -> None:
    d, r = 128, 10
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    score = abs(np.sum(2.0 * np.exp(1j * r * theta)))  # q = k = 1: h_i = 2
    partial_sums = np.abs(np.cumsum(np.exp(1j * r * theta))).sum()  # zero without, |h_63| = 2 with
    line = f"|score| {score:.2f}; bound without h_(d/2) = 0: 0.00, with it: {2 * partial_sums:.2f}"
    assert line in outputs(NB05)


def test_05_reveals_answer_their_questions() -> None:
    out = shown(NB05)
    assert "5 after and 5 before score the same: False" in out
    # base 10000 -> 20000: lambda_i = 2 pi base^(2i/d) grows by 2^(2i/d)
    assert f"wavelength factors of pairs 0 and 63: [1, {2 ** (126 / 128):.4g}]" in out
    text = flat(markdown(NB05))
    assert f"$2^{{126/128}}\\approx{2 ** (126 / 128):.3f}$ for the slowest pair" in text
    assert "half-split with the unpermuted W gives the same scores: False" in out
    assert "unpermuted weights, scores depend on n - m only: True" in out
    assert "v rotated too: output unchanged after the shift: False" in out


def test_04_the_fastest_pair_comes_back_round_at_44() -> None:
    """The k in 1..50 whose 2x2 shift (theta = 1) is closest to I, from the angle mod 2 pi."""
    k = np.arange(1, 51)
    off_by = np.abs(np.angle(np.exp(1j * k)))  # distance of the angle k to a whole turn
    gap = np.maximum(np.abs(np.cos(k) - 1), np.abs(np.sin(k)))  # largest entry of M_k - I
    best = int(k[np.argmin(gap)])
    assert best == int(k[np.argmin(off_by)]) == 44
    assert f"closest to I: k = {best}, every entry within {gap.min():.3f} of I" in shown(NB04)
    assert f"the k in 1..50 whose M_k (theta = 1) is closest to I: {best}" in shown(NB04)
    text = flat(markdown(NB04))
    assert f"$44/(2\\pi)\\approx{44 / (2 * np.pi):.3f}$ times" in text


# Issue 32 item 5: the subspace table, the slow columns, per-dimension "extends", RoFormer


def _directions(x: np.ndarray, share: float = 0.99) -> int:
    """Directions for 99% of the variation, from the covariance's eigenvalues (no SVD)."""
    centred = x - x.mean(axis=0)
    eigenvalues = np.sort(np.linalg.eigvalsh(centred.T @ centred))[::-1].clip(min=0)
    return int(np.argmax(np.cumsum(eigenvalues) >= share * eigenvalues.sum()) + 1)


def test_03_the_subspace_grows_with_the_window() -> None:
    counts = {n: _directions(_pe(np.arange(n), 512)) for n in (100, 512, 2048, 8192)}
    out, text = shown(NB03), flat(markdown(NB03))
    for n, r in counts.items():
        assert f"{n:5d} positions: {r:3d} of 512" in out
    said = stated(r"fits in (\d+) directions, a few dozen out of 512\. The count grows with the "
                  r"window: (\d+) directions for 512 positions, (\d+) for 2,048 and (\d+) for "
                  r"8,192", text, int)
    assert said == tuple(counts.values()) and 24 <= counts[100] < 144  # "a few dozen"
    share = FRACTION_WORDS[stated(r"the positions fill about a?\s?(\w+) of it", text, str)]
    assert counts[8192] / 512 == pytest.approx(share, abs=0.1)
    summary = stated(r"fits in (\d+) directions, but 8,192 positions need (\d+)", text, int)
    assert summary == (counts[100], counts[8192])


def test_03_the_slow_columns_leave_their_trained_range() -> None:
    trained, later = _pe(np.arange(1000), 128), _pe(np.arange(1000, 3000), 128)
    low, high = trained.min(axis=0) - 0.02, trained.max(axis=0) + 0.02
    left = np.any((later < low) | (later > high), axis=0)
    first = int(np.flatnonzero(left)[0])
    assert (f"{left.sum()} of 128 columns leave their trained range by more than 0.02; "
            f"none of columns 0..{first - 1} does") in shown(NB03)
    # "over 1000 positions they turned by less than a full turn": every leaving column
    assert np.all(1000 * _theta(128)[np.flatnonzero(left) // 2] < 2 * np.pi)


def test_03_scorecard_judges_extends_per_dimension() -> None:
    from posenc_lib.scorecard import _LENGTH, CRITERIA

    seen, unseen = _pe(np.arange(_LENGTH), 64), _pe(np.arange(2 * _LENGTH, 3 * _LENGTH), 64)
    slack = 0.01 * (seen.max() - seen.min())
    inside = np.all((seen.min(axis=0) - slack <= unseen) & (unseen <= seen.max(axis=0) + slack))
    assert not inside  # some column leaves its own seen interval
    code = "\n".join(source(c) for c in load(NB03)["cells"] if c["cell_type"] == "code")
    assert '"binary", "sinusoidal"], per_dimension=True)' in code
    row = next(line for line in shown(NB03).splitlines() if line.startswith("sinusoidal "))
    assert row.split()[1 + list(CRITERIA).index("extends")] == "no"


def test_05_only_a_linear_angle_gives_a_relative_score() -> None:
    q, k = np.array([1.0, 0.5]), np.array([0.3, 1.2])

    def score(phi_m: float, phi_n: float) -> float:  # <R(a) q, R(b) k> = q^T R(b - a) k
        z = complex(*q).conjugate() * complex(*k) * np.exp(1j * (phi_n - phi_m))
        return z.real

    linear = [score(0.6 * m, 0.6 * (m + 3)) for m in range(20)]
    quadratic = [score(0.06 * m**2, 0.06 * (m + 3) ** 2) for m in range(20)]
    assert np.ptp(linear) < 1e-12 and np.ptp(quadratic) > 0.1
    out = shown(NB05)
    rotation = [score(0.0, 0.6 * r) for r in range(6)]
    assert ("angle 0.6 m   : depends on n - m only: True ; at m = 0, offsets 0..5: "
            f"{np.array2string(np.array(rotation), precision=3, sign='+')}") in out
    assert "angle 0.06 m^2: depends on n - m only: False" in out


def test_05_a_reflection_is_relative_too_and_records_only_parity() -> None:
    """Issue 45 item 7: A_m = F^m with F a reflection gives scores of n - m alone; what rules it
    out is F^2 = I. F = diag(1, -1) is complex conjugation: F^m q is q at even m, conj(q) at odd."""
    q, k = complex(1.0, 0.5), complex(0.3, 1.2)

    def turn(z: complex, m: int) -> complex:
        return z if m % 2 == 0 else z.conjugate()

    scores = np.array([[(turn(q, m).conjugate() * turn(k, m + r)).real for m in range(20)]
                       for r in range(6)])
    assert np.ptp(scores, axis=1).max() < 1e-12  # the offset alone decides the score
    assert np.allclose(scores[0::2], scores[0, 0]) and np.allclose(scores[1::2], scores[1, 0])
    assert abs(scores[0, 0] - scores[1, 0]) > 0.1  # two values: even and odd offsets
    line = ("reflection F^m: depends on n - m only: True ; at m = 0, offsets 0..5: "
            f"{np.array2string(scores[:, 0], precision=3, sign='+')}")
    assert line in shown(NB05)
    assert stated(r"What rules it out is \$F\^(\d) = I\$", flat(markdown(NB05)), int) == 2
    reflection = np.diag([1.0, -1.0])  # F = diag(1, -1): conjugation, as turn() above
    assert np.array_equal(reflection @ reflection, np.eye(2))


def test_03_addition_is_not_called_concatenation_for_these_words() -> None:
    """Issue 45 item 7: cell 39's words are not kept out of the positions' slice; the numbers the
    prose quotes are those Going further prints, and they show the blur."""
    out = shown(NB03)
    r, d = stated(r"positional subspace: (\d+) of (\d+) directions", out, int)
    block = out.split("R^2 (words outside the subspace)\n", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^ *([\d.]+) +[\d.]+ +([\d.]+) +([\d.]+)$", block, re.M)
    table = {float(s): (float(anywhere), float(kept_out)) for s, anywhere, kept_out in rows}
    assert set(table) == {0.25, 1.0, 2.0}
    anywhere = [table[s][0] for s in sorted(table)]
    assert anywhere == sorted(anywhere, reverse=True) and anywhere[-1] < 0.5  # louder words blur
    assert min(kept_out for _, kept_out in table.values()) > 0.999
    text = flat(markdown(NB03))
    assert f"({r} of {d} directions, Going further)" in text
    assert f"$R^2$ {table[2.0][0]:.3f} with words anywhere" in text
    assert f"against {table[2.0][1]:.4f} with words kept out" in text


def test_05_random_scores_do_not_decay_aligned_ones_do() -> None:
    d, n_pairs = 128, 20_000
    theta = _theta(d)
    draw = np.random.default_rng(12)
    q, k = draw.normal(size=(n_pairs, d)), draw.normal(size=(n_pairs, d))
    q_c, k_c = q[:, 0::2] + 1j * q[:, 1::2], k[:, 0::2] + 1j * k[:, 1::2]  # interleaved pairs
    out = shown(NB05)
    for r in (0, 10, 100, 1000):
        turn = np.exp(1j * r * theta)
        rand = np.real(np.conj(q_c) * k_c * turn).sum(axis=1)  # Re sum conj(q) k e^(i r theta)
        aligned = np.real(np.abs(q_c) ** 2 * turn).sum(axis=1)
        assert abs(rand.mean()) < 4 * np.sqrt(d / n_pairs)           # zero at every distance
        assert abs(np.sqrt(np.mean(rand**2)) / np.sqrt(d) - 1) < 0.02  # spread sqrt(d), no decay
        assert abs(aligned.mean() - 2 * np.cos(r * theta).sum()) < 0.5
        line = (f"{r:4d}   {rand.mean():+18.2f}   {np.sqrt(np.mean(rand**2)):5.2f}   "
                f"{aligned.mean():+19.2f}   {2 * np.cos(r * theta).sum():+22.2f}")
        assert line in out, line

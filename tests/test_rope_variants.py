"""Tests for posenc_lib.rope_variants and posenc_lib.attention_variants.

Each variant is checked against an independent computation: values produced by Hugging Face
transformers' own code (tests/data/hf_rope_reference.json, see tools/make_hf_reference.py), the
formula written another way (plain ``math`` loops, explicit rotation matrices), or a property
the notebook claims (the relative property of axial RoPE, NoPE dims ignoring position, MLA's
non-absorbable middle matrix).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib.attention_variants import (
    attention_with_sink,
    mla_absorption_error,
    mla_keys,
    mla_queries,
    nope_attention_scale,
    nope_layers,
)
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.models import rope_frequencies_from_config
from posenc_lib.presets import PRESETS
from posenc_lib.rope import apply_rope, apply_rope_angles, rope_matrix
from posenc_lib.rope_variants import (
    axial_rope_angles,
    axial_rope_frequencies,
    mrope_axes,
    mrope_image_positions,
    p_rope_frequencies,
    partial_rotary_dims,
    patch_grid_positions,
)

REFERENCE = json.loads(
    (Path(__file__).parent / "data" / "hf_rope_reference.json").read_text(encoding="utf-8")
)


def theta(d: int, base: float) -> list[float]:
    """theta_i = 1 / base^(2i/d), a loop."""
    return [1.0 / base ** (2 * i / d) for i in range(d // 2)]


def rotate_pair(a: float, b: float, phi: float) -> tuple[float, float]:
    return a * math.cos(phi) - b * math.sin(phi), a * math.sin(phi) + b * math.cos(phi)


# --------------------------------------------------------------------------- apply_rope_angles


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    half=st.integers(1, 8),
    n=st.integers(1, 6),
    pairing=st.sampled_from(["interleaved", "half"]),
)
def test_angles_of_plain_rope_give_apply_rope(seed: int, half: int, n: int, pairing: str) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(2, n, 2 * half))
    positions = rng.integers(-50, 50, size=n)
    inv_freq = rng.uniform(0.001, 1.0, size=half)
    angles = np.multiply.outer(positions, inv_freq)
    expected = apply_rope(x, positions, inv_freq, pairing=pairing)
    got = apply_rope_angles(x, angles, pairing=pairing)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(got, axis=-1), np.linalg.norm(x, axis=-1))


def test_apply_rope_angles_rotates_each_pair_by_its_own_angle() -> None:
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    phi = [0.3, -1.1]
    got = apply_rope_angles(x, [phi])[0]
    expected = [*rotate_pair(1.0, 2.0, 0.3), *rotate_pair(3.0, 4.0, -1.1)]
    np.testing.assert_allclose(got, expected, rtol=1e-14)
    half = apply_rope_angles(x, [phi], pairing="half")[0]
    a0, b0 = rotate_pair(1.0, 3.0, 0.3)  # pairs (0, 2) and (1, 3)
    a1, b1 = rotate_pair(2.0, 4.0, -1.1)
    np.testing.assert_allclose(half, [a0, a1, b0, b1], rtol=1e-14)


# --------------------------------------------------------------------------- partial rotary


def test_partial_rotary_dims_count() -> None:
    assert partial_rotary_dims(128, 0.25).sum() == 32
    assert partial_rotary_dims(128, 0.75).sum() == 96
    # the same rotary dimension rope_frequencies_from_config uses for the presets
    for name, head, p in (("pythia-1.4b", 128, 0.25), ("phi-4-mini", 128, 0.75)):
        n_freq = rope_frequencies_from_config(PRESETS[name])[0].shape[0]
        assert partial_rotary_dims(head, p).sum() == 2 * n_freq



# --------------------------------------------------------------------------- p-RoPE


@pytest.mark.parametrize("case", REFERENCE["p_rope"], ids=lambda c: f"d{c['head_dim']}-p{c['p']}")
def test_p_rope_matches_transformers_proportional(case: dict[str, Any]) -> None:
    got = p_rope_frequencies(case["head_dim"], case["p"], case["base"])
    np.testing.assert_allclose(got, case["inv_freq"], rtol=1e-6, atol=0)


def test_p_rope_keeps_the_fastest_pairs_at_their_frequencies() -> None:
    d, base = 64, 10000.0
    full = theta(d, base)
    for p in (0.0, 0.25, 0.5, 0.75, 1.0):
        got = p_rope_frequencies(d, p, base)
        keep = math.floor(p * d / 2)
        np.testing.assert_allclose(got[:keep], full[:keep], rtol=1e-12)
        assert np.all(got[keep:] == 0.0)
    np.testing.assert_allclose(p_rope_frequencies(d, 1.0, base), inverse_frequencies(d, base))


def test_p_rope_zero_frequency_dims_ignore_position() -> None:
    rng = np.random.default_rng(2)
    d = 16
    inv_freq = p_rope_frequencies(d, 0.5)
    q, k = rng.normal(size=(1, d)), rng.normal(size=(1, d))
    scores = []
    for m in (0, 7, 1000):
        qm = apply_rope(q, [m], inv_freq)
        km = apply_rope(k, [m + 3], inv_freq)
        # interleaved pairs 4..7 (dims 8..15) have frequency 0: unchanged at every position
        np.testing.assert_allclose(qm[0, 8:], q[0, 8:], rtol=1e-14)
        scores.append(float(qm[0, 8:] @ km[0, 8:]))
    assert scores[0] == pytest.approx(scores[2])
    # p = 0 is NoPE: the whole score ignores both positions
    nope = p_rope_frequencies(d, 0.0)
    s1 = apply_rope(q, [3], nope) @ apply_rope(k, [90], nope).T
    np.testing.assert_allclose(s1, q @ k.T, rtol=1e-14)


# --------------------------------------------------------------------------- 2-D axial RoPE


def test_axial_frequencies_are_those_of_a_half_size_head() -> None:
    np.testing.assert_allclose(axial_rope_frequencies(16, 10000.0), theta(8, 10000.0), rtol=1e-12)


def test_patch_grid_positions_row_major() -> None:
    rows, cols = patch_grid_positions(3, 4)
    assert rows.tolist() == [k // 4 for k in range(12)]
    assert cols.tolist() == [k % 4 for k in range(12)]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    r1=st.integers(0, 30),
    c1=st.integers(0, 30),
    r2=st.integers(0, 30),
    c2=st.integers(0, 30),
    shift_r=st.integers(-20, 20),
    shift_c=st.integers(-20, 20),
)
def test_axial_score_depends_on_row_and_column_offsets_only(
    seed: int, r1: int, c1: int, r2: int, c2: int, shift_r: int, shift_c: int
) -> None:
    rng = np.random.default_rng(seed)
    d = 16
    theta_axis = axial_rope_frequencies(d, 100.0)
    q, k = rng.normal(size=(1, d)), rng.normal(size=(1, d))

    def score(a: tuple[int, int], b: tuple[int, int]) -> float:
        qa = apply_rope_angles(q, axial_rope_angles([a[0]], [a[1]], theta_axis))
        kb = apply_rope_angles(k, axial_rope_angles([b[0]], [b[1]], theta_axis))
        return float(qa[0] @ kb[0])

    base = score((r1, c1), (r2, c2))
    moved = score((r1 + shift_r, c1 + shift_c), (r2 + shift_r, c2 + shift_c))
    assert moved == pytest.approx(base, rel=1e-9, abs=1e-9)


def test_axial_row_and_column_offsets_are_told_apart() -> None:
    rng = np.random.default_rng(3)
    d = 16
    theta_axis = axial_rope_frequencies(d, 100.0)
    q, k = rng.normal(size=(1, d)), rng.normal(size=(1, d))
    angles = axial_rope_angles([0, 1, 0], [0, 0, 1], theta_axis)
    qa = apply_rope_angles(q, angles[:1])
    one_down = apply_rope_angles(k, angles[1:2])
    one_right = apply_rope_angles(k, angles[2:3])
    assert abs(float(qa[0] @ one_down[0]) - float(qa[0] @ one_right[0])) > 1e-6
    # explicit check of the layout: first d/4 pairs use the row, the rest the column
    np.testing.assert_allclose(angles[1], [*theta_axis, *(0 * theta_axis)])
    np.testing.assert_allclose(angles[2], [*(0 * theta_axis), *theta_axis])


# --------------------------------------------------------------------------- M-RoPE


@pytest.mark.parametrize("case", REFERENCE["mrope_axes"], ids=lambda c: c["source"].split(".")[0])
def test_mrope_axes_match_transformers(case: dict[str, Any]) -> None:
    got = mrope_axes(case["mrope_section"], interleaved=case["interleaved"])
    assert got.tolist() == case["axes"]


def test_mrope_section_counts() -> None:
    for interleaved in (False, True):
        axes = mrope_axes([24, 20, 20], interleaved=interleaved)
        assert np.bincount(axes).tolist() == [24, 20, 20]




def test_mrope_image_positions() -> None:
    pos = mrope_image_positions(3, 2, 4, 2)
    assert pos.shape == (3, 3 + 8 + 2)
    assert pos[:, :3].tolist() == [[0, 1, 2]] * 3
    image = pos[:, 3:11]
    assert set(image[0].tolist()) == {3}  # one still image: a single temporal index
    rows, cols = patch_grid_positions(2, 4)
    assert image[1].tolist() == (3 + rows).tolist()
    assert image[2].tolist() == (3 + cols).tolist()
    assert pos[:, 11:].tolist() == [[7, 8]] * 3  # 3 + max(2, 4), then on by one


# --------------------------------------------------------------------------- NoPE layers


@pytest.mark.parametrize("name", ["llama-4-scout", "smollm3-3b"])
def test_nope_layers_match_the_configs(name: str) -> None:
    config = PRESETS[name]
    uses_rope = np.array(config["no_rope_layers"]) == 1
    got = nope_layers(len(uses_rope), 4)
    np.testing.assert_array_equal(got, ~uses_rope)


def test_nope_attention_scale_formula() -> None:
    positions = [0, 1, 8190, 8191, 8192, 16382, 16383, 100_000, 10_485_759]
    got = nope_attention_scale(positions, 8192, 0.1)
    for m, s in zip(positions, got, strict=True):
        assert s == pytest.approx(math.log(math.floor((m + 1) / 8192) + 1) * 0.1 + 1, rel=1e-14)
    assert got[0] == 1.0 and got[2] == 1.0 and got[3] > 1.0
    assert np.all(np.diff(got) >= 0)


# --------------------------------------------------------------------------- DeepSeek MLA


def mla_setup(seed: int = 5) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    n, heads, r_q, r_kv, hidden, d_nope, d_rope = 5, 3, 6, 4, 7, 4, 8
    return {
        "c_q": rng.normal(size=(n, r_q)),
        "w_uq": rng.normal(size=(heads, r_q, d_nope)),
        "w_qr": rng.normal(size=(heads, r_q, d_rope)),
        "c_kv": rng.normal(size=(n, r_kv)),
        "w_uk": rng.normal(size=(heads, r_kv, d_nope)),
        "x": rng.normal(size=(n, hidden)),
        "w_kr": rng.normal(size=(hidden, d_rope)),
        "positions": np.array([0, 1, 2, 10, 11]),
        "inv_freq": inverse_frequencies(d_rope, 10000.0),
    }


def test_mla_queries_and_keys_are_built_from_their_parts() -> None:
    s = mla_setup()
    q = mla_queries(s["c_q"], s["w_uq"], s["w_qr"], s["positions"], s["inv_freq"])
    k = mla_keys(s["c_kv"], s["w_uk"], s["x"], s["w_kr"], s["positions"], s["inv_freq"])
    assert q.shape == k.shape == (3, 5, 12)
    for h in range(3):
        np.testing.assert_allclose(q[h, :, :4], s["c_q"] @ s["w_uq"][h])  # content: no rotation
        rot = apply_rope(s["c_q"] @ s["w_qr"][h], s["positions"], s["inv_freq"])
        np.testing.assert_allclose(q[h, :, 4:], rot, rtol=1e-12)
        np.testing.assert_allclose(k[h, :, :4], s["c_kv"] @ s["w_uk"][h])
    shared = apply_rope(s["x"] @ s["w_kr"], s["positions"], s["inv_freq"])
    for h in range(3):
        np.testing.assert_allclose(k[h, :, 4:], shared, rtol=1e-12)  # one rotary key per token


def test_mla_rotary_part_of_the_score_is_relative() -> None:
    s = mla_setup()
    shifted = s["positions"] + 37

    def scores(positions: np.ndarray) -> np.ndarray:
        q = mla_queries(s["c_q"], s["w_uq"], s["w_qr"], positions, s["inv_freq"])
        k = mla_keys(s["c_kv"], s["w_uk"], s["x"], s["w_kr"], positions, s["inv_freq"])
        return q @ np.swapaxes(k, -1, -2)

    np.testing.assert_allclose(scores(shifted), scores(s["positions"]), rtol=1e-9, atol=1e-9)


def test_mla_absorption_fails_only_with_rope_between_the_projections() -> None:
    rng = np.random.default_rng(6)
    n, r_q, r_kv, d = 8, 6, 5, 8
    c_q, c_kv = rng.normal(size=(n, r_q)), rng.normal(size=(n, r_kv))
    w_uq, w_uk = rng.normal(size=(r_q, d)), rng.normal(size=(r_kv, d))
    positions = np.arange(n) * 3
    inv_freq = inverse_frequencies(d, 10000.0)
    without, with_rope = mla_absorption_error(c_q, c_kv, w_uq, w_uk, positions, inv_freq)
    assert without < 1e-12
    assert with_rope > 0.05
    # what the absorbed matrix would have to be: W_uq R_{n-m} W_uk^T, different for each offset
    m, k = 1, 4
    middle = w_uq @ rope_matrix(positions[m], inv_freq).T @ rope_matrix(positions[k], inv_freq)
    middle = middle @ w_uk.T
    rotated_q = apply_rope(c_q @ w_uq, positions, inv_freq)
    exact = rotated_q @ apply_rope(c_kv @ w_uk, positions, inv_freq).T
    assert exact[m, k] == pytest.approx(float(c_q[m] @ middle @ c_kv[k]), rel=1e-9)
    offset = rope_matrix(positions[k] - positions[m], inv_freq)
    np.testing.assert_allclose(middle, w_uq @ offset @ w_uk.T, rtol=1e-9, atol=1e-9)
    other = rope_matrix(positions[k] - positions[m] + 3, inv_freq)
    assert not np.allclose(w_uq @ offset @ w_uk.T, w_uq @ other @ w_uk.T)


# --------------------------------------------------------------------------- attention sinks


def test_sink_attention_matches_transformers_gpt_oss() -> None:
    case = REFERENCE["sink_attention"]
    scores = np.array(case["scores"])
    heads, n, _ = scores.shape
    causal = np.tril(np.ones((n, n), dtype=bool))
    got = attention_with_sink(scores, np.array(case["sinks"])[:, None], mask=causal)
    np.testing.assert_allclose(got, case["weights"], rtol=1e-12, atol=1e-15)


def test_sink_weights_written_another_way() -> None:
    rng = np.random.default_rng(7)
    scores = rng.normal(size=(2, 3, 5)) * 3
    sinks = np.array([1.0, -2.0])
    got = attention_with_sink(scores, sinks[:, None])
    for h in range(2):
        for i in range(3):
            row = scores[h, i]
            plain = np.exp(row - row.max()) / np.exp(row - row.max()).sum()
            # p_sink = 1 / (1 + sum_j exp(s_j - z))
            p_sink = 1.0 / (1.0 + sum(math.exp(v - sinks[h]) for v in row))
            np.testing.assert_allclose(got[h, i], plain * (1 - p_sink), rtol=1e-12)
            assert got[h, i].sum() == pytest.approx(1 - p_sink)
    very_negative = attention_with_sink(scores, -1e4)
    np.testing.assert_allclose(very_negative.sum(axis=-1), 1.0, rtol=1e-12)


def test_sink_with_mask_gives_zero_to_masked_keys() -> None:
    scores = np.zeros((3, 3))
    weights = attention_with_sink(scores, 0.0, mask=np.tril(np.ones((3, 3), dtype=bool)))
    np.testing.assert_allclose(weights[0], [0.5, 0, 0])
    np.testing.assert_allclose(weights[2], [0.25, 0.25, 0.25])


# --------------------------------------------------------------------------- bad input

BAD = [
    (apply_rope_angles, ([[1.0, 2.0]], [[0.1, 0.2]]), {}, ValueError, "angles"),
    (apply_rope_angles, ([[1.0, 2.0, 3.0]], [[0.1]]), {}, ValueError, "x"),
    (apply_rope_angles, ([[1.0, 2.0]], [[0.1]]), {"pairing": "odd"}, ValueError, "pairing"),
    (partial_rotary_dims, (10, 0.3), {}, ValueError, "int"),
    (partial_rotary_dims, (8, 1.5), {}, ValueError, "partial_rotary_factor"),
    (p_rope_frequencies, (8, -0.1), {}, ValueError, "p must be in"),
    (p_rope_frequencies, (8, float("nan")), {}, ValueError, "p must be a finite"),
    (p_rope_frequencies, (7, 0.5), {}, ValueError, "head_dim"),
    (axial_rope_frequencies, (6,), {}, ValueError, "multiple of 4"),
    (axial_rope_angles, ([0, 1], [0], [1.0]), {}, ValueError, "rows and cols"),
    (mrope_axes, ([16, 24],), {}, ValueError, "mrope_section"),
    (mrope_axes, ([16.0, 24.0, 24.0],), {}, ValueError, "mrope_section"),
    (mrope_axes, ([1, 2, 2],), {"interleaved": True}, ValueError, "interleaved"),
    (mrope_image_positions, (-1, 2, 2, 0), {}, ValueError, "n_before"),
    (nope_layers, (8, 0), {}, ValueError, "no_rope_layer_interval"),
    (nope_attention_scale, ([-1],), {}, ValueError, "positions"),
    (nope_attention_scale, ([0],), {"floor_scale": 0}, ValueError, "floor_scale"),
    (mla_absorption_error, (np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 4)), np.ones((3, 4)),
                            [0, 1], [1.0]), {}, ValueError, "inv_freq"),
    (attention_with_sink, (np.zeros((2, 3)), [1.0, 2.0, 3.0]), {}, ValueError, "sink"),
    (attention_with_sink, (np.zeros((2, 3)), 0.0), {"mask": np.ones((2, 3))}, TypeError, "mask"),
]  # fmt: skip


@pytest.mark.parametrize(
    "function,args,kwargs,error,match", BAD, ids=[f"{b[0].__name__}-{i}" for i, b in enumerate(BAD)]
)
def test_bad_input_names_the_parameter(
    function: Any, args: tuple[Any, ...], kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        function(*args, **kwargs)

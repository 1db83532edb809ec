"""The lab (notebook 10): model pieces against independent computations, the claims the
notebook makes checked on the committed results, and a small training run that reproduces the
key claims."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from posenc_lib import apply_rope, sinusoidal_encoding  # noqa: E402
from posenc_lib.lab import results as lab_results  # noqa: E402
from posenc_lib.lab.model import ModelConfig, forward, init_params, rotate_pairs  # noqa: E402
from posenc_lib.lab.schemes import (  # noqa: E402
    SCHEMES,
    T5_BUCKETS,
    T5_MAX_DISTANCE,
    extension_scaling,
    position_inputs,
    rope_inv_freq,
)
from posenc_lib.lab.tasks import TASKS, make_batch  # noqa: E402

SMALL = ModelConfig(d_model=32, n_heads=2, d_ff=64, max_len=64)


def _params(seed: int = 0, cfg: ModelConfig = SMALL) -> dict:
    return init_params(jax.random.key(seed), cfg)


_forward = jax.jit(forward, static_argnums=3)


def _logits(params: dict, tokens: np.ndarray, scheme: str, cfg: ModelConfig = SMALL
            ) -> np.ndarray:
    pos = position_inputs(scheme, tokens.shape[1], d_model=cfg.d_model, n_heads=cfg.n_heads)
    return np.asarray(_forward(params, jnp.asarray(tokens), pos, cfg)[0])


# --- model pieces against independent computations -------------------------------------------


def test_rotate_pairs_is_the_library_rope() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 10, 16)).astype(np.float32)
    inv_freq, _ = rope_inv_freq("rope", 16)
    pos = position_inputs("rope", 10, d_model=48, n_heads=3)
    got = np.asarray(rotate_pairs(jnp.asarray(x), pos["cos"], pos["sin"]))
    want = apply_rope(x.astype(np.float64), np.arange(10), inv_freq, pairing="interleaved")
    np.testing.assert_allclose(got, want, atol=2e-5)


def test_p_rope_rotates_only_the_fastest_quarter_of_the_pairs() -> None:
    inv_freq, _ = rope_inv_freq("p_rope", 16)
    full, _ = rope_inv_freq("rope", 16)
    assert np.count_nonzero(inv_freq) == 2
    np.testing.assert_array_equal(inv_freq[:2], full[:2])


def test_yarn_scales_cos_and_sin_by_its_attention_factor() -> None:
    pos = position_inputs("rope", 128, d_model=64, n_heads=4, extension="yarn",
                          trained_length=32)
    radius = np.sqrt(pos["cos"] ** 2 + pos["sin"] ** 2)
    factor = 0.1 * math.log(4.0) + 1.0  # YaRN's sqrt(1/t) at s = 4
    np.testing.assert_allclose(radius, factor, rtol=1e-5)


def test_pi_divides_every_frequency_by_the_factor() -> None:
    scaled, _ = rope_inv_freq("rope", 16, extension_scaling("pi", 4.0, 32))
    base = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    np.testing.assert_allclose(scaled, base / 4.0, rtol=1e-12)


def test_alibi_bias_is_minus_slope_times_distance() -> None:
    bias = position_inputs("alibi", 6, d_model=32, n_heads=4)["bias"]
    slopes = 2.0 ** (-8.0 * np.arange(1, 5) / 4)  # m_h = 2^(-8h/H)
    i, j = np.tril_indices(6)
    np.testing.assert_allclose(bias[:, i, j], -slopes[:, None] * (i - j)[None], rtol=1e-6)


def _t5_bucket_by_hand(offset: int) -> int:
    n, exact = max(-offset, 0), T5_BUCKETS // 2
    if n < exact:
        return n
    scaled = math.log(n / exact) / math.log(T5_MAX_DISTANCE / exact) * (T5_BUCKETS - exact)
    return min(T5_BUCKETS - 1, exact + int(scaled))


def test_t5_buckets_follow_the_paper_formula_and_reach_the_model() -> None:
    length = 70
    buckets = position_inputs("t5", length, d_model=32, n_heads=2)["buckets"]
    for i, j in [(0, 0), (9, 2), (30, 1), (69, 0), (69, 60), (40, 39)]:
        assert buckets[i, j] == _t5_bucket_by_hand(j - i), (i, j)
    params = _params(1)
    params["t5"] = jnp.asarray(np.random.default_rng(1).normal(size=(T5_BUCKETS, 2)))
    tokens = np.zeros((1, 8), dtype=np.int32)
    changed = dict(params, t5=params["t5"].at[3].add(5.0))  # only the bucket of offset -3
    a = _logits(params, tokens, "t5")
    b = _logits(changed, tokens, "t5")
    assert np.allclose(a[0, :3], b[0, :3]) and not np.allclose(a[0, 3:], b[0, 3:])


def test_sinusoidal_scheme_adds_the_library_table() -> None:
    pos = position_inputs("sinusoidal", 12, d_model=32, n_heads=2)
    np.testing.assert_allclose(pos["table"], sinusoidal_encoding(12, 32), atol=1e-7)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_future_token_never_changes_earlier_logits(scheme: str) -> None:
    params = _params(2)
    tokens = np.random.default_rng(3).integers(0, 32, size=(2, 12)).astype(np.int32)
    later = tokens.copy()
    later[:, 7] = (later[:, 7] + 1) % 32
    a, b = _logits(params, tokens, scheme), _logits(params, later, scheme)
    np.testing.assert_allclose(a[:, :7], b[:, :7], atol=1e-5)
    assert not np.allclose(a[:, 7:], b[:, 7:], atol=1e-4)


def test_one_nope_layer_cannot_see_the_order_of_the_past_but_rope_can() -> None:
    one_layer = ModelConfig(d_model=32, n_heads=2, d_ff=64, max_len=64, n_layers=1)
    params = _params(4, one_layer)
    tokens = np.random.default_rng(5).integers(0, 32, size=(1, 10)).astype(np.int32)
    shuffled = tokens.copy()
    shuffled[0, :9] = tokens[0, :9][::-1]
    nope = [_logits(params, t, "nope", one_layer)[0, -1] for t in (tokens, shuffled)]
    rope = [_logits(params, t, "rope", one_layer)[0, -1] for t in (tokens, shuffled)]
    np.testing.assert_allclose(nope[0], nope[1], atol=1e-5)
    assert not np.allclose(rope[0], rope[1], atol=1e-4)


def test_two_causal_nope_layers_do_see_the_order() -> None:
    params = _params(4)
    tokens = np.random.default_rng(5).integers(0, 32, size=(1, 10)).astype(np.int32)
    shuffled = tokens.copy()
    shuffled[0, :9] = tokens[0, :9][::-1]
    a, b = (_logits(params, t, "nope")[0, -1] for t in (tokens, shuffled))
    assert not np.allclose(a, b, atol=1e-4)


# --- tasks --------------------------------------------------------------------------------------


def test_tasks_are_what_the_notebook_says() -> None:
    rng = np.random.default_rng(0)
    copy = make_batch("copy_back", rng, 4, 20)
    assert (copy.targets[:, 5:] == copy.tokens[:, :-5]).all() and copy.mask[:, :5].sum() == 0
    recall = make_batch("assoc_recall", rng, 4, 40)
    for row in range(4):
        table = dict(zip(recall.tokens[row, 0:16:2], recall.tokens[row, 1:16:2], strict=True))
        assert [table[k] for k in recall.tokens[row, 16:]] == list(recall.targets[row, 16:])
    induction = make_batch("induction", rng, 4, 30)
    for row in range(4):
        x = list(induction.tokens[row])
        for t in range(30):
            previous = [j for j in range(t) if x[j] == x[t]]
            assert induction.mask[row, t] == bool(previous)
            if previous:
                assert induction.targets[row, t] == x[previous[-1] + 1]


@pytest.mark.parametrize("task", TASKS)
def test_tasks_are_seeded(task: str) -> None:
    a = make_batch(task, np.random.default_rng(7), 3, 40)
    b = make_batch(task, np.random.default_rng(7), 3, 40)
    assert all((x == y).all() for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: make_batch("copy", np.random.default_rng(0), 2, 8), ["task", "'copy'"]),
        (lambda: make_batch("copy_back", np.random.default_rng(0), 0, 8), ["batch", "0"]),
        (lambda: make_batch("assoc_recall", np.random.default_rng(0), 2, 10), ["length", "17"]),
        (lambda: position_inputs("rotary", 8, d_model=32, n_heads=2), ["scheme", "rotary"]),
        (lambda: position_inputs("rope", 8, d_model=30, n_heads=4), ["d_model", "30"]),
        (lambda: position_inputs("alibi", 8, d_model=32, n_heads=2, extension="pi",
                                 trained_length=4), ["extension", "alibi"]),
        (lambda: extension_scaling("yarn", 0.5, 32), ["factor", "0.5"]),
        (lambda: ModelConfig(n_heads=0), ["n_heads", "0"]),
        (lambda: lab_results.load("nothing"), ["name", "nothing"]),
    ],
)
def test_bad_input_names_the_parameter_and_the_value(call, words) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError) as error:
        call()
    assert all(word in str(error.value) for word in words), str(error.value)


def test_importing_the_library_and_the_results_imports_no_jax() -> None:
    code = ("import sys, posenc_lib, posenc_lib.lab, posenc_lib.lab.results, "
            "posenc_lib.widgets.lab; print('jax' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- the claims the notebook states, checked on the committed results ----------------------


def _by_hand(entries: dict, task: str, method: str, multiple: int, length: int = 32
             ) -> np.ndarray:
    """Per-seed accuracy on unseen positions, computed here without the results module."""
    values = []
    for key, curves in entries.items():
        if key.rsplit("/", 1)[0] != f"{task}/{method}":
            continue
        curve = np.array([np.nan if v is None else v for v in curves[str(multiple)]], float)
        values.append(np.nanmean(curve[0 if multiple == 1 else length:]))
    assert len(values) == 3, f"{task}/{method}: expected 3 seeds, found {len(values)}"
    return np.array(values)


@pytest.fixture(scope="module")
def grid() -> dict:
    return lab_results.load("curves")["curves"]


@pytest.fixture(scope="module")
def extended() -> dict:
    return lab_results.load("extensions")


def _above(a: np.ndarray, b: np.ndarray) -> bool:
    """a beats b beyond the spread: mean(a) - sd(a) > mean(b) + sd(b)."""
    return a.mean() - a.std(ddof=1) > b.mean() + b.std(ddof=1)


def test_the_summary_module_agrees_with_the_hand_computation(grid: dict) -> None:
    stats = lab_results.summary(grid, 32)
    for task in TASKS:
        for scheme in SCHEMES:
            for column, multiple in enumerate(lab_results.MULTIPLES):
                np.testing.assert_allclose(stats[(task, scheme)][:, column],
                                           _by_hand(grid, task, scheme, multiple))


def test_absolute_tables_collapse_past_the_trained_length_where_position_matters(grid: dict
                                                                                 ) -> None:
    for scheme in ("learned", "sinusoidal"):
        for task in ("copy_back", "induction"):
            first, later = (_by_hand(grid, task, scheme, m) for m in (1, 2))
            assert first.mean() > 0.85 and later.mean() < 0.4, (scheme, task)
    assert _by_hand(grid, "copy_back", "learned", 2).max() < 0.1  # chance is 1/32


def test_a_task_without_position_lets_the_learned_table_extrapolate(grid: dict) -> None:
    assert _by_hand(grid, "assoc_recall", "learned", 8).min() > 0.95
    assert _by_hand(grid, "assoc_recall", "sinusoidal", 1).mean() < 0.5  # not learned


def test_alibi_and_t5_hold_on_recall_and_alibi_holds_longest_on_induction(grid: dict) -> None:
    for scheme in ("alibi", "t5"):
        first, last = (_by_hand(grid, "assoc_recall", scheme, m) for m in (1, 8))
        assert last.mean() >= first.mean() - 0.1, scheme
    alibi = {m: _by_hand(grid, "induction", "alibi", m) for m in (2, 4, 8)}
    assert abs(alibi[8].mean() - alibi[2].mean()) < 0.1  # flat from 2x to 8x
    for other in ("nope", "learned", "sinusoidal", "rope", "p_rope", "t5"):
        assert _above(alibi[8], _by_hand(grid, "induction", other, 8)), other
    t5 = [_by_hand(grid, "induction", "t5", m).mean() for m in (2, 4, 8)]
    assert t5[0] > t5[1] > t5[2]


def test_alibi_cannot_learn_an_exact_offset_and_t5_dilutes(grid: dict) -> None:
    assert _by_hand(grid, "copy_back", "alibi", 1).mean() < 0.5
    t5 = [_by_hand(grid, "copy_back", "t5", m) for m in (1, 4, 8)]
    assert t5[0].mean() > 0.95 and _above(t5[0], t5[1]) and _above(t5[1], t5[2])


def test_nope_learns_order_slowly_and_does_not_extrapolate_on_induction(grid: dict) -> None:
    induction = _by_hand(grid, "induction", "nope", 1)
    assert induction.mean() > 5 / 16  # five times chance: order is learned
    for other in ("learned", "sinusoidal", "rope", "p_rope", "alibi", "t5"):
        assert _above(_by_hand(grid, "induction", other, 1), induction), other
    assert _by_hand(grid, "copy_back", "nope", 1).mean() < 0.5
    assert _by_hand(grid, "induction", "nope", 2).mean() < induction.mean() - 0.2
    recall = [_by_hand(grid, "assoc_recall", "nope", m).mean() for m in (1, 8)]
    assert recall[1] >= recall[0] - 0.1


def test_rope_drops_on_two_tasks_and_holds_copy_back_to_4x(grid: dict) -> None:
    for task in ("assoc_recall", "induction"):
        assert _above(_by_hand(grid, task, "rope", 1), _by_hand(grid, task, "rope", 4)), task
    copy = {m: _by_hand(grid, "copy_back", "rope", m) for m in (1, 4, 8)}
    assert copy[4].mean() >= copy[1].mean() - 0.1 and _above(copy[4], copy[8])


def test_p_rope_holds_recall_but_aliases_offsets(grid: dict) -> None:
    assert _above(_by_hand(grid, "assoc_recall", "p_rope", 8),
                  _by_hand(grid, "assoc_recall", "rope", 8))
    assert _above(_by_hand(grid, "copy_back", "rope", 4), _by_hand(grid, "copy_back", "p_rope", 4))


def test_ntk_and_yarn_work_without_fine_tuning_and_pi_does_not(grid: dict, extended: dict
                                                               ) -> None:
    ext = extended["extensions"]
    for task in ("assoc_recall", "induction"):
        rope = _by_hand(grid, task, "rope", 4)
        ntk, yarn = (_by_hand(ext, task, m, 4) for m in ("ntk", "yarn"))
        assert _above(ntk, rope) and _above(yarn, rope) and yarn.mean() > ntk.mean(), task
    for task in TASKS:
        assert _above(_by_hand(grid, task, "rope", 4), _by_hand(ext, task, "pi", 4)), task
    assert _by_hand(ext, "copy_back", "pi", 2).max() < 0.1
    assert _above(_by_hand(grid, "copy_back", "rope", 4), _by_hand(ext, "copy_back", "yarn", 4))
    for task in TASKS:  # one doubling: dynamic NTK is NTK with s = 2
        np.testing.assert_allclose(_by_hand(ext, task, "dynamic", 2), _by_hand(ext, task, "ntk", 2))


def test_a_short_pi_fine_tune_helps_recall_only(extended: dict) -> None:
    tuned = {}
    for task in TASKS:
        curves = [extended["fine_tuned"][f"{task}/pi_fine_tuned/{seed}"] for seed in (0, 1, 2)]
        tuned[task] = np.array([np.nanmean(np.array(c, dtype=float)[32:]) for c in curves])
    ext = extended["extensions"]
    assert _above(tuned["assoc_recall"], _by_hand(ext, "assoc_recall", "pi", 4))
    for task in ("copy_back", "induction"):
        assert _above(_by_hand(ext, task, "ntk", 4), tuned[task]), task
        assert _above(_by_hand(ext, task, "yarn", 4), tuned[task]), task


def test_the_claims_table_gives_the_verdicts_the_notebook_discusses(grid: dict) -> None:
    lines = lab_results.claims(lab_results.summary(grid, 32), TASKS)
    text = "\n".join(lines)
    assert text.count("agrees") - text.count("disagrees") >= 5  # the 'agrees' verdicts
    learned_on_recall = lines[1 + list(TASKS).index("assoc_recall")]
    assert "assoc_recall" in learned_on_recall and learned_on_recall.endswith("disagrees")


# --- a small training run that reproduces the key claims --------------------------------------


def test_a_short_training_reproduces_rope_against_sinusoidal() -> None:
    from posenc_lib.lab.train import TrainConfig, accuracy_by_position, train

    tcfg = TrainConfig(steps=300)
    accuracy = {}
    for scheme in ("rope", "sinusoidal"):
        model = train(scheme, "copy_back", 0, tcfg=tcfg, progress=False)
        assert np.isfinite(model.losses[-1]) and model.losses[-1] < model.losses[0]
        accuracy[scheme] = [lab_results.beyond_training(accuracy_by_position(model, 32 * m), m, 32)
                            for m in (1, 2)]
    assert accuracy["rope"][0] > 0.95 and accuracy["sinusoidal"][0] > 0.6  # both learn it
    assert accuracy["rope"][1] > 0.9 > 0.4 > accuracy["sinusoidal"][1]  # only RoPE carries on

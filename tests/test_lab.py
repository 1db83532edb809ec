"""The lab (notebook 10): model pieces against independent computations, the claims the
notebook makes checked on the committed results, and a small training run that reproduces the
key claims."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from posenc_lib import apply_rope, sinusoidal_encoding  # noqa: E402
from posenc_lib.lab import results as lab_results  # noqa: E402
from posenc_lib.lab.learned_bias import init_bias_params  # noqa: E402
from posenc_lib.lab.model import ModelConfig, _rotate_pairs, forward, init_params  # noqa: E402
from posenc_lib.lab.schemes import (  # noqa: E402
    _T5_MAX_DISTANCE,
    ALL_SCHEMES,
    SCHEMES,
    T5_BUCKETS,
    _extension_scaling,
    _rope_inv_freq,
    position_inputs,
)
from posenc_lib.lab.tasks import (  # noqa: E402
    _NEAR_GAP,
    TASKS,
    make_batch,
    match_statistics,
)
from posenc_lib.lab.train import (  # noqa: E402
    TrainConfig,
    Trained,
    accuracy_by_position,
    fine_tune,
    train,
)

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
    inv_freq, _ = _rope_inv_freq("rope", 16)
    pos = position_inputs("rope", 10, d_model=48, n_heads=3)
    got = np.asarray(_rotate_pairs(jnp.asarray(x), pos["cos"], pos["sin"]))
    want = apply_rope(x.astype(np.float64), np.arange(10), inv_freq, pairing="interleaved")
    np.testing.assert_allclose(got, want, atol=2e-5)


def test_p_rope_rotates_only_the_fastest_quarter_of_the_pairs() -> None:
    inv_freq, _ = _rope_inv_freq("p_rope", 16)
    full, _ = _rope_inv_freq("rope", 16)
    assert np.count_nonzero(inv_freq) == 2
    np.testing.assert_array_equal(inv_freq[:2], full[:2])


@pytest.mark.parametrize(("head_dim", "kept"), [(16, 2), (28, 3), (44, 5)])
def test_p_rope_keeps_the_pairs_the_library_keeps(head_dim: int, kept: int) -> None:
    """Issue 47: the lab rounds down as the library and transformers do, floor(p d / 2) pairs
    (at d = 28, 3.5 pairs is 3, not 4; at d = 44, 5.5 is 5, not 6)."""
    from posenc_lib.rope_variants import p_rope_frequencies

    inv_freq, _ = _rope_inv_freq("p_rope", head_dim)
    assert np.count_nonzero(inv_freq) == kept == math.floor(0.25 * head_dim / 2)
    np.testing.assert_array_equal(inv_freq, p_rope_frequencies(head_dim, 0.25))
    pos = position_inputs("p_rope", 8, d_model=2 * head_dim, n_heads=2)
    assert np.count_nonzero(pos["sin"][1]) == kept  # only the kept pairs turn at position 1


def test_yarn_scales_cos_and_sin_by_its_attention_factor() -> None:
    pos = position_inputs("rope", 128, d_model=64, n_heads=4, extension="yarn",
                          trained_length=32)
    radius = np.sqrt(pos["cos"] ** 2 + pos["sin"] ** 2)
    factor = 0.1 * math.log(4.0) + 1.0  # YaRN's sqrt(1/t) at s = 4
    np.testing.assert_allclose(radius, factor, rtol=1e-5)


def test_pi_divides_every_frequency_by_the_factor() -> None:
    scaled, _ = _rope_inv_freq("rope", 16, _extension_scaling("pi", 4.0, 32))
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
    scaled = math.log(n / exact) / math.log(_T5_MAX_DISTANCE / exact) * (T5_BUCKETS - exact)
    return min(T5_BUCKETS - 1, exact + int(scaled))


def test_t5_buckets_follow_the_paper_formula_and_reach_the_model() -> None:
    length = 70
    buckets = position_inputs("t5", length, d_model=32, n_heads=2)["buckets"]
    for i, j in [(0, 0), (9, 2), (30, 1), (69, 0), (69, 60), (40, 39)]:
        assert buckets[i, j] == _t5_bucket_by_hand(j - i), (i, j)
    params = _params(1)
    params["t5"] = jnp.asarray(np.random.default_rng(1).normal(size=(T5_BUCKETS, 2)))
    # distinct tokens: with identical ones every value vector is the same, the attention weights
    # cannot change the output, and only rounding noise (which depends on the CPU) would differ
    tokens = np.random.default_rng(2).integers(0, 32, size=(1, 8)).astype(np.int32)
    changed = dict(params, t5=params["t5"].at[3].add(5.0))  # only the bucket of offset -3
    a = _logits(params, tokens, "t5")
    b = _logits(changed, tokens, "t5")
    assert np.allclose(a[0, :3], b[0, :3]) and not np.allclose(a[0, 3:], b[0, 3:])


def test_sinusoidal_scheme_adds_the_library_table() -> None:
    pos = position_inputs("sinusoidal", 12, d_model=32, n_heads=2)
    np.testing.assert_allclose(pos["table"], sinusoidal_encoding(12, 32), atol=1e-7)


@pytest.mark.parametrize("scheme", ALL_SCHEMES)
def test_a_future_token_never_changes_earlier_logits(scheme: str) -> None:
    params = _params(2) | init_bias_params(scheme, jax.random.key(2), SMALL.n_heads)
    tokens = np.random.default_rng(3).integers(0, 32, size=(2, 12)).astype(np.int32)
    later = tokens.copy()
    later[:, 7] = (later[:, 7] + 1) % 32
    a, b = _logits(params, tokens, scheme), _logits(params, later, scheme)
    np.testing.assert_allclose(a[:, :7], b[:, :7], atol=1e-5)
    assert not np.allclose(a[:, 7:], b[:, 7:], atol=1e-4)


def test_one_nope_layer_cannot_see_the_order_of_the_past_but_rope_or_two_layers_can() -> None:
    one_layer = ModelConfig(d_model=32, n_heads=2, d_ff=64, max_len=64, n_layers=1)
    tokens = np.random.default_rng(5).integers(0, 32, size=(1, 10)).astype(np.int32)
    shuffled = tokens.copy()
    shuffled[0, :9] = tokens[0, :9][::-1]
    for scheme, cfg, sees_order in (("nope", one_layer, False), ("rope", one_layer, True),
                                    ("nope", SMALL, True)):
        a, b = (_logits(_params(4, cfg), t, scheme, cfg)[0, -1] for t in (tokens, shuffled))
        if sees_order:
            assert not np.allclose(a, b, atol=1e-4), (scheme, cfg.n_layers)
        else:
            np.testing.assert_allclose(a, b, atol=1e-5)


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
        (lambda: _extension_scaling("yarn", 0.5, 32), ["factor", "0.5"]),
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


# --- the control task and its statistics ----------------------------------------------------


def test_induction_near_scores_the_induction_positions_whose_match_is_near() -> None:
    full = make_batch("induction", np.random.default_rng(3), 8, 96)
    near = make_batch("induction_near", np.random.default_rng(3), 8, 96)
    np.testing.assert_array_equal(near.tokens, full.tokens)
    for row in range(8):
        x = list(full.tokens[row])
        for t in range(96):
            previous = [j for j in range(t) if x[j] == x[t]]
            want = bool(previous) and t - previous[-1] <= _NEAR_GAP
            assert near.mask[row, t] == want, (row, t)
    assert near.mask.sum() < full.mask.sum()  # some matches at 96 tokens are farther back


def test_match_statistics_agree_with_the_probabilities_of_uniform_tokens() -> None:
    stats = match_statistics("induction", 256, n_sequences=512)
    # No copy among the 31 tokens before t: (15/16)^31, for every t >= 32 (each token has
    # almost surely occurred somewhere before).
    assert abs(stats["far_share"] - (15 / 16) ** 31) < 0.01
    # Earlier copies at t: t/16 on average; scored when there is one, with probability
    # 1 - (15/16)^t, so the mean over scored positions is sum(t/16) / sum(1 - (15/16)^t).
    t = np.arange(256)
    want = np.sum(t / 16) / np.sum(1 - (15 / 16) ** t)
    assert abs(stats["copies"] - want) < 0.1
    assert match_statistics("induction_near", 256)["far_share"] == 0.0


def test_induction_once_scores_exactly_the_second_copy_of_each_key_at_every_length() -> None:
    """Issue 31: an induction task whose scored tokens have one earlier copy at every length,
    checked token by token against the task's rule written out with Python lists."""
    for length in (32, 96, 256):
        batch = make_batch("induction_once", np.random.default_rng(length), 16, length)
        for row in range(16):
            x = [int(v) for v in batch.tokens[row]]
            for t in range(length):
                previous = [j for j in range(t) if x[j] == x[t]]
                scored = x[t] < 16 and len(previous) == 1
                assert batch.mask[row, t] == scored, (length, row, t)
                if scored:
                    assert batch.targets[row, t] == x[previous[0] + 1]
                    assert x[previous[0] + 1] >= 16  # the answer is a filler, never a key
            keys = [v for v in x if v < 16]
            assert all(keys.count(k) == 2 for k in set(keys))  # each key exactly twice
            assert len(set(keys)) == min(16, length // 6)
        assert match_statistics("induction_once", length)["copies"] == 1.0
    # matches reach farther as the sequence grows: what the task tests at 8x
    assert match_statistics("induction_once", 256)["far_share"] > 0.5


# --- training, fine-tuning and evaluation (the code runs) ---------------------------------


@pytest.fixture(scope="module")
def rope_copy() -> Trained:
    """RoPE on copy_back with the grid's training (800 steps, seed 0)."""
    return train("rope", "copy_back", 0, progress=False)


@pytest.fixture(scope="module")
def pi_tuned(rope_copy: Trained) -> Trained:
    """That model fine-tuned with PI at 4x the trained length for 300 steps."""
    return fine_tune(rope_copy, "pi", 128, steps=300, progress=False)


def _accuracy_with_angles(model: Trained, length: int, angles: np.ndarray) -> np.ndarray:
    """Accuracy by position on the evaluation data, with RoPE angles given by hand."""
    batch = make_batch(model.task, np.random.default_rng([12345, length, 2]), 64, length)
    pos = dict(position_inputs("rope", length, d_model=model.cfg.d_model,
                               n_heads=model.cfg.n_heads),
               cos=np.cos(angles).astype(np.float32), sin=np.sin(angles).astype(np.float32))
    logits = np.asarray(_forward(model.params, jnp.asarray(batch.tokens), pos, model.cfg)[0])
    correct = (logits.argmax(-1) == batch.targets) * batch.mask
    with np.errstate(invalid="ignore"):
        return correct.sum(0) / batch.mask.sum(0)


def _angles(length: int, s: float, base: float = 10000.0) -> np.ndarray:
    theta = base ** (-np.arange(0, 16, 2) / 16)  # head size 16: theta_i = base^(-2i/16)
    return (np.arange(length) / s)[:, None] * theta[None, :]  # (m / s) * theta_i


def test_a_fine_tuned_model_carries_its_trained_length_and_factor(pi_tuned: Trained) -> None:
    assert (pi_tuned.trained_length, pi_tuned.factor, pi_tuned.extension) == (32, 4.0, "pi")
    assert pi_tuned.tcfg.length == 128


def test_a_pi_fine_tuned_model_is_evaluated_at_s_4_not_1(pi_tuned: Trained) -> None:
    got = accuracy_by_position(pi_tuned, 128)
    at_4 = _accuracy_with_angles(pi_tuned, 128, _angles(128, 4.0))
    at_1 = _accuracy_with_angles(pi_tuned, 128, _angles(128, 1.0))
    assert np.nanmean(np.abs(got - at_4)) < 0.005  # float32 rounding may flip a rare argmax
    assert np.nanmean(np.abs(got - at_1)) > 0.3  # what the evaluation bug computed
    np.testing.assert_array_equal(accuracy_by_position(pi_tuned, 128, extension="pi"), got)


def test_each_extension_is_evaluated_with_the_factor_of_the_length(rope_copy: Trained) -> None:
    pi = accuracy_by_position(rope_copy, 128, extension="pi")
    assert np.nanmean(np.abs(pi - _accuracy_with_angles(rope_copy, 128, _angles(128, 4.0)))
                      ) < 0.005
    ntk = accuracy_by_position(rope_copy, 64, extension="ntk")
    raised = 10000.0 * 2.0 ** (16 / 14)  # NTK-aware: base * s^(d / (d - 2)), s = 2
    assert np.nanmean(np.abs(ntk - _accuracy_with_angles(rope_copy, 64, _angles(64, 1.0,
                                                                                  raised)))
                      ) < 0.005


def test_a_pi_fine_tune_is_no_worse_than_its_base_below_the_trained_length(
        rope_copy: Trained, pi_tuned: Trained) -> None:
    base = lab_results._below_and_beyond(accuracy_by_position(rope_copy, 128), 32)
    untuned = lab_results._below_and_beyond(accuracy_by_position(rope_copy, 128,
                                                                extension="pi"), 32)
    tuned = lab_results._below_and_beyond(accuracy_by_position(pi_tuned, 128), 32)
    assert tuned[0] >= base[0] - 0.02  # positions 0-31: nothing lost
    assert untuned[1] < 0.1 < 0.9 < tuned[1]  # positions 32-127: PI needs its fine-tune


def test_a_fine_tuned_model_refuses_another_extension_or_fine_tune(pi_tuned: Trained) -> None:
    with pytest.raises(ValueError, match="extension must be None or 'pi'.*'ntk'"):
        accuracy_by_position(pi_tuned, 128, extension="ntk")
    with pytest.raises(ValueError, match="model must not be fine-tuned already"):
        fine_tune(pi_tuned, "pi", 256, steps=1, progress=False)


def test_a_short_training_reproduces_rope_against_sinusoidal(rope_copy: Trained) -> None:
    sinusoidal = train("sinusoidal", "copy_back", 0, tcfg=TrainConfig(steps=300),
                       progress=False)
    assert np.isfinite(sinusoidal.losses[-1]) and sinusoidal.losses[-1] < sinusoidal.losses[0]
    accuracy = {name: [lab_results.beyond_training(accuracy_by_position(model, 32 * m), m, 32)
                       for m in (1, 2)]
                for name, model in (("rope", rope_copy), ("sinusoidal", sinusoidal))}
    assert accuracy["rope"][0] > 0.95 and accuracy["sinusoidal"][0] > 0.6  # both learn it
    assert accuracy["rope"][1] > 0.9 > 0.4 > accuracy["sinusoidal"][1]  # only RoPE carries on


def test_the_grid_command_keeps_quick_runs_out_of_the_results() -> None:
    from posenc_lib.lab.experiments import parse_args

    assert parse_args(["--quick"]).out == Path("build/lab-quick")
    assert parse_args([]).out == Path("results")
    makefile = (Path(__file__).parents[1] / "Makefile").read_text(encoding="utf-8")
    assert ("-m posenc_lib.lab.experiments --jobs $(JOBS)$(if $(SCHEDULER), --scheduler "
            "$(SCHEDULER))\n") in makefile  # these defaults, and a Dask cluster if given
    assert "SCHEDULER ?=\n" in makefile
    with pytest.raises(SystemExit):
        parse_args(["--jobs", "0"])


def test_the_grid_gives_the_same_entries_in_two_processes_as_in_one() -> None:
    """``--jobs 2`` trains in fresh processes what ``--jobs 1`` trains in this one: every
    entry is the same."""
    from posenc_lib.lab.experiments import PARTS, Plan, run_grid

    plan = Plan(seeds=(0,), extra_seeds=(), tcfg=TrainConfig(steps=30, warmup=5), long_steps=30,
                fine_tune_steps=(2, 4))
    base = {name: {} for name in PARTS}
    cells = {("assoc_recall", "nope", 0)}  # one model: the property is per job, not per scheme
    one, two = (run_grid(plan, progress=False, base=base, cells=cells, jobs=n) for n in (1, 2))
    for name in PARTS:
        assert one[name] == two[name], name
    assert set(two["curves"]) == {"assoc_recall/nope/0"}
    assert [t["scheme"] for t in one["timings"]] == [t["scheme"] for t in two["timings"]]


# --- the code reproduces the committed results ----------------------------------------------


def _committed_curve(key: str, multiple: int | None = None) -> np.ndarray:
    folder = "extensions" if multiple is None else "curves"
    data = lab_results.load(folder)
    curve = data["fine_tuned"][key] if multiple is None else data["curves"][key][str(multiple)]
    return _values(curve)


def test_the_committed_curves_are_what_the_code_computes(rope_copy: Trained,
                                                         pi_tuned: Trained) -> None:
    """A retrained model reproduces its committed curves, the PI fine-tune included: so the
    committed fine-tunes were scored at s = 4, as the test above checks of the code."""
    for multiple in (1, 4):
        got = accuracy_by_position(rope_copy, 32 * multiple)
        assert np.nanmean(np.abs(got - _committed_curve("copy_back/rope/0", multiple))) < 0.01
    got = accuracy_by_position(pi_tuned, 128)
    assert np.nanmean(np.abs(got - _committed_curve("copy_back/pi_300/0"))) < 0.01


# --- checks of the committed results (results/lab_*.json): the notebook's answers -----------
# These test the data the notebook quotes, not the code; `make experiments` rewrites them.


def _values(curve: list) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in curve], dtype=float)


def _by_hand(entries: dict, task: str, method: str, multiple: int, length: int = 32
             ) -> np.ndarray:
    """Per-seed accuracy on unseen positions, computed here without the results module."""
    values = [np.nanmean(_values(curves[str(multiple)])[0 if multiple == 1 else length:])
              for key, curves in entries.items() if key.rsplit("/", 1)[0] == f"{task}/{method}"]
    assert len(values) in (5, 10), f"{task}/{method}: expected 5 or 10 seeds, found {len(values)}"
    return np.array(values)


def _seeds_that(entries: dict, task: str, method: str, behaviour: str, multiple: int = 4) -> int:
    """How many seeds hold (within 0.1 of 1x), drop, or have not learned (below 0.9 at 1x)."""
    first, later = (_by_hand(entries, task, method, m) for m in (1, multiple))
    found = np.where(first < 0.9, "not learned", np.where(later >= first - 0.1, "holds", "drops"))
    return int(np.sum(found == behaviour))


@pytest.fixture(scope="module")
def grid() -> dict:
    return lab_results.load("curves")["curves"]


@pytest.fixture(scope="module")
def longer() -> dict:
    return {k: v["curves"] for k, v in lab_results.load("curves")["long"].items()}


@pytest.fixture(scope="module")
def extended() -> dict:
    return lab_results.load("extensions")


def _above(a: np.ndarray, b: np.ndarray) -> bool:
    """a beats b beyond the spread: mean(a) - sd(a) > mean(b) + sd(b)."""
    return a.mean() - a.std(ddof=1) > b.mean() + b.std(ddof=1)


def test_results_hold_five_seeds_of_every_cell_and_the_grid_settings(grid: dict) -> None:
    setup = lab_results.load("curves")["setup"]
    assert setup["seeds"] == [0, 1, 2, 3, 4] and setup["train"] == vars(TrainConfig())
    for task in (*TASKS, "induction_near"):
        for scheme in ALL_SCHEMES:  # FIRE and KERPLE too (issue 47)
            for multiple in lab_results.MULTIPLES:
                _by_hand(grid, task, scheme, multiple)  # asserts five or ten seeds


def test_every_cell_near_a_cutoff_has_ten_seeds(grid: dict) -> None:
    """Issue 31: a cell whose five-seed mean lies within 0.05 of a cutoff (0.9 at 1x, a change
    of -0.1 from 1x to 4x) has at least ten seeds; so has every cell the grid lists as one."""
    near = set()
    for task in (*TASKS, "induction_near"):
        for scheme in ALL_SCHEMES:
            first, later = (_by_hand(grid, task, scheme, m)[:5] for m in (1, 4))
            learned = first >= 0.9
            if abs(first.mean() - 0.9) <= 0.05 or (
                    learned.any() and abs((later - first)[learned].mean() + 0.1) <= 0.05):
                near.add((task, scheme))
    assert ("copy_back", "rope") in near, "the cell the notebook works by hand"
    extra = lab_results.load("curves")["setup"]["extra_seeds"]
    listed = {tuple(c) for c in extra["cells"] + extra["learned_bias_cells"]}
    for task, scheme in listed:
        assert len(_by_hand(grid, task, scheme, 1)) >= 10, (task, scheme)
    short = sorted(cell for cell in near if len(_by_hand(grid, *cell, 1)) < 10)
    assert short == [], short
    assert {("induction_once", "p_rope"), ("induction_once", "t5")} <= near  # the new task's


def test_the_summary_module_agrees_with_the_hand_computation(grid: dict) -> None:
    stats = lab_results.summary(grid, 32)
    whole = lab_results.summary(grid, 32, positions="all")
    for (task, scheme), rows in stats.items():
        for column, multiple in enumerate(lab_results.MULTIPLES):
            np.testing.assert_allclose(rows[:, column], _by_hand(grid, task, scheme, multiple))
            keys = sorted(k for k in grid if k.rsplit("/", 1)[0] == f"{task}/{scheme}")
            np.testing.assert_allclose(whole[(task, scheme)][:, column],
                                       [np.nanmean(_values(grid[k][str(multiple)]))
                                        for k in keys])


def test_q1_absolute_tables_collapse_where_position_past_l_matters(grid: dict, longer: dict
                                                                   ) -> None:
    for scheme in ("learned", "sinusoidal"):
        for task in ("copy_back", "induction"):
            first, later = (_by_hand(grid, task, scheme, m) for m in (1, 2))
            assert first.mean() > 0.9 and later.mean() < 0.4, (scheme, task)
            want = 8 if (scheme, task) == ("learned", "copy_back") else 5  # 2 of 10 unlearned
            assert _seeds_that(grid, task, scheme, "drops") == want, (scheme, task)
    learned_copy = _by_hand(grid, "copy_back", "learned", 1)
    assert np.sum(learned_copy < 0.9) == 2 and round(learned_copy.min(), 2) == 0.51
    assert _by_hand(grid, "copy_back", "learned", 2).max() < 0.05  # chance is 1/32
    assert _by_hand(grid, "assoc_recall", "learned", 8).min() > 0.95
    assert _by_hand(grid, "assoc_recall", "sinusoidal", 1).max() < 0.5  # not learned in 800


def test_q2_biases_hold_on_recall_alibi_is_flattest_on_induction(grid: dict, longer: dict
                                                                  ) -> None:
    for scheme in ("alibi", "t5"):
        first, last = (_by_hand(grid, "assoc_recall", scheme, m) for m in (1, 8))
        assert last.mean() >= first.mean() - 0.1, scheme
        seeds = len(_by_hand(grid, "induction", scheme, 1))
        assert _seeds_that(grid, "induction", scheme, "drops") == seeds, scheme
    alibi = {m: _by_hand(grid, "induction", "alibi", m).mean() for m in (1, 2, 4, 8)}
    assert 0.05 < alibi[1] - alibi[2] < 0.15 and alibi[2] - alibi[8] < 0.1
    for other in ("nope", "learned", "sinusoidal", "rope", "p_rope", "t5"):
        assert _above(_by_hand(grid, "induction", "alibi", 8),
                      _by_hand(grid, "induction", other, 8)), other
    t5 = [_by_hand(grid, "induction", "t5", m).mean() for m in (2, 4, 8)]
    assert t5[0] > t5[1] > t5[2]
    alibi_copy = _by_hand(grid, "copy_back", "alibi", 1).mean()
    assert round(alibi_copy, 2) == 0.26 and round(alibi_copy * 32) == 8  # eight times chance
    assert round(_by_hand(longer, "copy_back", "alibi", 1).mean(), 2) == 0.45
    t5_copy = [_by_hand(grid, "copy_back", "t5", m) for m in (1, 4, 8)]
    assert t5_copy[0].mean() > 0.95 and _above(t5_copy[0], t5_copy[1])
    assert _above(t5_copy[1], t5_copy[2])


def test_q3_nope_learns_order_slowly(grid: dict, longer: dict) -> None:
    induction = _by_hand(grid, "induction", "nope", 1)
    assert induction.mean() > 5 / 16  # five times chance: order is learned
    for other in ("learned", "sinusoidal", "rope", "p_rope", "alibi", "t5"):
        assert _above(_by_hand(grid, "induction", other, 1), induction), other
    assert _by_hand(grid, "induction", "nope", 2).mean() < 0.3
    assert _by_hand(grid, "copy_back", "nope", 1).max() < 0.5
    assert _by_hand(longer, "copy_back", "nope", 1).max() < 0.5
    # Outputting any value of the dictionary: the queried pair's value, or one of the 7 others
    # drawn from the same 16 values, so (1 + 7/16) / 8 = 0.18 on average.
    any_value = (1 + 7 / 16) / 8
    recall = [_by_hand(grid, "assoc_recall", "nope", m).mean() for m in (1, 8)]
    assert round(any_value, 2) == 0.18 and round(recall[0] / any_value) == 4
    assert recall[1] >= recall[0] - 0.1
    leaves = jax.tree_util.tree_leaves(init_params(jax.random.key(0), ModelConfig()))
    assert sum(leaf.size for leaf in leaves) < 90_000


def test_longer_trainings_learn_recall_and_not_copy_back(longer: dict) -> None:
    assert _by_hand(longer, "assoc_recall", "sinusoidal", 1).min() > 0.99
    assert _seeds_that(longer, "assoc_recall", "sinusoidal", "holds", 8) == 5
    curves = lab_results.load("curves")["long"]
    for scheme in ("nope", "alibi"):
        assert _by_hand(longer, "copy_back", scheme, 1).max() < 0.5, scheme
        for key in (k for k in curves if k.startswith(f"copy_back/{scheme}/")):
            logged = dict(zip(curves[key]["losses"]["step"], curves[key]["losses"]["loss"],
                              strict=True))
            assert logged[3999] < logged[3000] < logged[2000], key  # still learning


def test_q4_rope_drops_on_two_tasks_and_splits_on_copy_back(grid: dict) -> None:
    for task in ("assoc_recall", "induction"):
        assert _seeds_that(grid, task, "rope", "drops") == 5, task
    copy = _by_hand(grid, "copy_back", "rope", 4)
    assert len(copy) == 10 and 0.2 < _seeds_that(grid, "copy_back", "rope", "holds") / 10 < 0.8
    assert _seeds_that(grid, "copy_back", "rope", "drops", 8) == 10
    assert _above(_by_hand(grid, "assoc_recall", "p_rope", 8),
                  _by_hand(grid, "assoc_recall", "rope", 8))
    assert _above(_by_hand(grid, "copy_back", "rope", 4), _by_hand(grid, "copy_back", "p_rope", 4))


def test_distant_matches_matter_to_alibi_only(grid: dict) -> None:
    for scheme in SCHEMES:
        gain = (_by_hand(grid, "induction_near", scheme, 4).mean()
                - _by_hand(grid, "induction", scheme, 4).mean())
        if scheme == "alibi":
            assert 0.03 < gain < 0.08
        else:
            assert abs(gain) < 0.03, scheme
        if scheme in ("learned", "sinusoidal"):
            assert gain < 0, scheme


def test_q5_ntk_and_yarn_improve_on_rope_without_fine_tuning_and_pi_does_not(
        grid: dict, extended: dict) -> None:
    ext = extended["extensions"]
    for task in ("assoc_recall", "induction"):
        rope = _by_hand(grid, task, "rope", 4)
        ntk, yarn = (_by_hand(ext, task, m, 4) for m in ("ntk", "yarn"))
        assert _above(ntk, rope) and _above(yarn, rope) and yarn.mean() > ntk.mean(), task
    for task in TASKS:
        assert _above(_by_hand(grid, task, "rope", 4), _by_hand(ext, task, "pi", 4)), task
        np.testing.assert_allclose(_by_hand(ext, task, "dynamic", 2), _by_hand(ext, task, "ntk", 2))
    assert _by_hand(ext, "copy_back", "pi", 2).max() < 0.1
    assert _by_hand(ext, "copy_back", "yarn", 2).mean() > 0.95
    assert _above(_by_hand(grid, "copy_back", "rope", 4), _by_hand(ext, "copy_back", "yarn", 4))
    assert _by_hand(ext, "induction", "dynamic", 4).mean() < _by_hand(ext, "induction", "ntk",
                                                                       4).mean()


def test_yarn_keeps_one_and_a_half_pairs_of_the_lab() -> None:
    from posenc_lib.scaling import yarn_correction_range, yarn_ramp

    def index_of(turns: float) -> float:  # the pair that turns `turns` times in 32 positions
        return 16 * math.log(32 / (2 * math.pi * turns)) / (2 * math.log(10000.0))

    low, high = max(math.floor(index_of(32)), 0), math.ceil(index_of(1))
    assert (low, high) == (0, 2) == yarn_correction_range(16, 10000.0, 32)
    np.testing.assert_allclose(1 - yarn_ramp(low, high, 8), [1, 0.5, 0, 0, 0, 0, 0, 0])


def test_both_fine_tunes_recover_after_300_steps_and_the_control_leads_before(
        grid: dict, extended: dict) -> None:
    tuned = {}
    for key, curve in extended["fine_tuned"].items():
        task, method, _ = key.split("/")
        values = _values(curve)
        tuned.setdefault((task, method), []).append([np.nanmean(values[:32]),
                                                     np.nanmean(values[32:])])
    tuned = {k: np.array(v) for k, v in tuned.items()}  # (seeds, [below L, beyond L])
    setup = extended["setup"]["fine_tune"]
    steps = [10, 20, 40, 60, 100, 150, 200, 300]
    assert {k: setup[k] for k in ("multiple", "steps", "methods")} == {
        "multiple": 4, "steps": steps, "methods": {"pi": "pi", "plain": "none"}}
    # issue 47: every task, every one read at the eight checkpoints
    assert setup["tasks"] == list(TASKS) and set(setup["tasks"]) == set(setup["steps_by_task"])
    assert all(setup["steps_by_task"][t] == steps for t in setup["tasks"])
    assert {task for task, _ in tuned} == set(setup["tasks"])
    for task in setup["tasks"]:
        base_below = [np.nanmean(_values(grid[f"{task}/rope/{s}"]["4"])[:32]) for s in range(5)]
        for method in ("pi", "plain"):
            assert tuned[(task, f"{method}_300")].shape == (5, 2)
            assert tuned[(task, f"{method}_300")][:, 1].min() > 0.98, (task, method)
            assert np.all(tuned[(task, f"{method}_300")][:, 0] >= np.array(base_below) - 0.02)
    assert _above(tuned[("copy_back", "pi_300")][:, 1],
                  _by_hand(extended["extensions"], "copy_back", "pi", 4))
    for steps in (10, 20):  # the control leads on every seed while PI relearns
        assert np.all(tuned[("copy_back", f"plain_{steps}")][:, 1]
                      > tuned[("copy_back", f"pi_{steps}")][:, 1]), steps
    assert tuned[("copy_back", "pi_10")][:, 0].max() < 0.5  # below L too: every angle moved


def test_the_claims_table_gives_the_verdicts_the_notebook_discusses(grid: dict, longer: dict
                                                                     ) -> None:
    lines = lab_results.claims(lab_results.summary(grid, 32), (*TASKS, "induction_near"),
                               lab_results.summary(longer, 32), 4000)
    assert lines[2].split()[0] == "assoc_recall" and lines[2].endswith("disagrees")
    sinusoidal = lines.index("sinusoidal tables do not extrapolate")
    assert lines[sinusoidal + 3].strip().startswith("after 4000 steps")
    assert lines[sinusoidal + 3].endswith("disagrees") and "5 of 5 hold" in lines[sinusoidal + 3]
    rope = lines.index("RoPE fails past its trained length")
    assert "0 of 10 did not learn" in lines[rope + 1]
    assert " borderline (" in lines[rope + 1]
    assert lines[rope + 1].endswith("5 of 10 hold; 0 of 10 did not learn): no clear verdict")
    learned = lines.index("learned absolute tables do not extrapolate")
    assert lines[learned + 1].endswith("2 of 10 did not learn): agrees")  # decided among 8

"""RoPE moved to large positions in trained lab models (issue 47 item 7, notebook 08): the code
against independent computations, bad input, and the committed results/lab_offsets.json with
the numbers notebook 08 prints and states."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from posenc_lib.lab import results as lab_results  # noqa: E402
from posenc_lib.lab.model import _rotate_pairs, forward  # noqa: E402
from posenc_lib.lab.offsets import (  # noqa: E402
    OFFSETS,
    VARIANTS,
    accuracy_at_offset,
    offset_job,
    variant_name,
)
from posenc_lib.lab.schemes import position_inputs  # noqa: E402
from posenc_lib.lab.tasks import TASKS, make_batch  # noqa: E402
from posenc_lib.lab.train import (  # noqa: E402
    TrainConfig,
    Trained,
    accuracy_by_position,
    fine_tune,
    train,
)

_QUICK = TrainConfig(steps=100)
_forward = jax.jit(forward, static_argnums=3)


@pytest.fixture(scope="module")
def models() -> dict[str, Trained]:
    """RoPE after 100 steps: copy_back learned (1.0), induction not (about 0.27), so that a
    change of a single prediction shows."""
    return {task: train("rope", task, 0, tcfg=_QUICK, progress=False)
            for task in ("copy_back", "induction")}


# --- the code against independent computations ----------------------------------------------


@pytest.mark.parametrize("task", ["copy_back", "induction"])
def test_offset_zero_gives_the_ordinary_accuracy_in_both_angle_formats(
        models: dict[str, Trained], task: str) -> None:
    ordinary = accuracy_by_position(models[task], 32)
    np.testing.assert_array_equal(accuracy_at_offset(models[task], 0), ordinary)
    # float32 angles below 32 err by about 1e-6 rad: not one prediction changes
    np.testing.assert_array_equal(accuracy_at_offset(models[task], 0, angle_dtype="float32"),
                                  ordinary)


def test_float32_angles_are_those_of_numpy_s_float32_product() -> None:
    m = 10**7 + np.arange(8)
    theta = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    by_numpy = (m.astype(np.float32)[:, None] * theta.astype(np.float32)[None, :]).astype(float)
    pos = position_inputs("rope", 8, d_model=64, n_heads=4, offset=10**7, angle_dtype="float32")
    np.testing.assert_array_equal(pos["cos"], np.cos(by_numpy).astype(np.float32))
    exact = position_inputs("rope", 8, d_model=64, n_heads=4, offset=10**7)
    np.testing.assert_array_equal(exact["sin"], np.sin(m[:, None] * theta).astype(np.float32))
    # at 10^7 float32's gap is 1: the fastest pair's angle is off by up to half a radian
    assert 0.1 < np.abs(pos["cos"] - exact["cos"]).max() < 1.0


def test_a_bfloat16_rotation_rounds_every_operation_as_ml_dtypes_does() -> None:
    """q, k, cos and sin in bfloat16, each product and each sum rounded to bfloat16 (as bfloat16
    hardware does), the result back in float32: the same bits as ml_dtypes, op by op."""
    bf16 = ml_dtypes.bfloat16
    x = np.random.default_rng(3).normal(size=(1, 2, 6, 16)).astype(np.float32)
    pos = position_inputs("rope", 6, d_model=32, n_heads=2, offset=12345)
    cos, sin = (pos[k].astype(bf16) for k in ("cos", "sin"))
    got = np.asarray(_rotate_pairs(jnp.asarray(x), jnp.asarray(cos), jnp.asarray(sin)))
    assert got.dtype == np.float32
    a, b = (x[..., k::2].astype(bf16) for k in (0, 1))

    def times(u: np.ndarray, v: np.ndarray) -> np.ndarray:  # exact in float32, then rounded
        return (u.astype(np.float32) * v.astype(np.float32)).astype(bf16).astype(np.float32)

    want = np.stack([(times(a, cos) - times(b, sin)).astype(bf16),
                     (times(a, sin) + times(b, cos)).astype(bf16)], axis=-1)
    np.testing.assert_array_equal(got, want.reshape(x.shape).astype(np.float32))
    exact = np.asarray(_rotate_pairs(jnp.asarray(x), jnp.asarray(pos["cos"]),
                                     jnp.asarray(pos["sin"])))
    assert np.abs(got - exact).max() > 1e-3  # bfloat16 did round


def test_float64_angles_make_the_offset_irrelevant_up_to_float32_rounding(
        models: dict[str, Trained]) -> None:
    """RoPE is relative: with exact angles the logits at any offset are those at 0, up to the
    float32 rounding of cos, sin and the products (about 1e-6 of the logits' size)."""
    model = models["induction"]
    batch = make_batch("induction", np.random.default_rng(5), 8, 32)

    def logits(offset: int) -> np.ndarray:
        pos = position_inputs("rope", 32, d_model=64, n_heads=4, offset=offset)
        return np.asarray(_forward(model.params, jnp.asarray(batch.tokens), pos, model.cfg)[0])

    at_zero = logits(0)
    scale = np.abs(at_zero).max()
    for offset in (10**4, 10**7, 10**8):
        assert np.abs(logits(offset) - at_zero).max() < 1e-4 * scale, offset
    accuracies = [np.nanmean(accuracy_at_offset(model, o)) for o in OFFSETS]
    assert max(accuracies) - min(accuracies) < 0.005, accuracies


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: position_inputs("rope", 8, d_model=32, n_heads=2, offset=-1), ValueError,
         ["offset", "-1", ">= 0"]),
        (lambda: position_inputs("rope", 8, d_model=32, n_heads=2, offset=1.5), TypeError,
         ["offset", "1.5"]),
        (lambda: position_inputs("rope", 8, d_model=32, n_heads=2, angle_dtype="float16"),
         ValueError, ["angle_dtype", "float16", "'float64', 'float32'"]),
        (lambda: position_inputs("alibi", 8, d_model=32, n_heads=2, offset=100), ValueError,
         ["offset=100", "'alibi'", "'rope' and 'p_rope'"]),
        (lambda: position_inputs("rope", 8, d_model=32, n_heads=2, angle_dtype="float32",
                                 extension="pi", trained_length=4), ValueError,
         ["angle_dtype='float32'", "extension 'pi'"]),
        (lambda: variant_name("float32", "float16"), ValueError,
         ["rotation_dtype", "float16", "'bfloat16'"]),
    ],
)
def test_bad_input_names_the_parameter_the_value_and_what_is_allowed(call, error, words
                                                                     ) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error) as found:
        call()
    assert all(word in str(found.value) for word in words), str(found.value)


def test_accuracy_at_offset_refuses_other_schemes_fine_tunes_and_formats(
        models: dict[str, Trained]) -> None:
    model = models["copy_back"]
    with pytest.raises(ValueError, match="rotation_dtype must be one of 'float32', 'bfloat16'; "
                                         "got 'float16'"):
        accuracy_at_offset(model, 10, rotation_dtype="float16")
    with pytest.raises(ValueError, match="model must be a trained 'rope' or 'p_rope' model; "
                                         "got 'alibi'"):
        accuracy_at_offset(Trained(model.params, "alibi", "copy_back", 0, model.cfg, _QUICK,
                                   np.zeros(0)), 10)
    tuned = fine_tune(model, "pi", 64, steps=2, progress=False)
    with pytest.raises(ValueError, match="model must not be fine-tuned; got extension 'pi'"):
        accuracy_at_offset(tuned, 10)


def test_the_offsets_option_runs_alone() -> None:
    from posenc_lib.lab.experiments import parse_args

    assert parse_args(["--offsets"]).offsets
    with pytest.raises(SystemExit):
        parse_args(["--offsets", "--cells", "copy_back/rope"])


# --- the committed results/lab_offsets.json -------------------------------------------------
# These test the data notebook 08 quotes; `make experiments` (or --offsets) rewrites them.

_SEEDS = (0, 1, 2, 3, 4)
_F32 = "float32_angles_float32_rotation"


@pytest.fixture(scope="module")
def committed() -> dict:
    return lab_results.load("offsets")


def _seeds(committed: dict, task: str, variant: str) -> np.ndarray:
    """(seeds, offsets) read here from the JSON keys, without the results module."""
    return np.array([committed["offsets"][f"{task}/{variant}/{seed}"] for seed in _SEEDS])


def test_the_results_hold_every_task_seed_variant_and_offset(committed: dict) -> None:
    setup = committed["setup"]
    assert setup["seeds"] == list(_SEEDS) and setup["tasks"] == list(TASKS)
    assert setup["offsets"] == list(OFFSETS) and setup["train"]["steps"] == 800
    assert set(setup["variants"]) == set(VARIANTS)
    assert len(committed["offsets"]) == len(TASKS) * len(VARIANTS) * len(_SEEDS)
    for values in committed["offsets"].values():
        assert len(values) == len(OFFSETS)
    stats = lab_results.offset_stats(committed)
    for task in TASKS:
        for variant in VARIANTS:
            np.testing.assert_array_equal(stats[(task, variant)], _seeds(committed, task, variant))


def test_the_models_are_the_grid_s_their_offset_zero_is_its_committed_accuracy(
        committed: dict) -> None:
    """Trained again with the same seeds, the models are the grid's: at offset 0 with exact
    angles each seed's accuracy is its committed 1x accuracy (both rounded to 4 digits)."""
    curves = lab_results.load("curves")["curves"]
    for task in TASKS:
        for seed in _SEEDS:
            curve = [np.nan if v is None else v for v in curves[f"{task}/rope/{seed}"]["1"]]
            got = committed["offsets"][f"{task}/float64_angles_float32_rotation/{seed}"][0]
            assert abs(np.nanmean(curve) - got) < 2e-4, (task, seed)


def test_exact_angles_hold_at_every_offset_and_bfloat16_rotation_costs_nothing(
        committed: dict) -> None:
    for task in TASKS:
        for variant, (angles, _) in VARIANTS.items():
            values = _seeds(committed, task, variant)
            if angles == "float64":  # RoPE is relative: no offset matters, on every seed
                assert np.abs(values - values[:, :1]).max() <= 0.0015, (task, variant)
        for angles in ("float32", "float64"):
            bf16 = _seeds(committed, task, variant_name(angles, "bfloat16"))
            f32 = _seeds(committed, task, variant_name(angles, "float32"))
            assert np.abs(bf16.mean(0) - f32.mean(0)).max() <= 0.0015, (task, angles)


def test_float32_angles_hold_below_2_to_the_24_and_drop_on_every_seed_past_it(
        committed: dict) -> None:
    below = np.array(OFFSETS) + 32 <= 2**24  # every position of the window exact in float32
    assert np.array(OFFSETS)[below][-1] == 16 * 10**6
    for task in TASKS:
        values = _seeds(committed, task, _F32)
        assert np.abs(values[:, below] - values[:, :1]).max() <= 0.002, task
        assert np.all(values[:, ~below] < values[:, :1] - 0.03), task  # assoc_recall: 0.036


def test_one_job_of_the_offset_part_reproduces_its_committed_entries(committed: dict) -> None:
    """``make experiments`` gives these numbers: one job (the grid's training of induction_once,
    seed 0, read at every offset and variant) equals its committed entries."""
    found, timing = offset_job(("induction_once", 0, TrainConfig()))
    assert found == {k: v for k, v in committed["offsets"].items()
                     if k.startswith("induction_once/") and k.endswith("/0")}
    assert timing["task"] == "induction_once" and timing["seed"] == 0

"""FIRE and KERPLE in the lab: their biases equal the library's for the same parameters and
hand values, gradients reach every learned parameter, the model stays causal, and the other
schemes' parameters and computation are untouched."""

from __future__ import annotations

import math

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from posenc_lib.bias_variants import fire_bias, kerple_bias  # noqa: E402
from posenc_lib.lab.experiments import parse_args  # noqa: E402
from posenc_lib.lab.learned_bias import (  # noqa: E402
    FIRE_HIDDEN,
    init_bias_params,
    learned_bias,
    with_learned_bias,
)
from posenc_lib.lab.model import ModelConfig, forward, init_params, loss_fn  # noqa: E402
from posenc_lib.lab.schemes import ALL_SCHEMES, LEARNED_BIAS, SCHEMES, position_inputs  # noqa: E402
from posenc_lib.lab.train import TrainConfig, train  # noqa: E402

SMALL = ModelConfig(d_model=32, n_heads=2, d_ff=64, max_len=64)
_forward = jax.jit(forward, static_argnums=3)


def _free(y: float) -> float:
    return math.log(math.expm1(y))  # softplus^-1, written apart from the module's


def _model(scheme: str, seed: int = 0) -> dict:
    key = jax.random.key(seed)
    return init_params(key, SMALL) | init_bias_params(scheme, key, SMALL.n_heads)


def _logits(params: dict, tokens: np.ndarray, scheme: str) -> np.ndarray:
    pos = position_inputs(scheme, tokens.shape[1], d_model=SMALL.d_model, n_heads=SMALL.n_heads)
    return np.asarray(_forward(params, jnp.asarray(tokens), pos, SMALL)[0])


def test_kerple_bias_is_the_library_one_per_head_and_a_hand_value() -> None:
    r1, r2 = np.array([1.0, 0.3]), np.array([1.0, 2.5])
    params = {"kerple": {"r1": jnp.asarray([_free(v) for v in r1]),
                         "r2": jnp.asarray([_free(v) for v in r2])}}
    got = np.asarray(learned_bias(params, 10))
    assert got.shape == (2, 10, 10)
    below = np.tril(np.ones((10, 10), dtype=bool))
    for h in range(2):
        want = kerple_bias(10, float(r1[h]), float(r2[h]), kind="log")
        np.testing.assert_allclose(got[h][below], want[below], rtol=2e-6, atol=1e-6)
    assert got[0, 3, 0] == pytest.approx(-math.log(4.0), rel=1e-6)  # -1 ln(1 + 1 * 3)
    assert np.all(got[:, ~below] == 0.0)  # t = max(i - j, 0): finite where the model masks


def _fire_params(c: list[float], rng: np.random.Generator) -> dict:
    shape = (len(c), FIRE_HIDDEN)
    return {"fire": {"c": jnp.asarray([_free(v) for v in c]),
                     "w1": jnp.asarray(rng.normal(size=shape), dtype=jnp.float32),
                     "b1": jnp.asarray(rng.normal(size=shape), dtype=jnp.float32),
                     "w2": jnp.asarray(rng.normal(size=shape), dtype=jnp.float32),
                     "b2": jnp.asarray(rng.normal(size=len(c)), dtype=jnp.float32)}}


def test_fire_bias_is_the_library_one_with_each_heads_mlp() -> None:
    c = [1.0, 0.05]
    params = _fire_params(c, np.random.default_rng(7))
    got = np.asarray(learned_bias(params, 12))
    p = {k: np.asarray(v, dtype=np.float64) for k, v in params["fire"].items()}
    below = np.tril(np.ones((12, 12), dtype=bool))
    for h in range(2):
        def f(x: np.ndarray, h: int = h) -> np.ndarray:  # the MLP in NumPy, one head
            hidden = np.maximum(x[..., None] * p["w1"][h] + p["b1"][h], 0.0)
            return hidden @ p["w2"][h] + p["b2"][h]
        want = fire_bias(12, f, c=c[h])
        np.testing.assert_allclose(got[h][below], want[below], rtol=1e-5, atol=1e-5)


def test_fire_hand_value_relu_of_the_normalised_distance() -> None:
    w = np.zeros((1, FIRE_HIDDEN))
    w[0, 0] = 1.0
    params = {"fire": {"c": jnp.asarray([_free(1.0)]), "w1": jnp.asarray(w),
                       "b1": jnp.zeros((1, FIRE_HIDDEN)), "w2": jnp.asarray(w),
                       "b2": jnp.zeros(1)}}
    got = np.asarray(learned_bias(params, 8))[0]
    assert got[3, 2] == pytest.approx(0.5, rel=1e-6)  # ln 2 / ln 4
    assert got[7, 0] == pytest.approx(1.0, rel=1e-6)  # psi(7) / psi(7)
    assert got[0, 0] == 0.0  # query 0: f(0)


def test_other_schemes_get_no_parameters_and_their_inputs_pass_through() -> None:
    pos = position_inputs("alibi", 6, d_model=32, n_heads=2)
    for scheme in SCHEMES:
        assert init_bias_params(scheme, jax.random.key(0), 2) == {}
    assert with_learned_bias(_model("alibi"), pos, 6) is pos
    base = init_params(jax.random.key(3), SMALL)
    for scheme in LEARNED_BIAS:  # the shared parameters are those of every other scheme
        tree = _model(scheme, 3)
        assert set(tree) == set(base) | {scheme}
        same = jax.tree.map(lambda a, b: bool(jnp.array_equal(a, b)),
                            {k: tree[k] for k in base}, base)
        assert all(jax.tree.leaves(same))


@pytest.mark.parametrize("scheme", LEARNED_BIAS)
def test_gradient_reaches_every_learned_bias_parameter(scheme: str) -> None:
    params = _model(scheme, 1)
    tokens = np.random.default_rng(2).integers(0, 32, size=(2, 12)).astype(np.int32)
    pos = position_inputs(scheme, 12, d_model=32, n_heads=2)
    grads = jax.grad(loss_fn)(params, tokens, np.roll(tokens, 1, axis=1),
                              np.ones((2, 12), dtype=np.float32), pos, SMALL)
    found = {name: np.abs(np.asarray(g)) for name, g in grads[scheme].items()}
    if scheme == "fire":
        # b2 adds one constant to a whole row of scores, which the softmax ignores: its
        # gradient is zero but for rounding, far below the others
        assert found.pop("b2").max() < 1e-4 * min(g.max() for g in found.values())
    for name, g in found.items():
        assert np.all(np.isfinite(g)) and g.max() > 1e-6, name
    if scheme == "kerple":
        assert np.all(np.abs(np.asarray(grads[scheme]["r2"])) > 0)  # every head's r2


def test_the_learned_bias_changes_the_logits() -> None:
    tokens = np.random.default_rng(4).integers(0, 32, size=(1, 10)).astype(np.int32)
    for scheme in LEARNED_BIAS:
        params = _model(scheme, 5)
        plain = {k: v for k, v in params.items() if k != scheme}
        assert not np.allclose(_logits(params, tokens, scheme), _logits(plain, tokens, "nope"),
                               atol=1e-4), scheme


def test_bad_scheme_names_are_refused_with_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"scheme must be one of .*'fire', 'kerple'; got 'fires'"):
        train("fires", "copy_back", tcfg=TrainConfig(steps=2), progress=False)
    with pytest.raises(SystemExit):
        parse_args(["--cells", "copy_back/kerple_power"])
    assert parse_args(["--cells", "copy_back/fire", "--seeds", "0"]).cells == {
        ("copy_back", "fire", 0)}
    assert ALL_SCHEMES == SCHEMES + ("fire", "kerple")


def test_a_few_steps_of_training_move_the_bias_parameters() -> None:
    for scheme in LEARNED_BIAS:
        model = train(scheme, "copy_back", 0, tcfg=TrainConfig(steps=5, warmup=1),
                      progress=False)
        start = init_bias_params(scheme, jax.random.key(0), model.cfg.n_heads)[scheme]
        for name, value in model.params[scheme].items():
            assert not np.allclose(np.asarray(value), np.asarray(start[name])), (scheme, name)

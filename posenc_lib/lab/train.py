"""Training and evaluation of the lab's models: optax AdamW, seeded data, tqdm progress; the
compiled step, cached per configuration, takes the scheme as an argument.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_choice, check_float, check_int
from posenc_lib._extras import missing_extra

try:
    import jax
    import jax.numpy as jnp
    import optax
    from tqdm.auto import tqdm
except ModuleNotFoundError as error:
    raise missing_extra(__name__, "lab", error) from error

from posenc_lib.lab.learned_bias import init_bias_params
from posenc_lib.lab.model import ModelConfig, Params, forward, init_params, loss_fn
from posenc_lib.lab.schemes import ALL_SCHEMES, EXTENSIONS, position_inputs
from posenc_lib.lab.tasks import EVAL_TASKS, TASKS, Batch, make_batch

__all__ = ["TrainConfig", "Trained", "accuracy_by_position", "accuracy_read_with", "at_checkpoint",
           "attention_maps", "fine_tune", "train"]

_EVAL_SEED = 12345  # the evaluation sequences: the same for every model and method


@dataclass(frozen=True)
class TrainConfig:
    """How to train: steps, batch, length, AdamW's learning rate and weight decay."""

    steps: int = 800
    batch: int = 16
    length: int = 32
    lr: float = 3e-3
    weight_decay: float = 0.01
    warmup: int = 50

    def __post_init__(self) -> None:
        for name in ("steps", "batch", "length"):
            check_int(name, getattr(self, name))
        check_int("warmup", self.warmup, minimum=0)
        check_float("lr", self.lr, greater_than=0.0)
        check_float("weight_decay", self.weight_decay, at_least=0.0)


@dataclass
class Trained:
    """A trained model: parameters, configuration, losses, timings; a fine-tuned one keeps its
    first training's length and the extension (at ``factor``) every evaluation applies."""

    params: Params
    scheme: str
    task: str
    seed: int
    cfg: ModelConfig
    tcfg: TrainConfig
    losses: NDArray[np.float64] = field(repr=False)
    seconds: float = 0.0
    compile_seconds: float = 0.0
    extension: str = "none"
    factor: float = 1.0
    trained_length: int = 0
    checkpoints: dict[int, Params] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.trained_length = self.trained_length or self.tcfg.length


def _optimizer(tcfg: TrainConfig) -> optax.GradientTransformation:
    schedule = optax.warmup_cosine_decay_schedule(0.0, tcfg.lr, tcfg.warmup, tcfg.steps,
                                                  end_value=tcfg.lr / 10)
    return optax.chain(optax.clip_by_global_norm(1.0),
                       optax.adamw(schedule, weight_decay=tcfg.weight_decay))


@functools.lru_cache(maxsize=8)
def _step_function(cfg: ModelConfig, tcfg: TrainConfig) -> Callable[..., Any]:
    """One jitted AdamW step for this shape; the scheme's arrays are arguments."""
    optimizer = _optimizer(tcfg)

    @jax.jit
    def step(params: Params, opt_state: Any, tokens: jax.Array, targets: jax.Array,
             mask: jax.Array, pos: dict[str, jax.Array]) -> tuple[Params, Any, jax.Array]:
        loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets, mask, pos, cfg)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    return step


@functools.partial(jax.jit, static_argnums=3)
def _logits_and_maps(params: Params, tokens: jax.Array, pos: dict[str, jax.Array],
                     cfg: ModelConfig) -> tuple[jax.Array, list[jax.Array]]:
    return forward(params, tokens, pos, cfg)


def _inputs(model: Trained, length: int, extension: str = "none", factor: float = 1.0
            ) -> dict[str, Any]:
    return position_inputs(model.scheme, length, d_model=model.cfg.d_model,
                           n_heads=model.cfg.n_heads, extension=extension, factor=factor,
                           trained_length=model.trained_length)


def _fit(model: Trained, pos: dict[str, Any], data_seed: int, progress: bool, desc: str,
         keep: tuple[int, ...] = ()) -> Trained:
    """Train ``model.params`` for ``model.tcfg``; the loss is logged every 50 steps and last,
    and the parameters after each number of steps in ``keep`` go to ``checkpoints``."""
    cfg, tcfg = model.cfg, model.tcfg
    step = _step_function(cfg, tcfg)
    params, opt_state = model.params, _optimizer(tcfg).init(model.params)
    rng = np.random.default_rng([data_seed, tcfg.length, 1])
    losses = np.zeros(tcfg.steps)
    compile_seconds = 0.0
    checkpoints: dict[int, Params] = {}
    start = time.perf_counter()
    bar = tqdm(range(tcfg.steps), desc=desc, disable=not progress, leave=True, mininterval=0.5)
    for i in bar:
        batch = make_batch(model.task, rng, tcfg.batch, tcfg.length)
        params, opt_state, loss = step(params, opt_state, batch.tokens, batch.targets,
                                       batch.mask, pos)
        if i == 0:
            loss.block_until_ready()
            compile_seconds = time.perf_counter() - start
        losses[i] = float(loss) if (i % 50 == 0 or i == tcfg.steps - 1) else np.nan
        if i % 100 == 0:
            bar.set_postfix(loss=f"{losses[i]:.3f}")
        if i + 1 in keep:
            checkpoints[i + 1] = params
    jax.block_until_ready(params)
    return replace(model, params=params, losses=losses, seconds=time.perf_counter() - start,
                   compile_seconds=compile_seconds, checkpoints=checkpoints)


def _check_length(model_cfg: ModelConfig, length: int, minimum: int = 1) -> int:
    length = check_int("length", length, minimum=minimum)
    if length > model_cfg.max_len:
        raise ValueError(f"length must be <= cfg.max_len={model_cfg.max_len}; got {length}")
    return length


def train(scheme: str, task: str, seed: int = 0, *, tcfg: TrainConfig | None = None,
          cfg: ModelConfig | None = None, progress: bool = True) -> Trained:
    """Train one model on ``task`` with position ``scheme`` (sizes ``cfg``, default the lab's).
    AdamW, theta <- theta - eta_t (m_hat / (sqrt(v_hat) + eps) + lambda theta), with a linear
    warm-up then cosine decay of eta_t to lr/10, and gradients clipped to global norm 1.
    """
    check_choice("scheme", scheme, ALL_SCHEMES)
    check_choice("task", task, TASKS)
    seed = check_int("seed", seed, minimum=0)
    cfg, tcfg = cfg or ModelConfig(), tcfg or TrainConfig()
    if tcfg.length > cfg.max_len:
        raise ValueError(f"tcfg.length must be <= cfg.max_len={cfg.max_len}; got {tcfg.length}")
    key = jax.random.key(seed)
    params = init_params(key, cfg) | init_bias_params(scheme, key, cfg.n_heads)
    model = Trained(params, scheme, task, seed, cfg, tcfg, np.zeros(0))
    return _fit(model, _inputs(model, tcfg.length), seed, progress, f"{scheme} on {task}")


def fine_tune(model: Trained, extension: str, length: int, *, steps: int = 100,
              checkpoints: tuple[int, ...] = (), progress: bool = True) -> Trained:
    """Continue training a rotary model at ``length`` with a context extension (PI's recipe),
    or with ``extension="none"`` plainly at the new length (the control PI needs).
    PI (Chen et al., 2023) uses positions m / s, then fine-tunes for about 1000 steps; a few
    dozen to a few hundred steps suffice at this tiny scale.
    """
    if model.scheme not in ("rope", "p_rope"):
        raise ValueError(f"model.scheme must be 'rope' or 'p_rope'; got {model.scheme!r}")
    if model.extension != "none":
        raise ValueError(f"model must not be fine-tuned already; got extension "
                         f"{model.extension!r}")
    check_choice("extension", extension, EXTENSIONS)
    length = _check_length(model.cfg, length, minimum=model.tcfg.length)
    steps = check_int("steps", steps)
    keep = tuple(check_int("checkpoints", n) for n in checkpoints)
    if any(n > steps for n in keep):
        raise ValueError(f"checkpoints must be at most steps={steps}; got {keep}")
    tcfg = replace(model.tcfg, steps=steps, length=length, warmup=min(10, steps - 1))
    factor = length / model.trained_length  # s = L' / L
    tuned = replace(model, tcfg=tcfg, extension=extension, factor=factor)
    return _fit(tuned, _inputs(tuned, length, extension, factor), model.seed + 1000, progress,
                f"fine-tune {model.scheme} {extension} at {length}", keep)


def at_checkpoint(model: Trained, steps: int) -> Trained:
    """The model ``fine_tune`` kept after ``steps`` steps (its ``checkpoints``)."""
    if steps not in model.checkpoints:
        raise ValueError(f"steps must be one of the kept checkpoints "
                         f"{sorted(model.checkpoints)}; got {steps!r}")
    return replace(model, params=model.checkpoints[steps], checkpoints={})


def _extension_and_factor(model: Trained, extension: str | None, length: int
                          ) -> tuple[str, float]:
    """The model's own extension and factor after a fine-tune; otherwise ``extension`` at
    s = length / L."""
    if model.extension != "none":
        if extension not in (None, model.extension):
            raise ValueError(f"extension must be None or {model.extension!r} for a model "
                             f"fine-tuned with it (factor {model.factor:g}); got {extension!r}")
        return model.extension, model.factor
    extension = check_choice("extension", extension or "none", EXTENSIONS)
    return extension, max(length / model.trained_length, 1.0)


def _eval_batch(task: str, length: int, n_sequences: int) -> Batch:
    return make_batch(task, np.random.default_rng([_EVAL_SEED, length, 2]), n_sequences, length)


def _correct(model: Trained, batch: Batch, extension: str, factor: float, length: int
             ) -> NDArray[np.float64]:
    pos = _inputs(model, length, extension, factor)
    logits, _ = _logits_and_maps(model.params, batch.tokens[:, :length], pos, model.cfg)
    return np.asarray(jnp.argmax(logits, -1) == batch.targets[:, :length], dtype=np.float64)


def accuracy_by_position(model: Trained, length: int, *, extension: str | None = None,
                         task: str | None = None) -> NDArray[np.float64]:
    """Accuracy at every position of 64 fresh sequences of ``length`` tokens, shape (length,),
    NaN where the task scores no position.
    acc_t = sum_b m_bt [y_hat_bt = y_bt] / sum_b m_bt, with m the task's mask.
    """
    length = _check_length(model.cfg, length)
    extension, factor = _extension_and_factor(model, extension, length)
    batch = _eval_batch(check_choice("task", task or model.task, (*TASKS, *EVAL_TASKS)),
                        length, 64)
    correct = np.zeros(batch.mask.shape)
    start, end = 0, min(model.trained_length, length) if extension == "dynamic" else length
    while start < length:  # dynamic: windows [0, L), [L, 2L), [2L, 4L), ... one pass each
        correct[:, start:end] = _correct(model, batch, extension, factor, end)[:, start:end]
        start, end = end, min(2 * end, length)
    return _scored_mean(correct, batch.mask)


def _scored_mean(correct: NDArray[np.float64], mask: NDArray[Any]) -> NDArray[np.float64]:
    """acc_t = sum_b m_bt c_bt / sum_b m_bt, NaN where no sequence scores position t."""
    scored = mask.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(scored > 0, (correct * mask).sum(0) / scored, np.nan)


def accuracy_read_with(model: Trained, pos: dict[str, Any], length: int) -> NDArray[np.float64]:
    """Accuracy at every position of the 64 evaluation sequences of ``length`` tokens, the model
    read with the position inputs ``pos`` as given (made by
    :func:`posenc_lib.lab.schemes.position_inputs`, then changed: another offset or precision).

    Parameters
    ----------
    model : Trained
        The model to read.
    pos : dict
        Its position inputs for ``length`` tokens.
    length : int
        The sequences' length, the one ``pos`` was made for.

    Returns
    -------
    ndarray, shape (length,)
        acc_t as :func:`accuracy_by_position` defines it, NaN where the task scores nothing.
    """
    batch = _eval_batch(model.task, length, 64)
    logits, _ = _logits_and_maps(model.params, batch.tokens, pos, model.cfg)
    correct = np.asarray(jnp.argmax(logits, -1) == batch.targets, dtype=np.float64)
    return _scored_mean(correct, batch.mask)


def attention_maps(model: Trained, length: int) -> NDArray[np.float64]:
    """Attention weights of every layer and head, averaged over 8 fresh sequences.

    Parameters are those of :func:`accuracy_by_position`.

    Returns
    -------
    ndarray, shape (n_layers, n_heads, length, length)
        Row i is the distribution of query i over keys j <= i.
    """
    length = _check_length(model.cfg, length)
    extension, factor = _extension_and_factor(model, None, length)
    batch = _eval_batch(model.task, length, 8)
    pos = _inputs(model, length, extension, factor)
    _, maps = _logits_and_maps(model.params, batch.tokens, pos, model.cfg)
    return np.stack([np.asarray(m, dtype=np.float64).mean(0) for m in maps])

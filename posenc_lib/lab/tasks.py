"""Synthetic tasks for the lab, generated on the fly from a seeded NumPy generator.

Each gives ``tokens``, ``targets`` (the output due at each position) and ``mask`` (1 where a
target is scored), over one shared vocabulary, so one model shape serves them all.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_choice, check_int

__all__ = ["EVAL_TASKS", "TASKS", "Batch", "make_batch",
           "match_statistics"]

_VOCAB_SIZE = 32
COPY_OFFSET = 5  # copy_back: the target at t is the token at t - COPY_OFFSET
_N_PAIRS = 8  # assoc_recall: key-value pairs in the dictionary prefix
_N_KEYS = 16  # assoc_recall: keys are tokens 0..15, values are tokens 16..31
_INDUCTION_VOCAB = 16  # induction: tokens 0..15, so most tokens repeat within 32 positions
_NEAR_GAP = 31  # induction_near: scored only where the last earlier copy is at most 31 back
_PAIRS_EVERY = 6  # induction_once: one key pair per 6 positions, at most _INDUCTION_VOCAB pairs


class Batch(NamedTuple):
    """One batch of a task; every array has shape (batch, length)."""

    tokens: NDArray[np.int32]
    targets: NDArray[np.int32]
    mask: NDArray[np.float32]


def _batch(tokens: NDArray[Any], targets: NDArray[Any], mask: NDArray[Any]) -> Batch:
    return Batch(tokens.astype(np.int32), targets.astype(np.int32), mask.astype(np.float32))


def _copy_back(rng: np.random.Generator, batch: int, length: int) -> Batch:
    tokens = rng.integers(0, _VOCAB_SIZE, size=(batch, length))  # (B, T)
    targets = np.zeros_like(tokens)
    targets[:, COPY_OFFSET:] = tokens[:, :-COPY_OFFSET]  # y_t = x_{t-k}
    mask = np.zeros((batch, length))
    mask[:, COPY_OFFSET:] = 1.0
    return _batch(tokens, targets, mask)


def _assoc_recall(rng: np.random.Generator, batch: int, length: int) -> Batch:
    prefix = 2 * _N_PAIRS
    keys = np.argsort(rng.random((batch, _N_KEYS)), axis=1)[:, :_N_PAIRS]  # (B, P) distinct keys
    values = rng.integers(_N_KEYS, _VOCAB_SIZE, size=(batch, _N_PAIRS))  # (B, P)
    which = rng.integers(0, _N_PAIRS, size=(batch, length - prefix))  # (B, T - 2P)
    rows = np.arange(batch)[:, None]
    tokens = np.zeros((batch, length), dtype=np.int64)
    tokens[:, 0:prefix:2], tokens[:, 1:prefix:2] = keys, values
    tokens[:, prefix:] = keys[rows, which]
    targets = np.zeros_like(tokens)
    targets[:, prefix:] = values[rows, which]  # y_t = v(x_t)
    mask = np.zeros((batch, length))
    mask[:, prefix:] = 1.0
    return _batch(tokens, targets, mask)


def _induction(rng: np.random.Generator, batch: int, length: int,
               max_gap: int | None = None) -> Batch:
    """With ``max_gap``, only positions whose last earlier copy is at most ``max_gap`` back are
    scored; the tokens are the same."""
    tokens = rng.integers(0, _INDUCTION_VOCAB, size=(batch, length))  # (B, T)
    last = np.full((batch, _INDUCTION_VOCAB), -1)  # (B, V) last position of each token so far
    targets = np.zeros_like(tokens)
    mask = np.zeros((batch, length))
    rows = np.arange(batch)
    for t in range(length):
        seen = last[rows, tokens[:, t]]  # (B,) previous position j of x_t, or -1
        targets[:, t] = np.where(seen >= 0, tokens[rows, np.minimum(seen + 1, t)], 0)  # x_{j+1}
        near = t - seen <= (length if max_gap is None else max_gap)
        mask[:, t] = (seen >= 0) & near
        last[rows, tokens[:, t]] = t
    return _batch(tokens, targets, mask)


def _place_pairs(rng: np.random.Generator, length: int, n_pairs: int
                 ) -> list[tuple[int, int]]:
    """Positions (a, b) of each key's two occurrences: a + 1 < b, all 3 n_pairs slots distinct
    (a, its value slot a + 1, and b)."""
    free = np.ones(length, dtype=bool)
    pairs = []
    for _ in range(n_pairs):
        starts = np.flatnonzero(free[:-2] & free[1:-1] & (np.cumsum(free[::-1])[::-1][2:] >= 1))
        if starts.size == 0:
            break
        a = int(rng.choice(starts))
        b = int(rng.choice(np.flatnonzero(free[a + 2:]))) + a + 2
        free[[a, a + 1, b]] = False
        pairs.append((a, b))
    return pairs


def _induction_once(rng: np.random.Generator, batch: int, length: int) -> Batch:
    """Induction in which every scored token has exactly one earlier copy, at every length:
    filler tokens 16..31 are never scored; key tokens 0..15 occur twice each."""
    tokens = rng.integers(_INDUCTION_VOCAB, _VOCAB_SIZE, size=(batch, length))  # (B, T) filler
    targets = np.zeros_like(tokens)
    mask = np.zeros((batch, length))
    n_pairs = min(_INDUCTION_VOCAB, max(1, length // _PAIRS_EVERY))
    for row in range(batch):
        keys = rng.permutation(_INDUCTION_VOCAB)
        for key, (a, b) in zip(keys, _place_pairs(rng, length, n_pairs), strict=False):
            tokens[row, a] = tokens[row, b] = key
            targets[row, b], mask[row, b] = tokens[row, a + 1], 1.0  # y_b = x_{a+1}
    return _batch(tokens, targets, mask)


Generator = Callable[[np.random.Generator, int, int], Batch]
TASKS: dict[str, Generator] = {
    "copy_back": _copy_back,
    "assoc_recall": _assoc_recall,
    "induction": _induction,
    "induction_once": _induction_once,
}
# Tasks that only evaluate models trained on another task: induction_near tests a model
# trained on induction on inputs whose matches never lie farther back than in training.
EVAL_TASKS: dict[str, tuple[str, Generator]] = {
    "induction_near": ("induction", functools.partial(_induction, max_gap=_NEAR_GAP)),
}
_MIN_LENGTH = {"copy_back": COPY_OFFSET + 1, "assoc_recall": 2 * _N_PAIRS + 1}  # else 2


def make_batch(task: str, rng: np.random.Generator, batch: int, length: int) -> Batch:
    """Draw one batch of ``task``: int32 ``tokens``, ``targets`` and float32 ``mask``, each
    of shape (batch, length).
    copy_back: y_t = x_{t-5} for t >= 5. assoc_recall: y_t = v(x_t) for t >= 16. induction:
    y_t = x_{j+1} with j = max{j < t : x_j = x_t} when such a j exists.
    """
    task = check_choice("task", task, (*TASKS, *EVAL_TASKS))
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
    batch = check_int("batch", batch)
    length = check_int("length", length, minimum=_MIN_LENGTH.get(task, 2))
    generate = TASKS[task] if task in TASKS else EVAL_TASKS[task][1]
    return generate(rng, batch, length)


def match_statistics(task: str, length: int, *, far: int = 32, n_sequences: int = 256,
                     seed: int = 0) -> dict[str, float]:
    """How far back the last earlier copy of each scored token is, and how many copies there are.
    copies = mean_t |{j < t : x_j = x_t}|; for induction on 16 uniform tokens the share of
    far matches is (15/16)^(far - 1) at large t.
    """
    batch = make_batch(task, np.random.default_rng(seed), n_sequences, length)
    x, t = batch.tokens, np.arange(length)
    earlier = (x[:, :, None] == x[:, None, :]) & (t[None, :] < t[:, None])[None]  # x_j = x_t, j < t
    copies = earlier.sum(-1)  # (B, T)
    last = np.where(earlier, t[None, None, :], -1).max(-1)  # (B, T) last j
    scored = batch.mask > 0
    late = scored & (last >= 0) & (t[None, :] >= far)
    share = float(np.mean((t[None, :] - last)[late] >= far)) if late.any() else float("nan")
    return {"far_share": share, "copies": float(copies[scored].mean())}

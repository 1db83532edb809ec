"""Synthetic tasks for the lab, generated on the fly from a seeded NumPy generator.

Every task gives next-token style data for a causal model: ``tokens`` (the input), ``targets``
(what the model must output at each position) and ``mask`` (1 where a target is scored). All
tasks share one vocabulary of :data:`VOCAB_SIZE` tokens, so one model shape serves them all.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_choice, check_int

__all__ = ["TASKS", "VOCAB_SIZE", "Batch", "make_batch", "min_length"]

VOCAB_SIZE = 32
COPY_OFFSET = 5  # copy_back: the target at t is the token at t - COPY_OFFSET
N_PAIRS = 8  # assoc_recall: key-value pairs in the dictionary prefix
N_KEYS = 16  # assoc_recall: keys are tokens 0..15, values are tokens 16..31
INDUCTION_VOCAB = 16  # induction: tokens 0..15, so most tokens repeat within 32 positions


class Batch(NamedTuple):
    """One batch of a task; every array has shape (batch, length)."""

    tokens: NDArray[np.int32]
    targets: NDArray[np.int32]
    mask: NDArray[np.float32]


def _copy_back(rng: np.random.Generator, batch: int, length: int) -> Batch:
    """Random tokens; the target at position t is the token COPY_OFFSET positions back."""
    tokens = rng.integers(0, VOCAB_SIZE, size=(batch, length))  # (B, T)
    targets = np.zeros_like(tokens)
    targets[:, COPY_OFFSET:] = tokens[:, :-COPY_OFFSET]  # y_t = x_{t-k}
    mask = np.zeros((batch, length))
    mask[:, COPY_OFFSET:] = 1.0
    return Batch(tokens.astype(np.int32), targets.astype(np.int32), mask.astype(np.float32))


def _assoc_recall(rng: np.random.Generator, batch: int, length: int) -> Batch:
    """A prefix k1 v1 ... k8 v8 defines a dictionary; each later key must output its value."""
    prefix = 2 * N_PAIRS
    keys = np.argsort(rng.random((batch, N_KEYS)), axis=1)[:, :N_PAIRS]  # (B, P) distinct keys
    values = rng.integers(N_KEYS, VOCAB_SIZE, size=(batch, N_PAIRS))  # (B, P)
    which = rng.integers(0, N_PAIRS, size=(batch, length - prefix))  # (B, T - 2P)
    rows = np.arange(batch)[:, None]
    tokens = np.zeros((batch, length), dtype=np.int64)
    tokens[:, 0:prefix:2], tokens[:, 1:prefix:2] = keys, values
    tokens[:, prefix:] = keys[rows, which]
    targets = np.zeros_like(tokens)
    targets[:, prefix:] = values[rows, which]
    mask = np.zeros((batch, length))
    mask[:, prefix:] = 1.0
    return Batch(tokens.astype(np.int32), targets.astype(np.int32), mask.astype(np.float32))


def _induction(rng: np.random.Generator, batch: int, length: int) -> Batch:
    """Random tokens; at a repeated token, the target is what followed its last occurrence."""
    tokens = rng.integers(0, INDUCTION_VOCAB, size=(batch, length))  # (B, T)
    last = np.full((batch, INDUCTION_VOCAB), -1)  # (B, V) last position of each token so far
    targets = np.zeros_like(tokens)
    mask = np.zeros((batch, length))
    rows = np.arange(batch)
    for t in range(length):
        seen = last[rows, tokens[:, t]]  # (B,) previous position of x_t, or -1
        follow = np.minimum(seen + 1, t)
        targets[:, t] = np.where(seen >= 0, tokens[rows, follow], 0)
        mask[:, t] = seen >= 0
        last[rows, tokens[:, t]] = t
    return Batch(tokens.astype(np.int32), targets.astype(np.int32), mask.astype(np.float32))


TASKS: dict[str, Callable[[np.random.Generator, int, int], Batch]] = {
    "copy_back": _copy_back,
    "assoc_recall": _assoc_recall,
    "induction": _induction,
}


def min_length(task: str) -> int:
    """The shortest sequence ``task`` can make (one scored position at least)."""
    task = check_choice("task", task, TASKS)
    return {"copy_back": COPY_OFFSET + 1, "assoc_recall": 2 * N_PAIRS + 1, "induction": 2}[task]


def make_batch(task: str, rng: np.random.Generator, batch: int, length: int) -> Batch:
    """Draw one batch of ``task``.

    Parameters
    ----------
    task : {"copy_back", "assoc_recall", "induction"}
        ``copy_back``: output the token 5 positions back (a fixed *relative* offset).
        ``assoc_recall``: a prefix of 8 key-value pairs, then keys whose values must be
        recalled from the prefix (*long range*: the distance grows with the length).
        ``induction``: at a token seen before, output the token that followed its last
        occurrence (content search plus the relative offset +1).
    rng : numpy.random.Generator
        The source of randomness (seed it for reproducible batches).
    batch : int
        Number of sequences, >= 1.
    length : int
        Tokens per sequence, at least :func:`min_length` of the task.

    Returns
    -------
    Batch
        ``tokens``, ``targets`` (int32) and ``mask`` (float32), each of shape (batch, length).

    Notes
    -----
    copy_back: :math:`y_t = x_{t-5}` for :math:`t \\ge 5`. assoc_recall: :math:`y_t = v(x_t)`
    for :math:`t \\ge 16`. induction: :math:`y_t = x_{j+1}` with
    :math:`j = \\max\\{j < t : x_j = x_t\\}` when such a j exists.

    Examples
    --------
    >>> b = make_batch("copy_back", np.random.default_rng(0), 2, 8)
    >>> bool((b.targets[:, 5:] == b.tokens[:, :3]).all()), b.mask[0].tolist()
    (True, [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    """
    task = check_choice("task", task, TASKS)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
    batch = check_int("batch", batch)
    length = check_int("length", length, minimum=min_length(task))
    return TASKS[task](rng, batch, length)

"""RoPE's relative promise under rounding, in trained models: the evaluation sequence moved.

A RoPE model's scores depend only on j - i, so in exact arithmetic starting the evaluation
sequence at position o changes nothing. In floating point it does: the angles m theta_i are
computed in float32 (as engines do) or float64, and the rotation applied in float32 or
bfloat16. Every RoPE model of the grid's seeds is trained again (the same seeded run, so the
same parameters) and read at its trained length at each offset. ``make experiments`` runs it
after the grid; ``python -m posenc_lib.lab.experiments --offsets`` runs it alone.

Notebook: 08_numerical_precision.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_choice, check_int
from posenc_lib.lab import train as training
from posenc_lib.lab.results import write_json
from posenc_lib.lab.schemes import ANGLE_DTYPES, position_inputs
from posenc_lib.lab.tasks import TASKS

__all__ = ["OFFSETS", "ROTATION_DTYPES", "VARIANTS", "accuracy_at_offset", "offset_job",
           "run_offsets", "variant_name", "write_offsets"]

# 0, then 10^3 .. 10^8, denser from 10^6 and around 2^24 = 16,777,216 (float32's last exact
# integer: past it float32 rounds the positions themselves)
OFFSETS = (0, 10**3, 10**4, 10**5, 10**6, 2 * 10**6, 5 * 10**6, 10**7, 16 * 10**6, 2 * 10**7,
           3 * 10**7, 5 * 10**7, 10**8)
ROTATION_DTYPES = ("float32", "bfloat16")
_ROTATION_TYPES = {"float32": np.float32, "bfloat16": ml_dtypes.bfloat16}
_SCHEME = "rope"


def variant_name(angle_dtype: str, rotation_dtype: str) -> str:
    """The results' name of one precision variant, e.g. ``"float32_angles_bfloat16_rotation"``."""
    angle_dtype = check_choice("angle_dtype", angle_dtype, ANGLE_DTYPES)
    rotation_dtype = check_choice("rotation_dtype", rotation_dtype, ROTATION_DTYPES)
    return f"{angle_dtype}_angles_{rotation_dtype}_rotation"


VARIANTS = {variant_name(a, r): (a, r) for a in ("float32", "float64") for r in ROTATION_DTYPES}


def accuracy_at_offset(model: training.Trained, offset: int, *, angle_dtype: str = "float64",
                       rotation_dtype: str = "float32") -> NDArray[np.float64]:
    """Accuracy at every position of the 64 evaluation sequences of the trained length, moved
    to start at position ``offset``.

    Parameters
    ----------
    model : Trained
        A RoPE or p-RoPE model, not fine-tuned.
    offset : int
        The first position, at least 0; positions are offset, ..., offset + L - 1.
    angle_dtype : {"float64", "float32"}
        The format of m theta_i; cos and sin are then taken of its value and rounded to float32.
    rotation_dtype : {"float32", "bfloat16"}
        The format of the rotation: bfloat16 casts q, k, cos and sin to bfloat16 and rotates
        in it, then the scores are computed in float32.

    Returns
    -------
    ndarray, shape (L,)
        acc_t as :func:`posenc_lib.lab.train.accuracy_by_position` defines it (NaN where the task
        scores nothing); offset 0 with the defaults gives exactly its values.
    """
    if not isinstance(model, training.Trained) or model.scheme not in ("rope", "p_rope"):
        raise ValueError(f"model must be a trained 'rope' or 'p_rope' model; got "
                         f"{getattr(model, 'scheme', type(model).__name__)!r}")
    if model.extension != "none":
        raise ValueError(f"model must not be fine-tuned; got extension {model.extension!r}")
    rotation = _ROTATION_TYPES[check_choice("rotation_dtype", rotation_dtype, ROTATION_DTYPES)]
    length = model.trained_length
    pos: dict[str, Any] = position_inputs(model.scheme, length, d_model=model.cfg.d_model,
                                          n_heads=model.cfg.n_heads, offset=offset,
                                          angle_dtype=angle_dtype)
    pos["cos"], pos["sin"] = pos["cos"].astype(rotation), pos["sin"].astype(rotation)
    return training.accuracy_read_with(model, pos, length)


def offset_job(job: tuple[str, int, training.TrainConfig]) -> tuple[dict[str, Any],
                                                                    dict[str, Any]]:
    """Train one RoPE model (task, seed, training config) and read it at every offset and
    variant: ``{"task/variant/seed": [accuracy at each offset]}`` and the timing."""
    task, seed, tcfg = job
    start = time.perf_counter()
    model = training.train(_SCHEME, task, seed, tcfg=tcfg, progress=False)
    found = {f"{task}/{name}/{seed}": [
        round(float(np.nanmean(accuracy_at_offset(model, offset, angle_dtype=angle,
                                                  rotation_dtype=rotation))), 4)
        for offset in OFFSETS] for name, (angle, rotation) in VARIANTS.items()}
    return found, {"task": task, "seed": seed, "train": model.seconds,
                   "total": time.perf_counter() - start}


def run_offsets(seeds: Iterable[int], tcfg: training.TrainConfig,
                run: Callable[..., Iterator[Any]] = map) -> tuple[dict[str, Any], list[Any]]:
    """Every task's RoPE models at ``seeds``, each read at every offset and variant; ``run``
    maps :func:`offset_job` over the jobs (the grid's executor). Returns entries and timings."""
    jobs = [(task, check_int("seeds", seed, minimum=0), tcfg) for task in TASKS for seed in seeds]
    entries: dict[str, Any] = {}
    timings = []
    for found, timing in run(offset_job, jobs):
        entries.update(found)
        timings.append(timing)
    return entries, timings


def write_offsets(entries: dict[str, Any], seeds: Iterable[int], tcfg: training.TrainConfig,
                  out: Path) -> None:
    """Write ``lab_offsets.json`` into ``out``: the setup, then the entries."""
    setup = {"train": vars(tcfg), "seeds": list(seeds), "scheme": _SCHEME, "tasks": list(TASKS),
             "offsets": list(OFFSETS), "evaluated_at": "trained length (1x), 64 sequences",
             "variants": {name: {"angles": a, "rotation": r}
                          for name, (a, r) in VARIANTS.items()},
             "cos_sin": "of the float64 value of the angle, then rounded to float32 (and to "
                        "bfloat16 for a bfloat16 rotation)"}
    write_json(out / "lab_offsets.json", {"setup": setup, "offsets": entries}, indent=1)

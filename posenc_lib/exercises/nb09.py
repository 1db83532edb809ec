"""Exercises on RoPE in today's models: what a config's scaling does to the slow pairs, partial
rotary against p-RoPE, MLA's cache, M-RoPE's positions for an image, and which caches survive a
growing text.

Notebook: 09_rope_in_todays_models.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.exercises import _steps09 as steps  # the build steps: nb09.steps.<name>
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.frequencies import inverse_frequencies, turns_in_context
from posenc_lib.models import rope_frequencies_from_config
from posenc_lib.presets import PRESETS
from posenc_lib.rope_variants import (
    p_rope_frequencies,
    partial_rotary_dims,
)

__all__ = ["steps", "cache_survives", "llama31_slow_pairs", "mla_cache", "mrope_positions",
           "partial_vs_p_rope"]

_SLOW: dict[str, Any] = {"model": "llama-3.1-8b", "name": "Llama 3.1 8B", "head": 128,
                         "turns": 1, "turn": "one turn", "line": "one-turn"}
"""09.llama31_slow_pairs: the model (a preset with a llama3 scaling), its head size, and the number
of turns the pairs are counted under, in words."""


def _slow(inv_freq: NDArray[np.float64], length: int = 8192) -> int:
    return int(np.count_nonzero(turns_in_context(inv_freq, length) < _SLOW["turns"]))


def _scaled_slow(length: int = 8192) -> int:
    return _slow(rope_frequencies_from_config(PRESETS[_SLOW["model"]])[0], length)


def _plain_slow(length: int = 8192) -> int:
    return _slow(inverse_frequencies(_SLOW["head"], PRESETS[_SLOW["model"]]["rope_theta"]),
                 length)


llama31_slow_pairs = Exercise(
    key="09.llama31_slow_pairs", answer_name="pushed_below", level="warm-up", kind="derivation",
    minutes=10, params=_SLOW,
    mistakes=(
        Mistake("the count with the scaling alone; the question asks how many more than without it",
                _scaled_slow),
        Mistake("thinking the llama3 scaling only divides pairs that were already slow (its "
                "middle band is interpolated too, and some of those pairs drop below {turn})",
                lambda: 0),
        Mistake("counting at max_position_embeddings = 131072 instead of the original L = 8192",
                lambda: _scaled_slow(131072) - _plain_slow(131072)),
    ),
)

_D, _BASE = 64, 10000.0
_PARTIAL: dict[str, Any] = {"p": 0.25, "stopped": "3/4", "dims": 16, "pairs": 8}
"""09.partial_vs_p_rope: p, the share of the head it stops, and the dims p * d and pairs
p * d / 2 it keeps (a graded release may pose another p, at most 1/2: ``use``)."""


def _partial_row(head_dim: int = _D, p: float | None = None) -> NDArray[np.float64]:
    p = _PARTIAL["p"] if p is None else p
    rotated = int(partial_rotary_dims(head_dim, p).sum())
    still = np.zeros((head_dim - rotated) // 2)
    return np.concatenate([inverse_frequencies(rotated, _BASE), still])


partial_vs_p_rope = Exercise(
    key="09.partial_vs_p_rope", answer_name="two_ways", level="core", kind="construction",
    minutes=15, params=_PARTIAL,
    mistakes=(
        Mistake("the rows swapped (row 0 is partial rotary, row 1 p-RoPE)",
                lambda right: np.asarray(right)[::-1], from_answer=True),
        Mistake("partial rotary without respacing: its r rotating dims use base**(-2i/r), not "
                "base**(-2i/d)",
                lambda: np.stack([p_rope_frequencies(_D, _PARTIAL["p"], _BASE)] * 2)),
        Mistake("keeping p * d = {dims} pairs instead of p * d / 2 = {pairs} (p counts dims, a "
                "pair has two)",
                lambda: np.stack([_partial_row(_D, 2 * _PARTIAL["p"]),
                                  p_rope_frequencies(_D, 2 * _PARTIAL["p"], _BASE)])),
        Mistake("keeping the slowest pairs in p-RoPE (it drops the low frequencies)",
                lambda: np.stack([_partial_row(),
                                  np.where(np.arange(32) >= 32 - _PARTIAL["pairs"],
                                           inverse_frequencies(_D), 0.0)])),
    ),
    shortcuts=(
        Shortcut("the library's p_rope_frequencies",
                 r"\bp_rope_frequencies\b", "row = p_rope_frequencies(64, 0.25, 10000.0)"),
        Shortcut("rope_frequencies_from_config (build the frequencies from the definitions)",
                 r"\brope_frequencies_from_config\b", "inv, _ = rope_frequencies_from_config(cfg)"),
    ),
)

_V3 = PRESETS["deepseek-v3"]
_KEYS: dict[str, Any] = {"group": 1, "who": "head", "count": "num_attention_heads"}
"""09.mla_cache: how many heads would share each rotary key, and how the hint says it (a graded
release may pose groups of heads: ``use``)."""

mla_cache = Exercise(
    key="09.mla_cache", answer_name="per_token", level="core", kind="derivation", minutes=10,
    params=_KEYS,
    mistakes=(
        Mistake("the shared rotary key (one k^R for all heads, what DeepSeek does)",
                lambda: _V3["kv_lora_rank"] + _V3["qk_rope_head_dim"]),
        Mistake("forgetting the latent c_kv",
                lambda: _V3["num_attention_heads"] // _KEYS["group"] * _V3["qk_rope_head_dim"]),
        Mistake("full multi-head keys and values (what MLA avoids)",
                lambda: _V3["num_attention_heads"]
                * (_V3["qk_nope_head_dim"] + _V3["qk_rope_head_dim"] + _V3["v_head_dim"])),
    ),
)

_MROPE = {"before": 3, "rows": 3, "cols": 2, "after": 2}
"""09.mrope_positions: text tokens before the image, its rows and columns of patches, text tokens
after it."""


def _mistaken(right: NDArray[np.int64], *, resume: int | None = None, swap: bool = False,
              image_t_counts: bool = False) -> NDArray[np.int64]:
    """The right (t, h, w) positions ``right`` with one of a learner's mistakes: the text after
    the image resuming at ``resume``, rows and columns swapped, or t counting over the image."""
    ids = np.array(right, dtype=np.int64)
    before, patches = _MROPE["before"], _MROPE["rows"] * _MROPE["cols"]
    image = slice(before, before + patches)
    if swap:
        ids[1:, image] = ids[2:0:-1, image]
    if image_t_counts:
        ids[0, image] = np.arange(image.start, image.stop)
    if resume is not None:
        ids[:, image.stop:] = resume + np.arange(_MROPE["after"])
    return ids


mrope_positions = Exercise(
    key="09.mrope_positions", answer_name="mrope_ids", level="core", kind="prediction", minutes=10,
    params=_MROPE,
    mistakes=(
        Mistake("the text after the image resuming at its token index ({before} + {rows} x "
                "{cols}); M-RoPE resumes one past the largest position used, so an image costs "
                "few positions",
                lambda right: _mistaken(
                    right, resume=_MROPE["before"] + _MROPE["rows"] * _MROPE["cols"]),
                from_answer=True),
        Mistake("rows and columns swapped: h follows the row ({rows} rows), w the column ({cols} "
                "columns)",
                lambda right: _mistaken(right, swap=True), from_answer=True),
        Mistake("t counting up over the image like text; a still image has one time step",
                lambda right: _mistaken(right, image_t_counts=True), from_answer=True),
    ),
    shortcuts=(
        Shortcut("code that computes it (a prediction is typed before anything runs)",
                 r"\b(?:mrope_image_positions|mrope_axes|arange|repeat|tile)\b",
                 "mrope_ids = mrope_image_positions(3, 3, 2, 2)"),
    ),
)

_STALE: dict[str, Any] = {"models": tuple(PRESETS)}
"""09.cache_survives: the presets the question asks about, all of them (a graded release may ask
about some: ``use``)."""


cache_survives = Exercise(
    key="09.cache_survives", answer_name="stale_cache", level="challenge", kind="explanation",
    minutes=15, params=_STALE,
    mistakes=(
        Mistake("every model with a rope_scaling: a static scaling (PI, YaRN, llama3) fixes the "
                "frequencies once, so its cache stays valid",
                lambda: {name for name in _STALE["models"] if PRESETS[name].get("rope_scaling")}),
        Mistake("no model at all: LongRoPE switches factors past original_max_position_embeddings",
                lambda: set()),
    ),
)

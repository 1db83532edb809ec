"""Exercises on context extension: YaRN's ramp, Llama 3's bands, dynamic NTK and the KV cache.

Notebook: 06_context_extension.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib.exercises import _steps06 as steps  # the build steps: nb06.steps.<name>
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.exercises._data import HIDDEN_DATA
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.scaling import (
    llama3_inv_freq,
    rope_frequencies,
    yarn_correction_range,
    yarn_inv_freq,
)  # fmt: skip

__all__ = ["steps", "dynamic_cache", "hidden_llama3_frequencies", "llama3_bands",
           "mystery_frequencies", "ramp_bounds", "which_scaling", "yarn_ratios"]

_LIBRARY_YARN = (
    r"\b(yarn_correction_range|yarn_ramp|yarn_inv_freq|rope_frequencies\w*|"
    r"method_frequency_ratios|method_frequencies|frequency_ratio|method_rope_scaling)\b"
)
_YARN_CALLS = _LIBRARY_YARN + r"|\b(my_yarn|yarn_by_me|my_pi|pi_by_me|my_ntk|ntk_by_me)\b"
"""The library's YaRN and the build steps' functions (06.yarn_ratios allows the latter: they
round the ramp's bounds, which its head does not)."""

_LONGER = {"times": 4, "L": 4 * 4096}
"""06.ramp_bounds: the head is trained ``times`` times longer than the running example's 4096, L
tokens."""
_STRETCH = 8.0  # the running example's s, which plays no part

ramp_bounds = Exercise(
    key="06.ramp_bounds", answer_name="ramp_bounds", level="warm-up", kind="prediction", minutes=8,
    params=_LONGER,
    mistakes=(
        Mistake("the ramp of L = 4096 (the ramp moves to slower pairs when L grows)",
                lambda: np.array(yarn_correction_range(128, 10000.0, 4096))),
        Mistake("moving the ramp the wrong way (a longer L gives more turns to every pair)",
                lambda: np.array(yarn_correction_range(128, 10000.0, 4096 // _LONGER["times"]))),
        Mistake("the pair indices not rounded outward (floor for low, ceil for high)",
                lambda: np.array(
                    yarn_correction_range(128, 10000.0, _LONGER["L"], truncate=False))),
        Mistake("the target length L' = sL put in place of L: r counts the turns within the "
                "trained length, so the ramp depends on L and not on the stretch",
                lambda: np.array(
                    yarn_correction_range(128, 10000.0, int(_LONGER["L"] * _STRETCH)))),
    ),
    shortcuts=(
        Shortcut("YaRN's functions of posenc_lib (predict first, the cell after the check "
                 "computes it)", _YARN_CALLS,
                 "ramp_bounds = yarn_correction_range(128, 10000.0, 16384)"),
    ),
)

_YARN_HEAD: dict[str, Any] = {"head": "gpt-oss's", "d": 64, "base": 150000, "L": 4096, "s": 32}
"""06.yarn_ratios: gpt-oss-20b's head (truncate false), or another a graded release poses."""


def _yarn_head_ratio(scaled: Any, *ramp: float) -> NDArray[np.float64]:
    """theta'_i / theta_i of the posed head, scaled by ``scaled(d, base, s, *ramp, L)``."""
    d, base, s, length = (_YARN_HEAD[k] for k in ("d", "base", "s", "L"))
    theta = inverse_frequencies(d, float(base))
    return np.asarray(scaled(d, float(base), float(s), *ramp, length) / theta)


yarn_ratios = Exercise(
    key="06.yarn_ratios", answer_name="yarn_ratio", level="core", kind="derivation", minutes=15,
    params=_YARN_HEAD,
    mistakes=(
        Mistake("every pair divided by s: that is PI, not YaRN",
                lambda: np.full(_YARN_HEAD["d"] // 2, 1 / _YARN_HEAD["s"])),
        Mistake("the ramp's bounds rounded outward (floor for the start, ceil for the end): "
                "that is the default, truncate true; this config sets truncate false",
                lambda: _yarn_head_ratio(yarn_inv_freq)),
        Mistake("the ramp applied backwards: fast pairs interpolated, slow pairs kept",
                lambda right: 1 + 1 / _YARN_HEAD["s"] - right, from_answer=True),
        Mistake("the YaRN paper's ramp (its Eq. 18: linear in the turn count r from alpha = 1 to "
                "beta = 32). rope_type 'yarn' in transformers and in gpt-oss's own code ramps "
                "linearly in the pair index i instead",
                lambda: _yarn_head_ratio(llama3_inv_freq, 1.0, 32.0)),
    ),
    shortcuts=(
        Shortcut("the scaling functions of posenc_lib", _LIBRARY_YARN,
                 "yarn_ratio = yarn_inv_freq(64, 150000.0, 32.0, 4096, truncate=False) / theta"),
    ),
)

_BANDS: dict[str, Any] = {"d": 64, "base": 500000, "L": 8192,
                          "frequencies": tuple(HIDDEN_DATA["06.llama3_bands"])}
"""06.llama3_bands: the head size, base and original length the prompt states, and the scaled
frequencies the learner reads the bands from (a graded release may pose others: ``use``, with
the frequencies its hidden bands make)."""


def hidden_llama3_frequencies() -> NDArray[np.float64]:
    """Llama 3-scaled frequencies of a head whose factor and bands are not shown.

    Returns theta'_i, shape (d/2,), of a head with d = 64, base 500000 and
    original_max_position_embeddings 8192 (or the values a graded release poses); exercise
    06.llama3_bands asks for the factors. The numbers are stored (posenc_lib.exercises._data):
    the package holds no factor.
    """
    return np.array(_BANDS["frequencies"])


llama3_bands = Exercise(
    key="06.llama3_bands", answer_name="bands", level="core", kind="derivation", minutes=15,
    rtol=1e-4, params=_BANDS,
    mistakes=(
        Mistake("the wavelength edges L / high_freq_factor and L / low_freq_factor given instead "
                "of the two factors, which are turn counts",
                lambda right: np.array([right[0], _BANDS["L"] / right[2],
                                        _BANDS["L"] / right[1]]),
                from_answer=True),
        Mistake("low_freq_factor and high_freq_factor swapped: the low one is the smaller turn "
                "count, where the blend reaches the slow pairs (g = 0)",
                lambda right: right[[0, 2, 1]], from_answer=True),
        Mistake("the smallest ratio 1/factor given as the factor",
                lambda right: np.array([1 / right[0], right[1], right[2]]), from_answer=True),
    ),
    shortcuts=(
        Shortcut("llama3_inv_freq or rope_frequencies (a search over configs is not a reading)",
                 r"\b(llama3_inv_freq|rope_frequencies\w*|method_frequencies|method_frequency_ratios)\b",
                 "bands = [b for b in grid if np.allclose(llama3_inv_freq(64, 5e5, *b, 8192), x)]"),
    ),
)

_CACHE_D, _CACHE_BASE, _CACHE_L = 64, 10000.0, 2048
_CACHE = {"key": 2500, "now": 6000}
"""06.dynamic_cache: the key's position and the length when it was cached, and the length now."""


def _dynamic_slowest(seq_len: int) -> float:
    """The slowest pair's frequency under dynamic NTK (factor 1) at the current length."""
    scaling = {"rope_type": "dynamic", "factor": 1.0, "original_max_position_embeddings": _CACHE_L}
    inv_freq, _ = rope_frequencies(_CACHE_D, _CACHE_BASE, scaling, seq_len=seq_len)
    return float(inv_freq[-1])


def _cache_drift(then: float, now: float) -> float:
    return _CACHE["key"] * (then - now)  # the cached angle minus the current one


dynamic_cache = Exercise(
    key="06.dynamic_cache", answer_name="cache_drift", level="challenge", kind="explanation",
    minutes=15, params=_CACHE,
    mistakes=(
        Mistake("the sign: the cached angle minus the current one is asked",
                lambda right: -right, from_answer=True),
        Mistake("the key cached with the trained frequency; at l = {key} > L it was already scaled",
                lambda: _cache_drift(
                    float(inverse_frequencies(64, 10000.0)[-1]), _dynamic_slowest(_CACHE["now"])
                )),
        Mistake("pair 0, which NTK-aware scaling never changes", lambda: 0.0),
    ),
    shortcuts=(
        Shortcut("rope_frequencies or dynamic_ntk_factor (compute s_eff and the frequency "
                 "yourself)",
                 r"\b(rope_frequencies\w*|dynamic_ntk_factor|ntk_inv_freq|ntk_scaled_base)\b",
                 "cache_drift = 2500 * (rope_frequencies(64, 1e4, cfg, seq_len=2500)[0][-1] - x)"),
    ),
)

_MYSTERY_HEAD, _MYSTERY_BASE = 64, 1000000.0  # the base of Qwen2.5 too: no give-away


_MYSTERY: dict[str, Any] = {
    "frequencies": tuple(HIDDEN_DATA["06.which_scaling"]), "line": "i", "straight": "yarn",
    "why": "rope_type 'yarn' runs the reference code, whose blend is a straight line over the "
    "pair index; the paper's Eq. 18 ramps otherwise, so the name of the paper is not enough"}
"""06.which_scaling: the scaled frequencies, the variable ("i" or "theta_i") of the straight
line the evidence is measured from, and the by-parts method whose blend is straight in it (a
wrong choice whenever the evidence is not 0), with why (a graded release may pose frequencies
of another method, measured from the line in theta_i: ``use``)."""


def mystery_frequencies() -> NDArray[np.float64]:
    """Return theta'_i, shape (32,), of a head with d = 64 and base 10^6 scaled by the undisclosed
    method exercise 06.which_scaling asks the learner to identify (stored numbers: the package
    does not hold the method)."""
    return np.array(_MYSTERY["frequencies"])


def _reasoned(choice: str) -> tuple[str, float]:
    """A reasoned answer: the method and its evidence, the largest gap between the blend's ratios
    theta'_i / theta_i and the straight line through its first and last pair in the pair index i
    (0 for a ramp that is straight in i) or, posed so, in theta_i (0 for one straight in it)."""
    theta = inverse_frequencies(_MYSTERY_HEAD, _MYSTERY_BASE)
    ratio = mystery_frequencies() / theta
    blend = np.flatnonzero((ratio < 1 - 1e-9) & (ratio > ratio.min() + 1e-9))
    x = blend if _MYSTERY["line"] == "i" else theta[blend]
    first, last = ratio[blend[0]], ratio[blend[-1]]
    line = first + (last - first) * (x - x[0]) / (x[-1] - x[0])
    return choice, float(np.max(np.abs(ratio[blend] - line)))


which_scaling = Exercise(
    key="06.which_scaling", answer_name="method", level="challenge", kind="detector", minutes=20,
    rtol=1e-4, params=_MYSTERY,
    mistakes=(
        Mistake("{straight}: {why}: test the shape of the blend",
                lambda: _reasoned(_MYSTERY["straight"])),
        Mistake("ntk: NTK-aware scaling changes every pair but the first, while here a whole run "
                "of fast pairs keeps the ratio 1", lambda: _reasoned("ntk")),
        Mistake("linear: PI gives every pair the same ratio 1/s", lambda: _reasoned("linear")),
    ),
)

"""Position schemes of the lab as plain NumPy inputs of one shared model.

Every scheme becomes the same dictionary of arrays, so one compiled training step serves all of
them; the tables and biases come from the course library, exactly what the notebooks taught.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib import rope_frequencies, sinusoidal_encoding
from posenc_lib._checks import check_choice, check_float, check_int
from posenc_lib.bias import alibi_bias, alibi_slopes, t5_relative_position_bucket
from posenc_lib.precision import rounded_angles
from posenc_lib.rope_variants import p_rope_frequencies

__all__ = ["ALL_SCHEMES", "ANGLE_DTYPES", "EXTENSIONS", "LEARNED_BIAS", "SCHEMES", "T5_BUCKETS",
           "position_inputs"]

SCHEMES = ("nope", "learned", "sinusoidal", "rope", "p_rope", "alibi", "t5")
# schemes whose bias the model learns (posenc_lib.lab.learned_bias); no input array of their own
LEARNED_BIAS = ("fire", "kerple")
ALL_SCHEMES = SCHEMES + LEARNED_BIAS
EXTENSIONS = ("none", "pi", "ntk", "dynamic", "yarn")
_ROPE_TYPES = {"pi": "linear", "ntk": "ntk", "dynamic": "dynamic", "yarn": "yarn"}
_ROPE_BASE = 10000.0
_P_ROPE_KEEP = 0.25  # p-RoPE: the fraction of pairs (the fastest) that keep rotating
T5_BUCKETS = 16
ANGLE_DTYPES = ("float64", "float32")  # the format of m * theta_i (float32: as engines do)
_T5_MAX_DISTANCE = 32


def _extension_scaling(extension: str, factor: float, trained_length: int) -> dict[str, Any]:
    """The Hugging Face style ``rope_scaling`` dict of a context-extension method."""
    factor = check_float("factor", factor, at_least=1.0)  # a context extension
    # dynamic: s = seq_len / trained_length comes from seq_len at run time
    scaling: dict[str, Any] = {"rope_type": _ROPE_TYPES[extension],
                               "factor": 1.0 if extension == "dynamic" else factor}
    if extension in ("dynamic", "yarn"):
        scaling["original_max_position_embeddings"] = trained_length
    return scaling


def _rope_inv_freq(scheme: str, head_dim: int, rope_scaling: dict[str, Any] | None = None, *,
                  seq_len: int | None = None) -> tuple[NDArray[np.float64], float]:
    """theta_i = base^(-2i/d) rescaled by the method (p-RoPE: 0 for i >= floor(p d/2)), and the
    attention factor.
    """
    inv_freq, attention_factor = rope_frequencies(head_dim, _ROPE_BASE, rope_scaling,
                                                  seq_len=seq_len)
    if scheme == "p_rope":
        # the library's p-RoPE decides which pairs keep rotating (floor(p d / 2) of them)
        kept = p_rope_frequencies(head_dim, _P_ROPE_KEEP, _ROPE_BASE) > 0
        inv_freq = np.where(kept, inv_freq, 0.0)  # theta_i = 0 for the pairs p-RoPE stops
    return np.asarray(inv_freq, dtype=np.float64), float(attention_factor)


def _checked(scheme: str, length: int, d_model: int, n_heads: int, extension: str,
             trained_length: int | None) -> tuple[str, int, int, str, int | None]:
    """:func:`position_inputs`' arguments checked; the head size in place of ``d_model``."""
    scheme = check_choice("scheme", scheme, ALL_SCHEMES)
    length = check_int("length", length)
    d_model = check_int("d_model", d_model, minimum=2)
    n_heads = check_int("n_heads", n_heads)
    if d_model % n_heads or (d_model // n_heads) % 2:
        raise ValueError(f"d_model must be n_heads times an even head size; got d_model="
                         f"{d_model} with n_heads={n_heads}")
    extension = check_choice("extension", extension, EXTENSIONS)
    if extension != "none":
        if scheme not in ("rope", "p_rope"):
            raise ValueError(f"extension must be 'none' for scheme {scheme!r}; got {extension!r}")
        if trained_length is None:
            raise ValueError("trained_length must be given with an extension; got None")
        trained_length = check_int("trained_length", trained_length)
    return scheme, length, d_model // n_heads, extension, trained_length


def _checked_shift(scheme: str, extension: str, offset: int, angle_dtype: str
                   ) -> tuple[int, str]:
    """:func:`position_inputs`' ``offset`` and ``angle_dtype``, for plain rotary schemes only."""
    offset = check_int("offset", offset, minimum=0)
    angle_dtype = check_choice("angle_dtype", angle_dtype, ANGLE_DTYPES)
    if (offset, angle_dtype) != (0, "float64") and (scheme not in ("rope", "p_rope")
                                                   or extension != "none"):
        raise ValueError(f"offset and angle_dtype apply to 'rope' and 'p_rope' without an "
                         f"extension; got offset={offset}, angle_dtype={angle_dtype!r} for "
                         f"scheme {scheme!r} with extension {extension!r}")
    return offset, angle_dtype


def _rotation(scheme: str, length: int, head_dim: int, extension: str, factor: float | None,
              trained_length: int | None, offset: int = 0, angle_dtype: str = "float64"
              ) -> tuple[NDArray[Any], NDArray[Any]]:
    """a cos(m theta_i) and a sin(m theta_i), shape (T, head_dim // 2), for the extension, at
    positions m = offset, ..., offset + T - 1; cos and sin of the float64 value of the angle."""
    scaling = None
    if extension != "none" and trained_length is not None:
        scale = max(length / trained_length, 1.0) if factor is None else factor  # s
        scaling = _extension_scaling(extension, scale, trained_length)
    inv_freq, attention = _rope_inv_freq(scheme, head_dim, scaling, seq_len=length)
    positions = offset + np.arange(length)
    if angle_dtype == "float32":  # fl(fl(m) fl(theta_i)) in float32, as engines compute it
        angles = rounded_angles(positions, inv_freq, "float32")
    else:
        angles = positions[:, None] * inv_freq[None, :]  # (T, d/2): m * theta_i
    return attention * np.cos(angles), attention * np.sin(angles)


def position_inputs(scheme: str, length: int, *, d_model: int, n_heads: int,
                    extension: str = "none", factor: float | None = None,
                    trained_length: int | None = None, offset: int = 0,
                    angle_dtype: str = "float64") -> dict[str, NDArray[Any]]:
    """The arrays that put ``scheme`` into the shared model for sequences of ``length`` tokens.
    ``table`` (T, d_model), ``cos``/``sin`` (T, head_dim // 2), ``bias`` (n_heads, T, T),
    ``buckets`` (T, T), ``learned``/``t5`` () flags.
    Sinusoidal: table = PE. RoPE: a cos(m theta_i), a sin(m theta_i) with the attention
    factor a. ALiBi: b_h(i, j) = -m_h (i - j). T5: bucket of j - i (causal, 16 buckets, max
    distance 32). RoPE and p-RoPE only: the sequence starts at position ``offset``, its angles
    computed in ``angle_dtype`` ("float64", or "float32" as engines do).
    """
    scheme, length, head_dim, extension, trained_length = _checked(
        scheme, length, d_model, n_heads, extension, trained_length)
    offset, angle_dtype = _checked_shift(scheme, extension, offset, angle_dtype)
    table = np.zeros((length, d_model))
    cos, sin = np.ones((length, head_dim // 2)), np.zeros((length, head_dim // 2))
    bias = np.zeros((n_heads, length, length))
    buckets = np.zeros((length, length), dtype=np.int32)
    if scheme == "sinusoidal":
        table = sinusoidal_encoding(length, d_model)
    elif scheme in ("rope", "p_rope"):
        cos, sin = _rotation(scheme, length, head_dim, extension, factor, trained_length,
                             offset, angle_dtype)
    elif scheme == "alibi":
        # -m_h (i - j) for keys j <= i, 0 above the diagonal (the model masks those keys)
        bias = np.tril(alibi_bias(alibi_slopes(n_heads), length, causal=False))
    elif scheme == "t5":
        offsets = np.arange(length)[None, :] - np.arange(length)[:, None]  # (T, T): j - i
        buckets = t5_relative_position_bucket(offsets, bidirectional=False,
                                              num_buckets=T5_BUCKETS,
                                              max_distance=_T5_MAX_DISTANCE).astype(np.int32)
    return {
        "table": table.astype(np.float32),
        "learned": np.asarray(scheme == "learned", dtype=np.float32),
        "cos": cos.astype(np.float32),
        "sin": sin.astype(np.float32),
        "bias": bias.astype(np.float32),
        "buckets": buckets,
        "t5": np.asarray(scheme == "t5", dtype=np.float32),
    }

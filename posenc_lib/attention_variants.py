"""What surrounds RoPE in today's attention layers: NoPE layers, decoupled RoPE, sinks.

NoPE layers (Llama 4, SmolLM3); DeepSeek MLA's decoupled RoPE ("DeepSeek-V2", arXiv
2405.04434, section 2.1.3); gpt-oss's attention sink (Xiao et al., arXiv 2309.17453).

Notebook: 09_rope_in_todays_models.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import (
    check_array,
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_mapping,
    check_positions,
)
from posenc_lib.attention import _check_broadcast, _check_mask, softmax
from posenc_lib.rope import PAIRINGS, apply_rope
from posenc_lib.rope_variants import _MAX_DIM, _finite_result

__all__ = [
    "nope_layers", "nope_attention_scale", "mla_queries", "mla_keys", "mla_absorption_error",
    "attention_with_sink", "kv_cache_numbers",
]


def nope_layers(num_hidden_layers: int, no_rope_layer_interval: int = 4) -> NDArray[np.bool_]:
    """Return which layers use no positional encoding (NoPE): every ``interval``-th one.

    Parameters
    ----------
    num_hidden_layers, no_rope_layer_interval : int, default interval 4

    Returns
    -------
    is_nope : ndarray of bool, shape (num_hidden_layers,)

    Notes
    -----
    ``is_nope[l] = ((l + 1) mod interval == 0)`` (transformers stores ``no_rope_layers = not``).

    Examples
    --------
    >>> nope_layers(8)
    array([False, False, False,  True, False, False, False,  True])
    """
    layers = check_int("num_hidden_layers", num_hidden_layers, maximum=_MAX_DIM)
    interval = check_int("no_rope_layer_interval", no_rope_layer_interval)
    # NoPE where (l + 1) mod interval == 0
    return (np.arange(layers) + 1) % interval == 0


def nope_attention_scale(positions: ArrayLike, floor_scale: float = 8192.0,
                         attn_scale: float = 0.1) -> NDArray[np.float64]:
    """Return Llama 4's query scale for NoPE layers: ``1 + attn_scale * ln(1 + floor((m+1)/F))``.

    Parameters
    ----------
    positions : array_like, shape (seq,)
        Token positions ``m`` >= 0.
    floor_scale, attn_scale : float, default 8192.0 and 0.1
        ``F`` > 0 and ``a`` >= 0.

    Returns
    -------
    scale : ndarray of float64, shape (seq,)

    Notes
    -----
    ``s(m) = ln(floor((m + 1) / F) + 1) a + 1`` (``Llama4TextAttention``): a step up every ``F``
    tokens, so the NoPE layers' softmax does not flatten at long context.

    Examples
    --------
    >>> nope_attention_scale([0, 8190, 8191, 16383]).round(6)
    array([1.      , 1.      , 1.069315, 1.109861])
    """
    pos = check_positions("positions", positions, nonnegative=True).astype(np.float64, copy=False)
    scale_f = check_float("floor_scale", floor_scale, greater_than=0.0)
    a = check_float("attn_scale", attn_scale, at_least=0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        # s(m) = ln(floor((m + 1) / F) + 1) * a + 1
        scale = np.log1p(np.floor((pos + 1.0) / scale_f)) * a + 1.0
    return _finite_result("the scale", scale)


def _check_rope_part(name: str, rope_dim: int, positions: Any, inv_freq: Any, n_tokens: int,
                     pairing: Any) -> str:
    """Check the rotary part (its width, positions, frequencies and pairing); return pairing."""
    if rope_dim < 2 or rope_dim % 2:
        raise ValueError(f"qk_rope_head_dim = {name} must be even; got {rope_dim}")
    pos = check_positions("positions", positions)
    if pos.shape[0] != n_tokens:
        raise ValueError(f"positions must have length n_tokens = {n_tokens}; got {pos.shape[0]}")
    theta = check_array("inv_freq", inv_freq, ndim=1)
    if theta.shape[0] * 2 != rope_dim:
        raise ValueError(f"inv_freq must have qk_rope_head_dim // 2 = {rope_dim // 2} entries; "
                         f"got {theta.shape[0]}")
    return check_choice("pairing", pairing, PAIRINGS)


def _matmul(name: str, a: NDArray[Any], b: NDArray[Any]) -> NDArray[np.float64]:
    """``a @ b`` in float64, refusing a product that overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.matmul(a.astype(np.float64), b.astype(np.float64))
    return np.asarray(_finite_result(name, out), dtype=np.float64)


_Named = tuple[str, NDArray[np.float64]]
"""An operand of :func:`_decoupled` with the name its messages give it."""


def _rope(name: str, x: NDArray[np.float64], positions: Any, inv_freq: Any,
          pairing: str) -> NDArray[np.float64]:
    """:func:`posenc_lib.rope.apply_rope` in float64, refusing a result that overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        rotated = apply_rope(x, positions, inv_freq, pairing=pairing)
    return np.asarray(_finite_result(name, rotated), dtype=np.float64)


def _decoupled(part: str, latent: _Named, up: _Named, source: _Named, rope_w: _Named,
               positions: Any, inv_freq: Any, pairing: str) -> NDArray[np.float64]:
    """MLA's decoupled query or key of every head, each operand with its name for the messages:
    ``[latent W_up^h | R_m (source W_r)]``, the rotary part broadcast to every head when it has
    none of its own (the key's)."""
    (latent_name, c), (up_name, w_up), (source_name, x), (rope_name, w_r) = (
        latent, up, source, rope_w)
    pairing = _check_rope_part(f"{rope_name}.shape[{w_r.ndim - 1}]", w_r.shape[-1], positions,
                               inv_freq, c.shape[0], pairing)
    # content part c W_up^h (no rotation)
    content = _matmul(f"{latent_name} @ {up_name}", c, w_up)
    # rotary part R_m (x W_r)
    rotary = _rope(f"{part}^R", _matmul(f"{source_name} @ {rope_name}", x, w_r), positions,
                   inv_freq, pairing)
    shared = np.broadcast_to(rotary, (w_up.shape[0], *rotary.shape[-2:]))
    return np.concatenate([content, shared], axis=-1)


def mla_queries(c_q: ArrayLike, w_uq: ArrayLike, w_qr: ArrayLike, positions: ArrayLike,
                inv_freq: ArrayLike, *, pairing: str = "interleaved") -> NDArray[np.float64]:
    """Return MLA's decoupled queries: ``[c_q W_uq^h | RoPE_m(c_q W_qr^h)]`` for every head.

    Parameters
    ----------
    c_q : array_like, shape (n_tokens, q_lora_rank)
    w_uq, w_qr : array_like, shape (heads, q_lora_rank, qk_nope_head_dim or qk_rope_head_dim)
        Projections of the content part and of the decoupled rotary part.
    positions, inv_freq, pairing
        As for :func:`posenc_lib.rope.apply_rope`.

    Returns
    -------
    queries : ndarray of float64, shape (heads, n_tokens, qk_nope_head_dim + qk_rope_head_dim)

    Notes
    -----
    ``q_t^h = [q^C | q^R] = [c_q W_uq^h | R_m (c_q W_qr^h)]``; only the last
    ``qk_rope_head_dim`` dims carry position.

    Examples
    --------
    >>> q = mla_queries(np.ones((2, 3)), np.ones((1, 3, 2)), np.ones((1, 3, 2)), [0, 1], [1.0])
    >>> q.shape
    (1, 2, 4)
    """
    latent = check_array("c_q", c_q, ndim=2)
    up = check_array("w_uq", w_uq, ndim=3)
    rope_w = check_array("w_qr", w_qr, ndim=3)
    if up.shape[:2] != (rope_w.shape[0], latent.shape[1]) or rope_w.shape[1] != latent.shape[1]:
        raise ValueError("w_uq and w_qr must have shapes (heads, q_lora_rank, ...) with "
                         f"q_lora_rank = c_q.shape[1] = {latent.shape[1]}; got {up.shape} and "
                         f"{rope_w.shape}")
    # q = [q^C | q^R] = [c_q W_uq^h | R_m (c_q W_qr^h)]
    return _decoupled("q", ("c_q", latent), ("w_uq", up), ("c_q", latent), ("w_qr", rope_w),
                      positions, inv_freq, pairing)


def mla_keys(c_kv: ArrayLike, w_uk: ArrayLike, x: ArrayLike, w_kr: ArrayLike,
             positions: ArrayLike, inv_freq: ArrayLike, *,
             pairing: str = "interleaved") -> NDArray[np.float64]:
    """Return MLA's decoupled keys: ``[c_kv W_uk^h | RoPE_m(x W_kr)]``, the rotary part shared.

    Parameters
    ----------
    c_kv, x : array_like, shapes (n_tokens, kv_lora_rank) and (n_tokens, hidden_size)
        Cached key-value latents; hidden states.
    w_uk, w_kr : array_like, shapes (heads, kv_lora_rank, qk_nope_head_dim), (hidden_size,
        qk_rope_head_dim): the content up-projection; the rotary key shared by all heads.
    positions, inv_freq, pairing
        As in :func:`mla_queries`.

    Returns
    -------
    keys : ndarray of float64, shape (heads, n_tokens, qk_nope_head_dim + qk_rope_head_dim)

    Notes
    -----
    ``k_t^h = [k^C | k^R] = [c_kv W_uk^h | R_m (x_t W_kr)]``; the cache keeps ``c_kv`` and the
    rotated ``k^R`` (512 + 64 = 576 numbers per token and layer in DeepSeek-V3).

    Examples
    --------
    >>> k = mla_keys(np.ones((2, 3)), np.ones((4, 3, 2)), np.ones((2, 5)), np.ones((5, 2)),
    ...              [0, 1], [1.0])
    >>> k.shape, bool(np.all(k[:, :, 2:] == k[0, :, 2:]))
    ((4, 2, 4), True)
    """
    latent = check_array("c_kv", c_kv, ndim=2)
    up = check_array("w_uk", w_uk, ndim=3)
    hidden = check_array("x", x, ndim=2)
    rope_w = check_array("w_kr", w_kr, ndim=2)
    if up.shape[1] != latent.shape[1]:
        raise ValueError(f"w_uk must have shape (heads, kv_lora_rank = {latent.shape[1]}, "
                         f"qk_nope_head_dim); got {up.shape}")
    if hidden.shape[0] != latent.shape[0] or rope_w.shape[0] != hidden.shape[1]:
        raise ValueError(f"x must have shape (n_tokens = {latent.shape[0]}, hidden_size) and "
                         f"w_kr (hidden_size, qk_rope_head_dim); got {hidden.shape} and "
                         f"{rope_w.shape}")
    # k = [k^C | k^R] = [c_kv W_uk^h | R_m (x W_kr)], k^R one per token, shared by every head
    return _decoupled("k", ("c_kv", latent), ("w_uk", up), ("x", hidden), ("w_kr", rope_w),
                      positions, inv_freq, pairing)


def mla_absorption_error(c_q: ArrayLike, c_kv: ArrayLike, w_uq: ArrayLike, w_uk: ArrayLike,
                         positions: ArrayLike, inv_freq: ArrayLike) -> tuple[float, float]:
    """Show why MLA needs decoupled RoPE: with RoPE inside, ``W_uq R W_uk^T`` cannot be absorbed.

    Parameters
    ----------
    c_q, c_kv : array_like, shapes (n_tokens, q_lora_rank) and (n_tokens, kv_lora_rank)
    w_uq, w_uk : array_like, shapes (q_lora_rank, head_dim) and (kv_lora_rank, head_dim)
        One head's query and key up-projections.
    positions, inv_freq : array_like, shapes (n_tokens,) and (head_dim // 2,)

    Returns
    -------
    error_without_rope, error_with_rope : float
        ``max |S - S_abs| / max |S|``.

    Notes
    -----
    ``S_abs = C_q (W_uq W_uk^T) C_kv^T`` is exact without RoPE; with it ``s_mn = c_q,m W_uq
    R_{n-m} W_uk^T c_kv,n^T`` depends on ``n - m`` and ``S_abs`` is wrong.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> c_q, c_kv = rng.normal(size=(6, 4)), rng.normal(size=(6, 5))
    >>> w_uq, w_uk = rng.normal(size=(4, 8)), rng.normal(size=(5, 8))
    >>> without, with_rope = mla_absorption_error(c_q, c_kv, w_uq, w_uk, np.arange(6),
    ...                                           [1.0, 0.5, 0.1, 0.01])
    >>> bool(without < 1e-12), bool(with_rope > 0.1)
    (True, True)
    """
    named = (("c_q", c_q), ("c_kv", c_kv), ("w_uq", w_uq), ("w_uk", w_uk))
    c_q, c_kv, w_uq, w_uk = (check_array(name, value, ndim=2) for name, value in named)
    if w_uq.shape[0] != c_q.shape[1] or w_uk.shape[0] != c_kv.shape[1]:
        raise ValueError(f"w_uq must have {c_q.shape[1]} rows (c_q.shape[1]) and w_uk "
                         f"{c_kv.shape[1]} rows (c_kv.shape[1]); got {w_uq.shape} and "
                         f"{w_uk.shape}")
    if w_uq.shape[1] != w_uk.shape[1] or w_uq.shape[1] % 2:
        raise ValueError(f"w_uq and w_uk must share an even head_dim; got {w_uq.shape} and "
                         f"{w_uk.shape}")
    if c_q.shape[0] != c_kv.shape[0]:
        raise ValueError(f"c_q and c_kv must have the same n_tokens; got {c_q.shape} and "
                         f"{c_kv.shape}")
    _check_rope_part("w_uq.shape[1]", w_uq.shape[1], positions, inv_freq, c_q.shape[0],
                     "interleaved")
    # q = C_q W_uq, k = C_kv W_uk
    q, k = _matmul("c_q @ w_uq", c_q, w_uq), _matmul("c_kv @ w_uk", c_kv, w_uk)
    # S_abs = C_q (W_uq W_uk^T) C_kv^T
    absorbed = _matmul("S_abs", _matmul("c_q W", c_q, _matmul("W", w_uq, w_uk.T)), c_kv.T)
    # S = q k^T without RoPE; S = R_m(q) R_n(k)^T with it
    plain = _matmul("S", q, k.T)
    rotated = _matmul("S", _rope("R_m q", q, positions, inv_freq, "interleaved"),
                      _rope("R_n k", k, positions, inv_freq, "interleaved").T)
    return _relative_gap(plain, absorbed), _relative_gap(rotated, absorbed)


def _relative_gap(exact: NDArray[np.float64], absorbed: NDArray[np.float64]) -> float:
    size = float(np.max(np.abs(exact)))
    if size == 0.0:
        raise ValueError("the scores are all zero; pass non-zero latents and projections")
    with np.errstate(over="ignore", invalid="ignore"):
        # max |S - S_abs| / max |S|
        gap = float(np.max(np.abs(exact - absorbed)) / size)
    if not math.isfinite(gap):
        raise ValueError("the scores overflow float64; scale the inputs down")
    return gap


def attention_with_sink(scores: ArrayLike, sink: ArrayLike, *,
                        mask: ArrayLike | None = None) -> NDArray[np.float64]:
    """Return attention weights with a sink logit: softmax over ``[scores, sink]``, sink dropped.

    Parameters
    ----------
    scores : array_like, shape (..., n_queries, n_keys)
        Scaled logits ``q.k / sqrt(d)``.
    sink : array_like, broadcastable to ``scores.shape[:-1]``
        The sink logit (per head: ``sinks[:, None]``).
    mask : array_like of bool, broadcastable to ``scores.shape``, optional

    Returns
    -------
    weights : ndarray of float64, shape (..., n_queries, n_keys)

    Notes
    -----
    ``w_j = exp(s_j) / (sum_k exp(s_k) + exp(z))`` (gpt-oss): rows sum to less than 1.

    Examples
    --------
    >>> attention_with_sink([[0.0, 0.0]], 0.0).round(6)
    array([[0.333333, 0.333333]])
    """
    logits = check_array("scores", scores, min_ndim=2).astype(np.float64, copy=False)
    if logits.shape[-1] < 1:
        raise ValueError(f"scores must have at least one key (last axis); got {logits.shape}")
    z = check_array("sink", sink).astype(np.float64, copy=False)
    try:
        z = np.broadcast_to(z, logits.shape[:-1])[..., None]
    except ValueError as err:
        raise ValueError(f"sink must broadcast to scores.shape[:-1] = {logits.shape[:-1]}; got "
                         f"{z.shape}") from err
    if mask is not None:
        allowed = _check_mask(mask)
        _check_broadcast("mask", allowed.shape, logits.shape)
        # masked keys: s_j = -inf
        logits = np.where(allowed, logits, -np.inf)
    # w = softmax([s_1 .. s_n, z]) without its last column (the sink column is always finite)
    return softmax(np.concatenate([logits, z], axis=-1), axis=-1)[..., :-1]


def kv_cache_numbers(config: Mapping[str, Any], *, full_heads: bool = False) -> int:
    """Return how many numbers one attention layer caches per token for a model's config.

    Parameters
    ----------
    config : dict
        A ``config.json``: MLA's ``kv_lora_rank`` and ``qk_*_head_dim``, or
        ``num_key_value_heads`` (default: ``num_attention_heads``) and ``head_dim`` (default:
        ``hidden_size // num_attention_heads``).
    full_heads : bool, default False
        For an MLA config, what its heads would cache as full keys and values instead.

    Returns
    -------
    numbers : int

    Notes
    -----
    MLA caches its latent and the one rotary key all heads share:
    ``kv_lora_rank + qk_rope_head_dim``; full heads would cache
    ``H (qk_nope_head_dim + qk_rope_head_dim + v_head_dim)``. Other attention caches a key and
    a value per KV head: ``2 n_kv head_dim`` (notebook 09).

    Examples
    --------
    >>> kv_cache_numbers({"kv_lora_rank": 512, "qk_rope_head_dim": 64})
    576
    >>> kv_cache_numbers({"hidden_size": 4096, "num_attention_heads": 32,
    ...                   "num_key_value_heads": 8})
    2048
    """
    config = check_mapping("config", config, " (a config.json)")

    def field(key: str, default: Any = None) -> int:
        return check_int(f"config[{key!r}]", config.get(key, default), minimum=1)

    if config.get("kv_lora_rank") is not None:
        if check_bool("full_heads", full_heads):
            # H (d_nope + d_rope + d_v)
            return field("num_attention_heads") * (field("qk_nope_head_dim")
                + field("qk_rope_head_dim") + field("v_head_dim"))
        return field("kv_lora_rank") + field("qk_rope_head_dim")  # d_c + d_rope
    heads = field("num_attention_heads")
    head_dim = config.get("head_dim") or field("hidden_size") // heads
    # 2 n_kv head_dim: a key and a value per KV head
    return 2 * field("num_key_value_heads", heads) * check_int("config['head_dim']", head_dim)

"""How today's models change RoPE: which dims rotate, by which position, and what surrounds it.

=============================  ===================================================================
variant                        what changes (``theta_i = base**(-2i/d)``, position ``m``)
=============================  ===================================================================
partial rotary (GPT-NeoX)      only the first ``r = int(p d)`` dims rotate, with ``base**(-2i/r)``
p-RoPE (Barbero et al.)        the fastest ``floor(p d/2)`` pairs keep ``theta_i``, the rest 0
2-D axial (image patches)      half the pairs turn by the patch row, half by its column
M-RoPE (Qwen2-VL, Qwen2.5-VL)  contiguous sections of pairs read the t, h or w position
interleaved M-RoPE (Qwen3-VL)  pairs ``3j+1`` read h, ``3j+2`` read w, the rest t
NoPE layers (Llama 4, SmolLM3) no rotation; Llama 4 scales the queries ``1 + a ln(1 + ...)``
decoupled RoPE (DeepSeek MLA)  a rotated 64-dim part beside the compressed, unrotated part
attention sink (gpt-oss)       one learned logit per head joins the softmax, then is dropped
=============================  ===================================================================

Everything is NumPy, in float64, with the position axis before the feature axis. Pairing
(``"interleaved"`` = (2i, 2i+1), ``"half"`` = (i, i + d/2)) is named as in
:mod:`posenc_lib.rope`, whose quarter-turn functions do the rotating.

Introduced in notebook 09_rope_in_todays_models.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import check_array, check_choice, check_even, check_float, check_int, check_positions
from .rope import PAIRINGS, default_inv_freq, rope_angles, rotate_half, rotate_interleaved

__all__ = [
    "apply_rope_angles",
    "partial_rotary_dims",
    "apply_partial_rope",
    "p_rope_frequencies",
    "axial_rope_frequencies",
    "patch_grid_positions",
    "axial_rope_angles",
    "mrope_axes",
    "mrope_angles",
    "mrope_image_positions",
    "nope_layers",
    "nope_attention_scale",
    "mla_queries",
    "mla_keys",
    "mla_absorption_error",
    "attention_with_sink",
]

_MAX_DIM = 1 << 16  # head sizes and grid sides beyond this are refused rather than allocated


# --------------------------------------------------------------------------- helpers


def _finite_result(name: str, value: NDArray[Any]) -> NDArray[Any]:
    if not np.all(np.isfinite(value)):
        raise ValueError(f"{name} overflows float64 for these inputs; scale the inputs down")
    return value


def _check_dim(name: str, value: Any) -> int:
    dim = check_even(name, value)
    if dim > _MAX_DIM:
        raise ValueError(f"{name} must be <= {_MAX_DIM}; got {dim}")
    return dim


def _check_vectors(name: str, x: Any, *, min_ndim: int = 2) -> NDArray[np.float64]:
    array = check_array(name, x, min_ndim=min_ndim).astype(np.float64, copy=False)
    if array.shape[-1] < 2 or array.shape[-1] % 2:
        raise ValueError(
            f"{name} must have an even last axis head_dim >= 2 (pairs); got shape {array.shape}"
        )
    return array


def _check_fraction(name: str, value: Any, *, allow_zero: bool) -> float:
    fraction = check_float(name, value)
    low_ok = fraction >= 0.0 if allow_zero else fraction > 0.0
    if not (low_ok and fraction <= 1.0):
        interval = "[0, 1]" if allow_zero else "(0, 1]"
        raise ValueError(f"{name} must be in {interval}; got {fraction}")
    return fraction


def _rotate_by(x: NDArray[np.float64], angles: NDArray[np.float64], pairing: str) -> Any:
    """x * cos(phi) + quarter_turn(x) * sin(phi), with phi spread over the pair layout."""
    if pairing == "interleaved":
        cos = np.repeat(np.cos(angles), 2, axis=-1)
        sin = np.repeat(np.sin(angles), 2, axis=-1)
        turned = rotate_interleaved(x)
    else:
        cos = np.concatenate([np.cos(angles)] * 2, axis=-1)
        sin = np.concatenate([np.sin(angles)] * 2, axis=-1)
        turned = rotate_half(x)
    with np.errstate(over="ignore", invalid="ignore"):
        # x' = x cos(phi) + R_90(x) sin(phi), pair by pair
        out = x * cos + turned * sin
    return _finite_result("the rotated vectors", out)


# --------------------------------------------------------------------------- rotation by angles


def apply_rope_angles(
    x: ArrayLike, angles: ArrayLike, *, pairing: str = "interleaved"
) -> NDArray[np.float64]:
    """Rotate every pair of ``x`` by its own angle: the common core of all RoPE variants.

    Parameters
    ----------
    x : array_like, shape (..., seq, head_dim)
        Query or key vectors; ``head_dim`` even.
    angles : array_like, shape (seq, head_dim // 2)
        Angle of pair ``i`` at sequence index ``m`` (``m theta_i`` for plain RoPE; a row or
        column angle for axial RoPE; a t/h/w angle for M-RoPE).
    pairing : {"interleaved", "half"}, default "interleaved"
        Pair layout, as in :func:`posenc_lib.rope.apply_rope`.

    Returns
    -------
    rotated : ndarray of float64, shape (..., seq, head_dim)

    Notes
    -----
    Pair ``(a, b)`` becomes ``(a cos phi - b sin phi, a sin phi + b cos phi)``, i.e.
    ``x cos phi + R_90(x) sin phi``. With ``angles = positions (x) inv_freq`` this is
    :func:`posenc_lib.rope.apply_rope`. Introduced in notebook 09_rope_in_todays_models.

    Examples
    --------
    >>> apply_rope_angles([[1.0, 0.0, 1.0, 0.0]], [[np.pi / 2, 0.0]]).round(6)
    array([[0., 1., 1., 0.]])
    """
    array = _check_vectors("x", x)
    pairing = check_choice("pairing", pairing, PAIRINGS)
    phi = check_array("angles", angles, ndim=2).astype(np.float64, copy=False)
    expected = (array.shape[-2], array.shape[-1] // 2)
    if phi.shape != expected:
        raise ValueError(
            f"angles must have shape (seq, head_dim // 2) = {expected} for x of shape "
            f"{array.shape}; got {phi.shape}"
        )
    return np.asarray(_rotate_by(array, phi, pairing), dtype=np.float64)


# --------------------------------------------------------------------------- partial rotary, p-RoPE


def partial_rotary_dims(head_dim: int, partial_rotary_factor: float) -> NDArray[np.bool_]:
    """Return which dims of a head rotate under partial rotary (GPT-NeoX, Phi, Pythia).

    Parameters
    ----------
    head_dim : int
        Size of one head, even.
    partial_rotary_factor : float
        Fraction ``p`` in (0, 1] (``rotary_pct`` in GPT-NeoX configs).

    Returns
    -------
    rotates : ndarray of bool, shape (head_dim,)
        True for the first ``r = int(p * head_dim)`` dims, False for the rest, which pass
        through unchanged.

    Notes
    -----
    ``r = int(p d)`` must be even. Within the rotated block the pairs are ``(i, i + r/2)`` in
    the "half" layout (Hugging Face) or ``(2i, 2i+1)`` (GPT-J); either way the block is the first
    ``r`` dims. Introduced in notebook 09_rope_in_todays_models.

    Examples
    --------
    >>> partial_rotary_dims(8, 0.5)
    array([ True,  True,  True,  True, False, False, False, False])
    """
    dim = _check_dim("head_dim", head_dim)
    p = _check_fraction("partial_rotary_factor", partial_rotary_factor, allow_zero=False)
    # r = int(p * d)
    rotary = int(dim * p)
    if rotary < 2 or rotary % 2:
        raise ValueError(
            f"int(head_dim * partial_rotary_factor) = int({dim} * {p}) = {rotary} must be an "
            "even integer >= 2 (pairs)"
        )
    return np.arange(dim) < rotary


def apply_partial_rope(
    x: ArrayLike,
    positions: ArrayLike,
    partial_rotary_factor: float,
    base: float = 10000.0,
    *,
    pairing: str = "half",
) -> NDArray[np.float64]:
    """Rotate the first ``int(p * head_dim)`` dims of ``x`` and pass the others through.

    Parameters
    ----------
    x : array_like, shape (..., seq, head_dim)
        Query or key vectors.
    positions : array_like, shape (seq,)
        Token positions.
    partial_rotary_factor : float
        Fraction ``p`` in (0, 1].
    base : float, default 10000.0
        RoPE base (``rotary_emb_base``), > 1.
    pairing : {"half", "interleaved"}, default "half"
        Layout of the pairs inside the rotated block ("half" as in GPT-NeoX / Hugging Face).

    Returns
    -------
    rotated : ndarray of float64, shape (..., seq, head_dim)

    Notes
    -----
    With ``r = int(p d)``: dims ``[0, r)`` rotate with ``theta_i = base**(-2i/r)``
    (``i < r/2``, the exponent's denominator is ``r``, not ``d``), dims ``[r, d)`` are copied.
    Introduced in notebook 09_rope_in_todays_models.

    References
    ----------
    GPT-NeoX (Black et al. 2022, ``rotary_pct``); Hugging Face
    ``GPTNeoXRotaryEmbedding`` and ``apply_rotary_pos_emb``.

    Examples
    --------
    >>> x = np.ones((1, 8))
    >>> apply_partial_rope(x, [0], 0.5)
    array([[1., 1., 1., 1., 1., 1., 1., 1.]])
    """
    array = _check_vectors("x", x)
    pos = check_positions("positions", positions)
    if pos.shape[0] != array.shape[-2]:
        raise ValueError(
            f"positions must have length seq = {array.shape[-2]} (x.shape[-2]); got {pos.shape[0]}"
        )
    rotates = partial_rotary_dims(array.shape[-1], partial_rotary_factor)
    pairing = check_choice("pairing", pairing, PAIRINGS)
    rotary = int(rotates.sum())
    # theta_i = base^(-2i/r) over the rotated block only
    theta = default_inv_freq(rotary, base)
    out = array.copy()
    out[..., :rotary] = _rotate_by(array[..., :rotary], rope_angles(pos, theta), pairing)
    return out


def p_rope_frequencies(head_dim: int, p: float, base: float = 10000.0) -> NDArray[np.float64]:
    """Return p-RoPE frequencies: the fastest fraction ``p`` of pairs rotate, the rest do not.

    Parameters
    ----------
    head_dim : int
        Size of one head, even.
    p : float
        Fraction of pairs kept, in [0, 1]: 0 is NoPE, 1 is RoPE.
    base : float, default 10000.0
        RoPE base, > 1.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
        ``theta_i = base**(-2i/head_dim)`` for ``i < floor(p * head_dim / 2)``, 0 after.

    Notes
    -----
    p-RoPE removes the lowest frequencies (the slowest pairs, which Gemma uses as semantic
    channels) and keeps the highest ones, at their original values: the kept exponents still
    divide by ``head_dim``. A pair with frequency 0 never turns, so its dims act like NoPE.
    Unlike partial rotary, every dim stays in a pair and the kept frequencies are not respaced.
    The rounding ``floor(p d / 2)`` is the one of transformers' ``"proportional"`` rope type
    (``int(p * head_dim // 2)``). Introduced in notebook 09_rope_in_todays_models.

    References
    ----------
    Barbero et al., "Round and Round We Go! What makes Rotary Positional Encodings useful?",
    arXiv 2410.06205 (ICLR 2025), section 6; Hugging Face
    ``_compute_proportional_rope_parameters``.

    Examples
    --------
    >>> p_rope_frequencies(8, 0.5, 10000.0)
    array([1. , 0.1, 0. , 0. ])
    """
    dim = _check_dim("head_dim", head_dim)
    fraction = _check_fraction("p", p, allow_zero=True)
    theta = default_inv_freq(dim, base)
    # keep = floor(p * d / 2) fastest pairs; theta_i = 0 for the others
    keep = int(fraction * dim // 2)
    return np.where(np.arange(dim // 2) < keep, theta, 0.0)


# --------------------------------------------------------------------------- 2-D axial RoPE


def axial_rope_frequencies(head_dim: int, base: float = 10000.0) -> NDArray[np.float64]:
    """Return the per-axis frequencies of 2-D axial RoPE: ``base**(-4j/head_dim)``.

    Parameters
    ----------
    head_dim : int
        Size of one head, a multiple of 4 (two axes of pairs).
    base : float, default 10000.0
        RoPE base, > 1.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 4,)
        ``omega_j = base**(-2j/(d/2))``: plain RoPE frequencies of a ``d/2``-dim half, shared by
        the row half and the column half.

    Notes
    -----
    Each axis gets half the head, so its frequencies are those of a ``d/2``-dim RoPE, as in
    Qwen2.5-VL's vision encoder (``compute_axial_rope_parameters``).
    Introduced in notebook 09_rope_in_todays_models.

    References
    ----------
    Heo et al., "Rotary Position Embedding for Vision Transformer", arXiv 2403.13298 (RoPE-Axial);
    Hugging Face ``Qwen2_5_VLVisionRotaryEmbedding``.

    Examples
    --------
    >>> axial_rope_frequencies(8, 100.0)
    array([1. , 0.1])
    """
    dim = _check_dim("head_dim", head_dim)
    if dim % 4:
        raise ValueError(f"head_dim must be a multiple of 4 (row and column pairs); got {dim}")
    # omega_j = base^(-2j/(d/2))
    return default_inv_freq(dim // 2, base)


def patch_grid_positions(n_rows: int, n_cols: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Return the row and column of every patch of an image grid, in row-major order.

    Parameters
    ----------
    n_rows, n_cols : int
        Grid size in patches, >= 1 each.

    Returns
    -------
    rows, cols : ndarray of int64, shape (n_rows * n_cols,)
        Patch ``k`` is at row ``k // n_cols`` and column ``k % n_cols``.

    Notes
    -----
    Introduced in notebook 09_rope_in_todays_models.

    Examples
    --------
    >>> patch_grid_positions(2, 3)
    (array([0, 0, 0, 1, 1, 1]), array([0, 1, 2, 0, 1, 2]))
    """
    rows = check_int("n_rows", n_rows)
    cols = check_int("n_cols", n_cols)
    if rows * cols > _MAX_DIM * _MAX_DIM:
        raise ValueError(f"n_rows * n_cols must be <= {_MAX_DIM**2}; got {rows * cols}")
    index = np.arange(rows * cols, dtype=np.int64)
    # row = k // n_cols, col = k mod n_cols
    return index // cols, index % cols


def axial_rope_angles(rows: ArrayLike, cols: ArrayLike, inv_freq: ArrayLike) -> NDArray[np.float64]:
    """Return 2-D axial RoPE angles: the first half of the pairs turn by row, the second by column.

    Parameters
    ----------
    rows, cols : array_like, shape (n,)
        Row and column of every patch (e.g. from :func:`patch_grid_positions`).
    inv_freq : array_like, shape (head_dim // 4,)
        Per-axis frequencies (e.g. from :func:`axial_rope_frequencies`).

    Returns
    -------
    angles : ndarray of float64, shape (n, head_dim // 2)
        ``[rows (x) omega | cols (x) omega]``, ready for :func:`apply_rope_angles`.

    Notes
    -----
    ``phi_j = r omega_j`` for ``j < d/4`` and ``phi_{d/4 + j} = c omega_j``. Rotations compose,
    so ``<R(r1, c1) q, R(r2, c2) k>`` depends on ``(r2 - r1, c2 - c1)`` only: the 1-D relative
    property on each half. Introduced in notebook 09_rope_in_todays_models.

    Examples
    --------
    >>> axial_rope_angles([0, 1], [2, 3], [1.0])
    array([[0., 2.],
           [1., 3.]])
    """
    r = check_positions("rows", rows)
    c = check_positions("cols", cols)
    if r.shape != c.shape:
        raise ValueError(f"rows and cols must have the same shape; got {r.shape} and {c.shape}")
    omega = check_array("inv_freq", inv_freq, ndim=1)
    if omega.size == 0:
        raise ValueError("inv_freq must have at least one entry; got shape (0,)")
    with np.errstate(over="ignore", invalid="ignore"):
        # phi = [r omega_j | c omega_j]
        angles = np.concatenate(
            [np.multiply.outer(r, omega), np.multiply.outer(c, omega)], axis=-1
        ).astype(np.float64)
    return _finite_result("the angles", angles)


# --------------------------------------------------------------------------- M-RoPE


def mrope_axes(mrope_section: ArrayLike, *, interleaved: bool = False) -> NDArray[np.int64]:
    """Return which position axis (0 = t, 1 = h, 2 = w) each RoPE pair reads in M-RoPE.

    Parameters
    ----------
    mrope_section : array_like of 3 ints
        Pairs given to (t, h, w), summing to ``head_dim // 2`` (Qwen2.5-VL: [16, 24, 24];
        Qwen3-VL: [24, 20, 20]).
    interleaved : bool, default False
        False: contiguous sections t | h | w (Qwen2-VL, Qwen2.5-VL). True: Qwen3-VL's layout,
        pair ``3j + 1`` reads h for ``j < h``, pair ``3j + 2`` reads w for ``j < w``, every
        other pair reads t.

    Returns
    -------
    axes : ndarray of int64, shape (sum(mrope_section),)

    Notes
    -----
    Contiguous: ``axis_i = k`` for ``i`` in the ``k``-th section. In the contiguous layout the
    slowest pairs all read w, so height and width get very different wavelengths; the
    interleaved layout spreads t, h and w over the whole frequency range.
    Introduced in notebook 09_rope_in_todays_models.

    References
    ----------
    Wang et al., "Qwen2-VL", arXiv 2409.12191 (M-RoPE); Hugging Face 5.23.0
    ``Qwen2_5_VLRotaryEmbedding.recomposition_frequencies`` (sections) and
    ``Qwen3VLTextRotaryEmbedding.recomposition_frequencies`` (interleaved).

    Examples
    --------
    >>> mrope_axes([2, 1, 1])
    array([0, 0, 1, 2])
    >>> mrope_axes([2, 1, 1], interleaved=True)
    array([0, 1, 2, 0])
    """
    section = check_array("mrope_section", mrope_section, ndim=1)
    if section.shape != (3,) or not np.issubdtype(section.dtype, np.integer):
        raise ValueError(
            f"mrope_section must be 3 integers (t, h, w pairs); got {section.tolist()}"
        )
    if np.any(section < 0) or section.sum() < 1 or section.sum() > _MAX_DIM:
        raise ValueError(
            f"mrope_section must be >= 0 with a sum in [1, {_MAX_DIM}]; got {section.tolist()}"
        )
    if not isinstance(interleaved, (bool, np.bool_)):
        raise TypeError(f"interleaved must be True or False; got {interleaved!r}")
    t, h, w = (int(v) for v in section)
    if not interleaved:
        # axis_i = k for i in section k
        return np.repeat(np.arange(3, dtype=np.int64), [t, h, w])
    if 3 * h > t + h + w + 1 or 3 * w > t + h + w:
        raise ValueError(
            "interleaved M-RoPE needs 3 * h <= n_pairs + 1 and 3 * w <= n_pairs (pairs "
            f"3j+1 and 3j+2 must exist); got mrope_section {section.tolist()}"
        )
    axes = np.zeros(t + h + w, dtype=np.int64)
    # pair 3j + 1 reads h (j < h), pair 3j + 2 reads w (j < w)
    axes[1 : 3 * h : 3] = 1
    axes[2 : 3 * w : 3] = 2
    return axes


def mrope_angles(
    positions_thw: ArrayLike,
    inv_freq: ArrayLike,
    mrope_section: ArrayLike,
    *,
    interleaved: bool = False,
) -> NDArray[np.float64]:
    """Return M-RoPE angles: pair ``i`` turns by its axis' position times ``theta_i``.

    Parameters
    ----------
    positions_thw : array_like, shape (3, seq)
        Temporal, height and width position of every token (text tokens: three equal rows).
    inv_freq : array_like, shape (head_dim // 2,)
        Frequencies (the default ones for Qwen2-VL / Qwen2.5-VL).
    mrope_section : array_like of 3 ints
        See :func:`mrope_axes`; must sum to ``len(inv_freq)``.
    interleaved : bool, default False
        Qwen3-VL's interleaved layout.

    Returns
    -------
    angles : ndarray of float64, shape (seq, head_dim // 2)
        ``phi[m, i] = positions_thw[axis_i, m] * theta_i``, for :func:`apply_rope_angles` with
        ``pairing="half"`` (Qwen's layout).

    Notes
    -----
    For text tokens the three rows are equal and M-RoPE is plain RoPE.
    Introduced in notebook 09_rope_in_todays_models.

    Examples
    --------
    >>> mrope_angles([[0, 0], [0, 1], [2, 3]], [1.0, 0.5, 0.25], [1, 1, 1])
    array([[0.  , 0.  , 0.5 ],
           [0.  , 0.5 , 0.75]])
    """
    pos = check_array("positions_thw", positions_thw, ndim=2).astype(np.float64, copy=False)
    if pos.shape[0] != 3:
        raise ValueError(f"positions_thw must have shape (3, seq); got {pos.shape}")
    theta = check_array("inv_freq", inv_freq, ndim=1).astype(np.float64, copy=False)
    axes = mrope_axes(mrope_section, interleaved=interleaved)
    if axes.shape != theta.shape:
        raise ValueError(
            f"mrope_section must sum to len(inv_freq) = {theta.shape[0]}; got {axes.shape[0]}"
        )
    with np.errstate(over="ignore", invalid="ignore"):
        # phi[m, i] = pos[axis_i, m] * theta_i
        angles = pos[axes, :].T * theta
    return _finite_result("the angles", angles)


def mrope_image_positions(
    n_before: int, grid_rows: int, grid_cols: int, n_after: int
) -> NDArray[np.int64]:
    """Return Qwen2-VL's (t, h, w) positions for text, one image of patches, then text.

    Parameters
    ----------
    n_before : int
        Text tokens before the image, >= 0.
    grid_rows, grid_cols : int
        Image grid in tokens (after the 2x2 spatial merge), >= 1 each.
    n_after : int
        Text tokens after the image, >= 0.

    Returns
    -------
    positions : ndarray of int64, shape (3, n_before + grid_rows * grid_cols + n_after)

    Notes
    -----
    Text before: ``t = h = w = 0 .. a-1``. Image token at (r, c): ``t = a``, ``h = a + r``,
    ``w = a + c`` (row-major). Text after starts at ``a + max(grid_rows, grid_cols)``, as in
    transformers 5.23.0's ``get_rope_index`` for a single still image. Introduced in notebook
    09_rope_in_todays_models.

    Examples
    --------
    >>> mrope_image_positions(1, 2, 2, 1)
    array([[0, 1, 1, 1, 1, 3],
           [0, 1, 1, 2, 2, 3],
           [0, 1, 2, 1, 2, 3]])
    """
    before = check_int("n_before", n_before, minimum=0)
    rows = check_int("grid_rows", grid_rows)
    cols = check_int("grid_cols", grid_cols)
    after = check_int("n_after", n_after, minimum=0)
    if before + rows * cols + after > _MAX_DIM * _MAX_DIM:
        raise ValueError(f"the sequence must have at most {_MAX_DIM**2} tokens")
    text = np.arange(before, dtype=np.int64)
    r, c = patch_grid_positions(rows, cols)
    # image token (r, c): (a, a + r, a + c)
    image = np.stack([np.full(r.shape, before), before + r, before + c])
    # text after: from a + max(rows, cols)
    tail = before + max(rows, cols) + np.arange(after, dtype=np.int64)
    return np.concatenate([np.stack([text] * 3), image, np.stack([tail] * 3)], axis=1)


# --------------------------------------------------------------------------- NoPE layers


def nope_layers(num_hidden_layers: int, no_rope_layer_interval: int = 4) -> NDArray[np.bool_]:
    """Return which layers use no positional encoding (NoPE): every ``interval``-th one.

    Parameters
    ----------
    num_hidden_layers : int
        Number of layers, >= 1.
    no_rope_layer_interval : int, default 4
        Every this-many layers is a NoPE layer (Llama 4, SmolLM3: 4), >= 1.

    Returns
    -------
    is_nope : ndarray of bool, shape (num_hidden_layers,)
        True for layers ``interval - 1, 2 interval - 1, ...``.

    Notes
    -----
    transformers stores the opposite flag, ``no_rope_layers[l] = int((l + 1) % interval != 0)``
    (1 = this layer uses RoPE). Introduced in notebook 09_rope_in_todays_models.

    References
    ----------
    Hugging Face ``Llama4TextConfig`` and ``SmolLM3Config`` (``no_rope_layer_interval``);
    Meta, "The Llama 4 herd" (iRoPE: interleaved NoPE layers).

    Examples
    --------
    >>> nope_layers(8)
    array([False, False, False,  True, False, False, False,  True])
    """
    layers = check_int("num_hidden_layers", num_hidden_layers)
    if layers > _MAX_DIM:
        raise ValueError(f"num_hidden_layers must be <= {_MAX_DIM}; got {layers}")
    interval = check_int("no_rope_layer_interval", no_rope_layer_interval)
    # NoPE where (l + 1) mod interval == 0
    return (np.arange(layers) + 1) % interval == 0


def nope_attention_scale(
    positions: ArrayLike, floor_scale: float = 8192.0, attn_scale: float = 0.1
) -> NDArray[np.float64]:
    """Return Llama 4's query scale for NoPE layers: ``1 + attn_scale * ln(1 + floor((m+1)/F))``.

    Parameters
    ----------
    positions : array_like, shape (seq,)
        Token positions ``m`` >= 0.
    floor_scale : float, default 8192.0
        ``F`` (``floor_scale`` in the config), > 0.
    attn_scale : float, default 0.1
        ``a`` (``attn_scale``), >= 0.

    Returns
    -------
    scale : ndarray of float64, shape (seq,)
        Multiplier of the query at each position (the logits grow by the same factor).

    Notes
    -----
    ``s(m) = ln(floor((m + 1) / F) + 1) a + 1``: exactly 1 for the first ``F - 1`` positions,
    then a step up every ``F`` tokens, growing like ``a ln(m / F)``. It sharpens attention in
    the NoPE layers at long context, where otherwise the softmax flattens over more and more
    keys. Applied only when ``attn_temperature_tuning`` is set and only to NoPE layers.
    Introduced in notebook 09_rope_in_todays_models.

    References
    ----------
    Hugging Face 5.23.0 ``Llama4TextAttention.forward``
    (``log1p(floor((positions + 1) / floor_scale)) * attn_scale + 1``); Nakanishi, "Scalable-
    Softmax Is Superior for Attention", arXiv 2501.19399.

    Examples
    --------
    >>> nope_attention_scale([0, 8190, 8191, 16383]).round(6)
    array([1.      , 1.      , 1.069315, 1.109861])
    """
    pos = check_positions("positions", positions).astype(np.float64, copy=False)
    if np.any(pos < 0):
        raise ValueError("positions must be >= 0")
    scale_f = check_float("floor_scale", floor_scale, greater_than=0.0)
    a = check_float("attn_scale", attn_scale, at_least=0.0)
    with np.errstate(over="ignore"):
        # s(m) = ln(floor((m + 1) / F) + 1) * a + 1
        scale = np.log1p(np.floor((pos + 1.0) / scale_f)) * a + 1.0
    return _finite_result("the scale", scale)


# --------------------------------------------------------------------------- DeepSeek MLA


def _check_rope_part(
    positions: Any, inv_freq: Any, n_tokens: int, rope_dim: int
) -> NDArray[np.float64]:
    pos = check_positions("positions", positions)
    if pos.shape[0] != n_tokens:
        raise ValueError(f"positions must have length n_tokens = {n_tokens}; got {pos.shape[0]}")
    theta = check_array("inv_freq", inv_freq, ndim=1)
    if theta.shape[0] * 2 != rope_dim:
        raise ValueError(
            f"inv_freq must have qk_rope_head_dim // 2 = {rope_dim // 2} entries; "
            f"got {theta.shape[0]}"
        )
    return rope_angles(pos, theta)


def _matmul(name: str, a: NDArray[Any], b: NDArray[Any]) -> NDArray[np.float64]:
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.matmul(a.astype(np.float64), b.astype(np.float64))
    return np.asarray(_finite_result(name, out), dtype=np.float64)


def mla_queries(
    c_q: ArrayLike,
    w_uq: ArrayLike,
    w_qr: ArrayLike,
    positions: ArrayLike,
    inv_freq: ArrayLike,
    *,
    pairing: str = "interleaved",
) -> NDArray[np.float64]:
    """Return MLA's decoupled queries: ``[c_q W_uq^h | RoPE_m(c_q W_qr^h)]`` for every head.

    Parameters
    ----------
    c_q : array_like, shape (n_tokens, q_lora_rank)
        Compressed query latents (DeepSeek-V3: rank 1536).
    w_uq : array_like, shape (heads, q_lora_rank, qk_nope_head_dim)
        Up-projection of the content part (128 per head in DeepSeek-V3), not rotated.
    w_qr : array_like, shape (heads, q_lora_rank, qk_rope_head_dim)
        Projection of the decoupled rotary part (64 per head), rotated by position.
    positions : array_like, shape (n_tokens,)
        Token positions.
    inv_freq : array_like, shape (qk_rope_head_dim // 2,)
        RoPE frequencies of the rotary part.
    pairing : {"interleaved", "half"}, default "interleaved"
        Pair layout of the rotary part.

    Returns
    -------
    queries : ndarray of float64, shape (heads, n_tokens, qk_nope_head_dim + qk_rope_head_dim)

    Notes
    -----
    ``q_t^h = [q^C | q^R] = [c_q W_uq^h | R_m (c_q W_qr^h)]``. Only the last
    ``qk_rope_head_dim`` dims carry position. Introduced in notebook 09_rope_in_todays_models.

    References
    ----------
    DeepSeek-AI, "DeepSeek-V2", arXiv 2405.04434, section 2.1.3 (decoupled RoPE), eqs. (12)-(19);
    Hugging Face ``DeepseekV3Attention``.

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
        raise ValueError(
            "w_uq and w_qr must have shapes (heads, q_lora_rank, ...) with q_lora_rank = "
            f"c_q.shape[1] = {latent.shape[1]}; got {up.shape} and {rope_w.shape}"
        )
    if rope_w.shape[2] < 2 or rope_w.shape[2] % 2:
        raise ValueError(f"qk_rope_head_dim = w_qr.shape[2] must be even; got {rope_w.shape[2]}")
    angles = _check_rope_part(positions, inv_freq, latent.shape[0], rope_w.shape[2])
    pairing = check_choice("pairing", pairing, PAIRINGS)
    # q^C = c_q W_uq^h (no rotation)
    content = _matmul("c_q @ w_uq", latent, up)
    # q^R = R_m (c_q W_qr^h)
    rotary = _rotate_by(_matmul("c_q @ w_qr", latent, rope_w), angles, pairing)
    return np.concatenate([content, rotary], axis=-1)


def mla_keys(
    c_kv: ArrayLike,
    w_uk: ArrayLike,
    x: ArrayLike,
    w_kr: ArrayLike,
    positions: ArrayLike,
    inv_freq: ArrayLike,
    *,
    pairing: str = "interleaved",
) -> NDArray[np.float64]:
    """Return MLA's decoupled keys: ``[c_kv W_uk^h | RoPE_m(x W_kr)]``, the rotary part shared.

    Parameters
    ----------
    c_kv : array_like, shape (n_tokens, kv_lora_rank)
        Compressed key-value latents (DeepSeek-V3: 512 per token, cached).
    w_uk : array_like, shape (heads, kv_lora_rank, qk_nope_head_dim)
        Up-projection of the key content part, per head, not rotated.
    x : array_like, shape (n_tokens, hidden_size)
        Hidden states the shared rotary key is projected from.
    w_kr : array_like, shape (hidden_size, qk_rope_head_dim)
        Projection of the single rotary key per token (64 dims), shared by all heads.
    positions : array_like, shape (n_tokens,)
        Token positions.
    inv_freq : array_like, shape (qk_rope_head_dim // 2,)
        RoPE frequencies of the rotary part.
    pairing : {"interleaved", "half"}, default "interleaved"
        Pair layout of the rotary part.

    Returns
    -------
    keys : ndarray of float64, shape (heads, n_tokens, qk_nope_head_dim + qk_rope_head_dim)
        The last ``qk_rope_head_dim`` dims are identical across heads.

    Notes
    -----
    ``k_t^h = [k^C | k^R] = [c_kv W_uk^h | R_m (x_t W_kr)]``. The cache keeps ``c_kv`` and the
    already rotated ``k^R``: ``kv_lora_rank + qk_rope_head_dim`` = 576 numbers per token and
    layer in DeepSeek-V3, instead of ``2 * heads * head_dim``. Introduced in notebook
    09_rope_in_todays_models.

    References
    ----------
    DeepSeek-AI, "DeepSeek-V2", arXiv 2405.04434, section 2.1.3, eqs. (14)-(19);
    Hugging Face ``DeepseekV3Attention`` (``kv_a_proj_with_mqa`` splits ``c_kv`` and ``k_pe``).

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
        raise ValueError(
            f"w_uk must have shape (heads, kv_lora_rank = {latent.shape[1]}, qk_nope_head_dim); "
            f"got {up.shape}"
        )
    if hidden.shape[0] != latent.shape[0] or rope_w.shape[0] != hidden.shape[1]:
        raise ValueError(
            f"x must have shape (n_tokens = {latent.shape[0]}, hidden_size) and w_kr "
            f"(hidden_size, qk_rope_head_dim); got {hidden.shape} and {rope_w.shape}"
        )
    if rope_w.shape[1] < 2 or rope_w.shape[1] % 2:
        raise ValueError(f"qk_rope_head_dim = w_kr.shape[1] must be even; got {rope_w.shape[1]}")
    angles = _check_rope_part(positions, inv_freq, latent.shape[0], rope_w.shape[1])
    pairing = check_choice("pairing", pairing, PAIRINGS)
    # k^C = c_kv W_uk^h (no rotation)
    content = _matmul("c_kv @ w_uk", latent, up)
    # k^R = R_m (x W_kr), one per token, shared by every head
    rotary = _rotate_by(_matmul("x @ w_kr", hidden, rope_w), angles, pairing)
    shared = np.broadcast_to(rotary, (up.shape[0], *rotary.shape))
    return np.concatenate([content, shared], axis=-1)


def mla_absorption_error(
    c_q: ArrayLike,
    c_kv: ArrayLike,
    w_uq: ArrayLike,
    w_uk: ArrayLike,
    positions: ArrayLike,
    inv_freq: ArrayLike,
) -> tuple[float, float]:
    """Show why MLA needs decoupled RoPE: with RoPE inside, ``W_uq R W_uk^T`` cannot be absorbed.

    Parameters
    ----------
    c_q : array_like, shape (n_tokens, q_lora_rank)
        Query latents.
    c_kv : array_like, shape (n_tokens, kv_lora_rank)
        Key latents (what MLA caches).
    w_uq : array_like, shape (q_lora_rank, head_dim)
        Query up-projection of one head.
    w_uk : array_like, shape (kv_lora_rank, head_dim)
        Key up-projection of the same head.
    positions : array_like, shape (n_tokens,)
        Token positions.
    inv_freq : array_like, shape (head_dim // 2,)
        RoPE frequencies applied (hypothetically) to the up-projected query and key.

    Returns
    -------
    error_without_rope : float
        ``max |S - S_abs| / max |S|`` when no RoPE sits between the projections: rounding only.
    error_with_rope : float
        The same when RoPE rotates the up-projected query and key: of order 1.

    Notes
    -----
    Without RoPE, ``s_mn = (c_q,m W_uq)(c_kv,n W_uk)^T = c_q,m (W_uq W_uk^T) c_kv,n^T``: one
    position-independent matrix ``W_uq W_uk^T`` can be absorbed into the query projection, and
    attention runs on the cached latents directly. With RoPE on the up-projected vectors,
    ``s_mn = c_q,m W_uq R_{n-m} W_uk^T c_kv,n^T``: the middle matrix depends on ``n - m``, so
    ``S_abs = C_q (W_uq W_uk^T) C_kv^T`` is wrong, and every cached key would need its up-
    projection recomputed at each step. Hence DeepSeek's separate rotary part (see
    :func:`mla_queries`, :func:`mla_keys`). Introduced in notebook 09_rope_in_todays_models.

    References
    ----------
    DeepSeek-AI, "DeepSeek-V2", arXiv 2405.04434, section 2.1.3.

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
    q_latent = check_array("c_q", c_q, ndim=2)
    kv_latent = check_array("c_kv", c_kv, ndim=2)
    up_q = check_array("w_uq", w_uq, ndim=2)
    up_k = check_array("w_uk", w_uk, ndim=2)
    if up_q.shape[0] != q_latent.shape[1] or up_k.shape[0] != kv_latent.shape[1]:
        raise ValueError(
            f"w_uq must have {q_latent.shape[1]} rows (c_q.shape[1]) and w_uk "
            f"{kv_latent.shape[1]} rows (c_kv.shape[1]); got {up_q.shape} and {up_k.shape}"
        )
    if up_q.shape[1] != up_k.shape[1] or up_q.shape[1] % 2:
        raise ValueError(
            f"w_uq and w_uk must share an even head_dim; got {up_q.shape} and {up_k.shape}"
        )
    if q_latent.shape[0] != kv_latent.shape[0]:
        raise ValueError(
            f"c_q and c_kv must have the same n_tokens; got {q_latent.shape} and {kv_latent.shape}"
        )
    angles = _check_rope_part(positions, inv_freq, q_latent.shape[0], up_q.shape[1])
    queries = _matmul("c_q @ w_uq", q_latent, up_q)
    keys = _matmul("c_kv @ w_uk", kv_latent, up_k)
    # absorbed: S_abs = C_q (W_uq W_uk^T) C_kv^T, one matrix for every pair of positions
    absorbed_w = _matmul("W_uq W_uk^T", up_q, up_k.T)
    absorbed = _matmul("S_abs", _matmul("c_q W", q_latent, absorbed_w), kv_latent.T)
    # without RoPE: S = (C_q W_uq)(C_kv W_uk)^T
    plain = _matmul("S", queries, keys.T)
    # with RoPE: S = R_m(C_q W_uq) . R_n(C_kv W_uk)
    rotated = _matmul(
        "S", _rotate_by(queries, angles, "interleaved"), _rotate_by(keys, angles, "interleaved").T
    )

    def relative(exact: NDArray[np.float64]) -> float:
        size = float(np.max(np.abs(exact)))
        if size == 0.0:
            raise ValueError("the scores are all zero; pass non-zero latents and projections")
        with np.errstate(over="ignore", invalid="ignore"):
            # max |S - S_abs| / max |S|
            gap = float(np.max(np.abs(exact - absorbed)) / size)
        if not math.isfinite(gap):
            raise ValueError("the scores overflow float64; scale the inputs down")
        return gap

    return relative(plain), relative(rotated)


# --------------------------------------------------------------------------- attention sinks


def attention_with_sink(
    scores: ArrayLike, sink: ArrayLike, *, mask: ArrayLike | None = None
) -> NDArray[np.float64]:
    """Return attention weights with a sink logit: softmax over ``[scores, sink]``, sink dropped.

    Parameters
    ----------
    scores : array_like, shape (..., n_queries, n_keys)
        Scaled logits ``q.k / sqrt(d)`` (e.g. ``(heads, n_queries, n_keys)``).
    sink : array_like, broadcastable to ``scores.shape[:-1]``
        The sink logit: a scalar, or gpt-oss's one learned value per head passed as
        ``sinks[:, None]`` for scores of shape (heads, n_queries, n_keys).
    mask : array_like of bool, broadcastable to ``scores.shape``, optional
        True where a query may attend to a key (e.g. causal); masked keys get weight 0.

    Returns
    -------
    weights : ndarray of float64, shape (..., n_queries, n_keys)
        Each row sums to ``1 - p_sink`` < 1: the sink absorbs the rest of the probability.

    Notes
    -----
    ``w_j = exp(s_j) / (sum_k exp(s_k) + exp(z))`` with ``z`` the sink logit: a softmax over the
    scores and one extra column, which is then dropped. A head can thereby attend to "nothing",
    instead of dumping its attention on the first token. ``z -> -inf`` gives the ordinary
    softmax. Introduced in notebook 09_rope_in_todays_models.

    References
    ----------
    openai/gpt-oss ``gpt_oss/torch/model.py`` (``sdpa``: ``cat([QK, S])``, softmax,
    ``W[..., :-1]``); Hugging Face ``GptOssAttention``; Xiao et al., "Efficient Streaming
    Language Models with Attention Sinks", arXiv 2309.17453.

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
        raise ValueError(
            f"sink must broadcast to scores.shape[:-1] = {logits.shape[:-1]}; got {z.shape}"
        ) from err
    allowed = None
    if mask is not None:
        allowed = np.asarray(mask)
        if allowed.dtype != np.bool_:
            raise TypeError(f"mask must be an array of bool; got dtype {allowed.dtype}")
        try:
            allowed = np.broadcast_to(allowed, logits.shape)
        except ValueError as err:
            raise ValueError(
                f"mask must broadcast to scores.shape = {logits.shape}; got {allowed.shape}"
            ) from err
    # logits of the extended row: [s_1 .. s_n, z], masked keys at -inf
    extended = np.concatenate([logits, z], axis=-1)
    if allowed is not None:
        extended[..., :-1] = np.where(allowed, logits, -np.inf)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        # softmax with the row maximum subtracted (the sink column is always finite)
        shifted = extended - extended.max(axis=-1, keepdims=True)
        exp = np.exp(shifted)
        weights = exp / exp.sum(axis=-1, keepdims=True)
    # drop the sink column
    return np.asarray(_finite_result("the weights", weights[..., :-1]), dtype=np.float64)

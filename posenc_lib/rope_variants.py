"""How today's models change RoPE: which dims rotate, and by which position.

=============================  ===================================================================
variant                        what changes (``theta_i = base**(-2i/d)``, position ``m``)
=============================  ===================================================================
partial rotary (GPT-NeoX)      only the first ``r = int(p d)`` dims rotate, with ``base**(-2i/r)``
p-RoPE (Barbero et al.)        the fastest ``floor(p d/2)`` pairs keep ``theta_i``, the rest 0
2-D axial (image patches)      half the pairs turn by the patch row, half by its column
M-RoPE (Qwen2-VL, Qwen2.5-VL)  contiguous sections of pairs read the t, h or w position
interleaved M-RoPE (Qwen3-VL)  pairs ``3j+1`` read h, ``3j+2`` read w, the rest t
=============================  ===================================================================

Each variant only chooses the angle ``phi[m, i]`` of pair ``i`` at row ``m``; the rotation itself
is :func:`posenc_lib.rope.apply_rope_angles`, and the angles are products ``m theta_i`` from
:func:`posenc_lib.frequencies.angles`. What surrounds RoPE in the attention layer (NoPE layers,
DeepSeek's decoupled RoPE, attention sinks) is in :mod:`posenc_lib.attention_variants`.

Everything is NumPy, in float64, with the position axis before the feature axis. Pairing
(``"interleaved"`` = (2i, 2i+1), ``"half"`` = (i, i + d/2)) is named as in
:mod:`posenc_lib.rope`.

Notebook: 09_rope_in_todays_models.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import (
    check_array,
    check_bool,
    check_choice,
    check_even,
    check_float,
    check_int,
    check_positions,
)
from posenc_lib.frequencies import angles, inverse_frequencies
from posenc_lib.rope import PAIRINGS, _check_pairs, apply_rope_angles

__all__ = [
    "partial_rotary_dims",
    "apply_partial_rope",
    "p_rope_frequencies",
    "axial_rope_frequencies",
    "patch_grid_positions",
    "axial_rope_angles",
    "mrope_axes",
    "mrope_angles",
    "mrope_image_positions",
]

_MAX_DIM = 1 << 16  # head sizes and grid sides beyond this are refused rather than allocated


def _finite_result(name: str, value: NDArray[Any]) -> NDArray[Any]:
    """Refuse a result that overflowed float64 (the inputs were finite but too large)."""
    if not np.all(np.isfinite(value)):
        raise ValueError(f"the result ({name}) overflows float64 for these inputs; scale them down")
    return value


def _check_dim(name: str, value: Any) -> int:
    dim = check_even(name, value)
    if dim > _MAX_DIM:
        raise ValueError(f"{name} must be <= {_MAX_DIM}; got {dim}")
    return dim


def _check_fraction(name: str, value: Any, *, allow_zero: bool) -> float:
    fraction = check_float(name, value)
    low_ok = fraction >= 0.0 if allow_zero else fraction > 0.0
    if not (low_ok and fraction <= 1.0):
        interval = "[0, 1]" if allow_zero else "(0, 1]"
        raise ValueError(f"{name} must be in {interval}; got {fraction}")
    return fraction


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
    ``r`` dims.

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


def apply_partial_rope(x: ArrayLike, positions: ArrayLike, partial_rotary_factor: float,
                       base: float = 10000.0, *, pairing: str = "half") -> NDArray[np.float64]:
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
    array = _check_pairs("x", x).astype(np.float64, copy=False)
    if array.ndim < 2:
        raise ValueError(f"x must have shape (..., seq, head_dim); got shape {array.shape}")
    pos = check_positions("positions", positions)
    if pos.shape[0] != array.shape[-2]:
        raise ValueError(
            f"positions must have length seq = {array.shape[-2]} (x.shape[-2]); got {pos.shape[0]}"
        )
    rotary = int(partial_rotary_dims(array.shape[-1], partial_rotary_factor).sum())
    pairing = check_choice("pairing", pairing, PAIRINGS)
    # theta_i = base^(-2i/r) over the rotated block only
    theta = inverse_frequencies(rotary, base)
    out = array.copy()
    with np.errstate(over="ignore", invalid="ignore"):
        # x'[..., :r] = R_m x[..., :r] with phi = m theta_i; x'[..., r:] = x[..., r:]
        out[..., :rotary] = apply_rope_angles(
            array[..., :rotary], angles(pos, theta), pairing=pairing
        )
    return _finite_result("the rotated vectors", out)


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
    ``theta'_i = theta_i`` for ``i < floor(p d / 2)`` and ``theta'_i = 0`` otherwise.
    p-RoPE removes the lowest frequencies (the slowest pairs, which Gemma uses as semantic
    channels) and keeps the highest ones, at their original values: the kept exponents still
    divide by ``head_dim``. A pair with frequency 0 never turns, so its dims act like NoPE.
    Unlike partial rotary, every dim stays in a pair and the kept frequencies are not respaced.
    The rounding ``floor(p d / 2)`` is the one of transformers' ``"proportional"`` rope type
    (``int(p * head_dim // 2)``).

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
    theta = inverse_frequencies(dim, base)
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
        ``theta_j = base**(-2j/(d/2))``: plain RoPE frequencies of a ``d/2``-dim half, shared by
        the row half and the column half.

    Notes
    -----
    ``theta_j = base**(-2j/(d/2)) = base**(-4j/d)`` for ``j = 0 .. d/4 - 1``. Each axis gets
    half the head, so its frequencies are those of a ``d/2``-dim RoPE, as in
    Qwen2.5-VL's vision encoder (``compute_axial_rope_parameters``).

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
    # theta_j = base^(-2j/(d/2))
    return inverse_frequencies(dim // 2, base)


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
    ``row_k = k // n_cols`` and ``col_k = k mod n_cols`` for ``k = 0 .. n_rows n_cols - 1``:
    the order in which a vision encoder flattens its grid of patches.

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
        ``[rows (x) theta | cols (x) theta]``, ready for
        :func:`posenc_lib.rope.apply_rope_angles`.

    Notes
    -----
    ``phi_j = r theta_j`` for ``j < d/4`` and ``phi_(d/4 + j) = c theta_j``. Rotations compose,
    so ``<R(r1, c1) q, R(r2, c2) k>`` depends on ``(r2 - r1, c2 - c1)`` only: the 1-D relative
    property on each half.

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
    with np.errstate(over="ignore"):  # angles() reports an overflow as a ValueError
        # phi = [r theta_j | c theta_j]
        return np.concatenate([angles(r, inv_freq), angles(c, inv_freq)], axis=-1)


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
    Contiguous: ``axis_i = k`` for ``i`` in the ``k``-th section. Interleaved:
    ``axis_(3j+1) = 1`` for ``j < h``, ``axis_(3j+2) = 2`` for ``j < w``, ``axis_i = 0``
    otherwise. In the contiguous layout the slowest pairs all read w, so height and width get
    very different wavelengths; the interleaved layout spreads t, h and w over the whole
    frequency range.

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
    interleaved = check_bool("interleaved", interleaved)
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


def mrope_angles(positions_thw: ArrayLike, inv_freq: ArrayLike, mrope_section: ArrayLike, *,
                 interleaved: bool = False) -> NDArray[np.float64]:
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
        ``phi[m, i] = positions_thw[axis_i, m] * theta_i``, for
        :func:`posenc_lib.rope.apply_rope_angles` with ``pairing="half"`` (Qwen's layout).

    Notes
    -----
    ``phi[m, i] = p[axis_i, m] theta_i`` with ``axis_i`` from :func:`mrope_axes`. For text tokens
    the three rows are equal and M-RoPE is plain RoPE.

    Examples
    --------
    >>> mrope_angles([[0, 0], [0, 1], [2, 3]], [1.0, 0.5, 0.25], [1, 1, 1])
    array([[0.  , 0.  , 0.5 ],
           [0.  , 0.5 , 0.75]])
    """
    pos = check_array("positions_thw", positions_thw, ndim=2).astype(np.float64, copy=False)
    if pos.shape[0] != 3:
        raise ValueError(f"positions_thw must have shape (3, seq); got {pos.shape}")
    theta = check_array("inv_freq", inv_freq, ndim=1)
    axes = mrope_axes(mrope_section, interleaved=interleaved)
    if axes.shape != theta.shape:
        raise ValueError(
            f"mrope_section must sum to len(inv_freq) = {theta.shape[0]}; got {axes.shape[0]}"
        )
    with np.errstate(over="ignore"):  # angles() reports an overflow as a ValueError
        per_axis = np.stack([angles(row, theta) for row in pos])  # (3, seq, n_pairs)
    # phi[m, i] = pos[axis_i, m] * theta_i
    return np.asarray(per_axis[axes, :, np.arange(axes.size)].T, dtype=np.float64)


def mrope_image_positions(n_before: int, grid_rows: int, grid_cols: int,
                          n_after: int) -> NDArray[np.int64]:
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
    transformers 5.23.0's ``get_rope_index`` for a single still image.

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

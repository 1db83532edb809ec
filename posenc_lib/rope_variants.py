"""How today's models change RoPE: which dims rotate, and by which position.

Partial rotary (GPT-NeoX), p-RoPE (arXiv 2410.06205), 2-D axial RoPE (arXiv 2403.13298) and
M-RoPE (Qwen2-VL, arXiv 2409.12191; interleaved in Qwen3-VL) each choose the angle of pair ``i``
at row ``m``; :func:`posenc_lib.rope.apply_rope_angles` rotates by it.

Notebook: 09_rope_in_todays_models.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from posenc_lib._checks import (
    check_array,
    check_bool,
    check_even,
    check_fraction,
    check_int,
    check_positions,
)
from posenc_lib.frequencies import angles, inverse_frequencies

__all__ = ["partial_rotary_dims", "p_rope_frequencies", "axial_rope_frequencies",
           "patch_grid_positions", "axial_rope_angles", "mrope_axes", "mrope_image_positions"]

_MAX_DIM = 1 << 16  # head sizes and grid sides beyond this are refused rather than allocated


def _finite_result(name: str, value: NDArray[Any]) -> NDArray[Any]:
    """Refuse a result that overflowed float64 (the inputs were finite but too large)."""
    if not np.all(np.isfinite(value)):
        raise ValueError(f"the result ({name}) overflows float64 for these inputs; scale them down")
    return value


def partial_rotary_dims(head_dim: int, partial_rotary_factor: float) -> NDArray[np.bool_]:
    """Return which dims of a head rotate under partial rotary (GPT-NeoX, Phi, Pythia).

    Parameters
    ----------
    head_dim, partial_rotary_factor : int, float
        Size of one head (even); fraction ``p`` in (0, 1] (GPT-NeoX's ``rotary_pct``).

    Returns
    -------
    rotates : ndarray of bool, shape (head_dim,)

    Notes
    -----
    The first ``r = int(p d)`` dims (even) rotate with ``theta_i = base**(-2i/r)``.

    Examples
    --------
    >>> partial_rotary_dims(8, 0.5)
    array([ True,  True,  True,  True, False, False, False, False])
    """
    dim = check_even("head_dim", head_dim, maximum=_MAX_DIM)
    p = check_fraction("partial_rotary_factor", partial_rotary_factor)
    return np.arange(dim) < rotary_dimension(dim, p)


def rotary_dimension(head_dim: int, p: float) -> int:
    """``r = int(p d)``, the rotated dims of a ``d``-dim head; a ValueError unless even, >= 2."""
    # r = int(p * d)
    rotary = int(head_dim * p)
    if rotary < 2 or rotary % 2:
        raise ValueError(
            f"the rotary dimension int(head_dim * partial_rotary_factor) = int({head_dim} * {p})"
            f" = {rotary} must be an even integer >= 2 (pairs)")
    return rotary


def p_rope_frequencies(head_dim: int, p: float, base: float = 10000.0) -> NDArray[np.float64]:
    """Return p-RoPE frequencies: the fastest fraction ``p`` of pairs rotate, the rest do not.

    Parameters
    ----------
    head_dim, p, base : int, float, float (default 10000.0)
        Size of one head (even); fraction of pairs kept in [0, 1] (0 is NoPE, 1 is RoPE); base.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)

    Notes
    -----
    ``theta'_i = base**(-2i/d)`` for ``i < floor(p d / 2)``, else 0 (transformers' "proportional").

    Examples
    --------
    >>> p_rope_frequencies(8, 0.5, 10000.0)
    array([1. , 0.1, 0. , 0. ])
    """
    dim = check_even("head_dim", head_dim, maximum=_MAX_DIM)
    fraction = check_fraction("p", p, allow_zero=True)
    theta = inverse_frequencies(dim, base)
    # keep = floor(p * d / 2) fastest pairs; theta_i = 0 for the others
    keep = int(fraction * dim // 2)
    return np.where(np.arange(dim // 2) < keep, theta, 0.0)


def axial_rope_frequencies(head_dim: int, base: float = 10000.0) -> NDArray[np.float64]:
    """Return the per-axis frequencies of 2-D axial RoPE: ``base**(-4j/head_dim)``.

    Parameters
    ----------
    head_dim, base : int, float (default 10000.0)
        Size of one head, a multiple of 4; RoPE base, > 1.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 4,), shared by rows and columns

    Notes
    -----
    ``theta_j = base**(-2j/(d/2)) = base**(-4j/d)``: a ``d/2``-dim RoPE per axis.

    Examples
    --------
    >>> axial_rope_frequencies(8, 100.0)
    array([1. , 0.1])
    """
    dim = check_even("head_dim", head_dim, maximum=_MAX_DIM)
    if dim % 4:
        raise ValueError(f"head_dim must be a multiple of 4 (row and column pairs); got {dim}")
    # theta_j = base^(-2j/(d/2))
    return inverse_frequencies(dim // 2, base)


def patch_grid_positions(n_rows: int, n_cols: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Return the row and column of every patch of an image grid, in row-major order.

    Parameters
    ----------
    n_rows, n_cols : int

    Returns
    -------
    rows, cols : ndarray of int64, shape (n_rows * n_cols,)

    Notes
    -----
    ``row_k = k // n_cols`` and ``col_k = k mod n_cols``.

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
        Row and column of every patch (:func:`patch_grid_positions`).
    inv_freq : array_like, shape (head_dim // 4,)

    Returns
    -------
    angles : ndarray of float64, shape (n, head_dim // 2)

    Notes
    -----
    ``phi_j = r theta_j`` for ``j < d/4`` and ``phi_(d/4 + j) = c theta_j``, so scores depend on
    ``(r2 - r1, c2 - c1)`` only.

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


def mrope_axes(mrope_section: ArrayLike, *, interleaved: bool = False) -> NDArray[np.int64]:
    """Return which position axis (0 = t, 1 = h, 2 = w) each RoPE pair reads in M-RoPE.

    Parameters
    ----------
    mrope_section : array_like of 3 ints
        Pairs given to (t, h, w), summing to ``head_dim // 2`` (Qwen2.5-VL: [16, 24, 24]).
    interleaved : bool, default False
        Qwen3-VL's layout instead of contiguous sections (Qwen2-VL, Qwen2.5-VL).

    Returns
    -------
    axes : ndarray of int64, shape (sum(mrope_section),)

    Notes
    -----
    Contiguous: ``axis_i = k`` for ``i`` in section ``k``. Interleaved: ``axis_(3j+1) = 1`` for
    ``j < h``, ``axis_(3j+2) = 2`` for ``j < w``, else 0.

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
            f"mrope_section must be 3 integers (t, h, w pairs); got {section.tolist()}")
    if np.any(section < 0) or section.sum() < 1 or section.sum() > _MAX_DIM:
        raise ValueError(
            f"mrope_section must be >= 0 with a sum in [1, {_MAX_DIM}]; got {section.tolist()}")
    interleaved = check_bool("interleaved", interleaved)
    t, h, w = (int(v) for v in section)
    if not interleaved:
        # axis_i = k for i in section k
        return np.repeat(np.arange(3, dtype=np.int64), [t, h, w])
    if 3 * h > t + h + w + 1 or 3 * w > t + h + w:
        raise ValueError(
            "interleaved M-RoPE needs 3 * h <= n_pairs + 1 and 3 * w <= n_pairs (pairs "
            f"3j+1 and 3j+2 must exist); got mrope_section {section.tolist()}")
    axes = np.zeros(t + h + w, dtype=np.int64)
    # pair 3j + 1 reads h (j < h), pair 3j + 2 reads w (j < w)
    axes[1 : 3 * h : 3] = 1
    axes[2 : 3 * w : 3] = 2
    return axes


def mrope_image_positions(n_before: int, grid_rows: int, grid_cols: int,
                          n_after: int) -> NDArray[np.int64]:
    """Return Qwen2-VL's (t, h, w) positions for text, one image of patches, then text.

    Parameters
    ----------
    n_before, grid_rows, grid_cols, n_after : int
        Text tokens before, image grid after the 2x2 merge, text tokens after.

    Returns
    -------
    positions : ndarray of int64, shape (3, n_before + grid_rows * grid_cols + n_after)

    Notes
    -----
    Text before: ``t = h = w = 0 .. a-1``; image token (r, c): ``(a, a + r, a + c)``; text after
    from ``a + max(grid_rows, grid_cols)`` (transformers' ``get_rope_index``, one still image).

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

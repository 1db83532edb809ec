"""The sinusoidal positional encoding of "Attention Is All You Need".

Angles are formed in float64 whatever the output dtype. Reference: Vaswani et al., "Attention
Is All You Need", NeurIPS 2017, section 3.5.

Notebook: 02_sinusoidal_formula (notebook 08 uses it at position 2**20).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from posenc_lib._checks import (
    check_array,
    check_choice,
    check_even,
    check_float,
    check_float_dtype,
    check_int,
    check_positions,
)
from posenc_lib.frequencies import angles, inverse_frequencies

__all__ = ["sinusoidal_encoding", "sinusoidal_encoding_at", "encoding_from_frequencies",
           "tensor2tensor_frequencies"]

_LAYOUTS = ("interleaved", "concat")
_BLOCK_ELEMENTS = 1 << 17  # bounds the float64 angles held at once (1 MiB)


def encoding_from_frequencies(positions: ArrayLike, inv_freq: ArrayLike, *,
                              layout: str = "interleaved",
                              dtype: DTypeLike = np.float64) -> NDArray[Any]:
    """Return the sin/cos encoding of ``positions`` for any given frequencies.

    Parameters
    ----------
    positions : array_like, shape (n,)
        The positions to encode, one row each.
    inv_freq : array_like, shape (m,)
        Each pair's frequency ``theta_i``, radians per position.
    layout, dtype
        As for :func:`sinusoidal_encoding` (sin/cos evaluated in float64, then cast once).

    Returns
    -------
    encoding : ndarray, shape (n, 2 m), dtype ``dtype``
        Row ``t`` holds ``sin(t theta_i)`` and ``cos(t theta_i)`` of every pair, as ``layout``
        places them.

    Notes
    -----
    ``PE[pos, 2i] = sin(pos theta_i)`` and ``PE[pos, 2i+1] = cos(pos theta_i)``.

    Examples
    --------
    >>> np.round(encoding_from_frequencies([0, 1], [1.0, 0.5], layout="concat"), 6)
    array([[0.      , 0.      , 1.      , 1.      ],
           [0.841471, 0.479426, 0.540302, 0.877583]])
    """
    layout = check_choice("layout", layout, _LAYOUTS)
    out_dtype = check_float_dtype("dtype", dtype)
    pos = check_positions("positions", positions)
    theta = check_array("inv_freq", inv_freq, ndim=1)
    n, m = pos.shape[0], theta.shape[0]
    out = np.empty((n, 2 * m), dtype=out_dtype)
    if layout == "interleaved":
        sin_part, cos_part = out[:, 0::2], out[:, 1::2]
    else:
        sin_part, cos_part = out[:, :m], out[:, m:]
    rows = max(1, _BLOCK_ELEMENTS // max(m, 1))  # a block of float64 angles at a time
    for block in (slice(start, start + rows) for start in range(0, max(n, 1), rows)):
        phi = angles(pos[block], theta)
        # PE[pos, 2i] = sin(pos theta_i), PE[pos, 2i+1] = cos(pos theta_i)
        np.sin(phi, out=sin_part[block], casting="same_kind")
        np.cos(phi, out=cos_part[block], casting="same_kind")
    return out


def sinusoidal_encoding_at(positions: ArrayLike, d_model: int, base: float = 10000.0, *,
                           layout: str = "interleaved",
                           dtype: DTypeLike = np.float64) -> NDArray[Any]:
    """Return the encoding rows of arbitrary (huge, negative or fractional) positions.

    Parameters
    ----------
    positions : array_like, shape (n,)
        Integers (exact up to 2**53) or floats.
    d_model, base, layout, dtype
        As for :func:`sinusoidal_encoding`.

    Returns
    -------
    encoding : ndarray, shape (n, d_model), dtype ``dtype``
        One row per position, in the order given.

    Notes
    -----
    ``PE[pos, 2i] = sin(pos / base**(2i/d))``, ``PE[pos, 2i+1] = cos(pos / base**(2i/d))``.

    Examples
    --------
    >>> np.round(sinusoidal_encoding_at([3], 4), 6)
    array([[ 0.14112 , -0.989992,  0.029996,  0.99955 ]])
    """
    inv_freq = inverse_frequencies(check_even("d_model", d_model), base)
    return encoding_from_frequencies(positions, inv_freq, layout=layout, dtype=dtype)


def sinusoidal_encoding(n_positions: int, d_model: int, base: float = 10000.0, *,
                        layout: str = "interleaved", dtype: DTypeLike = np.float64) -> NDArray[Any]:
    """Return the positional-encoding matrix of positions ``0 .. n_positions - 1``.

    Parameters
    ----------
    n_positions, d_model : int
        Number of positions; model width, even.
    base : float, default 10000.0
        The base of the frequencies ``theta_i = base**(-2i/d)`` (> 1).
    layout : {"interleaved", "concat"}, default "interleaved"
        The paper's (sin, cos) pairs, or tensor2tensor's [all sin | all cos].
    dtype : {float16, float32, float64}, default float64
        The format of the result (sin/cos evaluated in float64, then cast once).

    Returns
    -------
    encoding : ndarray, shape (n_positions, d_model), dtype ``dtype``
        Row ``t`` is ``PE(t)``, the encoding of position ``t``.

    Notes
    -----
    ``PE[pos, 2i] = sin(pos theta_i)``, ``PE[pos, 2i+1] = cos(pos theta_i)`` with
    ``theta_i = base**(-2i/d_model)``; every row has norm ``sqrt(d_model / 2)``.

    Examples
    --------
    >>> np.round(sinusoidal_encoding(3, 4), 6)
    array([[ 0.      ,  1.      ,  0.      ,  1.      ],
           [ 0.841471,  0.540302,  0.01    ,  0.99995 ],
           [ 0.909297, -0.416147,  0.019999,  0.9998  ]])
    """
    n_positions = check_int("n_positions", n_positions)
    positions = np.arange(n_positions, dtype=np.int64)
    return sinusoidal_encoding_at(positions, d_model, base, layout=layout, dtype=dtype)


def tensor2tensor_frequencies(d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    """Return the frequencies as tensor2tensor's ``get_timing_signal_1d`` spaces them.

    Parameters
    ----------
    d_model, base : int, float, default base 10000.0
        Model width (even); the ratio of the fastest frequency to the slowest (> 1).

    Returns
    -------
    inv_freq : ndarray of float64, shape (d_model // 2,), from 1 down to exactly ``1/base``

    Notes
    -----
    ``theta_i = exp(-i ln(base) / (n - 1))`` with ``n = d_model/2``: the paper divides by ``n``.

    Examples
    --------
    >>> print(np.array2string(tensor2tensor_frequencies(4), precision=6))
    [1.e+00 1.e-04]
    """
    d_model = check_even("d_model", d_model, minimum=4)
    base = check_float("base", base, greater_than=1.0)
    n = d_model // 2
    # theta_i = exp(-i ln(base) / (n - 1))
    return np.exp(-np.arange(n, dtype=np.float64) * np.log(base) / (n - 1))

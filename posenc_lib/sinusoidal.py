"""The sinusoidal positional encoding of "Attention Is All You Need", built step by step.

Introduced in notebook 02_sinusoidal_formula.

Conventions used throughout the course:

* pair ``i`` (``i = 0 .. d_model/2 - 1``) turns at the angular frequency
  ``omega_i = base ** (-2 i / d_model)``;
* the *interleaved* layout (the paper's) puts ``sin(pos * omega_i)`` in column ``2i`` and
  ``cos(pos * omega_i)`` in column ``2i + 1``;
* the *concat* layout (tensor2tensor's) puts all the sines first, then all the cosines;
* angles are always computed in float64, whatever the output dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

from posenc_lib._checks import (
    check_array,
    check_choice,
    check_even,
    check_float,
    check_int,
    check_positions,
)

__all__ = [
    "frequencies",
    "wavelengths",
    "angles",
    "encoding_from_frequencies",
    "sinusoidal_encoding_at",
    "sinusoidal_encoding",
    "tensor2tensor_frequencies",
    "concat_permutation",
    "check_float_dtype",
]

LAYOUTS = ("interleaved", "concat")
FLOAT_DTYPES = ("float16", "float32", "float64")
_BLOCK_ELEMENTS = 1 << 16  # angles computed per block: bounds the float64 temporary (512 KiB)


def check_float_dtype(name: str, value: Any) -> np.dtype[Any]:
    """Return ``value`` as a NumPy float dtype (float16, float32 or float64), or raise.

    Accepts dtype objects (``np.dtype("float32")``), scalar types (``np.float32``) and strings
    (``"float32"``). Introduced in notebook 02_sinusoidal_formula.

    Parameters
    ----------
    name : str
        Parameter name used in the error message.
    value : dtype-like
        The dtype to check.

    Returns
    -------
    numpy.dtype
        One of ``float16``, ``float32``, ``float64``.

    Examples
    --------
    >>> check_float_dtype("dtype", "float32")
    dtype('float32')
    """
    if not isinstance(value, (str, type, np.dtype)):
        raise TypeError(f"{name} must be one of {', '.join(FLOAT_DTYPES)}; got {value!r}")
    try:
        dtype: np.dtype[Any] = np.dtype(value)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be one of {', '.join(FLOAT_DTYPES)}; got {value!r}") from err
    if dtype.name not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be one of {', '.join(FLOAT_DTYPES)}; got dtype {dtype.name}")
    return dtype


def _check_angle_range(positions: NDArray[np.float64], omega: NDArray[np.float64]) -> None:
    """Raise if some angle pos * omega would overflow float64 (sin/cos of inf is NaN)."""
    if positions.size and omega.size:
        largest = float(np.max(np.abs(positions))) * float(np.max(np.abs(omega)))
        if not np.isfinite(largest):
            raise ValueError(
                "positions * omega must stay finite in float64; got |positions| up to "
                f"{float(np.max(np.abs(positions))):g} and |omega| up to "
                f"{float(np.max(np.abs(omega))):g}"
            )


def frequencies(d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    """Angular frequency of every (sin, cos) pair: the "division term" of the formula.

    Introduced in notebook 02_sinusoidal_formula.

    Parameters
    ----------
    d_model : int
        Model width, even and >= 2.
    base : float, default 10000.0
        The base of the geometric progression, > 1.

    Returns
    -------
    numpy.ndarray, shape (d_model // 2,), float64
        ``omega[i]`` for ``i = 0 .. d_model/2 - 1``, from 1 down to ``base ** (-(d-2)/d)``.

    Notes
    -----
    .. math:: \\omega_i = \\frac{1}{\\text{base}^{2i/d_{model}}} = \\text{base}^{-2i/d_{model}}
              = \\exp\\left(-\\frac{2i}{d_{model}} \\ln \\text{base}\\right)

    References
    ----------
    Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.5.

    Examples
    --------
    >>> np.round(frequencies(4), 6)
    array([1.  , 0.01])
    """
    d_model = check_even("d_model", d_model)
    base = check_float("base", base, greater_than=1.0)
    two_i = np.arange(0, d_model, 2, dtype=np.float64)
    # omega_i = base ** (-2i / d_model)
    return np.power(base, -two_i / d_model)


def wavelengths(d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    """Wavelength (in positions) of every (sin, cos) pair.

    Introduced in notebook 02_sinusoidal_formula.

    Parameters
    ----------
    d_model : int
        Model width, even and >= 2.
    base : float, default 10000.0
        Base of the frequencies, > 1.

    Returns
    -------
    numpy.ndarray, shape (d_model // 2,), float64
        ``lambda[i]``: a geometric progression from ``2 pi`` to ``2 pi * base ** ((d-2)/d)``.

    Notes
    -----
    .. math:: \\lambda_i = \\frac{2\\pi}{\\omega_i} = 2\\pi \\, \\text{base}^{2i/d_{model}}

    Examples
    --------
    >>> np.round(wavelengths(4, base=100.0), 6)
    array([ 6.283185, 62.831853])
    """
    # lambda_i = 2 pi / omega_i
    return 2.0 * np.pi / frequencies(d_model, base)


def angles(positions: Any, d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    """The angle ``theta = pos * omega_i`` for every position and every pair, in float64.

    Introduced in notebook 02_sinusoidal_formula.

    Parameters
    ----------
    positions : array_like, shape (n,)
        Positions: ints or floats, any finite values (negative offsets allowed).
    d_model : int
        Model width, even and >= 2.
    base : float, default 10000.0
        Base of the frequencies, > 1.

    Returns
    -------
    numpy.ndarray, shape (n, d_model // 2), float64
        ``theta[p, i] = positions[p] * omega[i]``.

    Notes
    -----
    .. math:: \\theta_{pos, i} = pos \\cdot \\omega_i = \\frac{pos}{\\text{base}^{2i/d_{model}}}

    Examples
    --------
    >>> np.round(angles([0, 1, 2], 4), 6)
    array([[0.  , 0.  ],
           [1.  , 0.01],
           [2.  , 0.02]])
    """
    positions = check_positions("positions", positions).astype(np.float64)
    omega = frequencies(d_model, base)
    _check_angle_range(positions, omega)
    # theta[p, i] = pos_p * omega_i
    return np.asarray(np.multiply.outer(positions, omega), dtype=np.float64)


def encoding_from_frequencies(
    positions: Any,
    omega: Any,
    *,
    layout: str = "interleaved",
    dtype: DTypeLike = np.float64,
) -> NDArray[Any]:
    """Sin/cos encoding of ``positions`` for any given set of frequencies.

    The workhorse behind :func:`sinusoidal_encoding_at`; use it directly for other frequency
    spacings, e.g. ``encoding_from_frequencies(np.arange(50), tensor2tensor_frequencies(128),
    layout="concat")`` is tensor2tensor's encoding. Introduced in notebook 02_sinusoidal_formula.

    Parameters
    ----------
    positions : array_like, shape (n,)
        Positions (ints or finite floats).
    omega : array_like, shape (m,)
        Angular frequencies (finite).
    layout : {"interleaved", "concat"}, default "interleaved"
        "interleaved": column 2i = sin, 2i+1 = cos. "concat": [all sin | all cos].
    dtype : {float16, float32, float64}, default float64
        Output dtype. The angles and sin/cos are always evaluated in float64, then cast once.

    Returns
    -------
    numpy.ndarray, shape (n, 2 m), dtype ``dtype``

    Notes
    -----
    .. math:: PE[pos, 2i] = \\sin(pos\\,\\omega_i), \\qquad PE[pos, 2i+1] = \\cos(pos\\,\\omega_i)

    The angle array is built block by block (at most 65536 angles at a time) and ``np.sin`` /
    ``np.cos`` write straight into strided views of the preallocated output, so the peak extra
    memory is a small constant, not a multiple of the output.

    Examples
    --------
    >>> np.round(encoding_from_frequencies([0, 1], [1.0, 0.5], layout="concat"), 6)
    array([[0.      , 0.      , 1.      , 1.      ],
           [0.841471, 0.479426, 0.540302, 0.877583]])
    """
    positions = check_positions("positions", positions).astype(np.float64, copy=False)
    omega = check_array("omega", omega, ndim=1).astype(np.float64, copy=False)
    layout = check_choice("layout", layout, LAYOUTS)
    out_dtype = check_float_dtype("dtype", dtype)
    _check_angle_range(positions, omega)
    n, m = positions.shape[0], omega.shape[0]
    out = np.empty((n, 2 * m), dtype=out_dtype)
    if layout == "interleaved":
        sin_part, cos_part = out[:, 0::2], out[:, 1::2]
    else:
        sin_part, cos_part = out[:, :m], out[:, m:]
    rows = max(1, _BLOCK_ELEMENTS // max(m, 1))
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        # theta = pos * omega, in float64
        theta = np.multiply.outer(positions[start:stop], omega)
        # PE[:, 2i] = sin(theta), PE[:, 2i+1] = cos(theta), cast once on the way out
        np.sin(theta, out=sin_part[start:stop], casting="same_kind")
        np.cos(theta, out=cos_part[start:stop], casting="same_kind")
    return out


def sinusoidal_encoding_at(
    positions: Any,
    d_model: int,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
    dtype: DTypeLike = np.float64,
) -> NDArray[Any]:
    """Sinusoidal encoding rows for arbitrary (possibly huge or fractional) positions.

    Introduced in notebook 02_sinusoidal_formula; notebook 08 uses it at position 2**20.

    Parameters
    ----------
    positions : array_like, shape (n,)
        Positions: ints or finite floats. Integer positions are converted to float64 exactly
        (up to 2**53).
    d_model : int
        Model width, even and >= 2.
    base : float, default 10000.0
        Base of the frequencies, > 1.
    layout : {"interleaved", "concat"}, default "interleaved"
        Column order, see :func:`sinusoidal_encoding`.
    dtype : {float16, float32, float64}, default float64
        Output dtype; angles are computed in float64 regardless.

    Returns
    -------
    numpy.ndarray, shape (n, d_model), dtype ``dtype``

    Notes
    -----
    .. math:: PE[pos, 2i] = \\sin\\left(\\frac{pos}{\\text{base}^{2i/d}}\\right), \\qquad
              PE[pos, 2i+1] = \\cos\\left(\\frac{pos}{\\text{base}^{2i/d}}\\right)

    Examples
    --------
    >>> np.round(sinusoidal_encoding_at([3], 4), 6)
    array([[ 0.14112 , -0.989992,  0.029996,  0.99955 ]])
    """
    positions = check_positions("positions", positions)
    omega = frequencies(d_model, base)
    return encoding_from_frequencies(positions, omega, layout=layout, dtype=dtype)


def sinusoidal_encoding(
    n_positions: int,
    d_model: int,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
    dtype: DTypeLike = np.float64,
) -> NDArray[Any]:
    """The positional-encoding matrix for positions ``0 .. n_positions - 1`` (stable API).

    Introduced in notebook 02_sinusoidal_formula.

    Parameters
    ----------
    n_positions : int
        Number of positions, >= 1. Positions are built with an integer ``arange``.
    d_model : int
        Model width, even and >= 2.
    base : float, default 10000.0
        Base of the frequencies, > 1 (the paper uses 10000).
    layout : {"interleaved", "concat"}, default "interleaved"
        "interleaved" (the paper): column 2i is sin, column 2i+1 is cos of the same angle.
        "concat" (tensor2tensor): [all sin | all cos], with the SAME frequencies, i.e.
        ``sinusoidal_encoding(n, d, layout="concat") ==
        sinusoidal_encoding(n, d)[:, concat_permutation(d)]``.
    dtype : {float16, float32, float64}, default float64
        Output dtype; the angles are computed in float64 whatever this is.

    Returns
    -------
    numpy.ndarray, shape (n_positions, d_model), dtype ``dtype``

    Notes
    -----
    .. math:: PE[pos, 2i] = \\sin(pos\\,\\omega_i), \\quad PE[pos, 2i+1] = \\cos(pos\\,\\omega_i),
              \\quad \\omega_i = \\text{base}^{-2i/d_{model}}

    Every row has norm ``sqrt(d_model / 2)`` because ``sin^2 + cos^2 = 1`` for each pair.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.5.

    Examples
    --------
    >>> np.round(sinusoidal_encoding(4, 4), 6)
    array([[ 0.      ,  1.      ,  0.      ,  1.      ],
           [ 0.841471,  0.540302,  0.01    ,  0.99995 ],
           [ 0.909297, -0.416147,  0.019999,  0.9998  ],
           [ 0.14112 , -0.989992,  0.029996,  0.99955 ]])
    """
    n_positions = check_int("n_positions", n_positions)
    positions = np.arange(n_positions, dtype=np.int64)
    return sinusoidal_encoding_at(positions, d_model, base, layout=layout, dtype=dtype)


def tensor2tensor_frequencies(d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    """Frequencies as spaced by tensor2tensor's ``get_timing_signal_1d``.

    tensor2tensor divides ``ln(base)`` by ``n - 1`` (``n = d_model/2`` timescales) instead of
    by ``d_model/2``, so its slowest frequency is exactly ``1/base`` rather than the paper's
    ``base ** (-(d-2)/d)``. Introduced in notebook 02_sinusoidal_formula.

    Parameters
    ----------
    d_model : int
        Model width, even and >= 4 (two timescales are needed for the spacing).
    base : float, default 10000.0
        The maximum timescale, > 1.

    Returns
    -------
    numpy.ndarray, shape (d_model // 2,), float64
        From 1 down to ``1/base``.

    Notes
    -----
    .. math:: \\omega_i = \\exp\\left(-i \\, \\frac{\\ln \\text{base}}{n - 1}\\right),
              \\quad n = d_{model}/2, \\quad i = 0 .. n-1

    References
    ----------
    tensor2tensor, ``tensor2tensor/layers/common_attention.py``, ``get_timing_signal_1d``
    (min_timescale=1, max_timescale=base).

    Examples
    --------
    >>> print(np.array2string(tensor2tensor_frequencies(4), precision=6))
    [1.e+00 1.e-04]
    """
    d_model = check_even("d_model", d_model, minimum=4)
    base = check_float("base", base, greater_than=1.0)
    n = d_model // 2
    # log_increment = ln(base) / (n - 1)
    log_increment = np.log(base) / (n - 1)
    # omega_i = exp(-i * log_increment)
    return np.asarray(np.exp(-np.arange(n, dtype=np.float64) * log_increment), dtype=np.float64)


def concat_permutation(d_model: int) -> NDArray[np.int64]:
    """Column permutation taking the interleaved layout to the concat layout.

    Introduced in notebook 02_sinusoidal_formula.

    Parameters
    ----------
    d_model : int
        Model width, even and >= 2.

    Returns
    -------
    numpy.ndarray, shape (d_model,), int64
        ``perm = [0, 2, 4, ..., 1, 3, 5, ...]`` so that
        ``enc_concat == enc_interleaved[:, perm]``.

    Examples
    --------
    >>> concat_permutation(6)
    array([0, 2, 4, 1, 3, 5])
    """
    d_model = check_even("d_model", d_model)
    # perm = [even columns (sin) ..., odd columns (cos) ...]
    return np.concatenate(
        [np.arange(0, d_model, 2, dtype=np.int64), np.arange(1, d_model, 2, dtype=np.int64)]
    )

"""The running scorecard: candidate position encodings against what a good encoding needs.

Every "yes" or "no" is computed on the codes a scheme gives positions; ALiBi, Shaw and T5,
which act per offset inside attention, on their matrices of offset codes.

Notebooks: 00_why_position opens it; 01-03 fill it in; 07_other_schemes completes it.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_choice, check_int
from posenc_lib.bias import alibi_bias, shaw_relative_index, t5_relative_position_bucket
from posenc_lib.binary import binary_table
from posenc_lib.learned import learned_table
from posenc_lib.sinusoidal import sinusoidal_encoding_at

__all__ = ["BIAS_SCHEMES", "COST_SCHEMES", "parameter_count", "CRITERIA", "SCHEMES",
           "CannotEncode", "encode", "evaluate", "scorecard"]

SCHEMES: tuple[str, ...] = (
    "integer", "normalised", "binary", "sinusoidal", "learned", "rope", "alibi",
)  # fmt: skip
BIAS_SCHEMES: tuple[str, ...] = ("shaw", "t5")  # learned offset terms, rows of notebook 07
_SHAW_K, _T5_BUCKETS = 16, 32  # Shaw's clipping k and T5's buckets B, as in the cost table

CRITERIA: dict[str, str] = {
    "unique": "every position gets its own code",
    "length-free": "a position's code does not depend on the sentence length",
    "bounded": "values do not grow with the length",
    "deterministic": "the same code every time, with no training or random draw",
    "extends": "unseen, longer positions get new codes, within the range already seen",
    "relative": "one fixed linear map shifts every code by k positions",
}

_D_MODEL = 16
_LENGTH = 64


class CannotEncode(ValueError):
    """Raised when a scheme has no code for a position (a table or bit width runs out)."""


def encode(scheme: str, positions: Iterable[int], *, sentence_length: int | None = None,
           trained_length: int = _LENGTH, seed: int = 0) -> NDArray[np.float64]:
    """Codes of ``positions`` under ``scheme`` for a model built for ``trained_length`` tokens.

    Parameters
    ----------
    scheme : str
        One of :data:`SCHEMES` but "alibi" (no vector per position).
    positions : iterable of int
    sentence_length : int, optional
        The normalised index's divisor + 1; defaults to the largest position + 1.
    trained_length, seed : int
        Bits of the binary code and rows of the learned table; the table's seed (the width is
        16).

    Returns
    -------
    ndarray, shape (n_positions, width)

    Raises
    ------
    CannotEncode
        A binary code with too few bits, or a learned table with no row for the position.

    Notes
    -----
    integer: ``pos``; normalised: ``pos / (sentence_length - 1)``; binary: the bits of pos;
    sinusoidal: ``PE(pos)``; learned: a table row; rope: ``[cos(pos theta_i), sin(pos theta_i)]``.

    Examples
    --------
    >>> encode("binary", [5], trained_length=8)
    array([[1., 0., 1.]])
    """
    scheme = check_choice("scheme", scheme, SCHEMES[:-1])
    trained_length = check_int("trained_length", trained_length, minimum=2)
    pos = np.asarray([check_int("positions", p, minimum=0) for p in positions], dtype=np.int64)
    if sentence_length is None:
        sentence_length = int(pos.max(initial=0)) + 1
    sentence_length = check_int("sentence_length", sentence_length, minimum=2)
    if scheme == "integer":
        return pos[:, None].astype(np.float64)
    if scheme == "normalised":
        return (pos / (sentence_length - 1))[:, None]
    if scheme == "binary":
        n_bits = int(trained_length - 1).bit_length()
        if pos.max(initial=0) >= 2**n_bits:
            raise CannotEncode(f"{n_bits} bits hold positions below {2**n_bits} only")
        return binary_table(2**n_bits, n_bits)[pos].astype(np.float64)
    if scheme == "learned":
        if pos.max(initial=0) >= trained_length:
            raise CannotEncode(f"the learned table has rows for positions below {trained_length}")
        return learned_table(trained_length, _D_MODEL, seed=seed)[pos]
    code = sinusoidal_encoding_at(pos, _D_MODEL)
    # rope rotates pair i by pos*theta_i: (cos, sin) = (PE[2i+1], PE[2i])
    return code if scheme == "sinusoidal" else code[:, [i ^ 1 for i in range(_D_MODEL)]]


# --- the checks: each returns True/False from a computation -------------------------------
# ``codes(positions, sentence_length, trained_length[, seed])`` is one scheme's encode function.
_Codes = Callable[..., NDArray[np.float64]]


def _check_unique(codes: _Codes) -> bool:
    """The smallest distance between two different positions' codes is above zero."""
    c = codes(range(_LENGTH), _LENGTH, _LENGTH)
    distances = np.linalg.norm(c[:, None, :] - c[None, :, :], axis=-1)
    np.fill_diagonal(distances, np.inf)
    return bool(distances.min() > 1e-9)


def _check_length_free(codes: _Codes) -> bool:
    """Positions 0..4 get the same codes in a 5-token and in a 50-token sentence."""
    return bool(np.allclose(codes(range(5), 5, _LENGTH), codes(range(5), 50, _LENGTH)))


def _check_bounded(codes: _Codes) -> bool:
    """A model for 4096 tokens uses values at most twice as large as a model for 64 tokens."""
    small = np.abs(codes(range(64), 64, 64)).max()
    large = np.abs(codes(range(4096), 4096, 4096)).max()
    return bool(large <= 2 * small)


def _check_deterministic(codes: _Codes) -> bool:
    """Two independent builds (random seeds 0 and 1) give identical codes."""
    first, other = (codes(range(_LENGTH), _LENGTH, _LENGTH, seed) for seed in (0, 1))
    return bool(np.array_equal(first, other))


def check_extends(codes: _Codes, *, per_dimension: bool = False) -> bool:
    """Positions 2L..3L get new codes inside the range seen for 0..L-1 (1% of the span allowed; with
    ``per_dimension``, every dimension inside its own interval).
    """
    seen = codes(range(_LENGTH), _LENGTH, _LENGTH)
    try:
        unseen = codes(range(2 * _LENGTH, 3 * _LENGTH), 3 * _LENGTH, _LENGTH)
    except CannotEncode:
        return False
    slack = 0.01 * (seen.max() - seen.min())
    axis = 0 if per_dimension else None
    inside = np.all((seen.min(axis=axis) - slack <= unseen)
                    & (unseen <= seen.max(axis=axis) + slack))
    fresh = np.linalg.norm(unseen[:, None, :] - seen[None, :, :], axis=-1).min() > 1e-9
    return bool(inside and fresh)


def _check_relative(codes: _Codes) -> bool:
    """A least-squares linear map M with code(p + k) = M code(p), k = 3, fits every p to 1e-6."""
    k = 3
    n = _LENGTH + k
    inputs = codes(range(_LENGTH), n, n)
    targets = codes(range(k, n), n, n)
    m, *_ = np.linalg.lstsq(inputs, targets, rcond=None)
    residual = np.sqrt(np.mean((inputs @ m - targets) ** 2))
    return bool(residual < 1e-6 * max(1.0, float(np.sqrt(np.mean(targets**2)))))


def _offset_codes(scheme: str, length: int) -> NDArray[np.float64]:
    """What ``scheme`` adds for query i and key j, shape (length, length): ALiBi's bias
    (symmetric, slope 1/2), Shaw's table row ``clip(j - i, -k, k) + k``, T5's bucket of j - i."""
    if scheme == "alibi":  # one symmetric head of slope 1/2: bias[i, j] = -|i - j| / 2
        return alibi_bias([0.5], length, causal=False)[0]
    if scheme == "shaw":
        return shaw_relative_index(length, max_relative_position=_SHAW_K).astype(np.float64)
    offsets = np.subtract.outer(np.arange(length), np.arange(length))  # i - j
    return t5_relative_position_bucket(-offsets).astype(np.float64)


def _extends_by_offset(scheme: str, learned: bool) -> bool:
    """Keys further back than training saw (i - j >= L) get distinct, (learned) seen codes."""
    trained, longer = _offset_codes(scheme, _LENGTH), _offset_codes(scheme, 3 * _LENGTH)
    offsets = np.subtract.outer(np.arange(3 * _LENGTH), np.arange(3 * _LENGTH))
    unseen = {int(k): longer[offsets == k][0] for k in np.unique(offsets) if k >= _LENGTH}
    fresh = len(set(unseen.values())) == len(unseen)
    trained_codes = set(np.unique(trained).tolist())
    shaped = not learned or set(unseen.values()) <= trained_codes
    return bool(np.array_equal(longer[:_LENGTH, :_LENGTH], trained) and fresh and shaped)


def _offset_row(scheme: str) -> dict[str, bool]:
    """A scheme that acts per offset, checked on its matrices: it encodes offsets, never
    absolute positions. Shaw's and T5's values are learned (a table row, a bucket's number)."""
    learned = scheme in BIAS_SCHEMES
    small, large = _offset_codes(scheme, 5), _offset_codes(scheme, 50)
    offsets = np.subtract.outer(np.arange(50), np.arange(50))
    toeplitz = all(np.ptp(large[offsets == k]) == 0 for k in range(-49, 50))
    if learned:  # values table[code]: two random starts give the same values only if fixed
        draws = [learned_table(64, 1, seed=seed)[large.astype(int), 0] for seed in (0, 1)]
        bounded = len(np.unique(_offset_codes(scheme, 1024))) == len(
            np.unique(_offset_codes(scheme, 3 * _LENGTH)))  # the codes used stop growing
    else:
        draws = [_offset_codes(scheme, 50), large]
        bounded = bool(np.abs(large).max() <= np.abs(small).max())
    return {
        "unique": False,  # every query row is the same function of the offset: no absolute code
        "length-free": bool(np.array_equal(small, large[:5, :5])),
        "bounded": bounded,
        "deterministic": bool(np.array_equal(*draws)),
        "extends": _extends_by_offset(scheme, learned),
        "relative": toeplitz,
    }


def evaluate(scheme: str, *, per_dimension: bool = False) -> dict[str, bool]:
    """Run every check of :data:`CRITERIA` on ``scheme``.

    Parameters
    ----------
    scheme : str
        One of :data:`SCHEMES` or :data:`BIAS_SCHEMES`.
    per_dimension : bool, default False
        Score "extends" per dimension (see :func:`check_extends`).

    Returns
    -------
    dict of str to bool

    Notes
    -----
    Each entry is computed; for ALiBi, Shaw and T5 "extends" means a longer input contains the
    trained matrix and unseen offsets get distinct codes (seen in training, for Shaw and T5).

    Examples
    --------
    >>> evaluate("sinusoidal")["relative"]
    True
    """
    scheme = check_choice("scheme", scheme, SCHEMES + BIAS_SCHEMES)
    if scheme == "alibi" or scheme in BIAS_SCHEMES:
        return _offset_row(scheme)

    def codes(positions: Sequence[int], sentence: int, trained: int,
              seed: int = 0) -> NDArray[np.float64]:
        return encode(scheme, positions, sentence_length=sentence, trained_length=trained,
                      seed=seed)

    return {
        "unique": _check_unique(codes),
        "length-free": _check_length_free(codes),
        "bounded": _check_bounded(codes),
        "deterministic": _check_deterministic(codes),
        "extends": check_extends(codes, per_dimension=per_dimension),
        "relative": _check_relative(codes),
    }


@dataclass(frozen=True)
class Scorecard:
    """A table of schemes (rows) against criteria (columns); unearned rows stay blank."""

    results: dict[str, dict[str, bool]]

    @property
    def rows(self) -> tuple[str, ...]:
        """Every scheme of :data:`SCHEMES`, then the bias schemes filled in (notebook 07)."""
        return SCHEMES + tuple(s for s in BIAS_SCHEMES if s in self.results)

    def _cell(self, scheme: str, criterion: str) -> str:
        if scheme not in self.results:
            return "·"
        return "yes" if self.results[scheme][criterion] else "no"

    def __repr__(self) -> str:
        names = list(CRITERIA)
        width = max(len(s) for s in SCHEMES)
        lines = [" " * width + "  " + "  ".join(f"{n:>13}" for n in names)]
        for scheme in self.rows:
            cells = "  ".join(f"{self._cell(scheme, n):>13}" for n in names)
            lines.append(f"{scheme:<{width}}  {cells}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colours = {"yes": "#d9f0d3", "no": "#f4cccc", "·": "#ffffff"}
        head = "".join(
            f'<th title="{html.escape(text)}">{name}</th>' for name, text in CRITERIA.items()
        )
        rows = []
        for scheme in self.rows:
            cells = "".join(
                f'<td style="background:{colours[c]};text-align:center">{c}</td>'
                for c in (self._cell(scheme, n) for n in CRITERIA)
            )
            rows.append(f"<tr><th>{scheme}</th>{cells}</tr>")
        return f"<table><tr><th></th>{head}</tr>{''.join(rows)}</table>"


def scorecard(schemes: Iterable[str] = SCHEMES, *, per_dimension: bool = False) -> Scorecard:
    """Return the scorecard with the rows of ``schemes`` filled in by computation.

    Parameters
    ----------
    schemes : iterable of str
        The candidates earned so far (the other rows show "·").
    per_dimension : bool, default False

    Returns
    -------
    Scorecard
        ``.results[scheme][criterion]`` holds the booleans.

    Notes
    -----
    Each row is :func:`evaluate` of its scheme.

    Examples
    --------
    >>> card = scorecard(["integer", "normalised"])
    >>> card.results["integer"]["bounded"], card.results["normalised"]["bounded"]
    (False, True)
    """
    chosen = [check_choice("schemes", s, SCHEMES + BIAS_SCHEMES) for s in schemes]
    return Scorecard({s: evaluate(s, per_dimension=per_dimension) for s in chosen})


COST_SCHEMES: tuple[str, ...] = ("none", "sinusoidal", "learned", "shaw", "t5", "rope", "alibi")
"""The schemes :func:`parameter_count` knows, in the order of notebook 07's cost table."""


def parameter_count(scheme: str, *, d_model: int, n_heads: int, n_layers: int,
                    max_positions: int) -> int:
    """Number of learned parameters a position scheme adds to a Transformer.

    Parameters
    ----------
    scheme : one of :data:`COST_SCHEMES`
    d_model, n_heads, n_layers, max_positions : int
        Width (a multiple of ``n_heads``), heads, layers, rows of a learned table.

    Returns
    -------
    int

    Notes
    -----
    ``P_learned = L_max d``, ``P_Shaw = 2 (2k + 1) (d / H) N`` (key and value tables per layer),
    ``P_T5 = B H`` (one table per stack), with T5's B = 32 buckets and Shaw's clipping distance
    k = 16; 0 for the others.

    Examples
    --------
    >>> gpt2 = dict(d_model=768, n_heads=12, n_layers=12, max_positions=1024)
    >>> parameter_count("learned", **gpt2), parameter_count("t5", **gpt2)
    (786432, 384)
    """
    scheme = check_choice("scheme", scheme, COST_SCHEMES)
    d_model = check_int("d_model", d_model)
    n_heads = check_int("n_heads", n_heads)
    n_layers = check_int("n_layers", n_layers)
    max_positions = check_int("max_positions", max_positions)
    if d_model % n_heads:
        raise ValueError(f"d_model must be a multiple of n_heads={n_heads}; got {d_model}")
    if scheme == "learned":
        # P = L_max * d
        return max_positions * d_model
    if scheme == "shaw":
        # P = 2 (2k + 1) d_head N
        return 2 * (2 * _SHAW_K + 1) * (d_model // n_heads) * n_layers
    if scheme == "t5":
        # P = B H
        return _T5_BUCKETS * n_heads
    return 0

"""Exercises on what the registered figures show about positional encoding: where NTK-aware
scaling slows the pairs, how far apart two position vectors are, which axis of a drawn table is
the position, and how the wavelengths double like the bits of a counter.

Notebook: 11_figure_gallery.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from posenc_lib.analysis import offset_similarity
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.exercises._data import HIDDEN_DATA
from posenc_lib.frequencies import inverse_frequencies, wavelengths
from posenc_lib.sinusoidal import sinusoidal_encoding

__all__ = ["mystery_tables", "ntk_ratios", "octaves", "offset_distance", "table_orientation"]

_HEAD, _BASE, _TRAINED = 128, 10000.0, 4096
_PAIRS = (0, 32, 63)
"""The pairs whose NTK-aware ratio exercise 11.ntk_ratios asks for (head size 128)."""

_FIGURE_CODE = Shortcut("the figure or code that computes the ratios (a prediction is typed "
                        "before anything runs; the cell after the check rebuilds the figure)",
                        r"\b(?:build_figure|gallery_picture|frequency_ratio|method_frequency_ratios|"
                        r"rope_frequencies|get_ydata|inverse_frequencies)\b|\.axes\b",
                        'fig = build_figure("frequency_ratio", factor=4.0)')


_FACTOR = {"s": 4}
"""11.ntk_ratios: the factor (a graded release may pose another: ``use``; never the figure's 8,
which one mistake names)."""


ntk_ratios = Exercise(
    key="11.ntk_ratios", answer_name="ntk_ratios", level="warm-up", kind="prediction", minutes=8,
    params=_FACTOR,
    mistakes=(
        Mistake("the exponent 2i/d instead of 2i/(d-2): the new base is base * s**(d/(d-2)), so "
                "that the last pair (i = d/2 - 1), not a pair past it, is slowed by s",
                lambda: float(_FACTOR["s"]) ** (-2.0 * np.array(_PAIRS) / _HEAD)),
        Mistake("PI's ratio 1/s for every pair (NTK-aware leaves the fast pairs alone)",
                lambda: np.full(len(_PAIRS), 1.0 / _FACTOR["s"])),
        Mistake("a straight line from 1 to 1/s across the pairs (the ratio is a power of s, "
                "geometric in i)",
                lambda: 1.0 - (1.0 - 1.0 / _FACTOR["s"]) * np.array(_PAIRS) / 63.0),
        Mistake("the ratios inverted: a larger base makes every pair slower, so the ratios are at "
                "most 1", lambda right: 1.0 / right, from_answer=True),
        Mistake("the figure's default factor 8 instead of {s}",  # 8**e = (s**e) ** (ln 8 / ln s)
                lambda right: np.asarray(right, dtype=float) ** (np.log(8) / np.log(_FACTOR["s"])),
                from_answer=True),
    ),
    shortcuts=(_FIGURE_CODE,),
)


def _distance(base: float, d_model: int = 32) -> NDArray[np.float64]:
    encoding = sinusoidal_encoding(50, d_model, base)
    return np.asarray(np.linalg.norm(encoding - encoding[0], axis=1), dtype=np.float64)


def _per_dimension() -> NDArray[np.float64]:
    omega = 100.0 ** (-np.arange(32) / 32)  # one frequency per dimension: the mistake
    terms = 2.0 - 2.0 * np.cos(np.arange(50)[:, None] * omega)
    return np.asarray(np.sqrt(terms.sum(axis=1)), dtype=np.float64)


offset_distance = Exercise(
    key="11.offset_distance", answer_name="offset_distance", level="core", kind="derivation",
    minutes=15,
    mistakes=(
        Mistake("the squared distance: the square root is missing", lambda right: right**2,
                from_answer=True),
        Mistake("the dot product PE(0).PE(k) itself, not the distance",
                lambda: offset_similarity(np.arange(50), 32, base=100.0)),
        Mistake("the dot product counted once: |a - b|**2 = |a|**2 + |b|**2 - 2 a.b",
                lambda: np.sqrt(32.0 - offset_similarity(np.arange(50), 32, base=100.0))),
        Mistake("one frequency per dimension, base**(-j/d) for j = 0 .. d-1, instead of one per "
                "pair", _per_dimension),
        Mistake("base 10000 instead of the base argument", lambda: _distance(10000.0)),
    ),
    shortcuts=(
        Shortcut("the encoding table (derive the distance from the dot product instead)",
                 r"\bsinusoidal_encoding(?:_at)?\b",
                 "pe = sinusoidal_encoding(n_offsets, d_model, base)"),
        Shortcut("offset_similarity, the library's dot product (write the sum of cosines)",
                 r"\boffset_similarity\b|\bsimilarity_matrix\b",
                 "dots = offset_similarity(np.arange(n_offsets), d_model, base=base)"),
        Shortcut("the figure (build the row from the formula)",
                 r"\bbuild_figure\b",
                 'fig = build_figure("dot_product_matrix", d_model=d_model, base=base)'),
    ),
    call_with=(50, 32, 100.0),
)

_N_TABLES = 4
_ORIENTATION = {"tables": tuple(
    tuple(map(tuple, HIDDEN_DATA[f"11.table_orientation.{i}"])) for i in range(_N_TABLES))}
"""11.table_orientation: the four tables, row by row (a graded release may pose others, smaller,
in other orientations: ``use``)."""


def mystery_tables() -> list[NDArray[np.float64]]:
    """Return four sinusoidal tables (base 10000) as a figure might draw them: (positions,
    dimensions) or, as write-up 002's heatmap draws it, the transpose; exercise
    11.table_orientation asks which. The numbers are stored (posenc_lib.exercises._data): the
    package holds no orientation."""
    return [np.array(table) for table in _ORIENTATION["tables"]]


table_orientation = Exercise(
    key="11.table_orientation", answer_name="rows_are_positions", level="core", kind="detector",
    minutes=10, params=_ORIENTATION,
    mistakes=(
        Mistake("reading every table as (positions, dimensions): heatmap_002 draws the transpose",
                lambda: np.ones(_N_TABLES, dtype=bool)),
        Mistake("guessing from the shape (more rows than columns means rows are positions)",
                lambda: np.array([t.shape[0] > t.shape[1] for t in mystery_tables()])),
    ),
)


def _octaves(d_model: int, base: float = _BASE) -> NDArray[np.float64]:
    """[pairs per doubling of the wavelength, doublings from the first pair to the last]."""
    lam = wavelengths(inverse_frequencies(d_model, base))
    per_pair = np.log2(lam[1] / lam[0])
    return np.array([1.0 / per_pair, np.log2(lam[-1] / lam[0])])


_WIDTH = {"d": 512}
"""11.octaves: d_model, write-up 000's (a graded release may pose another: ``use``; never
heatmap_003's 128, which one mistake names, nor 256, whose one-step-per-dimension mistake is
the answer for 512)."""


octaves = Exercise(
    key="11.octaves", answer_name="doubling", level="challenge", kind="explanation", minutes=15,
    params=_WIDTH,
    mistakes=(
        Mistake("one step per dimension instead of per pair (the exponent is 2i/d, with i a pair)",
                lambda: np.array([_WIDTH["d"] / np.log2(_BASE),
                                  (_WIDTH["d"] - 1) / _WIDTH["d"] * np.log2(_BASE)])),
        Mistake("heatmap_003's d_model = 128 instead of {d}", lambda: _octaves(128)),
        Mistake("natural logarithms instead of log2 (a doubling is a factor 2, not e)",
                lambda right: right * np.array([np.log(2.0), 1.0 / np.log(2.0)]),
                from_answer=True),
    ),
)

"""Exercises on what the registered figures show about positional encoding: where each
context-extension method acts, the dot-product row as a sum of cosines, which axis of a drawn
table is the position, and how the wavelengths double like the bits of a counter.

Notebook: 11_figure_gallery.

Each expected answer is computed with posenc_lib (the same functions the figures draw); each
known mistake is computed the way a learner gets it. The worked solutions are in the notebook
only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from posenc_lib.analysis import method_frequency_ratios, offset_similarity
from posenc_lib.exercises._core import Exercise, Mistake, Shortcut
from posenc_lib.frequencies import inverse_frequencies, wavelengths
from posenc_lib.sinusoidal import sinusoidal_encoding

__all__ = ["mystery_tables", "octaves", "offset_dot", "ratio_ends", "table_orientation"]

_HEAD, _BASE, _TRAINED = 128, 10000.0, 4096
_METHODS = ("linear", "ntk", "yarn", "llama3")

_FIGURE_CODE = Shortcut(
    "the figure or code that computes the ratios (a prediction is typed before anything runs; "
    "the cell after the check rebuilds the figure)",
    r"\b(?:build_figure|frequency_ratio|method_frequency_ratios|rope_frequencies|get_ydata|"
    r"inverse_frequencies)\b|\.axes\b",
    'fig = build_figure("frequency_ratio", factor=4.0)',
)

# --------------------------------------------------------------------------- 11.ratio_ends


def _ends(factor: float = 4.0) -> NDArray[np.float64]:
    ratios = method_frequency_ratios(_HEAD, _BASE, factor, _TRAINED, _METHODS)
    return np.array([[ratios[m][0] for m in _METHODS], [ratios[m][-1] for m in _METHODS]])


ratio_ends = Exercise(
    key="11.ratio_ends",
    title="Predict both ends of the frequency-ratio figure at factor 4 (PI, NTK, YaRN, llama3)",
    answer_name="ends",
    expected=_ends,
    hint_text=(
        "Ratio 1 means a pair is untouched, 1/s that it is slowed down s times. PI divides every "
        "frequency by s. NTK-aware raises the base so that the slowest pair is divided by "
        "exactly s and the fastest not at all. YaRN and llama3 leave fast pairs (many turns in "
        "L) alone and divide slow pairs (less than one turn) by s. Type the 8 numbers."
    ),
    level="warm-up",
    kind="prediction",
    objective=(
        "Predicts where each context-extension method acts: all four slow the slowest pair by s, "
        "only PI also slows the fastest."
    ),
    minutes=5,
    mistakes=(
        Mistake("NTK-aware scaling every pair like PI (it leaves the fastest pair alone)",
                lambda: np.array([[0.25, 0.25, 1.0, 1.0], [0.25] * 4])),
        Mistake("the two rows swapped: the fast pairs are kept, the slow ones interpolated",
                lambda: _ends()[::-1]),
        Mistake("the figure's default factor 8 instead of 4", lambda: _ends(8.0)),
    ),
    shortcuts=(_FIGURE_CODE,),
)

# --------------------------------------------------------------------------- 11.offset_dot

offset_dot = Exercise(
    key="11.offset_dot",
    title="Write row 0 of the dot-product figure as a sum of cosines: offset_dot(50, 32, 100.0)",
    answer_name="offset_dot",
    expected=lambda: offset_similarity(np.arange(50), 32, base=100.0),
    hint_text=(
        "PE(0) . PE(k) pairs up sin with sin and cos with cos: sin(0) sin(k w) + cos(0) cos(k w) "
        "= cos(k w) for each of the d_model/2 frequencies w_i = base**(-2i/d_model). Sum them "
        "for k = 0 .. n_offsets - 1 with one NumPy broadcast: (n, 1) offsets times (1, d/2) "
        "frequencies."
    ),
    level="core",
    kind="construction",
    objective=(
        "Writes the dot product of two sinusoidal encodings as a sum of cosines of the offset, "
        "which is why the figure is constant along its diagonals."
    ),
    minutes=15,
    mistakes=(
        Mistake(
            "one frequency per dimension, base**(-i/d) for i = 0 .. d-1, instead of one per pair",
            lambda: np.cos(np.arange(50)[:, None] * 100.0 ** (-np.arange(32) / 32)).sum(axis=1),
        ),
        Mistake(
            "a sum of sines (sin(0) = 0 kills the sine terms; the cosines remain)",
            lambda: np.sin(np.arange(50)[:, None] * inverse_frequencies(32, 100.0)).sum(axis=1),
        ),
        Mistake("base 10000 instead of the base argument",
                lambda: offset_similarity(np.arange(50), 32)),
    ),
    shortcuts=(
        Shortcut("offset_similarity, the library's version", r"\boffset_similarity\b",
                 "return offset_similarity(np.arange(n_offsets), d_model, base=base)"),
        Shortcut("the encoding table (sum the cosines instead)", r"\bsinusoidal_encoding\b",
                 "pe = sinusoidal_encoding(n_offsets, d_model, base)"),
        Shortcut("the figure (build the row from the formula)", r"\bbuild_figure\b",
                 'fig = build_figure("dot_product_matrix", d_model=d_model, base=base)'),
    ),
    call_with=(50, 32, 100.0),
)

# --------------------------------------------------------------------------- 11.table_orientation

_TABLES = ((60, 48, False), (64, 40, True), (50, 50, False), (36, 80, True))
"""(n_positions, d_model, transposed) of each mystery table."""


def mystery_tables() -> list[NDArray[np.float64]]:
    """Return four sinusoidal tables (base 10000) as a figure might draw them.

    Some are (positions, dimensions), as ``sinusoidal_encoding`` returns them; others are the
    transpose, as write-up 002's heatmap draws it. Exercise ``11.table_orientation`` asks which.
    """
    tables = []
    for n_positions, d_model, transposed in _TABLES:
        table = sinusoidal_encoding(n_positions, d_model)
        tables.append(table.T if transposed else table)
    return tables


table_orientation = Exercise(
    key="11.table_orientation",
    title="Four drawn tables: in which do the rows stand for positions?",
    answer_name="rows_are_positions",
    expected=lambda: np.array([not transposed for *_, transposed in _TABLES]),
    hint_text=(
        "A shape does not tell which axis is the position. A property of the encoding does: a "
        "position vector has norm sqrt(d_model / 2) whatever the position, and column 0 of a "
        "(positions, dimensions) table is sin(t) for t = 0, 1, 2, ... Test each table."
    ),
    level="core",
    kind="detector",
    objective=(
        "Tells a (positions, dimensions) table from its transpose through a property of the "
        "encoding (constant norm per position, sin(t) in column 0), not through its shape."
    ),
    minutes=10,
    mistakes=(
        Mistake("reading every table as (positions, dimensions): heatmap_002 draws the transpose",
                lambda: np.ones(len(_TABLES), dtype=bool)),
        Mistake("guessing from the shape (more rows than columns means rows are positions)",
                lambda: np.array([t.shape[0] > t.shape[1] for t in mystery_tables()])),
        Mistake("every answer inverted", lambda: np.array([t for *_, t in _TABLES])),
    ),
)

# --------------------------------------------------------------------------- 11.octaves


def _octaves(d_model: int = 512, base: float = _BASE) -> NDArray[np.float64]:
    """[pairs per doubling of the wavelength, doublings from the first pair to the last]."""
    lam = wavelengths(inverse_frequencies(d_model, base))
    per_pair = np.log2(lam[1] / lam[0])
    return np.array([1.0 / per_pair, np.log2(lam[-1] / lam[0])])


octaves = Exercise(
    key="11.octaves",
    title="Pairs per doubling of the wavelength, and doublings in all, for d_model = 512",
    answer_name="doubling",
    expected=_octaves,
    hint_text=(
        "The wavelength of pair i is 2 pi base**(2i/d): from one pair to the next it grows by "
        "the same factor base**(2/d). A bit of a counter has twice the period of the bit below "
        "it. How many pairs does it take to multiply the wavelength by 2 (log2 of the factor)? "
        "And how many times does it double from pair 0 to pair d/2 - 1?"
    ),
    level="challenge",
    kind="explanation",
    objective=(
        "Explains the binary-counter picture quantitatively: the wavelengths grow geometrically, "
        "so the encoding spans about log2(base) doublings whatever d_model, more pairs per "
        "doubling as d_model grows."
    ),
    minutes=15,
    mistakes=(
        Mistake("one step per dimension instead of per pair (the exponent is 2i/d, with i a pair)",
                lambda: np.array([512 / np.log2(_BASE), 511 / 512 * np.log2(_BASE)])),
        Mistake("heatmap_003's d_model = 128 instead of 512", lambda: _octaves(128)),
        Mistake("natural logarithms instead of log2 (a doubling is a factor 2, not e)",
                lambda: _octaves() * np.array([np.log(2.0), 1.0 / np.log(2.0)])),
    ),
)

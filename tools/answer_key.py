"""The answer key of every exercise: the checkout's, never the installed package's.

Usage::

    python tools/answer_key.py            # writes {KEY_FILE} at the repository root
    python tools/answer_key.py --check    # fails when that file is not the current key

Each entry computes an exercise's right answer with posenc_lib, as its solution cell does. The
key file lets ``check()`` confirm a right answer in a checkout (the source notebooks, ``make
study``); tools/grader.py compares the answers a graded release hands in with these values,
outside the students' kernels. The installed package (wheel or sdist) holds neither these
functions nor the key file: there ``check()`` names known mistakes but confirms no answer.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make posenc_lib importable from the checkout
    sys.path.insert(0, str(ROOT))

from posenc_lib.analysis import method_frequency_ratios  # noqa: E402
from posenc_lib.attention import (  # noqa: E402
    VOCAB,
    causal_mask,
    scaled_dot_product_attention,
    self_attention,
    word_order_model,
)
from posenc_lib.bias import (  # noqa: E402
    alibi_bias,
    relative_position_matrix,
    t5_relative_position_bucket,
)
from posenc_lib.binary import binary_table, hamming_distance  # noqa: E402
from posenc_lib.exercises import (  # noqa: E402
    _data,
    nb00,
    nb01,
    nb02,
    nb03,
    nb04,
    nb05,
    nb06,
    nb07,
    nb08,
    nb09,
    nb10,
    nb11,
)
from posenc_lib.exercises._key import KEY_FILE, encode  # noqa: E402
from posenc_lib.frequencies import (  # noqa: E402
    inverse_frequencies,
    split_permutation,
    turns_in_context,
    wavelengths,
)
from posenc_lib.lab.results import bootstrap_interval, mean_curves, summary  # noqa: E402
from posenc_lib.lab.results import load as load_results  # noqa: E402
from posenc_lib.lab.schemes import SCHEMES as LAB_SCHEMES  # noqa: E402
from posenc_lib.model_pairs import UNROTATED_KINDS, config_layer_kinds  # noqa: E402
from posenc_lib.models import rope_frequencies_from_config  # noqa: E402
from posenc_lib.precision import round_to_bfloat16  # noqa: E402
from posenc_lib.presets import PRESETS  # noqa: E402
from posenc_lib.rope import apply_rope, relative_scores, rotate_interleaved  # noqa: E402
from posenc_lib.rope_variants import mrope_image_positions  # noqa: E402
from posenc_lib.scaling import (  # noqa: E402
    llama3_inv_freq,
    resolve_rope_type,
    rope_frequencies,
    yarn_inv_freq,
)
from posenc_lib.shift import fit_linear_map, shift_matrix  # noqa: E402
from posenc_lib.sinusoidal import (  # noqa: E402
    encoding_from_frequencies,
    sinusoidal_encoding,
    sinusoidal_encoding_at,
    tensor2tensor_frequencies,
)

KEY_PATH = ROOT / KEY_FILE
"""Where the checkout's key lives: every folder below the repository root finds it."""
DATA_PATH = ROOT / "posenc_lib" / "exercises" / "_data.json"
"""The stored inputs of the exercises whose parameters are the answer (written from here)."""

LLAMA3_BANDS: dict[tuple[int, int, int], tuple[float, float, float]] = {
    (64, 500000, 8192): (16.0, 2.0, 16.0),  # the notebook's
    (128, 500000, 32768): (12.0, 1.5, 6.0), (128, 10000, 4096): (20.0, 1.0, 8.0),
    (128, 1000000, 16384): (6.0, 2.0, 12.0),  # the graded releases' (tools/variants.py)
}
"""06.llama3_bands: factor, low_freq_factor, high_freq_factor, which the learner reads back,
by the (d, base, original length) the exercise is posed with."""


def llama3_hidden(d: int, base: int, length: int) -> np.ndarray:
    """06.llama3_bands: the frequencies the learner gets for the values (d, base, length)."""
    return llama3_inv_freq(d, float(base), *LLAMA3_BANDS[(d, base, length)], length)


def _posed_bands() -> tuple[int, int, int]:
    return nb06._BANDS["d"], nb06._BANDS["base"], nb06._BANDS["L"]
MYSTERY_CONFIG: dict[str, Any] = {
    "rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0, "high_freq_factor": 16.0,
    "original_max_position_embeddings": 16384,
}
"""06.which_scaling: the rope_scaling behind mystery_frequencies()."""
YARN_CONFIGS: tuple[dict[str, Any], ...] = tuple(
    {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": length}
    for factor, length in ((4.0, 32768), (8.0, 8192), (32.0, 4096)))
"""06.which_scaling's graded releases: YaRN scalings (Qwen2.5's and Qwen3's recommended factor 4
over 32768 tokens among them), whose blend is straight in the pair index."""


def mystery_frequencies(config: dict[str, Any]) -> np.ndarray:
    """06.which_scaling's frequencies (d = 64, base 10^6) scaled by ``config``."""
    return rope_frequencies(64, 1000000.0, config)[0]


def _posed_scaling() -> tuple[str, float]:
    """06.which_scaling's answer for the frequencies it is posed with: the rope_type of the
    config that makes them, and the evidence."""
    posed = nb06.mystery_frequencies()
    config = next(c for c in (MYSTERY_CONFIG, *YARN_CONFIGS)
                  if np.allclose(posed, mystery_frequencies(c), rtol=1e-12, atol=0.0))
    return nb06._reasoned(resolve_rope_type(config))

CHECKPOINT_LAYOUT, CHECKPOINT_SPACING = "interleaved", "t2t"
"""02.checkpoint_layout: the layout and the frequency spacing of the checkpoint's table."""


def checkpoint_frequencies(spacing: str) -> np.ndarray:
    """02.checkpoint_layout: the frequencies of d_model = 24 spaced as the paper ("paper") or as
    tensor2tensor ("t2t") spaces them."""
    d = nb02._CHECKPOINT_D
    return tensor2tensor_frequencies(d) if spacing == "t2t" else inverse_frequencies(d)


def checkpoint_table(layout: str, spacing: str) -> np.ndarray:
    """02.checkpoint_layout's table, positions 0 .. 39, of a layout and a spacing."""
    return encoding_from_frequencies(np.arange(nb02._CHECKPOINT_N),
                                     checkpoint_frequencies(spacing), layout=layout)


def _posed_checkpoint() -> tuple[str, float]:
    """02.checkpoint_layout's answer for the table it is posed with: the layout and spacing whose
    table it is, and the slowest frequency."""
    posed = nb02.checkpoint_table()
    for layout in ("interleaved", "concat"):
        for spacing in ("paper", "t2t"):
            if np.allclose(posed, checkpoint_table(layout, spacing), rtol=0.0, atol=1e-9):
                return f"{layout}-{spacing}", float(checkpoint_frequencies(spacing)[-1])
    raise ValueError("02.checkpoint_layout is posed with a table of no known layout and spacing")

DECODE_POSITIONS = (0.0, 3.3, 250.25, 7777.7, 12000.125, 19999.4)
"""02.decode_position: real positions (as interpolation feeds them), so that a lookup of whole
positions cannot pass; the learner gets their encoding rows."""

CHECKPOINT_PAIRING, CHECKPOINT_POSITION = "half", 2718
"""05.layout and 05.key_position: the pairing and the position of the notebook's rotated key."""
KEY_CONTEXT = 8000
"""05.key_position: the context the position lies in, as the statement says."""


def checkpoint_key(pairing: str = CHECKPOINT_PAIRING, seed: int = 2024,
                   position: int = CHECKPOINT_POSITION) -> np.ndarray:
    """05's key of head size 16 before and after RoPE (base 10000) at ``position`` in
    ``pairing``, stacked; the notebook's is the checkpoint's (seed 2024, CHECKPOINT_POSITION)."""
    before = np.random.default_rng(seed).normal(size=16)
    after = apply_rope(before[None, :], [position], inverse_frequencies(16), pairing=pairing)[0]
    return np.stack([before, after])


def _posed_rotation() -> tuple[str, int | None]:
    """The pairing and the position (0 .. KEY_CONTEXT - 1) that rotate the key 05.layout is posed
    with, before, into the key after: tried one by one here, in the checkout; ("neither", None)
    if no rotation does."""
    before, after = nb05.checkpoint_key()
    positions = np.arange(KEY_CONTEXT)
    tried = np.repeat(before[None, :], KEY_CONTEXT, axis=0)
    for pairing in ("half", "interleaved"):
        rotated = apply_rope(tried, positions, inverse_frequencies(16), pairing=pairing)
        hits = np.flatnonzero(np.all(np.abs(rotated - after) <= 1e-9, axis=1))
        if hits.size:
            return pairing, int(hits[0])
    return "neither", None


def _posed_layout() -> tuple[str, float]:
    """05.layout's answer for the key it is posed with: the pairing that rotates the key before
    into the key after ("neither" if none does), and the largest change of length of the pairs
    the statement measures."""
    return _posed_rotation()[0], nb05._length_change(nb05._measured())


TABLES = ((60, 38, False), (64, 46, True), (50, 50, False), (36, 70, True))
"""11.table_orientation: (n_positions, d_model, transposed) of each mystery table. The widths
share no frequency with another exercise's encoding (d = 6, 8, 24), so the stored tables hold no
other exercise's answer."""


def drawn_table(n: int, d: int, transposed: bool) -> np.ndarray:
    """11.table_orientation's table of ``n`` positions and width ``d`` as a figure draws it."""
    table = sinusoidal_encoding_at(np.arange(n), d)
    return table.T if transposed else table


def _drawn_table(index: int) -> np.ndarray:
    """11.table_orientation's table ``index`` (TABLES)."""
    return drawn_table(*TABLES[index])


def rows_are_positions(table: np.ndarray) -> bool:
    """Whether ``table`` is the encoding of its rows' positions, rebuilt from its shape (else it
    must be the transpose of one)."""
    rows, columns = table.shape
    if np.allclose(table, drawn_table(rows, columns, False), rtol=0.0, atol=1e-9):
        return True
    if np.allclose(table, drawn_table(columns, rows, True), rtol=0.0, atol=1e-9):
        return False
    raise ValueError(f"11.table_orientation: a {table.shape} table that is no encoding table")


HIDDEN_INPUTS: dict[str, Callable[[], Any]] = {
    "02.decode_position": lambda: (
        sinusoidal_encoding_at(np.array(DECODE_POSITIONS), nb02._DECODE_D).ravel()
    ),
    "02.checkpoint_layout": lambda: checkpoint_table(CHECKPOINT_LAYOUT, CHECKPOINT_SPACING),
    "05.checkpoint_key": checkpoint_key,
    "06.llama3_bands": lambda: llama3_hidden(64, 500000, 8192),
    "06.which_scaling": lambda: mystery_frequencies(MYSTERY_CONFIG),
    **{f"11.table_orientation.{i}": lambda i=i: _drawn_table(i) for i in range(len(TABLES))},
}
"""The data an exercise hands the learner when the parameters that make it are the answer."""

def shortest_length(pairs: int, base: float = 10000.0, *, steps: bool = True,
                    d_model: int = 128) -> int:
    """02.half_turns: the smallest L whose L - 1 steps cover the wavelengths of pairs 0 ..
    pairs - 1 of ``d_model`` (L steps without ``steps``)."""
    lam = wavelengths(inverse_frequencies(d_model, base))
    return int(np.ceil(lam[pairs - 1])) + (1 if steps else 0)


def lost_pairs(dtype: type = np.float16, base: float = 500000.0) -> int:
    """02.float16_lost_pairs: the pairs of d_model = 128 whose power base^(2i/d), stored in
    ``dtype``, overflows (frequency 1/inf = 0)."""
    powers = 1.0 / inverse_frequencies(128, base)
    with np.errstate(over="ignore"):
        return int(np.isinf(powers.astype(dtype)).sum())


def alibi_self_weight(slope: float, sign: float = 1.0, tokens: int = 10) -> float:
    """07.alibi_self_weight: the weight the last of ``tokens`` equal-content tokens puts on
    itself under the ALiBi bias ``sign`` * -slope |i - j| (the last query sees every key)."""
    queries, keys, values = np.zeros((tokens, 4)), np.ones((tokens, 4)), np.eye(tokens)
    bias = sign * alibi_bias([slope], tokens, causal=False)[0]
    _, weights = scaled_dot_product_attention(queries, keys, values, bias=bias)
    return float(weights[-1, -1])


def mean_truncation_error(low: float, high: float) -> float:
    """08.truncation_bias: the mean of truncate(x) - x to bfloat16 over float32 values evenly
    spread in [low, high)."""
    grid = np.linspace(low, high, 2**21, endpoint=False).astype(np.float32)
    error = round_to_bfloat16(grid, mode="truncate").astype(np.float64) - grid
    return float(error.mean())


def overflow_edges(candidates: np.ndarray, name: str = "float16") -> np.ndarray:
    """08.float16_edges: the first of ``candidates`` the format ``name`` (float16, or one of
    ml_dtypes' formats with an infinity) stores as its largest finite value, and the first it
    stores as inf."""
    dtype = np.float16 if name == "float16" else getattr(ml_dtypes, name)
    with np.errstate(over="ignore"):
        stored = np.asarray(candidates, dtype=np.float64).astype(dtype).astype(np.float64)
    largest = stored[np.isfinite(stored)].max()
    return np.array([candidates[stored == largest][0], candidates[np.isinf(stored)][0]])


def min_width(base: float, n_positions: int, exponent_factor: float = 2.0) -> int:
    """03.min_width: the smallest even d_model, frequencies base ** (-exponent_factor * i / d),
    whose closest pair of distinct positions among 0 .. n_positions - 1 are neighbours (the
    distance depends only on the offset, so PE(0) against PE(k) decides)."""
    for d_model in range(2, 200, 2):
        frequencies = base ** (-exponent_factor * np.arange(d_model // 2) / d_model)
        codes = encoding_from_frequencies(np.arange(n_positions), frequencies)
        if int(np.argmin(np.linalg.norm(codes[1:] - codes[0], axis=1))) == 0:
            return d_model
    raise RuntimeError("no width below 200 keeps neighbours closest")


def count_flat(n_positions: int, d_model: int, threshold: float, ends_only: bool = False) -> int:
    """03.flat_columns: the columns of the encoding whose range over positions 0 .. n_positions
    - 1 is below ``threshold``; with ``ends_only``, the range taken as |last - first|."""
    encoding = sinusoidal_encoding_at(np.arange(n_positions), d_model)
    spread = np.abs(encoding[-1] - encoding[0]) if ends_only else np.ptp(encoding, axis=0)
    return int(np.count_nonzero(spread < threshold))


def two_token_map(k: int) -> np.ndarray:
    """04.previous_sines: the least-squares map from [the 8 sines of d_model = 16 at t, those at
    t - 1] to the sines at t + k, fitted over t = 0 .. 999."""
    t = np.arange(0, 1000)

    def sines(positions: np.ndarray) -> np.ndarray:
        return sinusoidal_encoding_at(positions, 16)[:, 0::2]

    return fit_linear_map(np.hstack([sines(t), sines(t - 1)]), sines(t + k))[0]


def consistent_offsets(gray: bool, bits: int = 8, max_offset: int = 16) -> set[int]:
    """01.gray_offsets: the offsets k <= max_offset at which the Hamming distance of the codes of
    p and p + k is the same for every p (Gray codes, or plain binary without ``gray``)."""
    table = binary_table(2**bits)
    if gray:  # g_k = b_k XOR b_{k+1}: each column XOR the column to its left
        table = table ^ np.pad(table[:, :-1], ((0, 0), (1, 0)))
    n = len(table)
    return {k for k in range(1, max_offset + 1)
            if len(np.unique(np.sum(table[: n - k] != table[k:], axis=1))) == 1}


def same_cat() -> set[str]:
    """00.same_cat: the letters of the sentences whose first "cat" gets the output it gets in
    sentence A, in notebook 00's toy model (no position)."""
    table, w_q, w_k, w_v = word_order_model()

    def cat_output(sentence: str) -> np.ndarray:
        words = sentence.split()
        out, _ = self_attention(table[[VOCAB.index(w) for w in words]], w_q, w_k, w_v)
        return out[words.index("cat")]

    reference = cat_output(nb00._SENTENCE_A)
    return nb00._lettered({key for key, sentence in nb00.SENTENCES.items()
                           if np.allclose(cat_output(sentence), reference)})


def same_causal_output() -> set[int]:
    """00.causal_twins: the positions where the two clauses' causal attention outputs agree."""
    table, w_q, w_k, w_v = word_order_model()
    outputs = []
    for sentence in nb00._CLAUSES.values():
        x = table[[VOCAB.index(word) for word in sentence.split()]]
        outputs.append(self_attention(x, w_q, w_k, w_v, mask=causal_mask(len(x)))[0])
    return {t for t in range(len(outputs[0])) if np.allclose(outputs[0][t], outputs[1][t])}


def equivariant_layers() -> set[str]:
    """00.equivariant_layers: the layers f with f(x[p]) == f(x)[p] for 20 random x and p."""
    rng = np.random.default_rng(4)
    found = set()
    for name, layer in nb00.layers().items():
        ok = True
        for _ in range(20):
            x, p = rng.normal(size=(6, 4)), rng.permutation(6)
            ok &= bool(np.allclose(layer(x[p]), layer(x)[p]))
        if ok:
            found.add(name)
    return found


LAB_HEAD_DIM, LAB_BASE, LAB_TRAINED = 16, 10000.0, 32
"""Notebook 10's lab: head size, RoPE base, trained length."""


def lab_turns(length: int) -> np.ndarray:
    """10.turning_pairs: the turns each RoPE pair of the lab makes in ``length`` positions."""
    return turns_in_context(inverse_frequencies(LAB_HEAD_DIM, LAB_BASE), length)


def mean_curve(scheme: str) -> np.ndarray:
    """10.break_position: ``scheme``'s accuracy by position on induction at 8x, mean of the
    committed seeds."""
    return mean_curves(load_results("curves")["curves"], "induction", (scheme,), 8)[scheme]


def first_below(curve: np.ndarray, threshold: float, start: int) -> int:
    """The first position from ``start`` on whose score (NaN skipped) is below ``threshold``."""
    below = np.flatnonzero(np.nan_to_num(curve[start:], nan=1.0) < threshold)
    return int(start + below[0]) if below.size else -1


def close_to_rope(fixed_gap: bool = False) -> set[str]:
    """10.seed_spread: the schemes that cannot be told from RoPE on the posed task at the posed
    multiple (induction at 4x in the notebook): the bootstrap interval of the difference of the
    means contains 0 (with ``fixed_gap``, by mistake: the gap of the means is below 0.1)."""
    stats = summary(load_results("curves")["curves"], LAB_TRAINED)
    posed, column = nb10._SPREAD["task"], ("1x", "2x", "4x", "8x").index(nb10._SPREAD["multiple"])
    rope = stats[(posed, "rope")][:, column]  # columns 1x, 2x, 4x, 8x
    close = set()
    for (task, scheme), rows in stats.items():
        if task != posed or scheme == "rope" or scheme not in LAB_SCHEMES:  # notebook 10's seven
            continue
        other = rows[:, column]
        low, high = bootstrap_interval(other, rope)
        if (abs(other.mean() - rope.mean()) < 0.1) if fixed_gap else (low <= 0 <= high):
            close.add(scheme)
    return close


def far_keys(length: int, bidirectional: bool = False) -> int:
    """10.t5_far_bucket: how many keys of the last of ``length`` queries share the farthest
    key's T5 bucket (16 buckets, max_distance 32, as the lab)."""
    offsets = np.arange(length) - (length - 1)  # j - i for the last query
    buckets = t5_relative_position_bucket(offsets, bidirectional=bidirectional,
                                          num_buckets=16, max_distance=32)
    return int(np.count_nonzero(buckets == buckets[0]))


def half_norms(position: int, d_model: int) -> np.ndarray:
    """03.half_norms: the norms of the sine columns and of the cosine columns of PE(position)."""
    row = sinusoidal_encoding_at([position], d_model)[0]
    return np.array([np.linalg.norm(row[0::2]), np.linalg.norm(row[1::2])])


def offset_only(matrix: np.ndarray) -> bool:
    """03.offset_only: whether ``matrix[a, b]`` equals ``matrix[a + 1, b + 1]`` everywhere."""
    return bool(np.allclose(matrix[1:, 1:], matrix[:-1, :-1], atol=1e-9))


def row_form_position(start: int, a: int, b: int) -> int:
    """04.row_form_position: the position nearest to PE(start) @ M_a @ M_a @ M_b^T (d = 16)."""
    row = sinusoidal_encoding_at([start], 16)[0]
    vector = row @ shift_matrix(a, 16) @ shift_matrix(a, 16) @ shift_matrix(b, 16).T
    return int(np.argmin(np.linalg.norm(sinusoidal_encoding(128, 16) - vector, axis=1)))


def direction_ratio(k_of_q: str) -> float:
    """05.direction: s(-r) / s(r) for a fixed random q, with k = q, -q or rot(q) (the quarter
    turn of q)."""
    q = np.random.default_rng(3).normal(size=8)
    k = {"q": q, "-q": -q, "rot(q)": rotate_interleaved(q)}[k_of_q]
    backward, forward = relative_scores(q, k, [-3, 3], inverse_frequencies(8))
    return float(backward / forward)


def key_minus_query(matrices: list[np.ndarray]) -> np.ndarray:
    """07.t5_direction: whether each of ``matrices`` holds T5's buckets of key minus query, in
    either mode."""
    rel = relative_position_matrix(matrices[0].shape[0])
    return np.array([any(np.array_equal(m, t5_relative_position_bucket(rel, bidirectional=mode))
                         for mode in (True, False)) for m in matrices])


def frequencies_change(preset: str, short: int = 1024, long: int = 131072) -> bool:
    """09.cache_survives: whether a preset's frequencies (or attention factor) differ between
    the two lengths, for every kind of layer that rotates."""
    config = PRESETS[preset]
    rotary = [kind for kind in config_layer_kinds(config) if kind not in UNROTATED_KINDS]
    for layer_type in rotary if len(rotary) > 1 else [None] * len(rotary):  # Kimi Linear: none
        before = rope_frequencies_from_config(config, seq_len=short, layer_type=layer_type)
        after = rope_frequencies_from_config(config, seq_len=long, layer_type=layer_type)
        if not (np.array_equal(before[0], after[0]) and before[1] == after[1]):
            return True
    return False


STORED_MISTAKES: dict[str, Callable[[], Any]] = {
    "01.gray_offsets": lambda: sorted(consistent_offsets(gray=False)),
    "04.previous_sines": lambda: two_token_map(4),
    "03.min_width": lambda: [min_width(10000.0, 1000), min_width(100000.0, 1000, 1.0)],
    "03.flat_columns": lambda: [count_flat(100, 1024, 0.01, ends_only=True)],
    "08.truncation_bias": lambda: [
        mean_truncation_error(1.0, 2.0), mean_truncation_error(4.0, 8.0),
    ],
    "07.alibi_self_weight": lambda: [alibi_self_weight(0.25, sign=-1.0), alibi_self_weight(0.5)],
    "02.half_turns": lambda: [
        shortest_length(16), shortest_length(33), shortest_length(32, 1000.0),
    ],
    "02.float16_lost_pairs": lambda: [lost_pairs(np.float32)],
    "10.turning_pairs": lambda: [
        np.count_nonzero(4 * LAB_TRAINED * inverse_frequencies(LAB_HEAD_DIM, LAB_BASE) >= 1),
        np.count_nonzero(lab_turns(LAB_TRAINED) >= 1),
    ],
    "10.break_position": lambda: [first_below(mean_curve("rope"), 0.5, LAB_TRAINED)],
    "10.seed_spread": lambda: sorted(close_to_rope(fixed_gap=True)),
    "10.t5_far_bucket": lambda: [far_keys(8 * LAB_TRAINED),
                                 far_keys(4 * LAB_TRAINED, bidirectional=True)],
}
"""Known mistakes stored as numbers: the helper that computes one would give the answer when
called with the exercise's own parameters, so it stays here (in the order the Mistakes read)."""

EXPECTED: dict[str, Callable[[], Any]] = {
    "00.same_cat": same_cat,
    "00.causal_attention": lambda: (
        self_attention(*nb00._attention_inputs(), mask=causal_mask(5))[0]
    ),
    "00.causal_twins": same_causal_output,
    "00.equivariant_layers": equivariant_layers,
    "01.carry_flips": lambda: np.array(
        [hamming_distance(p, p + 1) for p in nb01._CARRY["positions"]], dtype=np.int64),
    "01.ternary_periods": lambda: (  # 3**(k+1), most significant digit k first
        3 ** np.arange(nb01._TERNARY["digits"], 0, -1, dtype=np.int64)),
    "01.gray_cousin": lambda: (
        nb01.smooth_bit_wave(nb01._GRAY_CALL[0] + 2 ** nb01._GRAY_CALL[1], nb01._GRAY_CALL[1] + 1)
    ),
    "01.gray_offsets": lambda: consistent_offsets(
        gray=True, max_offset=nb01._GRAY_OFFSETS["max_offset"]),
    "02.slow_pair": lambda: sinusoidal_encoding_at([nb02._SLOW["pos"]], nb02._SLOW_D)[0, 6:],
    "02.half_turns": lambda: shortest_length(nb02._HALF["pairs"], d_model=nb02._HALF["d"]),
    "02.float16_lost_pairs": lambda: lost_pairs(base=float(nb02._LOST["base"])),
    "02.checkpoint_layout": _posed_checkpoint,
    "02.decode_position": lambda: np.array(DECODE_POSITIONS),
    "03.half_norms": lambda: half_norms(0, nb03._HALVES["d"]),
    "03.offset_only": lambda: np.array([offset_only(m) for m in nb03.score_candidates().values()]),
    "03.no_bounce": lambda: True,
    "03.min_width": lambda: min_width(float(nb03._WIDTH["base"]), 1000),
    "03.flat_columns": lambda: count_flat(100, nb03._FLAT["d"], 0.01),
    "04.shift_back": lambda: nb04.sinusoidal_encoding_at([nb04._BACK["target"]], 24)[0],
    "04.concat_shift": lambda: (  # the interleaved M_k with rows and columns in [sin | cos] order
        nb04.shift_matrix(nb04._CONCAT["k"], 8)[np.ix_(split_permutation(8),
                                                       split_permutation(8))]),
    "04.row_form_position": lambda: row_form_position(
        *(nb04._ROW_FORM[name] for name in ("start", "a", "b"))),
    "04.forward_head": lambda: True,
    "04.previous_sines": lambda: two_token_map(nb04._SHIFT["k"]),
    "05.base_for_context": lambda: nb05._smallest_base(128, nb05._CONTEXT["context"], np.pi),
    "05.layout": _posed_layout,
    "05.half_matrix": lambda: nb05.rope_matrix(nb05._HALF_SPLIT["m"], nb05.inverse_frequencies(6),
                                               pairing='half'),
    "05.key_position": lambda: _posed_rotation()[1],
    "05.direction": lambda: np.array([direction_ratio(nb05._CASES[case])
                                      for case in ("first", "second")]),
    "06.ramp_bounds": lambda: np.array(nb06.yarn_correction_range(128, 10000.0, nb06._LONGER["L"])),
    "06.yarn_ratios": lambda: nb06._yarn_head_ratio(partial(yarn_inv_freq, truncate=False)),
    "06.llama3_bands": lambda: np.array(LLAMA3_BANDS[_posed_bands()]),
    "06.dynamic_cache": lambda: (
        nb06._cache_drift(nb06._dynamic_slowest(nb06._CACHE["key"]),
                          nb06._dynamic_slowest(nb06._CACHE["now"]))
    ),
    "06.which_scaling": _posed_scaling,
    "07.alibi_self_weight": lambda: alibi_self_weight(nb07._SELF["slope"]),
    "07.alibi_heads": lambda: nb07.alibi_slopes(nb07._HEADS),
    "07.t5_decoder_starts": lambda: (
        nb07._starts(nb07.t5_relative_position_bucket(
            -nb07._DISTANCES, bidirectional=False, max_distance=nb07._DECODER["max_distance"]))
    ),
    "07.t5_direction": lambda: key_minus_query(nb07.bucket_matrices()),
    "07.alibi_local_heads": lambda: (
        nb07._local(nb07.alibi_weights_by_distance(nb07._LOCAL_HEADS, nb07._CONTEXT))
    ),
    "08.bfloat16_ties": lambda: nb08.round_to_dtype(np.array(nb08._TIES["positions"]), 'bfloat16'),
    "08.truncation_bias": lambda: mean_truncation_error(
        float(nb08._SPREAD["low"]), float(nb08._SPREAD["high"])),
    "08.table_detector": lambda: (
        np.array([build is nb08._narrow_angle_table for build, _ in nb08._TABLES])
    ),
    "08.float16_edges": lambda: overflow_edges(
        np.arange(nb08._FORMAT["largest"] // 2, 2 * nb08._FORMAT["largest"]), nb08._FORMAT["name"]),
    "09.llama31_slow_pairs": lambda: nb09._scaled_slow() - nb09._plain_slow(),
    "09.partial_vs_p_rope": lambda: (
        np.stack([nb09._partial_row(),
                  nb09.p_rope_frequencies(nb09._D, nb09._PARTIAL["p"], nb09._BASE)])
    ),
    "09.mla_cache": lambda: (
        nb09._V3['kv_lora_rank']
        + nb09._V3['num_attention_heads'] // nb09._KEYS['group'] * nb09._V3['qk_rope_head_dim']
    ),
    "09.mrope_positions": lambda: mrope_image_positions(
        *(nb09._MROPE[k] for k in ("before", "rows", "cols", "after"))),
    "09.cache_survives": lambda: {name for name in nb09._STALE["models"]
                                  if frequencies_change(name)},
    "10.turning_pairs": lambda: int(np.count_nonzero(lab_turns(nb10._COVERED["length"]) >= 1)),
    "10.break_position": lambda: first_below(mean_curve("t5"), nb10._BREAK["threshold"],
                                              LAB_TRAINED),
    "10.seed_spread": close_to_rope,
    "10.t5_far_bucket": lambda: far_keys(nb10._FAR["tokens"]),
    "11.ntk_ratios": lambda: method_frequency_ratios(
        nb11._HEAD, nb11._BASE, float(nb11._FACTOR["s"]), nb11._TRAINED, ("ntk",)
    )["ntk"][list(nb11._PAIRS)],
    "11.offset_distance": lambda: nb11._distance(100.0),
    "11.table_orientation": lambda: np.array([rows_are_positions(table)
                                              for table in nb11.mystery_tables()]),
    "11.octaves": lambda: nb11._octaves(nb11._WIDTH["d"]),
}
"""The right answer of every exercise, by key, computed with posenc_lib."""


def answers() -> dict[str, Any]:
    """Every exercise's right answer, by key."""
    return {key: compute() for key, compute in EXPECTED.items()}


def key_text() -> str:
    """The key file's text: one JSON object, the encoded answers by exercise key."""
    encoded = {key: encode(value) for key, value in answers().items()}
    return json.dumps(encoded, indent=0, sort_keys=True) + "\n"


def _stored(value: Any) -> Any:
    """A stored value as JSON holds it: names as a sorted list, numbers as floats."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return sorted(value)
    return np.asarray(value, dtype=float).tolist()


def data_text() -> str:
    """The text of posenc_lib/exercises/_data.json: the hidden inputs and the stored mistakes
    as plain numbers."""
    made = {**HIDDEN_INPUTS, **STORED_MISTAKES}
    data = {key: _stored(make()) for key, make in made.items()}
    return json.dumps(data, indent=0, sort_keys=True) + "\n"


def same_json(stored: str, fresh: str) -> bool:
    """Whether two JSON texts hold the same values, floats equal to 1e-9 relative: float64 sin
    and cos of large angles differ by up to about 1e-11 between numpy's SIMD code paths (02's
    decoded rows, measured with and without AVX2), and the committed files are read as stored,
    never recomputed; 1e-9 is also the finest tolerance any exercise's check uses."""
    def same(a: Any, b: Any) -> bool:
        if isinstance(a, float) or isinstance(b, float):
            return isinstance(a, (int, float)) and isinstance(b, (int, float)) and bool(
                np.isclose(a, b, rtol=1e-9, atol=0.0))
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        return bool(a == b)
    return same(json.loads(stored), json.loads(fresh))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--out", type=Path, default=KEY_PATH, help="key file to write")
    args = parser.parse_args(argv)
    stale = "is not current; run python tools/answer_key.py"
    data = data_text()
    if args.check and (not DATA_PATH.exists()
                       or not same_json(DATA_PATH.read_text(encoding="utf-8"), data)):
        raise SystemExit(f"error: {DATA_PATH} {stale}")
    if not args.check:
        DATA_PATH.write_text(data, encoding="utf-8")
        importlib.reload(_data)  # the exercises read the inputs just written
        importlib.reload(nb02)
        importlib.reload(nb05)
        importlib.reload(nb06)
        importlib.reload(nb11)
    text = key_text()
    if args.check:
        if not args.out.exists() or not same_json(args.out.read_text(encoding="utf-8"), text):
            raise SystemExit(f"error: {args.out} {stale}")
        print(f"{args.out} and {DATA_PATH.name} are current ({len(EXPECTED)} answers)")
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"answer key of {len(EXPECTED)} exercises written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

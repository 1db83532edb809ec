"""Reading and summarising the lab's committed results (NumPy only, no JAX).

Every number notebook 10 quotes is computed here from ``results/lab_*.json``. Keys are
``"task/method/seed"``; a curve is the accuracy at each position (None where nothing is scored).

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_choice, check_int
from posenc_lib.lab.verdicts import (
    LEARNED_AT,
    Comparison,
    Verdict,
    paired_difference,
    t_interval,
    verdict,
)

__all__ = [
    "MULTIPLES", "RESULTS", "beyond_training", "binned", "bootstrap_interval", "cell_verdict",
    "claims", "compared", "cosine_similarity", "fine_tune_stats", "fine_tune_table", "load",
    "long_entries", "mean_curves", "offset_stats", "summary", "summary_table", "token_budget",
    "write_json",
]

Stats = dict[tuple[str, str], NDArray[Any]]  # (task, method) to one row per seed
MULTIPLES = (1, 2, 4, 8)
_POSITIONS = ("unseen", "all")
_FILES = ("curves", "extensions", "attention", "learned_table", "offsets", "scale")
_BOOTSTRAP_RESAMPLES = 10_000
_COURSE_CLAIMS: tuple[tuple[str, str, str], ...] = (
    ("learned absolute tables do not extrapolate", "learned", "drops"),
    ("sinusoidal tables do not extrapolate", "sinusoidal", "drops"),
    ("ALiBi extrapolates", "alibi", "holds"),
    ("T5's relative bias extrapolates", "t5", "holds"),
    ("RoPE fails past its trained length", "rope", "drops"),
)
# results/ of the repository, else the copy a non-editable install (a wheel, a hub image) puts
# under sys.prefix/share/posenc_lib/results (pyproject's data-files).
_REPOSITORY_RESULTS = Path(__file__).resolve().parents[2] / "results"
RESULTS = (_REPOSITORY_RESULTS if _REPOSITORY_RESULTS.is_dir()
           else Path(sys.prefix) / "share" / "posenc_lib" / "results")


def _values(curve: Any) -> NDArray[np.float64]:
    """A stored curve as floats, NaN where JSON stores None."""
    return np.array([np.nan if v is None else v for v in curve], dtype=float)


def _by_cell(rows: Iterable[tuple[str, Any]]) -> Stats:
    """Rows keyed ``"task/method/seed"`` stacked per (task, method), in the order of the seeds."""
    def by_seed(row: tuple[str, Any]) -> tuple[str, int]:
        cell, seed = row[0].rsplit("/", 1)
        return cell, int(seed)

    grouped: dict[tuple[str, str], list[Any]] = {}
    for key, row in sorted(rows, key=by_seed):
        task, method, _ = key.split("/")
        grouped.setdefault((task, method), []).append(row)
    return {cell: np.array(found) for cell, found in grouped.items()}


def _check_cell(stats: Stats, task: str, method: str, parameter: str = "methods") -> None:
    if (task, method) not in stats:
        raise ValueError(f"{parameter}: no results for {method!r} on task {task!r}")


def _values_1d(name: str, values: Any) -> NDArray[np.float64]:
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or len(values) == 0 or np.isnan(values).any():
        raise ValueError(f"{name} must be a non-empty 1-D array without NaN; got {values!r}")
    return values


def _resampled_means(values: NDArray[np.float64], rng: np.random.Generator
                     ) -> NDArray[np.float64]:
    draws = rng.integers(0, len(values), (_BOOTSTRAP_RESAMPLES, len(values)))
    return values[draws].mean(1)  # the mean of each resample


def bootstrap_interval(values: Any, other: Any = None, *, level: float = 0.95, seed: int = 0
                       ) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (one value per seed), or of the
    difference of the means of ``values`` and ``other`` (two independent sets of seeds).

    Parameters
    ----------
    values, other : array_like, shapes (n,) and (k,); other optional
        With ``other`` (resampled independently), the interval of mean(values) - mean(other).
    level, seed : float, int, default 0.95 and 0
        The seed of the 10,000 resamples makes the interval the same on every run.

    Returns
    -------
    (low, high) : tuple of float
        The (1 - level)/2 and (1 + level)/2 quantiles of the resampled means (or differences).

    Examples
    --------
    >>> bootstrap_interval([0.5, 0.5, 0.5])
    (0.5, 0.5)
    >>> bootstrap_interval([1.0, 1.0], [0.25, 0.25])
    (0.75, 0.75)
    """
    values = _values_1d("values", values)
    if not 0 < level < 1:
        raise ValueError(f"level must lie between 0 and 1; got {level!r}")
    rng = np.random.default_rng(seed)
    means = _resampled_means(values, rng)
    if other is not None:
        means = means - _resampled_means(_values_1d("other", other), rng)
    low, high = np.quantile(np.sort(means), [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def token_budget(steps: int, batch: int, length: int) -> int:
    """Tokens seen in training: steps x batch x length.

    Examples
    --------
    >>> token_budget(800, 16, 32)
    409600
    """
    return check_int("steps", steps) * check_int("batch", batch) * check_int("length", length)


def write_json(path: Path, data: Any, *, indent: int | None = 1) -> None:
    """Write ``data`` as sorted JSON atomically (a temporary file, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    separators = (",", ": ") if indent is not None else (",", ":")
    text = json.dumps(data, indent=indent, sort_keys=True, separators=separators) + "\n"
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(text)
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)


def load(name: str, folder: Path | None = None) -> dict[str, Any]:
    """The content of ``lab_<name>.json`` in ``folder`` (default :data:`RESULTS`).

    Parameters
    ----------
    name : {"curves", "extensions", "attention", "learned_table", "offsets", "scale"}
    folder : Path, optional
    """
    name = check_choice("name", name, _FILES)
    path = Path(folder or RESULTS) / f"lab_{name}.json"
    if not path.is_file():
        raise ValueError(f"name {name!r}: {path.name} not found; run `make experiments`")
    return dict(json.loads(path.read_text(encoding="utf-8")))


def offset_stats(offsets: dict[str, Any]) -> Stats:
    """Accuracy at the trained length per (task, variant) of ``lab_offsets.json``.

    Returns
    -------
    dict of (task, variant) to ndarray, shape (n_seeds, n_offsets)
        One row per seed, one column per offset of ``offsets["setup"]["offsets"]``.
    """
    return _by_cell(offsets["offsets"].items())


def long_entries(curves: dict[str, Any]) -> dict[str, Any]:
    """The longer trainings of ``lab_curves.json`` as ``"task/method/seed"`` to curves."""
    return {key: value["curves"] for key, value in curves["long"].items()}


def beyond_training(curve: Any, multiple: int, trained_length: int) -> float:
    """Mean accuracy of one curve over the positions a model has not been trained on.

    Parameters
    ----------
    curve : sequence of float or None, shape (multiple * trained_length,)
    multiple, trained_length : int
        The evaluation length over the trained length L; L.

    Returns
    -------
    float
        Mean of a_t over the scored t >= L (over every scored t when multiple is 1).

    Examples
    --------
    >>> beyond_training([None, 1.0, 0.5, 0.0], 2, 2)
    0.25
    """
    multiple = check_int("multiple", multiple)
    trained_length = check_int("trained_length", trained_length)
    values = _values(curve)
    if values.shape != (multiple * trained_length,):
        raise ValueError(f"curve must have {multiple * trained_length} values for multiple="
                         f"{multiple}; got {values.shape[0]}")
    return float(np.nanmean(values[0 if multiple == 1 else trained_length:]))


def _below_and_beyond(curve: Any, trained_length: int) -> tuple[float, float]:
    """Mean accuracy of one curve on the positions below L and on those from L on.

    Examples
    --------
    >>> _below_and_beyond([None, 1.0, 0.5, 0.0], 2)
    (1.0, 0.25)
    """
    values = _values(curve)
    return float(np.nanmean(values[:trained_length])), float(np.nanmean(values[trained_length:]))


def summary(entries: dict[str, Any], trained_length: int, *, positions: str = "unseen"
            ) -> Stats:
    """Accuracy per (task, method), one row per seed and one column per multiple.

    Parameters
    ----------
    entries, trained_length : dict, int
        ``"task/method/seed"`` to ``{"1": curve, "2": curve, ...}``; L.
    positions : {"unseen", "all"}, default "unseen"
        Average the positions never trained on (:func:`beyond_training`) or every scored one.

    Returns
    -------
    dict of (task, method) to ndarray, shape (n_seeds, len(MULTIPLES))
    """
    unseen = check_choice("positions", positions, _POSITIONS) == "unseen"
    return _by_cell((key, [beyond_training(curves[str(m)], m, trained_length) if unseen
                           else float(np.nanmean(_values(curves[str(m)]))) for m in MULTIPLES])
                    for key, curves in entries.items())


def _interval_cell(column: NDArray[np.float64], interval: str) -> str:
    """One table cell: the seed mean with its bootstrap interval, or -/+ its t half-width."""
    if interval == "t":
        mean, low, _ = t_interval(column)
        return f"{mean:.2f} ± {mean - low:.2f}"  # mean -/+ t_{0.975, n-1} s / sqrt(n)
    low, high = bootstrap_interval(column)
    return f"{column.mean():.2f} [{low:.2f}-{high:.2f}]"


def summary_table(stats: Stats, task: str, methods: tuple[str, ...], *,
                  whole: Stats | None = None, interval: str = "bootstrap") -> str:
    """A plain-text table of the seeds' mean and its 95% interval, per method (rows) and
    multiple (columns), with the number of seeds.

    Parameters
    ----------
    stats, task, methods : dict, str, tuple of str
        ``stats`` from :func:`summary`.
    whole : dict, optional
        :func:`summary` with ``positions="all"``: its seed mean goes in brackets past 1x.
    interval : {"bootstrap", "t"}, default "bootstrap"
        The percentile bootstrap interval in square brackets, or the Student t interval as
        mean ± its half-width (notebook 10's rule; wider and honest with five seeds).
    """
    interval = check_choice("interval", interval, ("bootstrap", "t"))
    width = (12 if interval == "t" else 17) + (7 if whole is not None else 0)
    label = max(14, len(task) + 1)
    lines = [f"{task:<{label}}{'seeds':>5}" + "".join(f"{f'{m}x':>{width}}" for m in MULTIPLES)]
    for method in methods:
        _check_cell(stats, task, method)
        values = stats[(task, method)]
        cells = [_interval_cell(column, interval) for column in values.T]
        if whole is not None:
            means = whole[(task, method)].mean(0)
            cells[1:] = [f"{c} ({w:.2f})" for c, w in zip(cells[1:], means[1:], strict=True)]
        lines.append(f"{method:<{label}}{len(values):>5}"
                     + "".join(f"{c:>{width}}" for c in cells))
    return "\n".join(lines)


def cosine_similarity(table: Any) -> NDArray[np.float64]:
    """Cosine similarity between every two rows of a position table.

    Parameters
    ----------
    table : array_like, shape (n_positions, d)

    Returns
    -------
    ndarray, shape (n_positions, n_positions)

    Notes
    -----
    S_ij = p_i . p_j / (|p_i| |p_j|).

    Examples
    --------
    >>> cosine_similarity([[1.0, 0.0], [1.0, 1.0]]).round(3).tolist()
    [[1.0, 0.707], [0.707, 1.0]]
    """
    rows = np.asarray(table, dtype=float)
    if rows.ndim != 2 or not np.all(np.linalg.norm(rows, axis=1) > 0):
        raise ValueError(f"table must be 2-D with non-zero rows; got shape {rows.shape}")
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)  # p_i / |p_i|
    return unit @ unit.T  # S_ij = cos(p_i, p_j)


def mean_curves(entries: dict[str, Any], task: str, methods: Any, multiple: int
                ) -> dict[str, NDArray[np.float64]]:
    """Accuracy by position at ``multiple`` times the trained length, averaged over seeds.

    Parameters
    ----------
    entries, task, methods, multiple : dict, str, iterable of str, int
        As for :func:`summary`; ``multiple`` one of :data:`MULTIPLES`.

    Returns
    -------
    dict of method to ndarray, shape (multiple * L,)
        NaN where nothing is scored.
    """
    multiple = check_int("multiple", multiple)
    if multiple not in MULTIPLES:
        raise ValueError(f"multiple must be one of {MULTIPLES}; got {multiple}")
    found: dict[str, NDArray[np.float64]] = {}
    for method in methods:
        rows = [_values(curve[str(multiple)])
                for key, curve in entries.items() if key.rsplit("/", 1)[0] == f"{task}/{method}"]
        if not rows:
            raise ValueError(f"methods: no results for {method!r} on task {task!r}")
        values = np.array(rows, dtype=float)  # (seeds, T)
        counts = np.sum(~np.isnan(values), axis=0)
        totals = np.nansum(values, axis=0)
        found[method] = np.divide(totals, counts, out=np.full(totals.shape, np.nan),
                                  where=counts > 0)
    return found


def binned(curve: Any, width: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """A per-position curve averaged over bins of ``width`` positions (few tokens are scored
    at one position, so a single position is noisy).

    Parameters
    ----------
    curve : array_like, shape (T,)
        Accuracy per position, NaN (or None) where nothing is scored.
    width : int
        Positions per bin; T a multiple of it.

    Returns
    -------
    centres, means : ndarray, shape (T // width,)
        The middle position of each bin and the mean of its scored positions (NaN if none).

    Examples
    --------
    >>> binned([None, 1.0, 0.5, 0.0], 2)
    (array([0.5, 2.5]), array([1.  , 0.25]))
    """
    width = check_int("width", width)
    values = _values(curve)
    if len(values) % width:
        raise ValueError(f"width must divide the curve's {len(values)} positions; got {width}")
    rows = values.reshape(-1, width)
    counts = np.sum(~np.isnan(rows), axis=1)
    means = np.divide(np.nansum(rows, axis=1), counts, out=np.full(len(rows), np.nan),
                      where=counts > 0)
    centres = np.arange(len(rows), dtype=float) * width + (width - 1) / 2
    return centres, means


def cell_verdict(stats: Stats, task: str, method: str, multiple: int = 4) -> Verdict:
    """The verdict of one cell at ``multiple`` x, decided among the seeds that learned at 1x.

    Parameters
    ----------
    stats, task, method : dict, str, str
        ``stats`` from :func:`summary`.
    multiple : int, default 4
        One of :data:`MULTIPLES` past 1.

    Returns
    -------
    Verdict
        :func:`posenc_lib.lab.verdicts.verdict` of the columns 1x and ``multiple`` x: "holds",
        "drops" or "borderline" by the t 95% interval of a_m - a_1 over the seeds with
        a_1 >= 0.9, or "not learned"; its ``not_learned`` counts the seeds left out.

    Examples
    --------
    >>> stats = {("t", "m"): np.array([[1.0, 0.9, 0.95, 0.5]] * 4 + [[0.5] * 4])}
    >>> str(cell_verdict(stats, "t", "m"))
    'holds (-0.050 [-0.050, -0.050], 4 of 4 hold; 1 of 5 did not learn)'
    """
    _check_cell(stats, task, method, "method")
    column = _column(multiple)
    values = stats[(task, method)]
    return verdict(values[:, 0], values[:, column])


def _column(multiple: int) -> int:
    multiple = check_int("multiple", multiple, minimum=2)
    if multiple not in MULTIPLES:
        raise ValueError(f"multiple must be one of {MULTIPLES[1:]}; got {multiple}")
    return MULTIPLES.index(multiple)


def compared(stats: Stats, task: str, method: str, baseline: str = "rope", multiple: int = 4
             ) -> Comparison:
    """``method`` against ``baseline`` at ``multiple`` x, seed by seed (the same models read two
    ways, e.g. a context extension and plain RoPE), over the seeds where the baseline learned.

    Parameters
    ----------
    stats, task, method, baseline : dict, str, str, str
        ``stats`` from :func:`summary`, with the same seeds for both methods.
    multiple : int, default 4

    Returns
    -------
    Comparison
        :func:`posenc_lib.lab.verdicts.paired_difference` of method minus baseline, over the
        seeds with the baseline's a_1 >= 0.9.

    Examples
    --------
    >>> stats = {("t", "a"): np.array([[1.0, 0.9, 0.8, 0.7]] * 3),
    ...          ("t", "b"): np.array([[1.0, 0.8, 0.5, 0.2]] * 3)}
    >>> str(compared(stats, "t", "a", "b"))
    'better (+0.300 [+0.300, +0.300], 3 seeds)'
    """
    _check_cell(stats, task, method, "method")
    _check_cell(stats, task, baseline, "baseline")
    values, base = stats[(task, method)], stats[(task, baseline)]
    if values.shape != base.shape:
        raise ValueError(f"baseline {baseline!r} has {len(base)} seeds on {task!r}, method "
                         f"{method!r} {len(values)}: a paired comparison needs the same seeds")
    learned = base[:, 0] >= LEARNED_AT
    column = _column(multiple)
    return paired_difference(values[learned, column], base[learned, column])


def _claim_line(stats: Stats, task: str, method: str, expected: str, label: str) -> str:
    found = cell_verdict(stats, task, method)
    word = {"not learned": "untested (not learned at 1x)", "borderline": "no clear verdict"}.get(
        found.label, "agrees" if found.label == expected else "disagrees")
    mean = stats[(task, method)].mean(0)
    return f"  {label:<22} 1x {mean[0]:.2f}  4x {mean[2]:.2f}  {found}: {word}"


def claims(stats: Stats, tasks: Any, longer: Stats | None = None,
           longer_steps: int | None = None) -> list[str]:
    """One line per course claim and task: the seed means at 1x and 4x and the verdict.

    Parameters
    ----------
    stats, tasks : dict, iterable of str
        ``stats`` from :func:`summary`.
    longer, longer_steps : dict, int, optional
        :func:`summary` of the longer trainings (a line of its own per cell) and their steps.

    Returns
    -------
    list of str
        Each claim, then per task the seed means at 1x and 4x, the :func:`cell_verdict` at 4x
        (its effect, interval and seeds), and "agrees", "disagrees", "no clear verdict" or
        "untested (not learned at 1x)".
    """
    lines = []
    for text, method, expected in _COURSE_CLAIMS:
        lines.append(text)
        for task in tasks:
            lines.append(_claim_line(stats, task, method, expected, task))
            if longer is not None and (task, method) in longer:
                lines.append(_claim_line(longer, task, method, expected,
                                         f"  after {longer_steps} steps"))
    return lines


def fine_tune_stats(extended: dict[str, Any], plain: dict[str, Any], trained_length: int
                    ) -> Stats:
    """Accuracy at the fine-tune length below and beyond L, per (task, method) and seed.

    Parameters
    ----------
    extended, plain, trained_length : dict, dict, int
        ``lab_extensions.json``; the grid's curves (for the plain "rope" models); L.

    Returns
    -------
    dict of (task, method) to ndarray, shape (n_seeds, 2)
        Positions ``0 .. L-1`` and ``L .. mL-1``, for "rope", "pi", "ntk", "yarn" without
        fine-tuning, and "pi_<steps>" and "plain_<steps>" after a fine-tune with or without PI;
        on a fine-tuned task, every row over the seeds of its fine-tunes only (one seed set).
    """
    multiple = str(extended["setup"]["fine_tune"]["multiple"])
    sources = {**{k: v[multiple] for k, v in extended["extensions"].items()},
               **{k: v[multiple] for k, v in plain.items() if k.split("/")[1] == "rope"},
               **extended["fine_tuned"]}
    tuned_seeds: dict[str, set[str]] = {}  # a fine-tuned task: the seeds of its fine-tunes
    for key in extended["fine_tuned"]:
        task, _, seed = key.split("/")
        tuned_seeds.setdefault(task, set()).add(seed)

    def kept(key: str) -> bool:
        task, method, seed = key.split("/")
        return method != "dynamic" and seed in tuned_seeds.get(task, {seed})

    return _by_cell((key, _below_and_beyond(curve, trained_length))
                    for key, curve in sources.items() if kept(key))


def _tuned_name(method: str) -> tuple[str, int] | None:
    """("pi", 60) for "pi_60", None for a method without a fine-tune."""
    name, _, steps = method.rpartition("_")
    return (name, int(steps)) if name and steps.isdigit() else None


def fine_tune_table(tuned: Stats, tasks: Any, setup: dict[str, Any]) -> str:
    """The fine-tunes at 4x against the methods without one, at the fine-tune length: per
    method (rows) and task (columns), the seed mean on positions from L on and, in brackets,
    on the positions below L ("-" where a task has no such checkpoint); each fine-tune with
    its tokens and their share of pretraining.

    Parameters
    ----------
    tuned, tasks, setup : dict, iterable of str, dict
        :func:`fine_tune_stats`; the results' "setup" (batch, lengths, steps: the token budgets).
    """
    tasks = list(tasks)
    train, multiple = setup["train"], setup["fine_tune"]["multiple"]
    pretraining = token_budget(train["steps"], train["batch"], train["length"])
    runs = sorted({found for _, m in tuned if (found := _tuned_name(m))},
                  key=lambda run: (run[1], run[0] != "pi"))
    rows = [(m, f"{m}, no fine-tune", "") for m in ("rope", "pi", "ntk", "yarn")]
    for name, steps in runs:
        tokens = token_budget(steps, train["batch"], multiple * train["length"])
        rows.append((f"{name}_{steps}", f"{name} + {steps} steps",
                     f"{tokens:>9,} ({tokens / pretraining:.0%})"))
    lines = ["".ljust(20) + "".join(f"{t:>16}" for t in tasks) + "   tokens (of pretraining)"]
    for method, label, budget in rows:
        cells = ""
        for task in tasks:
            if (task, method) not in tuned:  # this task was not read at this checkpoint
                cells += f"{'-':>16}"
                continue
            below, beyond = tuned[(task, method)].mean(0)  # positions below L, from L on
            cells += f"{f'{beyond:.2f} ({below:.2f})':>16}"
        lines.append(f"{label:<20}{cells}   {budget}".rstrip())
    return "\n".join(lines)

"""Reading and summarising the lab's committed results (NumPy only, no JAX).

``make experiments`` writes ``results/lab_*.json``; the notebook and the tests read them here,
so every number the notebook quotes is computed from those files on the page.

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc_lib._checks import check_choice, check_int

__all__ = [
    "MULTIPLES",
    "RESULTS",
    "COURSE_CLAIMS",
    "behaviour",
    "beyond_training",
    "claims",
    "cosine_similarity",
    "fine_tune_table",
    "load",
    "mean_curves",
    "summary",
    "summary_table",
    "write_json",
]

MULTIPLES = (1, 2, 4, 8)
RESULTS = Path(__file__).resolve().parents[2] / "results"
FILES = ("curves", "extensions", "attention", "learned_table")


def _spread(values: NDArray[Any]) -> float:
    """Sample standard deviation over seeds (0 for a single seed)."""
    return float(np.std(values, ddof=1)) if len(values) > 1 else 0.0


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
    """Load ``results/lab_<name>.json``.

    Parameters
    ----------
    name : {"curves", "extensions", "attention", "learned_table"}
        Which file.
    folder : Path, optional
        Where the files are (default: the repository's ``results/``).

    Returns
    -------
    dict
        The file's content.
    """
    name = check_choice("name", name, FILES)
    path = Path(folder or RESULTS) / f"lab_{name}.json"
    if not path.is_file():
        raise ValueError(f"name {name!r}: {path.name} not found; run `make experiments`")
    return dict(json.loads(path.read_text(encoding="utf-8")))


def beyond_training(curve: Any, multiple: int, trained_length: int) -> float:
    """Mean accuracy of one curve over the positions a model has not been trained on.

    Parameters
    ----------
    curve : sequence of float or None, shape (multiple * trained_length,)
        Accuracy by position (None or NaN where nothing is scored).
    multiple : int
        The evaluation length over the trained length, >= 1.
    trained_length : int
        The training length L.

    Returns
    -------
    float
        For ``multiple == 1`` the mean over every scored position; otherwise the mean over the
        positions ``L .. multiple * L - 1``.

    Notes
    -----
    :math:`\\bar a = \\frac{1}{|S|}\\sum_{t \\in S} a_t` with :math:`S` the scored positions
    :math:`t \\ge L` (all of them at 1x).

    Examples
    --------
    >>> beyond_training([None, 1.0, 0.5, 0.0], 2, 2)
    0.25
    """
    multiple = check_int("multiple", multiple)
    trained_length = check_int("trained_length", trained_length)
    values = np.array([np.nan if v is None else v for v in curve], dtype=float)
    if values.shape != (multiple * trained_length,):
        raise ValueError(f"curve must have {multiple * trained_length} values for multiple="
                         f"{multiple}; got {values.shape[0]}")
    start = 0 if multiple == 1 else trained_length
    return float(np.nanmean(values[start:]))


def summary(entries: dict[str, Any], trained_length: int) -> dict[tuple[str, str], NDArray[Any]]:
    """Accuracy beyond training per (task, method), one row per seed and one column per multiple.

    Parameters
    ----------
    entries : dict
        ``"task/method/seed"`` to ``{"1": curve, "2": curve, ...}`` (the ``curves`` or
        ``extensions`` of the results).
    trained_length : int
        The training length L.

    Returns
    -------
    dict of (task, method) to ndarray, shape (n_seeds, len(MULTIPLES))
    """
    rows: dict[tuple[str, str], list[list[float]]] = {}
    for key in sorted(entries, key=lambda k: (k.rsplit("/", 1)[0], int(k.rsplit("/", 1)[1]))):
        task, method, _ = key.split("/")
        rows.setdefault((task, method), []).append(
            [beyond_training(entries[key][str(m)], m, trained_length) for m in MULTIPLES])
    return {k: np.array(v) for k, v in rows.items()}


def summary_table(stats: dict[tuple[str, str], NDArray[Any]], task: str,
                  methods: tuple[str, ...]) -> str:
    """A plain-text table: mean ± standard deviation over seeds, per method and multiple.

    Parameters
    ----------
    stats : dict
        From :func:`summary`.
    task : str
        The task to show.
    methods : tuple of str
        The rows, in order.

    Returns
    -------
    str
        One header line and one line per method.

    Notes
    -----
    The spread is the sample standard deviation over seeds,
    :math:`s = \\sqrt{\\sum (a - \\bar a)^2 / (n - 1)}`.
    """
    header = f"{task:<14}" + "".join(f"{f'{m}x':>14}" for m in MULTIPLES)
    lines = [header]
    for method in methods:
        if (task, method) not in stats:
            raise ValueError(f"methods: no results for {method!r} on task {task!r}")
        values = stats[(task, method)]
        spread = values.std(0, ddof=1) if len(values) > 1 else np.zeros(values.shape[1])
        cells = "".join(f"{f'{mu:.2f} ± {sd:.2f}':>14}" for mu, sd in zip(values.mean(0), spread,
                                                                           strict=True))
        lines.append(f"{method:<14}{cells}")
    return "\n".join(lines)


def cosine_similarity(table: Any) -> NDArray[np.float64]:
    """Cosine similarity between every two rows of a position table.

    Parameters
    ----------
    table : array_like, shape (n_positions, d)
        A learned or sinusoidal table, one row per position.

    Returns
    -------
    ndarray, shape (n_positions, n_positions)

    Notes
    -----
    :math:`S_{ij} = p_i \\cdot p_j / (\\lVert p_i \\rVert \\lVert p_j \\rVert)`.

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
    entries : dict
        ``"task/method/seed"`` to ``{"1": curve, ...}``.
    task : str
        The task.
    methods : iterable of str
        The methods to average.
    multiple : int
        One of :data:`MULTIPLES`.

    Returns
    -------
    dict of str to ndarray, shape (multiple * L,)
        NaN where nothing is scored.
    """
    multiple = check_int("multiple", multiple)
    if multiple not in MULTIPLES:
        raise ValueError(f"multiple must be one of {MULTIPLES}; got {multiple}")
    found: dict[str, NDArray[np.float64]] = {}
    for method in methods:
        rows = [[np.nan if v is None else v for v in curve[str(multiple)]]
                for key, curve in entries.items() if key.rsplit("/", 1)[0] == f"{task}/{method}"]
        if not rows:
            raise ValueError(f"methods: no results for {method!r} on task {task!r}")
        values = np.array(rows, dtype=float)  # (seeds, T)
        counts = np.sum(~np.isnan(values), axis=0)
        totals = np.nansum(values, axis=0)
        found[method] = np.divide(totals, counts, out=np.full(totals.shape, np.nan),
                                  where=counts > 0)
    return found


def behaviour(stats: dict[tuple[str, str], NDArray[Any]], task: str, method: str, *,
              multiple: int = 4, learned_at: float = 0.9, tolerance: float = 0.1) -> str:
    """Classify a method on a task: "not learned", "holds" or "drops" at ``multiple``.

    Parameters
    ----------
    stats : dict
        From :func:`summary`.
    task, method : str
        Which row.
    multiple : int, default 4
        The length multiple judged.
    learned_at : float, default 0.9
        Mean accuracy at 1x from which the task counts as learned.
    tolerance : float, default 0.1
        How far below its 1x accuracy a method may fall at ``multiple`` and still "hold".

    Returns
    -------
    str

    Notes
    -----
    With :math:`\\bar a_m` the seed mean at :math:`m`x: "not learned" if
    :math:`\\bar a_1 < 0.9`, "holds" if :math:`\\bar a_m \\ge \\bar a_1 - 0.1`, else "drops".
    """
    if (task, method) not in stats:
        raise ValueError(f"method: no results for {method!r} on task {task!r}")
    if multiple not in MULTIPLES:
        raise ValueError(f"multiple must be one of {MULTIPLES}; got {multiple!r}")
    mean = stats[(task, method)].mean(0)
    first, later = mean[0], mean[MULTIPLES.index(multiple)]
    if first < learned_at:
        return "not learned"
    return "holds" if later >= first - tolerance else "drops"


COURSE_CLAIMS: tuple[tuple[str, str, str], ...] = (
    ("learned absolute tables do not extrapolate", "learned", "drops"),
    ("sinusoidal tables do not extrapolate", "sinusoidal", "drops"),
    ("ALiBi extrapolates", "alibi", "holds"),
    ("T5's relative bias extrapolates", "t5", "holds"),
    ("RoPE fails past its trained length", "rope", "drops"),
)


def claims(stats: dict[tuple[str, str], NDArray[Any]], tasks: Any) -> list[str]:
    """One line per course claim and task: the seed means at 1x and 4x and the verdict.

    Parameters
    ----------
    stats : dict
        From :func:`summary` of the grid's curves.
    tasks : iterable of str
        The tasks to judge.

    Returns
    -------
    list of str
        "agrees", "disagrees" or "untested (not learned at 1x)" for every claim and task, as
        judged by :func:`behaviour` at 4x.
    """
    lines = []
    for text, method, expected in COURSE_CLAIMS:
        lines.append(text)
        for task in tasks:
            found = behaviour(stats, task, method)
            verdict = ("untested (not learned at 1x)" if found == "not learned"
                       else "agrees" if found == expected else "disagrees")
            mean = stats[(task, method)].mean(0)
            lines.append(f"  {task:<13} 1x {mean[0]:.2f}  4x {mean[2]:.2f}  {found:<12}"
                         f"{verdict}")
    return lines


def fine_tune_table(extended: dict[str, Any], ext_stats: dict[tuple[str, str], NDArray[Any]],
                    trained_length: int) -> str:
    """PI after its short fine-tune against the methods without one, at the fine-tune length.

    Parameters
    ----------
    extended : dict
        The content of ``lab_extensions.json``.
    ext_stats : dict
        :func:`summary` of the extensions (with plain "rope" rows).
    trained_length : int
        The training length L.

    Returns
    -------
    str
        A table of mean ± sd over seeds on positions ``L .. mL - 1``, one row per method and
        one column per task.
    """
    multiple = int(extended["setup"]["fine_tune"]["multiple"])
    column = MULTIPLES.index(multiple)
    tasks = list(dict.fromkeys(key.split("/")[0] for key in extended["fine_tuned"]))
    rows: dict[str, list[NDArray[Any]]] = {}
    for method in ("rope", "pi", "ntk", "yarn"):
        rows[f"{method}, no fine-tune"] = [ext_stats[(t, method)][:, column] for t in tasks]
    tuned = []
    for task in tasks:
        seeds = [k for k in extended["fine_tuned"] if k.startswith(f"{task}/")]
        tuned.append(np.array([beyond_training(extended["fine_tuned"][k], multiple,
                                               trained_length) for k in seeds]))
    steps = extended["setup"]["fine_tune"]["steps"]
    rows[f"pi + {steps} steps"] = tuned
    lines = [f"{f'at {multiple}x':<20}" + "".join(f"{t:>16}" for t in tasks)]
    for name, values in rows.items():
        cells = "".join(f"{f'{v.mean():.2f} ± {_spread(v):.2f}':>16}" for v in values)
        lines.append(f"{name:<20}{cells}")
    return "\n".join(lines)

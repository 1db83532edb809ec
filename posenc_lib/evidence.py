"""Published retrieval evidence on real models, kept as data with the table each number comes from.

RULER (Hsieh et al., 2024) scores long-context models on 13 synthetic tasks (retrieval,
multi-hop tracing, aggregation, question answering) at 4K to 128K tokens. The numbers live in
``posenc_lib/data/ruler.json``, copied from the main table of the RULER repository's README at the
commit the file names; nothing here was measured by the course.

Notebooks: 06_context_extension, 11_figure_gallery.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

__all__ = ["RulerModel", "RulerTable", "ruler_table", "effective_length", "tokens"]


class RulerModel(NamedTuple):
    """One model's row: name, claimed and effective length (as the README writes them, "128K"),
    its scores at the table's lengths, the row it was read from, and its RoPE scaling."""

    model: str
    claimed: str
    effective: str
    scores: tuple[float, ...]
    table: str
    rope: str


class RulerTable(NamedTuple):
    """The lengths (column labels), the threshold score, the models and the source (a dict)."""

    lengths: tuple[str, ...]
    threshold: float
    models: tuple[RulerModel, ...]
    source: dict[str, Any]


@cache
def ruler_table() -> RulerTable:
    """Return RULER's published scores as stored in ``posenc_lib/data/ruler.json``.

    Returns
    -------
    table : RulerTable

    Examples
    --------
    >>> table = ruler_table()
    >>> table.lengths[0], table.threshold, table.source["commit"][:8]
    ('4K', 85.6, 'ebe802cd')
    """
    raw = json.loads(resources.files("posenc_lib").joinpath("data/ruler.json").read_text("utf-8"))
    models = tuple(RulerModel(row["model"], row["claimed"], row["effective"],
                              tuple(float(s) for s in row["scores"]), row["table"], row["rope"])
                   for row in raw["models"])
    return RulerTable(tuple(raw["lengths"]), float(raw["threshold"]["score"]), models,
                      raw["source"])


def tokens(label: str) -> int:
    """``"32K"`` -> 32768: RULER's lengths are powers of two, ``K`` = 1024 tokens."""
    if not isinstance(label, str) or not label.endswith("K") or not label[:-1].isdigit():
        raise ValueError(f"label must be a length such as '32K'; got {label!r}")
    return int(label[:-1]) * 1024  # n K = n * 1024 tokens


def effective_length(scores: tuple[float, ...], lengths: tuple[str, ...],
                     threshold: float) -> str | None:
    """The longest length up to which every score exceeds ``threshold`` (None: not even the
    first), RULER's definition of a model's effective context."""
    effective = None
    for score, label in zip(scores, lengths, strict=True):
        if score <= threshold:
            break
        effective = label
    return effective

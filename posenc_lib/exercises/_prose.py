"""The course prose of the exercises, read from one TOML file a notebook: ``prose/nbNN.toml``.

Notebooks: 00_why_position to 11_figure_gallery.

An exercise's title, the objective it checks and its two hints (a direction, then the method)
are wording that teachers edit, so they live beside the modules as text: a table per exercise,
keyed by the exercise's key (``["02.slow_pair"]``), with exactly the fields ``title``,
``objective`` and ``hints``. The behaviour (answer, params, mistakes, shortcuts) stays in
``nbNN.py``; a ``{name}`` in a title or hint is filled from the exercise's params by
:meth:`posenc_lib.exercises.Exercise.use`.
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Collection, Iterable
from functools import cache
from pathlib import Path
from typing import Any

PROSE_DIR = Path(__file__).with_name("prose")
"""The folder of the notebooks' prose files (shipped in the wheel as package data)."""
FIELDS = ("title", "objective", "hints")
"""The fields of every exercise's table, and no others."""
N_HINTS = 2
"""Hints per exercise: a direction, then the method."""


def prose_path(key: str, folder: Path = PROSE_DIR) -> Path:
    """The prose file of exercise ``key`` ("02.slow_pair" -> ``folder/nb02.toml``)."""
    notebook, dot, name = key.partition(".")
    if not (dot and name and len(notebook) == 2 and notebook.isdigit()):
        raise ValueError(f"exercise key must be 'NN.name' (two digits, a dot, a name); "
                         f"got {key!r}")
    return folder / f"nb{notebook}.toml"


@cache
def _read(path: Path) -> dict[str, Any]:
    """Every table of the prose file ``path``, read once."""
    with path.open("rb") as file:
        return tomllib.load(file)


def exercise_prose(key: str, params: Collection[str] | None = None, folder: Path = PROSE_DIR
                   ) -> tuple[str, tuple[str, ...], str]:
    """The title, hints and objective of exercise ``key``, as written (``{name}`` not filled).

    Parameters
    ----------
    key : str
        The exercise's key, "NN.name": its table in ``folder/nbNN.toml``.
    params : collection of str, optional
        The names of the exercise's params, which its title and hints may use as ``{name}``;
        None for an exercise without params, whose texts are shown as written.
    folder : Path
        The folder of the prose files.

    Raises
    ------
    ValueError
        Naming the file and the key, when the file cannot be read, has no table for ``key``,
        the table lacks one of :data:`FIELDS` or has another field, a text is not a non-empty
        string, there are not exactly two hints, or a title or hint names a ``{placeholder}``
        that is not one of ``params``.
    """
    path = prose_path(key, folder)
    where = f"{path}, exercise {key!r}"
    try:
        table = _read(path).get(key)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{where}: cannot read the prose file: {error}") from error
    if not isinstance(table, dict):
        raise ValueError(f"{where}: no table [\"{key}\"] with its title, objective and hints")
    if set(table) != set(FIELDS):
        missing, unknown = sorted(set(FIELDS) - set(table)), sorted(set(table) - set(FIELDS))
        raise ValueError(f"{where}: the fields must be exactly {list(FIELDS)}; "
                         f"missing {missing}, unknown {unknown}")
    hints = table["hints"]
    if not isinstance(hints, list) or len(hints) != N_HINTS:
        raise ValueError(f"{where}: hints must be a list of exactly {N_HINTS} texts (a "
                         f"direction, then the method); got {hints!r}")
    for text in (table["title"], table["objective"], *hints):
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{where}: title, objective and hints must be non-empty texts; "
                             f"got {text!r}")
    if params is not None:
        _check_placeholders(where, (table["title"], *hints), set(params))
    return table["title"], tuple(hints), table["objective"]


def _check_placeholders(where: str, texts: Iterable[str], params: set[str]) -> None:
    """Refuse a ``{name}`` that str.format cannot fill from ``params`` (a literal brace is
    written ``{{``)."""
    for text in texts:
        try:
            names = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
        except ValueError as error:
            raise ValueError(f"{where}: {error} in {text!r} (a literal brace is written {{{{ or "
                             f"}}}})") from error
        if not names <= params:
            raise ValueError(f"{where}: placeholders {sorted(names - params)} are not params of "
                             f"the exercise (it has {sorted(params)}); in {text!r}")


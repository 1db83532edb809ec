"""A learner's local record of the exercises passed, for self-study.

Notebooks: 00_why_position to 11_figure_gallery (``progress()`` in any of them).

The record is a JSON file, ``$POSENC_PROGRESS_FILE`` if set, else ``posenc-course/progress.json``
in the user's data directory (never in the repository), written atomically. It must never break
a notebook: a corrupt or unwritable file gives one warning and the checks carry on.
"""

from __future__ import annotations

import html
import json
import os
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

__all__ = ["ProgressTable", "passed_exercises", "progress", "progress_path", "record_pass"]

_warned = False


def progress_path() -> Path:
    """Where the progress record lives: XDG_DATA_HOME (or ~/.local/share) on Linux, ~/Library/
    Application Support on macOS, %APPDATA% on Windows, unless $POSENC_PROGRESS_FILE is set."""
    override = os.environ.get("POSENC_PROGRESS_FILE")
    if override:
        return Path(override)
    return Path(platformdirs.user_data_dir("posenc-course", appauthor=False, roaming=True),
                "progress.json")


def _warn_once(message: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(f"exercise progress is not saved: {message}", RuntimeWarning, stacklevel=3)


def _read(path: Path) -> dict[str, Any]:
    """The stored record, or an empty one; a corrupt file warns once and counts as empty."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {"passed": []}
    except OSError as err:
        _warn_once(f"cannot read {path.name} ({err.strerror})")
        return {"passed": []}
    try:
        record = json.loads(text)
        if not isinstance(record, dict) or not isinstance(record.get("passed"), list):
            raise ValueError("unexpected layout")
        return record
    except ValueError:
        _warn_once(f"{path} is corrupt; it is left as it is and progress starts afresh")
        return {"passed": [], "corrupt": True}


def _write_atomically(path: Path, record: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".progress-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(record, stream, indent=1, sort_keys=True)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def passed_exercises() -> set[str]:
    """Keys of the exercises passed so far ("02.half_turns", ...)."""
    return {str(key) for key in _read(progress_path())["passed"]}


def record_pass(key: str) -> None:
    """Add ``key`` to the record. Never raises: problems warn once and are otherwise ignored."""
    path = progress_path()
    try:
        record = _read(path)
        if record.get("corrupt"):
            return  # keep the learner's corrupt file for them to look at; do not overwrite it
        if key in record["passed"]:
            return
        record["passed"] = sorted({*record["passed"], key})
        _write_atomically(path, record)
    except OSError as err:
        _warn_once(f"cannot write {path} ({err.strerror or err})")


@dataclass(frozen=True)
class ProgressTable:
    """Exercises passed per notebook; shows as a table in Jupyter."""

    rows: list[tuple[str, int, int]]  # (notebook number, passed, total)

    def __repr__(self) -> str:
        lines = ["notebook  passed / total"]
        lines += [f"{nb:>8}  {done:>6} / {total}" for nb, done, total in self.rows]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<tr><td>{html.escape(nb)}</td><td>{done} / {total}</td>"
            f'<td><progress value="{done}" max="{total}"></progress></td></tr>'
            for nb, done, total in self.rows
        )
        return f"<table><tr><th>notebook</th><th>passed</th><th></th></tr>{cells}</table>"


def progress() -> ProgressTable:
    """Return a table of the notebooks with the number of their exercises passed.

    Examples
    --------
    >>> table = progress()
    >>> all(done <= total for _, done, total in table.rows)
    True
    """
    from posenc_lib.exercises import all_exercises

    passed = passed_exercises()
    totals: dict[str, list[int]] = {}
    for key in all_exercises():
        notebook = key.split(".", 1)[0]
        counts = totals.setdefault(notebook, [0, 0])
        counts[1] += 1
        counts[0] += key in passed
    return ProgressTable([(nb, done, total) for nb, (done, total) in sorted(totals.items())])

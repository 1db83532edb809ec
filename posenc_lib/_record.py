"""A learner's local record of the exercises passed, the predictions written and the reveals
skipped (``progress()``).

A JSON file in the user's data directory, written atomically; ``os.devnull`` (graded runs)
records nothing, and a corrupt or unwritable file warns once and never breaks a notebook.

Notebooks: 00_why_position to 11_figure_gallery.
"""

from __future__ import annotations

import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import platformdirs

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


def read_record(path: Path | None = None) -> dict[str, Any]:
    """The stored record (at ``path``, default :func:`progress_path`), or an empty one; a
    corrupt file warns once and counts as empty."""
    path = progress_path() if path is None else path
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {"passed": []}
    except OSError as err:
        _warn_once(f"cannot read {path.name} ({err.strerror})")
        return {"passed": []}
    try:
        record = json.loads(text)
        if not _is_record(record):
            raise ValueError("unexpected layout")
        return record
    except ValueError:
        _warn_once(f"{path} is corrupt; it is left as it is and progress starts afresh")
        return {"passed": [], "corrupt": True}


def _is_record(record: Any) -> bool:
    """Whether ``record`` has the record's layout: a dict whose "passed" (and "predicted" and
    "skipped", if any) are lists of names."""
    if not isinstance(record, dict) or "passed" not in record:
        return False
    lists = [record[field] for field in ("passed", "predicted", "skipped") if field in record]
    return all(isinstance(items, list) and all(isinstance(i, str) for i in items)
               for items in lists)


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


def _add(field: str, item: str) -> None:
    """Add ``item`` to the record's list ``field``. Never raises: problems warn once."""
    path = progress_path()
    if not isinstance(item, str) or str(path) == os.devnull:
        return  # only names are recorded; the null device records nothing
    try:
        record = read_record(path)
        if record.get("corrupt"):
            return  # keep the learner's corrupt file for them to look at; do not overwrite it
        if item in record.get(field, []):
            return
        record[field] = sorted({*record.get(field, []), item})
        _write_atomically(path, record)
    except OSError as err:
        _warn_once(f"cannot write {path} ({err.strerror or err})")


def record_pass(key: str) -> None:
    """Add the exercise ``key`` to the record. Never raises."""
    _add("passed", key)


def record_prediction(label: str) -> None:
    """Add a prediction the learner wrote (its reveal's label) to the record. Never raises."""
    _add("predicted", label)


def record_skip(label: str) -> None:
    """Add a reveal the learner chose to see without a guess (its label) to the record. Never
    raises."""
    _add("skipped", label)

"""Where ``check()`` finds the answer key, and the key file's format.

Notebooks: 00_why_position to 11_figure_gallery.

The package holds no answer. A checkout of the course repository has one key file, written by
``tools/answer_key.py`` at the repository root: a kernel started anywhere below that root (the
source notebooks, ``make study``'s copies) finds it, and ``check()`` can then say "Correct". An
installed wheel, a graded release, or a grader that sets ``POSENC_ANSWER_KEY`` to an empty string
has no key: ``check()`` then names the known mistakes only.

A graded release's grade cells hand an answer in as plain data (:func:`plain`): nbgrader's
grader, outside the student's kernel, decodes it (:func:`decode`) and compares it with the
instructor's key (tools/grader.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

KEY_FILE = ".posenc_answer_key.json"
"""The key file's name, at the root of a checkout."""
ANSWER_KEY_VARIABLE = "POSENC_ANSWER_KEY"
"""Environment variable: a key file's path, or an empty string for "no key" (graders set it)."""


class NoAnswerKey(LookupError):
    """This install has no answer key (a wheel, a graded release, an autograde run)."""


def answer_key_path(start: Path | None = None) -> Path | None:
    """The key file in force: ``$POSENC_ANSWER_KEY`` if set (empty: none), else the nearest
    :data:`KEY_FILE` in ``start`` (default: the working folder) or a folder above it."""
    chosen = os.environ.get(ANSWER_KEY_VARIABLE)
    if chosen is not None:
        return Path(chosen) if chosen and Path(chosen).is_file() else None
    folder = (start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / KEY_FILE).is_file():
            return candidate / KEY_FILE
    return None


def load_answer(key: str) -> Any:
    """The right answer of exercise ``key`` from the key file; :class:`NoAnswerKey` without one."""
    path = answer_key_path()
    if path is None:
        raise NoAnswerKey("this install has no answer key")
    entries = json.loads(path.read_text(encoding="utf-8"))
    if key not in entries:
        raise NoAnswerKey(f"the answer key {path} has no entry {key!r}")
    return decode(entries[key])


def encode_answer(value: Any) -> Any:
    """A JSON form of an answer that :func:`decode` turns back into the same type and value."""
    if isinstance(value, np.ndarray):
        return {"array": value.dtype.str, "shape": list(value.shape),
                "data": value.ravel().tolist()}
    if isinstance(value, np.generic):
        return {"scalar": value.dtype.str, "data": value.item()}
    if isinstance(value, tuple):
        return {"tuple": [encode_answer(item) for item in value]}
    if isinstance(value, (set, frozenset)):
        return {"set": sorted((encode_answer(item) for item in value), key=repr)}
    if isinstance(value, list):
        return {"list": [encode_answer(item) for item in value]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"value must be an array, a number, a string, a tuple, a list or a set; "
                    f"got {type(value).__name__}")


HAND_IN_MIME = "application/vnd.posenc.hand-in+json"
"""The MIME type of the display a grade cell hands an answer in with."""
MAX_NUMBERS = 100_000
"""The most numbers an answer handed in may hold."""
_PLAIN_KINDS = "biuf"
"""The kinds of NumPy arrays and scalars handed in as they are: bool, integers, floats."""


def plain(value: Any, _count: list[int] | None = None) -> Any:
    """``value`` as plain data (the form :func:`encode_answer` writes), judged by its exact type.

    Only None, bool, int, float, str, NumPy arrays and scalars of bool, integer or float dtype
    (other NumPy formats such as bfloat16 become float64), and tuples, lists and sets of those
    are plain; a subclass of any of them, or any other object (one with its own ``__eq__``,
    ``__array__`` or ``__float__``), raises TypeError naming its type, so no answer handed in can
    act as something it is not. NumPy turns arrays into numbers without running the answer's
    code.
    """
    count = [0] if _count is None else _count
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        count[0] += 1
    elif kind is np.ndarray or (isinstance(value, np.generic) and kind is value.dtype.type):
        value = _numbers(value)
        count[0] += int(np.size(value))
    elif kind in (tuple, list, set, frozenset):
        items = [decode(plain(item, count)) for item in value]
        value = tuple(items) if kind is tuple else items if kind is list else set(items)
    else:
        raise TypeError(f"an answer must be numbers, text, an array, or a tuple, list or set of "
                        f"those; got {kind.__name__}")
    if count[0] > MAX_NUMBERS:
        raise TypeError(f"an answer may hold at most {MAX_NUMBERS} numbers")
    return encode_answer(value)


def _numbers(value: Any) -> Any:
    """A NumPy array or scalar of bool, integers or floats: as it is, or in float64 for one of
    ml_dtypes' formats; a TypeError for any other dtype (objects, records, text)."""
    if value.dtype.kind in _PLAIN_KINDS:
        return value
    if value.dtype.kind != "V" or type(value.dtype).__module__ == "numpy.dtypes":
        raise TypeError(f"an answer must hold numbers; got an array of {value.dtype}")
    return np.asarray(value).astype(np.float64)  # ml_dtypes' formats (bfloat16, ...)


def decode(data: Any) -> Any:
    """The answer :func:`encode_answer` wrote."""
    if not isinstance(data, dict):
        return data
    if "array" in data:
        return np.array(data["data"], dtype=np.dtype(data["array"])).reshape(data["shape"])
    if "scalar" in data:
        return np.dtype(data["scalar"]).type(data["data"])
    if "tuple" in data:
        return tuple(decode(item) for item in data["tuple"])
    if "set" in data:
        return {decode(item) for item in data["set"]}
    return [decode(item) for item in data["list"]]

"""Predict, then run: the reveal cell's comparison of a learner's guess with the computed value.

A code cell holds the learner's guess (``None`` until one is typed, ``"skip"`` to see the answer
without one); the reveal cell, tagged ``predict``, ends with :func:`compare`. Nothing is graded;
``progress()`` counts the guesses and the skips. In the learner's copies the reveal cell starts
with the cell magic ``%%after_guess NAME`` (written by tools/build_student.py): the cell runs, so
the cells below it find what it defines, but it shows nothing, no print, no figure, no value,
until ``NAME`` holds a guess or ``"skip"``. Importing posenc_lib registers the magic in a
running IPython.

Notebooks: 00_why_position, 01_binary_counting, 02_sinusoidal_formula.
"""

from __future__ import annotations

import ast
import numbers
import sys
from collections.abc import Set
from dataclasses import dataclass
from typing import Any

import numpy as np

from posenc_lib._record import record_prediction, record_skip

__all__ = ["SKIP", "compare"]

SKIP = "skip"
"""The guess that asks to see a reveal without predicting; it is recorded as a skip."""
_NO_GUESS = "no guess written: write one in the cell above, then rerun this cell"


@dataclass(frozen=True)
class Reveal:
    """What a reveal cell shows (``repr``: :attr:`text`); ``verdict`` is "", right, close or off."""

    label: str
    value: Any
    guess: Any
    verdict: str
    text: str

    def __repr__(self) -> str:
        return self.text


def _shown(x: Any) -> str:
    """A short text for a value: 4 significant digits for floats, sets sorted."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, numbers.Integral):
        return str(int(x))
    if isinstance(x, numbers.Real):
        return f"{float(x):.4g}"
    if isinstance(x, Set):
        return "{" + ", ".join(_shown(item) for item in sorted(x, key=repr)) + "}"
    if isinstance(x, tuple):
        return "(" + ", ".join(_shown(item) for item in x) + ")"
    if isinstance(x, (list, np.ndarray)):
        return "[" + ", ".join(_shown(item) for item in np.asarray(x).tolist()) + "]"
    return repr(x)


def _numbers_verdict(guess: Any, value: Any) -> tuple[str, str]:
    """Verdict and explanation for a numeric guess (a scalar or an array) against the value."""
    want = np.asarray(value, dtype=float)
    try:
        got = np.asarray(guess, dtype=float)
    except (TypeError, ValueError):
        return "off", f"expected numbers, got {type(guess).__name__}"
    if got.shape != want.shape:
        return "off", f"expected {want.size} number(s) of shape {want.shape}, got shape {got.shape}"
    error = np.abs(got - want)
    scale = np.maximum(np.abs(want), np.finfo(float).tiny)
    if np.all(error <= 1e-9 * scale) or np.array_equal(got, want):
        return "right", "exactly right"
    verdict = "close" if np.all(error <= 0.1 * scale) else "off"  # within 10% of the value
    if want.ndim == 0:
        relative = float(error / scale)
        return verdict, f"off by {float(error):.3g} ({relative:.0%} of the value)"
    worst = int(np.argmax(error))
    return verdict, (
        f"{int(np.sum(error > 1e-9 * scale))} of {want.size} entries differ; the largest "
        f"difference is {float(error.flat[worst]):.3g}, at entry {worst} (yours "
        f"{_shown(got.flat[worst])}, the value {_shown(want.flat[worst])})"
    )


def _set_verdict(guess: Any, value: Set[Any]) -> tuple[str, str]:
    try:  # inner lists (a nested list of pairs) count as the tuples they spell
        got = {tuple(item) if isinstance(item, list) else item for item in guess}
    except TypeError:
        return "off", f"expected a collection of items, got {type(guess).__name__}"
    if got == set(value):
        return "right", "exactly right"
    missing, extra = set(value) - got, got - set(value)
    parts = [f"missing {_shown(missing)}"] if missing else []
    parts += [f"extra {_shown(extra)}"] if extra else []
    return "off", "; ".join(parts)


def compare(guess: Any, value: Any, *, label: str = "answer") -> Reveal:
    """Show a computed value and, if the learner typed a guess, how far off the guess was.

    Parameters
    ----------
    guess : object
        The learner's guess; ``None`` (or ``...``) means no guess.
    value : object
        A number, an array of numbers, a bool, a set or a string.
    label : str, default "answer"

    Returns
    -------
    Reveal

    Notes
    -----
    A guess of ``"skip"`` (:data:`SKIP`, any case) shows the value and records a skip, not a
    prediction. Numbers are compared entry by entry by ``|guess - value| / |value|``, "close" up
    to 0.1; a bool or a string (ignoring case and spaces) must be equal; a set must have the same
    items.

    Examples
    --------
    >>> compare(None, 0.25, label="code of position 2 of 9")
    code of position 2 of 9: 0.25
    no guess written: write one in the cell above, then rerun this cell
    >>> compare(0.3, 0.25, label="code of position 2 of 9")
    code of position 2 of 9: 0.25
    your guess: 0.3 (off: off by 0.05 (20% of the value))
    >>> compare({(0, 4)}, {(0, 4), (1, 5)}, label="twins").verdict
    'off'
    """
    shown = f"{label}: {_shown(value)}"
    if guess is None or guess is Ellipsis:
        return Reveal(label, value, None, "", f"{shown}\n{_NO_GUESS}")
    if _is_skip(guess):
        record_skip(label)  # progress() counts it as a skip; never raises
        return Reveal(label, value, None, "skipped",
                      f"{shown}\nskipped: no guess (recorded as a skip)")
    if isinstance(value, (bool, np.bool_)):
        if not isinstance(guess, (bool, np.bool_)):
            verdict, why = "off", "expected True or False"
        elif bool(guess) == bool(value):
            verdict, why = "right", "right"
        else:
            verdict, why = "off", "the other way round"
    elif isinstance(value, str):
        right = isinstance(guess, str) and guess.strip().lower() == value.strip().lower()
        verdict, why = ("right", "right") if right else ("off", "not this")
    elif isinstance(value, Set):
        verdict, why = _set_verdict(guess, value)
    else:
        verdict, why = _numbers_verdict(guess, value)
    detail = "right" if verdict == "right" else f"{verdict}: {why}"
    record_prediction(label)  # progress() counts it; never raises
    return Reveal(label, value, guess, verdict, f"{shown}\nyour guess: {_shown(guess)} ({detail})")


def _is_skip(guess: Any) -> bool:
    return isinstance(guess, str) and guess.strip().lower() == SKIP


def hidden_message(name: str) -> str:
    """What a reveal cell of a learner's copy prints instead of its output while ``name`` holds
    no guess."""
    return (f"hidden until you guess: set {name} in the cell above to your guess (or to "
            f'"{SKIP}" to see the answer without one), run that cell, then rerun this one')


def _run_cell_body(shell: Any, body: str) -> Any:
    """Run ``body`` in the notebook's namespace as a cell would: the value of a last expression
    is returned instead of displayed."""
    tree = ast.parse(shell.transform_cell(body))
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    namespace = shell.user_ns
    exec(compile(tree, "<reveal cell>", "exec"), namespace)
    if last is None:
        return None
    return eval(compile(ast.Expression(last.value), "<reveal cell>", "eval"), namespace)


def after_guess(line: str, cell: str) -> Any:
    """The cell magic ``%%after_guess NAME``: run the cell; show its output only once ``NAME``
    holds a guess (not ``None`` nor ``...``), or :data:`SKIP`."""
    try:  # optional: only IPython calls a cell magic, and then IPython is installed
        from IPython import get_ipython
        from IPython.utils.capture import capture_output
    except ImportError as err:  # pragma: no cover - a cell magic outside IPython
        raise RuntimeError("%%after_guess is a cell magic: it runs in IPython (Jupyter)") from err

    name = line.strip()
    if not name.isidentifier():
        raise ValueError(f"%%after_guess needs the name of the guess variable; got {line!r}")
    shell = get_ipython()
    guess = shell.user_ns.get(name)
    if guess is not None and guess is not Ellipsis:
        return _run_cell_body(shell, cell)
    with capture_output(stdout=True, stderr=True, display=True):  # run it, show nothing
        try:
            _run_cell_body(shell, cell)
        finally:
            if "matplotlib.pyplot" in sys.modules:  # a figure left open would be drawn later
                sys.modules["matplotlib.pyplot"].close("all")
    print(hidden_message(name))
    return None


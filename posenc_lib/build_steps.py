"""Build it yourself: ``mine = adopt(my_function, reference, cases, name=...)`` checks a
learner's function against the library's and returns the learner's when it agrees on every case,
else the library's (said in one line, with a :class:`Mistake` named when one matches).

Notebooks: 01-09, one or more build steps each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Mistake", "adopt"]


@dataclass(frozen=True)
class Mistake:
    """A common wrong version of a build step's function: its name and its code."""

    name: str
    wrong: Callable[..., Any]


def _same(a: Any, b: Any) -> bool:
    """Whether two results (arrays, numbers, or tuples of them) agree: ``numpy.allclose`` with
    rtol 1e-9 and atol 1e-12."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b, strict=True)))
    try:
        left, right = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return False
    return left.shape == right.shape and bool(np.allclose(left, right, rtol=1e-9, atol=1e-12))


def _describe(case: Mapping[str, Any]) -> str:
    return ", ".join(f"{key}={np.asarray(value).tolist()!r}"[:60] for key, value in case.items())


def _diagnose(got: Any, want: Any, case: Mapping[str, Any], mistakes: Sequence[Mistake]) -> str:
    """Why ``got`` is not ``want``: a named mistake, a shape, or the largest difference."""
    for mistake in mistakes:
        try:
            if _same(got, mistake.wrong(**case)):
                return f"it looks like {mistake.name}"
        except Exception:  # a mistake that cannot run on this case names nothing
            continue
    if isinstance(want, tuple):
        return f"expected a tuple of {len(want)} results"
    try:
        got_array = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return f"expected numbers, got {type(got).__name__}"
    want_array = np.asarray(want, dtype=float)
    if got_array.shape != want_array.shape:
        return f"expected shape {want_array.shape}, got shape {got_array.shape}"
    worst = float(np.max(np.abs(got_array - want_array)))
    return f"the largest difference is {worst:.3g}"


def adopt(yours: Callable[..., Any] | None, reference: Callable[..., Any],
          cases: Sequence[Mapping[str, Any]], *, name: str,
          mistakes: Sequence[Mistake] = ()) -> Callable[..., Any]:
    """Check the learner's function on every case and return the function the notebook uses.

    Parameters
    ----------
    yours, reference : callable
        The learner's function (None or NotImplementedError: not written) and the library's.
    cases : sequence of dict
        Keyword arguments for both functions; every case must agree (``numpy.allclose``, rtol
        1e-9, atol 1e-12).
    name : str
        What the function computes, used in the messages.
    mistakes : sequence of Mistake
        Common wrong versions, named when the learner's result matches one.

    Returns
    -------
    callable
        ``yours`` when it agrees with ``reference`` on every case, else ``reference``.

    Examples
    --------
    >>> use = adopt(lambda x: 2 * x, lambda x: x + x, [{"x": 3.0}], name="doubling")
    your doubling agrees with posenc_lib on 1 case: the cells below use yours
    >>> use = adopt(lambda x: 3 * x, lambda x: x + x, [{"x": 3.0}], name="doubling",
    ...             mistakes=[Mistake("tripling instead", lambda x: 3 * x)])
    your doubling differs from posenc_lib for x=3.0: it looks like tripling instead
    the cells below use posenc_lib's doubling; fix yours and rerun this cell
    """
    fallback = f"the cells below use posenc_lib's {name}"
    if yours is None:
        print(f"{name} not written yet: {fallback}")
        return reference
    for case in cases:
        want = reference(**case)
        try:
            got = yours(**case)
        except NotImplementedError:
            print(f"{name} not written yet: {fallback}")
            return reference
        except Exception as error:  # any failure of the learner code is reported
            print(f"your {name} raised {type(error).__name__} for {_describe(case)}: {error}")
            print(f"{fallback}; fix yours and rerun this cell")
            return reference
        if not _same(got, want):
            why = _diagnose(got, want, case, mistakes)
            print(f"your {name} differs from posenc_lib for {_describe(case)}: {why}")
            print(f"{fallback}; fix yours and rerun this cell")
            return reference
    count = f"{len(cases)} case" + ("s" if len(cases) != 1 else "")
    print(f"your {name} agrees with posenc_lib on {count}: the cells below use yours")
    return yours

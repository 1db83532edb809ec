"""Build steps of notebook 05 (issue 32): the learner writes the function, ``adopt`` checks it
(03 and 04 are course objects now: tests/test_build_steps_objects.py and _pictures.py).

Each step is read from the source notebook: its stub, its worked solution (tagged ``solution``)
and its check cell ``my_x = adopt(x_by_me, reference, cases, name=..., mistakes=[...])``. The
test runs the notebook's cells up to the check with ``adopt`` recorded, then checks both ways:
the worked function is adopted (and the stored output says so), the stub (the student copy) and
every named mistake are replaced by the library's function, each mistake by its own name, and
the cells below really call the adopted function for the notebook's figure or result.
"""

from __future__ import annotations

import contextlib
import io
import re
from functools import cache
from typing import Any

import matplotlib
import numpy as np
import pytest

from posenc_lib import build_steps
from tools.notebook_cells import ROOT, load, source

matplotlib.use("Agg")

NB = {name[:2]: ROOT / "notebooks" / name for name in ("05_rope.ipynb",)}

# (notebook, learner's function, adopted name, a later line that uses it for the main result)
STEPS = [
    ("05", "rope_by_me", "my_rope", "Q = my_rope("),
    ("05", "rope_half_by_me", "my_half", "my_half(q[:, perm], pos, theta)"),
]
IDS = [step[2] for step in STEPS]
CHECK_CELL = re.compile(r"^(\w+) = adopt\((\w+),", re.M)


def _code(number: str) -> list[dict[str, Any]]:
    return [c for c in load(NB[number])["cells"] if c["cell_type"] == "code"]


def _tags(cell: dict[str, Any]) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


@cache
def _run_until_checks(number: str) -> dict[str, Any]:
    """Run the notebook's code cells in order until its last build-step check, ``adopt`` recorded.

    Returns the namespace; ``namespace["_calls"]`` maps each adopted name to the arguments of its
    ``adopt`` call. Explorer cells are skipped and ``plt.show`` does nothing.
    """
    import matplotlib.pyplot as plt

    calls: dict[str, dict[str, Any]] = {}

    def recording_adopt(yours, reference, cases, *, name, mistakes=(), **tolerances):
        calls[name] = {"yours": yours, "reference": reference, "cases": cases,
                       "mistakes": list(mistakes), "tolerances": tolerances}
        return build_steps.adopt(yours, reference, cases, name=name, mistakes=mistakes,
                                 **tolerances)

    cells = _code(number)
    last = max(i for i, c in enumerate(cells) if CHECK_CELL.search(source(c)))
    namespace: dict[str, Any] = {"_calls": calls}
    show = plt.show
    plt.show = lambda *a, **k: plt.close("all")
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for cell in cells[: last + 1]:
                text = source(cell)
                if "widget()" in text:
                    continue
                exec(compile(text, f"{number}-cell", "exec"), namespace)
                if "import" in text and "adopt" in text:
                    namespace["adopt"] = recording_adopt
    finally:
        plt.show = show
    namespace["_by_adopted"] = {
        m.group(1): calls_name
        for c in cells for m in [CHECK_CELL.search(source(c))] if m
        for calls_name in [re.search(r'name="([^"]+)"', source(c)).group(1)]
    }
    return namespace


def _step_cells(number: str, function: str) -> tuple[dict, dict, dict]:
    """The stub, the solution and the check cell of one build step."""
    cells = _code(number)
    solution = next(i for i, c in enumerate(cells)
                    if "solution" in _tags(c) and f"def {function}(" in source(c))
    stub, check = cells[solution - 1], cells[solution + 1]
    return stub, cells[solution], check


def _adopt(yours, call: dict[str, Any]) -> tuple[Any, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        chosen = build_steps.adopt(yours, call["reference"], call["cases"], name="step",
                                   mistakes=call["mistakes"], **call["tolerances"])
    return chosen, out.getvalue()


def _call(number: str, adopted: str) -> dict[str, Any]:
    namespace = _run_until_checks(number)
    return namespace["_calls"][namespace["_by_adopted"][adopted]]


@pytest.mark.parametrize(("number", "function", "adopted", "use"), STEPS, ids=IDS)
def test_the_step_has_a_stub_a_solution_and_a_check(number, function, adopted, use) -> None:
    stub, solution, check = _step_cells(number, function)
    assert f"def {function}(" in source(stub) and "raise NotImplementedError" in source(stub)
    assert not _tags(stub) and not stub.get("outputs")
    body = source(solution)
    assert body.startswith("### BEGIN SOLUTION") and body.endswith("### END SOLUTION")
    assert len(body.splitlines()) - 2 <= 12, "the learner writes about ten lines"
    assert re.search(rf"^{adopted} = adopt\({function},", source(check), re.M)
    assert not _tags(check), "practice, not graded: the check is no exercise"
    stored = "".join("".join(o.get("text", "")) for o in check.get("outputs", []))
    assert "agrees with posenc_lib on" in stored and "the cells below use yours" in stored


@pytest.mark.parametrize(("number", "function", "adopted", "use"), STEPS, ids=IDS)
def test_the_worked_function_is_adopted(number, function, adopted, use) -> None:
    call = _call(number, adopted)
    chosen, out = _adopt(call["yours"], call)
    assert chosen is call["yours"] and "the cells below use yours" in out
    assert len(call["cases"]) >= 2 and len(call["mistakes"]) >= 3


@pytest.mark.parametrize(("number", "function", "adopted", "use"), STEPS, ids=IDS)
def test_the_stub_of_the_student_copy_falls_back_to_the_library(number, function, adopted,
                                                                 use) -> None:
    call = _call(number, adopted)
    stub, _, _ = _step_cells(number, function)
    namespace: dict[str, Any] = {}
    exec(compile(source(stub), "stub", "exec"), namespace)
    chosen, out = _adopt(namespace[function], call)
    assert chosen is call["reference"] and "not written yet" in out


@pytest.mark.parametrize(("number", "function", "adopted", "use"), STEPS, ids=IDS)
def test_every_named_mistake_is_diagnosed_and_replaced(number, function, adopted, use) -> None:
    call = _call(number, adopted)
    for mistake in call["mistakes"]:
        chosen, out = _adopt(mistake.wrong, call)
        assert chosen is call["reference"], mistake.name
        assert f"it looks like {mistake.name}" in out, (mistake.name, out)
        assert "fix yours and rerun this cell" in out


@pytest.mark.parametrize(("number", "function", "adopted", "use"), STEPS, ids=IDS)
def test_the_cells_below_use_the_adopted_function(number, function, adopted, use) -> None:
    cells = load(NB[number])["cells"]
    end = next(i for i, c in enumerate(cells) if source(c).startswith(("## Going further",
                                                                        "## Exercises")))
    check = next(i for i, c in enumerate(cells) if re.search(rf"^{adopted} = adopt\(",
                                                            source(c), re.M))
    assert any(use in source(c) for c in cells[check:end] if c["cell_type"] == "code"), use


def test_the_worked_functions_match_the_formulas_written_out_here() -> None:
    """The solutions against loops over the pairs, not against posenc_lib."""
    ns05 = _run_until_checks("05")
    d = 32
    theta = [10000.0 ** (-2 * i / d) for i in range(d // 2)]
    x = np.random.default_rng(3).normal(size=(3, d))
    for fn, first, second in ((ns05["rope_by_me"], np.arange(0, d, 2), np.arange(1, d, 2)),
                              (ns05["rope_half_by_me"], np.arange(d // 2), np.arange(d // 2, d))):
        got = fn(x, np.array([0, 2, 9]), np.array(theta))
        for row, m in enumerate((0, 2, 9)):
            z = (x[row, first] + 1j * x[row, second]) * np.exp(1j * m * np.array(theta))
            np.testing.assert_allclose(got[row, first], z.real, atol=1e-12)
            np.testing.assert_allclose(got[row, second], z.imag, atol=1e-12)


def _count_by_eigenvalues(x: np.ndarray, share: float) -> int:
    """Directions for ``share`` of the variation, from the covariance's eigenvalues (no SVD)."""
    centred = x - x.mean(axis=0)
    eigenvalues = np.sort(np.linalg.eigvalsh(centred.T @ centred))[::-1].clip(min=0)
    return int(np.argmax(np.cumsum(eigenvalues) >= share * eigenvalues.sum() * (1 - 1e-12)) + 1)


@pytest.mark.parametrize(("n", "d", "share"), [(100, 512, 0.99), (64, 64, 0.99), (300, 128, 0.9),
                                               (40, 16, 1.0), (2048, 512, 0.99)])
def test_directions_for_variance_against_the_eigenvalues(n: int, d: int, share: float) -> None:
    from posenc_lib.analysis import directions_for_variance
    from tests.test_statements_03_05 import _pe

    x = _pe(np.arange(n), d)
    assert directions_for_variance(x, share) == _count_by_eigenvalues(x, share)


def test_directions_for_variance_small_cases_and_bad_input() -> None:
    from posenc_lib.analysis import directions_for_variance

    line = np.outer(np.arange(5.0), [1.0, 2.0, 0.0])
    assert directions_for_variance(line) == 1
    assert directions_for_variance(np.ones((4, 3))) == 0
    plane = np.array([[1.0, 0, 0], [0, 1, 0], [-1, 0, 0], [0, -1, 0]])
    assert directions_for_variance(plane, 0.5) == 1 and directions_for_variance(plane, 0.51) == 2
    for bad, match in (([[1.0, 2.0]], "at least 2 finite rows"),
                       ([[1.0, np.nan], [0, 1]], "finite"),
                       ([1.0, 2.0], "encoding")):
        with pytest.raises(ValueError, match=match):
            directions_for_variance(bad)
    for share in (0.0, 1.5):
        with pytest.raises(ValueError, match="share"):
            directions_for_variance(line, share)


def test_directions_for_variance_does_not_overflow_near_the_largest_float() -> None:
    """What the fuzz test found: values near 1e154 overflowed sigma^2, near 4.5e307 the mean.
    The count does not depend on the scale, so huge rows give the small rows' answer."""
    import warnings

    from posenc_lib.analysis import directions_for_variance

    plane = np.array([[1.0, 0, 0], [0, 1, 0], [-1, 0, 0], [0, -1, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for scale in (1.5482003e154, 4.49423284e307 / 2, 1e-300):
            assert directions_for_variance(plane * scale, 0.51) == 2, scale
        assert directions_for_variance(np.array([[1.5482003e154], [0.0], [0.0], [0.0]])) == 1
        assert directions_for_variance(np.full((4, 1), 4.49423284e307)) == 0

"""A graded release poses some exercises with other values, drawn from the instructor's seed
(tools/variants.py, issue 33): the public solutions then answer the notebook's question, not the
release's.

Each variant is checked against the source notebook (its texts and its solution reproduce the
notebook's for the notebook's values), its solution is run for every set of values and compared
with the library's answer (two independent computations), and every drawn answer differs from
the notebook's and from every mistake the check names.
"""

from __future__ import annotations

import math
from pathlib import Path

import nbformat
import numpy as np
import pytest

from posenc_lib.attention import VOCAB, causal_mask, self_attention, word_order_model
from posenc_lib.bias import alibi_slopes
from posenc_lib.exercises import all_exercises
from posenc_lib.exercises._core import Exercise, _compare
from posenc_lib.exercises._property import PropertyExercise
from posenc_lib.frequencies import inverse_frequencies
from posenc_lib.shift import shift_matrix
from posenc_lib.sinusoidal import sinusoidal_encoding_at
from tests.test_nbgrader import SEED, answer_cells
from tools import build_nbgrader
from tools.notebook_cells import NOTEBOOKS, exercise_cells, load, solution_code, source
from tools.variants import NOTEBOOK_VALUES, VARIANTS, answer_for, draw, posed

CASES = [(key, i) for key, v in VARIANTS.items() for i in range(len(v.sets))]


def notebook_of(key: str) -> Path:
    return next(p for p in NOTEBOOKS if p.name.startswith(key[:2]))


def posed_stub(key: str, values: dict) -> str:
    """The stub cell of exercise ``key`` as a release posed with ``values`` shows it."""
    path = notebook_of(key)
    stub = source(load(path)["cells"][exercise_cells(path)[key].stub])
    variant = VARIANTS[key]
    for old, new in zip(variant.prompt(NOTEBOOK_VALUES[key]), variant.prompt(values), strict=True):
        stub = stub.replace(old, new)
    return stub


def notebook_00_names() -> dict[str, object]:
    """What notebook 00 defines before its exercises: the toy model (``embed``, ``w_q``, ``w_k``,
    ``w_v``) and the learner's ``causal_attention``, here the library's self-attention masked."""
    table, w_q, w_k, w_v = word_order_model()
    return {
        "embed": lambda sentence: table[[VOCAB.index(word) for word in sentence.split()]],
        "w_q": w_q, "w_k": w_k, "w_v": w_v,
        "causal_attention": lambda x, q, k, v: self_attention(
            x, q, k, v, mask=causal_mask(len(x)))[0],
    }


def run_solution(key: str, code: str, values: dict) -> object:
    """The value a solution's code binds to the exercise's answer name, run after the stub posed
    with ``values`` (04's stub hands the solution its pe_<position>)."""
    namespace: dict[str, object] = {  # what the notebooks' setup cells import, and np
        **notebook_00_names(),
        "np": np, "math": math, "alibi_slopes": alibi_slopes, "shift_matrix": shift_matrix,
        "sinusoidal_encoding_at": sinusoidal_encoding_at,
        "inverse_frequencies": inverse_frequencies,
    }
    exec(posed_stub(key, values), namespace)
    exec(code, namespace)  # the course's own solution code
    return namespace[all_exercises()[key].answer_name]


def right_for(exercise: Exercise, answer: object, right: object) -> bool:
    """Whether ``answer`` is right for ``exercise`` as it is posed (``right`` is the library's
    answer): a property exercise's judge decides."""
    if isinstance(exercise, PropertyExercise):
        return exercise.judge(answer)[0]
    return _compare(answer, right, exercise.rtol, exercise.atol)[0]


@pytest.mark.parametrize("key", VARIANTS)
def test_a_variant_reproduces_the_notebook_for_its_own_values(key: str) -> None:
    path = notebook_of(key)
    cells = exercise_cells(path)[key]
    notebook = load(path)["cells"]
    named = source(notebook[cells.prompt]) + source(notebook[cells.stub])
    own = NOTEBOOK_VALUES[key]
    for text in VARIANTS[key].prompt(own):
        assert text in named, text
    assert VARIANTS[key].solution(own) == solution_code(path, cells.solution).strip()
    assert all_exercises()[key].params == own  # no test left the exercise posed otherwise


@pytest.mark.parametrize(("key", "index"), CASES)
def test_the_solution_for_other_values_agrees_with_the_library(key: str, index: int) -> None:
    values = VARIANTS[key].sets[index]
    mine = run_solution(key, VARIANTS[key].solution(values), values)
    right = answer_for(key, values)
    with posed(key, values) as ex:
        assert right_for(ex, mine, right), (values, mine, right)


@pytest.mark.parametrize(("key", "index"), CASES)
def test_a_drawn_answer_is_neither_the_notebooks_nor_a_named_mistake(key: str, index: int) -> None:
    values = VARIANTS[key].sets[index]
    assert values != NOTEBOOK_VALUES[key] and set(values) == set(NOTEBOOK_VALUES[key])
    right = answer_for(key, values)
    public = run_solution(key, solution_code(notebook_of(key),
                                             exercise_cells(notebook_of(key))[key].solution),
                          NOTEBOOK_VALUES[key])
    with posed(key, values) as ex:
        assert not right_for(ex, public, right)  # copying scores 0
        for mistake in ex.mistakes:
            wrong = mistake.compute(right)
            assert not right_for(ex, wrong, right), mistake.label
            assert "{" not in mistake.label
        assert "{" not in ex.title + "".join(ex.hints)
        for shortcut in ex.shortcuts:  # 04's refuses reading the drawn position directly
            assert not [n for n in values if f"{{{n}}}" in shortcut.label + shortcut.example]
            assert ex.shortcut_used(None, cell=shortcut.example) == shortcut
        # the check names the mistakes for the posed values (the setup cell poses them); a
        # mistake made from the answer needs the posed answer, which the checkout's key lacks
        # (a stored mistake, made for the notebook's values, is left out for drawn ones: None)
        first = next((m for m in ex.mistakes if not m.from_answer and m.compute() is not None),
                     None)
        if first is not None:
            assert first.label in ex.check(first.compute()).message


def test_use_refuses_what_the_notebook_does_not_pose() -> None:
    exercise = all_exercises()["06.ramp_bounds"]
    with pytest.raises(ValueError, match=r"takes exactly \['L', 'times'\]; got \['L'\]"):
        exercise.use(L=8192)
    with pytest.raises(ValueError, match=r"L must be a int like 16384; got 8192.0"):
        exercise.use(L=8192.0, times=2)
    with pytest.raises(ValueError, match="has none"):
        all_exercises()["06.which_scaling"].use(x=1)
    assert exercise.params == NOTEBOOK_VALUES["06.ramp_bounds"]


def test_the_release_poses_the_drawn_values(tmp_path: Path) -> None:
    paths = sorted({notebook_of(key) for key in VARIANTS})
    build_nbgrader.build(tmp_path, paths, SEED)
    for path in paths:
        built = nbformat.read(tmp_path / "source" / path.stem / path.name, as_version=4)
        setup = next(c for c in built.cells if c.cell_type == "code").source
        text = "\n".join(c.source for c in built.cells)
        for key in set(exercise_cells(path)) & set(VARIANTS):
            values = draw(SEED, key)
            assert f"nb{key[:2]}.{key[3:]}.use(**{values!r})" in setup
            for old, new in zip(VARIANTS[key].prompt(NOTEBOOK_VALUES[key]),
                                VARIANTS[key].prompt(values), strict=True):
                assert new in text and old not in text, (key, old)
            answer = answer_cells(built)[key].source
            assert VARIANTS[key].solution(values) in answer


def test_the_seed_is_drawn_once_and_kept(tmp_path: Path) -> None:
    first = build_nbgrader.instructor_seed(tmp_path, None)
    assert build_nbgrader.instructor_seed(tmp_path, None) == first  # a rebuild keeps it
    (tmp_path / "release").mkdir()
    with pytest.raises(SystemExit, match=f"released assignments with seed {first}"):
        build_nbgrader.instructor_seed(tmp_path, first + 1)
    # the draws differ between seeds: over 20 seeds every set of every variant comes up
    for key, variant in VARIANTS.items():
        seen = {tuple(sorted(draw(seed, key).items())) for seed in range(20)}
        assert len(seen) == len(variant.sets), key

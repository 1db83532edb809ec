"""A graded release poses some exercises with other values, drawn from the instructor's seed
(tools/variants.py, issue 33): the public solutions then answer the notebook's question, not the
release's.

Each variant is checked against the source notebook (its texts and its solution reproduce the
notebook's for the notebook's values), its solution is run for every set of values and compared
with the library's answer (two independent computations), and every drawn answer differs from
the notebook's and from every mistake the check names.
"""

from __future__ import annotations

import inspect
import math
import warnings
from pathlib import Path

import ml_dtypes
import nbformat
import numpy as np
import pytest

from posenc_lib.attention import VOCAB, causal_mask, self_attention, word_order_model
from posenc_lib.bias import alibi_slopes
from posenc_lib.exercises import all_exercises, nb00, nb02, nb03, nb05, nb06, nb11
from posenc_lib.exercises._core import Exercise, Mistake, _compare
from posenc_lib.exercises._property import PropertyExercise
from posenc_lib.frequencies import inverse_frequencies, turns_in_context
from posenc_lib.lab import results
from posenc_lib.lab.schemes import SCHEMES
from posenc_lib.model_pairs import UNROTATED_KINDS, config_layer_kinds
from posenc_lib.models import rope_frequencies_from_config
from posenc_lib.presets import PRESETS
from posenc_lib.shift import shift_matrix
from posenc_lib.sinusoidal import sinusoidal_encoding_at
from tests.test_nbgrader import SEED, answer_cells
from tools import build_nbgrader
from tools.notebook_cells import NOTEBOOKS, exercise_cells, load, solution_code, source
from tools.variants import DRAWN_WITH, NOTEBOOK_VALUES, VARIANTS, answer_for, draw, posed

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


EARLIER = {"05.key_position": "05.layout"}
"""Exercises whose solution reads what an earlier exercise's stub and solution bind (05's key
and the layout found), posed with the same values (tools.variants.DRAWN_WITH)."""


def run_solution(key: str, code: str, values: dict) -> object:
    """The value a solution's code binds to the exercise's answer name, run after the stub posed
    with ``values`` (04's stub hands the solution its pe_<position>), and after the earlier
    exercise's stub and solution that it reads (:data:`EARLIER`)."""
    namespace: dict[str, object] = {  # what the notebooks' setup cells import, and np
        **notebook_00_names(),
        "np": np, "math": math, "alibi_slopes": alibi_slopes, "shift_matrix": shift_matrix,
        "sinusoidal_encoding_at": sinusoidal_encoding_at,
        "PRESETS": PRESETS, "rope_frequencies_from_config": rope_frequencies_from_config,
        "inverse_frequencies": inverse_frequencies, "turns_in_context": turns_in_context,
        "config_layer_kinds": config_layer_kinds, "UNROTATED_KINDS": UNROTATED_KINDS,
        "nb00": nb00, "nb02": nb02, "nb03": nb03, "nb05": nb05, "nb06": nb06, "nb11": nb11,
        "results": results, "grid": results.load("curves"),
        "L": 32,  # notebook 10's lab: the trained length
        "stats": results.summary(results.load("curves")["curves"], 32), "SCHEMES": SCHEMES,
    }
    with posed(key, values):  # 06.llama3_bands' stub reads the posed frequencies, 02's
        if key in EARLIER:  # checkpoint_layout's solution the table
            exec(posed_stub(EARLIER[key], values), namespace)
            exec(VARIANTS[EARLIER[key]].solution(values), namespace)
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
        # (a stored mistake, made for the notebook's values, has none for others: not named)
        first = next((m for m in ex.mistakes
                      if not m.from_answer and m.compute() is not None), None)
        if first is not None:
            assert first.label in ex.check(first.compute()).message


def _stored(mistake: Mistake) -> bool:
    """Whether ``mistake``'s value is one the package stores (tools/answer_key.py), made for the
    notebook's values: wrapped by while_posed, or read directly (which this test refuses)."""
    return ("while_posed" in mistake.value.__qualname__
            or "stored_mistake" in inspect.getsource(mistake.value))


STORED = {key: [i for i, m in enumerate(all_exercises()[key].mistakes) if _stored(m)]
          for key in VARIANTS if "06" <= key[:2] <= "10"}
"""The stored mistakes of each variant of notebooks 06 to 10 (the other notebooks' variants
name theirs their own way)."""


@pytest.mark.parametrize(("key", "index"), [(k, i) for k, i in CASES if STORED.get(k)])
def test_a_stored_mistake_is_never_named_for_drawn_values(key: str, index: int) -> None:
    values = VARIANTS[key].sets[index]
    stored = [all_exercises()[key].mistakes[i] for i in STORED[key]]
    own = [m.compute() for m in stored]
    assert all(value is not None for value in own)  # named for the notebook's values
    with posed(key, values) as ex:
        assert [ex.mistakes[i].compute() for i in STORED[key]] == [None] * len(stored)
        for value, mistake in zip(own, stored, strict=True):  # the notebook's mistake value,
            assert mistake.label not in ex.check(value).message  # answered to the release
            if not isinstance(value, (set, frozenset)):  # a number (10.seed_spread's is a set)
                assert mistake.label not in ex.check(np.asarray(value) * np.nan).message
    assert [m.compute() for m in stored] == own  # named again once posed as the notebook


def test_use_refuses_what_the_notebook_does_not_pose() -> None:
    exercise = all_exercises()["06.ramp_bounds"]
    with pytest.raises(ValueError, match=r"takes exactly \['L', 'times'\]; got \['L'\]"):
        exercise.use(L=8192)
    with pytest.raises(ValueError, match=r"L must be a int like 16384; got 8192.0"):
        exercise.use(L=8192.0, times=2)
    with pytest.raises(ValueError, match="has none"):
        all_exercises()["07.alibi_heads"].use(x=1)
    assert exercise.params == NOTEBOOK_VALUES["06.ramp_bounds"]


def test_the_release_poses_the_drawn_values(tmp_path: Path) -> None:
    paths = sorted({notebook_of(key) for key in VARIANTS})
    build_nbgrader.build(tmp_path, paths, SEED)
    for path in paths:
        built = nbformat.read(tmp_path / "source" / path.stem / path.name, as_version=4)
        setup = next(c for c in built.cells if c.cell_type == "code").source
        text = "\n".join(c.source for c in built.cells)
        for key in set(exercise_cells(path)) & set(VARIANTS):
            values, posing = draw(SEED, key), DRAWN_WITH.get(key, key)
            assert f"nb{posing[:2]}.{posing[3:]}.use(**{values!r})" in setup
            if posing != key:  # posed by the exercise it is drawn with: the same values, once
                assert all_exercises()[key].params is all_exercises()[posing].params
                assert f"nb{key[:2]}.{key[3:]}.use(" not in setup
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


@pytest.mark.parametrize("index", range(len(VARIANTS["06.llama3_bands"].sets)))
def test_the_public_bands_code_fails_on_the_drawn_frequencies(index: int) -> None:
    """06.llama3_bands' solution computes from the frequencies the release hands out, so the
    release poses another d (and base and L): the public code, run on the drawn frequencies,
    breaks on their number; with only its d corrected, its base and L misread them."""
    key, values = "06.llama3_bands", VARIANTS["06.llama3_bands"].sets[index]
    path = notebook_of(key)
    public = solution_code(path, exercise_cells(path)[key].solution)
    assert values["d"] != NOTEBOOK_VALUES[key]["d"]
    with pytest.raises(ValueError, match="could not be broadcast"):
        run_solution(key, public, values)
    own_d = NOTEBOOK_VALUES[key]["d"]
    mended = public.replace(f", {own_d}, 2) / {own_d})", f", {values['d']}, 2) / {values['d']})")
    assert mended != public
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # polyfit on the wrong pairs may be poorly conditioned
        copied = run_solution(key, mended, values)
    assert not _compare(copied, answer_for(key, values), 1e-4, 1e-9)[0], copied


@pytest.mark.parametrize("values", VARIANTS["08.float16_edges"].sets)
def test_a_drawn_format_is_what_ml_dtypes_says(values: dict) -> None:
    """08.float16_edges poses real formats: the bits, exponents and largest value the prompt
    states are ml_dtypes' own, and the format overflows to inf (not NaN, not saturating)."""
    kind = getattr(ml_dtypes, values["name"])
    info = ml_dtypes.finfo(kind)
    assert (values["bits"], values["top"], values["next"]) == (info.nmant, info.maxexp - 1,
                                                              info.maxexp)
    assert values["largest"] == float(info.max)
    with np.errstate(over="ignore"):
        assert np.isinf(np.float64(2 * values["largest"]).astype(kind))


def test_posed_inside_posed_keeps_the_outer_values() -> None:
    """answer_for poses the exercise too: inside an outer ``posed``, the mistakes must still be
    computed for the outer values afterwards (tests/test_nbgrader.py's right_and_wrong)."""
    key = "09.mrope_positions"
    drawn = VARIANTS[key].sets[0]
    with posed(key, drawn) as exercise:
        right = answer_for(key, drawn)
        assert exercise.params == drawn
        for mistake in exercise.mistakes:
            mistake.compute(right)  # shaped for the drawn layout: no broadcasting error
    assert all_exercises()[key].params == NOTEBOOK_VALUES[key]


@pytest.mark.parametrize("values", VARIANTS["06.which_scaling"].sets)
def test_which_scaling_names_the_other_by_parts_method_for_the_line_measured(values: dict) -> None:
    """The notebook measures the evidence from the line in i and names "yarn" (straight in i);
    a release, measuring from the line in theta_i, names "llama3" (straight in theta_i) and never
    "yarn", its right choice."""
    exercise = all_exercises()["06.which_scaling"]
    named = {m.compute()[0] for m in exercise.mistakes}
    assert "yarn" in named and "llama3" not in named
    with posed("06.which_scaling", values):
        right = answer_for("06.which_scaling", values)
        assert right[0] == "yarn" and right[1] > 0.1  # YaRN's blend is far from a line in theta_i
        named = {m.compute()[0]: m.label for m in exercise.mistakes}
        assert "yarn" not in named and named["llama3"].startswith("llama3: ")
        message = exercise.check(("llama3", right[1])).message
        assert named["llama3"] in message and "yarn" not in message.lower()


def test_the_guide_lists_the_posed_exercises_by_notebook() -> None:
    """INSTRUCTORS.md lists the exercises a graded release poses, by notebook: exactly those of
    VARIANTS, with the right count of the whole course."""
    import re

    guide = (Path(__file__).resolve().parent.parent / "notebooks" / "INSTRUCTORS.md").read_text(
        encoding="utf-8")
    head = re.search(r"- \*\*(\d+) of the (\d+) exercises are posed with other values", guide)
    assert head, "INSTRUCTORS.md no longer lists the posed exercises"
    assert (int(head[1]), int(head[2])) == (len(VARIANTS), len(all_exercises()))
    listing = guide[head.end():guide.index("\n\n", head.end())]
    items = re.findall(r"^  - (\d\d): (.*?)(?=^  - |\Z)", listing, flags=re.M | re.S)
    listed = set()
    for notebook, text in items:
        names = re.findall(r"`(\w+)`", text)
        listed |= {f"{notebook}.{name}" for name in names if f"{notebook}.{name}" in
                   all_exercises()}
    assert listed == set(VARIANTS)

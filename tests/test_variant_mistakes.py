"""Stored mistakes under drawn values (issue 33): a mistake stored as a number was computed for
the notebook's values, so for the values a graded release draws it is either still right (then
an independent computation here says so) or left out, and then the check never names it. A
posed stub's example answer is never the drawn answer either.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from posenc_lib.exercises import all_exercises
from posenc_lib.exercises._key import plain
from posenc_lib.exercises._property import PropertyExercise
from posenc_lib.presets import PRESETS
from tests.test_variants import posed_stub, run_solution
from tools.answer_key import consistent_offsets, lost_pairs
from tools.grader import verdict
from tools.variants import NOTEBOOK_VALUES, VARIANTS, answer_for, posed

CASES = [(key, i) for key, v in VARIANTS.items() for i in range(len(v.sets))]

KEPT: dict[str, tuple[int, Callable[[dict[str, Any]], Any]]] = {
    # plain binary has no consistent offset at any reach
    "01.gray_offsets": (2, lambda v: consistent_offsets(gray=False, max_offset=v["max_offset"])),
    # float32 (or float16 with base 10000) loses no pair at any drawn base
    "02.float16_lost_pairs": (1, lambda v: [lost_pairs(np.float32, float(v["base"])),
                                            lost_pairs(np.float16, 10000.0)]),
}
"""Stored mistakes kept for drawn values: their index, and their value recomputed for them."""

@pytest.mark.parametrize(("key", "index"), CASES)
def test_a_left_out_mistake_is_never_named(key: str, index: int) -> None:
    values = VARIANTS[key].sets[index]
    own = [None if m.from_answer else m.compute() for m in all_exercises()[key].mistakes]
    with posed(key, values) as ex:
        for mistake, notebook_value in zip(ex.mistakes, own, strict=True):
            if mistake.from_answer or mistake.compute() is not None:
                continue
            assert notebook_value is not None  # only a mistake stored for the notebook's values
            # the notebook's stored value, answered under the drawn values, names nothing
            message = ex.check(notebook_value).message
            assert "common mistake" not in message or mistake.label not in message

@pytest.mark.parametrize("key", KEPT)
def test_a_kept_stored_mistake_holds_for_every_drawn_set(key: str) -> None:
    number, recompute = KEPT[key]
    for values in VARIANTS[key].sets:
        with posed(key, values) as ex:
            stored = ex.mistakes[number].compute()
            fresh = recompute(values)
            for value in (fresh if isinstance(fresh, list) else [fresh]):
                assert stored == value, (values, stored, value)
    assert NOTEBOOK_VALUES[key] == all_exercises()[key].params

def test_the_float16_trap_names_real_models_of_head_size_128() -> None:
    for values in VARIANTS["02.float16_lost_pairs"].sets:
        config = PRESETS[values["model"].lower()]
        head = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
        assert (head, float(config["rope_theta"])) == (128, float(values["base"])), values

@pytest.mark.parametrize(("key", "index"), CASES)
def test_no_example_in_a_posed_stub_is_the_drawn_answer(key: str, index: int) -> None:

    values = VARIANTS[key].sets[index]
    right = answer_for(key, values)
    for example in re.findall(r"for example (\{[^}]*\})", posed_stub(key, values)):
        assert ast.literal_eval(example) != right, (key, example)


PROPERTY_CASES = [(key, i) for key, i in CASES
                  if isinstance(all_exercises()[key], PropertyExercise)]


@pytest.mark.parametrize(("key", "index"), PROPERTY_CASES)
def test_a_right_property_answer_earns_its_points_from_the_grader(
        key: str, index: int) -> None:
    """The grader judges a property exercise's answer handed in: a matrix or frequencies with
    the property earn all the points, the first mistake none."""
    values = VARIANTS[key].sets[index]
    mine = run_solution(key, VARIANTS[key].solution(values), values)
    with posed(key, values) as exercise:
        assert verdict(exercise, True, [{"value": plain(mine), "problem": None}], [])[0] == 1.0
        wrong = plain(exercise.mistakes[0].compute())
        assert verdict(exercise, True, [{"value": wrong, "problem": None}], [])[0] == 0.0

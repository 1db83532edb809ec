"""The exercises' prose files (posenc_lib/exercises/prose/nbNN.toml): one table per exercise and
no orphan, in the module's order; placeholders that the exercise's params fill; a loader whose
errors name the file and the key. That the wheel ships the files (and the leak search reads
them) is checked in tests/test_no_answer_shipped.py, which builds the wheel."""

from __future__ import annotations

import string
import tomllib
from pathlib import Path

import pytest

from posenc_lib.exercises import all_exercises
from posenc_lib.exercises._prose import PROSE_DIR, exercise_prose

EXERCISES = all_exercises()
FILES = sorted(PROSE_DIR.glob("*.toml"))
TABLES = {path.name: tomllib.loads(path.read_text(encoding="utf-8")) for path in FILES}


def placeholders(text: str) -> set[str]:
    """The ``{name}`` fields of ``text`` as str.format reads them."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_every_exercise_has_its_table_and_every_table_an_exercise() -> None:
    assert FILES, f"no prose file in {PROSE_DIR}"
    assert all(path.name.startswith("nb") for path in FILES), [p.name for p in FILES]
    for name, tables in TABLES.items():
        # in the module's order, and each key in its own notebook's file
        mine = [key for key in EXERCISES if f"nb{key[:2]}.toml" == name]
        assert list(tables) == mine, name
    assert {key for tables in TABLES.values() for key in tables} == set(EXERCISES)


@pytest.mark.parametrize("key", list(EXERCISES))
def test_each_exercise_poses_its_file_s_prose(key: str) -> None:
    exercise = EXERCISES[key]
    table = TABLES[f"nb{key[:2]}.toml"][key]
    title, hints = exercise._templates[:2]
    assert (title, hints, exercise.objective) == (
        table["title"], tuple(table["hints"]), table["objective"])
    shown = {k: ", ".join(map(str, v)) if isinstance(v, tuple) else v
             for k, v in (exercise.params or {}).items()}
    assert exercise.title == table["title"].format(**shown)


@pytest.mark.parametrize("key", list(EXERCISES))
def test_placeholders_are_params_of_the_exercise(key: str) -> None:
    exercise = EXERCISES[key]
    title, hints = exercise._templates[:2]
    used = set().union(*(placeholders(text) for text in (title, *hints)))
    assert used <= set(exercise.params or {}), (key, used - set(exercise.params or {}))
    # the objective is shown as written: a placeholder there would print its braces
    assert placeholders(exercise.objective) == set(), key


def test_no_text_has_a_stray_space_from_a_wrapped_line() -> None:
    """A wrapped line keeps one space before its backslash: no text gains two spaces in a row,
    or a leading or trailing one."""
    for name, tables in TABLES.items():
        for key, table in tables.items():
            for text in (table["title"], table["objective"], *table["hints"]):
                assert "  " not in text and text == text.strip(), (name, key, text)


GOOD = '''["07.x"]
title = "A title with {n}"
objective = "An objective."
hints = ["A direction.", "A method."]
'''


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        (GOOD, "07.y", 'no table ["07.y"]'),
        (GOOD.replace('objective = "An objective."\n', ""), "07.x", "missing ['objective']"),
        (GOOD + 'hint = "extra"\n', "07.x", "unknown ['hint']"),
        (GOOD.replace('"A method."]', '"A method.", "A third."]'), "07.x", "exactly 2"),
        (GOOD.replace('"A method."', '""'), "07.x", "non-empty"),
        (GOOD.replace('title = "A', 'title = A'), "07.x", "cannot read"),
        (GOOD.replace("{n}", "{m}"), "07.x", "placeholders ['m'] are not params"),
        (GOOD.replace('"A method."', '"Use {n"'), "07.x", "literal brace"),
    ],
    ids=["missing key", "missing field", "unknown field", "three hints", "empty hint", "syntax",
         "unknown placeholder", "unclosed brace"],
)
def test_loader_errors_name_file_and_key(tmp_path: Path, text: str, key: str,
                                         words: str) -> None:
    path = tmp_path / "nb07.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        exercise_prose(key, {"n"}, tmp_path)
    message = str(caught.value)
    assert str(path) in message and repr(key) in message and words in message, message


def test_loader_reads_a_good_file_and_refuses_a_missing_one(tmp_path: Path) -> None:
    (tmp_path / "nb07.toml").write_text(GOOD, encoding="utf-8")
    assert exercise_prose("07.x", {"n"}, tmp_path) == (
        "A title with {n}", ("A direction.", "A method."), "An objective.")
    # without params the texts are shown as written, braces and all
    assert exercise_prose("07.x", None, tmp_path)[0] == "A title with {n}"
    with pytest.raises(ValueError, match=r"nb08\.toml"):
        exercise_prose("08.x", None, tmp_path)
    with pytest.raises(ValueError, match="'NN.name'"):
        exercise_prose("7.x", None, tmp_path)

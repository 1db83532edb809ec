"""Issue 47: every verdict word notebook 10's prose puts next to a scheme or method and a task is
the verdict ``results.cell_verdict`` gives that cell.

A clause (text between . ; or : and a space) is read word by word. A verdict word (holds, drops,
borderline; and works, mixed, fails, which the rule never gives) takes as its subject the schemes
named since the previous verdict word (else that word's subject), as its tasks the backticked
tasks named after it up to the next verdict word (else those named before it in the clause), and
as its length "at/to/by Nx" right after it (else just before it, else 4x). A "not" or "no" just
before the word negates it. Sentences in the section on the 4,000-step trainings are read
against those.
"""

from __future__ import annotations

import re

import nbformat
import pytest

from posenc_lib.lab import results
from posenc_lib.lab.tasks import EVAL_TASKS, TASKS

from .test_lab_verdicts import NB10

# How the prose names each scheme and method, the longest first so "p-RoPE" is not read as RoPE.
NAMES = {"p-RoPE": "p_rope", "plain RoPE": "rope", "RoPE": "rope", "NTK-aware": "ntk",
         "dynamic NTK": "dynamic", "YaRN": "yarn", "PI": "pi", "ALiBi": "alibi", "T5": "t5",
         "NoPE": "nope", "learned table": "learned", "sinusoidal": "sinusoidal"}
WORDS = {"holds": "holds", "hold": "holds", "drops": "drops", "drop": "drops",
         "borderline": "borderline", "works": "works", "work": "works", "mixed": "mixed",
         "fails": "fails", "fail": "fails"}
_TASK_NAMES = (*TASKS, *EVAL_TASKS)
_TOKEN = re.compile("|".join([re.escape(n) for n in sorted(NAMES, key=len, reverse=True)]
                             + [r"`(\w+)`", r"\b(?:[Aa]t|[Tt]o|[Bb]y) (\d)x\b", r"\b\w+\b"]))
_SECTIONS = {"### Not learned, or does not extrapolate?": "longer",  # read against those runs
             "### A larger model": "scale"}


def _tokens(clause: str) -> list[tuple[str, str]]:
    """(kind, value) of each word: scheme, task, multiple, verdict, negation or other."""
    found = []
    for match in _TOKEN.finditer(clause):
        text = match.group(0)
        if text in NAMES:
            found.append(("scheme", NAMES[text]))
        elif match.group(1) in _TASK_NAMES:
            found.append(("task", match.group(1)))
        elif match.group(2):
            found.append(("multiple", match.group(2)))
        elif text in WORDS:
            found.append(("verdict", WORDS[text]))
        else:
            found.append(("negation" if text in ("not", "no") else "other", text))
    return found


def claims_of(clause: str) -> list[tuple[tuple[str, ...], tuple[str, ...], int, str, bool]]:
    """(schemes, tasks, multiple, verdict word, negated) of each verdict word in ``clause``."""
    tokens = _tokens(clause)
    places = [k for k, (kind, _) in enumerate(tokens) if kind == "verdict"]
    found, subject = [], ()
    for n, place in enumerate(places):
        start = places[n - 1] + 1 if n else 0
        stop = places[n + 1] if n + 1 < len(places) else len(tokens)
        named = tuple(dict.fromkeys(v for kind, v in tokens[start:place] if kind == "scheme"))
        subject = named or subject
        after = tuple(v for kind, v in tokens[place + 1:stop] if kind == "task")
        before = tuple(v for kind, v in tokens[:place] if kind == "task")
        near = [v for kind, v in tokens[place + 1:min(place + 6, stop)] if kind == "multiple"]
        earlier = [v for kind, v in tokens[start:place] if kind == "multiple"]
        multiple = int((near or earlier[-1:] or ["4"])[0])
        negated = any(kind == "negation" for kind, _ in tokens[max(place - 3, 0):place])
        if subject and (after or before):
            found.append((subject, after or before, multiple, tokens[place][1], negated))
    return found


def _clauses(notebook: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """Each clause of the markdown, and the results it is read against: "grid", or "longer" or
    "scale" in the sections on the longer trainings and on the larger model."""
    found, section = [], "grid"
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        if cell.source.startswith("#"):
            section = next((name for heading, name in _SECTIONS.items()
                            if cell.source.startswith(heading)), "grid")
        text = re.sub(r"\$[^$]*\$", " ", " ".join(cell.source.split()))  # no maths
        found += [(clause, section) for clause in re.split(r"(?<=[.;:])\s+", text)]
    return found


@pytest.fixture(scope="module")
def stats() -> dict[str, results.Stats]:
    grid = results.load("curves")
    extended = results.load("extensions")["extensions"]
    plain = {k: v for k, v in grid["curves"].items() if "/rope/" in k}
    return {"grid": {**results.summary(grid["curves"], 32),
                     **results.summary({**extended, **plain}, 32)},
            "longer": results.summary(results.long_entries(grid), 32),
            "scale": results.summary(results.load("scale")["curves"], 32)}


def test_the_reader_finds_who_holds_or_drops_where() -> None:
    """The reading rules on sentences written like the notebook's (and one it must refuse)."""
    assert claims_of("NTK-aware and dynamic NTK hold on `assoc_recall` only, and drop on "
                     "`induction` and `induction_once`.") == [
        (("ntk", "dynamic"), ("assoc_recall",), 4, "holds", False),
        (("ntk", "dynamic"), ("induction", "induction_once"), 4, "drops", False)]
    assert claims_of("On `induction_once` ALiBi holds to 8x (0.99 at 1x)") == [
        (("alibi",), ("induction_once",), 8, "holds", False)]
    assert claims_of("p-RoPE does not hold `copy_back`") == [
        (("p_rope",), ("copy_back",), 4, "holds", True)]
    assert claims_of("RoPE fails past its trained length") == []  # no task: not a cell
    assert claims_of("YaRN works on `induction`")[0][3] == "works"


def test_every_verdict_word_next_to_a_cell_is_the_rule_s_verdict(
        stats: dict[str, results.Stats]) -> None:
    notebook = nbformat.read(NB10, as_version=4)
    checked, wrong, by_section = 0, [], dict.fromkeys(stats, 0)
    for clause, section in _clauses(notebook):
        source = stats[section]
        for schemes, tasks, multiple, word, negated in claims_of(clause):
            for scheme in schemes:
                for task in tasks:
                    if (task, scheme) not in source:
                        wrong.append(f"{scheme} on {task}: no results ({clause!r})")
                        continue
                    label = results.cell_verdict(source, task, scheme, multiple).label
                    if (label == word) == negated:
                        wrong.append(f"{scheme} on {task} at {multiple}x is {label!r}, the prose "
                                     f"says {'not ' * negated}{word!r}: {clause!r}")
                    checked += 1
                    by_section[section] += 1
    assert wrong == []
    assert checked >= 25  # the answers to Questions 1, 2, 4 and 5 and the Summary, at least
    assert by_section["scale"] >= 6  # the larger model's verdicts, each against its own runs


def test_notebook_06_s_lab_conclusions_are_the_rule_s_verdicts(
        stats: dict[str, results.Stats]) -> None:
    """Issue 48: 06's conclusion per method, read the same way against the same rule."""
    notebook = nbformat.read(NB10.parent / "06_context_extension.ipynb", as_version=4)
    checked, wrong = 0, []
    for clause, _ in _clauses(notebook):
        for schemes, tasks, multiple, word, negated in claims_of(clause):
            for scheme in schemes:
                for task in tasks:
                    label = results.cell_verdict(stats["grid"], task, scheme, multiple).label
                    if (label == word) == negated:
                        wrong.append(f"{scheme} on {task} at {multiple}x is {label!r}, 06 says "
                                     f"{'not ' * negated}{word!r}: {clause!r}")
                    checked += 1
    assert wrong == []
    assert checked >= 16  # every method's bullet: each scheme on each task it names

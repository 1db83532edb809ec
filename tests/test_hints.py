"""Hints nudge: every exercise has two hints, and no hint states any exercise's answer.

The answers are read without running anything, from two places:

- the stored answer key ``.posenc_answer_key.json`` at the repository root (written by
  ``tools/answer_key.py`` from the computations the solution cells make), for every answer;
- each source notebook's cell tagged ``solution``: the numbers in the expression assigned to the
  exercise's answer (``last_pair = [np.sin(2.5), np.cos(2.5)]`` gives 2.5; a threshold in a
  comparison is none of them) and the numbers its comments state, powers included
  (``10^(-3)`` is 0.001): the worked solution's own steps.

An answer is searched in a hint the usual ways:

- a number as Python prints it and rounded to 2, 3 and 4 significant digits, in plain and in
  scientific notation (``49396``, ``4.94e4``, ``0.241``), whatever the sign for a fraction; a
  power written in a hint (``10^-3``, ``2**(-7)``) is compared by its value;
- a label (a detector's choice, an item of a set of names) as a word, ``phi-4-mini``; a label
  that is an ordinary word (``attention``) only quoted, ``'attention'``, and through the
  spellings of :data:`ALIASES`.

So that the search finds answers and not everyday tokens, it leaves out, by a narrow rule:

- whole numbers from 0 to 9 and labels shorter than three characters (``1``, ``'a'``);
- whole numbers that are powers of two or of ten (16, 128, 10000): they are the course's widths,
  lengths and bases, written in almost every statement;
- numbers with fewer than two significant digits as written (``0.6``), and, for answers of more
  than :data:`SHORT` entries, forms with fewer than three (an array of 64 frequencies would
  otherwise forbid half the two-digit decimals);
- truth values: a detector's True/False list has no rendering in words;
- a number or a label that the exercise's own statement gives: its hints may repeat the
  statement, unless it is that exercise's own answer (a detector's statement lists every
  option); a number of a solution cell that its own statement gives is data, not a result.

What the search cannot see (a formula in words, a count written out as "three") is left to the
writer of the hints. :data:`EXCEPTIONS` lists the matches that are not giveaways, with reasons.
"""

from __future__ import annotations

import ast
import importlib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from posenc_lib.exercises import all_exercises
from posenc_lib.exercises._key import KEY_FILE, decode
from tools.notebook_cells import (
    NOTEBOOKS,
    exercise_cells,
    load,
    solution_code,
    source,
)
from tools.solution import solution_text

ROOT = Path(__file__).resolve().parent.parent
SHORT = 8
"""Answers with at most this many entries are searched for every entry at 2 to 4 digits."""
ALIASES: dict[str, tuple[str, ...]] = {
    "half": ("half-split", "half split", "half layout", "half pairing"),
    "llama3": ("llama 3",),
    "interleaved-t2t": ("interleaved", "t2t", "tensor2tensor"),
    "p_rope": ("p-rope",),
    "phi-3.5-mini": ("longrope",),
    "phi-4-mini": ("longrope",),
}
"""Other spellings of a label that give it away. 'half' is the key's short name of the
half-split pairing, and the bare word is everyday English ("half a turn"); 'llama3' is written
"Llama 3" in prose; each half of 'interleaved-t2t' is half of that answer, and the statement
names the second 't2t' or 'tensor2tensor'; 'p_rope' is written p-RoPE; the two Phi presets are
the ones using LongRoPE, so naming that scaling in a hint points at them."""
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("07.alibi_local_heads", "12"): "alibi_slopes(12): the statement's number of heads; that "
    "head 12 is one of the answer's heads cannot be read from it",
}
"""(exercise key, matched text) pairs that are no giveaway, each with its reason."""

POWER = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:\^|\*\*)\s*"
    r"(\(\s*-?\d+(?:\.\d+)?(?:\s*/\s*\d+)?\s*\)|-?\d+(?:\.\d+)?)(?!\w|\.\d)"
)
"""A number raised to a numeric power: ``10^-3``, ``10^(-3)``, ``2**7``, ``10000^(-6/8)``."""
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?!\w|\.\d)")
"""A plain number; a minus sign counts only when written against the digits (``-7``, not the
``- 1`` of ``L - 1``), and digits inside a name (``theta_5``, ``v3``) are no number."""


@dataclass(frozen=True)
class Token:
    """A number written in a text: how it is written and its value."""

    text: str
    value: float


def _power_value(base: str, exponent: str) -> float:
    """The value of ``base`` raised to ``exponent`` (``-6/8`` or ``(-3)``)."""
    parts = exponent.strip("() ").split("/")
    power = float(parts[0]) / (float(parts[1]) if len(parts) == 2 else 1.0)
    return float(base) ** power


def number_tokens(text: str) -> list[Token]:
    """Every number of ``text``: the powers by their value, then the plain numbers."""
    tokens = [Token(m.group(0), _power_value(m.group(1), m.group(2)))
              for m in POWER.finditer(text)]
    rest = POWER.sub(" ", text)
    tokens += [Token(m.group(0), float(m.group(0))) for m in NUMBER.finditer(rest)]
    return tokens


def _canonical(text: str) -> str:
    """A number's text without the ``+`` and the leading zeros of its exponent and without
    trailing zeros after its decimal point: ``4.940e+04`` is ``4.94e4``."""
    mantissa, _, exponent = text.lower().partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    if not exponent:
        return mantissa
    sign = "-" if exponent.startswith("-") else ""
    return f"{mantissa}e{sign}{int(exponent.lstrip('+-'))}"


def _significant(text: str) -> int:
    """How many significant digits a number's text shows (``0.6`` one, ``49400`` three)."""
    mantissa = text.lower().split("e")[0].lstrip("-")
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) if "." not in mantissa else len(digits)


def _is_whole(value: float) -> bool:
    return math.isfinite(value) and float(value).is_integer()


def is_course_size(value: float) -> bool:
    """A whole number that is a power of two or of ten: a width, a length or a base."""
    n = abs(int(value))
    return n >= 10 and (n & (n - 1) == 0 or 10 ** round(math.log10(n)) == n)


def is_searched_number(value: float) -> bool:
    """Whether a number is worth searching: not a digit 0..9, not a course size, not NaN."""
    if not math.isfinite(value) or value == 0:
        return False
    if _is_whole(value):
        return not (0 <= value <= 9 or is_course_size(value))
    return True


def number_forms(value: float, min_digits: int = 2) -> set[str]:
    """The texts of ``value``: as Python prints it, and rounded to 2..4 significant digits or to
    a whole number, keeping the roundings that show at least ``min_digits`` significant digits
    (canonical; a fraction without its sign, which the search drops too)."""
    if _is_whole(value):
        return {str(int(value))}
    magnitude = abs(float(value))
    rounded = {str(round(magnitude))} if magnitude >= 10 else set()
    for digits in (2, 3, 4):
        near = float(f"{magnitude:.{digits}g}")
        rounded |= {f"{magnitude:.{digits}g}", np.format_float_positional(near, trim="-")}
    kept = {f for f in rounded if _significant(_canonical(f)) >= min_digits}
    return {_canonical(f) for f in kept | {repr(magnitude)}}


@dataclass(frozen=True)
class Secret:
    """Something that gives an answer away: a number, or a label with its spellings."""

    owner: str
    number: float | None = None
    forms: frozenset[str] = frozenset()
    words: tuple[str, ...] = ()

    def found_in(self, text: str) -> list[str]:
        """The places of ``text`` that give this secret away."""
        if self.number is not None:
            return [t.text for t in number_tokens(text) if self._matches(t)]
        return [m.group(0) for word in self.words
                for m in re.finditer(_word_pattern(word), text, re.IGNORECASE)]

    def _matches(self, token: Token) -> bool:
        assert self.number is not None
        if not re.fullmatch(r"-?[\d.]+(?:e[-+]?\d+)?", token.text, re.IGNORECASE):
            return math.isclose(token.value, self.number, rel_tol=1e-9)  # a power
        if _is_whole(self.number):
            return _is_whole(token.value) and token.value == self.number
        return _canonical(token.text.lstrip("-")) in self.forms


def _word_pattern(word: str) -> str:
    if word.startswith(("'", '"', "`")):
        return re.escape(word)
    return rf"(?<![\w-]){re.escape(word)}(?![\w-])"


def label_secret(owner: str, label: str) -> Secret | None:
    """A label's secret: as a word when it is no ordinary word, else only quoted; with its
    aliases. None for a label shorter than three characters."""
    if len(label) < 3:
        return None
    spellings = [f"'{label}'", f'"{label}"', f"`{label}`"]
    if not label.isalpha():
        spellings.append(label)
    return Secret(owner, words=(*spellings, *ALIASES.get(label, ())))


def number_secret(owner: str, value: float, min_digits: int = 2) -> Secret | None:
    """A number's secret, or None when the number is not searched."""
    if not is_searched_number(value):
        return None
    forms = number_forms(value, min_digits)
    return Secret(owner, float(value), frozenset(forms)) if forms else None


def key_secrets(owner: str, value: Any) -> list[Secret]:
    """The secrets of one answer of the key: its labels and its numbers."""
    if isinstance(value, str):
        found = [label_secret(owner, value)]
    elif isinstance(value, (set, frozenset, list, tuple)) and any(
            isinstance(item, str) for item in value):
        return [s for item in value for s in key_secrets(owner, item)]
    elif isinstance(value, (set, frozenset)):
        return [s for item in value for s in key_secrets(owner, item)]
    else:
        array = np.asarray(value)
        if array.dtype == bool or array.dtype.kind not in "iuf":
            return []
        flat = array.astype(float).ravel()
        digits = 2 if flat.size <= SHORT else 3
        found = [number_secret(owner, x, digits) for x in flat]
    return [s for s in found if s is not None]


def _assigned_value(code: str, name: str) -> ast.expr | None:
    """The expression last assigned to ``name`` at the top level of ``code``."""
    value = None
    for node in ast.parse(code).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            value = node.value
    return value


def literal_numbers(expression: ast.expr | None) -> list[float]:
    """The numbers written in an expression, a minus sign in front included, except those of a
    comparison, of a comprehension's loop or of an index: a threshold (``gap < 1e-9``) decides
    between answers, ``range(1, 17)`` and ``lam[-1]`` say where to look; none is an answer."""
    if expression is None:
        return []
    deciders: list[ast.AST] = [node for node in ast.walk(expression)
                               if isinstance(node, ast.Compare)]
    deciders += [part for node in ast.walk(expression) if isinstance(node, ast.comprehension)
                 for part in (node.iter, *node.ifs)]
    deciders += [node.slice for node in ast.walk(expression) if isinstance(node, ast.Subscript)]
    compared = {id(node) for decider in deciders for node in ast.walk(decider)}
    negated = {id(node.operand) for node in ast.walk(expression)
               if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)}
    return [(-1.0 if id(node) in negated else 1.0) * float(node.value)
            for node in ast.walk(expression)
            if isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool) and id(node) not in compared]


def comment_numbers(code: str) -> list[float]:
    """The numbers the comments of ``code`` state."""
    comments = " ".join(re.findall(r"#([^\n]*)", code))
    return [token.value for token in number_tokens(comments)]


@dataclass(frozen=True)
class Course:
    """What the test reads: the statement of every exercise and every secret."""

    prompts: dict[str, str]
    secrets: list[Secret]
    given: dict[str, list[float]]


def read_course() -> Course:
    """Read the statements and the answers from the source notebooks and the stored key."""
    exercises = all_exercises()
    key = {k: decode(v) for k, v in
           json.loads((ROOT / KEY_FILE).read_text(encoding="utf-8")).items()}
    prompts: dict[str, str] = {}
    secrets: list[Secret] = []
    for path in NOTEBOOKS:
        cells = load(path)["cells"]
        for name, where in exercise_cells(path).items():
            prompts[name] = source(cells[where.prompt])
            code = solution_code(path, where.solution)
            assigned = _assigned_value(code, exercises[name].answer_name)
            stated = {t.value for t in number_tokens(prompts[name])}
            for number in literal_numbers(assigned) + comment_numbers(code):
                if not any(math.isclose(number, s, rel_tol=1e-9) for s in stated):
                    secret = number_secret(name, number)
                    secrets += [secret] if secret is not None else []
    for name, value in key.items():
        secrets += key_secrets(name, value)
    given = {name: [t.value for t in number_tokens(text)] for name, text in prompts.items()}
    return Course(prompts, list(dict.fromkeys(secrets)), given)


COURSE = read_course()
EXERCISES = all_exercises()


def _stated(where: str, key: str) -> bool:
    """Whether ``where``, a match in a hint of exercise ``key``, repeats its statement."""
    tokens = number_tokens(where)
    if tokens:
        return all(any(math.isclose(t.value, g, rel_tol=1e-9) for g in COURSE.given[key])
                   for t in tokens)
    return where.lower() in COURSE.prompts[key].lower()


def giveaways(text: str, key: str) -> list[str]:
    """What in ``text``, a hint of exercise ``key``, states an answer of the course."""
    found = []
    for secret in COURSE.secrets:
        for where in secret.found_in(text):
            if (secret.owner != key and _stated(where, key)) or (key, where) in EXCEPTIONS:
                continue
            found.append(f"{where!r} (an answer of {secret.owner})")
    return found


def test_every_notebook_exercise_is_read_and_every_answer_gives_secrets() -> None:
    assert set(COURSE.prompts) == set(EXERCISES)
    owners = {secret.owner for secret in COURSE.secrets}
    # answers made only of truth values, single digits or course sizes give none
    assert len(owners) >= 45
    assert {"02.slow_pair", "05.layout", "09.cache_survives", "08.float16_edges"} <= owners


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_two_different_hints_whose_pointers_lead_on(key: str) -> None:
    """hint() shows the first hint, hint(2) the second; the call the first names, run as
    written, gives the second, and the second names the notebook and the command that give
    this exercise's worked solution."""
    exercise = EXERCISES[key]
    first, second = exercise.hint(), exercise.hint(2)
    assert exercise.hint(1) == first != second
    assert exercise.hints[0] in first and exercise.hints[1] in second
    assert exercise.hints[1] not in first and exercise.hints[0] not in second
    assert min(len(exercise.hints[0]), len(exercise.hints[1])) >= 60  # each says something
    call = re.search(r"\bnb\d\d\.\w+\.hint\(2\)", first)
    assert call, f"hint(1) of {key} names no call that gives hint(2)"
    module = importlib.import_module(f"posenc_lib.exercises.nb{key[:2]}")
    assert eval(call.group(0), {f"nb{key[:2]}": module}) == second
    place = re.search(r"(notebooks/\S+\.ipynb)\b.*`make solution EX=(\S+)`", second, re.S)
    assert place, f"hint(2) of {key} names no notebook and command for the worked solution"
    matches = [p.relative_to(ROOT).as_posix() for p in ROOT.glob(place.group(1))]
    assert len(matches) == 1 and key in exercise_cells(ROOT / matches[0])
    assert solution_text(place.group(2)).startswith(f"# Worked solution of {key} ")


@pytest.mark.parametrize("level", [3, 0, -1, "2", 1.5, True, None])
def test_a_level_other_than_1_or_2_is_refused_by_name(level: Any) -> None:
    with pytest.raises(ValueError, match=r"level must be 1 .* or 2 .*; got") as raised:
        EXERCISES["02.slow_pair"].hint(level)
    assert repr(level) in str(raised.value)


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_no_hint_states_an_answer(key: str) -> None:
    exercise = EXERCISES[key]
    for level, text in enumerate(exercise.hints, start=1):
        assert giveaways(text, key) == [], f"hint({level}) of {key} gives an answer away"


OLD_HINTS = {
    "02.slow_pair": "Columns 6 and 7 are pair i = 3. Its frequency is 1 / 10000^(2*3/8) = "
    "10000^(-3/4): 10000 = 10^4, so that is 10^-3. The angle is 2500 times that, a simple number "
    "of radians; the answer is [sin(angle), cos(angle)].",
    "05.key_position": "An angle read from a pair lives in (-pi, pi], so a fast pair only tells m "
    "modulo its wavelength. Use a pair with m * theta_i < pi for every m in the context: the "
    "slowest, pair 7, (x[7], x[15]) in the half layout. Its angle divided by theta_7 is m.",
    "08.bfloat16_ties": "Between 512 and 1024 bfloat16 has 8 significant bits, so the gap is "
    "512 / 2**7 = 4: 512, 516, 520, ... 513 and 515 go to the nearer one.",
}
"""Hints of an earlier version that stated answers: the search must catch them."""


@pytest.mark.parametrize("key", sorted(OLD_HINTS))
def test_the_search_catches_hints_that_gave_answers_away(key: str) -> None:
    assert giveaways(OLD_HINTS[key], key)


@pytest.mark.parametrize(("text", "value", "found"), [
    ("so that is 10^-3", 0.001, True),
    ("that is 10**(-3)", 0.001, True),
    ("about 0.0010", 0.001, True),
    ("the angle 2500 times", 0.001, False),
    ("weight 0.241 on itself", 0.24098006525329924, True),
    ("a mean of -0.01172", -0.0117185078561306, True),
    ("base 4.94e+04", 49396.44973519793, True),
    ("base 49396", 49396.44973519793, True),
    ("t = 0 .. 242", 243, False),
    ("theta_243 and v243", 243, False),
    ("L - 7 steps", -7, False),
    ("k = -7", -7, True),
])
def test_numbers_are_found_as_written(text: str, value: float, found: bool) -> None:
    secret = number_secret("99.probe", value)
    assert secret is not None
    assert bool(secret.found_in(text)) is found


def test_labels_are_found_as_words_and_ordinary_words_only_quoted() -> None:
    layers = key_secrets("99.probe", {"attention", "row_mlp", "a"})
    assert len(layers) == 2
    assert not any(s.found_in("the attention layer, the row MLP") for s in layers)
    assert all(s.found_in("`row_mlp` or 'attention'") for s in layers)
    half = label_secret("99.probe", "half")
    assert half is not None
    assert half.found_in("in the half-split layout") and not half.found_in("half a turn")

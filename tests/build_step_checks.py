"""Shared by the tests of build steps and predictions (issue 32 items 1-2)."""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from posenc_lib.build_steps import Mistake, adopt
from tests.test_statements_07_11 import outputs_text
from tools.notebook_cells import load, source


def assert_both_ways(worked: Callable[..., Any], reference: Callable[..., Any],
                     cases: Sequence[dict], mistakes: Sequence[Mistake], label: str) -> None:
    """The worked function is adopted; each named mistake is named and the library used."""
    with contextlib.redirect_stdout(io.StringIO()):
        assert adopt(worked, reference, cases, name=label, mistakes=mistakes) is worked
    assert len(mistakes) >= 3
    for mistake in mistakes:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            chosen = adopt(mistake.wrong, reference, cases, name=label, mistakes=mistakes)
        assert chosen is reference, mistake.name
        assert f"it looks like {mistake.name}" in out.getvalue(), mistake.name


def assert_not_given_away(path: Path, guess: str, words: Sequence[str]) -> None:
    """No give-away word in the markdown above the prompt of ``guess``, and no give-away
    number (not a digit run inside another number) in the outputs above it."""
    cells = load(path)["cells"]
    at = next(i for i, c in enumerate(cells) if source(c).startswith(f"{guess} = None"))
    prompt = max(i for i in range(at) if source(cells[i]).startswith("**Predict"))
    above_md = " ".join(source(c) for c in cells[:prompt] if c["cell_type"] == "markdown")
    above_out = " ".join(outputs_text(c) for c in cells[:prompt] if c["cell_type"] == "code")
    for word in words:
        assert word not in above_md, (guess, word)
        if any(ch.isdigit() for ch in word):
            number = rf"(?<![\d,.]){re.escape(word)}(?![\d,])"
            assert not re.search(number, above_out), (guess, word)

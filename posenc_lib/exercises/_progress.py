"""The self-study table of what a learner has done: exercises passed per notebook, build steps
passed, predictions written and skipped (the record itself is kept by :mod:`posenc_lib._record`).

Notebooks: 00_why_position to 11_figure_gallery (``progress()`` in any of them).
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass

from posenc_lib._record import read_record


@dataclass(frozen=True)
class ProgressTable:
    """Exercises passed per notebook; shows as a table in Jupyter."""

    rows: list[tuple[str, int, int]]  # (notebook number, passed, total)
    predicted: int = 0  # predictions written before their reveal, over the whole course
    built: tuple[int, int] = (0, 0)  # build steps passed, and how many the course has
    skipped: int = 0  # reveals seen with a guess of "skip" and never predicted

    def __repr__(self) -> str:
        lines = ["notebook  passed / total"]
        lines += [f"{nb:>8}  {done:>6} / {total}" for nb, done, total in self.rows]
        return "\n".join([*lines, f"build steps passed: {self.built[0]} / {self.built[1]}",
                          f"predictions written: {self.predicted}, skipped: {self.skipped}"])

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<tr><td>{html.escape(nb)}</td><td>{done} / {total}</td>"
            f'<td><progress value="{done}" max="{total}"></progress></td></tr>'
            for nb, done, total in self.rows
        )
        return (f"<table><tr><th>notebook</th><th>passed</th><th></th></tr>{cells}</table>"
                f"<p>build steps passed: {self.built[0]} / {self.built[1]}</p>"
                f"<p>predictions written: {self.predicted}, skipped: {self.skipped}</p>")


def progress() -> ProgressTable:
    """Return a table of the notebooks with the number of their exercises passed, and the
    number of predictions written (a guess typed before its reveal ran) and of reveals skipped
    (seen with the guess "skip", and not predicted since).

    Examples
    --------
    >>> table = progress()
    >>> all(done <= total for _, done, total in table.rows)
    True
    """
    from posenc_lib.exercises import all_exercises, all_steps

    record = read_record()
    passed = {str(key) for key in record["passed"]}
    totals = Counter(key.split(".", 1)[0] for key in all_exercises())
    done = Counter(key.split(".", 1)[0] for key in all_exercises() if key in passed)
    predicted = set(record.get("predicted", []))
    return ProgressTable([(nb, done[nb], total) for nb, total in sorted(totals.items())],
                         predicted=len(predicted),
                         skipped=len(set(record.get("skipped", [])) - predicted),
                         built=(len(passed & set(all_steps())), len(all_steps())))

"""Show the worked solution of one exercise, on purpose, from its source notebook.

Usage::

    python tools/solution.py 02.half_turns      # or: make solution EX=02.half_turns

Studying alone with ``make study``, your copies have no solutions. When you have tried an
exercise and its check, this prints the exercise's worked solution and the cell after the check
that computes its answer, read from the source notebook in notebooks/ (the installed library
holds no solution).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make tools/ importable
    sys.path.insert(0, str(ROOT))

from tools.notebook_cells import (  # noqa: E402
    NOTEBOOKS,
    exercise_cells,
    load,
    solution_code,
    source,
    tags,
)


def solution_text(key: str) -> str:
    """The worked solution of exercise ``key`` ("NN.name") and its reveal cells, as text."""
    path = next((p for p in NOTEBOOKS if p.name[:2] == key[:2]), None)
    found = exercise_cells(path) if path is not None else {}
    if key not in found:
        known = ", ".join(sorted(found)) or "none in that notebook"
        raise SystemExit(f"error: EX {key!r} is not an exercise; the keys look like "
                         f"'02.half_turns' ({known})")
    assert path is not None
    cells = load(path)["cells"]
    where = found[key]
    parts = [f"# Worked solution of {key} ({path.name}):", solution_code(path, where.solution)]
    after = where.check + 1
    while after < len(cells) and "reveal" in tags(cells[after]):
        parts += ["# Then the notebook computes:", source(cells[after])]
        after += 1
    return "\n".join(parts).rstrip() + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        raise SystemExit("usage: python tools/solution.py NN.name  (for example 02.half_turns)")
    print(solution_text(argv[0]), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Build the student copies of the course: solutions removed, stubs kept, outputs cleared.

Usage::

    python tools/build_student.py [--out build/student] [NOTEBOOK ...]

It does what this nbconvert command does, for every notebook, plus two touches::

    jupyter nbconvert --to notebook --TagRemovePreprocessor.enabled=True \\
        --TagRemovePreprocessor.remove_cell_tags solution source-only reveal \\
        --ClearOutputPreprocessor.enabled=True --output-dir build/student notebooks/*.ipynb

Cells tagged ``source-only`` (the note telling a learner studying alone where the worked
solutions are) and ``reveal`` (a cell right after a check that computes the exercise's answer,
which would give it away before the learner's attempt) are removed with the solution cells.
:func:`without_solutions` is the part the student site (``tools/build_html.py --student``)
shares: it keeps the other outputs but clears those of the exercise and check cells, which the
solutions computed. The touches: a reveal cell (tagged ``predict``, ending with
``compare(NAME, ...)``) starts with the cell magic ``%%after_guess NAME`` of
:mod:`posenc_lib.predict`, so that it shows nothing until the learner has written a guess or
``"skip"`` in ``NAME`` (the sources show the value, as GitHub renders them); stub cells
(tagged ``exercise``) also get the ``raises-exception`` tag, so a stub a learner leaves as
``raise NotImplementedError`` does not stop "Run all" under nbval; and the widget state is
dropped. The sources in notebooks/ are only read, and building into notebooks/ is refused.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
from nbconvert.preprocessors import ClearOutputPreprocessor, TagRemovePreprocessor

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make tools/ importable
    sys.path.insert(0, str(ROOT))

from tools.notebook_cells import CHECK_CALL, REMOVED_FOR_STUDENTS, STEP_CHECK  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
DEFAULT_OUT = ROOT / "build" / "student"
GUESS_OF_REVEAL = re.compile(r"\bcompare\(\s*(\w+)\s*,")
"""A reveal cell's call ``compare(NAME, ...)``: group 1 is the learner's guess variable."""



def without_solutions(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` without solution, source-only and reveal cells, nor what solutions
    computed.

    The outputs of the stub cells (tagged ``exercise``) and of the check cells are cleared too:
    in a source notebook they show the solution's result; a build step's check cell loses its
    printed verdict. Every other output is kept.
    """
    copy = nbformat.from_dict(notebook)
    remover = TagRemovePreprocessor(enabled=True, remove_cell_tags=set(REMOVED_FOR_STUDENTS))
    copy, _ = remover.preprocess(copy, {})
    for cell in copy.cells:
        if cell.cell_type == "code" and (
            "exercise" in cell.metadata.get("tags", []) or CHECK_CALL.search(cell.source)
        ):
            cell.outputs = []
            cell.execution_count = None
        elif cell.cell_type == "code" and STEP_CHECK.search(cell.source):
            # a build step's verdict is the solution's; the figures drawn after it stay
            cell.outputs = [out for out in cell.outputs if out.output_type != "stream"]
    return copy


def wait_for_guesses(notebook: nbformat.NotebookNode) -> None:
    """Start every reveal cell of ``notebook`` that compares a guess with ``%%after_guess NAME``.

    Only reveals below a cell that imports posenc_lib (which registers the magic) are changed.
    """
    imported = False
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        match = GUESS_OF_REVEAL.search(cell.source)
        if imported and match and "predict" in cell.metadata.get("tags", []):
            cell.source = f"%%after_guess {match.group(1)}\n{cell.source}"
        imported = imported or bool(re.search(r"^\s*(from|import) posenc_lib\b", cell.source, re.M))


def student_copy(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return the student version of ``notebook`` (the argument is not modified)."""
    copy = without_solutions(notebook)
    resources: dict = {}
    copy, resources = ClearOutputPreprocessor(enabled=True).preprocess(copy, resources)
    for cell in copy.cells:
        tags = cell.metadata.get("tags", [])
        if "exercise" in tags and "raises-exception" not in tags:
            cell.metadata["tags"] = [*tags, "raises-exception"]
    wait_for_guesses(copy)
    copy.metadata.pop("widgets", None)
    return copy


def refuse_source_folder(out: Path) -> None:
    """Stop with a clear message when ``out`` is notebooks/ or inside it."""
    target = out.resolve()
    if target == NOTEBOOKS or NOTEBOOKS in target.parents:
        raise SystemExit(
            f"error: --out {out} is inside notebooks/, where the sources with solutions live; "
            "choose another folder, for example build/student"
        )


def build(out: Path, sources: list[Path], keep: bool = False) -> list[Path]:
    """Write one student copy per source notebook into ``out``; return the paths written.

    With ``keep``, a copy that already exists is left as it is (a learner's work in progress)
    and not returned.
    """
    refuse_source_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for source in sources:
        target = out / source.name
        if keep and target.exists():
            continue
        nbformat.write(student_copy(nbformat.read(source, as_version=4)), target)
        written.append(target)
    return written


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    parser.add_argument("--keep", action="store_true",
                        help="leave copies that already exist as they are (your work)")
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/NN_*.ipynb")
    args = parser.parse_args(argv)
    sources = args.notebooks or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    written = build(args.out, sources, keep=args.keep)
    n_exercises = sum(
        "exercise" in cell.metadata.get("tags", [])
        for path in written
        for cell in nbformat.read(path, as_version=4).cells
    )
    print(f"{len(written)} student notebooks with {n_exercises} exercises written to {args.out}"
          + (f" ({len(sources) - len(written)} kept as they were)" if args.keep else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

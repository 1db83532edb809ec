"""Execute course notebooks in place, the way nbval will check them, and tidy their metadata.

Usage::

    python tools/run_notebooks.py                      # every notebooks/NN_*.ipynb
    python tools/run_notebooks.py notebooks/02_*.ipynb # some of them

Each notebook runs top to bottom in a fresh kernel of the current environment, with the
notebooks/ folder as working directory. Its outputs are stored, ``metadata.widgets`` (widget
state, which changes every run) is removed, and the run fails on the first error.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # kernels inherit it: tiny matrices, 2 cores

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def merge_streams(outputs: list) -> list:
    """Join consecutive prints to the same stream: how a run splits them depends on timing."""
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.get("output_type") == "stream"
            and previous is not None
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] = "".join(previous["text"]) + "".join(output["text"])
        else:
            merged.append(output)
    return merged


def tidy(notebook: nbformat.NotebookNode) -> None:
    """Remove what changes from run to run and is not part of the lesson."""
    notebook.metadata.pop("widgets", None)
    notebook.metadata["kernelspec"] = dict(KERNELSPEC)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("collapsed", None)
        cell.metadata.pop("scrolled", None)
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)


def run(path: Path, timeout: int = 120) -> float:
    """Execute ``path`` in place and return the seconds it took."""
    notebook = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
    )
    client.execute()
    seconds = time.perf_counter() - start
    tidy(notebook)
    nbformat.validate(notebook)
    nbformat.write(notebook, path)
    return seconds


def main(argv: list[str]) -> int:
    paths = [Path(arg) for arg in argv] or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    for path in paths:
        seconds = run(path)
        print(f"{path.name}: executed in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The notebooks `make test-baseline` runs again with numpy's dispatched SIMD paths switched off.

A digit printed by a notebook can depend on the CPU's SIMD path in two ways:

- a float64 result at the level of its rounding (about 1e-16 relative, from the last bits of a
  sum or a libm call): tests/test_cpu_independent_outputs.py finds every such printed number in
  the stored outputs, without running anything;
- a result computed in a narrow float (float32, float16, bfloat16, the float8 formats): numpy's
  vectorised sin, cos, exp, log and sums may differ from its scalar code by an ulp, and an ulp
  of float32 is 1e-7, within the digits a notebook prints. Only running the code on the other
  path shows whether such a digit moves.

So the SIMD-off run is needed by the notebooks whose code works in a narrow float: a code cell
names one, or uses something of posenc_lib whose own source names one (a function, a class or
an exercises module, read with ``inspect``). ``python -m tools.simd_notebooks`` prints their
paths for the Makefile; tests/test_simd_notebooks.py checks the rule on made-up cells.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
import textwrap
from pathlib import Path

from tools.notebook_cells import NOTEBOOKS, load, source

NARROW = re.compile(r"\b(float32|float16|bfloat16|float8\w*|ml_dtypes)\b")
"""A narrow float format named in code (numpy's and ml_dtypes' names)."""


def _library_names(code: str) -> list[tuple[str, str | None]]:
    """(module, name) of every ``from posenc_lib... import name`` and ``import posenc_lib...``
    (name None) in ``code``; magics and shell lines are skipped."""
    lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return []
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("posenc_lib"):
            found += [(node.module or "", alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(a.name, None) for a in node.names if a.name.startswith("posenc_lib")]
    return found


def _source_names_a_narrow_float(module: str, name: str | None) -> bool:
    """Whether the source of ``module.name`` (or of the module itself) names a narrow float."""
    target = importlib.import_module(module)
    if name is not None and name != "*":
        target = getattr(target, name)
    if not (inspect.ismodule(target) or inspect.isclass(target) or inspect.isroutine(target)):
        return False  # a constant: its value was computed at import, on the float64 path
    try:
        code = inspect.getsource(target)
    except (OSError, TypeError):  # built in, or no source file
        return False
    return bool(NARROW.search(_without_docstrings(code)))


def _without_docstrings(code: str) -> str:
    """``code`` without its docstrings and comments: a docstring listing the dtypes a function
    accepts is not a computation in one."""
    tree = ast.parse(textwrap.dedent(code))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                and isinstance(first.value.value, str):
            body[0] = ast.Pass()
    return ast.unparse(tree)


def narrow_float_reasons(cells: list[dict]) -> list[str]:
    """Why these notebook cells compute in a narrow float: the code or library names that do."""
    reasons = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        code = source(cell)
        reasons += sorted({f"names {m.group(1)}" for m in NARROW.finditer(code)})
        for module, name in _library_names(code):
            if _source_names_a_narrow_float(module, name):
                reasons.append(f"uses {module}{'.' + name if name else ''}")
    return list(dict.fromkeys(reasons))


def simd_notebooks(notebooks: list[Path] = NOTEBOOKS) -> list[Path]:
    """The notebooks whose stored outputs may depend on numpy's SIMD path."""
    return [path for path in notebooks if narrow_float_reasons(load(path)["cells"])]


if __name__ == "__main__":
    if "--why" in sys.argv:
        for path in NOTEBOOKS:
            print(path.name, narrow_float_reasons(load(path)["cells"]) or "float64 only")
    else:
        chosen = simd_notebooks()
        if not chosen:  # an empty list would make the SIMD-off run skip every notebook
            sys.exit("tools.simd_notebooks: no notebook computes in a narrow float?")
        print(" ".join(str(path.relative_to(Path.cwd())) for path in chosen))

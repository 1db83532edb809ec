"""The learner's own code, as the shortcut check reads it: which names a cell or a function
defines, which functions are the learner's (not the library's), and the code with those names
masked so that a shortcut pattern matches only a library call.

Notebooks: 00_why_position to 11_figure_gallery (:meth:`Exercise.shortcut_used
<posenc_lib.exercises._core.Exercise.shortcut_used>`).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
import textwrap
import types
from typing import Any


def _without_comments(code: str) -> str:
    return re.sub(r"#[^\n]*", "", code)


LIBRARY_MODULES = ("posenc_lib", "numpy", "jax", "ml_dtypes", "math")
"""Modules whose functions are library code, never the learner's own."""
_PIECE = "# (next piece of the learner's code)"
"""The line between two pieces of :func:`_function_code` (a comment, so no pattern sees it)."""
OWN_NAME = "_own_name_"
"""What a name the learner defines is replaced with before the shortcut patterns are searched."""


def _is_learner_function(value: Any) -> bool:
    if not isinstance(value, (types.FunctionType, type)):
        return False
    module = getattr(value, "__module__", None) or ""
    return module.split(".")[0] not in LIBRARY_MODULES and module != "builtins"


def _bound_names(code: str) -> set[str]:
    """The names ``code`` defines (functions, classes, targets, arguments; not imports).

    Code that does not parse falls back to its ``def name`` and ``name =`` lines.
    """
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        binding = r"^[ \t]*def[ \t]+(\w+)|^[ \t]*(\w+)[ \t]*(?::[^=\n]+)?=(?!=)"
        return {name for pair in re.findall(binding, code, re.M) for name in pair if name}
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names - set(dir(builtins))


BUILD_STEP_NAME = re.compile(r"my_\w+|\w+_by_me")  # names of the notebooks' build steps


def _masked(code: str, names: set[str]) -> str:
    """``code`` without comments, each of ``names`` (not an attribute ``.name``) masked."""
    code = _without_comments(code)
    if not names:
        return code
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.sub(rf"(?<![\w.])(?:{alternatives})\b", OWN_NAME, code)


def _function_code(answer: Any) -> str:
    """The source of a function answer and of the learner's functions it calls (two levels),
    with the names their code uses."""
    if not isinstance(answer, types.FunctionType):
        return ""
    seen: set[int] = set()
    pieces: list[str] = []

    def visit(function: types.FunctionType, depth: int) -> None:
        if id(function) in seen or depth > 2 or not _is_learner_function(function):
            return
        seen.add(id(function))
        try:
            pieces.append(inspect.getsource(function))
        except (OSError, TypeError):
            pass
        codes = [function.__code__]
        while codes:
            code = codes.pop()
            pieces.append(" ".join(code.co_names))
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
            for called in code.co_names:
                target = function.__globals__.get(called)
                if isinstance(target, types.FunctionType):
                    visit(target, depth + 1)

    visit(answer, 0)
    return ("\n" + _PIECE + "\n").join(pieces)

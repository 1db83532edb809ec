"""One name, one meaning: a module-level function or class of posenc_lib that another module also
defines must be the same code, or be listed below with the reason the two differ.

Methods are left out: a method is reached through its class (every explorer's ``update``, every
``__init__``), so two classes' methods share no namespace. Nested helpers are left out likewise.
"""

from __future__ import annotations

import ast
from collections import defaultdict

from tools.notebook_cells import ROOT

PACKAGE = ROOT / "posenc_lib"

# name -> (the modules that define it, why the definitions differ on purpose)
ALLOWED: dict[str, tuple[frozenset[str], str]] = {
    # the figure is named after the quantity it draws (the name is its REGISTRY key and file name)
    "binary_table": (frozenset({"binary.py", "figures/catalog.py"}), "figure of binary_table"),
    "frequency_ratio": (frozenset({"analysis.py", "figures/catalog.py"}),
                        "figure of frequency_ratio"),
    "rope_decay_bound": (frozenset({"rope.py", "figures/catalog.py"}),
                         "figure of rope_decay_bound"),
    # the `python -m` entry point of each command
    "main": (frozenset({"figures/cli.py", "lab/experiments.py", "lab/scale.py"}),
             "entry point of a command"),
    # one rotation, a' = a cos - b sin, b' = a sin + b cos: NumPy's in place, JAX's traced
    "_rotate_pairs": (frozenset({"rope.py", "lab/model.py"}), "same rule, NumPy and JAX"),
}


def _rule(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    """The definition as code, its docstring left out (other words around one rule)."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return ast.dump(type(node)(**{**{f: getattr(node, f) for f in node._fields}, "body": body}))


def _definitions(sources: dict[str, str]) -> dict[str, dict[str, str]]:
    """name -> {module: its rule}, over the module-level definitions of ``sources``."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for module, source in sources.items():
        for node in ast.parse(source).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found[node.name][module] = _rule(node)
    return found


def _clashes(definitions: dict[str, dict[str, str]]) -> dict[str, frozenset[str]]:
    """Names defined in two or more modules with different code, and where."""
    return {name: frozenset(where) for name, where in definitions.items()
            if len(where) > 1 and len(set(where.values())) > 1}


def test_a_name_defined_in_two_modules_is_one_rule_or_listed_with_its_reason() -> None:
    clashes = _clashes(_definitions({path.relative_to(PACKAGE).as_posix(): path.read_text(
        encoding="utf-8") for path in sorted(PACKAGE.rglob("*.py"))}))
    unlisted = {name: sorted(where) for name, where in clashes.items()
                if ALLOWED.get(name, (frozenset(), ""))[0] != where}
    assert not unlisted, f"one name, two meanings (rename one, or list it with why): {unlisted}"
    stale = sorted(set(ALLOWED) - set(clashes))
    assert not stale, f"listed in ALLOWED but no longer defined twice: remove {stale}"


def test_the_scan_tells_two_rules_of_one_name_from_one_rule_in_other_words() -> None:
    one = "def check(x):\n    \"\"\"Words.\"\"\"\n    return x\n"
    other_words = "def check(x):\n    \"\"\"Other words.\"\"\"\n    return x\n"
    other_body = "def check(x):\n    return not x\n"
    other_arguments = "def check(y):\n    return x\n"
    assert _clashes(_definitions({"a.py": one, "b.py": other_words})) == {}
    for other in (other_body, other_arguments):
        found = _clashes(_definitions({"a.py": one, "b.py": other}))
        assert found == {"check": frozenset({"a.py", "b.py"})}, other

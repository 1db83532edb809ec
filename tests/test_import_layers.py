"""The library's imports go one way: math -> plots -> lab -> widgets -> figures and exercises
(README, "Maintain it"; DESIGN.md's math -> plots -> widgets -> figures/exercises, with the lab,
which draws its pictures with plots, below the widgets that show its results). figures and
exercises import neither each other; the source heatmaps' shared defaults sit in plots, so the
gallery's explorer needs no figure module. Every ``import`` statement of every module is read,
including those inside functions."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tools.notebook_cells import ROOT

PACKAGE = ROOT / "posenc_lib"
SUBPACKAGES = ("plots", "widgets", "figures", "exercises", "lab")
# layer -> the layers its modules may import (its own included)
ALLOWED = {
    "math": {"math"},
    "plots": {"math", "plots"},
    "lab": {"math", "plots", "lab"},
    "widgets": {"math", "plots", "lab", "widgets"},
    "figures": {"math", "plots", "lab", "widgets", "figures"},
    "exercises": {"math", "plots", "lab", "widgets", "exercises"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in SUBPACKAGES else "math"


def imported(path: Path, module: str) -> set[str]:
    """The posenc_lib modules (or packages) a file imports, relative imports resolved."""
    package = module.split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            names.add(target)
            # "from posenc_lib import plots": the names may be subpackages themselves
            names |= {f"{target}.{alias.name}" for alias in node.names
                      if alias.name in SUBPACKAGES}
    return {name for name in names if name.startswith("posenc_lib.")}


def violations(path: Path, module: str) -> set[tuple[str, str]]:
    found = set()
    for target in imported(path, module):
        if layer(target) not in ALLOWED[layer(module)]:
            top = ".".join(target.split(".")[:2])
            found.add((module, top if layer(target) != "math" else target))
    return found


def test_imports_go_one_way() -> None:
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        found |= violations(path, module_name(path))
    assert not found, f"imports against the layers: {sorted(found)}"


def test_the_checker_sees_a_wrong_import(tmp_path: Path) -> None:
    # a math module importing a widget and (inside a function, relatively) a plot is caught
    probe = tmp_path / "probe.py"
    probe.write_text("from posenc_lib import widgets\n"
                     "def f():\n    from .plots import style\n", encoding="utf-8")
    assert violations(probe, "posenc_lib.probe") == {
        ("posenc_lib.probe", "posenc_lib.widgets"), ("posenc_lib.probe", "posenc_lib.plots")}
    # the lab may draw with plots but not show a widget; a widget may not import a figure
    lab = tmp_path / "lab_probe.py"
    lab.write_text("from posenc_lib.rope import apply_rope\nfrom ..plots import style\n"
                   "from ..widgets import Explorer\n", encoding="utf-8")
    assert violations(lab, "posenc_lib.lab.probe") == {
        ("posenc_lib.lab.probe", "posenc_lib.widgets")}
    widget = tmp_path / "widget_probe.py"
    widget.write_text("from posenc_lib.figures.registry import get_figure\n"
                      "from posenc_lib.lab.results import load\n", encoding="utf-8")
    assert violations(widget, "posenc_lib.widgets.probe") == {
        ("posenc_lib.widgets.probe", "posenc_lib.figures")}


def test_the_readme_states_these_layers() -> None:
    """The README's chain, read as "each layer may import those to its left", is ALLOWED."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    chain = re.search(r"imports go one way: ([\w /\->]+?) \(tests/test_import_layers\.py\)",
                      readme)
    assert chain, "README's layering sentence is missing"
    steps = [step.split(" and ") for step in chain.group(1).split(" -> ")]
    stated: dict[str, set[str]] = {}
    below: set[str] = set()
    for step in steps:
        for name in step:
            stated[name] = below | {name}
        below = below | set(step)
    assert stated == ALLOWED, f"README says {stated}"

"""What the notebooks, the figure catalogue and the explorers show by default, as JSON on stdout.

Run as ``python -m tests.registry_probe [--made-up]`` from the repository's root. With
``--made-up``, posenc_lib.scaling is loaded with one more entry in ``ROPE_TYPES``, registered
right after the dict is written, as a maintainer adding a rope type would: ``"made_up"``, whose
required key ``alpha`` no default supplies. tests/test_registry_opt_in.py compares the two runs.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.abc
import importlib.machinery
import inspect
import json
import re
import sys
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MADE_UP = "made_up"
# the new entry and its compute function, inserted after ``ROPE_TYPES = {...}``
_REGISTRATION = f'''
def _compute_made_up(d, base, keys, seq_len):
    return inverse_frequencies(d, base) / keys["alpha"], 1.0  # theta_i / alpha

ROPE_TYPES["{MADE_UP}"] = RopeType(_compute_made_up, ("alpha",))
'''


class _MadeUpScaling(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Loads posenc_lib.scaling from its source with ``_REGISTRATION`` after ``ROPE_TYPES``."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != "posenc_lib.scaling":
            return None
        origin = str(ROOT / "posenc_lib" / "scaling.py")
        return importlib.machinery.ModuleSpec(fullname, self, origin=origin)

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        tree = ast.parse(Path(module.__spec__.origin).read_text(encoding="utf-8"))
        at = next(i for i, node in enumerate(tree.body) if isinstance(node, (ast.Assign,
            ast.AnnAssign)) and "ROPE_TYPES" in {t.id for t in ast.walk(node) if isinstance(
            t, ast.Name) and isinstance(t.ctx, ast.Store)})
        tree.body[at + 1:at + 1] = ast.parse(_REGISTRATION).body
        module.__file__ = module.__spec__.origin
        exec(compile(tree, module.__file__, "exec"), module.__dict__)


def _plain(value: Any) -> Any:
    """``value`` as JSON: data as itself, anything else by type and qualified name."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (tuple, list, set, frozenset)):
        items = [_plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if not isinstance(value, type) and hasattr(value, "tolist") and hasattr(value, "dtype"):
        return [str(value.dtype), _plain(value.tolist())]
    name = getattr(value, "__qualname__", type(value).__qualname__)
    return f"<{type(value).__name__} {name}>"


def _defaults(function: Any) -> Any:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return "<no signature>"
    return {p.name: _plain(p.default) for p in parameters if p.default is not p.empty}


def _describe(value: Any, depth: int = 0) -> Any:
    """Data as itself; a function or class by its defaults; a module by its public names."""
    if isinstance(value, types.ModuleType):
        if depth:
            return "<module>"
        return {name: _describe(getattr(value, name), 1) for name in sorted(vars(value))
                if not name.startswith("_") and not isinstance(getattr(value, name),
                    types.ModuleType)}
    if callable(value):
        return _defaults(value)
    return _plain(value)


def notebook_imports() -> dict[str, Any]:
    """Every name a notebook imports from posenc_lib, described."""
    seen: dict[str, Any] = {}
    for notebook in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%",
                "!"))]
            try:
                tree = ast.parse("\n".join(lines))
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                        "posenc_lib"):
                    module = importlib.import_module(node.module)
                    for alias in node.names:
                        key = f"{node.module}.{alias.name}"
                        if key not in seen:
                            seen[key] = _describe(getattr(module, alias.name))
    return seen


def _fingerprint(figure: Any) -> str:
    """A digest of what every artist of ``figure`` holds: line data, texts, images, offsets."""
    digest = hashlib.sha256()
    for artist in figure.findobj():
        parts: list[Any] = [type(artist).__name__]
        for getter in ("get_xydata", "get_text", "get_array", "get_offsets", "get_label"):
            if hasattr(artist, getter):
                try:
                    parts.append(_plain(getattr(artist, getter)()))
                except (TypeError, ValueError, AttributeError):
                    parts.append(getter + " failed")
        digest.update(repr(parts).encode())
    return digest.hexdigest()


def _outcome(make: Any) -> Any:
    try:
        return make()
    except Exception as error:  # the error is the observation
        return f"raised {type(error).__name__}: {error}"


def figures() -> dict[str, Any]:
    """Every catalogue figure's defaults and a digest of its artists; the PNG bytes of the
    context-extension ones (notebook 06 and the course's), at a low resolution."""
    import matplotlib.pyplot as plt

    from posenc_lib.figures import REGISTRY

    seen = {}
    for name, spec in REGISTRY.items():
        def draw(spec: Any = spec) -> Any:
            if spec.source not in ("notebook 06", "course"):  # built, not drawn: cheaper
                figure = (spec.unfrozen or spec.function)(**spec.defaults)
                entry = {"artists": _fingerprint(figure)}
            else:
                figure, png = spec.picture(dpi=20)
                entry = {"artists": _fingerprint(figure), "png": hashlib.sha256(png).hexdigest()}
            plt.close(figure)
            return entry
        seen[name] = {"defaults": _plain(spec.defaults), "drawn": _outcome(draw)}
    return seen


def explorers() -> dict[str, Any]:
    """Every explorer's defaults, and each control's options and value once built."""
    import matplotlib.pyplot as plt

    from posenc_lib.widgets import EXPLORERS

    seen = {}
    for explorer in EXPLORERS:
        def build(explorer: Any = explorer) -> Any:
            made = explorer()
            controls = {name: {key: _plain(getattr(control, key)) for key in ("options", "value",
                "min", "max") if hasattr(control, key)} for name, control in made.controls.items()}
            entry = {"controls": controls, "artists": _fingerprint(made.figure)}
            plt.close(made.figure)
            return entry
        seen[explorer.__name__] = {"defaults": _defaults(explorer), "built": _outcome(build)}
    return seen


def main() -> None:
    made_up = "--made-up" in sys.argv[1:]
    if made_up:
        sys.meta_path.insert(0, _MadeUpScaling())
    import matplotlib

    matplotlib.use("Agg")
    from posenc_lib.scaling import ROPE_TYPES, rope_frequencies

    report = {"registered": MADE_UP in ROPE_TYPES,
              "made_up_needs_alpha": _outcome(lambda: _plain(rope_frequencies(
                  4, 100.0, {"rope_type": MADE_UP}))),
              "notebooks": notebook_imports(), "figures": figures(), "explorers": explorers()}
    text = json.dumps(report, sort_keys=True)
    print(re.sub(r" at 0x[0-9a-f]+", "", text))


if __name__ == "__main__":
    main()

"""The project's own files install and run everything: pyproject, environment.yml, Makefile, CI."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path

import pytest

from posenc_lib.models import rope_frequencies_from_config
from posenc_lib.presets import PRESETS
from tools.notebook_cells import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def package_name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def environment_packages() -> set[str]:
    """Package names in environment.yml's conda dependencies and its pip list."""
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    dependencies = text.split("dependencies:", 1)[1]
    names = set()
    for line in dependencies.splitlines():
        match = re.match(r"\s+- ([A-Za-z][A-Za-z0-9_.\-]*)", line)
        if match and match.group(1) not in {"pip", "python"}:
            names.add(package_name(match.group(1)))
    return names


EXTRAS = PYPROJECT["project"]["optional-dependencies"]
CORE = {package_name(r) for r in PYPROJECT["project"]["dependencies"]}
# the distribution that provides each third-party module the library imports (IPython comes with
# ipywidgets); a new import fails test_every_import_is_declared until it is named here
DISTRIBUTIONS = {"numpy": "numpy", "ml_dtypes": "ml-dtypes", "matplotlib": "matplotlib",
                 "ipywidgets": "ipywidgets", "IPython": "ipywidgets",
                 "platformdirs": "platformdirs", "jax": "jax", "optax": "optax", "tqdm": "tqdm"}
# the extras each layer of the library may need beyond the core
LAYER_EXTRAS = {"math": (), "plots": ("plots",), "figures": ("plots",),
                "widgets": ("notebooks",), "exercises": ("notebooks",), "lab": ("lab",)}


def extra(name: str) -> set[str]:
    """The distributions an extra names, with those of the extras it names
    (``posenc_lib[notebooks,lab]``)."""
    names: set[str] = set()
    for requirement in EXTRAS[name]:
        own = re.fullmatch(r"posenc_lib\[([\w,]+)\]", requirement.strip())
        names |= set().union(*map(extra, own.group(1).split(","))) if own else {
            package_name(requirement)}
    return names


def third_party_imports(path: Path) -> set[str]:
    """Top-level modules a file imports outside the standard library and posenc_lib, leaving
    out those inside ``try`` (optional, with a fallback), unless the ``try`` raises
    ``missing_extra(...)`` (required, the error naming the extra: posenc_lib._extras)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    guarded = {id(n) for t in ast.walk(tree) if isinstance(t, ast.Try) and "missing_extra" not in
               {c.func.id for c in ast.walk(t) if isinstance(c, ast.Call) and isinstance(
                   c.func, ast.Name)}
               for stmt in t.body for n in ast.walk(stmt)}
    names = set()
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names
            and n not in ("posenc_lib", "__future__")}


def test_every_import_is_declared_in_the_core_or_its_layers_extra() -> None:
    used_by_math = set()
    for path in sorted((ROOT / "posenc_lib").rglob("*.py")):
        parts = path.relative_to(ROOT / "posenc_lib").parts
        layer = parts[0] if len(parts) > 1 else "math"
        allowed = CORE.union(*(extra(name) for name in LAYER_EXTRAS[layer]))
        for module in third_party_imports(path):
            assert module in DISTRIBUTIONS, f"{path.name} imports {module}: name its distribution"
            assert DISTRIBUTIONS[module] in allowed, (
                f"{'/'.join(parts)} imports {module}, which neither the core nor the "
                f"{LAYER_EXTRAS[layer]} extra declares")
            if layer == "math":
                used_by_math.add(DISTRIBUTIONS[module])
    # the core is what the math modules import, nothing more
    assert used_by_math == CORE


def test_the_core_stays_light_and_every_requirement_has_a_lower_bound() -> None:
    assert not CORE & {"jax", "optax", "jupyterlab", "ipywidgets", "matplotlib", "tqdm"}
    assert {"notebooks", "lab", "tests", "dev"} <= set(EXTRAS)
    assert {"pytest", "nbval", "hypothesis"} <= extra("tests")
    for requirement in PYPROJECT["project"]["dependencies"] + sum(EXTRAS.values(), []):
        if not requirement.startswith("posenc_lib["):  # other extras, bounded there
            assert ">=" in requirement, f"{requirement} has no known-good lower bound"


@functools.cache
def _providers() -> Mapping[str, list[str]]:
    """Top-level module -> the installed distributions providing it (one scan of site-packages:
    a scan per module took 80 s in this venv)."""
    return importlib.metadata.packages_distributions()


def _distribution(module: str) -> str:
    """The installed distribution that provides the top-level ``module``."""
    providers = _providers().get(module)
    assert providers, f"{module} is imported by the tests but not installed here"
    return providers[0].lower().replace("_", "-")


@pytest.mark.parametrize(("folder", "extras"), [("tests", ("tests",)),
                                                ("tests/e2e", ("tests", "dev"))])
def test_the_tests_extra_requires_what_the_tests_import(folder: str,
                                                        extras: tuple[str, ...]) -> None:
    """Every third-party module a test file imports (outside ``pytest.importorskip`` and
    ``try``) comes from a distribution the core or the extras name, so that
    ``pip install '.[tests]'`` runs tests/ (and with ``dev``, tests/e2e/)."""
    own = {p.stem for p in (ROOT / "tests").rglob("*.py")} | {"tests", "tools"}
    allowed = CORE.union(*map(extra, extras))
    missing = {}
    for path in sorted((ROOT / folder).glob("*.py")):
        for module in third_party_imports(path) - own:
            if _distribution(module) not in allowed:
                missing[f"{path.name}: {module}"] = _distribution(module)
    assert not missing, f"the {'+'.join(extras)} extras do not name: {missing}"
    # numpy._core exists from NumPy 2 on (tests/test_cpu_paths.py imports it)
    assert "numpy>=2" in EXTRAS["tests"]


_HIDE = (
    "import importlib.abc, sys\n"
    "class Hide(importlib.abc.MetaPathFinder):\n"
    "    def find_spec(self, name, path, target=None):\n"
    "        if name.split('.')[0] == sys.argv[1]:\n"
    "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
    "sys.meta_path.insert(0, Hide())\n"
    "try:\n"
    "    __import__(sys.argv[2])\n"
    "except ImportError as error:\n"
    "    print(type(error).__name__, error.name, error, sep='|')\n"
)


@pytest.mark.parametrize(("hidden", "layer", "named"), [
    ("matplotlib", "posenc_lib.plots", "plots"),
    ("matplotlib", "posenc_lib.figures", "plots"),
    ("ipywidgets", "posenc_lib.widgets", "notebooks"),
    ("matplotlib", "posenc_lib.widgets", "notebooks"),
    ("jax", "posenc_lib.lab.model", "lab"),
    ("optax", "posenc_lib.lab.train", "lab"),
    ("tqdm", "posenc_lib.lab.experiments", "lab"),
])
def test_a_layer_without_its_extra_names_the_extra_to_install(hidden: str, layer: str,
                                                              named: str) -> None:
    """With ``hidden`` made uninstallable, importing ``layer`` fails with an ImportError (still a
    ModuleNotFoundError for ``hidden``) whose message gives the command that installs it."""
    out = subprocess.run([sys.executable, "-c", _HIDE, hidden, layer], capture_output=True,
                         text=True, check=True).stdout.strip()
    kind, name, message = out.split("|")
    assert (kind, name) == ("ModuleNotFoundError", hidden), out
    assert f"pip install 'posenc_lib[{named}]'" in message
    assert message.startswith(f"{layer} needs {hidden},"), message
    assert named in PYPROJECT["project"]["optional-dependencies"]
    assert hidden in {module.split(".")[0] for module in DISTRIBUTIONS if DISTRIBUTIONS[
        module] in extra(named)}, f"the {named} extra does not install {hidden}"


def test_environment_yml_mirrors_pyproject() -> None:
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    assert "conda-forge" in text and re.search(r"^\s+- python", text, re.M)
    assert re.search(r"- pip:\s*\n\s+- -e \.", text), "environment.yml installs the package"
    listed = environment_packages()
    # a conda user gets what make venv installs for the notebooks, the lab and the tests
    assert CORE | extra("notebooks") | extra("lab") | extra("tests") <= listed
    declared = CORE.union(*(extra(name) for name in EXTRAS))
    assert listed <= declared, f"environment.yml lists more: {listed - declared}"


def makefile_extras() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"pip install .*-e '\.\[([\w,]+)\]'", makefile)
    assert match, "the Makefile installs the project editable, with its extras"
    return set(match.group(1).split(","))


def test_makefile_has_every_target_and_builds_the_venv() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("lab", "test", "figures", "experiments", "student", "html", "bench", "e2e"):
        assert re.search(rf"^{target}:.*\$\(STAMP\)|^{target}:", makefile, re.M), target
    assert "-m venv" in makefile
    assert {"notebooks", "lab", "tests", "dev"} <= makefile_extras() <= set(EXTRAS)


def test_ci_runs_the_readme_test_command() -> None:
    ci = ROOT / ".ci" / "run"
    assert os.access(ci, os.X_OK)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make test" in readme and "make test" in ci.read_text(encoding="utf-8")


def test_readme_opens_with_the_learners_path() -> None:
    """The first section is the self-learner's: one command, `make study`; then the teacher's
    and the maintainer's sections, and every make target the README names exists."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## (.+)$", readme, re.M)
    assert sections[:3] == ["Learn on your own", "Teach with it", "Maintain it"]
    first = readme.split("## Learn on your own", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```(?:bash|sh)?\n(.*?)```", first, re.S)
    assert block and [c for c in block.group(1).splitlines() if c.strip()] == ["make study"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in set(re.findall(r"`make (\w+)", readme)):
        assert re.search(rf"^{target}:", makefile, re.M), f"README names make {target}"


def test_import_is_light() -> None:
    code = (
        "import sys, posenc_lib; "
        "heavy = [m for m in ('matplotlib', 'ipywidgets', 'IPython', 'jax', 'optax', 'tqdm', "
        "'ml_dtypes') "
        "if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"import posenc_lib loaded {out.stdout.strip()}"


def test_git_ignores_build_output() -> None:
    # .venv as a directory or as a link to one (a worktree's): a merge once committed such a link
    paths = [".venv", ".venv/bin/python", "build/lib/x.py", "posenc_lib/__pycache__/x.pyc"]
    found = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=ROOT,
                           capture_output=True, text=True, check=False)
    assert found.stdout.split() == paths


def test_pip_install_without_extras_reads_configs_and_the_lab_results(tmp_path: Path) -> None:
    """``pip install .`` (no extras, non-editable) into a fresh venv, outside the repository.

    The core alone reads a config.json as the development install does, with no JAX, JupyterLab,
    ipywidgets or matplotlib installed; the lab's committed results are installed beside it.
    Notebook 10's checks load those results (platformdirs, for the self-study record, is a
    core dependency). The one test that builds a venv: 26 s of CPU with a warm pip cache (measured
    92-126 s of wall time on a shared 2-core machine at load 12).
    """
    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {**os.environ, "POSENC_PROGRESS_FILE": str(tmp_path / "progress.json"),
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)

    def run(*args: str) -> str:
        done = subprocess.run([python, *args], capture_output=True, text=True, cwd=tmp_path,
                              env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    run("-m", "pip", "install", "--quiet", "-c", str(ROOT / "constraints.txt"), str(ROOT))
    core = (
        "import importlib.util, json, posenc_lib\n"
        "from posenc_lib.models import rope_frequencies_from_config\n"
        "from posenc_lib.presets import PRESETS\n"
        "from posenc_lib.lab import results\n"
        "inv_freq, attention = rope_frequencies_from_config(PRESETS['llama-3.1-8b'])\n"
        "missing = [m for m in ('jax', 'optax', 'jupyterlab', 'ipywidgets', 'matplotlib')\n"
        "           if importlib.util.find_spec(m) is None]\n"
        "print(json.dumps([posenc_lib.__file__, str(results.RESULTS), inv_freq.tolist(),\n"
        "                  attention, missing]))\n"
    )
    module, folder, inv_freq, attention, missing = json.loads(run("-c", core))
    assert str(venv) in module and str(ROOT) not in module
    assert missing == ["jax", "optax", "jupyterlab", "ipywidgets", "matplotlib"]
    expected = rope_frequencies_from_config(PRESETS["llama-3.1-8b"])
    assert inv_freq == expected[0].tolist() and attention == expected[1]
    assert folder == str(venv / "share" / "posenc_lib" / "results")
    assert sorted(p.name for p in Path(folder).glob("lab_*.json")) == sorted(
        p.name for p in (ROOT / "results").glob("lab_*.json")
    )
    # an install has no answer key: notebook 10's check names mistakes and confirms nothing
    check = run("-c", "from posenc_lib.exercises import nb10\n"
                      "print(repr(nb10.break_position.check(40)))")
    assert check.startswith("Not confirmed") and "not found" not in check
    # the pictures, without matplotlib: the error names the extra that installs it
    plots = run("-c", "try:\n    import posenc_lib.plots\nexcept ImportError as error:\n"
                      "    print(error)\n")
    assert "needs matplotlib" in plots and "pip install 'posenc_lib[plots]'" in plots, plots


def test_the_explorers_work_without_isal() -> None:
    """With isal hidden, the widgets fall back to zlib and write a PNG that decodes the same."""
    code = (
        "import sys; sys.modules['isal'] = None; sys.modules['isal.isal_zlib'] = None\n"
        "import zlib, numpy as np\n"
        "from posenc_lib.plots.style import _deflate, png_bytes\n"
        "assert _deflate is zlib.compress\n"
        "rgba = np.arange(3 * 5 * 4, dtype=np.uint8).reshape(3, 5, 4)\n"
        "assert png_bytes(rgba) == png_bytes(rgba, zlib.compress)\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_the_python_range_agrees_everywhere() -> None:
    """requires-python, the linters, the README and environment.yml all say 3.11."""
    assert PYPROJECT["project"]["requires-python"] == ">=3.11"
    assert PYPROJECT["tool"]["ruff"]["target-version"] == "py311"
    assert PYPROJECT["tool"]["mypy"]["python_version"] == "3.11"
    assert "python>=3.11" in (ROOT / "environment.yml").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    said = re.findall(r"Python (3\.\d+)", readme)  # every version the README names
    assert "Python 3.11 or newer" in readme and all(int(v.split(".")[1]) >= 11 for v in said)
    assert sys.version_info >= (3, 11)


def test_the_instructors_guide_installs_the_extras_a_class_needs() -> None:
    """The wheel alone is the core; every wheel install in INSTRUCTORS.md names the extras the
    notebooks (and notebook 10's lab) import, which the core does not pull."""
    guide = (ROOT / "notebooks" / "INSTRUCTORS.md").read_text(encoding="utf-8")
    installs = re.findall(r"pip install [^`]*\.whl[^`]*", guide)
    assert installs, "INSTRUCTORS.md no longer says how to install the wheel"
    for command in installs:
        match = re.search(r"\.whl\[([\w,]+)\]", command)
        assert match and {"notebooks", "lab"} <= set(match.group(1).split(",")), command
        assert set(match.group(1).split(",")) <= set(EXTRAS), command

"""The project's own files install and run everything: pyproject, environment.yml, Makefile, CI."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

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


def test_pyproject_declares_the_stack() -> None:
    runtime = {package_name(r) for r in PYPROJECT["project"]["dependencies"]}
    # jax, optax and tqdm: the lab of notebook 10; ml_dtypes: notebook 08 (import posenc_lib
    # itself stays without them); platformdirs: where exercise progress is saved
    assert runtime == {"numpy", "matplotlib", "ipywidgets", "jupyterlab", "jax", "optax", "tqdm",
                       "ml-dtypes", "platformdirs"}
    # isal (faster explorer frames) is optional: the extra "fast", and in the dev install
    assert {package_name(r) for r in PYPROJECT["project"]["optional-dependencies"]["fast"]} == {
        "isal"}
    dev = {package_name(r) for r in PYPROJECT["project"]["optional-dependencies"]["dev"]}
    assert {"pytest", "nbval", "hypothesis", "ruff", "mypy"} <= dev
    for requirement in PYPROJECT["project"]["dependencies"]:
        assert ">=" in requirement, f"{requirement} has no known-good lower bound"


def test_environment_yml_mirrors_pyproject() -> None:
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    assert "conda-forge" in text and re.search(r"^\s+- python", text, re.M)
    assert re.search(r"- pip:\s*\n\s+- -e \.", text), "environment.yml installs the package"
    runtime = {package_name(r) for r in PYPROJECT["project"]["dependencies"]}
    dev = {package_name(r) for r in PYPROJECT["project"]["optional-dependencies"]["dev"]}
    listed = environment_packages()
    assert runtime <= listed
    assert {"nbval"} <= listed
    assert listed <= runtime | dev, f"environment.yml lists more: {listed - runtime - dev}"


def test_makefile_has_every_target_and_builds_the_venv() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("lab", "test", "figures", "experiments", "student", "html", "bench", "e2e"):
        assert re.search(rf"^{target}:.*\$\(STAMP\)|^{target}:", makefile, re.M), target
    assert "-m venv" in makefile and "-e '.[dev]'" in makefile


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
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8")
    for entry in (".venv/", "build/", "__pycache__/"):
        assert entry in ignored


def test_a_non_editable_install_outside_the_repository_runs_notebook_10_checks(
    tmp_path: Path,
) -> None:
    """``pip install .`` into a fresh venv, then nb10's checks load the committed results.

    The fresh venv sees the development venv's packages through a .pth line (no download), and
    installs this project alone, non-editable (pip fetches the build backend, or reuses its
    cache).
    """
    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    dev_site = subprocess.run(
        [sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    (Path(site) / "dev_packages.pth").write_text(dev_site + "\n", encoding="utf-8")
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(ROOT)],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-3000:]
    script = (
        "import posenc_lib, sys\n"
        "from posenc_lib.lab import results\n"
        "from posenc_lib.exercises import nb10\n"
        "print(posenc_lib.__file__)\n"
        "print(results.RESULTS)\n"
        "print(repr(nb10.break_position.check(40)))\n"
    )
    run = subprocess.run(
        [str(python), "-c", script], capture_output=True, text=True, cwd=tmp_path,
        env={**os.environ, "POSENC_PROGRESS_FILE": str(tmp_path / "progress.json")},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    module, folder, check = run.stdout.split("\n", 2)
    assert str(venv) in module and str(ROOT) not in module
    assert folder == str(venv / "share" / "posenc_lib" / "results")
    assert sorted(p.name for p in Path(folder).glob("lab_*.json")) == sorted(
        p.name for p in (ROOT / "results").glob("lab_*.json")
    )
    assert check.startswith(("Correct", "Not yet")) and "not found" not in check


def test_the_explorers_work_without_isal() -> None:
    """With isal hidden, the widgets fall back to zlib and write a PNG that decodes the same."""
    code = (
        "import sys; sys.modules['isal'] = None; sys.modules['isal.isal_zlib'] = None\n"
        "import zlib, numpy as np\n"
        "from posenc_lib.widgets._base import _deflate, png_bytes\n"
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
    assert "Python 3.11 or newer" in readme and "3.10" not in readme
    assert sys.version_info >= (3, 11)

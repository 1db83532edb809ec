"""Tests of the figure command line: list, build, gallery, and every bad-input case (exit 2)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest

from posenc_lib.figures import REGISTRY, build_figure, main
from posenc_lib.figures.gallery import _gallery_markdown
from posenc_lib.plots import course_style, save_figure

matplotlib.use("Agg")

REPO = Path(__file__).resolve().parents[1]
FAST = ["unit_circle_rotation", "division_term"]


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def test_main_is_importable_from_the_package():
    from posenc_lib.figures import main as entry_point

    assert callable(entry_point)


def test_list_shows_every_figure(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(REGISTRY)
    for line, spec in zip(out, REGISTRY.values(), strict=True):
        assert line.split()[0] == spec.name
        assert spec.source in line and spec.description in line


def test_build_writes_files_with_progress_and_summary(tmp_path, capsys):
    out_dir = tmp_path / "new" / "figs"
    args = ["build", *FAST, "--out", str(out_dir), "--format", "svg,png,pdf", "--dpi", "40"]
    assert main(args) == 0
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 3  # one line per figure and a summary
    assert printed[0].startswith("[1/2] unit_circle_rotation")
    assert printed[1].startswith("[2/2] division_term")
    assert printed[2].startswith("built 2 figure(s), 6 file(s)")
    expected = {f"{name}.{fmt}" for name in FAST for fmt in ("svg", "png", "pdf")}
    assert set(_snapshot(out_dir)) == expected


def test_build_default_formats_and_dpi(tmp_path):
    assert main(["build", "division_term", "--out", str(tmp_path)]) == 0
    assert set(_snapshot(tmp_path)) == {"division_term.svg", "division_term.png"}
    image = matplotlib.image.imread(tmp_path / "division_term.png")
    assert image.shape[:2] == (400, 700)  # (4 in, 7 in) at the course's 100 dpi


def test_rebuild_gives_identical_bytes(tmp_path, capsys):
    args = ["build", FAST[0], "--out", str(tmp_path), "--format", "svg,png,pdf", "--dpi", "40"]
    assert main(args) == 0
    first = _snapshot(tmp_path)
    assert main(args) == 0
    assert _snapshot(tmp_path) == first
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary files


def test_set_changes_parameters_like_the_python_api(tmp_path):
    args = ["build", "heatmap_002", "--out", str(tmp_path), "--format", "png", "--dpi", "30"]
    assert main([*args, "--set", "d_model=64", "--set", "cmap=viridis"]) == 0
    with course_style():
        expected = save_figure(
            build_figure("heatmap_002", d_model=64, cmap="viridis"), tmp_path / "api.png", dpi=30
        )
    assert (tmp_path / "heatmap_002.png").read_bytes() == expected.read_bytes()


def test_set_applies_to_every_figure_with_the_parameter(tmp_path):
    out = tmp_path / "out"
    assert main(["build", *FAST, "--out", str(out), "--format", "png", "--dpi", "30",
                 "--set", "figsize=3,2"]) == 0  # fmt: skip
    for name in FAST:
        assert matplotlib.image.imread(out / f"{name}.png").shape[:2] == (60, 90)


def test_set_targets_one_figure(tmp_path):
    assert main(["build", *FAST, "--out", str(tmp_path), "--format", "png", "--dpi", "30",
                 "--set", "division_term.figsize=3,2"]) == 0  # fmt: skip
    assert matplotlib.image.imread(tmp_path / "division_term.png").shape[:2] == (60, 90)
    assert matplotlib.image.imread(tmp_path / "unit_circle_rotation.png").shape[:2] == (135, 135)


def test_set_only_needs_one_selected_figure_to_have_the_key(tmp_path):
    # unit_circle_rotation has no d_model; division_term has: allowed, applied to division_term
    assert main(["build", *FAST, "--out", str(tmp_path), "--format", "svg",
                 "--set", "d_model=64"]) == 0  # fmt: skip


# --------------------------------------------------------------------------- bad input: exit 2


BAD_BUILDS = {
    "unknown figure": (["build", "no_such_figure"], "unknown figure 'no_such_figure'"),
    "unknown among good": (["build", "division_term", "nope"], "unknown figure 'nope'"),
    "unknown parameter": (["build", "division_term", "--set", "colour=red"], "unknown parameter"),
    "unknown targeted parameter": (
        ["build", "division_term", "--set", "division_term.cmap=x"],
        "unknown parameter 'cmap' for figure division_term",
    ),
    "target not selected": (
        ["build", "division_term", "--set", "heatmap_002.cmap=viridis"],
        "not among the figures being built",
    ),
    "int expected": (["build", "heatmap_002", "--set", "d_model=abc"], "d_model must be int"),
    "float for int": (["build", "heatmap_002", "--set", "d_model=3.5"], "d_model must be int"),
    "float expected": (["build", "heatmap_002", "--set", "base=ten"], "base must be float"),
    "tuple of int": (
        ["build", "theta_offsets", "--set", "positions=a,b"],
        "positions must be a comma-separated tuple of int",
    ),
    "nan": (["build", "heatmap_002", "--set", "base=nan"], "finite"),
    "missing =": (["build", "heatmap_002", "--set", "d_model"], "KEY=VALUE"),
    "rejected by the math": (["build", "heatmap_002", "--set", "d_model=7"], "d_model"),
    "base <= 1": (["build", "division_term", "--set", "base=1"], "base"),
    "bad colormap": (["build", "heatmap_002", "--set", "cmap=no_such_map"], "no_such_map"),
    "unsupported format": (
        ["build", "division_term", "--format", "svg,jpg"],
        "unsupported format 'jpg'",
    ),
    "empty format": (["build", "division_term", "--format", ","], "--format"),
    "dpi zero": (["build", "division_term", "--dpi", "0"], "--dpi"),
    "dpi text": (["build", "division_term", "--dpi", "high"], "--dpi"),
}  # fmt: skip


@pytest.fixture
def populated(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "division_term.svg").write_bytes(b"old svg")
    (out / "keep.txt").write_text("untouched")
    return out


@pytest.mark.parametrize("case", list(BAD_BUILDS))
def test_bad_build_exits_2_and_writes_nothing(populated, capsys, case):
    args, message = BAD_BUILDS[case]
    before = _snapshot(populated)
    assert main([*args, "--out", str(populated)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("posenc-figures: error: ")
    assert message in err
    assert _snapshot(populated) == before


def test_late_failure_writes_nothing_for_earlier_figures(populated, capsys):
    # division_term draws fine with d_model=6; heatmap_000 (after it) rejects layout=spiral
    before = _snapshot(populated)
    args = ["build", "division_term", "heatmap_000", "--set", "d_model=6",
            "--set", "layout=spiral", "--out", str(populated)]  # fmt: skip
    assert main(args) == 2
    assert "layout" in capsys.readouterr().err
    assert _snapshot(populated) == before


def test_out_that_is_a_file_exits_2(tmp_path, capsys):
    target = tmp_path / "figures"
    target.write_text("a file, not a directory")
    assert main(["build", "division_term", "--out", str(target)]) == 2
    assert "existing file" in capsys.readouterr().err
    assert target.read_text() == "a file, not a directory"
    assert main(["build", "division_term", "--out", str(target / "sub")]) == 2
    assert "is a file" in capsys.readouterr().err
    assert main(["gallery", "--out", str(target)]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figures"]


def test_missing_out_directory_is_not_created_on_bad_input(tmp_path):
    out = tmp_path / "never"
    assert main(["build", "nope", "--out", str(out)]) == 2
    assert not out.exists()


def test_argparse_errors_exit_2(capsys):
    assert main([]) == 2
    assert main(["paint"]) == 2
    assert main(["build", "--bogus"]) == 2
    assert "usage" in capsys.readouterr().err


# --------------------------------------------------------------------------- gallery


def test_gallery_writes_the_table(tmp_path, capsys):
    for name in list(REGISTRY):
        (tmp_path / f"{name}.png").write_bytes(b"png")
    assert main(["gallery", "--out", str(tmp_path)]) == 0
    page = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert page == _gallery_markdown(out=tmp_path.as_posix())
    for spec in REGISTRY.values():
        row = next(line for line in page.splitlines() if f"`{spec.name}`" in line)
        assert f'<img src="{spec.name}.png"' in row
        assert spec.source in row and spec.description in row
        assert f"`python -m posenc_lib.figures build {spec.name} --out " in row
    assert "wrote" in capsys.readouterr().out


def test_gallery_needs_every_png(tmp_path, capsys):
    (tmp_path / "division_term.png").write_bytes(b"png")
    before = _snapshot(tmp_path)
    assert main(["gallery", "--out", str(tmp_path)]) == 2
    assert "missing" in capsys.readouterr().err
    assert _snapshot(tmp_path) == before


def test_committed_gallery_commands_rebuild_the_committed_files(tmp_path):
    """The command shown in figures/README.md reproduces the committed PNG (same pixels)."""
    name = "table_d_model_4"
    command = REGISTRY[name].command().split()
    assert command[:3] == ["python", "-m", "posenc_lib.figures"]
    out = tmp_path / "figures"
    index = command.index("--out")
    assert main([*command[3:index], "--out", str(out), *command[index + 2 :]]) == 0
    old = matplotlib.image.imread(REPO / "figures" / f"{name}.png")
    new = matplotlib.image.imread(out / f"{name}.png")
    assert old.shape == new.shape
    assert float(abs(old - new).max()) < 0.05


# --------------------------------------------------------------------------- the real entry points


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}


def test_python_dash_m_runs(tmp_path):
    ok = subprocess.run(
        [sys.executable, "-m", "posenc_lib.figures", "list"],
        capture_output=True, text=True, cwd=REPO, env=_env(),
    )  # fmt: skip
    assert ok.returncode == 0 and "division_term" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "posenc_lib.figures", "build", "nope", "--out", str(tmp_path)],
        capture_output=True, text=True, cwd=REPO, env=_env(),
    )  # fmt: skip
    assert bad.returncode == 2 and "unknown figure 'nope'" in bad.stderr
    assert list(tmp_path.iterdir()) == []


def test_console_script_runs():
    # `make` installs the project into the venv that runs the tests, so the script must be there
    script = shutil.which("posenc-figures", path=str(Path(sys.executable).parent))
    assert script, "posenc-figures is not installed next to this Python (pip install -e .)"
    done = subprocess.run([script, "list"], capture_output=True, text=True, env=_env())
    assert done.returncode == 0 and "heatmap_002" in done.stdout


@pytest.mark.parametrize("key", ["colour", "heatmap_002.colour"])
def test_an_unknown_parameter_lists_the_figures_parameters(tmp_path, capsys, key):
    """An author learns a figure's parameters from the error: every key of its defaults."""
    assert main(["build", "heatmap_002", "--out", str(tmp_path), "--set", f"{key}=red"]) == 2
    message = capsys.readouterr().err
    listed = message.split("the parameters are: ", 1)[1].strip().split(", ")
    assert sorted(listed) == sorted(REGISTRY["heatmap_002"].defaults)
    assert not list(tmp_path.iterdir()), "nothing is written on bad input"

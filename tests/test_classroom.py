"""Student copies and the static HTML course, built from the real notebooks in temporary folders."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import nbformat
import pytest

from tests.student_runs import student_run
from tools import build_html, build_student
from tools.explorer_frames import explorer_cells
from tools.notebook_cells import BEGIN, NOTEBOOKS, REMOVED_FOR_STUDENTS, ROOT, load, source, tags

ids = [p.name for p in NOTEBOOKS]


@pytest.fixture(scope="module")
def student_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("student")
    build_student.build(out, NOTEBOOKS)
    return out


@pytest.fixture(scope="module")
def html_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html")
    build_html.build(out, NOTEBOOKS)
    return out


@pytest.fixture(scope="module")
def student_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("student-html")
    build_html.build(out, NOTEBOOKS, student=True)
    return out


def page_lines(page: Path) -> set[str]:
    """The text lines a reader sees on an HTML page (tags removed, entities decoded)."""
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"<(script|style)\b.*?</\1>", "", text, flags=re.S)
    return {line.strip() for line in html.unescape(re.sub(r"<[^>]+>", "", text)).splitlines()}


def secret_lines(path: Path) -> set[str]:
    """Lines of solution cells that appear in no other cell of the source notebook."""
    cells = load(path)["cells"]
    public = {
        line.strip() for c in cells if "solution" not in tags(c) for line in source(c).splitlines()
    }
    return {
        line.strip()
        for c in cells
        if "solution" in tags(c)
        for line in source(c).splitlines()
        if line.strip() and not line.strip().startswith("###") and line.strip() not in public
    }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_student_copy_has_no_solution_code(student_dir: Path, path: Path) -> None:
    text = (student_dir / path.name).read_text(encoding="utf-8")
    assert BEGIN not in text and "END SOLUTION" not in text
    copy_lines = {
        line.strip() for cell in load(student_dir / path.name)["cells"]
        for line in source(cell).splitlines()
    }  # fmt: skip
    leaked = secret_lines(path) & copy_lines
    assert not leaked, f"solution lines leaked into the student copy: {sorted(leaked)[:3]}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_student_copy_keeps_every_other_cell_without_outputs(student_dir: Path, path: Path) -> None:
    removed = REMOVED_FOR_STUDENTS  # the build drops these (tools/build_student.py)
    expected = [source(c) for c in load(path)["cells"] if not tags(c) & removed]
    copy = load(student_dir / path.name)["cells"]
    # a reveal cell (tagged predict, comparing a guess) waits for it: one magic line on top
    waiting = [re.fullmatch(r"%%after_guess (\w+)\n", src.partition("\n")[0] + "\n")
               for src in map(source, copy)]
    for cell, wait in zip(copy, waiting, strict=True):
        if wait:
            assert "predict" in tags(cell), source(cell)
            assert re.search(rf"\bcompare\(\s*{wait.group(1)}\s*,", source(cell)), source(cell)
    assert [source(c).partition("\n")[2] if wait else source(c)
            for c, wait in zip(copy, waiting, strict=True)] == expected
    assert all(not c.get("outputs") for c in copy if c["cell_type"] == "code")
    stubs = [c for c in copy if "exercise" in tags(c)]
    assert len(stubs) >= 3 and all("raises-exception" in tags(c) for c in stubs)


def test_sources_are_untouched_by_the_student_build(tmp_path: Path) -> None:
    before = {p: p.read_bytes() for p in NOTEBOOKS}
    build_student.build(tmp_path / "copies", NOTEBOOKS)
    assert {p: p.read_bytes() for p in NOTEBOOKS} == before


@pytest.mark.parametrize("out", ["notebooks", "notebooks/student", "./notebooks/../notebooks"])
def test_building_into_notebooks_is_refused(out: str) -> None:
    result = subprocess.run(
        [sys.executable, "tools/build_student.py", "--out", out],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode != 0
    assert "notebooks/" in result.stderr and "build/student" in result.stderr


RUN_ELSEWHERE = {path.name for path in NOTEBOOKS if path.name[:2] <= "09"}
"""The student copies that tests/student_runs.py runs as built (for the reveal and build-step
tests): their errors are read from that run, below, and not run again under nbval."""


def test_student_copies_run_under_nbval_lax(student_dir: Path) -> None:
    others = [str(student_dir / p.name) for p in NOTEBOOKS if p.name not in RUN_ELSEWHERE]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-o", "addopts=", "-p", "no:cacheprovider",
         "--nbval-lax", "--nbval-current-env", *others],
        cwd=student_dir, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    assert re.search(r"\d+ passed", result.stdout)


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.name in RUN_ELSEWHERE],
                         ids=lambda p: p.name)
def test_student_copies_run_without_an_unexpected_error(
        path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """As nbval-lax judges a run: an error only in a cell tagged raises-exception (the stubs)."""
    book, _ = student_run(path.name[:2], "blank", "none", tmp_path_factory)
    assert any(c.cell_type == "code" and c.get("outputs") for c in book.cells)
    errors = [f"cell {i}: {o.get('ename')}: {o.get('evalue')}" for i, c in enumerate(book.cells)
              if c.cell_type == "code" and "raises-exception" not in c.metadata.get("tags", [])
              for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors


def test_student_checks_say_not_yet(tmp_path_factory: pytest.TempPathFactory) -> None:
    copy, _ = student_run(NOTEBOOKS[0].name[:2], "blank", "none", tmp_path_factory)
    checks = [c for c in copy.cells if c.cell_type == "code" and ".check(" in c.source]
    assert checks
    for cell in checks:
        shown = " ".join(str(o.get("data", {}).get("text/plain", "")) for o in cell.outputs)
        assert "Not yet" in shown, cell.source


def test_html_has_an_index_and_a_page_per_notebook(html_dir: Path) -> None:
    assert (html_dir / "index.html").exists()
    index = (html_dir / "index.html").read_text(encoding="utf-8")
    assert "$" not in index, "titles in the index are plain text, not TeX"
    for path in NOTEBOOKS:
        assert (html_dir / f"{path.stem}.html").exists()
        assert f'href="{path.stem}.html"' in index


def internal_links(page: Path) -> list[str]:
    hrefs = re.findall(r'(?:href|src)="([^"]+)"', page.read_text(encoding="utf-8"))
    return [
        h for h in hrefs
        if not re.match(r"(https?:|data:|mailto:|#|javascript:)", h) and not h.startswith("//")
    ]  # fmt: skip


def test_every_internal_link_resolves(html_dir: Path) -> None:
    for page in html_dir.glob("*.html"):
        for link in internal_links(page):
            target = html_dir / unquote(re.split(r"[#?]", link, maxsplit=1)[0])
            assert target.exists(), f"{page.name} links to missing {link}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_each_page_shows_its_images_and_navigation(html_dir: Path, path: Path) -> None:
    page = (html_dir / f"{path.stem}.html").read_text(encoding="utf-8")
    outputs = [o for c in load(path)["cells"] if c["cell_type"] == "code"
               for o in c.get("outputs", [])]  # fmt: skip
    n_images = sum("image/png" in o.get("data", {}) for o in outputs)
    # an explorer's stored picture becomes its live figure, whose frame is a file (issue 50)
    n_explorers = len(explorer_cells(nbformat.read(path, as_version=4)))
    assert n_images > 0
    assert page.count("data:image/png;base64") >= n_images - n_explorers
    assert page.count('class="explorer-frame"') == n_explorers
    assert page.count('href="index.html"') >= 2
    i = NOTEBOOKS.index(path)
    if i > 0:
        assert f'rel="prev" href="{NOTEBOOKS[i - 1].stem}.html"' in page
    if i < len(NOTEBOOKS) - 1:
        assert f'rel="next" href="{NOTEBOOKS[i + 1].stem}.html"' in page
    assert "widget-view+json" not in page or build_html.STATIC_NOTE in page


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_student_site_has_no_solution_line_and_no_solution_output(
    student_site: Path, html_dir: Path, path: Path
) -> None:
    secrets = secret_lines(path)
    assert secrets, "every notebook has solutions to hide"
    # The full course shows them (so the search below can find a leak) ...
    assert secrets <= page_lines(html_dir / f"{path.stem}.html")
    assert "✔ Correct" in (html_dir / f"{path.stem}.html").read_text(encoding="utf-8")
    # ... the student site shows none, nor the solutions' passing checks.
    page = student_site / f"{path.stem}.html"
    leaked = secrets & page_lines(page)
    assert not leaked, f"solution lines on the student site: {sorted(leaked)[:3]}"
    assert "✔ Correct" not in page.read_text(encoding="utf-8")
    assert BEGIN not in page.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.name[:2] in ("00", "10")],
                         ids=lambda p: p.name)
def test_student_site_folds_each_prediction_answer(student_site: Path, html_dir: Path,
                                                  path: Path) -> None:
    """Every reveal of a prediction is inside a closed <details> on the student site, and
    shown open on the full site."""
    cells = load(path)["cells"]
    reveals = [c for c in cells if "predict" in tags(c)]
    assert len(reveals) >= 4
    page = (student_site / f"{path.stem}.html").read_text(encoding="utf-8")
    folded = re.findall(r"<details><summary>[^<]*</summary>(.*?)</details>", page, re.S)
    assert len(folded) == len(reveals)
    for cell, inside in zip(reveals, folded, strict=True):
        text = "".join("".join(o.get("text", "")) for o in cell["outputs"])
        first = next((line for line in text.splitlines() if line.strip()), None)
        if first is not None:
            assert html.escape(first.strip()) in inside
    assert "<details><summary>" not in (html_dir / f"{path.stem}.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_student_copy_says_nothing_about_hidden_solutions(student_dir: Path, path: Path) -> None:
    cells = load(student_dir / path.name)["cells"]
    prose = "\n".join(source(c) for c in cells if c["cell_type"] == "markdown").lower()
    everything = "\n".join(source(c) for c in cells).lower()
    # the word, not a config field such as hidden_size
    assert not re.search(r"\bhidden\b", prose), f"{path.name} tells the learner something is hidden"
    assert "solution cell" not in everything, f"{path.name} mentions a solution cell"


@pytest.mark.parametrize("site", ["full", "student"])
def test_sites_load_nothing_from_outside(html_dir: Path, student_site: Path, site: str) -> None:
    folder = html_dir if site == "full" else student_site
    for page in folder.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        loaded = re.findall(r"<(?:script|link|img)\b[^>]*?(?:src|href)=\"([^\"]+)\"", text)
        outside = [u for u in loaded if re.match(r"(https?:)?//", u)]
        assert not outside, f"{page.name} loads {outside[:3]}"
    assert (folder / "mathjax" / "MathJax.js").exists()
    assert (folder / "course.css").exists()


GUIDE = ROOT / "notebooks" / "INSTRUCTORS.md"
FRAME = {"What you will learn", "What you need", "Summary", "Going further", "Exercises",
         "Further reading"}


def guide_section(title: str) -> str:
    """The text of the INSTRUCTORS.md section headed ``title``, up to the next heading."""
    text = GUIDE.read_text(encoding="utf-8")
    match = re.search(rf"^##+ {re.escape(title)}\n(.*?)(?=^##+ )", text, re.S | re.M)
    assert match, f"INSTRUCTORS.md has no section {title!r}"
    return match.group(1)


def table_rows(section: str) -> list[list[str]]:
    """The body rows of the first markdown table in ``section``, as lists of cells."""
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[2:]]


def headings(path: Path) -> list[str]:
    return [
        line.lstrip("#").strip()
        for cell in load(path)["cells"] if cell["cell_type"] == "markdown"
        for line in source(cell).splitlines() if re.match(r"^##+ ", line)
    ]  # fmt: skip


def test_plan_splits_every_notebook_into_core_and_optional_sections() -> None:
    rows = {row[0][:2]: row for row in table_rows(guide_section("Core and optional sections"))}
    assert sorted(rows) == [path.name[:2] for path in NOTEBOOKS]
    for path in NOTEBOOKS:
        _, core, optional = rows[path.name[:2]]
        listed = [
            s.removeprefix("Going further: ")  # the optional sections a notebook moved there
            for s in core.split(" · ") + optional.split(" · ")
            if not s.startswith("(")
        ]
        sections = [h for h in headings(path) if h not in FRAME]
        assert sorted(listed) == sorted(sections), path.name


def test_plan_has_ten_sessions_each_with_its_assignment() -> None:
    rows = table_rows(guide_section("A two-week plan: ten 90-minute sessions"))
    assert [row[0] for row in rows] == [str(i) for i in range(1, 11)]
    stems = {path.stem for path in NOTEBOOKS}
    assigned = [a for row in rows for a in re.findall(r"`(\d\d_\w+)`", row[-1])]
    assert set(assigned) <= stems and len(assigned) == len(set(assigned)) >= 10
    taught = {n for row in rows for n in re.findall(r"\b(\d\d) [A-Z]", row[1])}
    assert taught == {stem[:2] for stem in stems} - {"11"}


def test_rubric_weights_add_up_and_one_week_cut_has_five_sessions() -> None:
    weights = [int(row[1].rstrip("%")) for row in table_rows(guide_section("Rubric"))]
    assert sum(weights) == 100
    rows = table_rows(guide_section("A one-week version: five sessions"))
    assert [row[0] for row in rows] == [str(i) for i in range(1, 6)]
    assert "Cut:" in guide_section("A one-week version: five sessions")


def test_guide_gives_the_nbgrader_commands_the_test_runs() -> None:
    text = guide_section("Grading with nbgrader")
    for command in ("make nbgrader", "nbgrader generate_assignment", "nbgrader autograde",
                    "nbgrader generate_feedback", "cd build/nbgrader"):  # fmt: skip
        assert command in text



def test_every_session_adds_up_to_ninety_minutes() -> None:
    rows = table_rows(guide_section("Session timing"))
    assert [row[0] for row in rows] == ["1", "2-10"]
    for row in rows:
        minutes = [int(cell.split()[0]) for cell in row[1:4]]
        assert sum(minutes) == int(row[4]) == 90, row
    parts = re.findall(r"\d\d: (\d+)", rows[0][2])
    assert sum(map(int, parts)) == int(rows[0][2].split()[0])


def test_guide_says_who_gets_what_and_how_to_grade_safely() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    version = re.search(r'requires-python = ">=(3\.\d+)"', project).group(1)
    said = re.findall(r"Python (3\.\d+)", text)  # every version the guide names
    assert f"Python {version}**" in text and all(
        tuple(map(int, v.split("."))) >= tuple(map(int, version.split("."))) for v in said)
    for needed in ("make formgrader", "--network none", "40 students", "Homework weight",
                   "bubblewrap", "What was tested here", "**What the drawn"):
        assert needed in text, needed
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^formgrader: \$\(STAMP\)", makefile, re.M)
    assert "--LabApp.default_url=/formgrader" in makefile

# --- reveal cells: a cell right after a check that computes the exercise's answer ---------------

REVEAL_CELLS = {
    "00": {"2637cb2a"}, "01": {"0959dade"}, "02": {"d8395d33"}, "03": {"ex03-06", "ex03-19"},
    "04": {"ex04-14", "ex04-23"}, "05": {"ex05-22"}, "06": {"bc8ce052"}, "07": {"daad4f17"},
    "08": {"9b79723d", "f895e747", "c0ec9610"}, "09": {"bfff8b9e"}, "10": {"5a93c432"},
    "11": {"bf716aa5"},
}  # fmt: skip
"""The ids of the 16 reveal cells issue 26 lists (00 cell 46, 01 45, ..., 11 48 at the time)."""


def reveal_tagged(path: Path) -> set[str]:
    return {c["id"] for c in load(path)["cells"] if "reveal" in tags(c)}


def _printed_lines(cells: list[dict[str, Any]]) -> set[str]:
    """The text lines the cells print (10 characters or more; images' placeholders left out)."""
    lines = set()
    for cell in cells:
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            if output["output_type"] == "display_data":
                continue  # an image's placeholder text, not shown on a page
            text = "".join(text) if isinstance(text, list) else text
            lines |= {line.strip() for line in text.splitlines() if len(line.strip()) >= 10}
    return lines


def reveal_output_lines(path: Path) -> set[str]:
    """The lines only the reveal cells of ``path`` print (a line another cell prints too, such
    as a figure's caption, reveals nothing)."""
    cells = load(path)["cells"]
    reveal = [c for c in cells if c["id"] in REVEAL_CELLS[path.name[:2]]]
    others = [c for c in cells if c["id"] not in REVEAL_CELLS[path.name[:2]]]
    return _printed_lines(reveal) - _printed_lines(others)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_reveal_cells_are_tagged_and_follow_a_check(path: Path) -> None:
    assert reveal_tagged(path) == REVEAL_CELLS[path.name[:2]]
    cells = load(path)["cells"]
    for index, cell in enumerate(cells):
        if cell["id"] in REVEAL_CELLS[path.name[:2]]:
            assert ".check(" in source(cells[index - 1]), f"{path.name} cell {index}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_reveal_cell_in_the_student_copy_and_site(
    student_dir: Path, student_site: Path, html_dir: Path, path: Path
) -> None:
    copy_ids = {c["id"] for c in load(student_dir / path.name)["cells"]}
    assert not copy_ids & REVEAL_CELLS[path.name[:2]]
    revealed = reveal_output_lines(path)
    assert revealed, f"{path.name}: the reveal cells print something"
    # The full course shows them (so the search below can find a leak) ...
    assert revealed <= page_lines(html_dir / f"{path.stem}.html")
    # ... the student site shows none.
    leaked = revealed & page_lines(student_site / f"{path.stem}.html")
    assert not leaked, f"reveal outputs on the student site: {sorted(leaked)[:3]}"

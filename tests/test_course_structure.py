"""The shape every course notebook must have (DESIGN.md and the syllabus), checked on the files."""

from __future__ import annotations

import base64
import re
import struct
from pathlib import Path

import pytest

from tools.notebook_cells import BEGIN, END, NOTEBOOKS, ROOT, load, source, tags

FIRST_HEADINGS = ["What you will learn", "What you need"]
LAST_HEADINGS = ["Summary", "Exercises", "Further reading"]
GOING_FURTHER = "Going further"  # optional material, between Summary and Exercises
SCORECARD_NOTEBOOKS = {"00", "01", "02", "03", "07"}
PITFALL_NOTEBOOKS = {"02", "05"}  # the syllabus names pitfalls that arise there
ABSOLUTE_PATH = re.compile(r"(/home/|/root/|/tmp/|/work/|/usr/|[A-Z]:\\\\)")
MAX_CELL_LINES = 20

ids = [p.name for p in NOTEBOOKS]


def test_the_course_has_notebooks() -> None:
    assert NOTEBOOKS, "no notebooks/NN_*.ipynb found"
    for path in NOTEBOOKS:
        assert re.fullmatch(r"\d\d_[a-z0-9_]+\.ipynb", path.name), path.name


def headings(path: Path, level: int) -> list[str]:
    marker = "#" * level + " "
    found = []
    for cell in load(path)["cells"]:
        if cell["cell_type"] == "markdown":
            found += [line[len(marker) :].strip() for line in source(cell).splitlines()
                      if line.startswith(marker)]
    return found


def code_cells(path: Path) -> list[dict]:
    return [c for c in load(path)["cells"] if c["cell_type"] == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_title_and_section_headings(path: Path) -> None:
    cells = load(path)["cells"]
    assert cells[0]["cell_type"] == "markdown" and source(cells[0]).startswith("# ")
    assert len(headings(path, 1)) == 1, "one title per notebook"
    h2 = headings(path, 2)
    if GOING_FURTHER in h2:
        at = h2.index(GOING_FURTHER)
        assert h2[at - 1] == "Summary", "Going further comes right after the Summary"
        h2.remove(GOING_FURTHER)
    assert h2[:2] == FIRST_HEADINGS, f"notebook must open with {FIRST_HEADINGS}, has {h2[:2]}"
    assert h2[-3:] == LAST_HEADINGS, f"notebook must close with {LAST_HEADINGS}, has {h2[-3:]}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_three_to_five_objectives_and_cited_reading(path: Path) -> None:
    text = "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")
    learn = text.split("## What you will learn", 1)[1].split("\n## ", 1)[0]
    bullets = [line for line in learn.splitlines() if re.match(r"\s*[-*] ", line)]
    assert 3 <= len(bullets) <= 5, f"{len(bullets)} objectives"
    reading = text.split("## Further reading", 1)[1]
    assert re.search(r"(19|20)\d\d", reading), "further reading cites no dated paper"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_imports_from_posenc_lib(path: Path) -> None:
    assert any(
        re.search(r"^(from posenc_lib[\w.]* import|import posenc_lib)", source(c), re.M)
        for c in code_cells(path)
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_at_least_three_exercises_with_stub_solution_and_check(path: Path) -> None:
    cells = load(path)["cells"]
    exercises_at = next(i for i, c in enumerate(cells) if source(c).startswith("## Exercises"))
    stubs = [i for i, c in enumerate(cells) if "exercise" in tags(c)]
    solutions = [i for i, c in enumerate(cells) if "solution" in tags(c) and i > exercises_at]
    assert len(stubs) >= 3 and len(stubs) == len(solutions)
    for stub, solution in zip(stubs, solutions, strict=True):
        assert exercises_at < stub < solution, "stub, then solution, inside ## Exercises"
        body = source(cells[solution])
        assert body.lstrip().startswith(BEGIN) and body.rstrip().endswith(END)
        check = cells[solution + 1]
        assert check["cell_type"] == "code" and ".check(" in source(check)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_executed_with_outputs_and_no_errors(path: Path) -> None:
    cells = code_cells(path)
    assert all(c.get("execution_count") for c in cells), "every code cell has been run"
    outputs = [o for c in cells for o in c.get("outputs", [])]
    assert outputs, "outputs are stored"
    assert not [o for o in outputs if o.get("output_type") == "error"], "an error output is stored"
    assert any("image/png" in o.get("data", {}) for o in outputs), "no stored plot"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_no_absolute_paths_in_outputs(path: Path) -> None:
    for cell in code_cells(path):
        for output in cell.get("outputs", []):
            texts = [output.get("text", "")] + [
                v for k, v in output.get("data", {}).items() if k.startswith("text/")
            ]
            for text in texts:
                text = "".join(text) if isinstance(text, list) else text
                assert not ABSOLUTE_PATH.search(text), text[:200]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_widget_state_is_stripped(path: Path) -> None:
    assert "widgets" not in load(path)["metadata"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_explorer_cells_use_the_nbval_tag_not_a_comment(path: Path) -> None:
    cells = code_cells(path)
    live = [c for c in cells if ".widget()" in source(c)]
    assert live, "no explorer shown with .widget()"
    for cell in live:
        # DESIGN.md: nbval's cell tag, never a comment the learner sees
        assert "nbval-ignore-output" in tags(cell), "tag the explorer cell nbval-ignore-output"
    for cell in cells:
        assert "NBVAL_IGNORE_OUTPUT" not in source(cell), "use the cell tag, not a visible comment"


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_every_explorer_shows_one_live_picture_with_a_png_fallback(path: Path) -> None:
    """One output per explorer: the widget, plus a PNG and a short text where it cannot run."""
    cells = code_cells(path)
    for cell in cells:
        last = source(cell).rstrip().splitlines()[-1:] or [""]
        assert not re.fullmatch(r"\w+\.figure", last[0].strip()), (
            "show an explorer once, with .widget(), not its static figure as well"
        )
    for cell in (c for c in cells if source(c).rstrip().endswith(".widget()")):
        pictures = [o for o in cell["outputs"] if "image/png" in o.get("data", {})]
        views = [o for o in cell["outputs"] if WIDGET_VIEW in o.get("data", {})]
        assert len(pictures) == 1 and len(views) == 1 and pictures == views, source(cell)
        (output,) = pictures
        png = base64.b64decode(output["data"]["image/png"])
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk, read directly
        shown = output["metadata"]["image/png"]
        # drawn at twice the pixels of its CSS size: sharp on a high-density screen
        assert abs(2 * shown["width"] - width) <= 1 and abs(2 * shown["height"] - height) <= 1
        text = "".join(output["data"]["text/plain"])
        assert "explorer" in text and not text.startswith(("VBox(", "HBox(")), text[:80]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_small_cells_ending_without_semicolon(path: Path) -> None:
    for cell in code_cells(path):
        text = source(cell).rstrip()
        assert len(text.splitlines()) <= MAX_CELL_LINES, text[:120]
        assert not text.endswith(";"), "end plots with plt.show(), not ';' (nbval ignores it)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_scorecard_and_pitfalls_where_the_syllabus_asks(path: Path) -> None:
    number = path.name[:2]
    code = "\n".join(source(c) for c in code_cells(path))
    markdown = "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")
    if number in SCORECARD_NOTEBOOKS:
        assert "scorecard(" in code
    if number in PITFALL_NOTEBOOKS:
        assert "> **Common pitfall:**" in markdown


def test_readme_syllabus_links_every_notebook() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        row = re.search(rf"^\|.*\]\(notebooks/{re.escape(path.name)}\).*\|(.+)\|\s*$", readme, re.M)
        assert row and row.group(1).strip(), f"README's syllabus table lacks {path.name}"


# --- predict first, and a lesson short enough to read -------------------------------------------

NUMBERED = ["00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11"]
PREDICT_NOTEBOOKS = NUMBERED  # issue 21: every notebook, the gallery too
# Lesson prose: at most about 1,800 words; none above 2,200.
LESSON_WORDS = dict.fromkeys(NUMBERED, 1800)
MIN_CHECKPOINTS = 4


def by_number(numbers: list[str]) -> list[Path]:
    return [path for path in NOTEBOOKS if path.name[:2] in numbers]


def lesson_cells(cells: list[dict]) -> list[dict]:
    """The cells of the lesson: everything above "## Going further" or "## Exercises"."""
    end = next(
        i for i, c in enumerate(cells)
        if c["cell_type"] == "markdown"
        and source(c).startswith((f"## {GOING_FURTHER}", "## Exercises"))
    )  # fmt: skip
    return cells[:end]


def lesson_words(cells: list[dict]) -> int:
    """Words (runs of non-blank characters) in the markdown cells of the lesson."""
    return sum(len(source(c).split()) for c in lesson_cells(cells) if c["cell_type"] == "markdown")


def test_lesson_words_counts_the_prose_above_the_optional_part() -> None:
    cells = [
        {"cell_type": "markdown", "source": "# Title\n\nOne two three."},
        {"cell_type": "code", "source": "x = 1  # code is not prose"},
        {"cell_type": "markdown", "source": ["Four, ", "five $x$"]},
        {"cell_type": "markdown", "source": "## Going further\n\nNot counted."},
        {"cell_type": "markdown", "source": "## Exercises"},
    ]
    assert lesson_words(cells) == 8  # "#", "Title", "One", "two", "three.", "Four,", "five", "$x$"
    assert lesson_words(cells[:3] + cells[4:]) == 8
    assert lesson_words(cells[3:]) == 0


@pytest.mark.parametrize("path", by_number(list(LESSON_WORDS)), ids=lambda p: p.name)
def test_lesson_prose_is_short(path: Path) -> None:
    words = lesson_words(load(path)["cells"])
    assert words <= min(LESSON_WORDS[path.name[:2]], 2200), f"{words} words of lesson prose"


def is_prompt(cell: dict) -> bool:
    return cell["cell_type"] == "markdown" and source(cell).startswith("**Predict")


@pytest.mark.parametrize("path", by_number(PREDICT_NOTEBOOKS), ids=lambda p: p.name)
def test_predict_prompts_come_before_their_tagged_reveals(path: Path) -> None:
    """Each **Predict** prompt is followed by guess cells with no output, then its reveal.

    The reveal is the first code cell tagged ``predict`` after the prompt; nothing between them
    shows an output or is markdown, so the question is asked before anything answers it. Every
    reveal has its prompt, in the lesson and in Going further alike; where a guess cell asks
    for a value, the reveal compares the guess with the computed value (a question answered in
    words, such as "which scheme holds on which task", has no guess cell and its reveal shows
    the evidence).
    """
    cells = lesson_cells(load(path)["cells"])
    assert len([c for c in cells if is_prompt(c)]) >= MIN_CHECKPOINTS, "predict-first checkpoints"
    _check_prompts_and_reveals(cells)
    _check_prompts_and_reveals(load(path)["cells"][len(cells):])  # Going further: the same rule


def _check_prompts_and_reveals(cells: list[dict]) -> None:
    prompts = [i for i, c in enumerate(cells) if is_prompt(c)]
    reveals = [i for i, c in enumerate(cells) if "predict" in tags(c)]
    assert len(reveals) == len(prompts), "one reveal cell tagged 'predict' per prompt"
    for prompt, reveal in zip(prompts, reveals, strict=True):
        assert prompt < reveal, f"the reveal of cell {prompt} comes before it"
        between = cells[prompt + 1 : reveal]
        for cell in between:
            assert cell["cell_type"] == "code", f"cell {prompt}: text between prompt and reveal"
            assert not cell.get("outputs"), f"cell {prompt}: an output before the reveal"
            assert re.search(r"^\w+ = None\b", source(cell), re.M), "a guess cell: name = None"
        body = source(cells[reveal])
        assert "compare(" in body or not between, f"reveal {reveal} does not compare the guess"
        guesses = [re.match(r"(\w+) = None", source(c)).group(1) for c in between]
        assert all(g in body for g in guesses), f"reveal {reveal} ignores a guess"
        assert cells[reveal].get("outputs"), f"reveal {reveal} has no stored output"


def _png_width(data: str) -> int:
    """Pixel width of a base64 PNG (the IHDR chunk's first field)."""
    raw = base64.b64decode(data)
    return int(struct.unpack(">I", raw[16:20])[0])


def test_stored_pictures_are_sharp_on_a_2x_screen() -> None:
    """Issue 25: at least 95% of the stored pictures have 2 image pixels per CSS pixel shown
    (IPython's retina format: the shown width is in the output's metadata)."""
    sharp, pictures = 0, []
    for path in NOTEBOOKS:
        for cell in load(path)["cells"]:
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if "image/png" not in data:
                    continue
                shown = output.get("metadata", {}).get("image/png", {}).get("width")
                pixels = _png_width(data["image/png"])
                pictures.append(f"{path.name}: {pixels} px shown at {shown}")
                sharp += shown is not None and pixels >= 2 * shown - 1
    assert len(pictures) > 100
    assert sharp >= 0.95 * len(pictures), [p for p in pictures if "at None" in p][:10]


# --- build steps and the length of a notebook (issue 32) ----------------------------------------


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_build_steps_hold_a_stub_a_worked_version_and_a_check(path: Path) -> None:
    """Issue 32: a solution cell above the exercises is a build step: the stub cell just above
    it defines the same function and raises NotImplementedError (what the student copy keeps),
    the worked cell is source-only (so neither the student copy nor nbgrader keeps it), and the
    next cell checks the function (``nbNN.steps.<name>.check(``)."""
    cells = load(path)["cells"]
    exercises_at = next(i for i, c in enumerate(cells) if source(c).startswith("## Exercises"))
    for at in (i for i, c in enumerate(cells[:exercises_at]) if "solution" in tags(c)):
        body = source(cells[at])
        assert body.lstrip().startswith(BEGIN) and body.rstrip().endswith(END), at
        assert "source-only" in tags(cells[at]), f"cell {at}: tag the worked build step source-only"
        name = re.search(r"^def (\w+)\(", body, re.M).group(1)
        stub = source(cells[at - 1])
        assert re.match(rf"def {name}\(", stub) and "raise NotImplementedError" in stub, at
        check = source(cells[at + 1])
        checked = re.search(rf"nb\d\d\.steps\.\w+\.check\({name}\)", check)
        assert checked, f"cell {at + 1} does not check {name}"



# Cells above "## Going further" / "## Exercises" (the main path) and in all, per notebook:
# issue 32 asks for at most about 45 and, for 00-05, 85.
MAIN_PATH_CELLS = dict.fromkeys(("00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10"),
                                45)
ALL_CELLS = dict.fromkeys(("00", "01", "02", "03", "04", "05"), 85)


@pytest.mark.parametrize("path", by_number(list(MAIN_PATH_CELLS)), ids=lambda p: p.name)
def test_main_path_is_short(path: Path) -> None:
    cells = load(path)["cells"]
    assert len(lesson_cells(cells)) <= MAIN_PATH_CELLS[path.name[:2]], len(lesson_cells(cells))
    if path.name[:2] in ALL_CELLS:
        assert len(cells) <= ALL_CELLS[path.name[:2]], f"{len(cells)} cells in all"

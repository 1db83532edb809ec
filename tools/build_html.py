"""Render the course as a static site that works offline: a page per notebook and an index.

Usage::

    python tools/build_html.py [--out build/html]                     # the full course
    python tools/build_html.py --student [--out build/student-html]   # without solutions

Each page keeps the stored outputs (plots are embedded as images) and gets previous / index /
next links. Each explorer moves without Python: its cell's output is replaced by labelled native
controls and the frame the explorer drew, at build time and with its own code, for the values
chosen (tools/explorer_frames.py draws the frames once per build into build/explorer-frames/,
shared by both sites; tools/site_explorers.py writes the controls and the one script that swaps
the frames, ``explorers.js``). Any other widget output shows its stored picture and a note.
Links between notebooks (``NN_name.ipynb``) point at the pages. ``--student``
builds the student site: solution, source-only and reveal cells removed, the outputs of the
exercise and check cells cleared (``build_student.without_solutions``), and the answer of each
prediction (a cell tagged ``predict``) folded under "Show the answer", so that a reader meets the
question first and opens the answer deliberately.

Offline: nothing is loaded from outside the site. The formulas are typeset by MathJax 2.7, which
the PyPI package ``jupyter-server-mathjax`` (a dev dependency) ships; it is copied into
``<out>/mathjax/``. nbconvert's page template is kept, minus what it loads from a CDN (require.js,
MathJax and mermaid): the course's outputs need none of them. The style sheet ``course.css``
sets the typography and the navigation bar.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

import jupyter_server_mathjax
import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make tools/ importable
    sys.path.insert(0, str(ROOT))

from tools import explorer_frames, site_explorers  # noqa: E402
from tools.build_student import without_solutions  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
DEFAULT_OUT = ROOT / "build" / "html"
DEFAULT_STUDENT_OUT = ROOT / "build" / "student-html"
COURSE_TITLE = "Positional encoding, from binary counting to YaRN"
MATHJAX_SOURCE = Path(jupyter_server_mathjax.__file__).parent / "static"
MATHJAX_DIR = "mathjax"
MATHJAX_CONFIG = """\
<script type="text/x-mathjax-config">
MathJax.Hub.Config({
  tex2jax: {inlineMath: [["$", "$"], ["\\\\(", "\\\\)"]],
            displayMath: [["$$", "$$"], ["\\\\[", "\\\\]"]],
            processEscapes: true, processEnvironments: true},
  TeX: {equationNumbers: {autoNumber: "AMS", useLabelIds: true}},
  "HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null},
  displayAlign: "center",
  messageStyle: "none"
});
</script>
<script src="mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"></script>
"""
"""MathJax from the site's own folder. The bundled MathJax has the STIX web fonts only."""

PAGE_TEMPLATE = (
    """\
{%- extends "index.html.j2" -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}"""
    + MATHJAX_CONFIG
    + """{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block extra_css -%}<link rel="stylesheet" href="course.css"><link rel="icon" href="data:,">
{%- endblock extra_css -%}
"""
)
"""nbconvert's lab page, minus its CDN scripts, plus the local MathJax and the style sheet."""

STYLE = """\
:root { --accent: #1f5f8b; --muted: #5b6770; --rule: #d8dee4; }
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
       line-height: 1.6; color: #1d2328; margin: 0; background: #fff; }
main.course-index, body > .jp-Notebook { max-width: 58rem; margin: 0 auto; padding: 0 1.5rem; }
.jp-RenderedHTMLCommon { font-size: 1.02rem; line-height: 1.65; }
.jp-RenderedHTMLCommon h1, .jp-RenderedHTMLCommon h2, .jp-RenderedHTMLCommon h3,
main.course-index h1, main.course-index h2 { color: #12344d; line-height: 1.25; }
nav.course-nav { position: sticky; top: 0; z-index: 10; display: flex; flex-wrap: wrap;
                 gap: 0.4rem 1.2rem; align-items: center; padding: 0.6rem 1.5rem;
                 background: #f4f7fa; border-bottom: 1px solid var(--rule);
                 font-size: 0.95rem; }
nav.course-nav.bottom { position: static; border-top: 1px solid var(--rule);
                        border-bottom: none; margin-top: 2rem; }
nav.course-nav a { color: var(--accent); text-decoration: none; }
nav.course-nav a:hover { text-decoration: underline; }
nav.course-nav .edition { margin-left: auto; color: var(--muted); }
table.syllabus { border-collapse: collapse; width: 100%; margin: 1rem 0 2rem; }
table.syllabus th, table.syllabus td { text-align: left; padding: 0.5rem 0.7rem;
                                       border-bottom: 1px solid var(--rule); vertical-align: top; }
table.syllabus th { color: var(--muted); font-weight: 600; }
table.syllabus a { color: var(--accent); font-weight: 600; text-decoration: none; }
p.lead { font-size: 1.1rem; color: #33404a; }
/* WCAG AA contrast, at least 4.5:1: JupyterLab's light theme draws the prompts of cells never
   run ("[ ]:") in #616161 at half opacity (#b0b0b0 on white, 2.16:1), and some code colours on the
   code background #f5f5f5 fall short (comments 4.17, numbers 4.26, operators 4.40). The page
   defines these variables on :root after this sheet; html:root, more specific, overrides them. */
html:root { --jp-cell-prompt-not-active-opacity: 1; --jp-cell-inprompt-font-color: #1a6fb0;
            --jp-cell-outprompt-font-color: #a34a2f; --jp-mirror-editor-comment-color: #3a7373;
            --jp-mirror-editor-number-color: #007a00; --jp-mirror-editor-operator-color: #9015d9;
            --jp-mirror-editor-meta-color: #9015d9; --jp-mirror-editor-atom-color: #5c5ccc;
            --jp-mirror-editor-bracket-color: #6b6b46; --jp-mirror-editor-quote-color: #007800;
            --jp-mirror-editor-error-color: #c00000; }
/* MathJax's hidden MathML copy (for screen readers) would ask for TeX fonts the bundle lacks. */
.MJX_Assistive_MathML, .MJX_Assistive_MathML * { font-family: inherit !important; }
"""
"""The site's style sheet: readable width, a sans-serif text face and a sticky navigation bar."""
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
STATIC_NOTE = (
    "Interactive explorer: run this notebook in JupyterLab to move its sliders. "
    "The picture above shows its default view."
)


def without_live_widgets(
    notebook: nbformat.NotebookNode, explorers: Mapping[int, str] | None = None
) -> nbformat.NotebookNode:
    """Replace each widget output of cell ``i`` by ``explorers[i]`` (an explorer's HTML) or,
    for a cell not in ``explorers``, by its stored PNG fallback and a short note."""
    copy = nbformat.from_dict(notebook)
    explorers = explorers or {}
    for index, cell in enumerate(copy.cells):
        if cell.cell_type != "code":
            continue
        outputs = []
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_MIME in data and index in explorers:
                output = nbformat.v4.new_output("display_data",
                                                data={"text/html": explorers[index]})
            elif WIDGET_MIME in data:
                if "image/png" in data:
                    picture = {k: v for k, v in data.items() if k in ("image/png", "text/plain")}
                    metadata = {"image/png": output.get("metadata", {}).get("image/png", {})}
                    outputs.append(
                        nbformat.v4.new_output("display_data", data=picture, metadata=metadata)
                    )
                output = nbformat.v4.new_output("stream", name="stdout", text=STATIC_NOTE + "\n")
            outputs.append(output)
        cell.outputs = outputs
    copy.metadata.pop("widgets", None)
    return copy


PREDICT_SUMMARY = "Show the answer (make your prediction first)"


def _output_html(output: nbformat.NotebookNode) -> str:
    """One stored output as plain HTML: text in <pre>, a PNG as an inline image."""
    data = output.get("data", {})
    if "image/png" in data:
        return f'<img alt="figure" src="data:image/png;base64,{data["image/png"].strip()}">'
    text = output.get("text") or data.get("text/plain", "")
    text = "".join(text) if isinstance(text, list) else text
    return f"<pre>{html.escape(text)}</pre>" if text else ""


def folded_predictions(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy where the outputs of each ``predict`` cell sit in a closed <details> element."""
    copy = nbformat.from_dict(notebook)
    for cell in copy.cells:
        if cell.cell_type == "code" and "predict" in cell.metadata.get("tags", []):
            inner = "".join(_output_html(output) for output in cell.get("outputs", []))
            if inner:
                folded = f"<details><summary>{PREDICT_SUMMARY}</summary>{inner}</details>"
                cell.outputs = [nbformat.v4.new_output("display_data",
                                                       data={"text/html": folded})]
    return copy


def title_of(notebook: nbformat.NotebookNode, fallback: str) -> str:
    for cell in notebook.cells:
        match = re.search(r"^# (.+)$", cell.source, re.M) if cell.cell_type == "markdown" else None
        if match:
            return match.group(1).replace("$", "").strip()  # plain text for links and titles
    return fallback


def navigation(pages: list[tuple[str, str]], index: int, edition: str, where: str = "top") -> str:
    """Previous / index / next links for page ``index`` of ``pages`` [(file, title), ...]."""
    links = []
    if index > 0:
        name, title = pages[index - 1]
        links.append(f'<a rel="prev" href="{name}">← {html.escape(title)}</a>')
    links.append('<a href="index.html">Course index</a>')
    if index < len(pages) - 1:
        name, title = pages[index + 1]
        links.append(f'<a rel="next" href="{name}">{html.escape(title)} →</a>')
    links.append(f'<span class="edition">{html.escape(edition)}</span>')
    classes = "course-nav" if where == "top" else "course-nav bottom"
    return f'<nav class="{classes}">' + "".join(links) + "</nav>"


def link_pages(body: str) -> str:
    """Point links to sibling notebooks at their HTML pages."""
    return re.sub(r'href="(\d\d_[\w-]+)\.ipynb', r'href="\1.html', body)


def index_page(pages: list[tuple[str, str]], descriptions: dict[str, str], student: bool) -> str:
    rows = "".join(
        f'<tr><td><a href="{name}">{html.escape(title)}</a></td>'
        f"<td>{html.escape(descriptions.get(name[:-5], ''))}</td></tr>"
        for name, title in pages
    )
    about = (
        "The student edition: every lesson with its figures, and each exercise with its "
        "prompt and starting cell. Open the notebooks in JupyterLab to answer them and run "
        "the checks."
        if student
        else "The full course, rendered with every output and worked solution. Run the "
        "notebooks in JupyterLab to use the exercise checks."
    ) + (" The explorers move on these pages, through pictures drawn when the site was built; "
         "in JupyterLab they take every value.")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1.0">'
        f'<title>{COURSE_TITLE}</title><link rel="stylesheet" href="course.css">'
        '<link rel="icon" href="data:,"></head><body>'
        f'<nav class="course-nav"><a href="index.html">Course index</a>'
        f'<a href="{pages[0][0]}">Start: {html.escape(pages[0][1])} →</a>'
        f'<span class="edition">{edition_name(student)}</span></nav>'
        f'<main class="course-index"><h1>{COURSE_TITLE}</h1><p class="lead">{about}</p>'
        '<h2>Syllabus</h2><table class="syllabus"><tr><th>notebook</th>'
        f"<th>what you learn</th></tr>{rows}</table></main></body></html>"
    )


def edition_name(student: bool) -> str:
    return "Student edition" if student else "Full course with solutions"


def bundle_mathjax(out: Path) -> Path:
    """Copy the MathJax that ``jupyter-server-mathjax`` ships into ``out``/mathjax/."""
    target = out / MATHJAX_DIR
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(MATHJAX_SOURCE, target)
    return target


def readme_descriptions() -> dict[str, str]:
    """One-line descriptions from README's syllabus table, by notebook stem."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\|.*\]\(notebooks/(\d\d_\w+)\.ipynb\)\s*\|\s*(.+?)\s*\|\s*$", text, re.M)
    return dict(rows)


def live_explorers(notebooks: list[nbformat.NotebookNode], out: Path) -> list[dict[int, str]]:
    """The HTML of every explorer, by notebook and cell index; their frames (drawn, or taken
    from build/explorer-frames/) are copied into ``out``/explorers/."""
    calls = [explorer_frames.explorer_cells(notebook) for notebook in notebooks]
    folders = explorer_frames.ensure([call for cells in calls for call in cells.values()])
    site_explorers.copy_frames(list(folders.values()), out)
    pages, number = [], 0
    for cells in calls:
        page = {}
        for index, call in cells.items():
            number += 1
            where = f"{site_explorers.FRAMES_DIR}/{folders[call].name}"
            manifest = explorer_frames.manifest(folders[call])
            page[index] = site_explorers.explorer_html(manifest, where, number)
        pages.append(page)
    return pages


def build(out: Path, sources: list[Path], student: bool = False) -> list[Path]:
    """Write one page per notebook, index.html, course.css and mathjax/ into ``out``.

    With ``student=True`` the pages leave out the solutions (see the module docstring).
    Returns the HTML pages written, the index first.
    """
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(
        template_name="lab",
        extra_loaders=[DictLoader({"course.html.j2": PAGE_TEMPLATE})],
        template_file="course.html.j2",
    )
    notebooks = [nbformat.read(path, as_version=4) for path in sources]
    if student:
        notebooks = [folded_predictions(without_solutions(nb)) for nb in notebooks]
    pages = [
        (f"{path.stem}.html", title_of(nb, path.stem))
        for path, nb in zip(sources, notebooks, strict=True)
    ]
    explorers = live_explorers(notebooks, out)
    written = []
    for i, notebook in enumerate(notebooks):
        body, _ = exporter.from_notebook_node(without_live_widgets(notebook, explorers[i]))
        if explorers[i]:
            body = body.replace("</body>", f'<script src="{site_explorers.SCRIPT_NAME}"></script>'
                                "</body>", 1)
        edition = edition_name(student)
        nav = navigation(pages, i, edition)
        opening = re.search(r"<body[^>]*>", body)
        assert opening, "nbconvert's page has a <body>"
        body = link_pages(body[: opening.end()] + nav + body[opening.end() :])
        body = body.replace("</body>", navigation(pages, i, edition, "bottom") + "</body>", 1)
        target = out / pages[i][0]
        target.write_text(body, encoding="utf-8")
        written.append(target)
    index = out / "index.html"
    index.write_text(index_page(pages, readme_descriptions(), student), encoding="utf-8")
    (out / "course.css").write_text(STYLE + site_explorers.STYLE, encoding="utf-8")
    (out / site_explorers.SCRIPT_NAME).write_text(site_explorers.SCRIPT, encoding="utf-8")
    bundle_mathjax(out)
    return [index, *written]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        help="output folder (default: build/html, or build/student-html with --student)",
    )
    parser.add_argument("--student", action="store_true", help="leave out the solutions")
    args = parser.parse_args(argv)
    if args.out is None:
        args.out = DEFAULT_STUDENT_OUT if args.student else DEFAULT_OUT
    written = build(args.out, sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")), args.student)
    print(f"{len(written)} pages written to {args.out} (open {args.out / 'index.html'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Render the course as a static site: one HTML page per notebook, with outputs, and an index.

Usage::

    python tools/build_html.py [--out build/html]

Each page keeps every stored output (plots are embedded as images, equations are typeset by
MathJax in the reader's browser) and gets previous / index / next links. A live explorer cannot
run in a static page, so its output shows the picture stored with it (its ``image/png``
fallback, the explorer's default view) and a note saying how to move its controls. Links
between notebooks (``NN_name.ipynb``) point at the pages.
"""

from __future__ import annotations

import argparse
import html
import re
import sys
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
DEFAULT_OUT = ROOT / "build" / "html"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
STATIC_NOTE = (
    "Interactive explorer: run this notebook in JupyterLab to move its sliders. "
    "The picture above shows its default view."
)


def without_live_widgets(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Replace each widget output by its stored PNG fallback and a short note."""
    copy = nbformat.from_dict(notebook)
    for cell in copy.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_MIME in data:
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


def title_of(notebook: nbformat.NotebookNode, fallback: str) -> str:
    for cell in notebook.cells:
        match = re.search(r"^# (.+)$", cell.source, re.M) if cell.cell_type == "markdown" else None
        if match:
            return match.group(1).replace("$", "").strip()  # plain text for links and titles
    return fallback


def navigation(pages: list[tuple[str, str]], index: int) -> str:
    """Previous / index / next links for page ``index`` of ``pages`` [(file, title), ...]."""
    links = []
    if index > 0:
        name, title = pages[index - 1]
        links.append(f'<a rel="prev" href="{name}">← {html.escape(title)}</a>')
    links.append('<a href="index.html">Course index</a>')
    if index < len(pages) - 1:
        name, title = pages[index + 1]
        links.append(f'<a rel="next" href="{name}">{html.escape(title)} →</a>')
    return '<nav class="course-nav" style="margin:1em 0">' + " · ".join(links) + "</nav>"


def link_pages(body: str) -> str:
    """Point links to sibling notebooks at their HTML pages."""
    return re.sub(r'href="(\d\d_[\w-]+)\.ipynb', r'href="\1.html', body)


def index_page(pages: list[tuple[str, str]], descriptions: dict[str, str]) -> str:
    rows = "".join(
        f'<tr><td><a href="{name}">{html.escape(title)}</a></td>'
        f"<td>{html.escape(descriptions.get(name[:-5], ''))}</td></tr>"
        for name, title in pages
    )
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        "<title>Positional encoding, from binary counting to YaRN</title></head>"
        '<body style="font-family:sans-serif;max-width:60em;margin:2em auto">'
        "<h1>Positional encoding, from binary counting to YaRN</h1>"
        "<p>The course, rendered with every output. Run the notebooks to use the explorers "
        "and the exercise checks.</p><h2>Syllabus</h2>"
        f"<table><tr><th>notebook</th><th>what you learn</th></tr>{rows}</table></body></html>"
    )


def readme_descriptions() -> dict[str, str]:
    """One-line descriptions from README's syllabus table, by notebook stem."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\|.*\]\(notebooks/(\d\d_\w+)\.ipynb\)\s*\|\s*(.+?)\s*\|\s*$", text, re.M)
    return dict(rows)


def build(out: Path, sources: list[Path]) -> list[Path]:
    """Write one page per notebook and index.html into ``out``; return the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(template_name="lab")
    notebooks = [nbformat.read(path, as_version=4) for path in sources]
    pages = [
        (f"{path.stem}.html", title_of(nb, path.stem))
        for path, nb in zip(sources, notebooks, strict=True)
    ]
    written = []
    for i, notebook in enumerate(notebooks):
        body, _ = exporter.from_notebook_node(without_live_widgets(notebook))
        nav = navigation(pages, i)
        opening = re.search(r"<body[^>]*>", body)
        assert opening, "nbconvert's page has a <body>"
        body = link_pages(body[: opening.end()] + nav + body[opening.end() :])
        body = body.replace("</body>", nav + "</body>", 1)
        target = out / pages[i][0]
        target.write_text(body, encoding="utf-8")
        written.append(target)
    index = out / "index.html"
    index.write_text(index_page(pages, readme_descriptions()), encoding="utf-8")
    return [index, *written]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    args = parser.parse_args(argv)
    written = build(args.out, sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")))
    print(f"{len(written)} pages written to {args.out} (open {args.out / 'index.html'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The static course sites work offline: every page typesets its formulas with no network.

Both sites (``make html``: the full course, ``make student``: the student edition) are built
into a temporary folder and served from 127.0.0.1. Chromium loads every page with every request
outside that server blocked, and the test asserts that:

- the formulas are typeset: MathJax rendered one element per formula of the notebook's markdown,
  no formula failed, and no raw ``$...$`` is left in the visible markdown text;
- nothing was requested from outside the site, and no request of the site failed;
- axe-core, the accessibility engine of the browsers' audits, finds no serious or critical
  violation on the typeset page (issue 32; test_site_axe.py checks the index pages and that
  the check can fail). The page is loaded once for both checks.

Run: ``bash tools/e2e_setup.sh && .venv/bin/pytest tests/e2e/test_site_offline.py -m e2e``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from e2e_course import REPO, SITES

pytestmark = pytest.mark.e2e

NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
RAW_MATH = re.compile(r"\$[^$\n]+\$")
TYPESET_TIMEOUT_MS = 120_000
IN_PAGE = ("data:", "about:", "blob:")
"""URLs that load nothing from a server (MathJax opens an about:blank frame)."""

WAIT_FOR_MATHJAX = """
() => new Promise((resolve) => {
  const start = Date.now();
  const poll = () => {
    if (window.MathJax && MathJax.Hub && MathJax.isReady) {
      MathJax.Hub.Queue(() => resolve(true));
    } else if (Date.now() - start > 60000) {
      resolve(false);
    } else {
      setTimeout(poll, 100);
    }
  };
  poll();
})
"""

PAGE_FACTS = """
() => {
  const markdown = [...document.querySelectorAll(".jp-MarkdownCell .jp-RenderedMarkdown")];
  return {
    tex: document.querySelectorAll('script[type^="math/tex"]').length,
    rendered: document.querySelectorAll(".MathJax, .MathJax_Display").length,
    errors: document.querySelectorAll(".MathJax .merror, .MathJax_Error").length,
    text: markdown.map((element) => element.innerText).join("\\n"),
  };
}
"""


def markdown_formulas(path: Path) -> int:
    """How many ``$...$`` or ``$$...$$`` formulas the notebook's markdown cells hold."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    text = re.sub(r"```.*?```|`[^`\n]*`", "", text, flags=re.S)  # code is not math
    display = re.findall(r"\$\$.+?\$\$", text, flags=re.S)
    text = re.sub(r"\$\$.+?\$\$", "", text, flags=re.S)
    return len(display) + len(re.findall(r"(?<!\\)\$[^$\n]+?(?<!\\)\$", text))


BLOCKING = {"serious", "critical"}
"""The axe-core impacts that fail a page (colour contrast is WCAG AA: 4.5:1 for text)."""


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's violations on ``page`` (every rule axe runs by default). axe-core is the
    ``axe.min.js`` the PyPI package ``axe-playwright-python`` ships (a dev dependency, pinned in
    constraints.txt): nothing is downloaded when the test runs."""
    from axe_playwright_python.sync_playwright import Axe

    return Axe().run(page).response["violations"]


def serious_violations(violations: list[dict[str, Any]]) -> list[str]:
    """One line per blocking rule: id, impact, number of elements and the first one."""
    return [
        f"{v['id']} ({v['impact']}): {len(v['nodes'])} elements, first "
        f"{v['nodes'][0]['target']}: {v['nodes'][0].get('failureSummary', '')[:200]}"
        for v in violations if v["impact"] in BLOCKING
    ]  # fmt: skip


def open_offline(browser: Any, url: str, origin: str) -> tuple[Any, Any, dict[str, list[str]]]:
    """Open ``url`` with every request outside ``origin`` blocked; return the log of requests."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    log: dict[str, list[str]] = {"blocked": [], "failed": [], "local": []}

    def route(request_route: Any) -> None:
        request_url = request_route.request.url
        if request_url.startswith((origin + "/", *IN_PAGE)):
            log["local"].append(request_url)
            request_route.continue_()
        else:
            log["blocked"].append(request_url)
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on(
        "response",
        lambda response: (
            log["failed"].append(f"{response.status} {response.url}")
            if response.status >= 400
            else None
        ),
    )
    page.on(
        "requestfailed",
        lambda request: (
            None if request.url.startswith(IN_PAGE) else log["failed"].append(request.url)
        ),
    )
    page.goto(url, wait_until="load", timeout=TYPESET_TIMEOUT_MS)
    return context, page, log


@pytest.mark.parametrize("site", list(SITES))
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem[:2] for p in NOTEBOOKS])
def test_page_typesets_its_formulas_offline_and_passes_axe(
    browser: Any, site_root: tuple[Path, str], site: str, notebook: Path
) -> None:
    root, origin = site_root
    context, page, log = open_offline(browser, f"{origin}/{site}/{notebook.stem}.html", origin)
    try:
        assert page.evaluate(WAIT_FOR_MATHJAX), "MathJax did not load from the site"
        page.wait_for_load_state("networkidle")
        facts = page.evaluate(PAGE_FACTS)
        violations = axe_violations(page)
    finally:
        context.close()
    assert not log["blocked"], f"requested from outside the site: {log['blocked'][:5]}"
    assert not log["failed"], f"failed requests: {log['failed'][:5]}"
    assert any("/mathjax/MathJax.js" in url for url in log["local"])
    expected = markdown_formulas(notebook)
    assert expected > 0, "every notebook of the course has formulas"
    assert facts["tex"] >= expected, f"MathJax found {facts['tex']} formulas, expected {expected}"
    assert facts["rendered"] >= facts["tex"], "some formulas were not typeset"
    assert facts["errors"] == 0, "MathJax reported TeX errors"
    raw = RAW_MATH.findall(facts["text"])
    assert not raw, f"raw TeX left on the page: {raw[:3]}"
    blocking = serious_violations(violations)
    assert not blocking, "\n".join(blocking)


@pytest.mark.parametrize("site", list(SITES))
def test_index_is_styled_and_local(browser: Any, site_root: tuple[Path, str], site: str) -> None:
    root, origin = site_root
    context, page, log = open_offline(browser, f"{origin}/{site}/index.html", origin)
    try:
        font = page.evaluate("getComputedStyle(document.body).fontFamily")
        links = page.eval_on_selector_all("table.syllabus a", "els => els.map(e => e.href)")
        nav_position = page.eval_on_selector("nav.course-nav", "e => getComputedStyle(e).position")
    finally:
        context.close()
    assert not log["blocked"] and not log["failed"], log
    assert font.split(",")[0].strip() == "system-ui", f"unstyled text face: {font}"
    assert nav_position == "sticky"
    assert [link.rsplit("/", 1)[1] for link in links] == [f"{p.stem}.html" for p in NOTEBOOKS]

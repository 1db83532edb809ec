"""The static course sites pass axe-core with no serious or critical violation (issue 32).

Both sites (``make html`` and ``make student``) are built and served as in
test_site_offline.py; every page is loaded in Chromium, typeset, and checked by axe-core, the
accessibility engine of the browsers' audits. axe-core is the ``axe.min.js`` the PyPI package
``axe-playwright-python`` ships (a dev dependency, pinned in constraints.txt): nothing is
downloaded when the test runs. Colour contrast is WCAG AA: 4.5:1 for text.

Run: ``bash tools/e2e_setup.sh && .venv/bin/pytest tests/e2e/test_site_axe.py -m e2e``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from e2e_course import SITES
from test_site_offline import NOTEBOOKS, WAIT_FOR_MATHJAX, open_offline

pytestmark = pytest.mark.e2e

BLOCKING = {"serious", "critical"}
PAGES = ["index", *(p.stem for p in NOTEBOOKS)]


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's violations on ``page`` (every rule axe runs by default)."""
    from axe_playwright_python.sync_playwright import Axe

    return Axe().run(page).response["violations"]


def summary(violations: list[dict[str, Any]]) -> list[str]:
    """One line per blocking rule: id, impact, number of elements and the first one."""
    return [
        f"{v['id']} ({v['impact']}): {len(v['nodes'])} elements, first "
        f"{v['nodes'][0]['target']}: {v['nodes'][0].get('failureSummary', '')[:200]}"
        for v in violations if v["impact"] in BLOCKING
    ]  # fmt: skip


@pytest.mark.parametrize("site", list(SITES))
@pytest.mark.parametrize("name", PAGES, ids=[p[:2] if p != "index" else p for p in PAGES])
def test_page_has_no_serious_accessibility_violation(
    browser: Any, site_root: tuple[Path, str], site: str, name: str,
) -> None:
    _, origin = site_root
    context, page, log = open_offline(browser, f"{origin}/{site}/{name}.html", origin)
    try:
        if name != "index":
            assert page.evaluate(WAIT_FOR_MATHJAX), "MathJax did not load from the site"
        violations = axe_violations(page)
    finally:
        context.close()
    assert not log["blocked"], f"requested from outside the site: {log['blocked'][:5]}"
    blocking = summary(violations)
    assert not blocking, "\n".join(blocking)


def test_axe_finds_the_low_contrast_it_is_meant_to_find(browser: Any) -> None:
    """The check can fail: text at #b0b0b0 on white (2.16:1) is a serious violation."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_content(
            '<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><main>'
            '<p style="color:#b0b0b0;background:#fff">[ ]:</p></main></body></html>'
        )
        violations = axe_violations(page)
    finally:
        context.close()
    assert any(
        v["id"] == "color-contrast" and v["impact"] == "serious" for v in violations
    ), violations

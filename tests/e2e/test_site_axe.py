"""The static course sites pass axe-core with no serious or critical violation (issue 32).

Both sites (``make html`` and ``make student``) are built and served as in
test_site_offline.py, whose per-notebook test runs axe-core on every notebook page once its
formulas are typeset (one page load for both checks). This file checks the two index pages,
and that the check can fail at all. Colour contrast is WCAG AA: 4.5:1 for text.

Run: ``bash tools/e2e_setup.sh && .venv/bin/pytest tests/e2e/test_site_axe.py -m e2e``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from e2e_course import SITES
from test_site_offline import axe_violations, open_offline, serious_violations

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("site", list(SITES))
def test_index_has_no_serious_accessibility_violation(
    browser: Any, site_root: tuple[Path, str], site: str,
) -> None:
    _, origin = site_root
    context, page, log = open_offline(browser, f"{origin}/{site}/index.html", origin)
    try:
        violations = axe_violations(page)
    finally:
        context.close()
    assert not log["blocked"], f"requested from outside the site: {log['blocked'][:5]}"
    blocking = serious_violations(violations)
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
    assert serious_violations(violations), "the summary lists the serious violation"

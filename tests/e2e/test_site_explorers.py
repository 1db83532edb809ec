"""The explorers move on the offline sites, opened from ``file://`` (issue 50).

Both sites are built by the project's tool (``make html``: the full course, ``make student``: the
student edition; the frames come from build/explorer-frames/, drawn once). Their explorers are
the same bytes (script, frames, figures: checked first), so the browser moves the student
site's only. On every page with an explorer, in one headless Chromium, the test presses
ArrowRight on every range (and ArrowLeft to come back), End, Home, Page Up and Page Down on the
page's first range, changes every select and checkbox and changes it back, and asserts:

- each change shows another picture, and coming back shows the first again; every picture shown
  loads (its natural width is the frame's);
- a range's ``aria-valuetext`` and its ``<output>`` show the value the frame was drawn for (the
  page's own data), never the index; every control has an accessible name (its label);
- the polite live region says the new picture's alt text once after a burst of key presses;
- every request is a ``file://`` one (no network, no server); no page error (an uncaught
  exception), no console error from the explorers' script, no failed request.

Run: ``bash tools/e2e_setup.sh && .venv/bin/pytest -n 0 tests/e2e/test_site_explorers.py -m e2e``.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from conftest import build_site
from e2e_course import REPO

pytestmark = pytest.mark.e2e

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
from tools.explorer_frames import explorer_cells  # noqa: E402
from tools.site_explorers import FRAMES_DIR, SCRIPT_NAME  # noqa: E402

EXPLORERS = {
    path.stem: len(explorer_cells(nbformat.read(path, as_version=4)))
    for path in sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
}
IN_PAGE = ("data:", "about:", "blob:")
"""URLs that load nothing from anywhere (MathJax's font test asks for about:blank: over file://
Chromium refuses that font and logs it, which the test leaves to MathJax)."""
PAGES = [stem for stem, count in EXPLORERS.items() if count]
"""The notebooks with an explorer, whose pages must move it."""

FIGURE_FACTS = """
(figure) => {
  const image = figure.querySelector("img.explorer-frame");
  const data = JSON.parse(figure.querySelector("script.explorer-data").textContent);
  const controls = [...figure.querySelectorAll("input, select")].map((c) => ({
    id: c.id, type: c.type, tag: c.tagName, value: c.value, checked: c.checked,
    valuetext: c.getAttribute("aria-valuetext"),
    output: c.type === "range" ? document.getElementById(c.id + "-value").textContent : null,
    name: (c.labels && c.labels.length) ? c.labels[0].textContent : "",
  }));
  return {src: image.getAttribute("src"), alt: image.alt, complete: image.complete,
          width: image.naturalWidth, data: data, controls: controls};
}
"""

WAIT_LOADED = """
(figure) => {
  const image = figure.querySelector("img.explorer-frame");
  return image.complete && image.naturalWidth > 0;
}
"""


def _open(browser: Any, url: str) -> tuple[Any, Any, list[str], list[str]]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    # the formulas are not typeset (test_site_offline.py checks them): MathJax's typesetting
    # would take the CPU the key presses need
    context.add_init_script("window.MathJax = {skipStartupTypeset: true};")
    page = context.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    page.on("console", lambda m: errors.append(f"console: {m.text}")
            if m.type in ("error", "assert") and SCRIPT_NAME in (m.location or {}).get("url", "")
            else None)
    # ERR_ABORTED: a frame the page stopped loading because the control moved on meanwhile
    page.on("requestfailed", lambda r: None if r.url.startswith(IN_PAGE)
            or "ERR_ABORTED" in str(r.failure) else errors.append(f"failed: {r.url} {r.failure}"))
    page.goto(url, wait_until="load")
    return context, page, requests, errors


def _facts(page: Any, figure: Any) -> dict[str, Any]:
    page.wait_for_function(WAIT_LOADED, arg=figure, timeout=10_000)
    return dict(figure.evaluate(FIGURE_FACTS))


def _check_values_shown(facts: dict[str, Any]) -> None:
    """aria-valuetext and <output> are the value of the control's index, not the index."""
    ranges = [c for c in facts["controls"] if c["type"] == "range"]
    shown = [c["shown"] for c, raw in zip(facts["data"]["controls"], facts["controls"], strict=True)
             if raw["type"] == "range"]
    for control, values in zip(ranges, shown, strict=True):
        assert control["valuetext"] == values[int(control["value"])] == control["output"], control


def _changed_and_back(page: Any, figure: Any, control: dict[str, Any],
                      change: Any, back: Any) -> tuple[str, str]:
    """Apply ``change`` then ``back``: the picture changes, then is the first one again."""
    first = _facts(page, figure)
    change()
    moved = _facts(page, figure)
    assert moved["src"] != first["src"], f"{control['id']}: the picture did not change"
    assert moved["width"] == first["width"]
    _check_values_shown(moved)
    back()
    again = _facts(page, figure)
    assert again["src"] == first["src"], f"{control['id']}: the picture did not come back"
    _check_values_shown(again)
    return first["src"], moved["src"]


def _value(page: Any, figure: Any, handle: Any) -> int:
    """The range's index once its picture has loaded; its text is checked on the way."""
    _check_values_shown(_facts(page, figure))
    return int(handle.evaluate("e => e.value"))


def _check_keys(page: Any, figure: Any, handle: Any, count: int, start: int) -> None:
    """End, Home, Page Up and Page Down move the range; End and ArrowLeft bring it back."""
    for key, index in (("End", count - 1), ("Home", 0)):
        handle.press(key)
        assert _value(page, figure, handle) == index, key
    handle.press("PageUp")
    assert _value(page, figure, handle) > 0, "Page Up moves the range"
    handle.press("PageDown")
    assert _value(page, figure, handle) == 0, "Page Down moves it back by as much"
    handle.press("End")
    for _ in range(count - 1 - start):
        handle.press("ArrowLeft")
    assert _value(page, figure, handle) == start


def _exercise(page: Any, figure: Any, keys: bool) -> int:
    """Move every control of one explorer (with ``keys``, try End, Home and Page Up/Down on its
    first range too); the number of changes made."""
    facts = _facts(page, figure)
    assert facts["alt"].strip(), "the frame has alt text"
    _check_values_shown(facts)
    moves = 0
    for control in facts["controls"]:
        assert control["name"].strip(), f"{control['id']} has no label"
        handle = figure.query_selector(f"#{control['id']}")
        if control["type"] == "range":
            count = len(facts["data"]["controls"][int(control["id"].rsplit("-", 1)[1])]["shown"])
            start = int(control["value"])
            if start == count - 1:  # ArrowRight cannot move it: come from the left first
                handle.press("ArrowLeft")
            _changed_and_back(page, figure, control, lambda h=handle: h.press("ArrowRight"),
                              lambda h=handle: h.press("ArrowLeft"))
            if keys:
                _check_keys(page, figure, handle, count, start)
                keys, moves = False, moves + 5
            elif start == count - 1:
                handle.press("ArrowRight")
            assert _value(page, figure, handle) == start
            moves += 2
        elif control["tag"] == "SELECT":
            other = "1" if control["value"] == "0" else "0"
            _changed_and_back(page, figure, control,
                              lambda h=handle, v=other: h.select_option(v),
                              lambda h=handle, v=control["value"]: h.select_option(v))
            moves += 2
        else:  # a checkbox
            _changed_and_back(page, figure, control, lambda h=handle: h.click(),
                              lambda h=handle: h.click())
            moves += 2
    assert _facts(page, figure)["src"] == facts["src"], "back at the first picture"
    return moves


WATCH_STATUS = """
(figure) => {
  window.statusChanges = 0;
  new MutationObserver((records) => { window.statusChanges += records.length; }).observe(
    figure.querySelector(".explorer-status"),
    {childList: true, characterData: true, subtree: true});
}
"""
STATUS_SAYS_ALT = """
(figure) => window.statusChanges > 0
  && figure.querySelector(".explorer-status").textContent
     === figure.querySelector("img.explorer-frame").alt
"""


def _check_live_region(page: Any, figure: Any) -> None:
    """Ten quick steps of a range: the polite live region speaks once, the picture's alt text."""
    handle = figure.query_selector("input[type=range]")
    figure.evaluate(WATCH_STATUS)
    for key in ["ArrowRight"] * 5 + ["ArrowLeft"] * 5:
        handle.press(key)
    page.wait_for_function(STATUS_SAYS_ALT, arg=figure, timeout=5_000)
    page.wait_for_timeout(1_000)
    assert page.evaluate("window.statusChanges") == 1, "the live region speaks once"
    assert figure.query_selector(".explorer-status").get_attribute("aria-live") == "polite"


def _explorer_parts(site: Path) -> dict[str, Any]:
    """What a browser runs of a site's explorers: the script, every frame file (by content),
    and each page's explorer figures as written."""
    figure = re.compile(r'<figure class="explorer".*?</figure>', re.S)
    frames = sorted((site / FRAMES_DIR).rglob("*.webp"))
    return {
        "script": (site / SCRIPT_NAME).read_bytes(),
        "frames": {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                   for p in frames},
        "pages": {stem: figure.findall((site / f"{stem}.html").read_text(encoding="utf-8"))
                  for stem in PAGES},
    }


def test_the_full_site_runs_the_student_sites_explorers(site_server: Any) -> None:
    """The explorers are moved in a browser on the student site only (below): the full site's
    script, frames and explorer figures are the same bytes, so they move alike."""
    full, student = (_explorer_parts(build_site(site_server, site)) for site in ("full", "student"))
    assert [len(figures) for figures in full["pages"].values()] == [EXPLORERS[s] for s in PAGES]
    assert full["frames"] and full == student


@pytest.mark.parametrize("site", ["student"])
def test_every_explorer_moves_offline(browser: Any, site_root: tuple[Path, str], site: str) -> None:
    root, _ = site_root
    assert len(PAGES) >= 12, "the course's explorers are found in its notebooks"
    report = {}
    for stem in PAGES:
        url = (root / site / f"{stem}.html").as_uri()
        context, page, requests, errors = _open(browser, url)
        try:
            figures = page.query_selector_all("figure.explorer")
            assert len(figures) == EXPLORERS[stem], f"{stem}: {len(figures)} explorers on the page"
            # the keys beyond the arrows on the first range of each page
            report[stem] = [_exercise(page, figure, keys=k == 0)
                            for k, figure in enumerate(figures)]
            if stem == PAGES[2]:  # once per site: the live region (notebook 02's heatmap)
                _check_live_region(page, figures[0])
        finally:
            context.close()
        outside = [u for u in requests if not u.startswith(("file://", *IN_PAGE))]
        assert not outside, f"{stem}: requests outside file://: {outside[:5]}"
        assert not errors, f"{stem}: {errors[:5]}"
        frames = {u for u in requests if "/explorers/" in u}
        assert frames, f"{stem}: no frame was loaded"
    print(json.dumps(report))

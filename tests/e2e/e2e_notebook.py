"""Drive one course notebook in JupyterLab the way a learner does, and report what happened.

Everything a learner does goes through the page: open the notebook URL, wait for the kernel,
choose Run > Run All Cells in the menu bar, look at the explorers, focus a slider handle and press
an arrow key. What the test *reads* comes from the notebook model through ``window.jupyterapp``
(exposed by ``--LabApp.expose_app_in_browser``): output types, execution counts, kernel status.
The DOM cannot tell an error output from a stderr stream, the model can.

Playwright is imported by the caller (conftest); this module only uses the ``Page`` it is given,
so importing it needs nothing beyond the standard library.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

OPEN_TIMEOUT = 120.0
RUN_TIMEOUT = 240.0
WIDGET_TIMEOUT = 60.0
PLOT_CHANGE_TIMEOUT = 30.0

# A cell shows an explorer when its last line displays `<something>.widget()`.
EXPLORER_LAST_LINE = re.compile(r"(^|[^\w])[\w.\[\]'\"]+\.widget\(\)\s*\)?\s*$")

# The notebook panel whose document is `path`, from the JupyterLab application object.
_FIND_PANEL = """
function findPanel(path) {
  const app = window.jupyterapp;
  if (!app || !app.shell) { return null; }
  for (const widget of app.shell.widgets('main')) {
    if (widget.context && widget.context.path === path && widget.content
        && widget.content.model) { return widget; }
  }
  return null;
}
"""

# Kernel and cell state of the notebook, read from its model (plus the prompts on the page).
_STATE_JS = (
    "(path) => {"
    + _FIND_PANEL
    + """
  const panel = findPanel(path);
  if (!panel) { return {found: false}; }
  const session = panel.sessionContext.session;
  const kernel = session ? session.kernel : null;
  const model = panel.content.model;
  const cells = [];
  for (let i = 0; i < model.cells.length; i++) {
    const cell = model.cells.get(i);
    const view = panel.content.widgets[i];
    if (view && view.node) { view.node.dataset.e2eCell = String(i); }
    const entry = {index: i, type: cell.type};
    if (cell.type === 'code') {
      const prompt = view ? view.node.querySelector('.jp-InputArea-prompt') : null;
      entry.executionCount = cell.executionCount;
      entry.executionState = cell.executionState || null;
      entry.prompt = prompt ? prompt.textContent.trim() : '';
      entry.outputs = cell.outputs.toJSON().map((out) => ({
        output_type: out.output_type,
        name: out.name || null,
        ename: out.ename || null,
        evalue: out.evalue ? String(out.evalue).slice(0, 500) : null,
        text: out.text ? String(Array.isArray(out.text) ? out.text.join('') : out.text)
          .slice(0, 500) : null,
        mime: out.data ? Object.keys(out.data) : [],
      }));
      entry.widgetErrors = view ? Array.from(view.node.querySelectorAll('.jp-OutputArea-output'))
        .map((node) => node.textContent)
        .filter((text) => text.includes('Error displaying widget')) : [];
    }
    cells.push(entry);
  }
  return {
    found: true,
    contextReady: panel.context.isReady,
    sessionReady: panel.sessionContext.isReady,
    kernelName: kernel ? kernel.name : null,
    kernelStatus: kernel ? kernel.status : null,
    connectionStatus: kernel ? kernel.connectionStatus : null,
    displayStatus: panel.sessionContext.kernelDisplayStatus,
    cells: cells,
  };
}"""
)

# What an explorer's output shows: the VBox, its controls and its image.
_EXPLORER_JS = """(cellNode) => {
  const boxes = Array.from(cellNode.querySelectorAll('.jp-OutputArea-output .widget-vbox'))
    .filter((box) => box.querySelector(':scope > img.widget-image'));
  return boxes.map((box) => {
    const img = box.querySelector(':scope > img.widget-image');
    const controls = Array.from(box.querySelectorAll('.jupyter-widgets.widget-inline-hbox,'
      + ' .jupyter-widgets.widget-toggle-buttons, .jupyter-widgets.widget-radio'))
      .map((node) => {
        const label = node.querySelector(':scope > .widget-label');
        const kind = Array.from(node.classList).filter((c) => c.startsWith('widget-')
          && c !== 'widget-inline-hbox').join(' ');
        return {kind: kind, label: label ? label.textContent.trim() : ''};
      });
    return {
      controls: controls,
      sliders: box.querySelectorAll('.widget-slider .noUi-handle').length,
      image: {
        src: img.src ? img.src.split(':')[0] : '',
        complete: img.complete,
        visible: img.offsetWidth > 0 && img.offsetHeight > 0,
        width: img.naturalWidth,
        height: img.naturalHeight,
      },
    };
  });
}"""

# Size, PNG signature and FNV-1a hash of the bytes an <img> currently shows.
_IMAGE_FINGERPRINT_JS = """async (img) => {
  if (!img.src) { return null; }
  const response = await fetch(img.src);
  const bytes = new Uint8Array(await response.arrayBuffer());
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    hash ^= bytes[i];
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  const signature = Array.from(bytes.slice(0, 8)).join(',');
  return {
    bytes: bytes.length,
    hash: hash.toString(16).padStart(8, '0'),
    png: signature === '137,80,78,71,13,10,26,10',
    width: img.naturalWidth,
    height: img.naturalHeight,
  };
}"""


@dataclass
class NotebookReport:
    """What one notebook did in the browser; one row of build/e2e/report.json."""

    notebook: str
    code_cells: int = 0
    executed_cells: int = 0
    explorer_cells: list[int] = field(default_factory=list)
    explorers: list[dict[str, Any]] = field(default_factory=list)
    slider: dict[str, Any] | None = None
    ticks: list[dict[str, Any]] = field(default_factory=list)
    sizes: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    error_cells: list[int] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    screenshots: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    failure: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def explorer_cells(notebook_path: Path) -> list[int]:
    """Indices of the cells whose last line displays an explorer (``... .widget()``)."""
    notebook = json.loads(notebook_path.read_text())
    indices = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = cell["source"]
        text = "".join(source) if isinstance(source, list) else source
        lines = [line for line in text.splitlines() if line.strip()]
        if lines and EXPLORER_LAST_LINE.search(lines[-1]):
            indices.append(index)
    return indices


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def last_widget_cell(notebook: dict[str, Any]) -> int | None:
    """The index of the last cell whose stored outputs show a widget (an explorer, a progress
    bar), or None."""
    shown = [index for index, cell in enumerate(notebook["cells"])
             if any(WIDGET_VIEW in output.get("data", {}) for output in cell.get("outputs", []))]
    return shown[-1] if shown else None


def copy_without_outputs(source: Path, target: Path, through_widgets: bool = False) -> None:
    """Write ``source`` to ``target`` with outputs, execution counts and widget state removed.

    The learner's Run All then fills every output afresh, so whatever the page shows afterwards
    was produced in this browser, and a prompt with a number means the cell ran now. With
    ``through_widgets``, the copy ends at the last cell that shows a widget: what the browser
    alone can prove (every explorer shows and responds) needs the cells up to there, and nbval
    runs every cell of the notebook (make test).
    """
    notebook = json.loads(source.read_text())
    notebook.get("metadata", {}).pop("widgets", None)
    last = last_widget_cell(notebook)
    if through_widgets and last is not None:
        notebook["cells"] = notebook["cells"][:last + 1]
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(notebook, indent=1) + "\n")


def notebook_state(page: Page, path: str) -> dict[str, Any]:
    """Kernel status and every cell's execution count and outputs, from the notebook model."""
    state: dict[str, Any] = page.evaluate(_STATE_JS, path)
    return state


def _poll(page: Page, what: str, timeout: float, check: Any, interval: float = 0.25) -> Any:
    """Call ``check()`` until it returns something truthy; return it. AssertionError on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        page.wait_for_timeout(interval * 1000)


def open_notebook(page: Page, base_url: str, path: str, timeout: float = OPEN_TIMEOUT) -> None:
    """Open ``path`` (relative to the server root) in a fresh workspace; wait for an idle kernel."""
    page.goto(f"{base_url}/lab/tree/{path}?reset", wait_until="domcontentloaded")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook", timeout=timeout * 1000)
    last: dict[str, Any] = {}

    def kernel_idle() -> bool:
        nonlocal last
        last = notebook_state(page, path)
        return bool(
            last.get("found")
            and last.get("contextReady")
            and last.get("sessionReady")
            and last.get("kernelStatus") == "idle"
            and last.get("connectionStatus") == "connected"
        )

    try:
        _poll(page, "an idle kernel", timeout, kernel_idle)
    except AssertionError as error:
        summary = {key: value for key, value in last.items() if key != "cells"}
        raise AssertionError(f"{error}; notebook state: {summary}") from None
    # The status bar shows what the learner sees: "Python 3 (ipykernel) | Idle".
    page.locator(".jp-StatusBar-Widget", has_text="Idle").first.wait_for(timeout=timeout * 1000)


def run_all_from_menu(page: Page) -> None:
    """Run > Run All Cells, clicked in the menu bar."""
    page.locator(".jp-NotebookPanel .jp-Notebook").first.click(position={"x": 5, "y": 5})
    page.locator("#jp-MainMenu .lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    item = page.locator(".lm-Menu-content .lm-Menu-item", has_text=re.compile(r"^Run All Cells"))
    item.first.click()


def wait_until_run_finished(page: Page, path: str, timeout: float = RUN_TIMEOUT) -> dict[str, Any]:
    """Wait until Run All is over: the kernel is idle and no cell is queued or running.

    Run All stops at the first error (and a dying kernel stops it too), so "every cell has a
    count" is not required here; the test checks that afterwards. The run counts as started once
    a cell was seen queued, running or numbered; the end must then hold for two polls half a
    second apart. If the start is never seen, ten quiet polls (5 s) end the wait.
    """
    started = False
    quiet = 0
    last: dict[str, Any] = {}

    def finished() -> dict[str, Any] | None:
        nonlocal started, quiet, last
        last = notebook_state(page, path)
        code = [cell for cell in last.get("cells", []) if cell["type"] == "code"]
        busy = any(cell["executionState"] == "running" or "*" in cell["prompt"] for cell in code)
        started = started or busy or any(cell["executionCount"] is not None for cell in code)
        quiet = quiet + 1 if last.get("kernelStatus") == "idle" and not busy else 0
        return last if quiet >= (2 if started or not code else 10) else None

    try:
        result: dict[str, Any] = _poll(page, "Run All to finish", timeout, finished, interval=0.5)
        return result
    except AssertionError as error:
        pending = [
            cell["index"]
            for cell in last.get("cells", [])
            if cell["type"] == "code" and cell["executionCount"] is None
        ]
        raise AssertionError(
            f"{error}; kernel {last.get('kernelStatus')}, cells not run yet: {pending}"
        ) from None


def dialog_text(page: Page) -> str:
    """The text of any dialog JupyterLab shows (e.g. "Kernel Restarting"), or ''."""
    dialogs = page.locator(".jp-Dialog-content")
    return " | ".join(" ".join(text.split()) for text in dialogs.all_inner_texts())


def cell_locator(page: Page, index: int) -> Locator:
    """The cell at ``index`` (``notebook_state`` tags every cell node with its index)."""
    return page.locator(f".jp-NotebookPanel [data-e2e-cell='{index}']")


def cells_showing_explorers(page: Page) -> list[int]:
    """Indices of the cells whose output shows a VBox with an image (an explorer's view)."""
    indices: list[int] = page.evaluate(
        """() => Array.from(document.querySelectorAll('.jp-NotebookPanel [data-e2e-cell]'))
          .filter((cell) => cell.querySelector(
            '.jp-OutputArea-output .widget-vbox > img.widget-image'))
          .map((cell) => Number(cell.dataset.e2eCell))"""
    )
    return indices


def explorer_views(page: Page, index: int) -> list[dict[str, Any]]:
    """The explorers (VBox with an image) rendered in the output of cell ``index``."""
    views: list[dict[str, Any]] = cell_locator(page, index).evaluate(_EXPLORER_JS)
    return views


def wait_for_explorers(
    page: Page, indices: list[int], timeout: float = WIDGET_TIMEOUT
) -> dict[int, list[dict[str, Any]]]:
    """Wait until every explorer cell shows controls and a decoded plot; return what they show."""
    last: dict[int, list[dict[str, Any]]] = {}

    def rendered() -> dict[int, list[dict[str, Any]]] | None:
        nonlocal last
        last = {index: explorer_views(page, index) for index in indices}
        ok = all(
            views
            and all(
                view["controls"]
                and view["image"]["complete"]
                and view["image"]["visible"]
                and view["image"]["width"] > 0
                for view in views
            )
            for views in last.values()
        )
        return last if ok else None

    if not indices:
        return {}
    try:
        result: dict[int, list[dict[str, Any]]] = _poll(page, "the explorers", timeout, rendered)
        return result
    except AssertionError as error:
        raise AssertionError(f"{error}; explorers seen: {last}") from None


def image_fingerprint(image: Locator) -> dict[str, Any]:
    """Size, PNG signature and hash of the bytes shown by the <img> ``image``."""
    fingerprint: dict[str, Any] = image.evaluate(_IMAGE_FINGERPRINT_JS)
    return fingerprint


# The state of a control, given the element that takes the keyboard: a slider handle or a <select>.
_CONTROL_STATE_JS = """(element) => {
  const control = element.closest('.widget-inline-hbox');
  const label = control ? control.querySelector(':scope > .widget-label') : null;
  const name = label ? label.textContent.trim() : '';
  if (element.tagName === 'SELECT') {
    return {
      kind: 'dropdown', label: name, value: element.value, readout: element.value,
      atEnd: element.selectedIndex === element.options.length - 1,
      disabled: element.disabled || element.options.length < 2,
    };
  }
  const readout = control ? control.querySelector('.widget-readout') : null;
  const target = element.closest('.noUi-target');
  const now = element.getAttribute('aria-valuenow');
  return {
    kind: 'slider', label: name, value: now,
    readout: readout ? readout.textContent.trim() : now,
    atEnd: now !== null && now === element.getAttribute('aria-valuemax'),
    disabled: !target || target.hasAttribute('disabled'),
  };
}"""

# Elements a learner can focus and move with the arrow keys, sliders first.
_KEYBOARD_CONTROLS = (
    ".jp-OutputArea-output .widget-vbox .widget-slider .noUi-handle",
    ".jp-OutputArea-output .widget-vbox .widget-dropdown select",
)


def _control_state(element: Locator) -> dict[str, Any]:
    state: dict[str, Any] = element.evaluate(_CONTROL_STATE_JS)
    return state


def move_one_slider(page: Page, indices: list[int]) -> dict[str, Any]:
    """Press an arrow key on the first usable slider handle; return what changed.

    The key goes to the focused noUiSlider handle, as when a learner tabs to it or clicks it;
    the test then waits for the explorer's PNG (its ``ipywidgets.Image``) to change, and reports
    the readout before and after. An explorer without any slider gets its first dropdown
    moved instead (its next option picked, as with the mouse).
    """
    for selector in _KEYBOARD_CONTROLS:
        for index in indices:
            elements = cell_locator(page, index).locator(selector)
            for number in range(elements.count()):
                element = elements.nth(number)
                if not _control_state(element)["disabled"]:
                    return _press_and_check(page, index, element)
    raise AssertionError(f"no enabled slider or dropdown in the explorer cells {indices}")


def _press_and_check(page: Page, index: int, element: Locator) -> dict[str, Any]:
    """Focus ``element``, press an arrow key, check the value and the plot changed."""
    before = _control_state(element)
    image = element.locator(
        "xpath=ancestor::div[contains(concat(' ', normalize-space(@class), ' '), ' widget-vbox ')]"
        "[img][1]/img[contains(@class, 'widget-image')]"
    ).first
    png_before = image_fingerprint(image)
    element.scroll_into_view_if_needed()
    element.focus()
    if before["kind"] == "slider":
        key = "ArrowLeft" if before["atEnd"] else "ArrowRight"
        page.keyboard.press(key)
    else:
        # A closed <select> ignores arrow keys in headless Chromium: pick the option instead.
        options: list[str] = element.evaluate("(s) => Array.from(s.options, (o) => o.value)")
        choice = options[(options.index(before["value"]) + 1) % len(options)]
        key = f"select {choice!r}"
        element.select_option(choice)
    start = time.monotonic()
    what = f"{key} on the {before['kind']} {before['label']!r} in cell {index}"

    def plot_changed() -> dict[str, Any] | None:
        now = image_fingerprint(image)
        return now if now and now["hash"] != png_before["hash"] else None

    try:
        png_after = _poll(page, "the plot to change", PLOT_CHANGE_TIMEOUT, plot_changed)
    except AssertionError as error:
        after = _control_state(element)
        raise AssertionError(
            f"{error}: pressed {what} (value {before['value']} -> {after['value']}, "
            f"readout {before['readout']!r} -> {after['readout']!r}), "
            f"but the PNG stayed {png_before}"
        ) from None
    after = _control_state(element)
    return {
        "cell": index,
        "control": before["kind"],
        "slider": before["label"] or before["kind"],
        "key": key,
        "value_before": before["readout"],
        "value_after": after["readout"],
        "png_before": png_before,
        "png_after": png_after,
        "seconds": round(time.monotonic() - start, 2),
    }


# Waits for the next change of the explorer image's src after the next key press or <select>
# change anywhere in the page; window.__e2eTick resolves to the milliseconds between them.
_ARM_TICK_JS = """(img) => {
  window.__e2eTick = new Promise((resolve) => {
    let start = null;
    const before = img.src;
    const mark = () => { if (start === null) { start = performance.now(); } };
    document.addEventListener('keydown', mark, {capture: true, once: true});
    document.addEventListener('change', mark, {capture: true, once: true});
    const observer = new MutationObserver(() => {
      if (start !== null && img.src !== before) {
        observer.disconnect();
        const src = performance.now() - start;
        img.decode().catch(() => null).then(() => resolve({src: src,
          decoded: performance.now() - start}));
      }
    });
    observer.observe(img, {attributes: true, attributeFilter: ['src']});
    setTimeout(() => { observer.disconnect(); resolve(null); }, TIMEOUT_MS);
  });
}""".replace("TIMEOUT_MS", str(int(PLOT_CHANGE_TIMEOUT * 1000)))

# Where an explorer image is drawn: its CSS box, its PNG's pixels and the screen's pixel ratio.
_IMAGE_SIZE_JS = """(img) => ({
  shown: img.getBoundingClientRect().width,
  natural: img.naturalWidth,
  available: img.parentElement.getBoundingClientRect().width,
  devicePixelRatio: window.devicePixelRatio,
})"""

PIXEL_RATIO = 2  # the explorers render two PNG pixels per CSS pixel (Explorer.pixel_ratio)


def explorer_image_sizes(page: Page, indices: list[int]) -> list[dict[str, Any]]:
    """For every explorer image: its shown (CSS) width and its PNG width, in pixels."""
    sizes = []
    for index in indices:
        images = cell_locator(page, index).locator(
            ".jp-OutputArea-output .widget-vbox > img.widget-image"
        )
        for number in range(images.count()):
            sizes.append({"cell": index, **images.nth(number).evaluate(_IMAGE_SIZE_JS)})
    return sizes


def time_explorer_ticks(page: Page, indices: list[int], ticks: int = 7) -> list[dict[str, Any]]:
    """For every explorer: milliseconds from a key press on its first slider to the new picture.

    The first enabled slider handle of each explorer is focused and gets ``ticks`` arrow-key
    presses (ArrowRight, ArrowLeft at the end of the range), one at a time; each is timed in
    the page, from the keydown event to the image's new ``src`` (and to the decoded picture).
    An explorer without a slider has its first dropdown's next option picked instead, timed
    from the ``change`` event. Times are reported, never asserted: the machine is shared.
    """
    results = []
    for index in indices:
        boxes = cell_locator(page, index).locator(".jp-OutputArea-output .widget-vbox:has(> img)")
        for number in range(boxes.count()):
            box = boxes.nth(number)
            image = box.locator(":scope > img.widget-image").first
            handles = box.locator(_KEYBOARD_CONTROLS[0].split(" ", 2)[2])
            selects = box.locator(".widget-dropdown select")
            element = handles.first if handles.count() else selects.first
            state = _control_state(element)
            times = []
            for _ in range(ticks):
                state = _control_state(element)
                image.evaluate(_ARM_TICK_JS)
                element.focus()
                if state["kind"] == "slider":
                    page.keyboard.press("ArrowLeft" if state["atEnd"] else "ArrowRight")
                else:
                    options = element.evaluate("(s) => Array.from(s.options, (o) => o.value)")
                    element.select_option(options[(options.index(state["value"]) + 1)
                                                  % len(options)])
                times.append(page.evaluate("() => window.__e2eTick"))
            done = [t for t in times if t]
            ordered = sorted(t["src"] for t in done)
            decoded = sorted(t["decoded"] for t in done)
            results.append({
                "cell": index,
                "control": f"{state['kind']} {state['label']!r}",
                "ticks": len(done),
                "median_ms": round(ordered[len(ordered) // 2], 1) if ordered else None,
                "median_decoded_ms": round(decoded[len(decoded) // 2], 1) if decoded else None,
                "all_ms": [round(t, 1) for t in ordered],
            })
    return results


# Scroll the notebook to cell ``index`` so that JupyterLab renders it (it windows long notebooks).
_SCROLL_TO_CELL_JS = (
    "async ([path, index]) => {"
    + _FIND_PANEL
    + """
  const panel = findPanel(path);
  await panel.content.scrollToItem(index, 'start');
  panel.content.widgets[index].node.dataset.e2eCell = String(index);
}"""
)

# What a stored explorer output shows before any kernel ran it: its picture and its text.
_STORED_OUTPUT_JS = """(cell) => {
  const img = cell.querySelector('.jp-OutputArea-output img');
  const area = cell.querySelector('.jp-OutputArea');
  return {
    text: area ? area.innerText : '',
    img: img ? {complete: img.complete, natural: img.naturalWidth,
                shown: img.getBoundingClientRect().width} : null,
  };
}"""


def stored_output(page: Page, path: str, index: int) -> dict[str, Any]:
    """The picture and text that the stored output of cell ``index`` shows (no kernel run)."""
    page.evaluate(_SCROLL_TO_CELL_JS, [path, index])

    def shown() -> dict[str, Any] | None:
        seen: dict[str, Any] = cell_locator(page, index).evaluate(_STORED_OUTPUT_JS)
        return seen if seen["img"] and seen["img"]["complete"] and seen["img"]["natural"] else None

    try:
        result: dict[str, Any] = _poll(page, "the stored picture", WIDGET_TIMEOUT, shown)
        return result
    except AssertionError as error:
        seen = cell_locator(page, index).evaluate(_STORED_OUTPUT_JS)
        raise AssertionError(f"{error}; cell {index} shows {seen}") from None


def screenshot(page: Page, path: Path, index: int | None = None) -> str:
    """Save the browser window, scrolled to cell ``index`` when given."""
    if index is not None:
        cell_locator(page, index).evaluate("(cell) => cell.scrollIntoView({block: 'start'})")
        page.wait_for_timeout(300)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    return str(path)

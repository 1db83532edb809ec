"""The explorers on the offline sites: labelled native controls, the precomputed frame and one
shared script that swaps the frames (issue 50). The frames come from tools/explorer_frames.py.

Every control is a ``<label>`` and an ``<input type=range>`` (an ``<output>`` beside it shows
the value), a ``<select>`` or a checkbox, as the notebook's control is a slider, a drop-down or
a check box. A range moves by value index, so its keys are the browser's own (arrows, Home, End;
Page Up/Down move a tenth of the values, the same step both ways), and its ``aria-valuetext`` is
the value, not the index. The frame's alt text is the explorer's titles for the state shown; a
visually hidden polite live region repeats it once the controls have been still for a moment.
The script reads its data from a JSON block beside each explorer: nothing is fetched, so the
page works from ``file://``.
"""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path
from typing import Any

SCRIPT_NAME = "explorers.js"
FRAMES_DIR = "explorers"
SCRIPT = """\
/* The course's explorers on the offline site: each control shows the frame the explorer drew
   for its value when the site was built. Nothing is fetched but the frames beside the page. */
(function () {
  "use strict";
  function setUp(figure) {
    var data = JSON.parse(figure.querySelector("script.explorer-data").textContent);
    var image = figure.querySelector("img.explorer-frame");
    var status = figure.querySelector(".explorer-status");
    var inputs = data.controls.map(function (control, i) {
      return document.getElementById(figure.id + "-" + i);
    });
    var timer = null;
    function indexOf(input) {
      return input.type === "checkbox" ? (input.checked ? 1 : 0) : Number(input.value);
    }
    function show(i, index) {
      var input = inputs[i], text = data.controls[i].shown[index];
      if (input.type === "checkbox") {
        input.checked = index === 1;
        return;
      }
      input.value = String(index);
      if (input.type === "range") {
        input.setAttribute("aria-valuetext", text);
        document.getElementById(input.id + "-value").textContent = text;
      }
    }
    function moved(changed) {
      var key = inputs.map(function (input, i) {
        return data.grid || i === changed ? indexOf(input) : data.controls[i].start;
      }).join(",");
      var state = data.states[key];
      if (!state) {
        return;
      }
      image.src = data.dir + state[0];
      image.alt = state[2];
      state[1].forEach(function (index, i) { show(i, index); });
      clearTimeout(timer);  // one announcement once the control is still, not one per step
      timer = setTimeout(function () { status.textContent = state[2]; }, 700);
    }
    function paged(input, i, event) {  // Page Up/Down: a tenth of the values, both ways alike
      if (event.key !== "PageUp" && event.key !== "PageDown") {
        return;
      }
      event.preventDefault();
      var last = Number(input.max), page = Math.max(1, Math.round(last / 10));
      var index = Number(input.value) + (event.key === "PageUp" ? page : -page);
      input.value = String(Math.min(last, Math.max(0, index)));
      moved(i);
    }
    inputs.forEach(function (input, i) {
      input.addEventListener(input.type === "range" ? "input" : "change", function () {
        moved(i);
      });
      if (input.type === "range") {
        input.addEventListener("keydown", function (event) { paged(input, i, event); });
      }
    });
  }
  document.querySelectorAll("figure.explorer").forEach(setUp);
})();
"""
"""The one script of every page with an explorer."""

STYLE = """\
figure.explorer { margin: 0.5rem 0 1rem; padding: 0.8rem 1rem; border: 1px solid var(--rule);
                  border-radius: 6px; background: #fbfcfd; }
.explorer-controls { display: flex; flex-wrap: wrap; gap: 0.5rem 1.6rem; margin-bottom: 0.6rem; }
.explorer-control { display: flex; align-items: center; gap: 0.5rem; font-size: 0.95rem; }
.explorer-control output { min-width: 4.5rem; font-variant-numeric: tabular-nums; }
.explorer-control input[type=range] { width: 11rem; }
img.explorer-frame { display: block; max-width: 100%; height: auto; }
figure.explorer figcaption { color: #3d4852; font-size: 0.9rem; margin-top: 0.5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden;
                   clip: rect(0 0 0 0); white-space: nowrap; }
"""
"""Appended to the site's course.css."""


def _control_html(prefix: str, i: int, control: dict[str, Any]) -> str:
    """One labelled control; its id is ``prefix-i`` (the script finds it by that id)."""
    name = f"{prefix}-{i}"
    label = f'<label for="{name}">{html.escape(control["label"])}</label>'
    start, shown = control["default"], control["shown"]
    if control["kind"] == "checkbox":
        checked = " checked" if start == 1 else ""
        box = f'<input type="checkbox" id="{name}"{checked}>'
        return f'<div class="explorer-control">{box}{label}</div>'
    if control["kind"] == "select":
        options = "".join(
            f'<option value="{k}"{" selected" if k == start else ""}>{html.escape(text)}</option>'
            for k, text in enumerate(shown)
        )
        return f'<div class="explorer-control">{label}<select id="{name}">{options}</select></div>'
    value = html.escape(shown[start])
    return (
        f'<div class="explorer-control">{label}<input type="range" id="{name}" min="0" '
        f'max="{len(shown) - 1}" step="1" value="{start}" aria-valuetext="{value}">'
        f'<output id="{name}-value" for="{name}">{value}</output></div>'
    )


def caption(manifest: dict[str, Any]) -> str:
    """What the reader is told: the frames are precomputed, which values they hold, and how to
    move the explorer live."""
    n_frames = len(manifest["frames"])
    parts = [
        f"Precomputed: these {n_frames} pictures were drawn by the notebook's explorer, with its "
        "own code, when this site was built; the controls step through the values drawn."
    ]
    if not manifest["grid"]:
        parts.append("One control moves at a time: moving one puts the others back to their "
                     "starting values.")
    fewer = [f'{c["label"]}: {len(c["values"])} of the notebook\'s {c["of"]}'
             for c in manifest["controls"] if len(c["values"]) < c["of"]]
    if fewer:
        parts.append("Values drawn: " + "; ".join(fewer) + ".")
    parts.append("To move it live through every value, run the notebook in JupyterLab: "
                 "<code>make study</code> in a copy of the course (see its README).")
    return " ".join(html.escape(p) if "<code>" not in p else p for p in parts)


def explorer_html(manifest: dict[str, Any], folder: str, number: int) -> str:
    """The explorer's figure: controls, frame, caption, live region and its data.

    ``folder`` is where its frames are, relative to the page; ``number`` makes its ids unique
    on the page.
    """
    prefix = f"explorer-{number}"
    controls = manifest["controls"]
    start = ",".join(str(c["default"]) for c in controls)
    first = manifest["states"][start]
    width, height = manifest["size"]
    data = {
        "dir": f"{folder}/", "grid": manifest["grid"],
        "controls": [{"shown": c["shown"], "start": c["default"]} for c in controls],
        "states": {key: entry[:3] for key, entry in manifest["states"].items()},
    }
    script = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return (
        f'<figure class="explorer" id="{prefix}">'
        f'<div class="explorer-controls">'
        + "".join(_control_html(prefix, i, c) for i, c in enumerate(controls))
        + f'</div><img class="explorer-frame" src="{folder}/{first[0]}" width="{width}" '
        f'height="{height}" alt="{html.escape(first[2])}">'
        f"<figcaption>{caption(manifest)}</figcaption>"
        '<p class="explorer-status visually-hidden" aria-live="polite"></p>'
        f'<script type="application/json" class="explorer-data">{script}</script></figure>'
    )


def copy_frames(folders: list[Path], out: Path) -> None:
    """Copy the frames of each cache folder into ``out``/explorers/<folder name>/, replacing
    what an earlier build left there."""
    target = out / FRAMES_DIR
    if target.exists():
        shutil.rmtree(target)
    for folder in folders:
        (target / folder.name).mkdir(parents=True)
        for frame in folder.glob("*.webp"):
            shutil.copyfile(frame, target / folder.name / frame.name)

"""The explorers' frames for the offline sites (issue 50): budgets, honesty, declared values.

The frames are drawn once into build/explorer-frames/ (tools/explorer_frames.py; the sites and
this file share them). Checked here:

- every explorer of a notebook has its frames; each explorer's frame count is what its controls
  give (every combination, or one control at a time), at most :data:`MAX_FRAMES`, and its frames
  at most :data:`MAX_EXPLORER_BYTES`; all of them at most :data:`MAX_SITE_BYTES` (issue 50: about
  40 MB);
- the frame shown at load is the notebook's stored picture, pixel for pixel;
- a frame is what a fresh explorer draws when a learner moves that one control (so the path
  the build took to reach it does not matter), decoded from the WebP file the site shows;
- values declared in ``site_values`` must be values of the slider.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import math
from functools import cache
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pytest
from PIL import Image

from posenc_lib.widgets import RotationExplorer
from tools import explorer_frames
from tools.explorer_frames import WIDGET_MIME, Call, controls_of, explorer_cells

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MAX_FRAMES = 80
MAX_EXPLORER_BYTES = 9_000_000  # RotationExplorer: 8.75 MB at explorer_frames.WEBP's effort
MAX_SITE_BYTES = 40_000_000


def _cells() -> list[tuple[str, int, Call]]:
    return [
        (path.stem, index, call)
        for path in NOTEBOOKS
        for index, call in explorer_cells(nbformat.read(path, as_version=4)).items()
    ]


CELLS = _cells()


def _params() -> list[Any]:
    """CELLS as pytest params, named by the explorer's call."""
    return [pytest.param(stem, index, call, id=str(call)) for stem, index, call in CELLS]


@cache
def folders() -> dict[Call, Path]:
    return explorer_frames.ensure([call for _, _, call in CELLS])


def _pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))


def _stored_png(stem: str, index: int) -> bytes:
    notebook = nbformat.read(next(p for p in NOTEBOOKS if p.stem == stem), as_version=4)
    output = next(o for o in notebook.cells[index].outputs if WIDGET_MIME in o.get("data", {}))
    return base64.b64decode(output["data"]["image/png"])


def test_every_explorer_of_the_course_is_found() -> None:
    from posenc_lib.widgets import EXPLORERS

    assert sorted(call.name for _, _, call in CELLS) == sorted(cls.__name__ for cls in EXPLORERS)


def test_frame_counts_and_sizes_are_within_budget() -> None:
    total = 0
    for call, folder in folders().items():
        manifest = explorer_frames.manifest(folder)
        counts = [len(c["values"]) for c in manifest["controls"]]
        # every combination, or the start plus each other value of each control alone
        expected = math.prod(counts) if manifest["grid"] else 1 + sum(n - 1 for n in counts)
        assert len(manifest["states"]) == expected, call
        assert manifest["grid"] == (math.prod(counts) <= explorer_frames.MAX_GRID)
        assert len(manifest["frames"]) <= len(manifest["states"]) <= MAX_FRAMES, call
        sizes = {p.name: p.stat().st_size for p in folder.glob("*.webp")}
        assert sizes == manifest["frames"], f"{call}: the frames on disk are the manifest's"
        assert {entry[0] for entry in manifest["states"].values()} == set(sizes)
        assert sum(sizes.values()) <= MAX_EXPLORER_BYTES, call
        assert all(len(c["values"]) <= explorer_frames.MAX_VALUES for c in manifest["controls"])
        total += sum(sizes.values())
    assert total <= MAX_SITE_BYTES


@pytest.mark.parametrize(("stem", "index", "call"), _params())
def test_frame_at_load_is_the_notebooks_stored_picture(stem: str, index: int, call: Call) -> None:
    folder = folders()[call]
    manifest = explorer_frames.manifest(folder)
    start = ",".join(str(c["default"]) for c in manifest["controls"])
    name = manifest["states"][start][0]
    # pixels, not bytes: the deflate stream is ISA-L's, whose CPU paths may choose other bytes
    assert np.array_equal(_pixels((folder / name).read_bytes()), _pixels(_stored_png(stem, index)))


def _fresh_frame(call: Call, control: int, value_index: int) -> bytes:
    """The PNG a new explorer shows once control ``control`` is set to that value."""
    explorer = call.construct()
    widget = explorer.controls[controls_of(explorer)[control].name]
    widget.value = controls_of(explorer)[control].values[value_index]
    return bytes(explorer.image.value)


@pytest.mark.parametrize(("stem", "index", "call"), _params())
def test_each_controls_last_frame_is_what_a_fresh_explorer_draws(
    stem: str, index: int, call: Call
) -> None:
    """For each control, its last value (first, when it starts at the last), set alone on a new
    explorer: the same PNG as the build's, and the site's WebP decodes to its pixels."""
    folder = folders()[call]
    manifest = explorer_frames.manifest(folder)
    start = [c["default"] for c in manifest["controls"]]
    for i, control in enumerate(manifest["controls"]):
        last = len(control["values"]) - 1
        chosen = 0 if start[i] == last else last
        key = ",".join(map(str, start[:i] + [chosen] + start[i + 1:]))
        name, _, _, digest = manifest["states"][key]
        png = _fresh_frame(call, i, chosen)
        assert hashlib.sha256(png).hexdigest() == digest, f"{call}: {control['name']}"
        assert np.array_equal(_pixels((folder / name).read_bytes()), _pixels(png))


def test_a_grid_state_is_what_a_fresh_explorer_draws_after_every_control_moves() -> None:
    call = next(c for _, _, c in CELLS if c.name == "WordOrderExplorer")
    manifest = explorer_frames.manifest(folders()[call])
    assert manifest["grid"]
    last = [len(c["values"]) - 1 for c in manifest["controls"]]
    explorer = call.construct()
    for control, index in zip(controls_of(explorer), last, strict=True):
        explorer.controls[control.name].value = control.values[index]
    assert hashlib.sha256(bytes(explorer.image.value)).hexdigest() == (
        manifest["states"][",".join(map(str, last))][3])


def test_a_value_off_the_slider_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    explorer = RotationExplorer()
    monkeypatch.setattr(RotationExplorer, "site_values", {"t": (0, 2.5, 4)})
    with pytest.raises(ValueError, match=r"site_values\['t'\]: 2.5 is not a value"):
        controls_of(explorer)
    monkeypatch.setattr(RotationExplorer, "site_values", {"t": (0, 41)})
    with pytest.raises(ValueError, match=r"41 is not a value"):
        controls_of(explorer)
    monkeypatch.setattr(RotationExplorer, "site_values", {"tt": (0,)})
    with pytest.raises(ValueError, match="names no control"):
        controls_of(explorer)
    monkeypatch.setattr(RotationExplorer, "site_values", {})
    with pytest.raises(ValueError, match="must declare 't'"):
        controls_of(explorer)  # 41 values, more than 32


def test_the_starting_value_is_always_drawn() -> None:
    """AngleErrorExplorer starts at position 1857, off the declared powers of two."""
    call = next(c for _, _, c in CELLS if c.name == "AngleErrorExplorer")
    position = next(c for c in controls_of(call.construct()) if c.name == "position")
    assert position.values[position.default] == 1857
    assert {2.0**k for k in range(21)} <= set(position.values)


def test_shown_values_are_values_not_indices() -> None:
    shown: Any = explorer_frames.shown_value
    assert [shown(v) for v in (512, 10000.0, 10.0**2.2, 1.5, True, "ntk")] == [
        "512", "10,000", "158.5", "1.5", "on", "ntk"]


def test_the_page_says_what_the_picture_is_and_how_to_move_it_live() -> None:
    """Each explorer's HTML: a label for every control, the starting value (not its index) as a
    range's aria-valuetext and output, the frame at load with its alt text, the caption."""
    from tools.site_explorers import explorer_html

    for number, (call, folder) in enumerate(folders().items()):
        manifest = explorer_frames.manifest(folder)
        page = explorer_html(manifest, "explorers/x", number)
        start = ",".join(str(c["default"]) for c in manifest["controls"])
        frame, _, alt, _ = manifest["states"][start]
        assert f'src="explorers/x/{frame}"' in page and f'alt="{html.escape(alt)}"' in page
        for i, control in enumerate(manifest["controls"]):
            assert f'<label for="explorer-{number}-{i}">{html.escape(control["label"])}' in page
            if control["kind"] == "range":
                value = html.escape(control["shown"][control["default"]])
                assert f'aria-valuetext="{value}"' in page, (call, control["name"])
                assert f'for="explorer-{number}-{i}">{value}</output>' in page
        assert ("One control moves at a time" in page) == (not manifest["grid"]), call
        assert "Precomputed" in page and "<code>make study</code>" in page

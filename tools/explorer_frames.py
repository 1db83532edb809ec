"""Frames of the course's explorers for the offline sites: each explorer draws one picture per
state with its own code, once per build, cached under build/explorer-frames/ (issue 50).

An explorer is constructed as its notebook cell constructs it (the call is read from the cell's
source: ``SourceHeatmapExplorer("heatmap_002")``). Its controls step through their own values,
or, for a slider with more than :data:`MAX_VALUES`, through the values its class declares in
``site_values``; the value it was constructed with is always one of them. When the product of the
controls' value counts is at most :data:`MAX_GRID`, every combination is drawn (a grid);
otherwise one control moves at a time and the others stay at their starting values. The states
are reached as a learner reaches them in JupyterLab, by setting the control (the explorer
redraws through its own observer), so a frame is the PNG the explorer put in its image widget.

Each PNG is stored as lossless WebP (Pillow), about 40% of its size, and decoded again to check
that its pixels are the PNG's. Identical pictures share one file. A cache entry is keyed by the
explorer's call and everything its drawing depends on: the package's files, the lab's results,
this module, the versions of numpy, matplotlib, Pillow and ipywidgets, and the CPU features
numpy uses (with AVX2 off, a few frames round to other pixels: a cache drawn on one path is not
the other's).
"""

from __future__ import annotations

import ast
import fcntl
import hashlib
import io
import itertools
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
from matplotlib.text import Text
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "explorer-frames"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
MAX_VALUES = 32
"""A slider with more values than this needs its values declared in ``site_values``."""
MAX_GRID = 64
"""Every combination of values is drawn when there are at most this many."""
WEBP = {"lossless": True, "quality": 25, "method": 1, "exact": True}
"""Pillow's WebP options: lossless, every pixel kept (transparent ones too). Quality 25 and method
1 set the encoder's effort: on every sixth frame of the course, 43% less time than quality 80,
method 4 for 14% more bytes (42% of the PNGs' size against 37%); the encoding was most of the
time a build spends on the frames."""


@dataclass(frozen=True)
class Call:
    """An explorer's construction as a notebook cell writes it: class name and literal args."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        return f"{self.name}({', '.join(parts)})"

    def construct(self) -> Any:
        import posenc_lib.widgets as widgets

        return getattr(widgets, self.name)(*self.args, **dict(self.kwargs))


def explorer_call(source: str) -> Call | None:
    """The first call of a course explorer in a cell's source, or None when there is none."""
    from posenc_lib.widgets import EXPLORERS

    names = {cls.__name__ for cls in EXPLORERS}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names:
            try:
                args = tuple(ast.literal_eval(arg) for arg in node.args)
                kwargs = tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords if k.arg)
            except ValueError as error:
                raise ValueError(f"{node.func.id}: only literal arguments can be read from the "
                                 f"notebook; got {ast.unparse(node)!r}") from error
            return Call(node.func.id, args, kwargs)
    return None


def explorer_cells(notebook: nbformat.NotebookNode) -> dict[int, Call]:
    """The explorer call of every code cell whose output is a live explorer, by cell index."""
    found = {}
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and any(
            WIDGET_MIME in output.get("data", {}) for output in cell.get("outputs", [])
        ):
            call = explorer_call(cell.source)
            if call is not None:
                found[index] = call
    return found


@dataclass(frozen=True)
class Control:
    """One control as the site shows it: its values, their text and the starting one."""

    name: str
    label: str
    kind: str  # "range", "select" or "checkbox"
    values: tuple[Any, ...]
    shown: tuple[str, ...]
    default: int
    of: int  # how many values the notebook's control offers


def shown_value(value: Any) -> str:
    """A value as the site writes it: whole numbers with thousands separators from 10,000."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int | float) and float(value).is_integer():
        return f"{int(value):,}" if abs(value) >= 10_000 else str(int(value))
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _slider_grid(widget: Any) -> tuple[list[float], Any]:
    """Every value of a numeric slider, and the map from a value to its place on the grid."""
    log = hasattr(widget, "base")  # FloatLogSlider: its min, max and step are exponents
    low, high, step = float(widget.min), float(widget.max), float(widget.step)
    count = round((high - low) / step) + 1

    def place(value: float) -> float:
        x = math.log(value, widget.base) if log else value
        return (x - low) / step

    grid = [low + k * step for k in range(count)]
    values = [widget.base**x for x in grid] if log else grid
    if isinstance(widget.value, int) and not isinstance(widget.value, bool):
        values = [round(v) for v in values]
    return values, place


def control_of(explorer: Any, name: str, widget: Any) -> Control:
    """The site's view of one control of ``explorer`` (see the module docstring)."""
    declared = type(explorer).site_values.get(name)
    label = widget.description or name
    if hasattr(widget, "_options_values"):  # Dropdown, SelectionSlider
        values, shown = tuple(widget._options_values), tuple(widget._options_labels)
        kind = "select" if type(widget).__name__ == "Dropdown" else "range"
        return Control(name, label, kind, values, shown, values.index(widget.value), len(values))
    if isinstance(widget.value, bool):
        values = (False, True)
        return Control(name, label, "checkbox", values, ("off", "on"), int(widget.value), 2)
    grid, place = _slider_grid(widget)
    if declared is None:
        if len(grid) > MAX_VALUES:
            raise ValueError(f"{type(explorer).__name__}.site_values must declare {name!r}: its "
                             f"slider has {len(grid)} values, more than {MAX_VALUES}")
        declared = grid
    for value in declared:
        k = place(value)
        if not (-1e-9 <= k <= len(grid) - 1 + 1e-9 and abs(k - round(k)) < 1e-6):
            raise ValueError(f"{type(explorer).__name__}.site_values[{name!r}]: {value!r} is not "
                             f"a value of the slider ({widget.min}..{widget.max} by {widget.step})")
    values = tuple(sorted({*declared, widget.value}))
    return Control(name, label, "range", values, tuple(shown_value(v) for v in values),
                   values.index(widget.value), len(grid))


def controls_of(explorer: Any) -> list[Control]:
    """Every control of ``explorer`` as the site shows it, in the explorer's order."""
    unknown = set(type(explorer).site_values) - set(explorer.controls)
    if unknown:
        raise ValueError(f"{type(explorer).__name__}.site_values names no control: {unknown}")
    return [control_of(explorer, name, widget) for name, widget in explorer.controls.items()]


def is_grid(controls: Sequence[Control]) -> bool:
    return math.prod(len(c.values) for c in controls) <= MAX_GRID


def states(controls: Sequence[Control]) -> list[tuple[int, ...]]:
    """The states drawn, as value indices, the starting state first."""
    start = tuple(c.default for c in controls)
    if is_grid(controls):
        rest = itertools.product(*(range(len(c.values)) for c in controls))
    else:
        rest = (start[:i] + (j,) + start[i + 1:] for i, c in enumerate(controls)
                for j in range(len(c.values)) if j != c.default)
    return [start, *(s for s in rest if s != start)]


def headline(explorer: Any) -> str:
    """The text of the explorer's titles for its current values, for the frame's alt text:
    every visible Text attribute named ``*title`` or list named ``*titles``, plain text."""
    texts: list[Text] = []
    for name, value in vars(explorer).items():
        if name.endswith("title") and isinstance(value, Text):
            texts.append(value)
        elif name.endswith("titles") and isinstance(value, list):
            texts += [t for t in value if isinstance(t, Text)]
    shown = [t.get_text().strip() for t in texts
             if t.get_visible() and (t.axes is None or t.axes.get_visible())]
    plain = "; ".join(text for text in shown if text)
    return re.sub(r"\\(\w+)", r"\1", plain.replace("$", ""))


def _current(explorer: Any, controls: Sequence[Control]) -> tuple[int, ...]:
    values = explorer.values()
    try:
        return tuple(c.values.index(values[c.name]) for c in controls)
    except ValueError:
        raise ValueError(f"{type(explorer).__name__}: the values {values} after a change are "
                         "not all among the site's values; declare them in site_values") from None


def sweep(explorer: Any, controls: Sequence[Control]) -> Iterator[tuple[tuple[int, ...],
                                                                      tuple[int, ...], bytes, str]]:
    """Set the controls to each state in turn, as a learner would; yield the state asked for,
    the state the explorer shows (a control may reset others), its PNG and its headline."""
    start, grid = tuple(c.default for c in controls), is_grid(controls)
    for state in states(controls):
        moved = [i for i, j in enumerate(state) if grid or j != start[i]]
        now = _current(explorer, controls)
        if not grid and any(now[i] != start[i] for i in range(len(controls)) if i not in moved):
            for c, j in zip(controls, start, strict=True):  # the others back to the start
                explorer.controls[c.name].value = c.values[j]
        for i in moved:
            explorer.controls[controls[i].name].value = controls[i].values[state[i]]
        yield state, _current(explorer, controls), bytes(explorer.image.value), headline(explorer)


def webp_of(png: bytes) -> bytes:
    """The PNG as lossless WebP, checked: its decoded pixels are the PNG's."""
    picture = Image.open(io.BytesIO(png))
    out = io.BytesIO()
    picture.save(out, "WEBP", **WEBP)
    pixels = np.asarray(picture.convert("RGBA"))
    again = np.asarray(Image.open(io.BytesIO(out.getvalue())).convert("RGBA"))
    if pixels.shape != again.shape or not np.array_equal(pixels, again):
        raise RuntimeError("the WebP frame does not decode to the explorer's pixels")
    return out.getvalue()


def draw(call: Call, folder: Path) -> dict[str, Any]:
    """Draw every frame of ``call`` into ``folder`` (created) and write its manifest.json."""
    start_time = time.perf_counter()
    explorer = call.construct()
    controls = controls_of(explorer)
    folder.mkdir(parents=True)
    files: dict[str, str] = {}  # PNG sha256 -> file name
    entries = {}
    for state, shown, png, text in sweep(explorer, controls):
        digest = hashlib.sha256(png).hexdigest()
        if digest not in files:
            files[digest] = f"{len(files):03d}.webp"
            (folder / files[digest]).write_bytes(webp_of(png))
        entries[",".join(map(str, state))] = [files[digest], list(shown), text or str(call),
                                                digest]
    width, height = explorer.css_size()
    manifest = {
        "call": str(call), "explorer": call.name, "grid": is_grid(controls),
        "size": [width, height], "controls": [asdict(c) for c in controls], "states": entries,
        "frames": {name: (folder / name).stat().st_size for name in files.values()},
        "seconds": round(time.perf_counter() - start_time, 2),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, default=_plain) + "\n")
    return manifest


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else str(value)


def code_digest() -> str:
    """What every frame depends on besides its call: the package, the lab's results, this module,
    the versions of the libraries that draw and encode, and the CPU features numpy runs on."""
    import ipywidgets
    import matplotlib
    import PIL

    digest = hashlib.sha256()
    files = sorted(p for p in (ROOT / "posenc_lib").rglob("*") if p.is_file()
                   and "__pycache__" not in p.parts)
    for path in [*files, *sorted((ROOT / "results").glob("lab_*.json")), Path(__file__)]:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    for module in (np, matplotlib, PIL, ipywidgets):
        digest.update(f"{module.__name__} {module.__version__}\0".encode())
    features = np._core._multiarray_umath.__cpu_features__
    digest.update(" ".join(sorted(k for k, on in features.items() if on)).encode())
    return digest.hexdigest()


def entry_name(call: Call, code: str) -> str:
    """The cache folder's name: the explorer's class and a digest of its call and the code."""
    return f"{call.name}-{hashlib.sha256((code + str(call)).encode()).hexdigest()[:16]}"


def _fill(call: Call, cache: Path, name: str, wait: bool) -> bool:
    """Draw ``call`` into cache/name unless it is there; False when another process is drawing
    it and ``wait`` is false. The drawing goes to a temporary folder, renamed when complete."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / f"{name}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        if not (cache / name / "manifest.json").exists():
            with tempfile.TemporaryDirectory(dir=cache) as scratch:
                draw(call, Path(scratch) / name)
                os.replace(Path(scratch) / name, cache / name)
    return True


def ensure(calls: Sequence[Call], cache: Path = CACHE, jobs: int | None = None) -> dict[Call, Path]:
    """The cache folder of every call, drawing the missing ones (``jobs`` processes at once, by
    default up to 2). Entries of the same explorers drawn from older code are removed."""
    code = code_digest()
    names = {call: entry_name(call, code) for call in dict.fromkeys(calls)}
    missing = [call for call, name in names.items()
               if not (cache / name / "manifest.json").exists()]
    jobs = min(jobs or min(os.cpu_count() or 1, 2), max(len(missing), 1))
    if missing:
        print(f"drawing the frames of {len(missing)} explorers into {cache} ...", file=sys.stderr)
    if missing and jobs > 1:
        with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
            done = list(pool.map(_fill, missing, [cache] * len(missing),
                                 [names[c] for c in missing], [False] * len(missing)))
        missing = [call for call, ok in zip(missing, done, strict=True) if not ok]
    for call in missing:
        _fill(call, cache, names[call], wait=True)
    keep = set(names.values())
    for call in names:
        for old in cache.glob(f"{call.name}-*"):
            if old.is_dir() and old.name not in keep and not old.name.endswith(".lock"):
                shutil.rmtree(old, ignore_errors=True)
    return {call: cache / name for call, name in names.items()}


def manifest(folder: Path) -> dict[str, Any]:
    return dict(json.loads((folder / "manifest.json").read_text()))

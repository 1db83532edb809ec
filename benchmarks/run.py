"""The course's benchmark: ratios against baselines measured in the same run, and times.

Usage::

    python benchmarks/run.py [--quick] [--out build/bench.json]

It prints a table and writes a JSON list of rows, each with ``name``, ``value``, ``unit``,
``baseline``, ``target`` and ``met``. Times are medians of several runs, shown with their min
and max. Nothing here fails a test on timing: the numbers are for people to read.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from posenc_lib import apply_rope, sinusoidal_encoding  # noqa: E402
from posenc_lib.frequencies import inverse_frequencies  # noqa: E402


@dataclass
class Row:
    name: str
    value: float
    unit: str
    baseline: str
    target: str
    met: bool
    spread: str = ""


@dataclass
class Timing:
    median: float
    low: float
    high: float

    def spread(self) -> str:
        ms = [t * 1e3 for t in (self.median, self.low, self.high)]
        return f"median {ms[0]:.2f} ms (min {ms[1]:.2f}, max {ms[2]:.2f})"


def timed(function: Callable[[], Any], repeat: int) -> Timing:
    """Median, min and max wall time of ``repeat`` calls (one warm-up call first)."""
    function()
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return Timing(statistics.median(times), min(times), max(times))


# --- 1. sinusoidal_encoding ----------------------------------------------------------------

def writeup_encoding(n: int, d: int, dtype: Any) -> np.ndarray:
    """The vectorised version the write-ups show: exp(-log) division term, strided writes."""
    position = np.arange(n, dtype=np.float64)[:, None]
    div_term = np.exp(np.arange(0, d, 2) * (-math.log(10000.0) / d))
    pe = np.zeros((n, d), dtype=dtype)
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def sin_and_cos(angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The floor any sinusoidal encoding pays: one sine and one cosine of every angle."""
    return np.sin(angles), np.cos(angles)


def loop_encoding(n: int, d: int) -> np.ndarray:
    """One element at a time, as notebook 02's loop does it (np.sin or np.cos per element)."""
    pe = np.zeros((n, d))
    for pos in range(n):
        for j in range(d):
            angle = pos / 10000 ** (2 * (j // 2) / d)
            pe[pos, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
    return pe


def peak_memory_ratio(function: Callable[[], np.ndarray]) -> float:
    """Peak memory traced during one call, as a multiple of the size of what it returns."""
    gc.collect()
    tracemalloc.start()
    result = function()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / result.nbytes


def bench_sinusoidal(quick: bool) -> list[Row]:
    n, d = (4096, 1024) if quick else (16384, 1024)
    repeat = 3 if quick else 7
    rows = []
    for dtype in (np.float32, np.float64):
        label = np.dtype(dtype).name
        angles = np.arange(n, dtype=np.float64)[:, None] * (10000.0 ** (-np.arange(0, d, 2) / d))
        library = timed(partial(sinusoidal_encoding, n, d, dtype=dtype), repeat)
        floor = timed(partial(sin_and_cos, angles), repeat)
        writeup = timed(partial(writeup_encoding, n, d, dtype), repeat)
        ratio_floor = library.median / floor.median
        ratio_writeup = library.median / writeup.median
        rows.append(Row(f"sinusoidal_encoding({n}, {d}) {label} vs bare sin+cos", ratio_floor,
                        "x", f"np.sin+np.cos: {floor.spread()}", "<= 1.1", ratio_floor <= 1.1,
                        library.spread()))
        rows.append(Row(f"sinusoidal_encoding({n}, {d}) {label} vs write-up version", ratio_writeup,
                        "x", f"exp(-log), pe[:, 0::2] = sin: {writeup.spread()}", "<= 1.0",
                        ratio_writeup <= 1.0, library.spread()))
        memory = peak_memory_ratio(partial(sinusoidal_encoding, n, d, dtype=dtype))
        rows.append(Row(f"sinusoidal_encoding({n}, {d}) {label} peak memory", memory,
                        "x output", "output array size", "<= 2.0", memory <= 2.0))
    small_n, small_d = 64, 128
    loop = timed(lambda: loop_encoding(small_n, small_d), 3)
    big = timed(lambda: sinusoidal_encoding(n, d), repeat)  # float64, as the loop
    per_element_loop = loop.median / (small_n * small_d)
    per_element_floor = floor.median / (n * d)  # bare sin+cos of the float64 run above
    speedup = per_element_loop / (big.median / (n * d))
    ceiling = per_element_loop / per_element_floor
    rows.append(Row(f"sinusoidal_encoding({n}, {d}) per element vs write-up loop "
                    f"({small_n}x{small_d}, scaled)", speedup, "x faster",
                    f"np.sin/np.cos per element: {loop.spread()}",
                    f"report; bare sin+cos reaches {ceiling:.0f}x", True,
                    f"library {n}x{d}: {big.spread()}"))
    return rows


# --- 2. apply_rope -------------------------------------------------------------------------

def rope_baseline(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, pairing: str) -> np.ndarray:
    """x * cos + rotate(x) * sin with ready-made (seq, d) cos/sin tables."""
    if pairing == "half":
        half = x.shape[-1] // 2
        rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    else:
        rotated = np.empty_like(x)
        rotated[..., 0::2] = -x[..., 1::2]
        rotated[..., 1::2] = x[..., 0::2]
    return x * cos + rotated * sin


def bench_rope(quick: bool) -> list[Row]:
    heads, seq, d = (32, 1024, 128) if quick else (32, 4096, 128)
    repeat = 3 if quick else 7
    x = np.random.default_rng(0).standard_normal((heads, seq, d)).astype(np.float32)
    positions = np.arange(seq)
    inv_freq = inverse_frequencies(d)
    angles = positions[:, None] * inv_freq[None, :]
    rows = []
    for pairing in ("interleaved", "half"):
        if pairing == "half":
            full = np.concatenate([angles, angles], axis=-1)
        else:
            full = np.repeat(angles, 2, axis=-1)
        cos, sin = np.cos(full).astype(np.float32), np.sin(full).astype(np.float32)
        baseline = timed(partial(rope_baseline, x, cos, sin, pairing), repeat)
        library = timed(partial(apply_rope, x, positions, inv_freq, pairing=pairing), repeat)
        ratio = library.median / baseline.median
        rows.append(Row(f"apply_rope({heads}x{seq}x{d}) float32 {pairing} vs x*cos+rotate(x)*sin",
                        ratio, "x", f"baseline: {baseline.spread()}", "<= 1.3", ratio <= 1.3,
                        library.spread()))
    return rows


# --- 3. import -----------------------------------------------------------------------------

def import_time(statement: str, repeat: int) -> Timing:
    def run() -> None:
        subprocess.run([sys.executable, "-c", statement], check=True, cwd=ROOT)

    return timed(run, repeat)


def bench_import(quick: bool) -> list[Row]:
    repeat = 3 if quick else 7
    numpy_alone = import_time("import numpy", repeat)
    course = import_time("import posenc_lib", repeat)
    extra = course.median - numpy_alone.median
    return [Row("import posenc_lib, extra over import numpy", extra, "s",
                f"import numpy: {numpy_alone.spread()}", "< 0.15", extra < 0.15, course.spread())]


# --- 4. explorers --------------------------------------------------------------------------

def next_value(control: Any) -> Any:
    """A different valid value for a slider, dropdown or checkbox."""
    options = getattr(control, "options", None)
    if options:
        values = [o[1] if isinstance(o, tuple) else o for o in options]
        return values[(values.index(control.value) + 1) % len(values)]
    if isinstance(control.value, bool):
        return not control.value
    if hasattr(control, "base"):  # FloatLogSlider: min, max and step are exponents
        exponent = math.log(control.value, control.base) + control.step
        if exponent > control.max + 1e-9:
            exponent = control.min
        return control.base**exponent
    step = getattr(control, "step", 1) or 1
    low, high = control.min, control.max
    candidate = control.value + step
    return candidate if candidate <= high else low


def explorer_ticks(cls: Any, repeat: int, pixel_ratio: float) -> list[float]:
    """Seconds of each callback (update + render) of a new ``cls`` drawn at ``pixel_ratio``."""
    from posenc_lib.widgets import Explorer

    default = Explorer.pixel_ratio
    Explorer.pixel_ratio = pixel_ratio
    try:
        explorer = cls()
    finally:
        Explorer.pixel_ratio = default
    times = []
    for control in explorer.controls.values():
        for _ in range(repeat):
            start = time.perf_counter()
            control.value = next_value(control)
            times.append(time.perf_counter() - start)
    return times


def bench_png(explorers: Sequence[Any], repeat: int) -> Row:
    """PNG encoding of every explorer's first picture: ISA-L (the course's) against zlib."""
    import zlib

    from posenc_lib.plots.style import png_bytes

    frames = [np.asarray(cls().canvas.buffer_rgba()).copy() for cls in explorers]
    course = timed(lambda: [png_bytes(frame) for frame in frames], repeat)
    plain = timed(lambda: [png_bytes(frame, zlib.compress) for frame in frames], repeat)
    size = sum(len(png_bytes(frame)) for frame in frames) / sum(
        len(png_bytes(frame, zlib.compress)) for frame in frames
    )
    n = len(frames)
    return Row("PNG of an explorer picture (ISA-L deflate), speed-up over zlib.compress",
               plain.median / course.median, "x",
               f"zlib level 1: {plain.median / n * 1e3:.1f} ms per picture",
               "> 1", plain.median > course.median,
               f"ISA-L level 1: {course.median / n * 1e3:.1f} ms per picture over {n} "
               f"explorers at pixel ratio 2, file size {size:.2f}x zlib's")


def bench_explorers(quick: bool) -> list[Row]:
    import matplotlib

    matplotlib.use("Agg")
    from posenc_lib.widgets import EXPLORERS

    repeat = 5 if quick else 15
    rows = [bench_png(EXPLORERS, repeat)]
    for cls in EXPLORERS:
        name = cls.__name__
        # baseline: the same ticks drawn at one pixel per CSS pixel (blurred on HiDPI screens)
        single = statistics.median(explorer_ticks(cls, repeat, 1.0)) * 1e3
        times = explorer_ticks(cls, repeat, cls.pixel_ratio)
        median = statistics.median(times) * 1e3
        rows.append(Row(f"explorer {name} callback (update + Agg render)", median, "ms",
                        f"pixel ratio 1: {single:.1f} ms ({median / single:.2f}x)", "< 50",
                        median < 50,
                        f"min {min(times) * 1e3:.1f}, max {max(times) * 1e3:.1f} ms over "
                        f"{len(times)} ticks, pixel ratio {cls.pixel_ratio:g}"))
    return rows


# --- 5. notebooks --------------------------------------------------------------------------

def execute_seconds(notebook: Any, folder: Path) -> float:
    from nbclient import NotebookClient

    start = time.perf_counter()
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(folder)}}).execute()
    return time.perf_counter() - start


def bench_notebooks(quick: bool) -> list[Row]:
    import nbformat

    folder = ROOT / "notebooks"
    empty = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
    startup = [execute_seconds(nbformat.from_dict(empty), folder) for _ in range(1 if quick else 3)]
    rows = [Row("kernel start-up alone (floor)", statistics.median(startup), "s",
                "none (absolute)", "-", True,
                f"min {min(startup):.2f}, max {max(startup):.2f} s")]
    total = 0.0
    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        seconds = execute_seconds(nbformat.read(path, as_version=4), folder)
        # the lab trains a model live; the gallery draws every registered figure (issue 48)
        limit = {"10": 180, "11": 15}.get(path.name[:2], 10)
        total += seconds if limit < 180 else 0.0
        rows.append(Row(f"notebook {path.name}", seconds, "s", "kernel start-up above",
                        f"< {limit}", seconds < limit))
    rows.append(Row("notebooks without the lab", total, "s", "sum of the above", "< 65",
                    total < 65))
    return rows


# --- 6. the lab (notebook 10) ---------------------------------------------------------------

def bench_lab(quick: bool) -> list[Row]:
    """JIT compile time, steps per second, compile reuse across schemes, one live model."""
    import jax

    from posenc_lib.lab.model import ModelConfig, init_params
    from posenc_lib.lab.schemes import position_inputs
    from posenc_lib.lab.tasks import make_batch
    from posenc_lib.lab.train import TrainConfig, _optimizer, _step_function

    cfg, tcfg = ModelConfig(), TrainConfig(steps=300)
    step = _step_function(cfg, tcfg)
    batch = make_batch("copy_back", np.random.default_rng(0), tcfg.batch, tcfg.length)
    state: dict[str, Any] = {}

    def first_step(scheme: str) -> float:
        params = init_params(jax.random.key(0), cfg)
        opt_state = _optimizer(tcfg).init(params)
        pos = position_inputs(scheme, tcfg.length, d_model=cfg.d_model, n_heads=cfg.n_heads)
        start = time.perf_counter()
        params, opt_state, loss = step(params, opt_state, *batch, pos)
        loss.block_until_ready()
        state.update(params=params, opt_state=opt_state, pos=pos)
        return time.perf_counter() - start

    compile_seconds = first_step("rope")
    reuse_seconds = first_step("alibi")  # same shapes: no new compilation

    def hundred_steps() -> None:
        params, opt_state = state["params"], state["opt_state"]
        for _ in range(100):
            params, opt_state, loss = step(params, opt_state, *batch, state["pos"])
        loss.block_until_ready()

    steady = timed(hundred_steps, 2 if quick else 5)
    per_second = 100 / steady.median
    live_code = ("from posenc_lib.lab.train import TrainConfig, train; "
                 "m = train('rope', 'copy_back', 0, tcfg=TrainConfig(steps=300), progress=False);"
                 " print(m.seconds, m.compile_seconds)")
    out = subprocess.run([sys.executable, "-c", live_code], check=True, cwd=ROOT,
                         capture_output=True, text=True).stdout.split()
    live_seconds, live_compile = float(out[0]), float(out[1])  # a fresh process: compiles
    reuse = reuse_seconds / compile_seconds
    return [
        Row("lab: jit compile of the training step (first step)", compile_seconds, "s",
            "none (absolute)", "-", True),
        Row("lab: first step of a 2nd scheme vs the compile", reuse, "x",
            f"compile: {compile_seconds:.2f} s", "<= 0.05", reuse <= 0.05,
            f"{reuse_seconds * 1e3:.1f} ms"),
        Row("lab: training steps per second (batch 16 x 32 tokens)", per_second, "steps/s",
            "none (absolute)", ">= 30", per_second >= 30, steady.spread() + " per 100 steps"),
        Row("lab: one live model, 300 steps incl. compile (notebook 10)", live_seconds, "s",
            "none (absolute)", "<= 20", live_seconds <= 20, f"compile {live_compile:.2f} s"),
    ]


# --- 7. figures ----------------------------------------------------------------------------

def bench_figures(quick: bool) -> list[Row]:
    import matplotlib

    matplotlib.use("Agg")
    import tempfile

    from posenc_lib.figures import REGISTRY, build_figure
    from posenc_lib.plots import save_figure

    total = 0.0
    rows = []
    with tempfile.TemporaryDirectory() as out:
        for name in list(REGISTRY):
            start = time.perf_counter()
            figure = build_figure(name)
            for fmt in ("svg", "png"):
                save_figure(figure, Path(out) / f"{name}.{fmt}")
            seconds = time.perf_counter() - start
            total += seconds
            rows.append(Row(f"figure {name} (svg + png)", seconds * 1e3, "ms", "none (absolute)",
                            "-", True))
    rows.append(Row("figures, all registered (svg + png)", total, "s", "sum of the above",
                    "< 30", total < 30))
    return rows


# --- 8. the gallery (notebook 11) -----------------------------------------------------------

def two_draw_png(name: str, dpi: float) -> bytes:
    """The gallery's first route: freeze the layout in a draw at 100 dpi (titles placed by
    matplotlib), then savefig at ``dpi`` (a second draw; Pillow's PNG writer)."""
    from posenc_lib.figures import get_figure
    from posenc_lib.plots import course_style, figure_png, freeze_layout

    with course_style():
        fig = freeze_layout(get_figure(name).unfrozen())  # type: ignore[misc]
        return figure_png(fig, dpi=dpi)


def medians_in_turn(routes: dict[str, Callable[[Any], Any]], items: Callable[[str], list[Any]],
                    repeats: int) -> dict[str, float]:
    """Median seconds each route takes over ``items(route)`` (fresh for every timing), the
    routes timed in turn so that all of them see the same machine load."""
    totals: dict[str, list[float]] = {route: [] for route in routes}
    for _ in range(repeats):
        for route, run in routes.items():
            inputs = items(route)
            gc.collect()
            start = time.perf_counter()
            for item in inputs:
                run(item)
            totals[route].append(time.perf_counter() - start)
    return {route: statistics.median(seconds) for route, seconds in totals.items()}


def bench_gallery(quick: bool) -> list[Row]:
    """Every registered figure as notebook 11 shows it (200 dpi), against the two-draw route."""
    import matplotlib

    matplotlib.use("Agg")
    from posenc_lib.figures import REGISTRY
    from posenc_lib.figures.gallery import _GALLERY_DPI, gallery_picture

    names = list(REGISTRY)
    routes = {"one draw": lambda n: gallery_picture(n).png,
              "two draws": lambda n: two_draw_png(n, _GALLERY_DPI)}
    sizes = {route: sum(len(draw(n)) for n in names) for route, draw in routes.items()}  # warm-up
    repeats = 1 if quick else 3
    new, old = medians_in_turn(routes, lambda route: names, repeats).values()
    return [
        Row(f"gallery: {len(names)} figures at {_GALLERY_DPI:g} dpi, one draw vs two", new / old,
            "x", f"two draws (freeze at 100 dpi, then savefig): {old:.2f} s", "<= 0.7",
            new / old <= 0.7, f"one draw: {new:.2f} s, median of {repeats}"),
        Row("gallery: PNG bytes, one draw vs two", sizes["one draw"] / sizes["two draws"], "x",
            f"Pillow's writer: {sizes['two draws'] / 1e6:.2f} MB", "<= 1.0",
            sizes["one draw"] <= sizes["two draws"]),
    ]


# --- 9. inline figures (every notebook) -----------------------------------------------------

def bench_inline(quick: bool) -> list[Row]:
    """Every registered figure shown inline as the notebooks show it (retina, 200 dpi): the
    course's one-draw formatter against IPython's own, which draws twice (tight bounding box)."""
    import matplotlib

    matplotlib.use("Agg")
    from IPython.core.pylabtools import retina_figure

    from posenc_lib.figures import REGISTRY, get_figure
    from posenc_lib.plots import course_style
    from posenc_lib.plots.style import _retina_png

    routes = {"one draw": lambda fig: _retina_png(fig, retina_figure),
              "IPython": lambda fig: retina_figure(fig, base64=True)}
    repeats = 1 if quick else 3
    with course_style():
        new, old = medians_in_turn(
            routes, lambda route: [get_figure(name).unfrozen() for name in REGISTRY],  # type: ignore[misc]
            repeats).values()
    return [Row(f"inline: {len(REGISTRY)} figures shown, one draw vs IPython's retina",
                new / old, "x", f"IPython (two draws, Pillow): {old:.2f} s", "<= 0.7",
                new / old <= 0.7, f"one draw: {new:.2f} s, median of {repeats}")]


# --- 10. where a figure's draw goes (notebook 11's time) ------------------------------------

def _simplified(fig: Any, change: str) -> Any:
    """``fig`` with one thing taken away, to time what that thing costs in a draw."""
    if change == "no layout engine":
        fig.set_layout_engine("none")
    for ax in fig.axes:
        if change == "no minor ticks":
            ax.minorticks_off()
        if change == "no tick labels":
            ax.tick_params(labelbottom=False, labelleft=False, labeltop=False, labelright=False)
    return fig


def bench_draw(quick: bool) -> list[Row]:
    """The registered figures drawn to PNG at the gallery's 200 dpi as they are, and with their
    layout engine, minor ticks or tick labels taken away: how much of notebook 11's time each
    of these costs (a report for the decision on fewer or simpler figures, not a target)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    from posenc_lib.figures import REGISTRY, get_figure
    from posenc_lib.figures.gallery import _GALLERY_DPI
    from posenc_lib.plots import course_style

    def draw(fig: Any) -> None:
        fig.savefig(io.BytesIO(), format="png", dpi=_GALLERY_DPI)

    def figures(change: str) -> list[Any]:
        return [_simplified(get_figure(name).unfrozen(), change)  # type: ignore[misc]
                for name in REGISTRY]

    changes = ("as drawn", "no layout engine", "no minor ticks", "no tick labels")
    repeats = 1 if quick else 3
    with course_style():
        for fig in figures("as drawn"):
            draw(fig)  # warm-up: the text and mathtext caches, the same for every change
        per_change = medians_in_turn(dict.fromkeys(changes, draw), figures, repeats)
    whole = per_change["as drawn"]
    return [Row(f"draw: {len(REGISTRY)} figures at {_GALLERY_DPI:g} dpi, {change} vs as drawn",
                median / whole, "x", f"as drawn: {whole:.2f} s", "report", True,
                f"{change}: {median:.2f} s, median of {repeats}")
            for change, median in per_change.items() if change != "as drawn"]


SECTIONS: dict[str, Callable[[bool], list[Row]]] = {
    "sinusoidal": bench_sinusoidal,
    "rope": bench_rope,
    "import": bench_import,
    "explorers": bench_explorers,
    "lab": bench_lab,
    "notebooks": bench_notebooks,
    "figures": bench_figures,
    "gallery": bench_gallery,
    "inline": bench_inline,
    "draw": bench_draw,
}


def print_table(rows: list[Row]) -> None:
    width = max(len(r.name) for r in rows)
    print(f"{'benchmark':<{width}}  {'value':>10}  {'unit':<9} {'target':<8} met")
    for r in rows:
        print(f"{r.name:<{width}}  {r.value:>10.3f}  {r.unit:<9} {r.target:<8} "
              f"{'yes' if r.met else 'NO'}")
        detail = "; ".join(part for part in (r.spread, f"baseline: {r.baseline}") if part)
        print(f"{'':<{width}}    {detail}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--only", choices=sorted(SECTIONS), action="append", help="sections")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "bench.json")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    for name, section in SECTIONS.items():
        if args.only and name not in args.only:
            continue
        print(f"running {name} ...", flush=True)
        rows += section(args.quick)
    print_table(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps([asdict(r) for r in rows], indent=1), encoding="utf-8")
    missed = sum(not r.met for r in rows)
    print(f"\n{len(rows)} figures, {missed} target(s) missed; written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

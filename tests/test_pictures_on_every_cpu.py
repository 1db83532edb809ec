"""The pictures do not depend on the CPU's SIMD path.

numpy's AVX-512 and scalar log10, exp and power differ in the last bit for some values, and Agg
turns a last-bit change of a vertex on a straight run into other pixels (the joins of nearly
collinear segments); ``posenc_lib.plots`` strokes lines without those joins
(:class:`~posenc_lib.plots._common.StraightRuns`). Checked here:

- a line keeps its data, and the stroke's vertices stay within twice the tolerance of it;
- a straight line on a log axis gives the same pixels when every vertex moves by a last bit
  (it does not without the effect);
- under `make test-baseline` (every SIMD group numpy dispatches switched off, as on a CPU
  without AVX2 or AVX-512): every explorer of a notebook, constructed as its cell constructs
  it, shows at load the pixels of the PNG stored in the notebook, and every catalogue figure
  draws the pixels of its committed PNG. With those groups on, tests/test_site_explorers.py
  (byte for byte) and tests/test_figures.py (within an RMS tolerance) check the same pictures,
  so these two skip there.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import nbformat
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
from PIL import Image

from posenc_lib.figures import REGISTRY, build_figure
from posenc_lib.plots import course_style, draw_curves
from posenc_lib.plots._common import STRAIGHT_TOLERANCE, _straight_run_ends
from tools.explorer_frames import WIDGET_MIME, explorer_cells

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SIMD_ON = sorted(name for name in __cpu_dispatch__ if __cpu_features__.get(name))
scalar_only = pytest.mark.skipif(
    bool(SIMD_ON), reason=f"numpy dispatches to {SIMD_ON}: `make test-baseline` runs this"
)


def _distance_to_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Euclidean distance from p to the segment ab, by projection clamped to [0, 1]."""
    t = np.clip(np.dot(p - a, b - a) / np.dot(b - a, b - a), 0.0, 1.0)
    return float(np.linalg.norm(p - (a + t * (b - a))))


def test_the_stroke_keeps_corners_and_stays_within_twice_the_tolerance() -> None:
    # a straight run (collinear but for last bits), a corner, a gentle dense arc, a spike back
    run = np.c_[np.linspace(0.0, 300.0, 40), np.linspace(10.0, 250.0, 40)]
    run[1:-1] *= 1.0 + np.random.default_rng(0).integers(-2, 3, (38, 2)) * 2.0**-52
    # radius 1e8 pixels over 1000: each vertex is within 1e-9 of its neighbours' chord, the
    # whole arc bows 1.25e-3 pixel away from its own chord
    angle = np.linspace(0.0, 1e-5, 4000)
    arc = np.c_[300.0 + 1e8 * np.sin(angle), 250.0 + 1e8 * (1.0 - np.cos(angle))]
    xy = np.concatenate([run, arc[1:], arc[-2::-100][:3]])
    keep = _straight_run_ends(xy, STRAIGHT_TOLERANCE)
    assert keep[0] == 0 and keep[-1] == len(xy) - 1 and 39 in keep  # ends, corner
    assert not set(range(1, 39)) & set(keep), "the straight run keeps only its ends"
    assert len(xy) - 4 in keep, "the spike's tip, where the line turns back, is kept"
    for start, stop in zip(keep, keep[1:], strict=False):
        for i in range(start + 1, stop):
            assert _distance_to_segment(xy[i], xy[start], xy[stop]) <= 2 * STRAIGHT_TOLERANCE


def _log_line_pixels(y: np.ndarray, through_the_library: bool) -> np.ndarray:
    fig = Figure(figsize=(3.0, 2.0), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    x = np.arange(y.size)
    if through_the_library:
        (line,) = draw_curves(ax, x, {"a": y}, yscale="log", legend=False, linestyle="--").values()
        assert np.array_equal(line.get_ydata(), y), "the line keeps every data point"
    else:
        ax.plot(x, y, "--")
        ax.set_yscale("log")
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba()).copy()  # type: ignore[attr-defined]


@pytest.mark.parametrize("through_the_library", [True, False])
def test_a_last_bit_of_a_straight_log_line_does_not_reach_a_pixel(
    through_the_library: bool,
) -> None:
    """A geometric sequence is straight on a log axis; moving each vertex by up to two last
    bits (as another CPU's log10 may) leaves the library's pixels as they were, while a plain
    matplotlib line changes for most such moves (the reason for the effect)."""
    y = 0.8 ** np.arange(64.0)
    first = _log_line_pixels(y, through_the_library)
    changed = 0
    for seed in range(6):
        bits = np.random.default_rng(seed).integers(-2, 3, y.size)
        changed += not np.array_equal(_log_line_pixels(y * (1 + bits * 2.0**-53),
                                                       through_the_library), first)
    if through_the_library:
        assert changed == 0
    else:
        assert changed >= 3, "a plain line should show the sensitivity the effect removes"


def _stored_explorers() -> list[object]:
    params = []
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        for index, call in explorer_cells(notebook).items():
            output = next(o for o in notebook.cells[index].outputs
                          if WIDGET_MIME in o.get("data", {}))
            png = base64.b64decode(output["data"]["image/png"])
            params.append(pytest.param(call, png, id=f"{path.stem[:2]}-{call}"))
    return params


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


@scalar_only
@pytest.mark.parametrize(("call", "stored"), _stored_explorers())
def test_an_explorer_at_load_shows_the_stored_picture_on_the_scalar_path(call, stored) -> None:
    """Pixels, not bytes: the PNG's deflate stream comes from ISA-L when it is installed, whose
    own CPU paths are not numpy's; the picture a learner sees is the decoded pixels."""
    ours, theirs = _pixels(bytes(call.construct().image.value)), _pixels(stored)
    assert ours.shape == theirs.shape
    moved = int((ours != theirs).any(axis=-1).sum())
    assert moved == 0, f"{call}: {moved} pixels differ from the notebook's picture at load"


@scalar_only
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_figure_draws_its_committed_pixels_on_the_scalar_path(name: str) -> None:
    with course_style():  # drawn as save_figure draws it, without encoding a PNG
        canvas = FigureCanvasAgg(build_figure(name))
        canvas.draw()
    fresh = np.asarray(canvas.buffer_rgba())
    committed = _pixels((ROOT / "figures" / f"{name}.png").read_bytes())
    assert fresh.shape == committed.shape
    moved = int((fresh != committed).any(axis=-1).sum())
    assert moved == 0, f"{name}: {moved} pixels differ from figures/{name}.png"

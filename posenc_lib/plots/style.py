"""The course style (``course.mplstyle``) and ``save_figure``, which writes SVG, PNG or PDF bytes
that depend only on the figure, atomically. No backend is selected here.

Notebooks: 00_why_position to 11_figure_gallery (each calls :func:`use_course_style` first).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import io
import os
import struct
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import matplotlib as mpl
import matplotlib.style
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from posenc_lib._checks import check_float, check_int

try:  # ISA-L (the optional extra "fast", in the dev install) writes zlib streams faster
    from isal.isal_zlib import compress as _deflate
except ImportError:  # pragma: no cover - exercised by a test in a subprocess without isal
    _deflate = zlib.compress

__all__ = [
    "SAVE_FORMATS", "course_style", "draw_png", "figure_png", "freeze_layout", "new_figure",
    "png_bytes", "save_figure", "use_course_style", "write_atomically",
]

_COURSE_STYLE: Path = Path(__file__).with_name("course.mplstyle")
"""Path of the course style file (package data)."""

SAVE_FORMATS: dict[str, str] = {".svg": "svg", ".png": "png", ".pdf": "pdf"}
"""File suffixes ``save_figure`` accepts, mapped to the matplotlib format name."""

_METADATA: dict[str, dict[str, Any]] = {
    "svg": {"Date": None},
    "png": {"Software": None},
    "pdf": {"CreationDate": None, "Creator": None, "Producer": None},
}


def use_course_style() -> None:
    """Make the course style the default for every figure created from now on.

    It sets a (7, 4) inch figure at 100 dpi, DejaVu Sans, the Okabe-Ito colour cycle, viridis,
    constrained layout and a fixed ``svg.hashsalt``; in IPython, inline figures are stored at
    twice their pixels ("retina") so they stay sharp at the same size, drawn once (see
    ``_retina_png``).
    """
    matplotlib.style.use(_COURSE_STYLE)
    ipython = sys.modules.get("IPython")  # never imported here: outside IPython nothing changes
    if ipython is None or ipython.get_ipython() is None:
        return
    try:
        from IPython.core.pylabtools import retina_figure
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # pragma: no cover - ipykernel always brings matplotlib_inline
        return
    set_matplotlib_formats("retina")  # kept by the inline backend if it is set up again later
    formatter = ipython.get_ipython().display_formatter.formatters["image/png"]
    formatter.for_type(Figure, functools.partial(_retina_png, fallback=retina_figure))


def _retina_png(fig: Figure, fallback: Callable[..., Any]) -> Any:
    """IPython's retina PNG of ``fig`` (twice its dpi, shown at its size), drawn once.

    IPython draws a figure twice, once to measure the tight bounding box of what it holds, and
    writes it with Pillow. A constrained layout keeps what is drawn inside the figure, so one
    draw and ``png_bytes`` show the same, faster; a figure that draws past its edges (a long
    title, say) goes IPython's way (``fallback``), so nothing is cut off.
    """
    if not fig.axes and not fig.lines:
        return None  # as IPython: an empty figure shows nothing
    dpi = fig.get_dpi()
    with _drawn_at(fig, 2 * dpi) as canvas:
        drawn = fig.get_tightbbox(canvas.get_renderer())  # inches
        width, height = fig.get_size_inches()
        slack = 1 / (2 * dpi)  # one pixel of the picture
        inside = (drawn.x0 > -slack and drawn.y0 > -slack and drawn.x1 < width + slack
                  and drawn.y1 < height + slack)
        rgba = np.asarray(canvas.buffer_rgba())
        png = png_bytes(rgba, dpi=2 * dpi) if inside else None
    if png is None:
        return fallback(fig, base64=True)
    shown = {"width": rgba.shape[1] // 2, "height": rgba.shape[0] // 2}
    return base64.b64encode(png).decode("ascii"), shown


def course_style() -> contextlib.AbstractContextManager[None]:
    """Context manager applying the course style inside a ``with`` block only."""
    return matplotlib.style.context(_COURSE_STYLE)


def _check_figure(fig: Any) -> Figure:
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure; got {type(fig).__name__}")
    return fig


def _resolution(dpi: Any) -> float | str:
    return "figure" if dpi is None else check_float("dpi", dpi, greater_than=0.0)


def new_figure(
    nrows: int = 1,
    ncols: int = 1,
    *,
    figsize: tuple[float, float] | None = None,
    **subplot_kw: Any,
) -> tuple[Figure, Any]:
    """Create a ``Figure`` and its axes without pyplot (collected like any object, no leak)."""
    nrows = check_int("nrows", nrows)
    ncols = check_int("ncols", ncols)
    if figsize is not None and (not isinstance(figsize, (tuple, list)) or len(figsize) != 2):
        raise ValueError(f"figsize must be a pair (width, height) in inches; got {figsize!r}")
    for k, inches in enumerate(figsize or ()):
        check_float(f"figsize[{k}]", inches, greater_than=0.0)
    fig = Figure(figsize=figsize)
    return fig, fig.subplots(nrows, ncols, **subplot_kw)


def freeze_layout(fig: Figure) -> Figure:
    """Run the figure's layout engine once now and keep the result for every later draw.

    Constrained layout starts from the positions of the previous draw, so a PNG saved after an
    SVG could differ by a fraction of a pixel from one saved first; a frozen figure's files
    depend on the figure alone. Add nothing after freezing. Returns ``fig``.
    """
    if _check_figure(fig).get_layout_engine() is not None:
        fig.draw_without_rendering()
        fig.set_layout_engine("none")
    return fig


def figure_png(fig: Figure, *, dpi: float | None = None) -> bytes:
    """The PNG bytes of ``fig`` without metadata, as ``save_figure(fig, "x.png", dpi=dpi)`` writes.

    ``dpi`` defaults to the figure's own. It shows many figures cheaply:
    ``IPython.display.Image(figure_png(fig, dpi=60))``.
    """
    _check_figure(fig)
    resolution = _resolution(dpi)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=resolution, metadata=_METADATA["png"])
    return buffer.getvalue()


def draw_png(fig: Figure, *, dpi: float) -> bytes:
    """PNG bytes of ``fig`` drawn once at ``dpi``, and its layout frozen as that draw made it.

    The layout engine runs inside this one draw, at ``dpi``, and is then switched off (like
    :func:`freeze_layout`, which lays out at the figure's own dpi in a draw of its own). The
    pixels are those ``figure_png`` paints after ``freeze_layout`` at ``dpi``, on the figure's
    own facecolor (the course style's ``savefig.facecolor`` is the same white); the file is
    smaller and faster to write (``png_bytes`` tries one filter where matplotlib tries five).
    """
    _check_figure(fig)
    dpi = check_float("dpi", dpi, greater_than=0.0)
    with _drawn_at(fig, dpi) as canvas:
        fig.set_layout_engine("none")
        return png_bytes(np.asarray(canvas.buffer_rgba()), zlib.compress, level=6, dpi=dpi)


@contextlib.contextmanager
def _drawn_at(fig: Figure, dpi: float) -> Iterator[FigureCanvasAgg]:
    """Draw ``fig`` once at ``dpi`` on an Agg canvas, give the canvas, then restore the dpi."""
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    original = fig.get_dpi()
    fig.set_dpi(dpi)
    try:
        canvas.draw()
        yield canvas
    finally:
        fig.set_dpi(original)


def png_bytes(rgba: np.ndarray, compress: Callable[[Any, int], bytes] | None = None, *,
        level: int = 1, dpi: float | None = None) -> bytes:
    """A PNG of an (h, w, 4) uint8 RGBA image, each row "Up"-filtered, f_r = (x_r - x_(r-1)) mod
    256 with x_(-1) = 0, deflated at ``level`` by ``compress`` (ISA-L when installed, else zlib).
    Given ``dpi`` (written in a pHYs chunk), an image whose every pixel is opaque is stored as RGB.
    """
    height, width, channels = rgba.shape
    if dpi is not None and bool((rgba[..., 3] == 255).all()):
        channels = 3
    pixels = np.ascontiguousarray(rgba[..., :channels], dtype=np.uint8).reshape(height,
        width * channels)
    rows = np.empty((height, 1 + width * channels), dtype=np.uint8)
    rows[:, 0] = 2  # filter type "Up"
    rows[0, 1:] = pixels[0]
    np.subtract(pixels[1:], pixels[:-1], out=rows[1:, 1:])  # contiguous rows: fast
    header = struct.pack(">IIBBBBB", width, height, 8, 2 if channels == 3 else 6, 0, 0, 0)
    chunks = [(b"IHDR", header), (b"IDAT", (compress or _deflate)(rows.data, level)),
        (b"IEND", b"")]
    if dpi is not None:
        per_metre = round(dpi / 0.0254)
        chunks.insert(1, (b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)))
    return b"\x89PNG\r\n\x1a\n" + b"".join(struct.pack(">I", len(data)) + tag + data
        + struct.pack(">I", zlib.crc32(tag + data)) for tag, data in chunks)


def save_figure(fig: Figure, path: str | os.PathLike[str], *, dpi: float | None = None) -> Path:
    """Save ``fig`` deterministically and atomically; the format comes from the suffix.
    The SVG ``Date``, PNG ``Software`` and PDF ``CreationDate``/``Creator``/``Producer`` are
    dropped and ``svg.hashsalt`` is fixed, so saving twice gives identical files. The bytes go to
    a temporary file in the same directory, renamed over the target with ``os.replace``; if
    drawing fails the temporary file is removed and the target left untouched.
    """
    _check_figure(fig)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike; got {type(path).__name__}")
    target = Path(path)
    if target.suffix.lower() not in SAVE_FORMATS:
        allowed = ", ".join(SAVE_FORMATS)
        raise ValueError(f"path must end with one of {allowed}; got {str(target)!r}")
    fmt = SAVE_FORMATS[target.suffix.lower()]
    resolution = _resolution(dpi)
    if not target.parent.is_dir():
        raise ValueError(f"path must be in an existing directory; got {str(target)!r}")
    with mpl.rc_context({"svg.hashsalt": "posenc-course"}):
        return write_atomically(target, lambda stream: fig.savefig(stream, format=fmt,
            dpi=resolution, metadata=_METADATA[fmt]))


def write_atomically(target: Path, write: Callable[[BinaryIO], object]) -> Path:
    """Call ``write`` on a temporary file beside ``target``, then rename it over ``target``
    (mode 644); if ``write`` fails the temporary file is removed and ``target`` left untouched."""
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
        suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(temporary)
        raise
    return target

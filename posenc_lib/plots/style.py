"""The course style and a deterministic, atomic ``save_figure``.

Notebooks: 00_why_position to 11_figure_gallery (each calls :func:`use_course_style` in its
first cell; 11_figure_gallery builds, freezes, shows and saves the registered figures).

Every picture of the course (notebooks, widgets, the figure builder) uses one style file,
``course.mplstyle``, shipped next to this module. ``save_figure`` writes SVG, PNG or PDF files
whose bytes depend only on the figure: no dates, no software versions, fixed SVG ids. It writes
to a temporary file in the target directory and renames it, so an interrupted save never leaves
a truncated file behind.

Importing this module does not select a backend: notebooks keep their inline backend, and the
command line and the tests select Agg themselves.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import matplotlib as mpl
import matplotlib.style
from matplotlib.figure import Figure

from posenc_lib._checks import check_float, check_int

__all__ = [
    "COURSE_STYLE",
    "SAVE_FORMATS",
    "course_style",
    "figure_png",
    "freeze_layout",
    "new_figure",
    "save_figure",
    "use_course_style",
]

COURSE_STYLE: Path = Path(__file__).with_name("course.mplstyle")
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

    Every notebook calls it in its first cell.

    Returns
    -------
    None
        The global ``matplotlib.rcParams`` are updated in place.

    Notes
    -----
    The style sets a (7, 4) inch figure at 100 dpi, DejaVu Sans, the Okabe-Ito colour-blind
    friendly colour cycle, ``viridis`` as the default colormap, constrained layout and the
    settings that make saved files reproducible (fixed ``svg.hashsalt``).

    Examples
    --------
    >>> import matplotlib as mpl
    >>> with mpl.rc_context():
    ...     use_course_style()
    ...     print(tuple(mpl.rcParams["figure.figsize"]), mpl.rcParams["image.cmap"])
    (7.0, 4.0) viridis
    """
    matplotlib.style.use(COURSE_STYLE)
    _sharp_inline_figures()


def _sharp_inline_figures() -> None:
    """In a notebook, store inline figures with twice the pixels, shown at the same size.

    IPython's "retina" format saves each figure at twice its dpi and records the display size
    in the output's metadata, so a figure stays as wide on the page and sharp on a screen with
    two device pixels per CSS pixel. Outside IPython nothing changes (IPython is not imported).
    """
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # pragma: no cover - ipykernel always brings matplotlib_inline
        return
    set_matplotlib_formats("retina")


def course_style() -> contextlib.AbstractContextManager[None]:
    """Context manager applying the course style inside a ``with`` block only.

    The figure builder draws inside it.

    Returns
    -------
    contextlib.AbstractContextManager
        On exit the previous ``rcParams`` are restored.

    Examples
    --------
    >>> import matplotlib as mpl
    >>> with course_style():
    ...     print(mpl.rcParams["svg.hashsalt"])
    posenc-course
    """
    return matplotlib.style.context(COURSE_STYLE)


def new_figure(
    nrows: int = 1,
    ncols: int = 1,
    *,
    figsize: tuple[float, float] | None = None,
    **subplot_kw: Any,
) -> tuple[Figure, Any]:
    """Create a pyplot-free ``Figure`` and its axes (nothing is registered with pyplot).

    Parameters
    ----------
    nrows, ncols : int
        Grid of axes, as in ``Figure.subplots``.
    figsize : tuple of two floats, optional
        Size in inches; the current ``figure.figsize`` rcParam when omitted.
    **subplot_kw
        Passed on to ``Figure.subplots`` (for example ``sharex=True``).

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : Axes or ndarray of Axes
        A single ``Axes`` for a 1 x 1 grid, else an array of shape (nrows, ncols) squeezed as
        ``Figure.subplots`` does.

    Notes
    -----
    Figures made this way are garbage collected like any object, so building many of them in a
    loop leaks nothing (pyplot keeps every figure it creates until it is closed).

    Examples
    --------
    >>> fig, ax = new_figure(figsize=(3.0, 2.0))
    >>> print(fig.get_size_inches(), type(ax).__name__)
    [3. 2.] Axes
    """
    nrows = check_int("nrows", nrows)
    ncols = check_int("ncols", ncols)
    size = None
    if figsize is not None:
        if not isinstance(figsize, (tuple, list)) or len(figsize) != 2:
            raise ValueError(f"figsize must be a pair (width, height) in inches; got {figsize!r}")
        size = (
            check_float("figsize[0]", figsize[0], greater_than=0.0),
            check_float("figsize[1]", figsize[1], greater_than=0.0),
        )
    fig = Figure(figsize=size)
    axes = fig.subplots(nrows, ncols, **subplot_kw)
    return fig, axes


def freeze_layout(fig: Figure) -> Figure:
    """Run the figure's layout engine once now and keep the result for every later draw.

    Every registered figure is frozen this way.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A finished figure (add nothing after freezing: the layout will not adapt).

    Returns
    -------
    matplotlib.figure.Figure
        ``fig`` itself, with its layout engine replaced by a placeholder.

    Notes
    -----
    Constrained layout starts from the positions left by the previous draw and stops after a
    fixed number of passes, so a PNG saved after an SVG can differ by a fraction of a pixel
    from a PNG saved first. Freezing makes each file depend on the figure alone.

    Examples
    --------
    >>> fig, ax = new_figure()
    >>> _ = ax.set_title("a title")
    >>> position = freeze_layout(fig).axes[0].get_position().bounds
    >>> fig.draw_without_rendering()
    >>> fig.axes[0].get_position().bounds == position
    True
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure; got {type(fig).__name__}")
    if fig.get_layout_engine() is not None:
        fig.draw_without_rendering()
        fig.set_layout_engine("none")
    return fig


def figure_png(fig: Figure, *, dpi: float | None = None) -> bytes:
    """The PNG bytes of ``fig``, drawn once in memory, without metadata (reproducible).

    It shows many figures cheaply: ``IPython.display.Image(figure_png(fig, dpi=60))``.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to draw.
    dpi : float, optional
        Resolution; the figure's own dpi when omitted.

    Returns
    -------
    bytes
        A PNG file: the same bytes as ``save_figure(fig, "name.png", dpi=dpi)`` writes.

    Examples
    --------
    >>> fig, ax = new_figure(figsize=(2.0, 1.0))
    >>> png = figure_png(fig, dpi=50)
    >>> png[:4], png == figure_png(fig, dpi=50)
    (b'\\x89PNG', True)
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure; got {type(fig).__name__}")
    resolution: float | str = "figure" if dpi is None else check_float("dpi", dpi, greater_than=0)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=resolution, metadata=_METADATA["png"])
    return buffer.getvalue()


def _format_for(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in SAVE_FORMATS:
        allowed = ", ".join(SAVE_FORMATS)
        raise ValueError(f"path must end with one of {allowed}; got {str(path)!r}")
    return SAVE_FORMATS[suffix]


def save_figure(fig: Figure, path: str | os.PathLike[str], *, dpi: float | None = None) -> Path:
    """Save ``fig`` deterministically and atomically; the format comes from the suffix.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to save.
    path : str or os.PathLike
        Target file ending in ``.svg``, ``.png`` or ``.pdf``. Its directory must exist.
    dpi : float, optional
        Resolution in dots per inch (PNG pixels, images embedded in SVG/PDF); the figure's own
        dpi when omitted.

    Returns
    -------
    pathlib.Path
        The path written.

    Notes
    -----
    Reproducible bytes: the SVG ``Date`` is dropped and ``svg.hashsalt`` fixed (the ids of clip
    paths come from that salt), PNG loses its ``Software`` text chunk and PDF its
    ``CreationDate``, ``Creator`` and ``Producer``. Saving the same figure twice, in the same
    process or in two, gives identical files.

    Atomic: the file is first written to a temporary file in the same directory, then renamed
    over the target with ``os.replace`` (atomic on POSIX and Windows). If drawing fails midway,
    the temporary file is removed and the target is left untouched.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> fig, ax = new_figure(figsize=(2.0, 1.5))
    >>> _ = ax.plot([0, 1], [0, 1])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     first = save_figure(fig, pathlib.Path(tmp) / "line.svg").read_bytes()
    ...     second = save_figure(fig, pathlib.Path(tmp) / "line.svg").read_bytes()
    >>> first == second
    True
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure; got {type(fig).__name__}")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike; got {type(path).__name__}")
    target = Path(path)
    fmt = _format_for(target)
    resolution: float | str = "figure"
    if dpi is not None:
        resolution = check_float("dpi", dpi, greater_than=0.0)
    directory = target.parent
    if not directory.is_dir():
        raise ValueError(f"path must be in an existing directory; got {str(target)!r}")
    handle, temporary = tempfile.mkstemp(
        dir=directory, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as stream, mpl.rc_context({"svg.hashsalt": "posenc-course"}):
            fig.savefig(stream, format=fmt, dpi=resolution, metadata=_METADATA[fmt])
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(temporary)
        raise
    return target

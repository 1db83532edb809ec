"""posenc_lib.figures: the registry of the course's figures and its command line.

Notebook: 11_figure_gallery.

Every figure of the source write-ups (and the course's own signature figures) is registered
with its source, a one-line description and a function whose keyword defaults reproduce the
source. Build one in Python with ``build_figure("heatmap_002", d_model=64)``, or from the shell::

    python -m posenc_lib.figures list
    python -m posenc_lib.figures build heatmap_002 --out figures --set cmap=viridis
    python -m posenc_lib.figures gallery --out figures

Importing this package does not select a matplotlib backend (notebook 11 uses it inline); the
command line selects Agg.
"""

from __future__ import annotations

from posenc_lib.figures import catalog as _catalog  # noqa: F401  (registers the figures
from posenc_lib.figures.cli import main
from posenc_lib.figures.registry import REGISTRY, FigureSpec, build_figure, figure_names, get_figure

__all__ = ["REGISTRY", "FigureSpec", "build_figure", "figure_names", "get_figure", "main"]

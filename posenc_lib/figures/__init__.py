"""posenc_lib.figures: the registry of the course's figures (``build_figure("heatmap_002",
d_model=64)``) and its command line (``python -m posenc_lib.figures list|build|gallery``).

Notebook: 11_figure_gallery.
"""

from __future__ import annotations

from posenc_lib._extras import missing_extra

try:
    import matplotlib  # noqa: F401 - the extra's check: its modules import them below
except ModuleNotFoundError as error:
    raise missing_extra(__name__, "plots", error) from error

from posenc_lib.figures import catalog as _catalog  # noqa: F401  (registers the figures
from posenc_lib.figures import catalog_context as _context  # noqa: F401  (06 and 08)
from posenc_lib.figures import catalog_long as _long  # noqa: F401  (06, 07, 09: issue 48)
from posenc_lib.figures import catalog_models as _models  # noqa: F401  (07 and 09)
from posenc_lib.figures.cli import main
from posenc_lib.figures.registry import REGISTRY, FigureSpec, build_figure, get_figure

__all__ = ["REGISTRY", "FigureSpec", "build_figure", "get_figure", "main"]

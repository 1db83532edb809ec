"""``python -m posenc_lib.figures``: see ``posenc_lib.figures.cli``.

Notebook: 11_figure_gallery.
"""

from __future__ import annotations

from posenc_lib.figures.cli import main

raise SystemExit(main())

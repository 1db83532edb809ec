"""Make nbgrader's feedback pages typeset their formulas offline.

Usage::

    python tools/offline_feedback.py [FEEDBACK_DIR]   # default: build/nbgrader/feedback

``nbgrader generate_feedback`` writes pages that load MathJax from a CDN, so without a network
their formulas stay raw. This copies the MathJax that ``jupyter-server-mathjax`` ships (a dev
dependency) into ``FEEDBACK_DIR/mathjax/`` and points every page's MathJax script at it, with a
path relative to the page. Run it after each ``generate_feedback``; running it twice is harmless.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make tools/ importable
    sys.path.insert(0, str(ROOT))

from tools.build_html import MATHJAX_DIR, bundle_mathjax  # noqa: E402

CDN_MATHJAX = re.compile(r"https://cdnjs\.cloudflare\.com/ajax/libs/mathjax/[^\"'\s]*")
LOCAL_CONFIG = "MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"  # a config the copy ships


def localize(folder: Path) -> list[Path]:
    """Bundle MathJax into ``folder`` and rewrite the pages under it; return the pages changed."""
    if not folder.is_dir():
        raise SystemExit(f"error: FEEDBACK_DIR {folder} is not a folder; run "
                         "`nbgrader generate_feedback` first")
    bundle_mathjax(folder)
    changed = []
    for page in sorted(folder.rglob("*.html")):
        if MATHJAX_DIR in page.relative_to(folder).parts:
            continue
        text = page.read_text(encoding="utf-8")
        local = Path(os.path.relpath(folder / MATHJAX_DIR, page.parent)).as_posix()
        new = CDN_MATHJAX.sub(f"{local}/{LOCAL_CONFIG}", text)
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed.append(page)
    return changed


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else ROOT / "build" / "nbgrader" / "feedback"
    changed = localize(folder)
    print(f"{len(changed)} feedback pages now load MathJax from {folder / MATHJAX_DIR}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

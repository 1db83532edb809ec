"""Where the end-to-end test finds the course, Chromium and its output directory.

Environment overrides, for developing the harness: E2E_NOTEBOOKS_DIR (default notebooks/),
E2E_OUTPUT_DIR (default build/e2e/), E2E_CHROMIUM (default /usr/bin/chromium, Debian's package).
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS_DIR = Path(os.environ.get("E2E_NOTEBOOKS_DIR", REPO / "notebooks")).resolve()
OUTPUT_DIR = Path(os.environ.get("E2E_OUTPUT_DIR", REPO / "build" / "e2e")).resolve()
CHROMIUM = os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 900}
# The copy of notebooks/ sits in this folder of the server's temporary root.
COURSE_DIR_NAME = "notebooks"
# ... and the notebooks as stored (outputs kept, never run by the test) in this one.
STORED_DIR_NAME = "stored"


def course_notebooks() -> list[Path]:
    """The course notebooks, NN_name.ipynb, in order."""
    return sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))


# The static sites of test_site_offline.py and test_site_axe.py: name -> flags of
# tools/build_html.py.
SITES = {"full": [], "student": ["--student"]}

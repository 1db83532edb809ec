"""Reading the course notebooks for the structure and exercise tests."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def source(cell: dict[str, Any]) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def tags(cell: dict[str, Any]) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def solution_blocks(path: Path) -> list[str]:
    """The code between the solution markers of every cell tagged ``solution``."""
    blocks = []
    for cell in load(path)["cells"]:
        if "solution" in tags(cell):
            match = re.search(re.escape(BEGIN) + r"\n(.*?)\n?" + re.escape(END), source(cell), re.S)
            if match:
                blocks.append(match.group(1).strip())
    return blocks

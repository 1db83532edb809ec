"""Where the labels of two points on the unit circle go, so that they never overprint.

Notebooks: 04_rotation_proof and 08_numerical_precision.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib.text import Text
from numpy.typing import ArrayLike


def place_circle_labels(labels: Sequence[Text], start: ArrayLike, end: ArrayLike, *,
        radius: float = 1.12, spread: float = 0.6) -> None:
    """Label two points of the unit circle at ``radius``, ``spread`` apart: with wrapped gap
    g = b - a < spread, at a + g/2 -+ spread sign(g)/2.
    """
    (x0, y0), (x1, y1) = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    a, b = math.atan2(y0, x0), math.atan2(y1, x1)
    gap = (b - a + math.pi) % (2.0 * math.pi) - math.pi
    if abs(gap) < spread:
        middle, side = a + gap / 2.0, 1.0 if gap >= 0 else -1.0
        a, b = middle - side * spread / 2.0, middle + side * spread / 2.0
    for label, angle in zip(labels, (a, b), strict=True):
        label.set_position((radius * math.cos(angle), radius * math.sin(angle)))

"""Where the labels of two points on the unit circle go, so that they never overprint.

Notebooks: 04_rotation_proof and 08_numerical_precision (the unit-circle explorers).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib.text import Text
from numpy.typing import ArrayLike

__all__ = ["place_circle_labels"]


def place_circle_labels(
    labels: Sequence[Text],
    start: ArrayLike,
    end: ArrayLike,
    *,
    radius: float = 1.12,
    spread: float = 0.6,
) -> None:
    r"""Put the labels of two points of the unit circle beside them, at least ``spread`` apart.

    Each label sits on the circle of ``radius`` at its point's angle; when the two angles are
    closer than ``spread`` radians (a slow pair, a tiny rounding error), both labels move away
    from their middle angle to ``spread / 2`` on either side, the second point's label on its
    own side (the first one's below when the points coincide).

    Parameters
    ----------
    labels : sequence of two matplotlib.text.Text
        The labels of ``start`` and ``end``, centred on their positions.
    start, end : array_like, shape (2,)
        The two points (x, y).
    radius : float, default 1.12
        Distance of the labels from the centre.
    spread : float, default 0.6
        Smallest angle between the labels, in radians.

    Notes
    -----
    With angles :math:`a, b` and signed gap :math:`g = b - a` wrapped to :math:`(-\pi, \pi]`,
    close labels go to :math:`a + g/2 \mp s\,\mathrm{sign}(g)/2` (sign 1 for :math:`g = 0`).
    """
    (x0, y0), (x1, y1) = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    a, b = math.atan2(y0, x0), math.atan2(y1, x1)
    gap = (b - a + math.pi) % (2.0 * math.pi) - math.pi
    if abs(gap) < spread:
        middle, side = a + gap / 2.0, 1.0 if gap >= 0 else -1.0
        a, b = middle - side * spread / 2.0, middle + side * spread / 2.0
    for label, angle in zip(labels, (a, b), strict=True):
        label.set_position((radius * math.cos(angle), radius * math.sin(angle)))

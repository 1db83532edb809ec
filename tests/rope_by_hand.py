"""RoPE frequencies written out with plain loops and math, never with the library: the
independent side of the tests that check what ``posenc_lib`` reads from a config."""

from __future__ import annotations

import math


def theta(d: int, base: float) -> list[float]:
    """theta_i = 1 / base^(2i/d), a loop."""
    return [1.0 / base ** (2 * i / d) for i in range(d // 2)]


def yarn_by_hand(d: int, base: float, s: float, length: int) -> list[float]:
    """YaRN as the reference code ramps it: linear in the pair index between two bounds."""
    def bound(turns: float) -> float:
        return d * math.log(length / (turns * 2 * math.pi)) / (2 * math.log(base))

    low, high = max(math.floor(bound(32)), 0), min(math.ceil(bound(1)), d - 1)
    out = []
    for i in range(d // 2):
        t = base ** (-2 * i / d)
        gamma = min(max((i - low) / (high - low), 0.0), 1.0)  # 1 = fully interpolated
        out.append(t * (1 - gamma) + t / s * gamma)
    return out

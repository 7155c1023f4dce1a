"""Small statistics shared by the counts fairnb reports (ground floor: imports nothing of fairnb).

>>> low, high = wilson_interval(5, 10)
>>> round(low, 3), round(high, 3)
(0.237, 0.763)
"""
from __future__ import annotations

import math


def wilson_interval(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion (``(0, 1)`` when ``n`` is 0)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))

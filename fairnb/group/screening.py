"""Which frequent rule sets are worth scoring: no group whose complement is rare, no repeated groups.

Two checks run before TestSGD scores the frequent rule sets:

* **complement support**: a group that holds all but a few training records ("everyone but 3
  students") is compared with those few; its score is noise however precise its bound looks. A rule
  set is kept only when the records *outside* its group also reach the support threshold ``theta``.
* **near-duplicates**: rule sets that select (almost) the same training records, such as
  ``age in [25, 45)`` and ``age in [25, 45) and race in {White, Black, Other, Asian}``, describe one
  group; only the first (fewest rules, Apriori order) is scored, and the others are listed as its
  ``aliases``. "Almost": a weighted Jaccard overlap (shared records / records in either) of at
  least ``overlap`` (TestSGD uses 0.95: on census, ``age = 16-25`` and ``race in {White, Black}
  and age = 16-25`` differ by 2% of their records and score within 1%).

>>> import numpy as np
>>> covers = np.array([[1, 1, 0, 0], [1, 1, 0, 1], [1, 1, 1, 1], [0, 0, 1, 1]], bool)  # rule sets x cells
>>> counts = np.array([40, 40, 18, 2])                                                 # records per cell
>>> screen(covers, counts, theta=0.05).tolist()
['keep', 'duplicate of 0', 'complement below support', 'keep']
"""
from __future__ import annotations

import numpy as np


def screen(covers: np.ndarray, counts: np.ndarray, *, theta: float, overlap: float = 0.95,
           chunk: int = 256) -> np.ndarray:
    """Per rule set (row of ``covers``, a (r, U) membership of the U cells holding ``counts``
    training records each): ``"keep"``, ``"complement below support"``, ``"duplicate of <i>"``
    (``i`` the kept row it repeats), or ``"empty"`` (no record inside). The overlaps are computed
    ``chunk`` rule sets against all at a time, fewer where that would pass ``fairnb.oracle.MEMORY_BUDGET``."""
    from ..oracle import rows_per_call

    covers = np.asarray(covers, bool)
    w = np.asarray(counts, float)
    if not 0 < overlap <= 1:
        raise ValueError(f"overlap must be in (0, 1], got {overlap!r}")
    total = w.sum()
    inside = covers @ w
    verdict = np.full(len(covers), "keep", dtype=object)
    verdict[inside <= 0] = "empty"
    outside = total - inside
    verdict[(inside > 0) & ((outside <= 0) | (outside < theta * total * (1 - 1e-9)))] = "complement below support"
    live = np.flatnonzero(verdict == "keep")
    weighted = (covers[live] * w).astype(np.float32)
    first = np.full(len(live), -1)
    chunk = min(chunk, rows_per_call(24 * len(live)))   # float32 intersections, float64 unions, bools
    for a in range(0, len(live), chunk):
        inter = covers[live[a:a + chunk]].astype(np.float32) @ weighted.T                # (c, n)
        union = inside[live[a:a + chunk], None] + inside[live][None, :] - inter
        similar = inter >= overlap * union
        for k, row in enumerate(similar):
            earlier = np.flatnonzero(row[:a + k])
            first[a + k] = earlier[0] if len(earlier) else -1
    for k in range(len(live)):      # a repeat of a repeat points to the rule set that is kept
        j = first[k]
        while j >= 0 and first[j] >= 0:
            j = first[j]
        if j >= 0:
            verdict[live[k]] = f"duplicate of {live[j]}"
    return verdict

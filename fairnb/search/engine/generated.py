"""Counting the distinct inputs a search generated (the papers' #GDiff / ``num_all_id``).

The engine counts every checked candidate (``Result.tried``, duplicates included); the papers also
report how many *distinct* inputs were generated, under the same two conventions as the IDIs
(``"eidig"``: full instances, ``"adf"``: without the protected attributes), on the same
``domain.key`` as ``fairnb.counting.UniqueCounter``. It is that counter's compact form for bounded
integer domains: it keeps one integer code per checked row (a mixed-radix number over the bounds of
the keys), so a million candidates cost 16 MB and no Python object each. On a domain too large for such a
code (e.g. 32 features of 4 values: 2^64 inputs) the code is a 64-bit hash of the row instead, so two
distinct inputs are counted as one with probability about ``n^2 / 2^65`` (1e-8 for 600,000 inputs).

Counting is incremental, so that it never holds a search past its time budget: the codes are merged
into one sorted array of distinct codes whenever the unmerged ones reach a quarter of it, and
``count`` only has to place the (few) unmerged codes, at most about one batch's worth of work.

Example
-------
>>> from fairnb.domains import Feature, TabularDomain
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
>>> g = GeneratedInputs(dom)
>>> g.add([[0, 3], [1, 3], [0, 3]])
>>> g.count("eidig"), g.count("adf")
(2, 1)
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...counting import mixed_radix
from ...domains.base import CONVENTIONS, check_convention

class GeneratedInputs:
    """Accumulates the rows a search checked and counts the distinct ones under each convention."""

    MIN_MERGE = 1 << 16   # unmerged codes kept before the first merge

    def __init__(self, domain):
        self.domain = domain
        self._low = {c: domain.key(domain.lower[None], c)[0] for c in CONVENTIONS}
        self._radix = {c: mixed_radix(self._low[c], domain.key(domain.upper[None], c)[0]) for c in CONVENTIONS}
        self._distinct = {c: np.zeros(0, np.int64) for c in CONVENTIONS}   # sorted distinct codes
        self._pending: dict[str, list[np.ndarray]] = {c: [] for c in CONVENTIONS}
        self._n_pending = {c: 0 for c in CONVENTIONS}

    def _codes(self, X: np.ndarray, conv: str) -> np.ndarray:
        radix, keys = self._radix[conv], self.domain.key(X, conv)
        if radix is None:   # huge domain: a 64-bit hash of the row
            return pd.util.hash_pandas_object(pd.DataFrame(keys), index=False).to_numpy().view(np.int64)
        return (keys - self._low[conv]) @ radix

    def add(self, X) -> None:
        """Record a batch of checked rows (inside the domain's bounds)."""
        X = np.asarray(X, dtype=float)
        if not len(X):
            return
        for conv in CONVENTIONS:
            codes = self._codes(X, conv)
            self._pending[conv].append(codes)
            self._n_pending[conv] += len(codes)
            if self._n_pending[conv] >= max(self.MIN_MERGE, len(self._distinct[conv]) // 4):
                self._merge(conv)

    def _merge(self, conv: str) -> None:
        """The pending codes into the sorted distinct ones: only the new codes are sorted, then the two sorted
        runs are merged (a stable sort of two runs is one linear pass), not the whole array sorted again."""
        distinct, new = self._distinct[conv], np.unique(np.concatenate(self._pending[conv]))
        if len(distinct):
            new = new[distinct[np.minimum(np.searchsorted(distinct, new), len(distinct) - 1)] != new]
        self._distinct[conv] = np.sort(np.concatenate([distinct, new]), kind="stable")
        self._pending[conv], self._n_pending[conv] = [], 0

    def codes(self, convention: str = "eidig") -> np.ndarray:
        """``(n, 1)`` the sorted distinct codes recorded (``fairnb.distributed`` unites the shards' codes)."""
        if self._pending[check_convention(convention)]:
            self._merge(convention)
        return self._distinct[convention][:, None]

    def count(self, convention: str = "eidig") -> int:
        """Distinct rows recorded so far."""
        distinct, pending = self._distinct[check_convention(convention)], self._pending[convention]
        if not pending:
            return len(distinct)
        new = np.unique(np.concatenate(pending))
        pos = np.minimum(np.searchsorted(distinct, new), max(len(distinct) - 1, 0))
        known = distinct[pos] == new if len(distinct) else np.zeros(len(new), bool)
        return len(distinct) + int((~known).sum())

"""Counting the distinct inputs a search generated (the papers' #GDiff / ``num_all_id``).

The engine counts every checked candidate (``Result.tried``, duplicates included); the papers also
report how many *distinct* inputs were generated, under the same two conventions as the IDIs
(``"eidig"``: full instances, ``"adf"``: without the protected attributes). ``GeneratedInputs`` keeps
one integer code per checked row (a mixed-radix number over the domain's bounds), so a million
candidates cost 16 MB and counting them is one ``np.unique``.

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

from ..oracle import CONVENTIONS, dedup_keys

_MAX_CODE = 2 ** 62


def _radix(lower: np.ndarray, upper: np.ndarray) -> np.ndarray | None:
    """Place values of a mixed-radix code over the bounds, or None if the code would overflow int64."""
    sizes = (upper - lower + 1).astype(float)
    if np.prod(sizes) >= _MAX_CODE:
        return None
    return np.concatenate([np.cumprod(sizes[::-1])[::-1][1:], [1.0]]).astype(np.int64)


class GeneratedInputs:
    """Accumulates the rows a search checked and counts the distinct ones under each convention."""

    def __init__(self, domain):
        self.domain = domain
        keep = np.setdiff1d(np.arange(domain.n_features), list(domain.protected))
        self._columns = {"eidig": np.arange(domain.n_features), "adf": keep}
        self._radix = {c: _radix(domain.lower[cols], domain.upper[cols]) for c, cols in self._columns.items()}
        self._parts: dict[str, list[np.ndarray]] = {c: [] for c in CONVENTIONS}

    def add(self, X) -> None:
        """Record a batch of checked rows (inside the domain's bounds)."""
        X = np.asarray(X, dtype=float)
        if not len(X):
            return
        for conv, cols in self._columns.items():
            radix = self._radix[conv]
            if radix is None:   # huge domain: keep the rows themselves
                self._parts[conv].append(dedup_keys(X, self.domain, conv))
            else:
                codes = (np.rint(X[:, cols]).astype(np.int64) - self.domain.lower[cols].astype(np.int64)) @ radix
                self._parts[conv].append(codes)

    def count(self, convention: str = "eidig") -> int:
        """Distinct rows recorded so far."""
        if convention not in CONVENTIONS:
            raise ValueError(f"unknown counting convention {convention!r}; choose from {CONVENTIONS}")
        parts = self._parts[convention]
        if not parts:
            return 0
        merged = np.concatenate(parts)
        unique = np.unique(merged, axis=0 if merged.ndim == 2 else None)
        self._parts[convention] = [unique]
        return len(unique)

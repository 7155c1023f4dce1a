"""``UniqueCounter``: the one way fairnb counts distinct inputs, on ``domain.key(items, convention)``.

The Result's IDI counts, AEQUITAS's and SG's "generated" counts all use it, so every count is
unique under a stated convention (``"eidig"``: full inputs, ``"adf"``: without the protected part)
for any domain kind whose ``key`` returns integer rows or hashable values.

Example
-------
>>> from fairnb.domains import Feature, TabularDomain
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
>>> c = UniqueCounter(dom, "adf")
>>> c.add([[0, 3], [1, 3], [0, 4]]).tolist(), len(c)
([True, False, True], 2)
"""
from __future__ import annotations

import numpy as np

from .domains.base import check_convention


def hashable_keys(keys) -> list:
    """One hashable value per input: the rows of an integer matrix as bytes (fast: no per-row numpy
    calls), any other sequence as it is.

    >>> hashable_keys(np.array([[1, 2], [1, 2]]))[0] == hashable_keys(np.array([[1, 2]]))[0], hashable_keys(["a"])
    (True, ['a'])
    """
    if isinstance(keys, np.ndarray) and keys.ndim == 2:
        keys = np.ascontiguousarray(keys)
        return keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel().tolist()
    return list(keys)


class UniqueCounter:
    """Distinct inputs of a domain under ``convention``, each with the value given when first seen
    (e.g. the time it was found).

    ``fresh`` only computes which inputs are new, ``commit`` stores them: a caller that must stay
    consistent under Ctrl-C computes first and commits in one step. ``add`` does both.
    """

    def __init__(self, domain, convention: str):
        self.domain = domain
        self.convention = check_convention(convention)
        self._first: dict = {}

    def keys(self, items) -> list:
        """The hashable keys of ``items`` under this counter's convention."""
        return hashable_keys(self.domain.key(items, self.convention))

    def fresh(self, items, limit: int | None = None) -> dict:
        """``{key: index}`` of the first occurrence of each input not seen before, in order, at most ``limit``."""
        seen, out = self._first, {}
        for i, k in enumerate(self.keys(items)):
            if limit is not None and len(out) >= limit:
                break
            if k not in seen and k not in out:
                out[k] = i
        return out

    def commit(self, keys, value=None) -> None:
        """Store ``keys`` (from ``fresh``) as seen, with ``value`` where not seen before."""
        for k in keys:
            self._first.setdefault(k, value)

    def add(self, items, value=None) -> np.ndarray:
        """Store ``items``; returns the (n,) mask of the ones not seen before (first occurrences)."""
        fresh = self.fresh(items)
        self.commit(fresh, value)
        mask = np.zeros(len(items), bool)
        mask[list(fresh.values())] = True
        return mask

    def values(self) -> np.ndarray:
        """The value stored with each distinct input, in the order first seen."""
        return np.array(list(self._first.values()), dtype=float)

    def copy(self) -> "UniqueCounter":
        out = UniqueCounter.__new__(UniqueCounter)
        out.domain, out.convention, out._first = self.domain, self.convention, dict(self._first)
        return out

    def __contains__(self, key) -> bool:
        return key in self._first

    def __len__(self) -> int:
        return len(self._first)

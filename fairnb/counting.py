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


def first_occurrences(keys) -> np.ndarray:
    """Indices of the first occurrence of each distinct key, in order, without a Python object per row
    for an integer key matrix (its rows as one mixed-radix int64 code when that fits, else as raw bytes).

    >>> first_occurrences(np.array([[1, 2], [0, 5], [1, 2]])).tolist(), first_occurrences(["a", "b", "a"]).tolist()
    ([0, 1], [0, 1])
    """
    if not (isinstance(keys, np.ndarray) and keys.ndim == 2 and keys.dtype.kind in "iu"):
        first: dict = {}
        for i, k in enumerate(hashable_keys(keys)):
            first.setdefault(k, i)
        return np.fromiter(first.values(), dtype=np.int64, count=len(first))
    if not len(keys):
        return np.zeros(0, np.int64)
    low = keys.min(axis=0).astype(np.int64)
    sizes = keys.max(axis=0).astype(np.int64) - low + 1
    if np.prod(sizes.astype(float)) < 2.0 ** 62:
        place = np.concatenate([np.cumprod(sizes[::-1])[::-1][1:], [1]]).astype(np.int64)
        rows = (keys - low) @ place
    else:
        keys = np.ascontiguousarray(keys)
        rows = keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel()
    return np.sort(np.unique(rows, return_index=True)[1])


class UniqueCounter:
    """Distinct inputs of a domain under ``convention``, each with the value given when first seen
    (e.g. the time it was found).

    ``fresh`` only computes which inputs are new, ``commit`` stores them: a caller that must stay
    consistent under Ctrl-C computes first and commits in one step. ``add`` does both.
    """

    def __init__(self, domain, convention: str):
        self.domain = domain
        self.convention = check_convention(convention)
        self._dict: dict | None = {}
        self._lazy = None        # (items or key rows, values, whether keys): ``of_items``'s, a dict on first use
        self._known_len = None
        self._row = None         # (dtype, width) of integer key rows, for ``key_rows`` to read bytes keys back

    @classmethod
    def of_items(cls, domain, convention: str, items, values=None, *, n_distinct: int | None = None) -> "UniqueCounter":
        """A counter holding ``items`` in order (``values``: one per item, or None; ``n_distinct``: how many
        distinct keys they have, when the caller knows), built lazily and
        without a Python object per item: ``len`` computes the distinct keys with numpy, and the dict
        that ``fresh`` and ``commit`` use is made on their first call (a Result shipped from a Dask
        worker and merged on the client may never need it)."""
        out = cls(domain, convention)
        out._dict, out._lazy, out._known_len = None, (items, values, False), n_distinct
        return out

    def _distinct(self):
        """``(key rows, values)`` of the lazily held items, each distinct key once."""
        items, values, done = self._lazy
        if not done:
            keys = self.domain.key(items, self.convention)
            first = first_occurrences(keys)
            keys = keys[first] if isinstance(keys, np.ndarray) else [keys[i] for i in first]
            values = None if values is None else np.asarray(values, dtype=float)[first]
            self._lazy = keys, values, True
            return keys, values
        return items, values

    @property
    def _first(self) -> dict:
        if self._dict is None:
            keys, values = self._distinct()
            keys = hashable_keys(keys)
            self._dict = dict(zip(keys, values.tolist())) if values is not None else dict.fromkeys(keys)
            self._lazy = None
        return self._dict

    def keys(self, items) -> list:
        """The hashable keys of ``items`` under this counter's convention."""
        keys = self.domain.key(items, self.convention)
        if isinstance(keys, np.ndarray) and keys.ndim == 2:
            self._row = (keys.dtype, keys.shape[1])
        return hashable_keys(keys)

    def key_rows(self):
        """The distinct keys held, in order: an integer matrix for a domain whose keys are integer rows (no
        Python object per row once made), else a list."""
        if self._dict is None:
            return self._distinct()[0]
        keys = list(self._dict)
        if self._row is None or not all(isinstance(k, bytes) for k in keys):
            return keys
        return np.frombuffer(b"".join(keys), dtype=self._row[0]).reshape(len(keys), self._row[1])

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
        if self._dict is None:
            keys, values = self._distinct()
            return values if values is not None else np.full(len(keys), np.nan)
        return np.array(list(self._dict.values()), dtype=float)

    def copy(self) -> "UniqueCounter":
        out = UniqueCounter.__new__(UniqueCounter)
        out.domain, out.convention = self.domain, self.convention
        out._lazy, out._known_len, out._row = self._lazy, self._known_len, self._row
        out._dict = None if self._dict is None else dict(self._dict)
        return out

    def __contains__(self, key) -> bool:
        return key in self._first

    def __len__(self) -> int:
        if self._dict is not None:
            return len(self._dict)
        return self._known_len if self._known_len is not None else len(self._distinct()[0])

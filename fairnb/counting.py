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

from collections.abc import Mapping

import numpy as np

from .domains.base import check_convention
from .interrupts import deferred_interrupts


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
    if mixed_radix(low, low + sizes - 1) is not None:
        rows = np.zeros(len(keys), np.int64)
        for j in range(keys.shape[1]):      # column by column: no (n, d) int64 temporary
            rows *= sizes[j]
            rows += keys[:, j] - low[j]
    else:
        keys = np.ascontiguousarray(keys)
        rows = keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel()
    return np.sort(np.unique(rows, return_index=True)[1])


class UniqueCounter:
    """Distinct inputs of a domain under ``convention``, each with the value given when first seen
    (e.g. the time it was found).

    ``fresh`` only computes which inputs are new, ``commit`` stores them: a caller that must stay
    consistent under Ctrl-C computes first and commits in one step. ``add`` does both. ``note`` stores inputs
    whose mask nobody reads (a count of everything generated): their codes wait and are looked up together,
    once they are as many as ``NOTED`` or a quarter of the keys held, or when anything reads the counter.

    Each distinct key is held as one code (``KeyCodes``: 8 bytes on a bounded tabular domain) in sorted
    runs and in the order first seen, about 16 bytes a key (24 with values) and no Python object per key,
    so a search that keeps millions of inputs counts them in tens of megabytes.
    """

    def __init__(self, domain, convention: str):
        self.domain = domain
        self.convention = check_convention(convention)
        self._codes = KeyCodes(domain, self.convention)
        self._runs = SortedRuns()
        self._order: list[np.ndarray] = []          # the codes in the order first seen, in chunks
        self._values: list[np.ndarray] | None = None   # their values, once some value was given
        self._state = object()  # new at each commit (and in a copy): a ``Fresh`` of the same state needs no re-check
        self._noted: list[np.ndarray] = []     # codes of ``note``'s inputs not looked up yet
        self._n_noted = 0

    @classmethod
    def of_items(cls, domain, convention: str, items, values=None) -> "UniqueCounter":
        """A counter holding ``items`` in order (``values``: one per item, or None), each distinct key with the
        value of its first occurrence."""
        out = cls(domain, convention)
        fresh = out.fresh(items)
        out.commit(fresh, None if values is None else np.asarray(values, dtype=float)[fresh.index])
        return out

    def keys(self, items) -> np.ndarray:
        """The codes (``KeyCodes``) of ``items``' keys under this counter's convention, one per input."""
        keys = self.domain.key(items, self.convention)
        codes = self._codes.encode(keys)
        if codes is None:       # a key outside the domain's bounds: every code becomes its key row's bytes
            with deferred_interrupts():
                old, self._codes = self._codes, self._codes.widened(keys)
                recode = lambda held: self._codes.encode(old.decode(held))   # noqa: E731
                self._runs.recode(recode)
                self._order = [recode(c) for c in self._order]
                self._noted = [recode(c) for c in self._noted]
            codes = self._codes.encode(keys)
        return codes

    def key_rows(self):
        """The distinct keys held, in the order first seen: an integer matrix for a domain whose keys are
        integer rows, else a list."""
        return self._codes.decode(self._ordered())

    def note(self, items) -> None:
        """Store ``items`` as ``add`` does, later: the same keys held, in the same order, once anything reads
        the counter.

        >>> from fairnb.domains import Feature, TabularDomain
        >>> c = UniqueCounter(TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"]), "eidig")
        >>> c.note([[0, 3], [1, 3]]); c.note([[0, 3], [0, 4]]); len(c), c.key_rows().tolist()
        (3, [[0, 3], [1, 3], [0, 4]])
        """
        codes = self.keys(items)
        self._noted.append(codes)
        self._n_noted += len(codes)
        if self._n_noted >= max(NOTED, len(self._runs) // 4):
            self._look_up_noted()

    def _look_up_noted(self) -> None:
        """Store the codes that ``note`` holds back (in one look-up: fewer, larger searches of the runs)."""
        if self._noted:
            fresh = self._fresh_codes(np.concatenate(self._noted) if len(self._noted) > 1 else self._noted[0])
            with deferred_interrupts():
                self._noted, self._n_noted = [], 0
                self.commit(fresh)

    def fresh(self, items, limit: int | None = None) -> "Fresh":
        """The first occurrence of each input not seen before, in order, at most ``limit``: their positions
        (``.index``) and key codes (``.codes``); as a mapping, ``{code: index}``."""
        self._look_up_noted()
        return self._fresh_codes(self.keys(items), limit)

    def _fresh_codes(self, codes: np.ndarray, limit: int | None = None) -> "Fresh":
        if not len(codes):
            return Fresh(codes, np.zeros(0, np.int64), self._state)
        order = np.argsort(codes, kind="stable")    # sorted: look-ups walk each run in order
        ordered = codes[order]
        first = np.empty(len(codes), bool)          # the first of each distinct code, in the sorted order
        first[0] = True
        first[1:] = ordered[1:] != ordered[:-1]
        new = np.sort(order[first][~self._runs.contains(ordered[first])])[:limit]
        return Fresh(codes[new], new, self._state)

    def commit(self, keys, value=None) -> None:
        """Store ``keys`` (distinct codes from ``fresh``) as seen, with ``value`` where not seen before (one for
        all, or one per key; None: none)."""
        self._look_up_noted()
        if isinstance(keys, Fresh) and keys.state is self._state:    # nothing stored since ``fresh``
            codes = keys.codes
        else:
            codes = self._codes.array(list(keys))
            new = ~self._runs.contains(codes)
            codes, value = codes[new], value if np.ndim(value) == 0 else np.asarray(value, float)[new]
        if not len(codes):
            return
        self._state = object()
        self._runs.add(codes)
        self._order.append(codes)
        if value is not None and self._values is None:
            self._values = [np.full(len(c), np.nan) for c in self._order[:-1]]
        if self._values is not None:
            self._values.append(np.broadcast_to(np.asarray(np.nan if value is None else value, float),
                                                (len(codes),)).copy())

    def held(self, items) -> np.ndarray:
        """The (n,) mask of ``items`` seen before.

        >>> from fairnb.domains import Feature, TabularDomain
        >>> c = UniqueCounter(TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"]), "eidig")
        >>> c.add([[0, 3]]).tolist(), c.held([[0, 3], [1, 3]]).tolist()
        ([True], [True, False])
        """
        self._look_up_noted()
        return self._runs.contains(self.keys(items))

    def add(self, items, value=None) -> np.ndarray:
        """Store ``items``; returns the (n,) mask of the ones not seen before (first occurrences)."""
        fresh = self.fresh(items)
        self.commit(fresh, value)
        mask = np.zeros(len(items), bool)
        mask[fresh.index] = True
        return mask

    def values(self) -> np.ndarray:
        """The value stored with each distinct input, in the order first seen (NaN where none was given)."""
        self._look_up_noted()
        if self._values is None:
            return np.full(len(self), np.nan)
        self._values = [np.concatenate(self._values)] if len(self._values) > 1 else self._values
        return self._values[0] if self._values else np.zeros(0)

    def _ordered(self) -> np.ndarray:
        self._look_up_noted()
        if len(self._order) > 1:
            self._order = [np.concatenate(self._order)]
        return self._order[0] if self._order else self._codes.array([])

    @property
    def nbytes(self) -> int:
        """Bytes held by the counter's arrays: its codes, twice (sorted, and in the order first seen), the sorted
        codes' filter (``SortedRuns``) and their values."""
        self._look_up_noted()
        return self._runs.nbytes + self._runs.codes_nbytes + (8 * len(self) if self._values is not None else 0)

    def copy(self) -> "UniqueCounter":
        """A counter that holds the same keys and changes apart from this one (the arrays are shared: neither
        changes them in place)."""
        self._look_up_noted()
        out = UniqueCounter.__new__(UniqueCounter)
        out.domain, out.convention, out._codes = self.domain, self.convention, self._codes.copy()
        out._runs, out._order = self._runs.copy(), list(self._order)
        out._values = None if self._values is None else list(self._values)
        out._state, out._noted, out._n_noted = object(), [], 0
        return out

    def __len__(self) -> int:
        self._look_up_noted()
        return len(self._runs)


class KeyCodes:
    """One exact, orderable code per key of a domain. A bounded domain's (``lower``, ``upper``: a tabular one)
    integer key rows: a mixed-radix int64 over the bounds where that fits, else the bytes of the row in the
    narrowest integer dtype of the bounds (a byte a feature of up to 128 values); other integer key rows (token
    ids, image digests): the row's bytes; other keys: the key itself (an object array).

    >>> from fairnb.domains import Feature, TabularDomain
    >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
    >>> codes = KeyCodes(dom, "eidig")
    >>> codes.encode(dom.key([[1, 3], [0, 9]], "eidig")).tolist(), codes.decode(np.array([13])).tolist()
    ([13, 9], [[1, 3]])
    """

    def __init__(self, domain, convention: str):
        self.low = self.high = self.place = self.span = None
        self.row = None      # (dtype, width) of key rows held as bytes
        if all(hasattr(domain, m) for m in ("clip", "lower", "upper")):
            low, high = (domain.key(np.asarray(b, dtype=float)[None], convention)[0]
                         for b in (domain.lower, domain.upper))
            self.low, self.high, self.place = low, high, mixed_radix(low, high)
            self.span = _span(low, high)
            if self.place is None:
                self.row = (_narrowest(low.min(), high.max()), len(low))

    def copy(self) -> "KeyCodes":
        out = KeyCodes.__new__(KeyCodes)
        out.__dict__.update(self.__dict__)
        return out

    def encode(self, keys) -> np.ndarray | None:
        """The codes of ``keys`` (``domain.key``'s), or None when a key lies outside the bounds that the codes
        assume (``widened`` codes hold any key row)."""
        if not (isinstance(keys, np.ndarray) and keys.ndim == 2 and keys.dtype.kind in "iu"):
            return self.array(keys if isinstance(keys, list) else list(keys))
        if self.low is not None:
            # offsets from the lower bounds, modulo 2**64: a key below its bound reads as a huge unsigned offset
            offsets = np.subtract(keys, self.low, dtype=np.int64, casting="unsafe")
            if (offsets.view(np.uint64) > self.span).any():
                return None
            if self.place is not None:
                return offsets @ self.place
        self.row = self.row or (keys.dtype, keys.shape[1])
        rows = np.ascontiguousarray(keys, dtype=self.row[0])
        return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()

    def widened(self, keys: np.ndarray) -> "KeyCodes":
        """Codes for the keys held and ``keys``, which lie beyond the bounds: the bytes of each key row in the
        narrowest integer dtype that holds them all, for any key in that dtype's range."""
        dtype = _narrowest(min(self.low.min(), keys.min()), max(self.high.max(), keys.max()))
        out = KeyCodes.__new__(KeyCodes)
        out.low, out.high = (np.full(keys.shape[1], v, np.int64) for v in (np.iinfo(dtype).min, np.iinfo(dtype).max))
        out.span = _span(out.low, out.high)
        out.place, out.row = None, (dtype, keys.shape[1])
        return out

    def decode(self, codes: np.ndarray):
        """The key rows (a matrix in the narrowest integer dtype that holds them) or keys (a list) that ``codes``
        encode."""
        if codes.dtype == object:
            return codes.tolist()
        if codes.dtype.kind == "V":
            return np.ascontiguousarray(codes).view(self.row[0]).reshape(len(codes), self.row[1]).copy()
        rows = np.empty((len(codes), len(self.place)), _narrowest(self.low.min(), self.high.max()))
        for j, (place, low, high) in enumerate(zip(self.place, self.low, self.high)):   # no (n, d) int64 temporary
            rows[:, j] = codes // place % (high - low + 1) + low
        return rows

    def array(self, codes: list) -> np.ndarray:
        """Codes given one by one (``fresh``'s dict keys) as an array of this encoding's dtype."""
        if self.place is not None:
            return np.array(codes, dtype=np.int64)
        if self.row is not None:
            size = np.dtype(self.row[0]).itemsize * self.row[1]
            return np.frombuffer(b"".join(codes), dtype=np.dtype((np.void, size)))
        return np.fromiter(codes, dtype=object, count=len(codes))


class Fresh(Mapping):
    """``UniqueCounter.fresh``'s answer: the inputs not seen before, as ``codes`` (their keys) and ``index`` (their
    positions, ascending), with the counter's state when it was computed: committed to that counter before any
    other commit, its codes need no second look-up. Read as a mapping it is ``{code: index}`` (built when first
    read that way: the arrays are what the searches use).

    >>> f = Fresh(np.array([5, 7]), np.array([0, 2]), object()); dict(f), f.index.tolist(), len(f[:1])
    ({5: 0, 7: 2}, [0, 2], 1)
    """

    def __init__(self, codes: np.ndarray, index: np.ndarray, state: object):
        self.codes, self.index, self.state = codes, index, state
        self._mapping: dict | None = None

    def __getitem__(self, key):
        if isinstance(key, (slice, np.ndarray)):     # a part of these inputs, still of the same state
            return Fresh(self.codes[key], self.index[key], self.state)
        if self._mapping is None:
            self._mapping = dict(zip(self.codes.tolist(), self.index.tolist()))
        return self._mapping[key]

    def __iter__(self):
        return iter(self.codes.tolist())

    def __len__(self) -> int:
        return len(self.index)

    def __repr__(self) -> str:
        return repr(dict(self))


class SortedRuns:
    """A set of codes as a few sorted arrays whose sizes at least halve from one to the next: adding a batch
    appends it as a run and merges runs of similar size (each code is copied about log2(n) times in all),
    a look-up searches each run. A last run of fewer than ``RECENT`` codes takes the next batch in, so that
    small batches (a few hundred codes) do not leave many small runs for every look-up to search.

    Integer codes also set a bit each in a filter of ``FILTER_BITS`` bits a code (one hash, grown as the set
    grows): a look-up searches the runs only for the codes whose bit is set, so a code not held costs one memory
    read instead of a binary search of every run (most look-ups of a search are of codes not held).

    >>> runs = SortedRuns(); runs.add(np.array([5, 1])); runs.add(np.array([3]))
    >>> runs.contains(np.array([1, 2, 3])).tolist(), len(runs)
    ([True, False, True], 3)
    """

    def __init__(self):
        self.runs: list[np.ndarray] = []
        self._bits: np.ndarray | None = None     # the filter, one bit a slot (None: none, or codes not integers)
        self._shift = 0                          # a code's slot: the top bits of its hash

    def add(self, codes: np.ndarray) -> None:
        """Add ``codes``, distinct and none held already."""
        codes = np.sort(codes, kind="stable")
        if self.runs and len(self.runs[-1]) < RECENT:      # a small last run: the codes join it
            self.runs[-1] = np.insert(self.runs[-1], np.searchsorted(self.runs[-1], codes), codes)
        else:
            self.runs.append(codes)
        while len(self.runs) > 1 and len(self.runs[-2]) <= 2 * len(self.runs[-1]):
            last = self.runs.pop()
            self.runs[-1] = np.sort(np.concatenate([self.runs[-1], last]), kind="stable")
        self._filter(codes)

    def contains(self, codes: np.ndarray) -> np.ndarray:
        """The (n,) mask of ``codes`` held."""
        if self._bits is None or codes.dtype != np.int64:
            return self._search(codes)
        slots = self._slots(codes)
        maybe = np.flatnonzero((self._bits[slots >> 3] >> (slots & 7).astype(np.uint8)) & 1)
        held = np.zeros(len(codes), bool)
        held[maybe] = self._search(codes[maybe])
        return held

    def _search(self, codes: np.ndarray) -> np.ndarray:
        held = np.zeros(len(codes), bool)
        for run in self.runs:
            held |= run.take(np.searchsorted(run, codes), mode="clip") == codes
        return held

    def _slots(self, codes: np.ndarray) -> np.ndarray:
        return ((codes.view(np.uint64) * _HASH) >> np.uint64(self._shift)).astype(np.intp)

    def _filter(self, codes: np.ndarray) -> None:
        """Set the bits of ``codes`` (just added); a filter too small for the set is built again, twice as large."""
        if codes.dtype != np.int64 or (self._bits is None and len(self) > len(codes)):   # not integers, or gone
            self._bits = None
            return
        size = 8 * len(self._bits) if self._bits is not None else 0
        if len(self) * FILTER_BITS > size:
            size = max(1 << 16, 1 << int(np.ceil(np.log2(2 * len(self) * FILTER_BITS))))
            self._bits, self._shift = np.zeros(size // 8, np.uint8), 64 - (size.bit_length() - 1)
            codes = np.concatenate(self.runs) if len(self.runs) > 1 else self.runs[0]
        slots = self._slots(codes)
        np.bitwise_or.at(self._bits, slots >> 3, (1 << (slots & 7)).astype(np.uint8))

    def recode(self, recode) -> None:
        """Replace every code by ``recode(codes)`` (another encoding of the same keys)."""
        self.runs = [np.sort(recode(run), kind="stable") for run in self.runs]
        self._bits = None

    def copy(self) -> "SortedRuns":
        out = SortedRuns()
        out.runs, out._shift = list(self.runs), self._shift
        out._bits = None if self._bits is None else self._bits.copy()
        return out

    @property
    def nbytes(self) -> int:
        """Bytes held: the runs' codes (``codes_nbytes``) and the filter."""
        return self.codes_nbytes + (0 if self._bits is None else self._bits.nbytes)

    @property
    def codes_nbytes(self) -> int:
        return sum(run.nbytes for run in self.runs)

    def __len__(self) -> int:
        return sum(len(run) for run in self.runs)


def _span(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``high - low`` as unsigned 64-bit integers (wrapping as ``KeyCodes.encode``'s offsets do)."""
    return np.asarray(high, np.int64).view(np.uint64) - np.asarray(low, np.int64).view(np.uint64)


def _narrowest(low, high) -> np.dtype:
    """The narrowest integer dtype that holds ``low`` to ``high``.

    >>> _narrowest(0, 99), _narrowest(-1, 200)
    (dtype('uint8'), dtype('int16'))
    """
    return np.result_type(np.min_scalar_type(low), np.min_scalar_type(high))


def mixed_radix(lower: np.ndarray, upper: np.ndarray) -> np.ndarray | None:
    """Place values of a mixed-radix code over the bounds, or None if the code would overflow int64.

    >>> mixed_radix(np.array([0, 0]), np.array([1, 9])).tolist()
    [10, 1]
    """
    sizes = np.asarray(upper, float) - np.asarray(lower, float) + 1     # in floats: no int64 overflow
    if np.log2(sizes).sum() >= _MAX_BITS:
        return None
    return np.concatenate([np.cumprod(sizes[::-1])[::-1][1:], [1.0]]).astype(np.int64)


_MAX_BITS = 62
#: ``SortedRuns``: a run smaller than this takes the next codes in (a merge of two sorted arrays)
RECENT = 1 << 14
#: ``SortedRuns``: the filter's bits a code held, at least (about 3-6 % of the codes not held pass it)
FILTER_BITS = 16
_HASH = np.uint64(0x9E3779B97F4A7C15)     # Fibonacci hashing: the product's top bits spread any codes
#: ``UniqueCounter.note``: how many codes wait at least before they are looked up together
NOTED = 1 << 18

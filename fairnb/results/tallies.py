"""Typed tallies: a Result's method-specific numbers, each with the rule that merges it over shards.

A strategy declares every whole number it reports with ``result.tally(name=...)`` and one of these
types, which say what the number is and so how the Results of a sharded run's shards combine:

* ``Count(n)``: a count that sums over shards (candidates checked in a phase, gradient rows);
* ``Distinct(keys)``: how many distinct keys (a ``UniqueCounter``, key rows or codes); the merge counts
  the union of the shards' keys, so an input that two shards both generated counts once;
* ``Mean(total, n)``: a mean over inputs (``total / n``: bits per seed); the merge sums totals and counts,
  so each shard weighs as many inputs as it measured;
* ``Same(value)``: a value every shard computes alike from the whole run's inputs (NeuronFair's biased
  layer); the merge keeps it when the shards agree and warns, keeping each shard's, when they do not;
* ``Measured({inputs: n})``: a count measured on named sets of inputs (the natural rate's); the merge adds
  the counts of different sets and takes a set that several shards measured once (every shard of a sharded
  run measures the whole data), so it reads right over shards, seed rounds and merges of separate runs;
* ``Ratio(numerator, denominator)`` and ``Derived(function)``: recomputed from the merged Result;
* ``PerShard(value)``: a finding of one shard (a table, a probability vector), kept per shard.

``result.extras`` holds the tallies' values by name. It refuses a bare whole number, so no integer
extra can have an implicit merge rule; other values (floats, text, tables) set there directly are
kept per shard, like ``PerShard``.

Example
-------
>>> from fairnb.results import Result
>>> a, b = Result(None), Result(None)
>>> a.tally(layer=Same(3), steps=Count(5), keys=Distinct([1, 2]))
>>> b.tally(layer=Same(3), steps=Count(7), keys=Distinct([2, 9]))
>>> merged = {name: t.value_in(a) for name, t in merge_tallies([a, b]).items()}
>>> merged["layer"], merged["steps"], merged["keys"]
(3, 12, 3)
>>> a.extras["steps"] = 4
Traceback (most recent call last):
...
TypeError: extras['steps'] = 4 is a whole number without a merge rule: declare it with result.tally(steps=Count(4)) ...
"""
from __future__ import annotations

import numbers
import warnings
from typing import Callable

import numpy as np

from ..counting import first_occurrences, hashable_keys
from .packing import compact


class Tally:
    """A named number of a Result with its merge rule (subclasses below)."""

    derived = False     # recomputed from the merged Result, after every other tally is merged

    def value_in(self, result):
        """The value ``result.extras`` shows for this tally of ``result``."""
        raise NotImplementedError

    @classmethod
    def merge(cls, tallies: list) -> "Tally | None":
        """One tally from the shards' ``tallies`` (all of this type), or None: kept per shard."""
        raise NotImplementedError


class Count(Tally):
    """A count that sums over shards.

    >>> Count.merge([Count(2), Count(3)]).n
    5
    """

    def __init__(self, n):
        self.n = int(n)

    def value_in(self, result) -> int:
        return self.n

    @classmethod
    def merge(cls, tallies):
        return cls(sum(t.n for t in tallies))


class Mean(Tally):
    """The mean ``total / n`` over ``n`` inputs (rounded to 4 digits; 0.0 for none): a shard weighs its ``n``.

    >>> Mean.merge([Mean(3.0, 2), Mean(0.0, 4)]).value_in(None)
    0.5
    """

    def __init__(self, total, n):
        self.total, self.n = float(total), int(n)

    def value_in(self, result) -> float:
        return round(self.total / self.n, 4) if self.n else 0.0

    @classmethod
    def merge(cls, tallies):
        return cls(sum(t.total for t in tallies), sum(t.n for t in tallies))


class Distinct(Tally):
    """How many distinct keys: ``keys`` is a ``UniqueCounter`` (read when needed), a matrix of key rows,
    a column of codes or a list of hashable keys. The merge counts the union of the shards' keys.

    >>> import numpy as np
    >>> Distinct.merge([Distinct(np.array([[1, 2], [3, 4]])), Distinct(np.array([[3, 4]]))]).value_in(None)
    2
    """

    def __init__(self, keys):
        self.keys = keys

    def rows(self):
        """The keys as key rows (an integer matrix) or a list of hashable keys."""
        return self.keys.key_rows() if hasattr(self.keys, "key_rows") else self.keys

    def value_in(self, result) -> int:
        if hasattr(self.keys, "key_rows"):
            return len(self.keys)
        return len(first_occurrences(self.keys)) if len(self.keys) else 0

    def __getstate__(self):       # a counter holds its domain (maybe Keras models): travel as the keys only
        return {"keys": self.rows()}

    @classmethod
    def merge(cls, tallies):
        keys = [t.rows() for t in tallies]
        if all(isinstance(k, np.ndarray) and k.ndim == 2 for k in keys) and len({k.shape[1] for k in keys}) == 1:
            return cls(np.concatenate([compact(k) for k in keys]))   # a tabular key: a byte a feature
        return cls([key for k in keys for key in hashable_keys(k)])


class PerShard(Tally):
    """A finding of one shard's share of the work (a table, a probability vector): a merged Result keeps
    each shard's in ``extras["per_shard"]`` (a one-shard run keeps it as it is).

    >>> PerShard.merge([PerShard([1]), PerShard([2])]) is None
    True
    """

    def __init__(self, value):
        self.value = value

    def value_in(self, result):
        return self.value

    @classmethod
    def merge(cls, tallies):
        return None


class Same(PerShard):
    """A value that every shard computes alike (from the run's whole inputs, not from its own share).
    The merge keeps it when all shards agree; when they do not, it warns and keeps each shard's value
    (``extras["per_shard"]``) instead of combining them.

    >>> Same.merge([Same([0.5, 1]), Same([0.5, 1])]).value
    [0.5, 1]
    """

    @classmethod
    def merge(cls, tallies):
        first = tallies[0].value
        if all(_equal(first, t.value) for t in tallies[1:]):
            return tallies[0]
        warnings.warn(f"the shards disagree on a value that every shard should compute alike "
                      f"({[t.value for t in tallies]!r}): kept per shard in extras['per_shard']",
                      RuntimeWarning, stacklevel=4)
        return None


class Measured(Tally):
    """A count measured on named sets of inputs, ``{name: count}`` (a name: ``inputs_name(X)``). Measuring a
    set again adds nothing; the merge adds the counts of different sets and takes each set once.

    >>> data, draws = Measured({}).plus("data", 3), Measured({}).plus("data", 3).plus("draws", 2)
    >>> Measured.merge([data, draws]).value_in(None), data.plus("data", 3).value_in(None)
    (5, 3)
    """

    def __init__(self, counts: dict):
        self.counts = dict(counts)

    def value_in(self, result) -> int:
        return int(sum(self.counts.values()))

    def plus(self, name: str, n: int) -> "Measured":
        """This tally with the set ``name`` measured (``n``); a set measured already keeps its count."""
        return Measured({name: int(n), **self.counts})

    @classmethod
    def merge(cls, tallies):
        counts: dict = {}
        for t in tallies:
            for name, n in t.counts.items():
                counts.setdefault(name, n)
        return cls(counts)


def inputs_name(X) -> str:
    """A short name of the inputs ``X`` (a digest of their values) for ``Measured``.

    >>> import numpy as np
    >>> inputs_name(np.zeros((2, 3))) == inputs_name(np.zeros((2, 3))) != inputs_name(np.ones((2, 3)))
    True
    """
    import hashlib

    X = np.asarray(X)
    raw = repr(X.tolist()).encode() if X.dtype == object else np.ascontiguousarray(X).tobytes() + str(X.shape).encode()
    return hashlib.blake2b(raw, digest_size=8).hexdigest()


class Derived(Tally):
    """A value computed from the Result (``function(result)``: a module-level function, so that it
    travels with a shard's Result), recomputed for a merged Result from its merged counts and pairs.

    >>> from fairnb.results import Result
    >>> r = Result(None); r.tried = 4
    >>> r.tally(double=Derived(lambda result: 2 * result.tried)); r.extras["double"]
    8
    """

    derived = True

    def __init__(self, function: Callable):
        self.function = function

    def value_in(self, result):
        return self.function(result)

    @classmethod
    def merge(cls, tallies):
        return tallies[0]


class Ratio(Derived):
    """``numerator / denominator`` rounded to ``digits`` (0.0 when the denominator is 0), each a name: a
    tally, ``"tried"``, ``"hits"``, ``"found"`` (unique IDIs, full inputs) or ``"found_adf"``.

    >>> from fairnb.results import Result
    >>> r = Result(None); r.tried, r.hits = 8, 2
    >>> r.tally(share=Ratio("hits", "tried")); r.extras["share"]
    0.25
    """

    def __init__(self, numerator: str, denominator: str, digits: int = 6):
        self.numerator, self.denominator, self.digits = numerator, denominator, digits

    def value_in(self, result) -> float:
        den = quantity(result, self.denominator)
        return round(quantity(result, self.numerator) / den, self.digits) if den else 0.0


def quantity(result, name: str):
    """A number of ``result`` by name: ``tried``, ``hits``, ``found`` / ``found_adf`` (its unique IDIs), or
    a tally's value."""
    if name in ("tried", "hits"):
        return getattr(result, name)
    if name in ("found", "found_adf"):
        return result.count("eidig" if name == "found" else "adf")
    return result.extras[name]


def merge_tallies(parts) -> dict:
    """The merged tallies of the Results ``parts`` by name (a Same on which the shards disagree, and every
    PerShard, are left out: they stay per shard). A name two shards declare with different types raises."""
    names = list(dict.fromkeys(name for p in parts for name in p.tallies))
    merged = {}
    for name in names:
        tallies = [p.tallies[name] for p in parts if name in p.tallies]
        kinds = {type(t) for t in tallies}
        if len(kinds) > 1:
            raise TypeError(f"the shards declared the tally {name!r} as {sorted(k.__name__ for k in kinds)}")
        one = tallies[0].merge(tallies) if len(tallies) > 1 else tallies[0]
        if one is not None:
            merged[name] = one
    return merged


class Extras(dict):
    """``Result.extras``: the method's findings by name. A whole number is refused here: it enters through
    ``Result.tally``, which says how shards merge it; other values are kept per shard."""

    def __setitem__(self, name, value):
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            raise TypeError(f"extras[{name!r}] = {value!r} is a whole number without a merge rule: declare it "
                            f"with result.tally({name}=Count({value!r})) (or Distinct, Same, ...; see "
                            "fairnb.results.tallies)")
        super().__setitem__(name, value)

    def update(self, *args, **kwargs):
        for name, value in dict(*args, **kwargs).items():
            self[name] = value

    def setdefault(self, name, value=None):
        if name not in self:
            self[name] = value
        return self[name]

    def __reduce__(self):         # unpickled through the constructor, which takes any values (tallies' too)
        return Extras, (dict(self),)


def _equal(a, b) -> bool:
    """Whether two values are equal (arrays element-wise; nested lists, also ragged ones, as Python compares)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b)

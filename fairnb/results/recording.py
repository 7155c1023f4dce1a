"""The Result and its recording: pairs kept once per unique full instance, counters, tallies, the timeline.

Example
-------
>>> import numpy as np
>>> from fairnb.domains import Feature, TabularDomain
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
>>> r = Result(dom, "demo")
>>> r.record([[0, 3], [0, 3], [1, 3]], [[1, 3], [1, 3], [0, 3]], [[0.9, 0.1]] * 3, [[0.1, 0.9]] * 3,
...          phase="global", seed_ids=-1, elapsed=0.5)
2
>>> r.count("eidig"), r.count("adf")
(2, 1)
"""
from __future__ import annotations

import json
import threading

import numpy as np
import pandas as pd

from .. import summaries
from ..counting import UniqueCounter
from ..domains.base import check_convention
from ..interrupts import deferred_interrupts
from ..stats import wilson_interval
from . import metrics
from .details import _info_column
from .display import ResultDisplay
from .packing import PairFields, pack_pairs, stored_form, unpack_pairs
from .storage import SavedResult
from .tables import PairTables, material, near_threshold
from .tallies import Count, Distinct, Extras, Tally

def _pair_field(key: str, doc: str) -> property:
    """A read-only ``Result`` property: the per-pair array ``key`` of its stored pairs."""
    return property(lambda self: self._arrays()[key], doc=doc)


class Result(PairTables, SavedResult, ResultDisplay):
    """Discriminatory pairs found by a search, with the search's counters.

    Attributes
    ----------
    method, params : the search and its hyperparameters.
    tried : number of candidate inputs the oracle checked.
    hits : number of discriminatory candidates, duplicates included.
    elapsed : seconds the search ran.
    status : ``"running"``, ``"completed"``, ``"budget"``, ``"stopped"``, ``"interrupted"`` (Ctrl-C) or
        ``"failed"`` (the model or the strategy raised: ``error`` holds the exception and
        ``raise_for_status()`` re-raises it); every pair found before the end is kept in each case.
    error : the exception that ended a ``"failed"`` search, else None.
    timeline : DataFrame of (elapsed, tried, found) samples, one per engine batch.
    extras : method-specific findings (e.g. NeuronFair's per-layer AUC table, SG's counters);
        ``extras["seeds"]`` holds the inputs that the pairs' seed ids index (see ``SearchContext.use_seeds``).
        Whole numbers among them are tallies, declared with ``tally`` with their merge rule.
    tallies : the declared tallies by name (``fairnb.results.tallies``: ``Count``, ``Distinct``, ``Same``, ...).
    """

    def __init__(self, domain, method: str = "", params: dict | None = None):
        self.domain = domain
        self.method = method
        self.params = dict(params or {})
        self.tried = 0
        self.hits = 0
        self.elapsed = 0.0
        self.status = "running"
        self.ended_by: tuple | None = None   # (budget, limit) when a budget ended the search
        self.error: BaseException | None = None
        self.extras = Extras()
        self.tallies: dict[str, Tally] = {}
        self._lock = threading.Lock()
        self._chunks: list[dict] = []   # the pairs in stored_form: blocks of about _BLOCK pairs, then recent batches
        self._blocks = 0                # how many of the chunks are blocks
        self._recent = 0                # pairs in the chunks after the blocks
        self._pair_bytes = 0            # the nbytes of the chunks' arrays
        self._seen = UniqueCounter(domain, "eidig") if domain is not None else None
        self._seen_adf = UniqueCounter(domain, "adf") if domain is not None else None
        self._timeline: list[tuple[float, int, int]] = []

    # ------------------------------------------------------------------ recording (engine side)
    def record(self, X, counterparts, proba, counterpart_proba, *, phase, seed_ids, elapsed,
               limit: int | None = None, limit_convention: str = "eidig", info=None) -> int:
        """Add discriminatory inputs; keeps only full instances not seen before, at most ``limit`` new
        ones counted in ``limit_convention``. Returns how many full instances were new. ``phase`` and
        ``elapsed`` (the time found) are one value for all inputs or one per input; ``info``: None
        or one dict of details per input (kept for the inputs stored).

        Atomic with respect to Ctrl-C: everything is computed first and committed in one step (with
        SIGINT held off on the main thread), so ``count()`` always equals the pairs stored.
        """
        X = np.asarray(X, dtype=float)
        by_adf = check_convention(limit_convention) == "adf" and limit is not None
        fresh = self._seen.fresh(X, None if by_adf else limit)
        new = fresh.index
        adf_new = self._seen_adf.fresh(X[new]) if len(new) else fresh
        if by_adf and len(adf_new) > limit:   # stop before the input that brings one ADF-unique IDI too many
            cut = adf_new.index[limit]
            fresh, new, adf_new = fresh[:cut], new[:cut], adf_new[:limit]
        if not len(new):        # nothing to store: no need to hold Ctrl-C off
            with self._lock:
                self.hits += len(X)
            return 0
        chunk = stored_form({
            "X": X[new], "C": np.asarray(counterparts, float)[new],
            "P": np.asarray(proba, float)[new], "PC": np.asarray(counterpart_proba, float)[new],
            "phase": _picked(phase, len(X), object, new),
            "seed": _picked(seed_ids, len(X), np.int64, new),
            "time": _picked(elapsed, len(X), float, new),
            "info": _info_column(info, len(X))[new],
        })
        chunks, blocks = self._chunks + [chunk], self._blocks    # copy on write: a reader's list never changes
        recent = self._recent + len(new)
        if recent >= _BLOCK:
            chunks, blocks, recent = chunks[:blocks] + [_joined(chunks[blocks:])], blocks + 1, 0
        with deferred_interrupts(), self._lock:
            self.hits += len(X)
            self._chunks, self._blocks, self._recent = chunks, blocks, recent
            self._pair_bytes += _nbytes(chunk)
            self._seen.commit(fresh)
            # each ADF-unique input keeps the time of its first full instance
            self._seen_adf.commit(adf_new, chunk["time"][adf_new.index])
        return len(new)

    def __getstate__(self):
        """Pickled compactly (a Result travels from a Dask worker to the client): its pairs as one
        contiguous array per field, each in the smallest dtype that holds it exactly (``compact``), no
        Python object per pair, no lock; the unique counters are rebuilt from the pairs when it arrives on its
        domain (``with_domain``)."""
        state = self.__dict__.copy()
        for name in ("_lock", "_seen", "_seen_adf", "_chunks"):
            del state[name]
        state["_packed"] = pack_pairs(PairFields(self._chunks, usual=False)) if self._chunks else None
        return state

    def __setstate__(self, state):
        packed = state.pop("_packed")
        state.pop("_n_adf", None)       # written by earlier releases
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._keep([] if packed is None else [stored_form(unpack_pairs(packed))])
        self._seen = self._seen_adf = None      # the domain comes with with_domain (a shard's travels without)
        if self.domain is not None:
            self._counters_from_pairs()

    def _counters_from_pairs(self) -> None:
        """The unique counters of the pairs stored (each ADF-unique input with the time of its first full
        instance)."""
        a = self._arrays()
        self._seen = UniqueCounter.of_items(self.domain, "eidig", a["X"])
        self._seen_adf = UniqueCounter.of_items(self.domain, "adf", a["X"], a["time"])

    def with_domain(self, domain) -> "Result":
        """This Result, on ``domain`` (a shard's Result travels to the client without its domain, which may
        hold Keras models that do not pickle; the client has the run's)."""
        self.domain = domain
        if self._seen is None and domain is not None:
            self._counters_from_pairs()
        elif self._seen is not None:
            self._seen.domain = self._seen_adf.domain = domain
        return self

    @classmethod
    def from_pairs(cls, domain, method: str, params, arrays: dict) -> "Result":
        """A Result holding the pairs ``arrays`` (``_arrays()``'s fields; the inputs distinct), without
        recording them one batch at a time."""
        r = cls(domain, method, params)
        if len(arrays["X"]):
            r._keep([stored_form(arrays)])
            r._counters_from_pairs()
        return r

    def raise_for_status(self) -> "Result":
        """Re-raise the error of a ``"failed"`` search; returns the Result otherwise.

        >>> Result(None).raise_for_status().status
        'running'
        """
        if self.status == "failed" and self.error is not None:
            raise self.error
        return self

    def snapshot(self) -> "Result":
        """A frozen copy of this Result as it is now: read a live search's Result through one snapshot
        (its pairs, counts and tables then agree with each other while the search goes on)."""
        with self._lock:
            r = Result.__new__(Result)
            r.__dict__.update(self.__dict__)
            r._lock = threading.Lock()
            r._seen, r._seen_adf = self._seen.copy(), self._seen_adf.copy()
            r._timeline = list(self._timeline)
            r.extras, r.tallies = Extras(self.extras), dict(self.tallies)
        return r

    def material_only(self) -> "Result":
        """A copy holding only the material pairs: those whose two outputs differ by ``MATERIAL_MARGIN`` (0.1)
        or more; the rest sit on the decision boundary, where noise decides them (what to retrain on: tutorial
        06). The search's own numbers (``tried``, ``elapsed``, ``status``, the timeline, the natural rate) stay.

        >>> from fairnb.domains import Feature, TabularDomain
        >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
        >>> r = Result(dom, "demo")
        >>> r.record([[0, 1], [0, 2]], [[1, 1], [1, 2]], [[0.9, 0.1], [0.52, 0.48]], [[0.1, 0.9], [0.48, 0.52]],
        ...          phase="global", seed_ids=-1, elapsed=0.5)
        2
        >>> len(r.material_only()), len(r)
        (1, 2)
        """
        a = self._arrays()
        keep = material(a["P"], a["PC"])
        r = Result.from_pairs(self.domain, self.method, self.params, {k: v[keep] for k, v in a.items()})
        r.tried, r.hits, r.elapsed, r.status, r.ended_by, r.error = (self.tried, self.hits, self.elapsed, self.status,
                                                                     self.ended_by, self.error)
        r._timeline = list(self._timeline)
        r.extras, r.tallies = Extras(self.extras), dict(self.tallies)
        return r

    def tally(self, **tallies: Tally) -> None:
        """Declare method-specific numbers with how shards merge them (``fairnb.results.tallies``); their
        values appear in ``extras``. A derived tally (``Ratio``, ``Derived``) reads the others: declare it last.

        >>> from fairnb.results import Count, Ratio
        >>> r = Result(None); r.tried = 16
        >>> r.tally(generated=Count(8), share=Ratio("generated", "tried")); r.extras["generated"], r.extras["share"]
        (8, 0.5)
        """
        for name, t in tallies.items():
            if not isinstance(t, Tally):
                raise TypeError(f"tally {name}={t!r}: give a Count, Distinct, Same, PerShard, Ratio or Derived "
                                "(fairnb.results.tallies), which says how shards merge it")
            self.tallies[name] = t
            dict.__setitem__(self.extras, name, t.value_in(self))

    def mark(self, elapsed: float, found: int | None = None):
        """Add a timeline sample (called by the engine after each batch): ``found`` unique IDIs (full inputs),
        default this Result's count (a sharded run's client gives the count over its running shards)."""
        self.elapsed = elapsed
        self._timeline.append((elapsed, self.tried, len(self._seen) if found is None else found))

    def continue_timeline(self, earlier: "Result") -> "Result":
        """This Result, its timeline starting with ``earlier``'s samples (a sharded run's Result, merged anew
        when a shard returns, keeps the run's timeline so far).

        >>> earlier = Result(None); earlier.mark(0.5, found=3)
        >>> Result(None).continue_timeline(earlier).timeline.values.tolist()
        [[0.5, 0.0, 3.0]]
        """
        self._timeline = list(earlier._timeline) + self._timeline
        return self

    # ------------------------------------------------------------------ arrays
    def _keep(self, chunks: list) -> None:
        """Hold the pairs ``chunks`` (in ``stored_form``) instead of those recorded."""
        self._chunks, self._blocks, self._recent = chunks, len(chunks), 0
        self._pair_bytes = sum(map(_nbytes, chunks))

    def _arrays(self) -> PairFields:
        """The pairs' fields in their documented dtypes (inputs as floats, ...), joined over the stored chunks
        when read."""
        return PairFields(self._chunks or [stored_form(_no_pairs(self.domain))])

    @property
    def nbytes(self) -> int:
        """Bytes held by the stored pairs (``stored_form``), the unique counters and the distinct-input tallies:
        about 140 a pair on Adult's twelve integer codes (``benchmarks/results/result_memory.md``), where the
        inputs and counterparts as floats alone took 192. ``fairnb.config.result_memory`` caps it while a search runs.

        >>> Result(None).nbytes
        0
        """
        counters = sum(c.nbytes for c in (self._seen, self._seen_adf) if c is not None)
        tallies = sum(getattr(t.keys, "nbytes", 0) for t in self.tallies.values() if isinstance(t, Distinct))
        return self._pair_bytes + counters + tallies

    inputs = _pair_field("X", "``(n, *domain.item_shape)`` the discriminatory inputs, one per unique full instance.")
    counterparts = _pair_field("C", "``(n, *domain.item_shape)`` for each input, a protected variant that gets another "
                                    "decision.")
    proba = _pair_field("P", "``(n, n_classes)`` the model's probabilities for each input.")
    counterpart_proba = _pair_field("PC", "``(n, n_classes)`` the model's probabilities for each counterpart.")
    phases = _pair_field("phase", '``(n,)`` the phase that found each pair (``"global"``, ``"local"``, ...).')
    seed_ids = _pair_field("seed", "``(n,)`` for each pair, the id of the seed its search started from (as the search "
                                   "numbered its seeds).")

    @property
    def seed_outcomes(self) -> pd.DataFrame:
        """How each seed the search declared ended: a DataFrame of ``seed`` id, ``outcome`` (``"found"``: an
        IDI reached from it, ``"exhausted"``: searched, nothing found, ``"skipped"``) and ``reason`` (why it
        was skipped, e.g. ``"flip failed"``); ``extras["seeds_found"]`` etc. count them
        (``fairnb.results.seed_outcomes``).

        >>> Result(None).seed_outcomes.columns.tolist()
        ['seed', 'outcome', 'reason']
        """
        from . import seed_outcomes

        return seed_outcomes.table(self)

    def inputs_since(self, n: int) -> np.ndarray:
        """The inputs of the pairs stored after the first ``n``, without copying the earlier ones (a shard of a
        sharded run reports its new pairs while it runs).

        >>> Result(None).inputs_since(0).shape
        (0,)
        """
        chunks = self._chunks       # copied on write: this list does not change while it is read
        ends = np.cumsum([len(c["X"]) for c in chunks])
        first = int(np.searchsorted(ends, n, side="right"))
        if first == len(chunks):
            return np.zeros((0, *getattr(self.domain, "item_shape", ())))
        start = n - (ends[first - 1] if first else 0)
        return np.concatenate([chunks[first]["X"][start:], *(c["X"] for c in chunks[first + 1:])]).astype(float)

    def details(self, i: int) -> dict:
        """The details the search recorded with pair ``i`` (``Batch(info=...)``); ``{}`` when none."""
        kept = self._arrays()["info"][i]
        return json.loads(kept) if kept else {}

    def __len__(self):
        return len(self._seen)

    # ------------------------------------------------------------------ counts
    def count(self, convention: str = "eidig") -> int:
        """Unique IDIs: ``"eidig"`` full instances, ``"adf"`` without the protected attributes."""
        return len(self._seen) if check_convention(convention) == "eidig" else len(self._seen_adf)

    def time_to(self, n: int, convention: str = "eidig") -> float | None:
        """Seconds until the ``n``-th unique IDI was found (None if fewer were found)."""
        times = np.sort(self._arrays()["time"] if convention == "eidig" else self._seen_adf.values())
        return float(times[n - 1]) if len(times) >= n else None

    @property
    def success_rate(self) -> float:
        """Share of checked candidates that were discriminatory (duplicates included)."""
        return self.hits / self.tried if self.tried else 0.0

    @property
    def class_names(self) -> tuple | None:
        """What the decisions 0, 1, ... mean (e.g. ``("<=50K", ">50K")``), when the domain's data set knows."""
        return getattr(self.domain, "class_names", None)

    @property
    def ending(self) -> str:
        """Why the search ended, in words ("time budget of 10 s reached", "stopped by user", ...)."""
        return summaries.ending(self.status, self.ended_by)

    def summary(self) -> dict:
        """The headline numbers as a flat dict (JSON-serialisable)."""
        a = self._arrays()
        spread = self._spread()
        pairs = spread.pop("unique_idi_pairs")
        rows = spread.pop("pair_rows")      # one row per unordered pair: the kinds of pairs add up to ``pairs``
        moved = material(a["P"][rows], a["PC"][rows])
        out = {
            "method": self.method,
            "status": self.status,
            "protected": list(getattr(self.domain, "protected_names", ())),
            **self.natural(),
            "material_pairs": int(moved.sum()),
            "unique_idis_eidig": self.count("eidig"),
            "unique_idis_adf": self.count("adf"),
            "unique_idi_pairs": pairs,
            "tried": int(self.tried),
            "hits": int(self.hits),
            "success_rate": round(self.success_rate, 6),
            "precision": metrics.precision(pairs, self.tried),
            **spread,
            "elapsed_s": round(self.elapsed, 3),
            "idis_per_s": round(self.count("eidig") / self.elapsed, 2) if self.elapsed > 0 else None,
            "time_to_first_s": _round(self.time_to(1)),
            "time_to_1000_s": _round(self.time_to(1000)),
            "near_threshold": int(near_threshold(a["P"][rows], a["PC"][rows]).sum()),
            "immaterial_pairs": int((~moved).sum()),
        }
        for k, v in self.extras.items():
            if isinstance(v, (int, float, str, bool)) or v is None:
                out[k] = v
            elif isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) for x in v):
                out[k] = list(v)
        return out

    def _spread(self) -> dict:
        """``fairnb.results.metrics.spread`` of the pairs, computed once per number of pairs (a live search's
        summary is read after every batch)."""
        cached = getattr(self, "_spread_cache", None)
        if cached is None or cached[0] != len(self):
            cached = self._spread_cache = (len(self), metrics.spread(self.domain, self.inputs, self.counterparts))
        return dict(cached[1])

    def natural(self) -> dict:
        """The headline that tells a biased model from a fair one: the share of the data's seeds that are
        discriminatory as they are (``natural_rate``), its 95 % Wilson interval (``natural_low``,
        ``natural_high``) and how many seeds could be (``natural_n``); empty when the search checked none
        (``fairnb.search.engine.natural``). With a control model (``Search(control=...)``), the same four of the same
        seeds on it follow (``control_natural_rate``, ...), then the same four of the seeds drawn at random
        from the domain, counted apart (``random_rate``, ``random_low``, ``random_high``, ``random_n``).

        >>> r = Result(None); r.tally(natural_n=Count(200), natural_idis=Count(50)); r.natural()["natural_rate"]
        0.25
        >>> r.tally(control_natural_n=Count(200), control_natural_idis=Count(0)); r.natural()["control_natural_high"]
        0.018845
        """
        return {**self._share("natural"), **self._share("control_natural"), **self._share("random")}

    def _share(self, prefix: str) -> dict:
        """``{prefix}_rate``, ``_low``, ``_high`` and ``_n`` from the tallies ``{prefix}_idis`` of ``{prefix}_n``."""
        n = self.extras.get(f"{prefix}_n")
        if not n:
            return {}
        found = self.extras.get(f"{prefix}_idis", 0)
        low, high = wilson_interval(found, n)
        return {f"{prefix}_rate": round(found / n, 6), f"{prefix}_low": round(low, 6),
                f"{prefix}_high": round(high, 6), f"{prefix}_n": int(n)}

    @property
    def timeline(self) -> pd.DataFrame:
        return pd.DataFrame(self._timeline, columns=["elapsed", "tried", "found"])


def _picked(values, n: int, dtype, idx: np.ndarray) -> np.ndarray:
    """``values`` (one for all ``n`` inputs, or one per input) at the inputs ``idx``, as an array of ``dtype``.

    >>> _picked("global", 3, object, np.array([2])).tolist(), _picked([1, 2, 3], 3, float, np.array([0, 2])).tolist()
    (['global'], [1.0, 3.0])
    """
    values = np.asarray(values, dtype=dtype)
    return np.full(len(idx), values) if values.ndim == 0 else np.broadcast_to(values, (n,))[idx]


#: pairs in a block of a Result's stored pairs: recent batches are joined into one when they hold as many, so
#: that a Result holds a few hundred arrays per million pairs, and no join ever copies more than a block
_BLOCK = 1 << 16


def _joined(chunks: list) -> dict:
    return {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}


def _nbytes(chunk: dict) -> int:
    return sum(a.nbytes for a in chunk.values())


def _no_pairs(domain) -> dict:
    """The pair fields of a Result without pairs."""
    shape = (0, *domain.item_shape)
    return {"X": np.zeros(shape), "C": np.zeros(shape), "P": np.zeros((0, 2)), "PC": np.zeros((0, 2)),
            "phase": np.zeros(0, object), "seed": np.zeros(0, np.int64), "time": np.zeros(0),
            "info": np.zeros(0, object)}


def _round(x):
    return None if x is None else round(x, 4)

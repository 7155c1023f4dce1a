"""The Result of a search: discriminatory pairs, counts, a timeline, save/load, rich display.

Pairs are stored once per unique full instance (the EIDIG convention); ``count("adf")`` also
counts them without the protected attributes. Inputs and counterparts are float arrays of shape
``(n, *domain.item_shape)`` (feature rows, token ids, images); the domain turns them into table
columns (``to_columns`` / ``from_columns`` to save and load, ``decode`` and ``pair_columns`` for
``result.pairs``, a pandas DataFrame). A strategy may attach a JSON-able dict of details to each
candidate (``Batch(info=...)``: a text search's substitution chain, an image flip's norms); the
Result keeps it for every pair it stores (``result.details(i)``).

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> model = fairnb.train_demo_model(data)
>>> result = fairnb.run_search(model, data.domain, method="random", max_tried=2000, random_state=0)
>>> result.count("eidig") > 0
True
"""
from __future__ import annotations

import html
import json
import os
import threading
from pathlib import Path

import numpy as np
import pandas as pd

from . import summaries
from .counting import UniqueCounter
from .domains import domain_from_config
from .domains.base import check_convention
from .interrupts import deferred_interrupts
from .plot_text import plot_text
from .views import inspector_for

def _pair_field(key: str, doc: str) -> property:
    """A read-only ``Result`` property: the per-pair array ``key`` of its stored pairs."""
    return property(lambda self: self._arrays()[key], doc=doc)


class Result:
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
        self.extras: dict = {}
        self.distinct_keys: dict = {}        # a shard's keys behind distinct-count extras (Search._keep_distinct)
        self._lock = threading.Lock()
        self._chunks: list[dict] = []
        self._cache: dict | None = None
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
        new = list(fresh.values())
        adf_new = self._seen_adf.fresh(X[new]) if new else {}
        if by_adf and len(adf_new) > limit:   # stop before the input that brings one ADF-unique IDI too many
            cut = sorted(adf_new.values())[limit]
            fresh = dict(list(fresh.items())[:cut])
            new = new[:cut]
            adf_new = {k: i for k, i in adf_new.items() if i < cut}
        chunk = None
        if new:
            idx = np.array(new)
            chunk = {
                "X": X[idx], "C": np.asarray(counterparts, float)[idx],
                "P": np.asarray(proba, float)[idx], "PC": np.asarray(counterpart_proba, float)[idx],
                "phase": _per_input(phase, len(X), object)[idx],
                "seed": _per_input(seed_ids, len(X), np.int64)[idx],
                "time": _per_input(elapsed, len(X), float)[idx],
                "info": _info_column(info, len(X))[idx],
            }
        with deferred_interrupts(), self._lock:
            self.hits += len(X)
            if chunk is not None:
                self._chunks = self._chunks + [chunk]     # copy on write: a reader's list never changes
                self._cache = None
                self._seen.commit(fresh)
                if np.ndim(elapsed):   # each ADF-unique input keeps the time of its first full instance
                    for key, i in adf_new.items():
                        self._seen_adf.commit((key,), float(chunk["time"][i]))
                else:
                    self._seen_adf.commit(adf_new, elapsed)
        return len(new)

    def __getstate__(self):
        """Pickled compactly (a Result travels from a Dask worker to the client): its pairs as one
        contiguous array per field, each in the smallest dtype that holds it exactly (``compact``), no
        Python object per pair, no lock; the unique counters are rebuilt from the pairs, lazily."""
        state = self.__dict__.copy()
        for name in ("_lock", "_seen", "_seen_adf", "_chunks", "_cache"):
            del state[name]
        state["_packed"] = pack_pairs(self._arrays()) if self._chunks else None
        state["_n_adf"] = len(self._seen_adf)
        return state

    def __setstate__(self, state):
        packed, n_adf = state.pop("_packed"), state.pop("_n_adf")
        self.__dict__.update(state)
        self._lock, self._cache = threading.Lock(), None
        self._chunks = [] if packed is None else [unpack_pairs(packed)]
        if packed is None:
            self._seen, self._seen_adf = UniqueCounter(self.domain, "eidig"), UniqueCounter(self.domain, "adf")
        else:
            self._counters_from_pairs(n_adf)

    def _counters_from_pairs(self, n_adf: int | None = None) -> None:
        """The unique counters of the pairs stored (each ADF-unique input with the time of its first full
        instance; ``n_adf`` of them, when known), built lazily (``UniqueCounter.of_items``)."""
        a = self._arrays()
        self._seen = UniqueCounter.of_items(self.domain, "eidig", a["X"], n_distinct=len(a["X"]))
        self._seen_adf = UniqueCounter.of_items(self.domain, "adf", a["X"], a["time"], n_distinct=n_adf)

    def with_domain(self, domain) -> "Result":
        """This Result, on ``domain`` (a shard's Result travels to the client without its domain, which may
        hold Keras models that do not pickle; the client has the run's)."""
        self.domain = self._seen.domain = self._seen_adf.domain = domain
        return self

    @classmethod
    def from_pairs(cls, domain, method: str, params, arrays: dict) -> "Result":
        """A Result holding the pairs ``arrays`` (``_arrays()``'s fields; the inputs distinct), without
        recording them one batch at a time."""
        r = cls(domain, method, params)
        if len(arrays["X"]):
            r._chunks = [arrays]
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
            r.extras = dict(self.extras)
        return r

    def mark(self, elapsed: float):
        """Add a timeline sample (called by the engine after each batch)."""
        self.elapsed = elapsed
        self._timeline.append((elapsed, self.tried, len(self._seen)))

    # ------------------------------------------------------------------ arrays
    def _arrays(self) -> dict:
        with self._lock:
            if self._cache is None:
                if len(self._chunks) == 1:          # a Result unpickled or merged: no copy
                    self._cache = dict(self._chunks[0])
                elif self._chunks:
                    self._cache = {k: np.concatenate([c[k] for c in self._chunks]) for k in self._chunks[0]}
                else:
                    shape = (0, *self.domain.item_shape)
                    self._cache = {"X": np.zeros(shape), "C": np.zeros(shape), "P": np.zeros((0, 2)),
                                   "PC": np.zeros((0, 2)), "phase": np.zeros(0, object),
                                   "seed": np.zeros(0, np.int64), "time": np.zeros(0), "info": np.zeros(0, object)}
            return self._cache

    inputs = _pair_field("X", "``(n, *domain.item_shape)`` the discriminatory inputs, one per unique full instance.")
    counterparts = _pair_field("C", "``(n, *domain.item_shape)`` for each input, a protected variant that gets another "
                                    "decision.")
    proba = _pair_field("P", "``(n, n_classes)`` the model's probabilities for each input.")
    counterpart_proba = _pair_field("PC", "``(n, n_classes)`` the model's probabilities for each counterpart.")
    phases = _pair_field("phase", '``(n,)`` the phase that found each pair (``"global"``, ``"local"``, ...).')
    seed_ids = _pair_field("seed", "``(n,)`` for each pair, the id of the seed its search started from (as the search "
                                   "numbered its seeds).")

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
        out = {
            "method": self.method,
            "status": self.status,
            "protected": list(getattr(self.domain, "protected_names", ())),
            "unique_idis_eidig": self.count("eidig"),
            "unique_idis_adf": self.count("adf"),
            "tried": int(self.tried),
            "hits": int(self.hits),
            "success_rate": round(self.success_rate, 6),
            "elapsed_s": round(self.elapsed, 3),
            "idis_per_s": round(self.count("eidig") / self.elapsed, 2) if self.elapsed > 0 else None,
            "time_to_first_s": _round(self.time_to(1)),
            "time_to_1000_s": _round(self.time_to(1000)),
            "near_threshold": int(near_threshold(self._arrays()["P"], self._arrays()["PC"]).sum()),
        }
        for k, v in self.extras.items():
            if isinstance(v, (int, float, str, bool)) or v is None:
                out[k] = v
            elif isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) for x in v):
                out[k] = list(v)
        return out

    @property
    def timeline(self) -> pd.DataFrame:
        return pd.DataFrame(self._timeline, columns=["elapsed", "tried", "found"])

    # ------------------------------------------------------------------ tables
    @property
    def pairs(self) -> pd.DataFrame:
        """One row per discriminatory pair, with decoded (human-readable) values."""
        return self.to_frame(decoded=True)

    def to_frame(self, decoded: bool = True) -> pd.DataFrame:
        """Pairs as a DataFrame: the input's columns (``decoded``: ``domain.decode``, human-readable,
        followed by ``domain.pair_columns``, what the counterpart changes, e.g. ``sex'``; else the stored
        form ``domain.to_columns`` of the input and, primed, of the counterpart), then outputs (``p``,
        ``p'`` = probability of class 1 for binary models), labels, the ``difference`` of the outputs,
        ``near_threshold`` (True where a decision is within ``NEAR_THRESHOLD`` of flipping, so float32
        and float64 rounding may decide it), phase, seed id and the time found. A Result column whose
        name an input column already has is prefixed ``result:`` (e.g. ``result:p`` beside a feature
        called ``p``)."""
        a = self._arrays()
        dom = self.domain
        if decoded:
            left = dom.decode(a["X"]).reset_index(drop=True)
            own = dict(dom.pair_columns(a["X"], a["C"])) if hasattr(dom, "pair_columns") else {}
        else:
            left = dom.to_columns(a["X"]).reset_index(drop=True)
            own = {f"{c}'": v.to_numpy() for c, v in dom.to_columns(a["C"]).items()}
        names = [str(n) for n in left.columns]
        k = a["P"].shape[1]
        col = 1 if k == 2 else slice(None)
        own["p"] = a["P"][:, col] if k == 2 else a["P"].max(axis=1)
        own["p'"] = a["PC"][:, col] if k == 2 else a["PC"].max(axis=1)
        own["label"] = a["P"].argmax(axis=1)
        own["label'"] = a["PC"].argmax(axis=1)
        own["difference"] = np.abs(a["P"] - a["PC"]).sum(axis=1) / 2
        own["near_threshold"] = near_threshold(a["P"], a["PC"])
        own["phase"] = a["phase"]
        own["seed"] = a["seed"]
        own["time"] = a["time"]
        taken = set(names)
        frame = left.copy()
        for name, values in own.items():
            frame[f"result:{name}" if name in taken else name] = values
        return frame

    # ------------------------------------------------------------------ save / load
    def save(self, path) -> Path:
        """Write the pairs (encoded) to ``.csv`` or ``.parquet`` and the rest to ``<path>.json``.

        Both files are written to temporary names first and then renamed, so an interrupted save
        leaves any earlier result at ``path`` whole. The JSON names the columns that hold the
        inputs, counterparts and outputs (features may have any names, also ``p_1`` or ``phase``).
        """
        path = Path(path)
        if path.suffix not in (".csv", ".parquet"):
            raise ValueError(f"unknown result format {path.suffix!r}: use .csv or .parquet")
        frozen = self.snapshot()
        frame, columns, stored = _encoded_frame(frozen._arrays(), self.domain)
        meta = {
            "format": 3, "columns": columns, "stored": stored, "rows": len(frame),
            "method": self.method, "params": _jsonable(self.params), "tried": frozen.tried, "hits": frozen.hits,
            "elapsed": frozen.elapsed, "status": frozen.status, "ended_by": frozen.ended_by,
            "timeline": frozen._timeline,
            "error": None if self.error is None else repr(self.error),
            "extras": _jsonable(_packed_seeds(frozen.extras, self.domain)),
            "domain": self.domain.to_config(),
        }
        meta_path = Path(str(path) + ".json")
        tmp, tmp_meta = _temporary(path), _temporary(meta_path)
        try:
            if path.suffix == ".parquet":
                frame.to_parquet(tmp, index=False)
            else:
                frame.to_csv(tmp, index=False)
            tmp_meta.write_text(json.dumps(meta))
            with deferred_interrupts():
                os.replace(tmp_meta, meta_path)
                os.replace(tmp, path)
        finally:
            for t in (tmp, tmp_meta):
                t.unlink(missing_ok=True)
        return path

    @classmethod
    def load(cls, path) -> "Result":
        """Read a result written by ``save``; checks that its two files agree (rows, columns, the
        domain's bounds) and says which file is wrong and how."""
        path = Path(path)
        meta_path = Path(str(path) + ".json")
        if not path.exists() or not meta_path.exists():
            raise FileNotFoundError(f"no saved result at {path} (needs {path.name} and {meta_path.name})")
        try:
            meta = json.loads(meta_path.read_text())
            dom = domain_from_config({"kind": "tabular", **meta["domain"]})   # no "kind": saved before 0.3
            r = cls(dom, meta["method"], meta["params"])
            r.tried, r.hits, r.elapsed, r.status = meta["tried"], meta["hits"], meta["elapsed"], meta["status"]
            r.ended_by = tuple(meta["ended_by"]) if meta.get("ended_by") else None
            r._timeline = [tuple(t) for t in meta["timeline"]]
            r.extras = _unpacked_seeds(meta["extras"], dom)
        except (ValueError, KeyError, TypeError) as e:   # JSONDecodeError is a ValueError
            raise ValueError(f"{meta_path} is not a fairnb result description ({type(e).__name__}: {e}); "
                             f"Result.save writes it beside {path.name}") from None
        try:
            frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
        except Exception as e:  # noqa: BLE001 - pandas/pyarrow raise many types for a damaged file
            raise ValueError(f"{path} cannot be read as a fairnb result table ({type(e).__name__}: {e})") from None
        columns = meta.get("columns") or _legacy_columns(dom, frame)
        stored = meta.get("stored") or [str(n) for n in dom.names]    # format 2 stored feature rows
        wanted = [c for group in columns.values() for c in (group if isinstance(group, list) else [group])]
        missing = [c for c in wanted if c not in frame.columns]
        if missing:
            raise ValueError(f"{path} lacks the columns {missing} that {meta_path.name} names; the file is "
                             "damaged or belongs to another result")
        if "rows" in meta and len(frame) != meta["rows"]:
            raise ValueError(f"{path} has {len(frame)} pairs but {meta_path.name} says {meta['rows']}: the table "
                             "is truncated or from another save")
        try:
            items = {g: np.asarray(dom.from_columns(frame[columns[g]].set_axis(stored, axis=1)), dtype=float)
                     for g in ("X", "C")}
            info = (frame[columns["info"]].map(lambda v: v if isinstance(v, str) and v else None)
                    .to_numpy(object) if "info" in columns
                    else _info_column(None, len(frame)))
            chunk = {"X": items["X"], "C": items["C"],
                     "P": frame[columns["P"]].to_numpy(float), "PC": frame[columns["PC"]].to_numpy(float),
                     "phase": frame[columns["phase"]].astype(str).to_numpy(object),
                     "seed": frame[columns["seed"]].to_numpy(np.int64), "time": frame[columns["time"]].to_numpy(float),
                     "info": info}
            for what, label in (("X", "inputs"), ("C", "counterparts")):
                dom.validate(chunk[what], what=f"the saved {label}")
        except (ValueError, TypeError) as e:
            raise ValueError(f"{path} does not hold valid pairs for its domain: {e}") from None
        r._chunks = [chunk] if len(frame) else []
        order = np.argsort(chunk["time"], kind="stable")   # the adf counter keeps each key's first time
        r._seen.add(chunk["X"])
        if len(r._seen) != len(frame):
            raise ValueError(f"{path} holds {len(frame)} rows but {len(r._seen)} distinct inputs: its "
                             "columns do not match its description")
        for key, i in r._seen_adf.fresh(chunk["X"][order]).items():
            r._seen_adf.commit([key], chunk["time"][order[i]])
        return r

    # ------------------------------------------------------------------ display
    def __repr__(self):
        fmt = summaries
        return (f"<Result {self.method or 'search'}, {self.ending}: {fmt.fmt_count(self.count('eidig'))} "
                f"discriminatory inputs ({fmt.fmt_count(self.count('adf'))} without protected attributes) "
                f"from {fmt.fmt_count(self.tried)} checked in {fmt.fmt_seconds(self.elapsed)}>")

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                       f"<td style='text-align:right'>{html.escape(v)}</td></tr>"
                       for k, v in summaries.rows(self.summary(), self.ended_by))
        table = summaries.pairs_html(self, range(min(10, len(self))))
        return (f"<div class='fairnb-result'><b>fairnb result: {html.escape(self.method or 'search')}</b>"
                f"<table>{rows}</table><p>First {min(10, len(self))} of {summaries.fmt_count(len(self))} pairs "
                f"(protected attributes highlighted):</p>{table}</div>")

    def plot(self, ax=None):
        """Unique IDIs (full inputs, the ``"eidig"`` count) over time (matplotlib)."""
        import matplotlib.pyplot as plt

        ax = ax or plt.subplots(figsize=(5, 3), facecolor="white")[1]   # readable on dark themes
        t = self.timeline
        ax.plot(t["elapsed"], t["found"], label=plot_text(self.method or "search"))
        ax.set_xlabel("seconds")
        ax.set_ylabel("unique IDIs")
        ax.set_title("Discriminatory inputs found over time")
        ax.legend()
        return ax

    def inspect(self, seeds=None, **kwargs):
        """The interactive inspector of the pairs registered for the domain's kind
        (``fairnb.views.inspector_for``; tabular: ``fairnb.widgets.PairInspector``); ``seeds``
        defaults to ``extras["seeds"]``, the inputs that the pairs' seed ids index."""
        return inspector_for(self.domain.kind)(self, seeds, **kwargs)


NEAR_THRESHOLD = 1e-6


_FLOAT_FIELDS, _EXACT_DTYPES = ("X", "C", "P", "PC", "time"), (np.int8, np.uint8, np.int16, np.uint16, np.int32)


def compact(A: np.ndarray) -> np.ndarray:
    """``A`` in the smallest dtype that holds every value exactly: an integer type for whole numbers in
    its range (a tabular domain's codes: int8), else float32 where that is exact (images), else ``A``.

    >>> compact(np.array([0.0, 3.0, -2.0])).dtype, compact(np.array([0.5, 0.25])).dtype, compact(np.array([0.1])).dtype
    (dtype('int8'), dtype('float32'), dtype('float64'))
    """
    if not A.size or A.dtype.kind not in "fiu":
        return A
    lo, hi = A.min(), A.max()
    if A.dtype.kind in "iu" or (np.isfinite(lo) and np.isfinite(hi) and np.array_equal(A, np.rint(A))):
        for dtype in _EXACT_DTYPES:
            if np.iinfo(dtype).min <= lo and hi <= np.iinfo(dtype).max:
                return A.astype(dtype)
    if A.dtype == np.float64:
        f32 = A.astype(np.float32)
        if np.array_equal(f32, A):
            return f32
    return A


def pack_pairs(a: dict) -> dict:
    """The pair arrays ``a`` (``Result._arrays()``) in compact form: numbers by ``compact``, phases as
    small integer codes and their labels, details only when some pair has them; ``unpack_pairs`` inverts it.

    >>> a = {"X": np.ones((2, 3)), "phase": np.array(["global", "local"], object), "info": np.array([None, None])}
    >>> p = pack_pairs(a); p["X"].dtype, p["phase"], p["info"]
    (dtype('int8'), (array([0, 1], dtype=int8), ['global', 'local']), None)
    >>> unpack_pairs(p)["X"].dtype, unpack_pairs(p)["phase"].tolist()
    (dtype('float64'), ['global', 'local'])
    """
    out = {k: compact(v) for k, v in a.items() if k not in ("phase", "info")}
    codes, labels = pd.factorize(a["phase"])
    out["phase"] = (compact(codes), list(labels))
    has_info = a["info"] != None  # noqa: E711 - element-wise on an object array
    out["info"] = a["info"] if has_info.any() else None
    return out


def unpack_pairs(p: dict) -> dict:
    """The pair arrays that ``pack_pairs`` packed, in their usual dtypes."""
    out = {k: v.astype(float if k in _FLOAT_FIELDS else np.int64) for k, v in p.items() if k not in ("phase", "info")}
    codes, labels = p["phase"]
    out["phase"] = np.array(labels, dtype=object)[codes]
    out["info"] = p["info"] if p["info"] is not None else np.empty(len(codes), dtype=object)
    return out


def _per_input(values, n: int, dtype) -> np.ndarray:
    """``values`` (one for all ``n`` inputs, or one per input) as an ``(n,)`` array of ``dtype``.

    >>> _per_input("global", 2, object).tolist(), _per_input([1, 2], 2, float).tolist()
    (['global', 'global'], [1.0, 2.0])
    """
    return np.broadcast_to(np.asarray(values, dtype=dtype), (n,)).copy()


def near_threshold(P: np.ndarray, PC: np.ndarray, tol: float = NEAR_THRESHOLD) -> np.ndarray:
    """(n,) True where the input's or the counterpart's decision is within ``tol`` of the threshold
    (two classes: ``p`` within ``tol`` of 0.5; in general the top two outputs closer than ``2 tol``),
    so that float32 and float64 arithmetic may decide it differently.

    >>> near_threshold(np.array([[0.5 - 1e-7, 0.5 + 1e-7], [0.2, 0.8]]), np.array([[0.9, 0.1], [0.9, 0.1]])).tolist()
    [True, False]
    """
    def margin(Q):
        if Q.shape[1] < 2:
            return np.full(len(Q), np.inf)
        top = np.sort(Q, axis=1)[:, -2:]
        return top[:, 1] - top[:, 0]

    return (margin(P) < 2 * tol) | (margin(PC) < 2 * tol)


def _encoded_frame(a: dict, domain) -> tuple[pd.DataFrame, dict, list]:
    """The pairs as saved, the map of which columns hold what, and the domain's names of its stored
    columns (both kept in the JSON)."""
    items = {"X": domain.to_columns(a["X"]), "C": domain.to_columns(a["C"])}
    names = [str(n) for n in items["X"].columns]
    k = a["P"].shape[1]
    columns = {"X": names, "C": [f"{n}'" for n in names], "P": [f"fairnb:p_{j}" for j in range(k)],
               "PC": [f"fairnb:pc_{j}" for j in range(k)], "phase": "fairnb:phase", "seed": "fairnb:seed",
               "time": "fairnb:time", "info": "fairnb:info"}
    flat = columns["X"] + columns["C"] + columns["P"] + columns["PC"] + [columns[c] for c in ("phase", "seed", "time", "info")]
    if len(set(flat)) != len(flat):    # e.g. features "a" and "a'", or "fairnb:p_0": name them by position
        columns["X"] = [f"fairnb:x_{j}" for j in range(len(names))]
        columns["C"] = [f"fairnb:c_{j}" for j in range(len(names))]
    data = {}
    for group in ("X", "C"):
        for c, values in zip(columns[group], items[group].items()):
            data[c] = values[1].to_numpy()
    for group in ("P", "PC"):
        for j, c in enumerate(columns[group]):
            data[c] = a[group][:, j]
    data[columns["phase"]] = a["phase"].astype(str)
    data[columns["seed"]] = a["seed"]
    data[columns["time"]] = a["time"]
    data[columns["info"]] = ["" if d is None else d for d in a["info"]]
    return pd.DataFrame(data), columns, names


def _info_column(info, n: int) -> np.ndarray:
    """``(n,)`` object array of the per-input details as compact JSON text (None where there are none).

    Kept as text, not dicts: a text search's details (substitution chain, candidates, saliency) take a
    few hundred bytes as JSON and ten times that as Python objects, which is the difference between
    100,000 pairs fitting in Binder's 2 GB or not. ``Result.details(i)`` parses one on demand."""
    out = np.empty(n, dtype=object)
    if info is None:
        return out
    if len(info) != n:
        raise ValueError(f"info has {len(info)} entries for {n} inputs; give one dict per input")
    out[:] = [d if d is None or isinstance(d, str) else json.dumps(_jsonable(d), separators=(",", ":"))
              for d in info]
    return out


def _legacy_columns(domain, frame) -> dict:
    """The column map of a result saved before the map was stored."""
    names = [str(n) for n in domain.names]
    k = sum(str(c).startswith("p_") for c in frame.columns)
    return {"X": names, "C": [f"{n}'" for n in names], "P": [f"p_{j}" for j in range(k)],
            "PC": [f"pc_{j}" for j in range(k)], "phase": "phase", "seed": "seed", "time": "time"}


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def _round(x):
    return None if x is None else round(x, 4)


def _packed_seeds(extras: dict, domain) -> dict:
    """``extras`` with its seeds (``ctx.use_seeds``: the domain's items) in the domain's stored form, as the
    pairs are (images: base64 pixel bytes, about 0.2 MB for 1,000 32x32x3 images where JSON lists of floats
    take tens of MB); seeds of another shape stay as they are."""
    seeds = extras.get("seeds")
    shape = getattr(domain, "item_shape", None)
    if not isinstance(seeds, np.ndarray) or shape is None or seeds.shape[1:] != tuple(shape):
        return extras
    return {**extras, "seeds": {"__stored__": domain.to_columns(seeds).to_dict(orient="list")}}


def _unpacked_seeds(extras: dict, domain) -> dict:
    """The inverse of ``_packed_seeds`` (results saved before it keep their lists)."""
    seeds = extras.get("seeds")
    if isinstance(seeds, dict) and "__stored__" in seeds:
        extras = {**extras, "seeds": domain.from_columns(pd.DataFrame(seeds["__stored__"]))}
    return extras


def _jsonable(obj):
    """Best-effort conversion of numpy values and DataFrames for JSON."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, pd.DataFrame):
        return {"__frame__": obj.to_dict(orient="split")}
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    return obj

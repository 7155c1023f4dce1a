"""The Result of a search: discriminatory pairs, counts, a timeline, save/load, rich display.

Pairs are stored once per unique full instance (the EIDIG convention); ``count("adf")`` also
counts them without the protected attributes. Everything is a plain numpy array underneath, and
``result.pairs`` is a pandas DataFrame.

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> model = fairnb.train_demo_model(data)
>>> result = fairnb.search(model, data.domain, method="random", max_tried=2000, random_state=0)
>>> result.count("eidig") > 0
True
"""
from __future__ import annotations

import html
import json
import threading
from pathlib import Path

import numpy as np
import pandas as pd

from . import summaries
from .domains import Feature, TabularDomain
from .oracle import CONVENTIONS, dedup_keys

_PHASES = ("global", "local", "random")


class Result:
    """Discriminatory pairs found by a search, with the search's counters.

    Attributes
    ----------
    method, params : the search and its hyperparameters.
    tried : number of candidate inputs the oracle checked.
    hits : number of discriminatory candidates, duplicates included.
    elapsed : seconds the search ran.
    status : ``"running"``, ``"completed"``, ``"budget"``, ``"stopped"`` or ``"interrupted"``.
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
        self.extras: dict = {}
        self._lock = threading.Lock()
        self._chunks: list[dict] = []
        self._cache: dict | None = None
        self._seen: set[bytes] = set()
        self._seen_adf: dict[bytes, float] = {}
        self._timeline: list[tuple[float, int, int]] = []

    # ------------------------------------------------------------------ recording (engine side)
    def record(self, X, counterparts, proba, counterpart_proba, *, phase: str, seed_ids, elapsed: float) -> int:
        """Add discriminatory inputs; keeps only full instances not seen before. Returns how many were new."""
        X = np.asarray(X, dtype=float)
        self.hits += len(X)
        keys = _row_bytes(dedup_keys(X, self.domain, "eidig"))
        adf_keys = _row_bytes(dedup_keys(X, self.domain, "adf"))
        seen, seen_adf = self._seen, self._seen_adf
        new = [i for i, k in enumerate(keys) if k not in seen and not seen.add(k)]
        for i in new:
            seen_adf.setdefault(adf_keys[i], elapsed)
        if new:
            idx = np.array(new)
            chunk = {
                "X": X[idx], "C": np.asarray(counterparts, float)[idx],
                "P": np.asarray(proba, float)[idx], "PC": np.asarray(counterpart_proba, float)[idx],
                "phase": np.full(len(idx), phase, dtype=object),
                "seed": np.broadcast_to(np.asarray(seed_ids, dtype=np.int64), (len(X),))[idx],
                "time": np.full(len(idx), elapsed),
            }
            with self._lock:
                self._chunks.append(chunk)
                self._cache = None
        return len(new)

    def mark(self, elapsed: float):
        """Add a timeline sample (called by the engine after each batch)."""
        self.elapsed = elapsed
        self._timeline.append((elapsed, self.tried, len(self._seen)))

    # ------------------------------------------------------------------ arrays
    def _arrays(self) -> dict:
        with self._lock:
            if self._cache is None:
                d = self.domain.n_features
                if self._chunks:
                    self._cache = {k: np.concatenate([c[k] for c in self._chunks]) for k in self._chunks[0]}
                else:
                    self._cache = {"X": np.zeros((0, d)), "C": np.zeros((0, d)), "P": np.zeros((0, 2)),
                                   "PC": np.zeros((0, 2)), "phase": np.zeros(0, object),
                                   "seed": np.zeros(0, np.int64), "time": np.zeros(0)}
            return self._cache

    @property
    def inputs(self) -> np.ndarray:
        """(n, d) the discriminatory inputs, one per unique full instance."""
        return self._arrays()["X"]

    @property
    def counterparts(self) -> np.ndarray:
        """(n, d) for each input, a protected variant that gets another decision."""
        return self._arrays()["C"]

    def __len__(self):
        return len(self._seen)

    # ------------------------------------------------------------------ counts
    def count(self, convention: str = "eidig") -> int:
        """Unique IDIs: ``"eidig"`` full instances, ``"adf"`` without the protected attributes."""
        if convention not in CONVENTIONS:
            raise ValueError(f"unknown counting convention {convention!r}; choose from {CONVENTIONS}")
        return len(self._seen) if convention == "eidig" else len(self._seen_adf)

    def time_to(self, n: int, convention: str = "eidig") -> float | None:
        """Seconds until the ``n``-th unique IDI was found (None if fewer were found)."""
        times = (self._arrays()["time"] if convention == "eidig"
                 else np.sort(np.fromiter(self._seen_adf.values(), float, len(self._seen_adf))))
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
        """Pairs as a DataFrame: ``<feature>`` for the input, ``<feature>'`` for the counterpart,
        then outputs (``p``, ``p'`` = probability of class 1 for binary models), labels, phase,
        seed id and the time found."""
        a = self._arrays()
        dom = self.domain
        left = dom.decode(a["X"]) if decoded else pd.DataFrame(a["X"], columns=list(dom.names))
        right = dom.decode(a["C"]) if decoded else pd.DataFrame(a["C"], columns=list(dom.names))
        right.columns = [f"{c}'" for c in right.columns]
        k = a["P"].shape[1]
        col = 1 if k == 2 else slice(None)
        frame = pd.concat([left, right[[f"{dom.names[i]}'" for i in dom.protected]]], axis=1)
        frame["p"] = a["P"][:, col] if k == 2 else a["P"].max(axis=1)
        frame["p'"] = a["PC"][:, col] if k == 2 else a["PC"].max(axis=1)
        frame["label"] = a["P"].argmax(axis=1)
        frame["label'"] = a["PC"].argmax(axis=1)
        frame["difference"] = np.abs(a["P"] - a["PC"]).sum(axis=1) / 2
        frame["phase"] = a["phase"]
        frame["seed"] = a["seed"]
        frame["time"] = a["time"]
        return frame

    # ------------------------------------------------------------------ save / load
    def save(self, path) -> Path:
        """Write the pairs (encoded) to ``.csv`` or ``.parquet`` and the rest to ``<path>.json``."""
        path = Path(path)
        frame = self._encoded_frame()
        if path.suffix == ".parquet":
            frame.to_parquet(path, index=False)
        elif path.suffix == ".csv":
            frame.to_csv(path, index=False)
        else:
            raise ValueError(f"unknown result format {path.suffix!r}: use .csv or .parquet")
        meta = {
            "method": self.method, "params": _jsonable(self.params), "tried": self.tried, "hits": self.hits,
            "elapsed": self.elapsed, "status": self.status, "timeline": self._timeline,
            "extras": _jsonable(self.extras),
            "domain": {"features": [[f.name, f.low, f.high, list(f.labels) if f.labels else None, f.kind, f.step]
                                    for f in self.domain.features],
                       "protected": list(self.domain.protected)},
        }
        Path(str(path) + ".json").write_text(json.dumps(meta))
        return path

    @classmethod
    def load(cls, path) -> "Result":
        """Read a result written by ``save``."""
        path = Path(path)
        meta_path = Path(str(path) + ".json")
        if not path.exists() or not meta_path.exists():
            raise FileNotFoundError(f"no saved result at {path} (needs {path.name} and {meta_path.name})")
        meta = json.loads(meta_path.read_text())
        dom = TabularDomain([Feature(n, lo, hi, tuple(lb) if lb else None, *kind_step)     # kind, step: since 0.2
                             for n, lo, hi, lb, *kind_step in meta["domain"]["features"]], meta["domain"]["protected"])
        frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
        r = cls(dom, meta["method"], meta["params"])
        names = list(dom.names)
        k = sum(c.startswith("p_") for c in frame.columns)
        chunk = {"X": frame[names].to_numpy(float), "C": frame[[f"{n}'" for n in names]].to_numpy(float),
                 "P": frame[[f"p_{j}" for j in range(k)]].to_numpy(float),
                 "PC": frame[[f"pc_{j}" for j in range(k)]].to_numpy(float),
                 "phase": frame["phase"].astype(str).to_numpy(object), "seed": frame["seed"].to_numpy(np.int64),
                 "time": frame["time"].to_numpy(float)}
        r._chunks = [chunk] if len(frame) else []
        r._seen = set(_row_bytes(dedup_keys(chunk["X"], dom, "eidig")))
        for key, t in zip(_row_bytes(dedup_keys(chunk["X"], dom, "adf")), chunk["time"]):
            r._seen_adf[key] = min(t, r._seen_adf.get(key, t))
        r.tried, r.hits, r.elapsed, r.status = meta["tried"], meta["hits"], meta["elapsed"], meta["status"]
        r._timeline = [tuple(t) for t in meta["timeline"]]
        r.extras = meta["extras"]
        return r

    def _encoded_frame(self) -> pd.DataFrame:
        a = self._arrays()
        names = list(self.domain.names)
        frame = pd.DataFrame(a["X"], columns=names)
        for j, n in enumerate(names):
            frame[f"{n}'"] = a["C"][:, j]
        for j in range(a["P"].shape[1]):
            frame[f"p_{j}"] = a["P"][:, j]
            frame[f"pc_{j}"] = a["PC"][:, j]
        frame["phase"] = a["phase"].astype(str)
        frame["seed"] = a["seed"]
        frame["time"] = a["time"]
        return frame

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

    def plot(self, ax=None, convention: str = "eidig"):
        """Unique IDIs over time (matplotlib)."""
        import matplotlib.pyplot as plt

        ax = ax or plt.subplots(figsize=(5, 3), facecolor="white")[1]   # readable on dark themes
        t = self.timeline
        ax.plot(t["elapsed"], t["found"], label=self.method or "search")
        ax.set_xlabel("seconds")
        ax.set_ylabel("unique IDIs")
        ax.set_title("Discriminatory inputs found over time")
        ax.legend()
        return ax

    def inspect(self, seeds=None, **kwargs):
        """An interactive table of the pairs (``fairnb.widgets.PairInspector``); ``seeds`` defaults to
        ``extras["seeds"]``, the inputs that the pairs' seed ids index."""
        from .widgets.inspector import PairInspector

        return PairInspector(self, seeds, **kwargs)


def _row_bytes(keys: np.ndarray) -> list[bytes]:
    """Each row of an int64 matrix as one hashable bytes object (fast: no per-row numpy calls)."""
    keys = np.ascontiguousarray(keys)
    return keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel().tolist()


def _round(x):
    return None if x is None else round(x, 4)


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

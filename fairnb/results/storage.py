"""Saving a Result (the pairs as ``.csv`` or ``.parquet``, the rest as JSON beside them) and loading it,
also as written by earlier releases (formats 1 to 3).

Example
-------
>>> import fairnb, tempfile, os
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> r = fairnb.run_search(data.info["true_model"], data.domain, method="random", max_tried=500, random_state=0)
>>> path = r.save(os.path.join(tempfile.mkdtemp(), "r.csv"))
>>> type(r).load(path).count() == r.count()
True
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np
import pandas as pd

from ..domains import domain_from_config
from ..interrupts import deferred_interrupts
from .details import _info_column, jsonable
from .tallies import Extras


class SavedResult:
    """Save and load (a part of ``fairnb.results.Result``)."""

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
            "method": self.method, "params": jsonable(self.params), "tried": frozen.tried, "hits": frozen.hits,
            "elapsed": frozen.elapsed, "status": frozen.status, "ended_by": frozen.ended_by,
            "timeline": frozen._timeline,
            "error": None if self.error is None else repr(self.error),
            "extras": jsonable(_packed_seeds(frozen.extras, self.domain)),
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
            r.extras = Extras(_unpacked_seeds(meta["extras"], dom))   # tallies load as plain values
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


def _legacy_columns(domain, frame) -> dict:
    """The column map of a result saved before the map was stored."""
    names = [str(n) for n in domain.names]
    k = sum(str(c).startswith("p_") for c in frame.columns)
    return {"X": names, "C": [f"{n}'" for n in names], "P": [f"p_{j}" for j in range(k)],
            "PC": [f"pc_{j}" for j in range(k)], "phase": "phase", "seed": "seed", "time": "time"}


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")


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

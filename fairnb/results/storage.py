"""Saving a Result (the pairs as ``.csv`` or ``.parquet``, the search's seeds and their outcomes as ``.npz`` and
the rest as JSON beside them) and loading it, also as written by earlier releases (formats 1 to 4).

Format 4 records checksums: the description (``<path>.json``) holds the SHA-256 of the pair table
(``table_sha256``), of the seeds' file (in ``extras``) and of its own contents (``sha256``, over the JSON's values with sorted keys, so
re-indenting it changes nothing). ``load`` refuses a file whose checksum differs, naming it: a reordered
vocabulary or another image shape in the description, one changed character in the table, would
otherwise load and re-read every pair as another text or image. Files written before format 4 still
load, with an :class:`UncheckedResultWarning`; their pair details are then checked to be JSON.

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

import hashlib
import json
import os
import threading
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..counting import UniqueCounter
from ..domains import domain_from_config
from ..interrupts import deferred_interrupts
from ..store import sha256
from .details import _info_column, jsonable
from .packing import stored_form
from .tallies import Extras


class UncheckedResultWarning(UserWarning):
    """A saved Result was loaded without checksums to verify (written before format 4)."""


class SavedResult:
    """Save and load (a part of ``fairnb.results.Result``)."""

    def save(self, path) -> Path:
        """Write the pairs (encoded) to ``.csv`` or ``.parquet``, the search's seeds and their outcomes to
        ``<path>.seeds.npz`` (when it kept seeds) and the rest to ``<path>.json``.

        The files are written to temporary names first and then renamed, so an interrupted save
        leaves any earlier result at ``path`` whole. The JSON names the columns that hold the
        inputs, counterparts and outputs (features may have any names, also ``p_1`` or ``phase``),
        and records the SHA-256 of the table and of itself, which ``load`` checks.
        """
        path = Path(path)
        if path.suffix not in (".csv", ".parquet"):
            raise ValueError(f"unknown result format {path.suffix!r}: use .csv or .parquet")
        frozen = self.snapshot()
        frame, columns, stored = _encoded_frame(frozen._arrays(), self.domain)
        meta = {
            "format": 4, "columns": columns, "stored": stored, "rows": len(frame),
            "method": self.method, "params": jsonable(self.params), "tried": frozen.tried, "hits": frozen.hits,
            "elapsed": frozen.elapsed, "status": frozen.status, "ended_by": frozen.ended_by,
            "timeline": frozen._timeline,
            "error": None if self.error is None else repr(self.error),
            "domain": self.domain.to_config(),
        }
        extras, seeds = _packed_seeds(frozen.extras, self.domain)
        meta_path, seeds_path = Path(str(path) + ".json"), seeds_file(path)
        tmp, tmp_meta, tmp_seeds = _temporary(path), _temporary(meta_path), _temporary(seeds_path)
        try:
            if path.suffix == ".parquet":
                frame.to_parquet(tmp, index=False, compression="zstd")   # 6 % smaller than snappy on pairs
            else:
                frame.to_csv(tmp, index=False)
            if seeds is not None:
                _write_seeds(tmp_seeds, seeds)
                extras["seeds"] = {"__file__": seeds_path.name, "sha256": sha256(tmp_seeds)}
            meta["extras"] = jsonable(extras)
            tmp_meta.write_text(json.dumps(_with_checksums(meta, sha256(tmp))))
            with deferred_interrupts():
                if seeds is not None:
                    os.replace(tmp_seeds, seeds_path)
                else:
                    seeds_path.unlink(missing_ok=True)       # an earlier save's seeds, which nothing names now
                os.replace(tmp_meta, meta_path)
                os.replace(tmp, path)
        finally:
            for t in (tmp, tmp_meta, tmp_seeds):
                t.unlink(missing_ok=True)
        return path

    def save_suite(self, path) -> Path:
        """Save the pairs as a regression suite that ``fairnb.check(model, path)`` re-checks any model on: the
        files ``save`` writes, which hold the pairs with the decisions when found, the domain, the method and
        its budget, the seeds and the checksums (see ``fairnb.suites``)."""
        if self.domain is None:
            raise ValueError("a Result without a domain cannot be saved as a suite")
        return self.save(path)

    @classmethod
    def load(cls, path) -> "Result":
        """Read a result written by ``save``; checks the recorded checksums (a file changed since it
        was saved is refused) and that its two files agree (rows, columns, the domain's bounds), and
        says which file is wrong and how."""
        path = Path(path)
        meta_path = Path(str(path) + ".json")
        if not path.exists() or not meta_path.exists():
            raise FileNotFoundError(f"no saved result at {path} (needs {path.name} and {meta_path.name})")
        meta = _verified_description(path, meta_path)
        try:
            dom = domain_from_config({"kind": "tabular", **meta["domain"]})   # no "kind": saved before 0.3
            r = cls(dom, meta["method"], meta["params"])
            r.tried, r.hits, r.elapsed, r.status = meta["tried"], meta["hits"], meta["elapsed"], meta["status"]
            r.ended_by = tuple(meta["ended_by"]) if meta.get("ended_by") else None
            r._timeline = [tuple(t) for t in meta["timeline"]]
            r.extras = Extras(_unpacked_seeds(meta["extras"], dom, path))   # tallies load as plain values
        except (ValueError, KeyError, TypeError) as e:
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
        r._keep([stored_form(chunk)] if len(frame) else [])
        r._seen = UniqueCounter.of_items(dom, "eidig", chunk["X"])
        if len(r._seen) != len(frame):
            raise ValueError(f"{path} holds {len(frame)} rows but {len(r._seen)} distinct inputs: its "
                             "columns do not match its description")
        _verify_table(path, meta_path, meta)     # after the checks that say more precisely what is wrong
        if "table_sha256" not in meta:            # a verified table holds the details as saved: JSON
            _check_details(info, path, columns.get("info"))
        order = np.argsort(chunk["time"], kind="stable")   # the adf counter keeps each key's first time
        r._seen_adf = UniqueCounter.of_items(dom, "adf", chunk["X"][order], chunk["time"][order])
        return r


def _description_sha256(meta: dict) -> str:
    """The SHA-256 of a description's contents (its values with sorted keys, without ``sha256`` itself)."""
    body = {k: v for k, v in meta.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _with_checksums(meta: dict, table_sha256: str) -> dict:
    """``meta`` as JSON will read it back, with the table's and its own SHA-256."""
    meta = {**json.loads(json.dumps(meta)), "table_sha256": table_sha256}
    return {**meta, "sha256": _description_sha256(meta)}


def _verified_description(path: Path, meta_path: Path) -> dict:
    """The description beside ``path``, its checksums verified (or a warning when it has none)."""
    try:
        meta = json.loads(meta_path.read_text())
    except (ValueError, OSError) as e:   # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise ValueError(f"{meta_path} is not a fairnb result description ({type(e).__name__}: {e}); "
                         f"Result.save writes it beside {path.name}") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{meta_path} is not a fairnb result description (it holds a JSON "
                         f"{type(meta).__name__}); Result.save writes it beside {path.name}")
    if "sha256" not in meta:
        warnings.warn(f"{meta_path.name} records no checksums (saved before fairnb's result format 4): whether "
                      f"it or {path.name} changed since they were saved cannot be checked; save the loaded "
                      "Result again to add them", UncheckedResultWarning, stacklevel=3)
        return meta
    if _description_sha256(meta) != meta["sha256"]:
        raise ValueError(f"{meta_path}: its contents do not match the SHA-256 recorded when it was saved, so it "
                         "changed since it was saved (edited or damaged); its vocabulary, shape or columns "
                         f"may no longer describe {path.name}, and it is not loaded")
    return meta


def _verify_table(path: Path, meta_path: Path, meta: dict) -> None:
    """``ValueError`` when the table's SHA-256 is not the one its description recorded (a change that left
    it readable: one character of an image, a swapped id); nothing for a description without checksums."""
    if "table_sha256" in meta:
        table = sha256(path)
        if table != meta["table_sha256"]:
            raise ValueError(f"{path}: SHA-256 {table} differs from the {meta['table_sha256']} recorded in "
                             f"{meta_path.name}, so the table changed since it was saved (edited, re-saved by "
                             "another program or damaged), and it is not loaded")


def _check_details(info: np.ndarray, path: Path, column) -> None:
    """``ValueError`` naming the first pair whose details are not JSON (files without checksums)."""
    for i, text in enumerate(info):
        if text is not None:
            try:
                json.loads(text)
            except ValueError as e:
                raise ValueError(f"{path}: column {column!r}, row {i} (pair {i}, counting from 0) holds "
                                 f"details that are not JSON ({e}): {text[:60]!r}") from None


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


def seeds_file(path) -> Path:
    """Where ``Result.save(path)`` keeps the search's seeds: ``<path>.seeds.npz`` beside the pairs.

    >>> seeds_file("found.parquet").name
    'found.parquet.seeds.npz'
    """
    return Path(str(path) + ".seeds.npz")


def _packed_seeds(extras: dict, domain) -> tuple[dict, dict | None]:
    """``extras`` without the per-seed values, and those values, which ``save`` keeps in a compressed ``.npz``
    beside the pairs: the seeds (``ctx.use_seeds``: an array of the domain's items) and their outcome marks
    (``extras["seed_marks"]``). 20,000 census seeds took 1.46 MB as JSON lists in the description, and take
    0.1 MB so. Seeds of another shape stay in ``extras``, saved as JSON."""
    seeds = extras.get("seeds")
    shape = getattr(domain, "item_shape", None)
    if not isinstance(seeds, np.ndarray) or shape is None or seeds.shape[1:] != tuple(shape):
        return {k: v for k, v in extras.items() if k != "natural_inputs"}, None
    kept = {"seeds": seeds}
    if extras.get("seed_marks") is not None:
        kept["seed_marks"] = np.asarray(extras["seed_marks"], dtype=str)
    natural = extras.get("natural_inputs")
    if isinstance(natural, np.ndarray) and natural.shape[1:] == seeds.shape[1:]:
        kept["natural_inputs"] = natural
    return {k: v for k, v in extras.items() if k not in kept and k != "natural_inputs"}, kept


def _write_seeds(path: Path, kept: dict) -> None:
    """The per-seed values to ``path`` (``.npz``): the seeds as 32-bit integers when they are whole numbers
    (table rows, token ids, 8-bit pixels: they compress best so) with the dtype to give back, the marks as codes
    into their distinct strings."""
    arrays = {"dtype": np.array(kept["seeds"].dtype.str)}
    for name in ("seeds", "natural_inputs"):      # the search's seeds; the data's rows of its natural rate
        if name in kept:
            a = kept[name]
            whole = (np.issubdtype(a.dtype, np.floating) and np.isfinite(a).all()
                     and (np.abs(a) < 2 ** 31).all() and (a == np.round(a)).all())
            arrays[name] = a.astype(np.int32) if whole else a
    if "seed_marks" in kept:
        arrays["mark_names"], arrays["marks"] = np.unique(kept["seed_marks"], return_inverse=True)
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)


def _unpacked_seeds(extras: dict, domain, path: Path) -> dict:
    """The inverse of ``_packed_seeds``: the seeds (and their marks) read from their ``.npz``, its SHA-256 checked
    against the one the description recorded; results saved before kept them in the JSON, as stored columns or
    lists."""
    seeds = extras.get("seeds")
    if isinstance(seeds, dict) and "__file__" in seeds:
        file = path.with_name(seeds["__file__"])
        if not file.exists():
            raise ValueError(f"{file} is missing: {path.name}'s description names it as the file of the "
                             "search's seeds; copy it with the pairs")
        if sha256(file) != seeds["sha256"]:
            raise ValueError(f"{file}: its SHA-256 differs from the one recorded when the result was saved, so "
                             "the seeds changed since (edited or from another save), and the result is not loaded")
        with np.load(file, allow_pickle=False) as kept:
            dtype = np.dtype(str(kept["dtype"]))
            extras = {**extras, "seeds": kept["seeds"].astype(dtype)}
            if "natural_inputs" in kept:
                extras["natural_inputs"] = kept["natural_inputs"].astype(dtype)
            if "marks" in kept:
                extras["seed_marks"] = kept["mark_names"][kept["marks"]].tolist()
    elif isinstance(seeds, dict) and "__stored__" in seeds:
        extras = {**extras, "seeds": domain.from_columns(pd.DataFrame(seeds["__stored__"]))}
    return extras

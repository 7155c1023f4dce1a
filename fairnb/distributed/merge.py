"""One Result from the Results of a sharded search's shards.

The pairs of every shard are recorded into a new Result, shard after shard (each shard's times
shifted by when it started), so the core's ``Result.record`` de-duplicates them under both counting
conventions as one search would: an input found by two shards counts once, with the pair of the
first shard that found it (so a rerun with the same seed gives the same pairs, whatever the timing). Seed ids
are shifted to index the merged ``extras["seeds"]`` (every shard's seeds, in shard order).

Example
-------
>>> import fairnb
>>> from fairnb.search import RandomSearch
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> part = RandomSearch(n_samples=2000, random_state=0, progress=False).run(data.info["true_model"], data.domain)
>>> merged = merge_results([part, part], data.domain, "random")
>>> merged.count() == part.count(), merged.tried == 2 * part.tried
(True, True)
"""
from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from ..results import Result

_SHARD_OWN = ("seeds", "seeds_used")    # extras merged by position, not summed


def record_part(merged: Result, part: Result, offset: float = 0.0, first_id: int | None = 0, *,
                limit: int | None = None, convention: str = "eidig") -> None:
    """Record the pairs of the shard Result ``part`` into ``merged``: times shifted by ``offset`` seconds, seed
    ids by ``first_id`` (None: the shard's seeds are unknown, its pairs get seed -1)."""
    if part is None or not len(part):
        return
    a = part._arrays()
    seed = np.where(a["seed"] >= 0, a["seed"] + (first_id or 0), -1) if first_id is not None else \
        np.full(len(a["seed"]), -1)
    room = None if limit is None else max(limit - merged.count(convention), 0)
    merged.record(a["X"], a["C"], a["P"], a["PC"], phase=a["phase"], seed_ids=seed, elapsed=a["time"] + offset,
                  limit=room, limit_convention=convention, info=a["info"])


def merge_results(parts, domain, method: str = "", params: dict | None = None, *, offsets=None,
                  first_ids=None, seeds=None, limit: int | None = None, convention: str = "eidig",
                  into: Result | None = None) -> Result:
    """Merge shard Results ``parts`` (None for a shard that returned nothing) into one Result.

    ``offsets``: seconds from the start of the whole run to each shard's start (default 0);
    ``first_ids``: the index of each shard's first seed among all ``seeds`` (default: the shards' own seeds
    one after another). ``limit``: keep at most that many unique IDIs in ``convention`` (the search's ``max_found``).
    Counters (``tried``, ``hits``) and whole-number extras are summed; every shard's own numbers are kept in
    ``extras["shards"]`` (a DataFrame). ``into``: a Result that already holds the parts' pairs, recorded in
    shard order by ``record_part`` (a live run's): only its counters and extras are set.
    """
    parts = list(parts)
    offsets = [0.0] * len(parts) if offsets is None else list(offsets)
    if first_ids is None:
        seeds, ids = _merged_seeds(parts)
    else:
        ids = list(first_ids)
    merged = into
    if merged is None:
        merged = Result(domain, method, params)
        for part, offset, first in zip(parts, offsets, ids):
            record_part(merged, part, offset, first, limit=limit, convention=convention)
    done = [p for p in parts if p is not None]
    merged.tried = sum(p.tried for p in done)
    merged.hits = sum(p.hits for p in done)
    merged.extras.update(_summed_extras(done))
    if seeds is not None:
        merged.extras.update(seeds=seeds, seeds_used=len(seeds))
    merged.extras["shards"] = pd.DataFrame([_shard_row(i, p, o) for i, (p, o) in enumerate(zip(parts, offsets))])
    return merged


def _merged_seeds(parts):
    """All shards' seeds in one array, and each shard's offset into it (None where its seeds are unknown)."""
    own = [None if p is None else p.extras.get("seeds") for p in parts]
    if all(s is None for s in own):
        return None, [0] * len(parts)
    ids, start = [], 0
    for s in own:
        ids.append(None if s is None else start)
        start += 0 if s is None else len(s)
    return np.concatenate([np.asarray(s) for s in own if s is not None]), ids


def _summed_extras(parts) -> dict:
    """Whole-number extras that every shard has, summed (e.g. ``generated``, ``global_idis``; each is a
    per-shard count, so a sum may count an input that two shards generated twice)."""
    if not parts:
        return {}
    keys = [k for k, v in parts[0].extras.items() if k not in _SHARD_OWN and _is_count(v)]
    return {k: sum(p.extras[k] for p in parts) for k in keys if all(_is_count(p.extras.get(k)) for p in parts)}


def _is_count(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _shard_row(index: int, part, offset: float) -> dict:
    if part is None:
        return {"shard": index, "status": "lost", "tried": 0, "unique_idis": 0, "unique_idis_adf": 0,
                "started_s": round(offset, 3), "elapsed_s": None, "cpu_s": None}
    return {"shard": index, "status": part.status, "tried": part.tried, "unique_idis": part.count("eidig"),
            "unique_idis_adf": part.count("adf"), "started_s": round(offset, 3), "elapsed_s": round(part.elapsed, 3),
            "cpu_s": part.extras.get("shard_cpu_s")}

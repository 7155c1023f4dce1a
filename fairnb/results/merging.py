"""One Result from the Results of a sharded search's shards (no Dask needed: plain Results merge).

The shards' pairs are concatenated in shard order (each shard's times shifted by when it started, its
seed ids by where its seeds start among all shards' seeds) and de-duplicated with numpy on the domain's
keys under both counting conventions, as one search recording them in that order would: an input found
by two shards counts once, with the pair of the first shard that found it (so a rerun with the same seed
gives the same pairs, whatever the timing). No Python object per pair: a shard's Result arrives packed
(``Result.__getstate__``) and the merged Result's unique counters are built lazily
(``UniqueCounter.of_items``). The shards' tallies merge by their declared types
(``fairnb.results.tallies``): counts sum, distinct counts unite their keys, values every shard computes
alike are checked to agree, ratios and derived values are recomputed from the merged Result.

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

import numpy as np
import pandas as pd

from ..counting import first_occurrences
from .recording import Result
from .seed_outcomes import merged_marks
from .tallies import Count, merge_tallies

# extras merged by position, the same in every shard (the data's rows of the natural rate), or kept in extras["shards"]
_SHARD_OWN = ("seeds", "seeds_used", "seed_marks", "natural_inputs", "shard_cpu_s")


def merged_pairs(parts, domain, method: str = "", params: dict | None = None, *, offsets=None, first_ids=None,
                 limit: int | None = None, convention: str = "eidig") -> Result:
    """A Result holding the pairs of the shard Results ``parts`` (None: a shard that returned nothing), in
    shard order, each input once (its first shard's pair): times shifted by ``offsets`` seconds, seed ids
    by ``first_ids`` (None for a shard: its seeds are unknown, its pairs get seed -1); at most ``limit``
    unique IDIs in ``convention``. Counters and extras are left to ``merge_results``."""
    chunks = []
    for part, offset, first in zip(parts, offsets, first_ids):
        if part is None or not len(part):
            continue
        a = dict(part._arrays())
        a["time"] = a["time"] + offset
        a["seed"] = np.where(a["seed"] >= 0, a["seed"] + first, -1) if first is not None else \
            np.full(len(a["seed"]), -1)
        chunks.append(a)
    if not chunks:
        return Result(domain, method, params)
    a = chunks[0] if len(chunks) == 1 else {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}
    keep = first_occurrences(domain.key(a["X"], "eidig")) if len(chunks) > 1 else np.arange(len(a["X"]))
    if limit is not None:
        if convention == "adf":      # up to the input that brings one ADF-unique IDI too many
            adf = first_occurrences(domain.key(a["X"][keep], "adf"))
            keep = keep[: adf[limit]] if len(adf) > limit else keep
        else:
            keep = keep[:limit]
    if len(keep) < len(a["X"]):
        a = {k: v[keep] for k, v in a.items()}
    return Result.from_pairs(domain, method, params, a)


def merge_results(parts, domain, method: str = "", params: dict | None = None, *, offsets=None,
                  first_ids=None, seeds=None, limit: int | None = None, convention: str = "eidig",
                  into: Result | None = None) -> Result:
    """Merge shard Results ``parts`` (None for a shard that returned nothing) into one Result.

    ``offsets``: seconds from the start of the whole run to each shard's start (default 0);
    ``first_ids``: the index of each shard's first seed among all ``seeds`` (default: the shards' own seeds
    one after another). ``limit``: keep at most that many unique IDIs in ``convention`` (the search's ``max_found``).
    Counters (``tried``, ``hits``) are summed and the tallies merged by their types (``merge_tallies``;
    derived ones recomputed from the merged Result). Other extras, ``PerShard`` tallies and ``Same`` ones
    the shards disagree on are the shard's when one returned, else each shard's are kept in
    ``extras["per_shard"]`` (a list of dicts); every shard's own numbers are kept in ``extras["shards"]``
    (a DataFrame). ``into``: a Result that already holds the parts' pairs (``merged_pairs``'s, e.g. a live
    run's): only its counters and extras are set.
    """
    parts = list(parts)
    offsets = [0.0] * len(parts) if offsets is None else list(offsets)
    if first_ids is None:
        seeds, ids = _merged_seeds(parts)
    else:
        ids = list(first_ids)
    merged = into if into is not None else merged_pairs(parts, domain, method, params, offsets=offsets,
                                                        first_ids=ids, limit=limit, convention=convention)
    done = [p for p in parts if p is not None]
    merged.tried = sum(p.tried for p in done)
    merged.hits = sum(p.hits for p in done)
    tallies = merge_tallies(done)
    kept = [{k: v for k, v in p.extras.items() if k not in _SHARD_OWN and k not in tallies} for p in done]
    if len(kept) == 1:             # one shard: its findings are the run's (a one-shard run is the local run)
        dict.update(merged.extras, kept[0])    # as they are: a Result loaded from a file has no tallies
    elif kept:
        merged.extras["per_shard"] = kept
    natural = next((p.extras["natural_inputs"] for p in done if p.extras.get("natural_inputs") is not None), None)
    if natural is not None:
        merged.extras["natural_inputs"] = natural
    if seeds is not None:
        merged.extras["seeds"] = seeds
        merged.tally(seeds_used=Count(len(seeds)))
        if any(p.extras.get("seed_marks") is not None for p in done):
            merged.extras["seed_marks"] = merged_marks(parts, ids, len(seeds))
    merged.tally(**{k: t for k, t in tallies.items() if not t.derived and k not in _SHARD_OWN})
    merged.tally(**{k: t for k, t in tallies.items() if t.derived})
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


def _shard_row(index: int, part, offset: float) -> dict:
    if part is None:
        return {"shard": index, "status": "lost", "tried": 0, "unique_idis": 0, "unique_idis_adf": 0,
                "started_s": round(offset, 3), "elapsed_s": None, "cpu_s": None}
    return {"shard": index, "status": part.status, "tried": part.tried, "unique_idis": part.count("eidig"),
            "unique_idis_adf": part.count("adf"), "started_s": round(offset, 3), "elapsed_s": round(part.elapsed, 3),
            "cpu_s": part.extras.get("shard_cpu_s")}

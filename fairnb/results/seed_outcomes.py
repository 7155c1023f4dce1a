"""How each seed of a search ended: ``found`` (an IDI reached from it), ``exhausted`` (searched, nothing
found) or ``skipped`` with a short reason.

A strategy declares its seeds (``SearchContext.use_seeds``). The engine notes every seed that a checked
batch descends from (``Batch.seed_ids``). The strategy marks the seeds it skips, with a reason
(``ctx.seed_outcome(ids, "skipped", reason="flip failed")``). Everything else is derived: a seed with a
pair is ``found``, a searched seed without one is ``exhausted``. When the run ends, a seed that no batch
reached is ``skipped``: "budget ended before it was searched" (or "search ended ..." when the strategy's own
limit ended a completed run, "search interrupted ..." on Ctrl-C).

The marks are kept in ``result.extras["seed_marks"]``, one string per seed: ``""`` while unsearched,
``"searched"``, or ``"<outcome>: <reason>"``. They are an array while the search runs and a list once it
has ended, so a saved and loaded Result holds the same value. The sharded
merge places them by seed id, as it places the seeds. ``result.seed_outcomes`` is their table. The derived
tallies ``seeds_found``, ``seeds_exhausted`` and ``seeds_skipped`` sum to the seeds declared, and are
recomputed after a merge.

Example
-------
>>> from fairnb.domains import Feature, TabularDomain
>>> from fairnb.results import Result
>>> r = Result(TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"]))
>>> declare(r, 3); note_searched(r, [0, 1]); mark(r, [2], "skipped", "no protected term")
>>> _ = r.record([[0, 3]], [[1, 3]], [[0.9, 0.1]], [[0.1, 0.9]], phase="global", seed_ids=[1], elapsed=0.1)
>>> settle(r, "completed"); r.seed_outcomes.values.tolist()
[[0, 'exhausted', ''], [1, 'found', ''], [2, 'skipped', 'no protected term']]
>>> r.extras["seeds_found"], r.extras["seeds_exhausted"], r.extras["seeds_skipped"]
(1, 1, 1)
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .tallies import Derived

OUTCOMES = ("found", "exhausted", "skipped")
SEARCHED = "searched"


def declare(result, n: int, first: int = 0) -> None:
    """``n`` seeds, none searched yet, after the ``first`` seeds declared before (an earlier round's:
    ``fairnb.search.engine.seed_rounds``; their marks are kept)."""
    earlier = result.extras.get("seed_marks") if first else None
    marks = np.full(first + n, "", dtype=object)
    if earlier is not None:
        marks[:first] = earlier[:first]
    result.extras["seed_marks"] = marks


def note_searched(result, seed_ids) -> None:
    """The seeds ``seed_ids`` (ids below 0 ignored) reached a checked batch; a seed already marked keeps its mark."""
    marks = result.extras.get("seed_marks")
    if marks is None:
        return
    ids = np.asarray(seed_ids).ravel()
    ids = ids[(ids >= 0) & (ids < len(marks))]
    marks[ids[marks[ids] == ""]] = SEARCHED


def mark(result, seed_ids, outcome: str, reason: str = "") -> None:
    """Mark the seeds ``seed_ids`` ``"skipped"`` or ``"exhausted"`` with a short ``reason``. A seed with a
    pair reads as ``found`` anyway."""
    if outcome not in OUTCOMES[1:]:
        raise ValueError(f"a seed is marked 'skipped' or 'exhausted' (one with a pair is 'found'), not {outcome!r}")
    marks = result.extras.get("seed_marks")
    if marks is None:
        raise ValueError("declare the seeds first: ctx.use_seeds(X)")
    marks[np.asarray(seed_ids, dtype=np.int64)] = f"{outcome}: {reason}"


def settle(result, status: str) -> None:
    """At the end of the run: the seeds that no batch reached are skipped, and the tallies are declared."""
    if result.extras.get("seed_marks") is None:
        return
    marks = np.asarray(result.extras["seed_marks"], dtype=object)
    reason = "budget ended before it was searched" if status == "budget" else \
        "search ended before it was searched" if status == "completed" else f"search {status} before it was searched"
    marks[marks == ""] = f"skipped: {reason}"
    result.extras["seed_marks"] = marks.tolist()         # as a saved and loaded Result holds them
    result.tally(seeds_found=Derived(seeds_found), seeds_exhausted=Derived(seeds_exhausted),
                 seeds_skipped=Derived(seeds_skipped))


def merged_marks(parts, first_ids, n: int) -> list:
    """The marks of ``n`` merged seeds: each shard's at its first seed id (``first_ids``). A shard that did
    not return leaves its seeds skipped."""
    marks = np.full(n, "skipped: its shard did not return", dtype=object)
    for part, first in zip(parts, first_ids):
        own = None if part is None or first is None else part.extras.get("seed_marks")
        if own is not None:
            marks[first:first + len(own)] = own
    return marks.tolist()


def table(result) -> pd.DataFrame:
    """``seed`` id, ``outcome`` and ``reason`` of every declared seed (empty when none were)."""
    marks = np.asarray(result.extras.get("seed_marks", []), dtype=object)
    outcome, reason = np.full(len(marks), "exhausted", dtype=object), np.full(len(marks), "", dtype=object)
    for i, m in enumerate(marks):
        if m not in ("", SEARCHED):
            outcome[i], _, reason[i] = m.partition(": ")
        elif m == "":
            outcome[i], reason[i] = "skipped", "not searched yet"
    if len(marks):
        ids = np.asarray(result.seed_ids)
        ids = ids[(ids >= 0) & (ids < len(marks))]
        outcome[ids], reason[ids] = "found", ""
    return pd.DataFrame({"seed": np.arange(len(marks)), "outcome": outcome, "reason": reason})


def skipped_for(result, reason: str) -> int:
    """How many seeds were skipped for ``reason``."""
    return int(np.sum(np.asarray(result.extras.get("seed_marks", []), dtype=object) == f"skipped: {reason}"))


def _count(result, outcome: str) -> int:
    return int((table(result)["outcome"] == outcome).sum())


def seeds_found(result) -> int:
    return _count(result, "found")


def seeds_exhausted(result) -> int:
    return _count(result, "exhausted")


def seeds_skipped(result) -> int:
    return _count(result, "skipped")

"""``fairnb.counting``: the unique counters every count of fairnb goes through."""
from __future__ import annotations

import numpy as np

from fairnb import counting
from fairnb.counting import SortedRuns, UniqueCounter
from fairnb.domains import Feature, TabularDomain


def _domain():
    return TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 99), Feature("y", 0, 99)], protected="sex")


def test_a_copied_counter_counts_on_apart_from_its_original():
    """A snapshot's counters are copies; counting on one raised AttributeError (the copy had no commit count)."""
    c = UniqueCounter(_domain(), "eidig")
    c.add([[0, 1, 1]], value=1.0)
    d = c.copy()
    assert d.add([[0, 1, 1], [0, 2, 2]], value=2.0).tolist() == [False, True]
    assert len(c) == 1 and len(d) == 2 and d.values().tolist() == [1.0, 2.0]
    assert c.add([[1, 5, 5]]).tolist() == [True] and not d.held([[1, 5, 5]]).any()


def test_a_fresh_answer_of_one_counter_is_checked_again_when_committed_to_its_copy():
    """The copy and its original each commit once after the copy: a fresh answer of the original then is no answer
    for the copy, which may hold its codes already."""
    c = UniqueCounter(_domain(), "eidig")
    c.add([[0, 1, 1]])
    d = c.copy()
    c.add([[0, 2, 2]])
    fresh = c.fresh([[0, 3, 3]])
    d.add([[0, 3, 3]])
    d.commit(fresh)
    assert len(d) == 2 and d.key_rows().tolist() == [[0, 1, 1], [0, 3, 3]]


def test_sorted_runs_answer_as_a_set_across_their_merges(monkeypatch):
    """Codes join a small last run until it holds ``RECENT``; then runs merge by size. Every look-up agrees with a
    Python set, whatever the batches' sizes."""
    monkeypatch.setattr(counting, "RECENT", 8)
    rng = np.random.default_rng(0)
    runs, held = SortedRuns(), set()
    for size in [1, 3, 5, 2, 20, 1, 1, 40, 7, 3, 100, 2]:
        codes = np.setdiff1d(rng.integers(0, 400, size), list(held))
        rng.shuffle(codes)
        runs.add(codes)
        held.update(codes.tolist())
        probe = rng.integers(0, 400, 50)
        assert runs.contains(probe).tolist() == [p in held for p in probe.tolist()]
        assert len(runs) == len(held)
        assert all(len(r) >= counting.RECENT for r in runs.runs[:-1])      # few runs: small batches join the last


def test_a_counter_of_many_small_batches_keeps_order_values_and_counts(monkeypatch):
    monkeypatch.setattr(counting, "RECENT", 16)
    rng = np.random.default_rng(1)
    c, first = UniqueCounter(_domain(), "adf"), {}
    for step in range(60):
        X = np.column_stack([rng.integers(0, 2, 9), rng.integers(0, 6, (9, 2))])
        mask = c.add(X, value=float(step))
        for i, row in enumerate(map(tuple, X[:, 1:].tolist())):
            assert mask[i] == (row not in first)
            first.setdefault(row, float(step))
    assert len(c) == len(first) and [tuple(k) for k in c.key_rows().tolist()] == list(first)
    assert c.values().tolist() == list(first.values())

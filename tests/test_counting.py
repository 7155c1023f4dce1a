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


def test_the_filter_of_sorted_runs_answers_as_a_set_as_it_grows_is_copied_and_dropped(monkeypatch):
    """Integer codes pass a one-hash filter before the runs are searched; it is built again larger as the set
    grows, copied with the set, and dropped when the codes become bytes (``recode``): every look-up agrees with a
    Python set throughout."""
    monkeypatch.setattr(counting, "RECENT", 64)
    rng = np.random.default_rng(2)
    runs, held = SortedRuns(), set()
    sizes = []
    for size in [5, 50, 500, 3_000, 20_000, 1, 9_000]:
        codes = np.setdiff1d(rng.integers(0, 1 << 40, size), list(held))
        runs.add(codes)
        held.update(codes.tolist())
        sizes.append(len(runs._bits))
        probe = np.concatenate([rng.choice(list(held), 200), rng.integers(0, 1 << 40, 2_000)])
        assert runs.contains(probe).tolist() == [p in held for p in probe.tolist()]
    assert sizes[0] < sizes[-1] and 8 * sizes[-1] >= counting.FILTER_BITS * len(held)
    copy = runs.copy()
    extra = np.setdiff1d(rng.integers(0, 1 << 40, 100), list(held))
    copy.add(extra)
    assert copy.contains(extra).all() and not runs.contains(extra).any()
    runs.recode(lambda c: np.ascontiguousarray(c).view(np.dtype((np.void, 8))))
    assert runs._bits is None
    probe = rng.choice(list(held), 50)
    assert runs.contains(probe.view(np.dtype((np.void, 8)))).all()


def test_a_fresh_answer_reads_as_its_mapping_and_cuts_in_parts():
    c = UniqueCounter(_domain(), "eidig")
    c.add([[0, 1, 1]])
    fresh = c.fresh([[0, 1, 1], [0, 2, 2], [0, 2, 2], [1, 3, 3]])
    assert fresh.index.tolist() == [1, 3] and len(fresh) == 2 and sorted(fresh.values()) == [1, 3]
    c.commit(fresh[:1])
    assert len(c) == 2 and c.held([[0, 2, 2], [1, 3, 3]]).tolist() == [True, False]

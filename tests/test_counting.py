"""``fairnb.counting``: the unique counters every count of fairnb goes through."""
from __future__ import annotations

import numpy as np

from fairnb.counting import UniqueCounter
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

"""``fairnb.search.engine.generated.GeneratedInputs``: the distinct inputs a search generated, counted incrementally."""
from __future__ import annotations

import numpy as np

from fairnb.domains import Feature, TabularDomain
from fairnb.search.engine.generated import GeneratedInputs


def _domain():
    return TabularDomain([Feature("sex", 0, 1)] + [Feature(f"x{j}", 0, 9) for j in range(6)], protected=["sex"])


def test_counts_and_codes_match_the_distinct_rows_under_both_conventions():
    dom, rng = _domain(), np.random.default_rng(0)
    g = GeneratedInputs(dom)
    g.MIN_MERGE = 500
    batches = [np.column_stack([rng.integers(0, 2, 400), rng.integers(0, 4, (400, 6))]) for _ in range(12)]
    for X in batches:
        g.add(X)
    X = np.concatenate(batches)
    assert g.count("eidig") == len(np.unique(X, axis=0)) and g.count("adf") == len(np.unique(X[:, 1:], axis=0))
    assert len(g.codes("eidig")) == g.count("eidig") and np.all(np.diff(g.codes("eidig")[:, 0]) > 0)


def test_a_merge_sorts_only_the_new_codes(monkeypatch):
    """A merge ran ``np.unique`` over all the distinct codes kept: ADF's wind-down on the diabetes hold-out merged
    ~200,000 codes twice, 0.3 s on an idle machine and over 1 s under load, past its max_time. The kept codes are
    sorted already: only the new ones are sorted, then the two runs are merged."""
    dom, rng = _domain(), np.random.default_rng(1)
    g = GeneratedInputs(dom)
    g.add(np.column_stack([rng.integers(0, 2, 50_000), rng.integers(0, 10, (50_000, 6))]))
    g.codes("eidig")
    kept = g.count("eidig")
    sizes, unique = [], np.unique
    monkeypatch.setattr(np, "unique", lambda a, *args, **kw: sizes.append(len(a)) or unique(a, *args, **kw))
    g.add(np.column_stack([rng.integers(0, 2, 100), rng.integers(0, 10, (100, 6))]))
    g.codes("eidig")
    assert sizes and max(sizes) <= 100 and g.count("eidig") >= kept

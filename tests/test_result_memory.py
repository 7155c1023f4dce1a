"""A Result keeps its pairs once: reading them (``inputs``, ``pairs``, ``details``) joins the chunks the search
recorded them in, and the chunks are let go (tutorial 05's image Results held every image twice)."""
from __future__ import annotations

import gc
import tracemalloc

import numpy as np

import fairnb
from fairnb.domains import Feature, TabularDomain


def _record(r, X, C, elapsed):
    r.record(X, C, [[0.9, 0.1]] * len(X), [[0.1, 0.9]] * len(X), phase="random", seed_ids=-1, elapsed=elapsed)


def test_reading_the_pairs_does_not_keep_a_second_copy_of_them():
    dom = TabularDomain([Feature("sex", 0, 1)] + [Feature(f"x{i}", 0, 10**6) for i in range(99)], protected="sex")
    r = fairnb.Result(dom, "random")
    rng = np.random.default_rng(0)
    gc.collect()
    tracemalloc.start()
    try:
        for step in range(20):                     # 20 chunks of 500 pairs: 8 MB of inputs, 8 of counterparts
            X = np.column_stack([np.zeros(500), rng.integers(0, 10**6, (500, 99))]).astype(float)
            C = X.copy()
            C[:, 0] = 1
            _record(r, X, C, float(step))
        del X, C
        gc.collect()
        recorded = tracemalloc.get_traced_memory()[0]
        assert len(r.inputs) == 10_000 and (r.counterparts[:, 0] == 1).all()
        _record(r, np.full((1, 100), 7.0), np.full((1, 100), 7.0), 21.0)     # one more chunk: joined again
        np.testing.assert_array_equal(r.inputs[-1], 7)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - recorded
    finally:
        tracemalloc.stop()
    assert grown < 0.1 * 2 * r.inputs.nbytes, f"reading the pairs kept {grown / 2**20:.1f} MiB more than recorded"


def _traced_growth(work):
    """``work()``'s result and the bytes it left allocated (numpy arrays and Python objects both traced)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        out = work()
        gc.collect()
        return out, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def _census_like(n_features=12):
    return TabularDomain([Feature("sex", 0, 1)] + [Feature(f"x{i}", 0, 99) for i in range(n_features - 1)],
                         protected="sex")


def test_a_result_of_many_tabular_pairs_holds_each_in_under_160_bytes():
    """Issue #26: GRFT on a decision tree keeps millions of pairs; at ~1.1 KB a pair (float64 rows and a Python
    bytes object per input in each unique counter) 14 M pairs took 15 GB. Twelve small integer features are
    stored as bytes and counted by 8-byte codes."""
    dom, rng = _census_like(), np.random.default_rng(0)
    n, batch = 100_000, 2_000

    def record():
        r = fairnb.Result(dom, "grft")
        for step in range(n // batch):
            X = np.column_stack([np.zeros(batch), rng.integers(0, 100, (batch, 11))]).astype(float)
            C = X.copy()
            C[:, 0] = 1
            _record(r, X, C, float(step))
        return r

    r, held = _traced_growth(record)
    assert r.count() > 0.99 * n and r.count("adf") == r.count()
    assert held / r.count() < 160, f"{held / r.count():.0f} bytes a pair"
    assert r.nbytes / r.count() < 140
    X = r.inputs                                   # read back exactly, as floats
    assert X.dtype == np.float64 and X.shape == (r.count(), 12) and X.max() == 99 and (r.counterparts[:, 0] == 1).all()


def test_a_unique_counter_holds_a_code_per_input_not_a_python_object():
    from fairnb.counting import UniqueCounter

    dom, rng = _census_like(), np.random.default_rng(1)
    X = np.column_stack([rng.integers(0, 2, 200_000), rng.integers(0, 100, (200_000, 11))]).astype(float)

    def count():
        c = UniqueCounter(dom, "adf")
        for part in np.array_split(X, 50):
            c.add(part, value=1.0)
        return c

    counter, held = _traced_growth(count)
    assert len(counter) == len(np.unique(X[:, 1:], axis=0))
    assert held / len(counter) < 40, f"{held / len(counter):.0f} bytes a key"


def test_a_unique_counter_counts_keys_beyond_the_domains_bounds_exactly():
    from fairnb.counting import UniqueCounter

    dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected="sex")
    c = UniqueCounter(dom, "eidig")
    assert c.add([[0, 3], [1, 3]], value=1.0).tolist() == [True, True]
    assert c.add([[0, 3], [0, 12], [0, 12], [1, -4]], value=2.0).tolist() == [False, True, False, True]
    assert c.key_rows().tolist() == [[0, 3], [1, 3], [0, 12], [1, -4]] and c.values().tolist() == [1, 1, 2, 2]
    assert c.held([[1, 3], [1, 12]]).tolist() == [True, False]


def test_a_fresh_answer_committed_after_another_commit_is_checked_again():
    """``commit`` trusts ``fresh``'s codes only when nothing was stored in between (the recording's fast path)."""
    from fairnb.counting import UniqueCounter

    dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
    c = UniqueCounter(dom, "eidig")
    stale, other = c.fresh([[0, 1], [0, 2]]), c.fresh([[0, 2], [0, 3]])
    c.commit(other)
    c.commit(stale)                    # [0, 2] is held by now: stored once
    assert len(c) == 3 and sorted(c.key_rows().tolist()) == [[0, 1], [0, 2], [0, 3]]
    fresh = c.fresh([[1, 5]])
    c.commit(fresh)                     # nothing in between: stored without a second look-up
    assert len(c) == 4 and c.held([[1, 5]]).all()


def test_recording_many_small_batches_joins_them_into_blocks(monkeypatch):
    """The recent batches become a block once they hold ``_BLOCK`` pairs (counted as they come, not summed over
    every recent batch on each record)."""
    from fairnb.results import recording

    monkeypatch.setattr(recording, "_BLOCK", 4)
    dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 99)], protected=["sex"])
    r = recording.Result(dom, "demo")
    for x in range(10):
        r.record([[0, x]], [[1, x]], [[0.9, 0.1]], [[0.1, 0.9]], phase="global", seed_ids=-1, elapsed=0.1)
    assert r._blocks == 2 and len(r._chunks) == 4 and r.count() == 10
    assert r.inputs[:, 1].tolist() == list(range(10))


def test_a_search_stops_at_the_memory_cap_keeping_what_it_found(synthetic, biased_model, monkeypatch):
    """A long search on a fast model ends with the pairs it found, and says so, before the Result outgrows the
    process's memory (the out-of-memory killer would lose them all)."""
    import pytest

    from fairnb import config
    from fairnb.search.methods.random import RandomSearch

    monkeypatch.setattr(config, "result_memory", 20_000)
    with pytest.warns(RuntimeWarning, match=r"result_memory.*keeps [\d,]+ unique IDIs.*max_found"):
        r = RandomSearch(n_samples=200_000, random_state=0, progress=False).run(biased_model, synthetic.domain)
    assert r.status == "budget" and r.ended_by == ("result_memory", 20_000.0)
    assert "memory cap of" in r.ending and r.tried < 200_000
    assert 20_000 <= r.nbytes < 200_000 and len(r.inputs) == r.count() > 0
    monkeypatch.setattr(config, "result_memory", float("inf"))
    assert RandomSearch(n_samples=2_000, random_state=0, progress=False).run(biased_model, synthetic.domain).status \
        == "completed"


def test_the_memory_cap_is_checked(monkeypatch):
    import pytest

    from fairnb import config

    monkeypatch.setattr(config, "result_memory", None)
    monkeypatch.setenv("FAIRNB_RESULT_MEMORY", "4e9")
    assert config.result_memory_cap() == 4e9
    monkeypatch.setenv("FAIRNB_RESULT_MEMORY", "lots")
    with pytest.raises(ValueError, match=r"\$FAIRNB_RESULT_MEMORY = 'lots'.*positive number"):
        config.result_memory_cap()
    monkeypatch.setattr(config, "result_memory", -1)
    with pytest.raises(ValueError, match="fairnb.config.result_memory = -1"):
        config.result_memory_cap()


def test_reading_the_inputs_of_many_pairs_costs_only_the_array_returned():
    """The pairs stay in blocks: reading ``inputs`` allocates the float array it returns and no join of every
    stored pair beside it (which doubled the process's peak at the end of a long search)."""
    dom, rng = _census_like(), np.random.default_rng(2)
    r = fairnb.Result(dom, "grft")
    for step in range(100):
        X = np.column_stack([np.zeros(2_000), rng.integers(0, 100, (2_000, 11))]).astype(float)
        C = X.copy()
        C[:, 0] = 1
        _record(r, X, C, float(step))
    del X, C
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        X = r.inputs
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert X.shape == (r.count(), 12) and r.count() > 190_000
    assert peak < 1.2 * X.nbytes, f"reading {X.nbytes / 1e6:.0f} MB of inputs peaked at {peak / 1e6:.0f} MB"


def test_a_memory_cap_of_true_or_false_is_refused(monkeypatch):
    # issue #34: True was a 1-byte cap (a bool is an int): every search stopped after its first batch
    import pytest

    from fairnb import config

    for value in (True, False):
        monkeypatch.setattr(config, "result_memory", value)
        with pytest.raises(ValueError, match=rf"fairnb.config.result_memory = {value}: give the bytes"):
            config.result_memory_cap()


def test_noted_inputs_are_held_as_added_ones_are(monkeypatch):
    """``note`` stores inputs later, in one look-up: whatever reads the counter sees the same keys, in the same
    order, as ``add`` gives, also when a later key lies beyond the bounds and when a look-up comes in between."""
    from fairnb import counting

    monkeypatch.setattr(counting, "NOTED", 5)
    dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
    rng = np.random.default_rng(0)
    parts = [rng.integers(0, [2, 10], (3, 2)) for _ in range(6)] + [np.array([[0, 12], [1, 3]])]
    added, noted = counting.UniqueCounter(dom, "eidig"), counting.UniqueCounter(dom, "eidig")
    for i, part in enumerate(parts):
        added.add(part)
        noted.note(part)
        if i == 3:
            assert noted.fresh(parts[0]) == {} and len(noted.copy()) == len(added)
    assert noted.key_rows().tolist() == added.key_rows().tolist() and len(noted) == len(added)
    assert noted.held([[0, 12], [1, -1]]).tolist() == [True, False]
    assert np.isnan(noted.values()).all() and len(noted.values()) == len(added)

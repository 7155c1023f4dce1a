"""Checks shared by the tests of the two-phase gradient-guided generators (ADF, EIDIG, NeuronFair, MAFT)."""
from __future__ import annotations

import numpy as np

from blackbox_checks import assert_pairs_rechecked


def record_batches(search) -> list[tuple[np.ndarray, str, np.ndarray]]:
    """Make ``search`` remember every batch it sends to the oracle: (X, phase, seed_ids)."""
    seen = []
    original = search._check

    def _check(ctx, X, phase, seed_ids, trace, t):
        seen.append((np.array(X, dtype=float), phase, np.broadcast_to(np.asarray(seed_ids), (len(X),)).copy()))
        return (yield from original(ctx, X, phase, seed_ids, trace, t))

    search._check = _check
    return seen


def assert_sound_run(search, model, data, *, min_found: int = 1):
    """Run ``search`` on ``data`` and check the digests' invariants; returns the Result.

    Every reported pair re-checks as discriminatory; every checked candidate lies inside the domain
    (clip), keeps its seed's protected values (search steps never change them), and descends from a
    declared seed; local walks run exactly ``_local_steps()`` steps per distinct global IDI.
    """
    dom = data.domain
    batches = record_batches(search)
    result = search.run(model, dom, seeds=data.X)
    assert result.status == "completed"
    assert result.count() >= min_found
    if result.count():
        assert_pairs_rechecked(result, model, dom)
    seeds = result.extras["seeds"]
    prot = list(dom.protected)
    for X, phase, seed_ids in batches:
        dom.validate(X)
        assert phase in ("global", "local")
        assert (X[:, prot] == seeds[seed_ids][:, prot]).all()
    local_rows = sum(len(X) for X, phase, _ in batches if phase == "local")
    assert local_rows == result.extras["local_steps"] == result.extras["global_idis"] * search._local_steps()
    assert result.extras["global_idis"] <= len(seeds)
    assert result.extras["generated"] <= result.tried
    return result


def assert_exact_global_phase(search, model, data, checks: int):
    """Run ``search`` (``n_local=0``, seeds as given) and account for every global check exactly: each seed
    is checked until it is discriminatory, and ``checks`` times when it never is; ``global_idis`` is the
    number of distinct (in the method's convention) discriminatory inputs the phase ended with.
    Returns the number of checks per seed."""
    from fairnb.oracle import Oracle

    dom = data.domain
    batches = record_batches(search)
    result = search.run(model, dom, seeds=data.X)
    oracle = Oracle(model, dom)
    n = search.n_seeds
    counts, found, last = np.zeros(n, int), np.zeros(n, bool), np.zeros((n, dom.n_features))
    for X, phase, ids in batches:
        assert phase == "global"
        assert not found[ids].any()                    # a discriminatory input is never checked again
        counts[ids] += 1
        found[ids] |= oracle.check(X).discriminatory
        last[ids] = X
    assert len(batches) == counts.max() <= checks
    assert ((counts == checks) | found).all()          # a seed stops early only when it is discriminatory
    cols = np.arange(dom.n_features) if search.dedup == "eidig" else dom.non_protected
    assert result.extras["global_idis"] == len(np.unique(last[found][:, cols], axis=0))
    return counts

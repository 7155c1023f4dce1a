"""A budget is a budget: given ``max_time``, a seeded search that has used its seeds goes on with fresh ones.

The field's harnesses give every method the same wall-clock budget, and a method that has searched all
its seeds draws more and goes on until the time is spent. fairnb's seeded methods (AEQUITAS, KOSEI, ADF,
EIDIG, MAFT, NeuronFair, SG) choose their seeds once; without this, such a method ends when they are
searched (AEQUITAS after 2-6 s of a 60 s budget on some models) and a comparison at equal time compares
a finished method with one still running.

``seed_rounds(search, ctx)`` drives the strategy ``search._generate(ctx)`` once, exactly as a run without
``max_time`` does. Given ``max_time`` (on a bounded tabular domain, in a run that chose its own seeds), it
then runs the strategy again on fresh seeds, one *round* at a time, until a budget is reached, ``stop()``
is called or no fresh seed is left:

* a round has as many seeds as the first (the method's ``n_seeds``, or all the seeds it was given);
* they are drawn at random among the given seed inputs (the data) that no earlier round used, then, when
  those are spent, uniformly from the domain (``domain.sample``); never an input already used as a seed.
  The first round keeps the method's own seed selection (e.g. K-Means); later rounds draw at random;
* their ids follow the earlier rounds' (``result.extras["seeds"]`` holds every round's seeds in order), so
  ``result.seed_outcomes`` and the inspectors read them as they read the first round's;
* each round is tallied as a shard of a sharded run is (``fairnb.results.tallies``): the run's tallies so
  far are set aside while it runs, then merge with the round's by their rules (counts sum, distinct keys
  unite, a per-shard finding such as AEQUITAS's learned probabilities is the latest round's).
  ``extras["seed_rounds"]`` counts the rounds run, ``extras["seeds_from_domain"]`` the seeds drawn from
  the domain.

A shard of a sharded run (``Search.run(selected_seeds=...)``) does not draw: its shards would draw the
same fresh seeds. Text and image searches do not either: their seeds are chosen with care (texts that
hold a protected term, images whose flip succeeds), which a random draw would not repeat.

Example
-------
>>> import fairnb
>>> from fairnb.search.methods.aequitas import Aequitas
>>> data = fairnb.datasets.make_synthetic(n=300, random_state=0)
>>> search = Aequitas(n_seeds=20, n_local=5, max_tried=2000, max_time=60, random_state=0, progress=False)
>>> r = search.run(fairnb.train_demo_model(data), data.domain, seeds=data.X)
>>> r.extras["seed_rounds"] > 1 and r.extras["seeds_used"] > 20
True
"""
from __future__ import annotations

import warnings

import numpy as np

from ...counting import UniqueCounter, first_occurrences
from ...results import Count, Distinct
from ...results.tallies import merge_tallies

DOMAIN_DRAWS = 4        # domain samples of a round's size tried before the domain counts as spent


def draws_rounds(search, domain, selected_seeds) -> bool:
    """Whether a run of ``search`` on ``domain`` goes on with fresh seeds once its own are searched."""
    return (search.max_time is not None and selected_seeds is None
            and all(hasattr(domain, m) for m in ("sample", "clip", "lower", "upper")))


class FreshSeeds:
    """Seeds that no earlier round used: first the unused rows of ``data`` (None: none given), in random
    order, then uniform draws from ``domain``.

    >>> import numpy as np
    >>> from fairnb.domains import Feature, TabularDomain
    >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
    >>> fresh = FreshSeeds(dom, np.array([[0., 1], [1, 2], [0, 3]]), np.random.default_rng(0))
    >>> fresh.use(np.array([[0., 1], [1, 2]]))
    >>> X, from_domain = fresh.draw(3); X[0].tolist(), len(X), from_domain
    ([0.0, 3.0], 3, 2)
    """

    def __init__(self, domain, data, rng: np.random.Generator):
        self.domain, self.rng = domain, rng
        self.used = UniqueCounter(domain, "eidig")
        self.data = None if data is None or not len(data) else np.asarray(data, dtype=float)
        if self.data is not None:
            first = first_occurrences(domain.key(self.data, "eidig"))      # each distinct row once
            self.data = self.data[first]

    def use(self, X) -> None:
        """Count ``X`` as used seeds."""
        self.used.add(X)

    def draw(self, n: int) -> tuple[np.ndarray, int]:
        """Up to ``n`` fresh seeds (counted as used) and how many of them come from the domain; fewer (even
        none) when the data and the domain are spent."""
        parts = []
        if self.data is not None:
            unused = np.flatnonzero(~self.used.held(self.data))
            if len(unused):
                parts.append(self.data[self.rng.choice(unused, min(n, len(unused)), replace=False)])
                self.use(parts[-1])
        from_data = sum(map(len, parts))
        for _ in range(DOMAIN_DRAWS):
            wanted = n - sum(map(len, parts))
            if wanted <= 0:
                break
            candidates = self.domain.sample(wanted, self.rng).astype(float)
            new = self.used.add(candidates)
            parts.append(candidates[new])
        X = np.concatenate(parts) if parts else np.zeros((0, self.domain.n_features))
        return X, len(X) - from_data


def seed_rounds(search, ctx):
    """The strategy ``search._generate(ctx)``, then (``draws_rounds``) further rounds of it on fresh seeds
    while the budget lasts; a strategy generator itself (see the module docstring)."""
    engine, result = ctx.engine, ctx.result
    try:
        yield from search._generate(ctx)
    finally:
        if "seeds" in result.extras:
            result.tally(seed_rounds=Count(1), seeds_from_domain=Count(0))
    seeds = result.extras.get("seeds")
    if seeds is None or not len(seeds):
        return
    fresh = FreshSeeds(ctx.domain, ctx.seeds, ctx.rng)
    fresh.use(seeds)
    size = len(seeds)
    while engine.out_of_budget() is None:
        X, from_domain = fresh.draw(size)
        if not len(X):
            return
        earlier = _set_aside(result)
        engine.seed_offset = len(result.extras["seeds"])
        ctx.selected_seeds = X
        ctx.oracle.rows_queried = 0        # the round's model rows, as the round's other counts
        try:
            yield from search._generate(ctx)
        finally:
            result.tally(seed_rounds=Count(1), seeds_from_domain=Count(from_domain))
            _merge_round(result, earlier)


def _set_aside(result) -> dict:
    """The run's tallies so far, taken out of ``result`` (a new round tallies its own)."""
    earlier = dict(result.tallies)
    for name in earlier:
        del result.tallies[name]
        dict.pop(result.extras, name, None)
    return earlier


class _Tallied:
    """Tallies in the form ``merge_tallies`` reads (a Result's ``.tallies``)."""

    def __init__(self, tallies: dict):
        self.tallies = tallies


def _compact(tally):
    """A merged ``Distinct`` with each key once (the rounds' keys overlap; later rounds merge into it again)."""
    if isinstance(tally, Distinct):
        rows = tally.rows()
        return Distinct(rows[first_occurrences(rows)] if isinstance(rows, np.ndarray) else list(dict.fromkeys(rows)))
    return tally


def _merge_round(result, earlier: dict) -> None:
    """The round's tallies merged into the run's ``earlier`` ones, by their rules; a finding the rules keep
    per shard is the latest round's. A ``Distinct`` of the same counter in both (``SearchContext.run_counter``)
    already holds the union: it stays as it is."""
    held = {k for k, t in result.tallies.items()
            if isinstance(t, Distinct) and isinstance(earlier.get(k), Distinct) and earlier[k].keys is t.keys}
    earlier = {k: t for k, t in earlier.items() if k not in held}
    with warnings.catch_warnings():          # a Same the rounds disagree on: the latest round's
        warnings.simplefilter("ignore", RuntimeWarning)
        merged = merge_tallies([_Tallied(earlier), result])
    merged = {**{k: t for k, t in result.tallies.items() if k not in merged},
              **{k: t if k in held else _compact(t) for k, t in merged.items()}}
    result.tally(**{k: t for k, t in merged.items() if not t.derived})
    result.tally(**{k: t for k, t in merged.items() if t.derived})


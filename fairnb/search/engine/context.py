"""What a strategy sees while it runs (``SearchContext``): the model, the domain and the oracle, the run's random
generator, the seeds it was given, and the live engine through which it declares its seeds, marks their outcomes
and projects its steps into the run's constraints.

Example
-------
>>> import fairnb
>>> from fairnb.search import Batch, Search
>>> class Declared(Search):
...     name = "declared"
...     def _generate(self, ctx):
...         X = ctx.use_seeds(ctx.domain.sample(4, ctx.rng))
...         yield Batch(X, seed_ids=np.arange(4))
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> Declared().run(lambda X: X[:, 0] / 9, data.domain).extras["seeds"].shape
(4, 7)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...counting import UniqueCounter
from ...oracle import Oracle
from ...results import Count, Result, seed_outcomes
from .natural import NaturalInputs

if TYPE_CHECKING:
    from .loop import Engine


@dataclass
class SearchContext:
    """What a strategy sees: the parts, the random generator, the seeds and the live budget.

    ``selected_seeds``: the start inputs already chosen for this run (``Search.run(selected_seeds=...)``:
    e.g. a shard's slice of the inputs that ``select_seeds`` chose once for a sharded run), else None."""

    model: object
    domain: object
    oracle: Oracle
    rng: np.random.Generator
    seeds: np.ndarray | None
    engine: "Engine"
    selected_seeds: np.ndarray | None = None
    natural: NaturalInputs | None = None       # what the run checks as it is (``fairnb.search.engine.natural``)
    _counters: dict = field(default_factory=dict, init=False, repr=False)    # ``run_counter``'s, by name

    @property
    def result(self) -> Result:
        return self.engine.result

    def run_counter(self, name: str, convention: str) -> UniqueCounter:
        """The ``UniqueCounter`` named ``name`` of this run: the same one in every round of fresh seeds
        (``fairnb.search.engine.seed_rounds``). A strategy that tallies ``Distinct(ctx.run_counter(...))``
        counts the run's distinct inputs as one counter per round would, merged, but without each round's
        merge going over every key of the rounds before it.

        >>> from fairnb.domains import Feature, TabularDomain
        >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
        >>> ctx = SearchContext(None, dom, None, None, None, None)
        >>> ctx.run_counter("generated", "eidig") is ctx.run_counter("generated", "eidig")
        True
        """
        if name not in self._counters:
            self._counters[name] = UniqueCounter(self.domain, convention)
        return self._counters[name]

    def project(self, X, seeds) -> np.ndarray:
        """``X`` (candidates descending from the rows ``seeds``) moved into every active constraint that can
        project onto what it allows (``PixelBudget``: back within its L∞ budget), so a strategy's steps stay
        valid instead of being refused; unchanged under ``constraints="paper"``."""
        for constraint in self.engine.constraints:
            if hasattr(constraint, "project"):
                X = constraint.project(X, seeds)
        return X

    def use_seeds(self, X) -> np.ndarray:
        """Declare the inputs that this strategy's ``Batch.seed_ids`` index; returns ``X``.

        They are kept as ``result.extras["seeds"]`` (float32 seeds, e.g. images, stay float32), so the pair
        inspector can show which features the search changed from each pair's seed, and checked as they are
        for the Result's headline: those that are no rows of the data are checked as random draws, and on a text or
        image domain all of them give the natural rate (``fairnb.search.engine.natural``).
        Each ends with an outcome in ``result.seed_outcomes`` (see ``seed_outcome``).
        """
        given = np.asarray(X)
        X = given.astype(float)
        kept = given.copy() if given.dtype == np.float32 else X    # float32 images: exact, and half the memory
        r, first = self.engine.result, self.engine.seed_offset
        r.extras["seeds"] = np.concatenate([r.extras["seeds"][:first], kept]) if first else kept
        seed_outcomes.declare(r, len(X), first=first)
        r.tally(seeds_used=Count(len(X)))
        if self.natural is not None:
            self.natural.declared(self.engine, X)
        return X

    def seed_outcome(self, ids, outcome: str, reason: str = "") -> None:
        """Mark the declared seeds ``ids`` ``"skipped"`` (or ``"exhausted"``) with a short ``reason``. The
        other outcomes are derived (``fairnb.results.seed_outcomes``): a seed with a pair is ``found``, a seed
        that a checked batch descended from is ``exhausted``, one that no batch reached is skipped.

        >>> # in a strategy: ctx.seed_outcome(np.flatnonzero(~flip.success), "skipped", reason="flip failed")
        """
        seed_outcomes.mark(self.engine.result, self.engine.run_seed_ids(ids), outcome, reason)

"""ExpGA (Fan, Wei, Jin, Yang, Liu, ICSE 2022): seeds chosen by an explanation, then a genetic algorithm.

**Seeds.** Up to ``n_candidates`` inputs (the seeds given, that many at random; else uniform random inputs with
the protected attributes at their lower bound) are explained with LIME (``fairnb.search.parts.attribution``). A
candidate whose explanation ranks a protected attribute within its first ``ceil(rank_threshold * d)`` features
becomes a seed, until ``n_seeds`` are found; the others end "skipped" with the reason.

**Genetic algorithm.** The seeds are the population. Each of ``n_local`` generations is checked by the oracle
(the first, the seeds themselves, is the "global" phase), then bred: fitness 3 for a discriminatory individual
and 1 otherwise, roulette-wheel selection, a segment between two cut points copied from a random partner with
probability ``crossover_rate``, and each gene redrawn within its bounds with probability ``mutation_rate``.
Black-box: only ``predict_proba`` is used. ``docs/methods/expga.md`` is the digest (defaults from the authors'
artifact, its quirks and how fairnb resolves them).

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> r = ExpGA(n_candidates=300, n_seeds=50, n_local=50, lime_samples=500, random_state=0).run(
...     fairnb.train_demo_model(data), data.domain)
>>> r.extras["local_idis"] > 0
True
"""
from __future__ import annotations

from math import ceil
from numbers import Real

import numpy as np

from ...counting import UniqueCounter
from ...params import COUNT, SHARE, STEPS, Interval
from ...results import Count, Distinct
from ..parts.attribution import lime_ranks, lime_rows
from ...oracle import rows_per_call
from ..engine.estimator import Search
from ..engine.types import Batch
from ..engine.sizes import require_fits

NOT_EXPLAINED = "its explanation ranks no protected attribute within the threshold"
NOT_NEEDED = "the population was full before it was explained"


class ExpGA(Search):
    """ExpGA black-box search: LIME-selected seeds evolved by a genetic algorithm.

    Parameters
    ----------
    n_candidates : inputs explained at most (the artifact's ``max_global``).
    n_seeds : seeds kept at most: the population size.
    rank_threshold : a candidate is a seed when a protected attribute ranks within the first
        ``ceil(rank_threshold * d)`` of its ``d`` features (0.5: census's 7 of 13).
    lime_samples : LIME samples per explanation (LIME's default 5000).
    n_local : generations of the genetic algorithm (``max_local``).
    crossover_rate, mutation_rate : per individual and per gene (0.9 and 0.05, the artifact's).
    batch_size : candidates explained per model call on LIME's samples (fewer where their LIME arrays would pass
        ``fairnb.oracle.MEMORY_BUDGET``).
    """

    name = "expga"
    domain_needs = ("sample", "bounded")
    dedup = "adf"
    _parameter_constraints = {**Search._parameter_constraints, "n_candidates": [COUNT], "n_seeds": [COUNT],
                              "rank_threshold": [Interval(Real, 0, 1, closed="right")], "lime_samples": [COUNT],
                              "n_local": [STEPS], "crossover_rate": [SHARE], "mutation_rate": [SHARE],
                              "batch_size": [COUNT]}

    def __init__(self, n_candidates: int = 1000, n_seeds: int = 100, rank_threshold: float = 0.5,
                 lime_samples: int = 5000, n_local: int = 1000, crossover_rate: float = 0.9,
                 mutation_rate: float = 0.05, batch_size: int = 100, *, max_time: float | None = None,
                 max_tried: int | None = None, max_found: int | None = None, random_state: int | None = None,
                 progress: bool | None = None, constraints="default", control=None):
        self.n_candidates, self.n_seeds, self.rank_threshold = n_candidates, n_seeds, rank_threshold
        self.lime_samples, self.n_local = lime_samples, n_local
        self.crossover_rate, self.mutation_rate, self.batch_size = crossover_rate, mutation_rate, batch_size
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress, constraints=constraints, control=control)

    @classmethod
    def bench_params(cls, *, seeds: int, local: int, max_time: float | None) -> dict:
        """``fairnb bench`` settings: the round's seeds are the candidates explained, the artifact's population of
        100, ``local`` generations."""
        params = {"n_candidates": seeds, "n_local": local}
        return params if max_time is None else {**params, "max_time": max_time}

    def _checked(self, model, domain, seeds):
        if getattr(domain, "kind", None) == "text":
            raise TypeError("expga searches tables; on texts use method='expga_text', ExpGA's text search "
                            "(fairnb.search.methods.expga_text.ExpGAText)")
        return super()._checked(model, domain, seeds)

    def select_seeds(self, seeds, should_stop=None, domain=None) -> np.ndarray | None:
        """The candidates to explain: ``n_candidates`` of the given ``seeds`` at random (all when fewer), or None
        (random inputs)."""
        if seeds is None or len(seeds) <= self.n_candidates:
            return seeds
        picked = np.random.default_rng(self.random_state).choice(len(seeds), self.n_candidates, replace=False)
        return seeds[np.sort(picked)]

    def _candidates(self, ctx) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The candidates, and the per-feature mean and standard deviation of LIME's samples: the given seeds',
        else those of the uniform distribution over the bounds that random candidates come from."""
        dom = ctx.domain
        X = self._selected_seeds(ctx)
        if X is None:
            require_fits(self.name, "n_candidates", self.n_candidates, row_bytes=16 * dom.n_features,
                         what="random candidates to explain")
            X = dom.sample(self.n_candidates, ctx.rng)
            X[:, dom.protected] = dom.lower[dom.protected]
        if ctx.seeds is not None:
            reference = dom.encode(ctx.seeds)
            return X, reference.mean(0), reference.std(0)
        width = dom.upper - dom.lower + 1
        return X, (dom.lower + dom.upper) / 2, np.sqrt((width ** 2 - 1) / 12)

    def _explained_seeds(self, ctx, candidates, mean, scale) -> np.ndarray:
        """Ids of the candidates whose explanation ranks a protected attribute within the threshold, in order,
        at most ``n_seeds``; the others are marked skipped."""
        dom = ctx.domain
        top = ceil(self.rank_threshold * dom.n_features)
        kept, end = [], 0
        require_fits(self.name, "lime_samples", self.lime_samples, row_bytes=8 * (3 * dom.n_features + 4),
                     what="LIME's samples and their standardised copy")
        step = min(self.batch_size, rows_per_call(3 * 8 * self.lime_samples),   # LIME's (candidates, samples) arrays
                   lime_rows(self.lime_samples, dom.n_features))                # and its work between budget checks
        while end < len(candidates) and len(kept) < self.n_seeds and ctx.engine.out_of_budget() is None:
            ids = np.arange(end, min(end + step, len(candidates)))
            end = ids[-1] + 1
            ranks = lime_ranks(ctx.oracle.predict_proba, dom.encode(candidates[ids]), mean, scale, rng=ctx.rng,
                               n_samples=self.lime_samples, lower=dom.lower, upper=dom.upper)
            kept.extend(ids[ranks[:, dom.protected].min(1) < top])
        kept = np.array(kept[:self.n_seeds], dtype=int)
        refused = np.setdiff1d(np.arange(end), kept)
        ctx.seed_outcome(refused, "skipped", reason=NOT_EXPLAINED)
        ctx.seed_outcome(np.arange(end, len(candidates)), "skipped", reason=NOT_NEEDED)
        ctx.result.tally(explained=Count(end))
        return kept

    def _generate(self, ctx):
        candidates, mean, scale = self._candidates(ctx)
        candidates = ctx.use_seeds(candidates)
        ids = self._explained_seeds(ctx, candidates, mean, scale)
        population, lineage = candidates[ids].copy(), ids
        seen = UniqueCounter(ctx.domain, "adf")
        found = UniqueCounter(ctx.domain, "adf")
        idis = {"global": 0, "local": 0}
        try:
            for generation in range(self.n_local + 1 if len(ids) else 0):
                phase = "global" if generation == 0 else "local"
                verdict = yield Batch(population, phase=phase, seed_ids=lineage)
                seen.add(population)
                idis[phase] += int(found.add(population[verdict.discriminatory]).sum())
                if generation < self.n_local:
                    pick = self._select(1.0 + 2.0 * verdict.discriminatory, ctx.rng)
                    population, lineage = self._breed(population[pick], ctx.domain, ctx.rng), lineage[pick]
        finally:
            ctx.result.tally(generated=Distinct(seen), global_idis=Count(idis["global"]),
                             local_idis=Count(idis["local"]))

    @staticmethod
    def _select(fitness, rng) -> np.ndarray:
        """Roulette-wheel selection: as many indices as individuals, with probability proportional to fitness."""
        return rng.choice(len(fitness), len(fitness), p=fitness / fitness.sum())

    def _breed(self, population, domain, rng) -> np.ndarray:
        """Two-point crossover with a random partner, then per-gene mutation within the bounds."""
        n, d = population.shape
        cuts = np.sort(rng.integers(0, d + 1, (n, 2)), axis=1)
        cols = np.arange(d)
        segment = (cols >= cuts[:, :1]) & (cols < cuts[:, 1:]) & (rng.random((n, 1)) < self.crossover_rate)
        child = np.where(segment, population[rng.integers(0, n, n)], population)
        mutate = rng.random((n, d)) < self.mutation_rate
        return np.where(mutate, rng.integers(domain.lower, domain.upper + 1, (n, d)), child).astype(float)

"""GRFT (Quan, Li, Xie, Chen, Chen, Jiang, Li, ICSE 2025): a genetic global phase, then a light random local phase.

**Global phase.** Each seed (``n_seeds`` chosen from the given inputs by K-Means round robin, random members, as
EIDIG) grows a population of ``population`` inputs: the seed and copies whose two attributes (the same two for
all copies, drawn per seed) move by up to ``initial_spread``. Each generation is checked; a seed whose population
holds a discriminatory input stops, and every discriminatory input of that generation is found. Otherwise the
population breeds, up to ``max_iter`` checks: the fittest input is kept, every other one is the uniform crossover
of two tournament winners (``tournament`` ranks drawn from the best ``elite_pool``), mutated with probability
``mutation_rate`` by moving ``mutated_attributes`` attributes up to ``mutation_spread``. Fitness is how far the
protected variants' outputs are from the input's (the sum over variants of half the L1 distance: |p - p'| for two
classes). Only outputs are used: GRFT runs on black boxes.

**Local phase.** All distinct global IDIs walk together for ``n_local`` steps: each step moves one random
non-protected attribute by ``local_step`` up or down (the same move for every walker); a walker takes the move
only when it lands on a discriminatory input. ``docs/methods/grft.md`` is the digest (defaults from the
authors' artifact, its quirks).

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> r = GRFT(n_seeds=50, n_local=50, random_state=0).run(fairnb.train_demo_model(data), data.domain, data.X)
>>> r.extras["global_idis"] > 0 and r.extras["local_idis"] > 0
True
"""
from __future__ import annotations

import numpy as np

from ...oracle import rows_per_call
from ...params import COUNT, SHARE, STEPS, Options
from ...results import Count, Distinct
from ..engine.estimator import Search
from ..engine.types import Batch
from ..engine.seeds import cluster_seeds, warn_if_few_seeds, with_kmeans

with_kmeans()      # K-Means chooses its seeds: imported with the method, not inside a search's time budget
from ..engine.sizes import require_fits


class GRFT(Search):
    """GRFT black-box search: a genetic algorithm per seed, then a random walk that keeps discriminatory moves.

    Parameters
    ----------
    n_seeds, n_local, max_iter, c_num, seed_selection : as in EIDIG (1000, 1000, 10, 4, ``"kmeans"``).
    population : inputs per seed (100).
    initial_spread, mutation_spread : largest move of an attribute in the first population (5) and in a
        mutation (3).
    mutated_attributes : attributes a mutation moves (3).
    tournament, elite_pool : tournament size (3) and the best ranks it draws from (10).
    crossover_rate : probability a gene comes from the first parent (0.5).
    mutation_rate : probability a child is mutated (0.5).
    local_step : size of a local move (1).
    batch_size : seeds evolving together (each sends ``population`` rows per check; fewer where their populations
        would pass ``fairnb.oracle.MEMORY_BUDGET``); local walkers per check.
    """

    name = "grft"
    domain_needs = ("bounded",)
    _parameter_constraints = {**Search._parameter_constraints, "n_seeds": [COUNT], "n_local": [STEPS],
                              "max_iter": [COUNT], "population": [COUNT], "initial_spread": [STEPS],
                              "mutation_spread": [STEPS], "mutated_attributes": [COUNT], "tournament": [COUNT],
                              "elite_pool": [COUNT], "crossover_rate": [SHARE], "mutation_rate": [SHARE],
                              "local_step": [COUNT], "c_num": [COUNT],
                              "seed_selection": [Options(("kmeans", "as_given"))], "batch_size": [COUNT]}

    def __init__(self, n_seeds: int = 1000, n_local: int = 1000, max_iter: int = 10, population: int = 100,
                 initial_spread: int = 5, mutation_spread: int = 3, mutated_attributes: int = 3, tournament: int = 3,
                 elite_pool: int = 10, crossover_rate: float = 0.5, mutation_rate: float = 0.5, local_step: int = 1,
                 c_num: int = 4, seed_selection: str = "kmeans", batch_size: int = 200, *,
                 max_time: float | None = None, max_tried: int | None = None, max_found: int | None = None,
                 random_state: int | None = None, progress: bool | None = None, constraints="default", control=None):
        self.n_seeds, self.n_local, self.max_iter, self.population = n_seeds, n_local, max_iter, population
        self.initial_spread, self.mutation_spread = initial_spread, mutation_spread
        self.mutated_attributes, self.tournament, self.elite_pool = mutated_attributes, tournament, elite_pool
        self.crossover_rate, self.mutation_rate, self.local_step = crossover_rate, mutation_rate, local_step
        self.c_num, self.seed_selection, self.batch_size = c_num, seed_selection, batch_size
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress, constraints=constraints, control=control)

    def select_seeds(self, seeds, should_stop=None, domain=None) -> np.ndarray | None:
        """``n_seeds`` of the given inputs: K-Means round robin with random members (EIDIG's), or the first ones."""
        if seeds is None or not len(seeds):
            raise ValueError("grft starts from seed inputs: pass seeds=... (e.g. the training inputs)")
        warn_if_few_seeds(self, self.n_seeds, len(seeds))
        if self.seed_selection == "as_given":
            return np.array(seeds[: self.n_seeds], dtype=float)
        return cluster_seeds(seeds, self.n_seeds, c_num=self.c_num, order="random", random_state=self.random_state,
                             should_stop=should_stop)

    def _generate(self, ctx):
        if not self.tournament <= self.elite_pool <= self.population:
            raise ValueError(f"grft needs tournament <= elite_pool <= population, got {self.tournament}, "
                             f"{self.elite_pool}, {self.population}")
        seeds = self._selected_seeds(ctx)
        if seeds is None:
            return
        seeds = ctx.use_seeds(seeds)
        seen = ctx.run_counter("generated", "eidig")     # every input generated, over all rounds of seeds
        idis = {"global": 0, "local": 0}
        try:
            walkers, origins = [], []
            # a seed's population, its parents, children and tournament draws exist at once
            member = 8 * (4 * seeds.shape[1] + 2 * self.elite_pool)
            require_fits(self.name, "population", self.population, row_bytes=member, what="one seed's population")
            together = min(self.batch_size, rows_per_call(member * self.population))
            for lo in range(0, len(seeds), together):
                ids = np.arange(lo, min(lo + together, len(seeds)))
                X, owner = yield from self._evolve(ctx, seeds[ids], ids, seen, idis)
                walkers.append(X)
                origins.append(owner)
            walkers, first = np.unique(np.concatenate(walkers), axis=0, return_index=True)
            yield from self._walk(ctx, walkers, np.concatenate(origins)[first], seen, idis)
        finally:
            ctx.result.tally(generated=Distinct(seen), global_idis=Count(idis["global"]),
                             local_idis=Count(idis["local"]))

    def _evolve(self, ctx, seeds, ids, seen, idis):
        """The global phase of the seeds ``seeds`` (ids ``ids``); returns the discriminatory inputs and their seeds."""
        dom, rng = ctx.domain, ctx.rng
        n, size, d = len(seeds), self.population, seeds.shape[1]
        pop = np.repeat(seeds[:, None, :], size, axis=1)
        moved = np.argsort(rng.random((n, len(dom.non_protected))), axis=1)[:, :2]
        spread = rng.integers(-self.initial_spread, self.initial_spread + 1, (n, size - 1, 2))
        pop[np.arange(n)[:, None, None], np.arange(1, size)[None, :, None],
            dom.non_protected[moved][:, None, :]] += spread
        pop = np.clip(pop, dom.lower, dom.upper)
        active = np.arange(n)
        hits, owners = [np.zeros((0, d))], [np.zeros(0, int)]
        for generation in range(self.max_iter):
            if not len(active):
                break
            X = pop[active].reshape(-1, d)
            before = ctx.result.count()
            verdict = yield Batch(X, phase="global", seed_ids=np.repeat(ids[active], size))
            seen.note(X)
            disc = verdict.discriminatory
            idis["global"] += ctx.result.count() - before      # the IDIs new to the run, as the Result counts them
            hits.append(X[disc])
            owners.append(np.repeat(ids[active], size)[disc])
            done = disc.reshape(len(active), size).any(axis=1)
            fitness = 0.5 * np.abs(verdict.variant_proba - verdict.proba[:, None, :]).sum(axis=(1, 2))
            active, fitness = active[~done], fitness.reshape(-1, size)[~done]
            if generation + 1 < self.max_iter and len(active):
                pop[active] = self._breed(pop[active], fitness, dom, rng)
        return np.concatenate(hits), np.concatenate(owners)

    def _breed(self, pop, fitness, dom, rng) -> np.ndarray:
        """The next generation: the fittest kept, the others crossed from two tournament winners and mutated."""
        n, size, d = pop.shape
        ranked = np.argsort(-fitness, axis=1, kind="stable")
        draw = lambda: np.sort(np.argsort(rng.random((n, size, self.elite_pool)), axis=2)[..., :self.tournament], axis=2)
        first, second = draw(), draw()
        second = np.where(second[..., 0] == first[..., 0], second[..., min(1, self.tournament - 1)], second[..., 0])
        rows = np.arange(n)[:, None]
        mother, father = pop[rows, ranked[rows, first[..., 0]]], pop[rows, ranked[rows, second]]
        child = np.where(rng.random((n, size, d)) < self.crossover_rate, mother, father)
        k = min(self.mutated_attributes, len(dom.non_protected))
        cols = dom.non_protected[np.argsort(rng.random((n, size, len(dom.non_protected))), axis=2)[..., :k]]
        step = rng.integers(-self.mutation_spread, self.mutation_spread + 1, (n, size, k))
        step *= (rng.random((n, size)) < self.mutation_rate)[..., None]
        np.add.at(child, (rows[..., None], np.arange(size)[None, :, None], cols), step)
        child[np.arange(n), ranked[:, 0]] = pop[np.arange(n), ranked[:, 0]]
        return np.clip(child, dom.lower, dom.upper)

    def _walk(self, ctx, walkers, origins, seen, idis):
        """The local phase: every walker tries the same random one-attribute move and keeps it when discriminatory."""
        dom, rng = ctx.domain, ctx.rng
        chunk, movable = self.batch_size * self.population, dom.non_protected
        for lo in range(0, len(walkers), chunk):
            X, owner = walkers[lo:lo + chunk].copy(), origins[lo:lo + chunk]
            for _ in range(self.n_local):
                col, move = rng.choice(movable), rng.choice((-1, 1)) * self.local_step
                proposal = X.copy()         # the walkers lie inside the bounds: only the moved column is clipped
                proposal[:, col] = np.clip(X[:, col] + move, dom.lower[col], dom.upper[col])
                before = ctx.result.count()
                verdict = yield Batch(proposal, phase="local", seed_ids=owner)
                seen.note(proposal)
                disc = verdict.discriminatory
                idis["local"] += ctx.result.count() - before
                X[disc] = proposal[disc]

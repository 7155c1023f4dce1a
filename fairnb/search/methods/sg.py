"""SG, symbolic generation (Aggarwal, Lohia, Nagar, Dey, Saha, ESEC/FSE 2019).

Black-box dynamic symbolic execution over a local decision-tree surrogate of the model:

1. **Seeds**: ``limit`` rows of the seed data (the training data), K-Means clusters (4) taken
   round robin, enqueued with priority ``rank_seed``.
2. **Loop** until ``limit`` test cases were generated or the queue is empty: dequeue the input ``t``
   with the highest priority; a *test case* is ``t`` without its protected attributes, and a test
   case already generated is dropped without counting. ``t`` is checked for discrimination (every
   combination of protected values).
3. **Surrogate path**: a LIME-style neighbourhood of ``t`` (5000 rows, :mod:`.symbolic.sampler`),
   labelled by the model, fits a ``DecisionTreeClassifier(random_state=2019)``; ``t``'s
   root-to-leaf path is a list of predicates with confidences.
4. **Local search** (only when ``t`` is discriminatory): for each non-protected predicate, the whole
   path with that predicate negated, solved by z3 for the input closest to ``t``; enqueued with
   priority ``rank_local - r`` (``r`` = the constraint's mean confidence).
5. **Global search** (always): prefix and one negated predicate, down the path until a predicate's
   confidence is below ``threshold`` (T1 = 0.3); solved by z3 (attributes the constraint does not
   mention keep ``t``'s values); enqueued with priority ``rank_global + r``.
6. A *visited* set (shared by both searches) makes sure no constraint is solved twice; unsatisfiable
   constraints are remembered as visited and enqueue nothing.

Priorities: local (9..10) before seeds (5) before global (1..2), first-in-first-out among equals
(see ``sg.md`` §2.4 for why this is the paper's order).

**Batching.** A round takes up to ``batch_size`` inputs from the top of the queue, but only while
they are local-search inputs: a seed or a global-search input is a round of its own, because the
local children of a discriminatory one must come before the next seed (as in the paper's loop).
Each round checks its inputs in one oracle call, labels all their neighbourhoods in one model call
and solves all new constraints in one z3 call. The only change from the paper's one-at-a-time loop
(``batch_size=1``) is the order among local inputs: the children of a round's inputs are dequeued
after the rest of the round. Local inputs are almost all test cases (Table 3), so rounds are full.

The Result's extras report the paper's counts: ``test_cases_generated`` (#Gen, unique non-protected
tuples checked), ``successful_test_cases`` (#Succ, those discriminatory), ``success_rate`` and the
same per origin (``seed_*``, ``local_*``, ``global_*``, as in Table 3); plus surrogate and solver
counters and ``stop_reason``: ``limit``, ``queue_empty`` or ``engine`` (a budget, ``stop()`` or
Ctrl-C ended it; ``result.status`` says which).

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> model = data.info["true_model"]                 # planted discrimination on sex
>>> r = SymbolicGeneration(limit=20, n_samples=300, random_state=0).run(model, data.domain, seeds=data.X)
>>> r.extras["test_cases_generated"], r.extras["successful_test_cases"] == r.count("adf") > 0
(20, True)
"""
from __future__ import annotations

import numpy as np

from ...counting import UniqueCounter
from ...oracle import rows_per_call
from ...params import COUNT, FINITE, Options
from ...results import Count, Distinct, Ratio
from ..engine.estimator import Search
from ..engine.types import Batch
from ..engine.seeds import cluster_seeds, warn_if_few_seeds, with_kmeans

with_kmeans()      # K-Means chooses its seeds: imported with the method, not inside a search's time budget
from ..engine.sizes import require_fits
from ..parts.symbolic import LimeSampler, PriorityQueue, Z3Solver, box, global_constraints, local_constraints, rank, tree_path
from ..parts.symbolic.sampler import MODES

ORIGINS = ("seed", "local", "global")
SEED_ORDERS = ("round-robin", "data")
NEGATED_CONFIDENCES = ("original", "complement")


class SymbolicGeneration(Search):
    """SG black-box search: LIME-style neighbourhoods, decision-tree paths, z3, a priority queue.

    Parameters
    ----------
    limit : test cases to generate (the paper's budget, 1000); ``None``: until the queue is empty
        or another budget (``max_time``) ends the search.
    n_seeds : seeds to enqueue (default: ``limit``, or every row when ``limit`` is None).
    c_num : K-Means clusters of the seed data (4).
    seed_order : ``"round-robin"`` over the clusters (the paper) or ``"data"`` (data order, Fig. 3's
        "iterative").
    threshold : T1, the confidence below which global search stops going down a path (0.3; above 1: no global search).
    n_samples : neighbourhood size of the surrogate (LIME's default 5000).
    sampler : ``"marginal"`` (LIME with categorical features, the ADF re-implementation) or
        ``"gaussian"`` (around the input); see :mod:`fairnb.search.parts.symbolic.sampler`.
    negated_confidence : confidence of a negated predicate in the rank: ``"original"`` (the paper's
        text) or ``"complement"`` (1 - confidence, the ADF re-implementation).
    rank_seed, rank_local, rank_global : Rank1, Rank2, Rank3 (5, 10, 1; larger first).
    enable_local, enable_global : switch the two searches (the paper's ablations).
    batch_size : local-search test cases per round (1 = the paper's one-at-a-time loop; fewer where their
        neighbourhoods would pass ``fairnb.oracle.MEMORY_BUDGET``).
    """

    name = "sg"
    domain_needs = ("bounded",)
    _parameter_constraints = {**Search._parameter_constraints, "limit": [None, COUNT], "n_seeds": [None, COUNT],
                              "c_num": [COUNT], "seed_order": [Options(SEED_ORDERS)], "threshold": [FINITE],
                              "n_samples": [COUNT], "sampler": [Options(MODES)],
                              "negated_confidence": [Options(NEGATED_CONFIDENCES)],
                              "rank_seed": [FINITE], "rank_local": [FINITE], "rank_global": [FINITE],
                              "enable_local": [bool], "enable_global": [bool], "batch_size": [COUNT]}

    def __init__(self, limit: int | None = 1000, n_seeds: int | None = None, c_num: int = 4,
                 seed_order: str = "round-robin", threshold: float = 0.3, n_samples: int = 5000,
                 sampler: str = "marginal", negated_confidence: str = "original", rank_seed: float = 5.0,
                 rank_local: float = 10.0, rank_global: float = 1.0, enable_local: bool = True,
                 enable_global: bool = True, batch_size: int = 16, *, max_time: float | None = None,
                 max_tried: int | None = None, max_found: int | None = None, random_state: int | None = None,
                 progress: bool | None = None, constraints="default", control=None):
        self.limit = limit
        self.n_seeds = n_seeds
        self.c_num = c_num
        self.seed_order = seed_order
        self.threshold = threshold
        self.n_samples = n_samples
        self.sampler = sampler
        self.negated_confidence = negated_confidence
        self.rank_seed = rank_seed
        self.rank_local = rank_local
        self.rank_global = rank_global
        self.enable_local = enable_local
        self.enable_global = enable_global
        self.batch_size = batch_size
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress, constraints=constraints, control=control)

    @classmethod
    def bench_params(cls, *, seeds: int, local: int, max_time: float | None) -> dict:
        """``fairnb bench`` settings: the round's seeds as given (already clustered round robin),
        the paper's 1,000 test cases, or no test-case limit under a time budget (``local`` does not apply)."""
        params = {"n_seeds": seeds, "seed_order": "data", "limit": None if max_time is not None else 1000}
        return params if max_time is None else {**params, "max_time": max_time}

    # ------------------------------------------------------------------ seeds
    def select_seeds(self, data, should_stop=None, domain=None) -> np.ndarray | None:
        """The seeds SG enqueues: ``n_seeds`` rows of ``data`` (``seed_order``); None when ``should_stop()``
        said True while K-Means ran."""
        if data is None:
            raise ValueError("SG needs seed data (the training data): pass seeds=X_train to run()")
        n = self.n_seeds or (min(self.limit, len(data)) if self.limit else len(data))
        warn_if_few_seeds(self, n, len(data))
        if self.seed_order == "round-robin":
            return cluster_seeds(data, n, c_num=self.c_num, order="ascending", random_state=2019,
                                 should_stop=should_stop)
        return data[:n].copy()

    # ------------------------------------------------------------------ the loop
    def _generate(self, ctx):
        domain = ctx.domain
        seeds = self._selected_seeds(ctx)
        if seeds is None:            # stopped while K-Means chose the seeds
            return
        seeds = ctx.use_seeds(seeds)
        # a round's neighbourhoods (and their labels' model input) exist at once: fewer inputs where they would not fit
        require_fits(self.name, "n_samples", self.n_samples, row_bytes=16 * domain.n_features,
                     what="one input's neighbourhood and its model input")
        most = rows_per_call(16 * domain.n_features * self.n_samples)
        sampler = LimeSampler(ctx.seeds, domain.lower, domain.upper, n_samples=self.n_samples, mode=self.sampler)
        solver = Z3Solver(domain.lower, domain.upper)
        queue = PriorityQueue()
        for i, s in enumerate(seeds):
            queue.push(self.rank_seed, (s, "seed", i))
        generated = UniqueCounter(domain, "adf")
        visited: set[bytes] = set()
        tally = {o: [0, 0] for o in ORIGINS}  # generated, successful
        state = {"stop_reason": "engine", "surrogates": 0, "neighbourhood_rows": 0}
        try:
            while queue and (self.limit is None or len(generated) < self.limit):
                room = min(self.batch_size, most) if self.limit is None else min(self.batch_size, most,
                                                                                   self.limit - len(generated))
                rows = []
                # a round: local inputs only, or one seed / global input (see "Batching")
                while queue and len(rows) < room and (not rows or (rows[0][1] == "local" == queue.peek()[1])):
                    x, origin, sid = queue.pop()
                    if generated.add(x[None, :])[0]:
                        rows.append((x, origin, sid))
                if not rows:
                    break
                X = np.array([r[0] for r in rows])
                sids = np.array([r[2] for r in rows])
                origin = rows[0][1]  # every input of a round has the same origin
                verdict = yield Batch(X, phase=origin, seed_ids=sids)
                disc = verdict.discriminatory
                tally[origin][0] += len(rows)
                tally[origin][1] += int(disc.sum())
                self._expand(ctx, X, sids, disc, sampler, solver, queue, visited, state)
            state["stop_reason"] = "limit" if self.limit is not None and len(generated) >= self.limit else "queue_empty"
        finally:
            gen = sum(t[0] for t in tally.values())
            counts = {"successful_test_cases": sum(t[1] for t in tally.values()), "surrogates": state["surrogates"],
                      "neighbourhood_rows": state["neighbourhood_rows"], "constraints_solved": solver.solved,
                      "sat": solver.sat, "unsat": solver.unsat, "z3_checks": solver.checks, "queue_left": len(queue)}
            for o in ORIGINS:
                counts[f"{o}_generated"], counts[f"{o}_successful"] = tally[o]
            # the inputs checked are the first ``gen`` generated (a round's inputs are generated, then checked)
            ctx.result.tally(test_cases_generated=Distinct(generated.key_rows()[:gen]),
                             **{name: Count(n) for name, n in counts.items()},
                             success_rate=Ratio("successful_test_cases", "test_cases_generated"))
            ctx.result.extras["stop_reason"] = state["stop_reason"]

    def _expand(self, ctx, X, sids, disc, sampler, solver, queue, visited, state):
        """Fit each input's surrogate, derive its new constraints, solve them all, enqueue the answers."""
        from sklearn.tree import DecisionTreeClassifier

        if not (self.enable_local or self.enable_global):
            return
        n, d = X.shape
        neighbourhoods = sampler.sample(X, ctx.rng)
        labels = ctx.oracle.predict_proba(neighbourhoods.reshape(-1, d)).argmax(axis=1).reshape(n, -1)
        state["surrogates"] += n
        state["neighbourhood_rows"] += n * sampler.n_samples
        todo, anchors, nearest, pushes = [], [], [], []
        for i in range(n):
            if ctx.engine.out_of_budget() is not None:      # the run ends at the next batch: its children are moot
                return
            tree = DecisionTreeClassifier(random_state=2019).fit(neighbourhoods[i], labels[i])
            for c, sticky, key, origin in self.candidates(tree_path(tree, X[i]), disc[i], ctx.domain, visited):
                todo.append(c)
                anchors.append(X[i])
                nearest.append(sticky)
                pushes.append((key, origin, sids[i]))
        for answer, (key, origin, sid) in zip(solver.solve(todo, anchors, nearest), pushes):
            if answer is not None:
                queue.push(key, (answer, origin, sid))

    def candidates(self, path, discriminatory: bool, domain, visited: set) -> list[tuple]:
        """The constraints to solve for an input with surrogate ``path``, in the paper's order.

        Local constraints first (only for a ``discriminatory`` input), then global ones; each not in
        ``visited`` (keyed by its integer box) is added to it and returned as
        ``(constraint, nearest, queue key, origin)``.
        """
        protected = frozenset(domain.protected)
        found = []
        if discriminatory and self.enable_local:
            found += [(c, True, self.rank_local - rank(c), "local")
                      for c in local_constraints(path, protected, self.negated_confidence)]
        if self.enable_global:
            found += [(c, False, self.rank_global + rank(c), "global")
                      for c in global_constraints(path, protected, self.threshold, self.negated_confidence)]
        out = []
        for item in found:
            lo, hi = box(item[0], domain.lower, domain.upper)
            ident = lo.tobytes() + hi.tobytes()
            if ident not in visited:
                visited.add(ident)
                out.append(item)
        return out

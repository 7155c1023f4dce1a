"""KOSEI (Sano, Kitamura, Takada, SEKE 2022): AEQUITAS's local search without its duplicate evaluations.

The global phase is AEQUITAS's: the seeds given, or random inputs, each checked once (a repeated one is
not sent to the model again). The local phase keeps a first-in first-out queue of discriminatory inputs,
which starts with the global phase's. Each expansion pops an input and proposes every move of AEQUITAS's
perturbation policy (``PerturbationPolicy.neighbours``): each non-protected attribute ``step_size`` down and
up, inside its bounds. A proposal already evaluated, in either phase, is never sent to the model again.
"The same" means the same non-protected attributes, because the oracle checks every protected variant.
Each discriminatory proposal joins the queue. The search ends after ``n_local`` expansions, all walks
together, or when the queue is empty. Every move is tried, so nothing is learned.
``docs/methods/kosei.md`` is the digest (what is verified, what is not). An oracle call expands as many
queued inputs as fill ``batch_size`` proposals.

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> r = Kosei(n_seeds=300, n_local=200, random_state=0).run(fairnb.train_demo_model(data), data.domain)
>>> r.extras["local_idis"] > 0 and r.extras["generated"] == r.tried
True
"""
from __future__ import annotations

from collections import deque

import numpy as np

from .aequitas import Aequitas, PerturbationPolicy
from ..engine.estimator import Search
from ..engine.types import Batch


class Kosei(Aequitas):
    """KOSEI black-box search: AEQUITAS's global phase, then a breadth-first local search that never
    evaluates a candidate twice.

    Parameters
    ----------
    n_seeds : inputs of the global phase, as in ``Aequitas``: the seeds given (``n_seeds`` of them at
        random), else uniform random inputs.
    n_local : expansions of the local phase, over all walks together (the paper's local iteration limit).
    step_size : how far one move goes (1).
    global_from : as in ``Aequitas``.
    batch_size : candidates per oracle call.
    """

    name = "kosei"
    _parameter_constraints = {**Search._parameter_constraints,
                              **{k: Aequitas._parameter_constraints[k]
                                 for k in ("n_seeds", "n_local", "step_size", "global_from", "batch_size")}}
    skips_evaluated = True

    def __init__(self, n_seeds: int = 1000, n_local: int = 1000, step_size: int = 1, global_from: str | None = None,
                 batch_size: int = 2000, *, max_time: float | None = None, max_tried: int | None = None,
                 max_found: int | None = None, random_state: int | None = None, progress: bool | None = None,
                 constraints="default", control=None):
        self.n_seeds, self.n_local, self.step_size = n_seeds, n_local, step_size
        self.global_from, self.batch_size = global_from, batch_size
        super(Aequitas, self).__init__(max_time=max_time, max_tried=max_tried, max_found=max_found,
                                       random_state=random_state, progress=progress,
                                       constraints=constraints, control=control)

    def _policy(self, domain) -> PerturbationPolicy:
        return PerturbationPolicy(domain.non_protected, learn_attribute=False, learn_direction=False)

    def _learned(self, policy) -> dict:
        return {}

    def _local_walks(self, ctx, policy, X, walker_ids, seen, found, stats):
        lower, upper = ctx.domain.lower, ctx.domain.upper
        queue = deque(zip(X, walker_ids))
        per_call = max(1, self.batch_size // (2 * len(policy.attributes)))
        expanded = 0
        while queue and expanded < self.n_local:
            popped = [queue.popleft() for _ in range(min(len(queue), per_call, self.n_local - expanded))]
            expanded += len(popped)
            rows, proposal = policy.neighbours(np.array([x for x, _ in popped]), self.step_size, lower, upper)
            fresh = seen.fresh(proposal)      # committed once checked: generated counts what the model saw
            if not fresh:
                continue
            keep = fresh.index
            proposal, ids = proposal[keep], np.array([i for _, i in popped])[rows[keep]]
            verdict = yield Batch(proposal, phase="local", seed_ids=ids)
            seen.commit(fresh)
            disc = verdict.discriminatory
            stats["local"][1] += int(found.add(proposal[disc]).sum())
            queue.extend(zip(proposal[disc], ids[disc]))

"""The two-phase gradient-guided search: one skeleton (``TwoPhase``) for every input kind, and its tabular
methods ADF, EIDIG, MAFT and NeuronFair (``TwoPhaseSearch``). The text searches (``fairnb.search.methods.adf_text``) run
the same skeleton with a word swap as their transformation, the image searches (``fairnb.search.methods.image_flip``)
its global phase with pixel steps and the tabular methods' gradient and direction parts.

All four papers search in two phases (ADF, ICSE 2020 / TSE; EIDIG, ISSTA 2021; NeuronFair, ICSE
2022; MAFT, ICSE 2024):

**Global phase.** Seeds (K-Means clusters of the data, taken round robin) are checked; a seed that
is not yet discriminatory gets a counterpart ``x'`` (the protected variant whose output differs most),
the gradients of both are taken (with momentum in EIDIG/MAFT/NeuronFair), and ``x`` moves one unit
step on the non-protected attributes where the two gradients agree, then is clipped. A seed stops at
its first discriminatory state (a *global IDI*) or after ``max_iter`` steps.

**Local phase.** Every distinct global IDI starts a random walk of ``n_local`` steps that tries to
stay discriminatory: an attribute that the gradients say matters *little* is nudged (probability
proportional to ``1 / (|g| + |g'| + 1e-6)``), and each new point is checked. What a walker does after a
failed step is the method's choice: keep it (ADF's pseudo-code, NeuronFair), go back with Metropolis
acceptance (ADF's reference code), or reset to the seed (EIDIG/MAFT).

The skeleton asks the method's transformation part what a step is (``transformation(ctx)``: a unit
step on a feature, a word swap, a pixel step; ``fairnb.search.parts.transformations``) and its gradient source part
where the guidance comes from (``gradient_source()``: loss or class probability by backprop, forward
differences, NeuronFair's dynamic loss, a random-direction estimate; ``fairnb.search.parts.gradients``) and its
acceptance part which local steps a walker keeps (``acceptance_rule()``: every one, Metropolis, or back to the start
after a failure; ``fairnb.search.parts.acceptance``). The methods differ otherwise only in small parts, which
subclasses override: the global direction rule, the momentum decays, how often the local probabilities are
refreshed and the local move.

**Batching** (the reason fairnb is fast). The papers loop over one seed at a time and call the model
once per instance. Here every seed still in the global phase advances together: one oracle call per
step for all seeds and all their protected variants, and one gradient call for all ``x`` and ``x'``
(more seeds than fit ``fairnb.oracle.MEMORY_BUDGET``, e.g. 100,000 seeds of 200 features, go through
the global phase in consecutive chunks that each fit it).
The local walkers (up to ``batch_size`` at a time) also step together. What this changes:

* *Order of random draws.* The papers draw seed 1's whole local walk, then seed 2's; here step ``t``
  of every walker is drawn together (attribute, direction, acceptance, NeuronFair's random neurons).
  The draws are independent, so the distribution of walks is the same; the runs are not bit-identical
  to a one-seed-at-a-time loop with the same random seed.
* *Order of the phases.* ADF's reference code starts each global IDI's local walk immediately; here
  (as in EIDIG's and MAFT's Algorithms 3 and 4) the global phase ends for all seeds first. This moves
  "time to the first IDIs" but not what is found; global IDIs are made distinct (under the method's
  counting convention) before their walks start.
* *Budgets.* ``max_tried`` is checked between batches, so it may be exceeded by one batch.

Example
-------
>>> import numpy as np, fairnb
>>> data = fairnb.datasets.make_synthetic(n=600, random_state=0)
>>> w = np.zeros((7, 1)); w[1], w[3] = 3.0, 0.5          # a model that favours sex = 1
>>> model = fairnb.models.NumpyMLP([w], [np.array([-6.0])])
>>> from fairnb.search.methods.eidig import EIDIG
>>> r = EIDIG(n_seeds=20, n_local=20, seed_selection="as_given", random_state=0).run(model, data.domain, seeds=data.X)
>>> r.count() > 0 and r.extras["global_idis"] > 0
True
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...oracle import rows_per_call
from ...params import COUNT, POSITIVE, STEPS, Options
from ...results import Count, Distinct, Ratio
from ..parts.acceptance import KeepAll
from ..parts.gradients import Backprop, agreeing_signs
from ..parts.transformations import UnitStep
from ..engine.estimator import Search
from ..engine.types import Batch
from ..engine.generated import GeneratedInputs
from ..engine.seeds import cluster_seeds, warn_if_few_seeds, with_kmeans

with_kmeans()      # K-Means chooses its seeds: imported with the method, not inside a search's time budget

EPSILON = 1e-6          # EIDIG/MAFT's epsilon in the reciprocal-gradient probabilities
GLOBAL_STATE_COPIES = 12   # (n, d) float arrays a global-phase seed keeps alive besides its variants
SEED_SELECTIONS = ("kmeans", "as_given")


@dataclass
class Pairs:
    """Discriminatory inputs with their counterparts: the global IDIs that start local walks.

    ``trace`` is what a transformation records per row about how the input was reached (a text swap's
    substitution chain and saliency; None where a transformation records nothing): anything with
    ``take(idx)``, ``replace(mask, other)`` and ``concat(parts)``."""

    X: np.ndarray           # (n, ...) inputs
    proba: np.ndarray       # (n, k) model output on X
    variant: np.ndarray     # (n,) index into the input's protected variants of a flipping one
    counterpart: np.ndarray  # (n, ...) that variant
    counterpart_proba: np.ndarray  # (n, k)
    seed_ids: np.ndarray    # (n,)
    trace: object = None

    def __len__(self):
        return len(self.X)

    def take(self, idx) -> "Pairs":
        return Pairs(self.X[idx], self.proba[idx], self.variant[idx], self.counterpart[idx], self.counterpart_proba[idx],
                     self.seed_ids[idx], None if self.trace is None else self.trace.take(idx))

    @classmethod
    def concat(cls, parts: list["Pairs"], like: np.ndarray) -> "Pairs":
        """The rows of ``parts`` in order; no parts: an empty set of pairs shaped like the inputs ``like``."""
        if not parts:
            empty = np.zeros((0,) + like.shape[1:], like.dtype)
            return cls(empty, np.zeros((0, 2)), np.zeros(0, int), empty.copy(), np.zeros((0, 2)), np.zeros(0, int))
        trace = None if parts[0].trace is None else type(parts[0].trace).concat([p.trace for p in parts])
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in
                     ("X", "proba", "variant", "counterpart", "counterpart_proba", "seed_ids")), trace)


def real_variants(verdict) -> np.ndarray | None:
    """``(n, m)`` True where an input has its ``j``-th variant (a ragged domain's texts have different numbers
    of variants); None where every input has all ``m``."""
    if verdict.variant_items is None:
        return None
    m = verdict.variant_proba.shape[1]
    return np.arange(m)[None, :] < np.array([len(items) for items in verdict.variant_items])[:, None]


def reciprocal_probabilities(G1: np.ndarray, G2: np.ndarray, free: np.ndarray, eps: float = EPSILON) -> np.ndarray:
    """Attribute probabilities proportional to ``1 / (|g1| + |g2| + eps)`` on the ``free`` columns, 0
    elsewhere (ADF's Algorithm 8 with EIDIG's epsilon; all-zero gradients give a uniform choice).

    >>> reciprocal_probabilities(np.array([[1., 2, .5, 4]]), np.array([[1., 2, .5, 4]]),
    ...                          np.array([True, True, False, True]), eps=0).round(6).tolist()
    [[0.571429, 0.285714, 0.0, 0.142857]]
    """
    s = np.where(free, 1.0 / (np.abs(G1) + np.abs(G2) + eps), 0.0)
    return s / s.sum(axis=1, keepdims=True)


class TwoPhase(Search):
    """The two-phase skeleton, the same for every input kind: a global phase that moves every seed
    toward discrimination, then a local phase that walks around each distinct global IDI (see the module
    docstring). What a step is comes from the method's transformation part (``transformation(ctx)``:
    ``UnitStep`` and ``PixelStep`` of ``fairnb.search.parts.transformations``, ``fairnb.search.parts.text_steps.WordSwap``);
    which step to take, from the method's hooks below (``_global_candidates``, ``_local_plan``,
    ``_local_candidates``, ``_global_direction``...); where the guidance comes from, from its gradient source part
    (``gradient_source()``, ``fairnb.search.parts.gradients``); which local steps a walker keeps, from its acceptance
    part (``acceptance_rule()``, ``fairnb.search.parts.acceptance``). A subclass holds the parameters (at least
    ``batch_size``)."""

    dedup = "adf"                # convention that makes global IDIs distinct before their walks
    counterpart_rule = "l2"      # global x': max L2 output difference; "class": max |delta p| of x's class
    local_pair = "max"           # local x': the flipping variant that changes the output most; "random":
                                 # a uniformly random flipping variant (EIDIG/MAFT's FindPair)
    n_walkers = 1                # walkers per distinct global IDI
    keeps_global_pairs = True    # False: the global IDIs are not kept for walks (no local phase; the engine records them)

    # ------------------------------------------------------------------ the parts a method may change
    def transformation(self, ctx):
        """The transformation part of this run: what a step is (``fairnb.search.parts.transformations``)."""
        raise NotImplementedError

    def gradient_source(self):
        """The gradient source part of this run (``fairnb.search.parts.gradients``), built from the parameters as the run
        starts; None for a method that asks for its gradients itself (``_pair_gradients``)."""
        return None

    def _global_checks(self) -> int:
        """How many times a seed is checked in the global phase."""
        return self.max_iter

    def _decays(self) -> tuple[float, float]:
        """Momentum decay of the accumulated gradients (global phase, local phase)."""
        return 0.0, 0.0

    def _local_steps(self) -> int:
        """Local steps per walker."""
        return self.n_local

    def _refresh_interval(self) -> float:
        """Local steps between gradient refreshes (counted from the last refresh or failure; 0: every step,
        also right after a failure)."""
        return 1

    def acceptance_rule(self):
        """The acceptance part of this run: which local steps a walker keeps (``fairnb.search.parts.acceptance``),
        built from the parameters as the run starts; every step by default."""
        return KeepAll()

    def _prepare_seeds(self, ctx, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Declare the run's ``seeds`` (``ctx.use_seeds``); returns them and the rows the search starts from."""
        return ctx.use_seeds(seeds), np.arange(len(seeds))

    def _begin_run(self, ctx) -> None:
        """Called first in every run (e.g. to set up the counters that ``_tally`` reads)."""

    def _begin(self, ctx, seeds: np.ndarray) -> None:
        """Called once before the global phase (e.g. NeuronFair's interpretation)."""

    def _begin_population(self, ctx, phase: str, size: int) -> None:
        """Called when a population (all seeds, or one batch of walkers) starts (tells the gradient source)."""
        if self._gradient is not None:
            self._gradient.begin_population(size)

    def _pair_gradients(self, ctx, X, XC, PX, PC, *, rows, t, phase) -> tuple[np.ndarray, np.ndarray]:
        """Gradients at ``X`` and at the counterparts ``XC`` (outputs ``PX``, ``PC``) from the gradient source;
        ``(None, None)`` for a method without gradients. ``rows`` index the population, ``t`` is the step."""
        g, gc = self._gradient(ctx, X, XC, PX, PC, rows=rows, t=t, phase=phase)
        if self._gradient.backprop_rows:
            self._stats["gradient_rows"] += 2 * len(X)
        return g, gc

    def _global_direction(self, G1: np.ndarray, G2: np.ndarray) -> np.ndarray:
        """Direction of a global step from the (momentum) gradients at the inputs and their counterparts."""
        raise NotImplementedError

    def _global_candidates(self, ctx, step, X, G1, G2, PX, PC, trace, t):
        """One global step of every row: ``(X', moved, trace')``; rows not ``moved`` leave the search. Default:
        ``global_step`` along ``_global_direction``, every row moved."""
        return step.apply(X, self._global_direction(G1, G2), self.global_step, trace), np.ones(len(X), bool), trace

    def _local_plan(self, G1, G2, movable) -> tuple[np.ndarray, ...]:
        """Per-row arrays that guide the local moves until the next refresh (e.g. attribute probabilities)."""
        raise NotImplementedError

    def _local_candidates(self, ctx, step, X, plan, trace, t):
        """One local step of every walker from ``X`` by its ``plan``: ``(candidates, moved, trace')``; the
        walk ends when no walker moved."""
        raise NotImplementedError

    def _check(self, ctx, X, phase: str, seed_ids, trace, t):
        """One oracle call for ``X`` and all its variants; returns the verdict."""
        verdict = yield Batch(X, phase=phase, seed_ids=seed_ids)
        return verdict

    def _walkers_found(self, ctx, walkers: Pairs) -> None:
        """Called with the distinct global IDIs before their walks start."""

    def _tally(self, ctx) -> None:
        """Record the method's counts in ``ctx.result`` (also when the run stops early)."""

    # ------------------------------------------------------------------ the search
    def _generate(self, ctx):
        self._stats = {"gradient_rows": 0, "gradient_calls": 0, "local_steps": 0, "first_check": 0, "later": 0}
        self._gradient = self.gradient_source()
        self._begin_run(ctx)
        try:
            seeds = self._selected_seeds(ctx)
            if seeds is None:        # stopped while the seeds were chosen
                return
            seeds, rows = self._prepare_seeds(ctx, seeds)
            self._begin(ctx, seeds)
            found = yield from self._global_phase_in_chunks(ctx, seeds, rows)
            walkers = self._distinct(ctx.domain, found)
            self._walkers_found(ctx, walkers)
            if not self._local_steps() or not len(walkers):
                return
            walkers = walkers.take(np.repeat(np.arange(len(walkers)), self.n_walkers))
            for start in range(0, len(walkers), self.batch_size):
                yield from self._walk(ctx, walkers.take(np.arange(start, min(start + self.batch_size, len(walkers)))))
        finally:
            self._tally(ctx)

    def _distinct(self, domain, pairs: Pairs) -> Pairs:
        if not len(pairs):
            return pairs
        _, first = np.unique(domain.key(pairs.X, self.dedup), axis=0, return_index=True)
        return pairs.take(np.sort(first))

    def _global_counterpart(self, P: np.ndarray, VP: np.ndarray, own: np.ndarray, real=None) -> np.ndarray:
        """Index of the protected variant (other than the input's own, among its ``real`` ones) whose output
        differs most."""
        n = len(P)
        if self.counterpart_rule == "class":
            c = P.argmax(axis=1)
            score = np.abs(np.take_along_axis(VP, c[:, None, None], axis=2)[:, :, 0] - P[np.arange(n), c][:, None])
        else:
            score = ((VP - P[:, None, :]) ** 2).sum(axis=2)
        if real is not None:
            score[~real] = -np.inf
        score[np.arange(n), own] = -np.inf
        return score.argmax(axis=1)

    def _local_counterpart(self, ctx, v) -> np.ndarray:
        """Per checked row, the flipping variant a local walk pairs it with (-1 where none flips)."""
        if self.local_pair == "max":
            return v.counterpart_index
        differs = v.variant_proba.argmax(axis=2) != v.proba.argmax(axis=1)[:, None]
        j = v.counterpart_index.copy()
        multi = np.flatnonzero(differs.sum(axis=1) > 1)      # a choice to make (never with one binary attribute)
        if len(multi):
            j[multi] = np.where(differs[multi], ctx.rng.random((len(multi), differs.shape[1])), -1.0).argmax(axis=1)
        return j

    def _global_chunk(self, domain) -> int:
        """Seeds that go through the global phase together (all of them unless a subclass bounds it)."""
        return np.iinfo(np.int64).max

    def _global_phase_in_chunks(self, ctx, seeds: np.ndarray, rows: np.ndarray):
        """The global phase over consecutive chunks of ``_global_chunk`` seeds of ``seeds[rows]``, so that
        peak memory follows the memory budget, not the number of seeds. Seeds that fit one chunk (every paper
        configuration) advance all together; in chunks, the random draws of the global phase (EIDIG/MAFT's
        random counterparts, NeuronFair's random neurons) come chunk by chunk."""
        step = self._global_chunk(ctx.domain)
        found = []
        for start in range(0, len(rows), step):
            pairs = yield from self._global_phase(ctx, seeds, rows[start:start + step])
            found += [pairs] if len(pairs) and self.keeps_global_pairs else []
        return Pairs.concat(found, seeds)

    def _global_phase(self, ctx, seeds: np.ndarray, ids: np.ndarray):
        """The seeds ``seeds[ids]`` step together until each is discriminatory, stops moving, or has been
        checked ``_global_checks()`` times; returns the discriminatory states found."""
        step = self.transformation(ctx)
        decay = self._decays()[0]
        X, rows, trace = seeds[ids].copy(), np.arange(len(ids)), step.start(seeds[ids], ids)
        G1 = G2 = None
        found = []
        checks = self._global_checks()
        self._begin_population(ctx, "global", len(ids))
        for t in range(checks):
            v = yield from self._check(ctx, X, "global", ids, trace, t)
            d = v.discriminatory
            if d.any():
                j = self._local_counterpart(ctx, v)[d]
                hit = np.flatnonzero(d)
                found.append(Pairs(X[d], v.proba[d], j, step.variant(X[d], j, v, hit), v.variant_proba[d, j], ids[d],
                                   None if trace is None else trace.take(hit)))
                self._stats["first_check" if t == 0 else "later"] += len(hit)
            live = np.flatnonzero(~d)
            if t == checks - 1 or not len(live):
                break
            X, ids, rows = X[live], ids[live], rows[live]
            trace = None if trace is None else trace.take(live)
            G1, G2 = (None, None) if G1 is None else (G1[live], G2[live])
            PX, VP = v.proba[live], v.variant_proba[live]
            real = real_variants(v)
            j = self._global_counterpart(PX, VP, step.own_variant(X), None if real is None else real[live])
            XC = step.variant(X, j, v, live)
            g, gc = self._pair_gradients(ctx, X, XC, PX, VP[np.arange(len(X)), j], rows=rows, t=t, phase="global")
            if g is not None:
                G1 = decay * (np.zeros_like(g) if G1 is None else G1) + g
                G2 = decay * (np.zeros_like(gc) if G2 is None else G2) + gc
            X, moved, trace = self._global_candidates(ctx, step, X, G1, G2, PX, VP[np.arange(len(X)), j], trace, t)
            if not moved.all():
                X, ids, rows = X[moved], ids[moved], rows[moved]
                trace = None if trace is None else trace.take(np.flatnonzero(moved))
                G1, G2 = (None, None) if G1 is None else (G1[moved], G2[moved])
        return Pairs.concat(found, seeds)

    def _walk(self, ctx, start: Pairs):
        """``_local_steps()`` steps of all walkers in ``start`` together."""
        step = self.transformation(ctx)
        decay = self._decays()[1]
        interval = self._refresh_interval()
        acceptance = self.acceptance_rule()
        w = len(start)
        X, PX, PC = start.X.copy(), start.proba.copy(), start.counterpart_proba.copy()
        CI, C, trace = start.variant.copy(), start.counterpart.copy(), start.trace
        G1 = G2 = plan = plan0 = None
        since = np.full(w, np.inf)           # forces a refresh at the first step
        accepting = acceptance.start(start)
        self._begin_population(ctx, "local", w)
        for t in range(self._local_steps()):
            r = np.flatnonzero(since >= interval)
            if len(r):
                g, gc = self._pair_gradients(ctx, X[r], step.pair(X[r], C[r]), PX[r], PC[r], rows=r, t=t,
                                             phase="local")
                if g is not None:
                    if G1 is None:
                        G1, G2 = np.zeros((w,) + g.shape[1:]), np.zeros((w,) + gc.shape[1:])
                    G1[r], G2[r] = decay * G1[r] + g, decay * G2[r] + gc
                fresh = self._local_plan(None if g is None else G1[r], None if g is None else G2[r],
                                         step.movable(X[r]))
                if plan is None:
                    plan = tuple(np.zeros((w,) + a.shape[1:], a.dtype) for a in fresh)
                for p, a in zip(plan, fresh):
                    p[r] = a
                since[r] = 0
            if plan0 is None:
                plan0 = tuple(p.copy() for p in plan)
            since += 1
            candidate, moved, moved_trace = self._local_candidates(ctx, step, X, plan, trace, t)
            if not moved.any():
                break
            v = yield from self._check(ctx, candidate, "local", start.seed_ids, moved_trace, t)
            self._stats["local_steps"] += w
            ok = v.discriminatory
            keep, back = acceptance.decide(ctx.rng, v, accepting)
            X[keep], PX[keep] = candidate[keep], v.proba[keep]
            trace = None if trace is None else trace.replace(keep, moved_trace)
            new = np.flatnonzero(keep & ok)                          # the last known flipping variant
            CI[new] = self._local_counterpart(ctx, v)[new]
            C[new] = step.variant(X[new], CI[new], v, new)
            PC[keep] = v.variant_proba[keep, CI[keep]]
            if back.any():
                f = back
                X[f], PX[f], CI[f], C[f], PC[f] = (start.X[f], start.proba[f], start.variant[f], start.counterpart[f],
                                                   start.counterpart_proba[f])
                trace = None if trace is None else trace.replace(f, start.trace)
                for p, p0 in zip(plan, plan0):
                    p[f] = p0[f]
                since[f] = 0
                if G1 is not None:
                    G1[f], G2[f] = 0.0, 0.0


class TwoPhaseSearch(TwoPhase):
    """Base class of the tabular two-phase generators (see the module docstring).

    Parameters
    ----------
    n_seeds : global seeds (the papers' ``num_g`` / ``g_num``).
    n_local : local steps per distinct global IDI (``num_l`` / ``l_num``).
    max_iter : global iterations per seed.
    global_step, local_step : unit step sizes ``s_g``, ``s_l``.
    c_num : K-Means clusters for seed selection.
    seed_selection : ``"kmeans"`` (choose ``n_seeds`` of the given inputs round robin over ``c_num``
        clusters, as the papers do) or ``"as_given"`` (use the first ``n_seeds`` given inputs).
    batch_size : local walkers stepping together (memory bound; 4,096 walkers x 16 variants is small).
    """

    domain_needs = ("bounded",)
    needs_gradients = True
    seed_order = "ascending"     # cluster_seeds order (ADF/NeuronFair); EIDIG/MAFT use "random"
    objective = "proba"          # white-box gradient of each row's class probability ("proba") or loss
    direction_sign = -1.0        # -1: descend the objective (EIDIG), +1: ascend (ADF's loss)
    _parameter_constraints = {**Search._parameter_constraints, "n_seeds": [COUNT], "n_local": [STEPS],
                              "max_iter": [STEPS], "global_step": [POSITIVE], "local_step": [POSITIVE],
                              "c_num": [COUNT], "seed_selection": [Options(SEED_SELECTIONS)], "batch_size": [COUNT]}

    def __init__(self, n_seeds: int = 1000, n_local: int = 1000, max_iter: int = 10, global_step: float = 1.0,
                 local_step: float = 1.0, c_num: int = 4, seed_selection: str = "kmeans",
                 batch_size: int = 4096, *, max_time: float | None = None, max_tried: int | None = None,
                 max_found: int | None = None, random_state: int | None = None, progress: bool | None = None,
                 constraints="default", control=None):
        self.n_seeds = n_seeds
        self.n_local = n_local
        self.max_iter = max_iter
        self.global_step = global_step
        self.local_step = local_step
        self.c_num = c_num
        self.seed_selection = seed_selection
        self.batch_size = batch_size
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress, constraints=constraints, control=control)

    # ------------------------------------------------------------------ the parts a method may change
    def transformation(self, ctx):
        """Unit steps on the non-protected features (``fairnb.search.parts.transformations.UnitStep``)."""
        return UnitStep(ctx.domain)

    def gradient_source(self):
        """White-box ``input_gradient`` of each row's own predicted class (``objective``;
        ``fairnb.search.parts.gradients.Backprop``)."""
        return Backprop(self.objective)

    def _global_direction(self, G1: np.ndarray, G2: np.ndarray) -> np.ndarray:
        """Unit direction of a global step (protected columns are zeroed afterwards)."""
        return self.direction_sign * agreeing_signs(G1, G2)

    def _local_plan(self, G1: np.ndarray, G2: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Attribute probabilities and directions for the local moves (direction unused by "one")."""
        return reciprocal_probabilities(G1, G2, free), np.zeros_like(G1)

    def _local_candidates(self, ctx, step, X, plan, trace, t):
        """One attribute drawn by the probabilities, moved ``local_step`` up or down at random (ADF, EIDIG, MAFT)."""
        return step.random_step(X, plan[0], ctx.rng, size=self.local_step), np.ones(len(X), bool), trace

    # ------------------------------------------------------------------ the search
    def select_seeds(self, seeds, should_stop=None, domain=None) -> np.ndarray | None:
        """The ``n_seeds`` global seeds chosen from ``seeds`` (``seed_selection``); None when
        ``should_stop()`` said True while K-Means ran."""
        if seeds is None or not len(seeds):
            raise ValueError(f"{self.name} starts from seed inputs: pass seeds=... (e.g. the training inputs)")
        warn_if_few_seeds(self, self.n_seeds, len(seeds))
        if self.seed_selection == "as_given":
            return np.array(seeds[: self.n_seeds], dtype=float)
        state = 2019 if self.seed_order == "ascending" else self.random_state
        return cluster_seeds(seeds, self.n_seeds, c_num=self.c_num, order=self.seed_order, random_state=state,
                             should_stop=should_stop)

    def _begin_run(self, ctx):
        self._generated = GeneratedInputs(ctx.domain)

    def _check(self, ctx, X, phase, seed_ids, trace, t):
        verdict = yield Batch(X, phase=phase, seed_ids=seed_ids)
        self._generated.add(verdict.X)
        return verdict

    def _walkers_found(self, ctx, walkers):
        ctx.result.tally(global_idis=Distinct(ctx.domain.key(walkers.X, self.dedup)))

    def _tally(self, ctx):
        # GSR: unique IDIs per distinct generated input
        generated = self._generated
        ctx.result.tally(generated=Distinct(generated.codes("eidig")), generated_adf=Distinct(generated.codes("adf")),
                         gsr=Ratio("found", "generated"), local_steps=Count(self._stats["local_steps"]),
                         gradient_rows=Count(self._stats["gradient_rows"]), model_rows=Count(ctx.oracle.rows_queried))

    def _global_chunk(self, domain) -> int:
        """Seeds that go through the global phase together: as many as keep their working state (the
        protected variants, the position, both momentum gradients, the step: ``GLOBAL_STATE_COPIES``
        rows of ``d`` floats each besides the variants) within ``fairnb.oracle.MEMORY_BUDGET``."""
        m = len(domain.protected_values)
        return rows_per_call(8 * domain.n_features * (m + GLOBAL_STATE_COPIES))

"""ExpGA on texts (Fan, Wei, Jin, Yang, Liu, ICSE 2022; the authors' ``expga_nlp``): seeds chosen by LIME's text
explanation, then a genetic algorithm of word substitutions per seed. ``docs/methods/expga.md`` §7 is the digest.

**Seeds.** The candidates are the given texts up to the ``n_candidates``-th that holds a term of the protected
group(s) (the others among them are skipped, "no protected term"). Each is explained with LIME's text explainer
(``fairnb.search.parts.attribution.lime_text_coefficients``: words masked by an unknown word, ``lime_samples``
samples); a candidate is a seed when one of its protected terms ranks within its first
``min(top_words, ceil(rank_threshold * words))`` words, until ``n_seeds`` are found. The paper asks ConceptNet
whether an important word is related to the sensitive concept; the domain's own term groups, which define the
pairs fairnb reports, stand in for it (the digest says why this is a fair replacement). The seeds are checked as
they are (the "global" phase).

**Genetic algorithm** (per seed, all seeds batched; the "local" phase). A *perturbation* of the seed draws
``perturb_num`` positions (with replacement, probability proportional to each word's number of substitutes,
never a protected term), gives each a random substitute (the domain's ``candidates``: embedding neighbours) in
``perturb_num`` tries, and keeps the try that lowers the probability of the seed's class most (the seed itself
when none lowers it). The population is ``pop_size`` perturbations of the seed. Each of ``n_local`` generations:
the individuals that keep at least ``min_kept`` of the seed's words (the artifact's BLEU-1 >= 0.8 gate) are
checked; fitness is ``max |p(x) - p(x')|`` on the seed's class over the protected variants (0 for the others);
a seed whose fitness sums to 0 ends; roulette-wheel selection; the individual with the lowest probability of the
seed's class is kept (elitism); ``pop_size - 1`` children by uniform crossover of two random parents; each child
replaced by a fresh perturbation of the seed with probability ``mutation_rate``. Only ``predict_proba`` is used.

Every substitute is a neighbour of the seed's own word at that position, so a pair's ``chain`` (``result.details``)
lists the positions where it differs from its seed; its ``saliency`` is the seed's LIME explanation (|coefficient|
per token).

Example
-------
>>> from fairnb.text import Vocabulary
>>> from fairnb.domains import TextDomain
>>> words = ["the", "muslim", "christian", "cook", "chef", "is", "kind", "nice", "good"]
>>> vocab = Vocabulary.build([words])
>>> E = np.random.default_rng(0).normal(size=(len(vocab), 4))
>>> dom = TextDomain.with_embedding_neighbours(vocab, E, {"religion": ["muslim", "christian"]}, 6, k=3)
>>> biased = lambda texts: [0.9 if "muslim" in t and "kind" not in t else 0.1 for t in texts]
>>> r = ExpGAText(lime_samples=200, n_local=5, random_state=0).run(biased, dom, seeds=["the muslim cook is kind"])
>>> r.extras["seeds_explained"], r.count() > 0
(1, True)
"""
from __future__ import annotations

from math import ceil
from numbers import Real

import numpy as np

from ...domains.base import require_capabilities
from ...params import COUNT, SHARE, STEPS, Interval
from ...results import Count, Distinct
from ..parts.attribution import lime_text_coefficients
from ..engine.estimator import Search
from ..engine.types import Batch
from .adf_text import TextSubstitutionSearch, counterparts, pair_details, texts_up_to, use_text_seeds

NOT_EXPLAINED = "its explanation ranks none of its protected terms among its most important words"
NOT_NEEDED = "the population was full before it was explained"
NOT_REACHED = "the search ended before it was explained"
ROWS_PER_CALL = 65536       # perturbation tries per model call


class ExpGAText(Search):
    """ExpGA on texts: LIME-selected seed texts evolved by a genetic algorithm of word substitutions.

    Parameters
    ----------
    n_candidates : texts with a protected term explained at most (the artifact's ``max_global``, 1000).
    n_seeds : seeds kept at most.
    rank_threshold, top_words : a candidate is a seed when a protected term ranks within its first
        ``min(top_words, ceil(rank_threshold * words))`` words (the artifact: the top 20; 0.5 as tabular ExpGA,
        so that a short text is not a seed whatever its explanation).
    lime_samples : LIME samples per explanation (LIME's default 5000).
    n_local : generations per seed (the artifact's ``max_local``, 20).
    pop_size : individuals per seed (10).
    perturb_num : positions drawn per perturbation, and tries per perturbation (10); at most as many words as
        ``min_kept`` lets change (at least one).
    mutation_rate : probability that a child is replaced by a fresh perturbation of the seed (0.4).
    min_kept : share of the seed's words an individual must keep to be checked (the artifact's BLEU-1 >= 0.8).
    batch_size : candidates explained between budget checks.
    """

    name = "expga_text"
    domain_needs = ("substitutions",)
    dedup = "adf"
    _parameter_constraints = {**Search._parameter_constraints, "n_candidates": [COUNT], "n_seeds": [COUNT],
                              "rank_threshold": [Interval(Real, 0, 1, closed="right")], "top_words": [COUNT],
                              "lime_samples": [COUNT], "n_local": [STEPS], "pop_size": [COUNT],
                              "perturb_num": [COUNT], "mutation_rate": [SHARE], "min_kept": [SHARE],
                              "batch_size": [COUNT]}

    def __init__(self, n_candidates: int = 1000, n_seeds: int = 1000, rank_threshold: float = 0.5,
                 top_words: int = 20, lime_samples: int = 5000, n_local: int = 20, pop_size: int = 10,
                 perturb_num: int = 10, mutation_rate: float = 0.4, min_kept: float = 0.8, batch_size: int = 100, *,
                 max_time: float | None = None, max_tried: int | None = None, max_found: int | None = None,
                 random_state: int | None = None, progress: bool | None = None, constraints="default", control=None):
        self.n_candidates, self.n_seeds = n_candidates, n_seeds
        self.rank_threshold, self.top_words, self.lime_samples = rank_threshold, top_words, lime_samples
        self.n_local, self.pop_size, self.perturb_num = n_local, pop_size, perturb_num
        self.mutation_rate, self.min_kept, self.batch_size = mutation_rate, min_kept, batch_size
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress, constraints=constraints, control=control)

    _served = TextSubstitutionSearch._served        # the model and the control model as the text searches serve them

    def _checked(self, model, domain, seeds):
        require_capabilities(self.name, domain, self.domain_needs)
        return super()._checked(self._served(model, domain), domain, seeds)

    def select_seeds(self, seeds, should_stop=None, domain=None) -> np.ndarray:
        """The texts ``seeds`` as ids, up to the ``n_candidates``-th that holds a protected term."""
        return texts_up_to(domain, seeds, self.n_candidates, self.name)

    # ------------------------------------------------------------------ seeds
    def _explained_seeds(self, ctx, texts, rows) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, saliency)``: the ``rows`` of ``texts`` whose explanation ranks a protected term within the
        threshold, in order, at most ``n_seeds``, and their |LIME coefficient| per token; the other rows are
        marked skipped."""
        dom = ctx.domain
        kept, saliency, end = [], [], 0
        while end < len(rows) and len(kept) < self.n_seeds and ctx.engine.out_of_budget() is None:
            ids = rows[end:end + self.batch_size]
            end += len(ids)
            X = texts[ids]
            weight = np.abs(lime_text_coefficients(ctx.oracle.predict_proba, X, rng=ctx.rng,
                                                    n_samples=self.lime_samples))
            words = X != 0
            rank = np.argsort(np.argsort(np.where(words, -weight, np.inf), axis=1, kind="stable"), axis=1)
            top = np.minimum(self.top_words, np.ceil(self.rank_threshold * words.sum(1)))
            seed = (dom.sensitive_mask(X) & (rank < top[:, None])).any(axis=1)
            kept.extend(ids[seed])
            saliency.extend(weight[seed])
        kept, saliency = np.array(kept[:self.n_seeds], dtype=int), np.array(saliency[:self.n_seeds])
        explained = rows[:end]
        ctx.seed_outcome(np.setdiff1d(explained, kept), "skipped", reason=NOT_EXPLAINED)
        ctx.seed_outcome(rows[end:], "skipped", reason=NOT_NEEDED if len(kept) >= self.n_seeds else NOT_REACHED)
        ctx.result.tally(explained=Count(end), seeds_explained=Count(len(kept)))
        return kept, saliency.reshape(len(kept), texts.shape[1])

    # ------------------------------------------------------------------ the genetic algorithm
    def _generate(self, ctx):
        texts, rows = use_text_seeds(ctx, self._selected_seeds(ctx))
        ids, saliency = self._explained_seeds(ctx, texts, rows)
        seen, found = _Distinct(ctx.domain), _Distinct(ctx.domain)
        idis = {"global": 0, "local": 0}
        try:
            if not len(ids):
                return
            S = texts[ids]
            verdict = yield Batch(S.astype(float), phase="global", seed_ids=ids, info=self._info(ctx, S, saliency))
            seen.add(S)
            idis["global"] += found.add(S[verdict.discriminatory])
            ga = _Population(self, ctx, S, verdict.proba)
            pop = ga.perturb(np.repeat(np.arange(len(S)), self.pop_size))
            for generation in range(1, self.n_local + 1):
                checked = np.flatnonzero(ga.alive[ga.group] & ga.admits(pop))
                fitness, p_seed_class = np.zeros(len(pop)), np.full(len(pop), np.inf)
                if len(checked):
                    X = pop[checked]
                    verdict = yield Batch(X.astype(float), phase="local", seed_ids=ids[ga.group[checked]],
                                          info=self._info(ctx, S[ga.group[checked]], saliency[ga.group[checked]],
                                                          generation))
                    seen.add(X)
                    idis["local"] += found.add(X[verdict.discriminatory])
                    fitness[checked], p_seed_class[checked] = ga.fitness(verdict, checked)
                ga.alive &= fitness.reshape(len(S), self.pop_size).sum(1) > 0
                if not ga.alive.any() or generation == self.n_local:
                    break
                pop = ga.breed(pop, fitness, p_seed_class)
        finally:
            ctx.result.tally(generated=Distinct(seen.keys), global_idis=Count(idis["global"]),
                             local_idis=Count(idis["local"]))

    def _info(self, ctx, seeds, saliency, generation: int = 0):
        """The details of the discriminatory rows of a batch whose seeds are ``seeds``."""
        def details(verdict, rows):
            X = ctx.domain.ids(verdict.X[rows])
            S = seeds[rows]
            cand = ctx.domain.candidates(S)
            k = cand.shape[2]
            chains = [tuple(("local", generation, int(p), int(S[i, p]), int(X[i, p]), cand[i, p].tolist(),
                             [float("nan")] * k) for p in np.flatnonzero(X[i] != S[i])) for i in range(len(rows))]
            return pair_details(ctx.domain, getattr(ctx.model, "embedding_matrix", None), X,
                                counterparts(ctx.domain, verdict, rows), S, chains, saliency[rows])
        return details


class _Distinct:
    """Distinct texts (``adf`` keys), added batch by batch; ``add`` returns how many were new."""

    def __init__(self, domain):
        from ...counting import UniqueCounter

        self.keys = UniqueCounter(domain, "adf")

    def add(self, X) -> int:
        return int(self.keys.add(X).sum())


class _Population:
    """The per-seed genetic algorithm's state and operators (see the module docstring): ``group`` is the seed
    of each individual, ``alive`` the seeds still evolving."""

    def __init__(self, search: ExpGAText, ctx, seeds, proba):
        self.search, self.ctx, self.rng = search, ctx, ctx.rng
        self.seeds = ctx.domain.ids(seeds)
        self.target = proba.argmax(axis=1)                          # the seed's class
        self.p_seed = proba[np.arange(len(seeds)), self.target]
        self.cand = ctx.domain.candidates(self.seeds)               # (S, L, k)
        n_cand = (self.cand >= 0).sum(axis=2)
        total = n_cand.sum(axis=1, keepdims=True)
        self.where = np.where(total > 0, n_cand / np.maximum(total, 1), 0.0)      # position probabilities
        self.words = (self.seeds != 0).sum(axis=1)
        most = np.floor((1 - search.min_kept) * self.words + 1e-9).astype(int)
        self.changes = np.clip(most, 1, search.perturb_num)         # positions drawn per perturbation
        self.group = np.repeat(np.arange(len(seeds)), search.pop_size)
        self.alive = total[:, 0] > 0

    def admits(self, X) -> np.ndarray:
        """The individuals that keep at least ``min_kept`` of their seed's words."""
        changed = (X != self.seeds[self.group]).sum(axis=1)
        return 1 - changed / np.maximum(self.words[self.group], 1) >= self.search.min_kept - 1e-9

    def perturb(self, of) -> np.ndarray:
        """One perturbation of the seed ``of[i]`` per row: ``perturb_num`` tries, each drawing positions with
        the seed's probabilities and a random substitute for each; the try that lowers the probability of the
        seed's class most, else the seed."""
        T, L = self.search.perturb_num, self.seeds.shape[1]
        n = len(of)
        tries = np.repeat(self.seeds[of][:, None, :], T, axis=1)                 # (n, T, L)
        c = np.cumsum(self.where[of], axis=1)                                    # (n, L)
        u = self.rng.random((n, T, T))
        pos = np.minimum((c[:, None, None, :] < u[..., None] * c[:, None, None, -1:]).sum(-1), L - 1)  # (n, T, T)
        use = np.broadcast_to(np.arange(T)[None, None, :] < self.changes[of][:, None, None], (n, T, T)).copy()
        cand = self.cand[of[:, None, None], pos]                                 # (n, T, T, k)
        valid = cand >= 0
        pick = np.where(valid, self.rng.random(cand.shape), -1.0).argmax(axis=-1)
        new = np.take_along_axis(cand, pick[..., None], axis=-1)[..., 0]
        use &= valid.any(axis=-1)
        for j in range(T):                                                       # later draws overwrite earlier
            r, t = np.nonzero(use[:, :, j])
            tries[r, t, pos[r, t, j]] = new[r, t, j]
        flat = tries.reshape(n * T, L)
        P = np.concatenate([self.ctx.oracle.predict_proba(flat[s:s + ROWS_PER_CALL])
                            for s in range(0, len(flat), ROWS_PER_CALL)]) if len(flat) else np.zeros((0, 2))
        drop = self.p_seed[of][:, None] - P[np.arange(n * T), np.repeat(self.target[of], T)].reshape(n, T)
        best = drop.argmax(axis=1)
        return np.where((drop[np.arange(n), best] > 0)[:, None], tries[np.arange(n), best], self.seeds[of])

    def fitness(self, verdict, rows) -> tuple[np.ndarray, np.ndarray]:
        """``max |p(x) - p(x')|`` on the seed's class over the protected variants, and ``p(x)`` on it."""
        t = self.target[self.group[rows]]
        every = np.arange(len(rows))
        p = verdict.proba[every, t]
        gap = np.abs(verdict.variant_proba[every, :, t] - p[:, None]).max(axis=1)
        return gap, p

    def breed(self, pop, fitness, p_seed_class) -> np.ndarray:
        """Roulette-wheel selection within each seed's individuals, the elite (lowest probability of the seed's
        class, before selection), ``pop_size - 1`` uniform crossovers, mutation by a fresh perturbation."""
        S, P, L = len(self.seeds), self.search.pop_size, pop.shape[1]
        F = fitness.reshape(S, P)
        base = np.arange(S)[:, None] * P
        c = np.cumsum(F, axis=1)
        picks = np.minimum((c[:, None, :] < self.rng.random((S, P, 1)) * c[:, -1:, None]).sum(-1), P - 1)
        selected = pop[(base + picks).ravel()].reshape(S, P, L)
        elite = pop[base[:, 0] + p_seed_class.reshape(S, P).argmin(axis=1)]
        a, b = self.rng.integers(0, P, (2, S, P - 1))
        mix = self.rng.random((S, P - 1, L)) < 0.5
        children = np.where(mix, np.take_along_axis(selected, a[..., None], 1), np.take_along_axis(selected, b[..., None], 1))
        children = children.reshape(-1, L)
        group = np.repeat(np.arange(S), P - 1)
        mutate = np.flatnonzero((self.rng.random(len(children)) < self.search.mutation_rate) & self.alive[group])
        if len(mutate):
            children[mutate] = self.perturb(group[mutate])
        return np.concatenate([elite[:, None, :], children.reshape(S, P - 1, L)], axis=1).reshape(-1, L)

"""ADF's text search (Zhang et al., TSE; digest A1, A2, A5-A12, §7.2): identity-term discrimination in text
classifiers by word substitution, on the batched engine.

A text with a term of the protected group (e.g. "muslim" for ``"religion"``) is discriminatory when
replacing that term by another of its group changes the model's decision (``fairnb.domains.TextDomain``'s
variants). The search has two phases:

**Global** (Alg 1): the seeds are the given texts that hold a term of the group (the first ``n_seeds``; the
texts without one given among them are marked skipped, "no protected term", in ``result.seed_outcomes``).
Every seed is checked; the ones already discriminatory are the *raw* IDIs. Each other seed gets the
counterpart ``x'`` whose probability of ``x``'s decision differs most (Eq. 3), and one non-sensitive token
is substituted by one of its ``k`` nearest GloVe neighbours, chosen by the method:

=========  =================================================================================
method     substitution (``fairnb.search.parts.text_steps``)
=========  =================================================================================
adf_asc    position of largest ``||g_a - g'_a||_inf``, candidate by sign agreement with ``g_a``
asc        position of largest ``||g_a||_inf`` (plain attack on ``x``), same candidate rule
adf_hf     argmax over positions x candidates of ``|(g_a - g'_a) . (x_a - c)|``
hf         argmax of the first-order loss increase ``g_a . (c - x_a)`` (plain HotFlip)
rp         uniform position, uniform candidate (THEMIS/AEQUITAS idea; needs no gradient)
=========  =================================================================================

``g``, ``g'`` are the gradients of the cross-entropy (each text's own decision as target) w.r.t. the token
embeddings. Up to ``max_iter`` substitutions and ``max_iter + 1`` checks per seed.

**Local** (Alg 7, 8, 10): every distinct raw or global IDI starts a walk of ``n_local`` steps: a
position drawn with probability ``∝ 1 / (||g_a||_inf + ||g'_a||_inf)`` (``rp``: uniform), its token
replaced by a uniform choice among its neighbours, ``x'`` the last flipping variant seen. A step that
loses the pair sends the walk back to its local seed (``acceptance="reset"``, the default, as EIDIG's and
MAFT's re-implementations of ADF do). Alg 7 as printed keeps every step (``acceptance="all"``: one
cumulative walk), but on RedditBias that walk cannot give the paper's own numbers together: it succeeds on
37-61 % of its distinct texts and its first local IDI lies 1.4-2.1 tokens beyond the global one, where
Table VIII reports 87-95 % success and Fig. 8 vs Appendix A put the local IDIs 1.07 tokens (mean of the
16 rows) beyond the global ones; the reset walk gives 84-93 % and 0.93-0.98 (``benchmarks/results/text.md``).
``n_local=0`` runs the global phase only.

Substitutions never touch a sensitive position and never bring in a term of a protected group (the
domain's ``candidates`` exclude them), so a pair always differs exactly in its sensitive term.

**Batching.** All live seeds and all their variants go to the model in one call per step, and the
gradients of all ``x`` and ``x'`` in one call (the paper: one gradient per text, 0.45 s each). Local walkers
step together, ``batch_size`` at a time.

**Per-pair details** (``result.details(i)``): ``term``, ``term_counterpart``, ``group``, ``position`` (the
swapped sensitive position), ``saliency`` (per-token ``||g||_inf`` of the loss gradient at the state the
text was produced from; empty for raw IDIs and ``rp``), ``chain`` (the substitutions that separate the text
from its seed, each with the 10 candidates and their scores) and ``validity`` vs the seed (L0, L2, Jaccard,
BLEU-4, mean-embedding similarity; ``fairnb.text.metrics``).

Counting: distinct texts (``count("eidig")``) or distinct texts without their sensitive term
(``count("adf")``). ``result.extras`` holds the Table VIII numbers: ``raw_idis``, ``global_idis`` (from
non-discriminatory seeds), ``local_seeds``, ``local_idis``, ``local_generated`` (distinct local texts) and
``local_success_rate``.

Example
-------
>>> from fairnb.text import Vocabulary
>>> from fairnb.domains import TextDomain
>>> words = ["the", "muslim", "christian", "cook", "chef", "is", "kind", "nice"]
>>> vocab = Vocabulary.build([words])
>>> E = np.random.default_rng(0).normal(size=(len(vocab), 4))
>>> dom = TextDomain.with_embedding_neighbours(vocab, E, {"religion": ["muslim", "christian"]}, 5, k=3)
>>> biased = lambda texts: [0.9 if "muslim" in t else 0.1 for t in texts]       # a black box on strings
>>> r = TextRandom(n_local=5, random_state=0).run(biased, dom, seeds=["the muslim cook is kind"])
>>> r.extras["raw_idis"], r.count() > 1
(1, True)
"""
from __future__ import annotations

import json

import numpy as np

from ...domains.base import require_capabilities
from ...params import COUNT, STEPS, Options
from ...results import Count, Derived, Distinct, Ratio, seed_outcomes
from ..engine.estimator import Search
from ..engine.types import Batch
from ..parts.text_steps import (EPSILON, HF_SCORES, SIGN_CONVENTIONS, WordSwap, asc_step, hotflip_step,
                         local_probabilities, random_step, token_saliency)
from ..parts.acceptance import RULES
from .two_phase import TwoPhase

#: the outputs of recent distinct texts a subword model made for one search keeps (``SubwordTextModel(remember=)``)
REMEMBERED_ROWS = 20_000
NO_TERM = "no protected term"     # the reason a seed without a sensitive term is skipped (``result.seed_outcomes``)


def seeds_without_a_term(result) -> int:
    """The seeds skipped because they hold no term of the protected group(s) (``extras["skipped_seeds"]``)."""
    return seed_outcomes.skipped_for(result, NO_TERM)


def counterparts(domain, verdict, rows) -> np.ndarray:
    """The oracle's counterpart ids of the checked ``rows`` (those with a flipping variant)."""
    return domain.ids(np.array([verdict.variant_items[r][verdict.counterpart_index[r]] for r in rows]))


def supports_text_gradients(model) -> bool:
    """A white-box text model: ``embedding_gradient(ids, classes, of)`` and an ``embedding_matrix``."""
    return callable(getattr(model, "embedding_gradient", None)) and getattr(model, "embedding_matrix", None) is not None


def texts_up_to(domain, seeds, n: int, method: str) -> np.ndarray:
    """The texts ``seeds`` as ids, up to the ``n``-th that holds a term of the protected group(s) (a search
    skips the others among them); ValueError when none holds one."""
    if seeds is None or not len(seeds):
        raise ValueError(f"{method} starts from seed texts: pass seeds=[...] (strings or token-id rows)")
    ids = domain.ids(seeds)
    has = domain.sensitive_mask(ids).any(axis=1)
    if not has.any():
        raise ValueError(f"none of the {len(ids)} seeds holds a term of the protected group(s) "
                         f"{list(domain.protected)}; give texts that mention one (e.g. {domain.term_groups.all_terms[:3]})")
    return ids[: np.flatnonzero(has)[:n][-1] + 1]


def use_text_seeds(ctx, seeds) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, rows)``: the seed texts as ids, declared as the run's seeds, and the rows that hold a term of the
    protected group(s); the others are marked skipped (``NO_TERM``)."""
    seeds = ctx.domain.ids(seeds)
    ctx.use_seeds(seeds)
    has = ctx.domain.sensitive_mask(seeds).any(axis=1)
    ctx.seed_outcome(np.flatnonzero(~has), "skipped", reason=NO_TERM)
    ctx.result.tally(skipped_seeds=Derived(seeds_without_a_term))
    return seeds, np.flatnonzero(has)


def pair_details(domain, embedding, X, C, seeds, chains, saliency) -> list[str]:
    """The per-pair details of text pairs, as the compact JSON text ``Result`` keeps (plain Python values only):
    the swapped ``term``, the substitution ``chain`` from the ``seeds`` (``(phase, iteration, position, old,
    new, candidates, scores)`` each), the ``saliency`` per token and the ``validity`` vs the seed, measured in
    ``embedding`` (None: one-hot token vectors, as for a black box)."""
    from ...text import metrics

    tokens = domain.vocab.tokens
    pos, old, new = domain.swapped_terms(X, C)
    E, S, F = embedding, seeds, X
    if E is None:          # a black box: one-hot token vectors (L2 = sqrt(2 L0)), over the ids these texts use
        used = np.union1d(0, np.concatenate([seeds, X]))       # padding keeps id 0
        S, F, E = np.searchsorted(used, seeds), np.searchsorted(used, X), np.eye(len(used), dtype=np.float32)
    l0, l2, jsc = metrics.l0(S, F), metrics.l2(S, F, E), metrics.jaccard(S, F)
    bleu = metrics.bleu(S, F)
    ss = metrics.sentence_similarity(S, F, metrics.mean_embedding_encoder(E))
    out = []
    for i in range(len(X)):
        chain = [{"phase": ph, "iteration": int(it), "position": int(p), "old": tokens[o], "new": tokens[n_],
                  "candidates": [tokens[c] for c in cs if c >= 0],
                  "scores": [float(s) for s, c in zip(sc, cs) if c >= 0 and np.isfinite(s)]}
                 for ph, it, p, o, n_, cs, sc in chains[i]]
        out.append(json.dumps({
            "term": old[i], "term_counterpart": new[i], "group": domain.term_group(old[i]) or "",
            "position": int(pos[i]),
            "saliency": [float(s) for s in saliency[i]] if np.isfinite(saliency[i]).all() else [],
            "chain": chain,
            "validity": {"l0": int(l0[i]), "l2": float(l2[i]), "jaccard": float(jsc[i]), "bleu": float(bleu[i]),
                         "similarity": float(ss[i])}}, separators=(",", ":")))
    return out


class TextSubstitutionSearch(TwoPhase):
    """Base class of the text searches (see the module docstring): the two-phase skeleton
    (``fairnb.search.methods.two_phase.TwoPhase``) with the ``WordSwap`` transformation.

    Parameters
    ----------
    n_seeds : texts with a sensitive term to start from (the first ones given).
    max_iter : global substitutions per seed (``max_iter + 1`` checks).
    n_local : local steps per distinct raw or global IDI (0: global phase only).
    n_walkers : independent walkers per local seed, ``ceil(n_local / n_walkers)`` steps each (1: one walk of
        ``n_local`` steps, as the paper; more walkers step together, so the same budget takes fewer model
        calls, and stay closer to their seed).
    acceptance : after a local step that is not discriminatory, ``"reset"`` (default: back to its local seed,
        EIDIG's and MAFT's ADF), ``"all"`` (Alg 7 as printed: the walk goes on from there) or
        ``"metropolis"`` (ADF's tabular reference code: kept with probability ``e^-1``, else the walker steps
        back), as in ``fairnb.search.methods.adf.ADF``; see the module docstring for why ``"reset"`` is the default.
    batch_size : local walkers stepping together (each with all its variants in one model call).
    """

    name = "text"
    _parameter_constraints = {**Search._parameter_constraints, "n_seeds": [COUNT], "max_iter": [STEPS],
                              "n_local": [STEPS], "n_walkers": [COUNT], "acceptance": [Options(RULES)],
                              "batch_size": [COUNT]}
    domain_needs = ("substitutions",)
    dedup = "adf"
    counterpart_rule = "class"       # Eq. 3
    uses_gradients = True

    def __init__(self, n_seeds: int = 1000, max_iter: int = 10, n_local: int = 1000, n_walkers: int = 1,
                 acceptance: str = "reset", batch_size: int = 2048, *, max_time: float | None = None,
                 max_tried: int | None = None, max_found: int | None = None, random_state: int | None = None,
                 progress: bool | None = None, constraints="default", control=None):
        self.n_seeds = n_seeds
        self.max_iter = max_iter
        self.n_local = n_local
        self.n_walkers = n_walkers
        self.acceptance = acceptance
        self.batch_size = batch_size
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found,
                         random_state=random_state, progress=progress, constraints=constraints, control=control)

    # ------------------------------------------------------------------ the part a method chooses
    def _global_step(self, X, G, GC, cand, E, rng, gap):
        """``(position, choice, scores)`` of one global substitution per text (``fairnb.search.parts.text_steps``);
        ``gap`` is ``J(x) - J(x')`` per text (the loss w.r.t. ``x``'s decision)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the parts of the skeleton
    def transformation(self, ctx):
        return self._swap

    def _global_checks(self):
        return self.max_iter + 1

    def _local_steps(self):
        return -(-self.n_local // self.n_walkers)

    def _refresh_interval(self):
        return 0              # the local guidance comes from the gradients at every step

    def acceptance_rule(self):
        return RULES[self.acceptance]()

    def _pair_gradients(self, ctx, X, XC, PX, PC, *, rows, t, phase):
        """Loss gradients of ``x`` and ``x'`` w.r.t. their token embeddings, in one call."""
        if not self.uses_gradients:
            return None, None
        classes = np.concatenate([PX.argmax(axis=1), PC.argmax(axis=1)])
        G, _ = ctx.model.embedding_gradient(np.vstack([X, XC]).astype(np.int32), classes, of="loss")
        self._stats["gradient_rows"] += 2 * len(X)
        self._stats["gradient_calls"] += 1
        return np.asarray(G[:len(X)]), np.asarray(G[len(X):])

    def _global_candidates(self, ctx, step, X, G1, G2, PX, PC, trace, t):
        cand = step.candidates(X)
        every, y = np.arange(len(X)), PX.argmax(axis=1)
        gap = np.log(np.maximum(PC[every, y], EPSILON)) - np.log(np.maximum(PX[every, y], EPSILON))  # J(x) - J(x')
        pos, choice, scores = self._global_step(X, G1, G2, cand, step.embedding, ctx.rng, gap)
        X, trace = step.swap(X, pos, choice, scores, cand, trace, "global", t,
                             None if G1 is None else token_saliency(G1))
        return X, pos >= 0, trace           # a text without a usable position stops

    def _local_plan(self, G1, G2, movable):
        saliency = np.full(movable.shape, np.nan) if G1 is None else token_saliency(G1)
        return local_probabilities(G1, G2, movable), saliency

    def _local_candidates(self, ctx, step, X, plan, trace, t):
        prob, saliency = plan
        return step.random_step(X, prob, ctx.rng, trace, t, saliency if self.uses_gradients else None)

    # ------------------------------------------------------------------ running
    def _served(self, model, domain):
        from ...text.blackbox import wrap_text_model
        from ...text.subword import SubwordTextModel

        served = wrap_text_model(model, domain)
        if served is not model and isinstance(served, SubwordTextModel):    # made for this run: a transformer's
            served.remember = REMEMBERED_ROWS                               # row costs ms, a look-up microseconds
        return served

    def _checked(self, model, domain, seeds):
        require_capabilities(self.name, domain, self.domain_needs)
        model = self._served(model, domain)
        if self.uses_gradients and not supports_text_gradients(model):
            raise TypeError(f"{self.name} needs a white-box text model (gradients w.r.t. the token embeddings), which "
                            f"{model!r} is not: give a fairnb.text.KerasTextModel or a Keras model whose first layer is "
                            "an Embedding, or use method='rp', which needs no gradient")
        return super()._checked(model, domain, seeds)

    def select_seeds(self, seeds, should_stop=None, domain=None) -> np.ndarray:
        """The texts ``seeds`` as ids, up to the ``n_seeds``-th that holds a term of the protected group(s) (the
        search skips the others among them)."""
        return texts_up_to(domain, seeds, self.n_seeds, self.name)

    def _begin_run(self, ctx):
        self._local_seen = self._local_found = None
        self._local_seeds = []

    def _prepare_seeds(self, ctx, seeds):
        return use_text_seeds(ctx, seeds)

    def _begin(self, ctx, seeds):
        self._swap = WordSwap(ctx.domain, getattr(ctx.model, "embedding_matrix", None))

    def _walkers_found(self, ctx, walkers):
        if self.n_local and len(walkers):
            from ...counting import UniqueCounter

            self._local_seen = UniqueCounter(ctx.domain, "eidig")
            self._local_found = UniqueCounter(ctx.domain, "eidig")
            self._local_seeds = ctx.domain.key(walkers.X, self.dedup)

    def _tally(self, ctx):
        st = self._stats
        # local_success_rate: distinct local IDIs per distinct local text generated
        ctx.result.tally(raw_idis=Count(st["first_check"]), global_idis=Count(st["later"]),
                         local_seeds=Distinct(self._local_seeds), local_idis=Distinct(self._local_found or []),
                         local_generated=Distinct(self._local_seen or []), gradient_rows=Count(st["gradient_rows"]),
                         gradient_calls=Count(st["gradient_calls"]), model_rows=Count(ctx.oracle.rows_queried),
                         local_success_rate=Ratio("local_idis", "local_generated"))

    def _check(self, ctx, X, phase, seed_ids, trace, t):
        """One oracle call for ``X`` and all its variants; the engine asks for the details of the
        discriminatory rows only (``Batch.info`` as a callable)."""
        X = X.copy()

        def details(verdict, rows):
            return self._details(ctx, X[rows], counterparts(ctx.domain, verdict, rows), trace.origin[rows],
                                 [trace.chains[i] for i in rows], trace.saliency[rows])

        verdict = yield Batch(X.astype(float), phase=phase, seed_ids=seed_ids, info=details)
        if phase == "local":
            self._local_seen.add(X)
            self._local_found.add(X[verdict.discriminatory])
        return verdict

    def _details(self, ctx, X, C, seeds, chains, saliency) -> list[str]:
        return pair_details(ctx.domain, self._swap.embedding, X, C, seeds, chains, saliency)


class TextASCBase(TextSubstitutionSearch):
    """An ASC search (``adf``: ADF's counterpart-guided position, else the plain attack's);
    ``sign_convention``: ``"toward-boundary"`` (default: candidates whose direction agrees with the loss
    gradient, up the loss) or ``"papernot-literal"`` (the printed ``sign(x_a - c)``)."""

    adf = True
    _parameter_constraints = {**TextSubstitutionSearch._parameter_constraints,
                              "sign_convention": [Options(SIGN_CONVENTIONS)]}

    def __init__(self, n_seeds: int = 1000, max_iter: int = 10, n_local: int = 1000, n_walkers: int = 1,
                 acceptance: str = "reset", batch_size: int = 2048, sign_convention: str = "toward-boundary", *,
                 max_time: float | None = None,
                 max_tried: int | None = None, max_found: int | None = None, random_state: int | None = None,
                 progress: bool | None = None, constraints="default", control=None):
        self.sign_convention = sign_convention
        super().__init__(n_seeds=n_seeds, max_iter=max_iter, n_local=n_local, n_walkers=n_walkers,
                         acceptance=acceptance, batch_size=batch_size, max_time=max_time, max_tried=max_tried,
                         max_found=max_found, random_state=random_state, progress=progress,
                         constraints=constraints, control=control)

    def _global_step(self, X, G, GC, cand, E, rng, gap):
        return asc_step(X, G, GC if self.adf else None, cand, E, convention=self.sign_convention)


class ADFTextASC(TextASCBase):
    """ADF_ASC: ADF's global text search with ASC substitutions (Alg 5) and its local phase."""

    name = "adf_asc"


class TextASC(TextASCBase):
    """ASC: the plain adversarial attack on ``x`` alone (no counterpart guidance), then ADF's local phase."""

    name = "asc"
    adf = False


class TextHotFlipBase(TextSubstitutionSearch):
    """A HotFlip search (``adf``: ADF's pair score, else the plain attack's); ``hf_score`` (ADF only):
    ``"widen"`` (default: the substitution that widens the first-order gap ``J(x) - J(x')`` most, Eq. 4's
    intent) or ``"absolute"`` (the printed ``|(g_a - g'_a) . (x_a - c)|``, which may close the gap)."""

    adf = True
    _parameter_constraints = {**TextSubstitutionSearch._parameter_constraints, "hf_score": [Options(HF_SCORES)]}

    def __init__(self, n_seeds: int = 1000, max_iter: int = 10, n_local: int = 1000, n_walkers: int = 1,
                 acceptance: str = "reset", batch_size: int = 2048, hf_score: str = "widen", *,
                 max_time: float | None = None,
                 max_tried: int | None = None, max_found: int | None = None, random_state: int | None = None,
                 progress: bool | None = None, constraints="default", control=None):
        self.hf_score = hf_score
        super().__init__(n_seeds=n_seeds, max_iter=max_iter, n_local=n_local, n_walkers=n_walkers,
                         acceptance=acceptance, batch_size=batch_size, max_time=max_time, max_tried=max_tried,
                         max_found=max_found, random_state=random_state, progress=progress,
                         constraints=constraints, control=control)

    def _global_step(self, X, G, GC, cand, E, rng, gap):
        return hotflip_step(X, G, GC if self.adf else None, cand, E, gap=gap, score=self.hf_score)


class ADFTextHotFlip(TextHotFlipBase):
    """ADF_HF: ADF's global text search with HotFlip substitutions (Alg 6, bugs fixed) and its local phase."""

    name = "adf_hf"


class TextHotFlip(TextHotFlipBase):
    """HF: the plain HotFlip attack on ``x`` alone (largest first-order loss increase), then ADF's local phase."""

    name = "hf"
    adf = False


class TextRandom(TextSubstitutionSearch):
    """RP: random substitutions in both phases (ADF's text baseline); works on black-box text models."""

    name = "rp"
    uses_gradients = False

    def _global_step(self, X, G, GC, cand, E, rng, gap):
        return random_step(cand, rng)

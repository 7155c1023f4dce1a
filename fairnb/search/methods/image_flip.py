"""Global-phase searches on images (NeuronFair's image variant, Section 3.3; ADF and EIDIG adapted the same way).

Every seed image ``x`` (the paper uses all face images) first gets its attribute flip ``delta_senatt``
from the domain's flipper (``FGSMFlip``: BIM against the attribute classifier f_sa until f_sa's
prediction flips; ``ExactFlip``: the re-rendered change). Seeds whose flip fails are not searched:
``result.seed_outcomes`` marks them skipped ("flip failed"), ``extras["flip_failed"]`` counts them. The
flip stays fixed while the search moves the seed by ``delta_bias``; the pair checked at every step is

    < x + delta_bias,  x + delta_bias + delta_senatt >    (both clipped to [0, 1])

and it is an IDI when the model's decisions differ (each batch carries these counterparts as its
``variants``, so the engine's oracle uses exactly them). At most one IDI per seed: a seed stops at its first (global phase only,
as in the paper: local image IDIs "differ in only a few pixels").

The update is the tabular method's global step with the image changes of the paper: the gradients
``g`` at the input and ``g'`` at its counterpart (with the method's momentum), a direction from them,
``x <- clip(x + global_step * direction, 0, 1)``, ``max_iter = 40`` updates (41 checks for NeuronFair
and ADF, 40 for EIDIG). The paper removes NeuronFair's ``sign``: the direction is ``g + g'`` (raw,
unsigned); ADF and EIDIG are adapted the same way, each keeping its own gradient source and agreement
rule but with magnitudes: ADF ``g + g'`` where the loss gradients agree in sign (ascent), EIDIG
``-(g + g')`` where the probability gradients agree (descent, momentum 0.5). ``signed=True`` gives
the tabular rules (unit sign steps of ``global_step`` per pixel) instead. NeuronFair's gradient is that
of its dynamic loss on the most biased layer, found by Algorithm 1 on the pairs ``<x, x + delta_senatt>``
of the seeds (convolution outputs flattened): ``result.extras`` holds the per-layer AUC, ``T_d`` and
the biased neurons, as in the tabular search.

Every step is batched: one oracle call for all live seeds and their counterparts, one gradient call for
both. Per pair the Result keeps (``result.details(i)``): the flip's BIM ``steps``, budget ``eps`` and the
``l2`` / ``linf`` norms of the effective ``delta_senatt``, ``flip_ok``, the search ``iteration``, the
``bias_l2`` norm of ``delta_bias``, f_sa's probability of attribute value 1 on the input and the
counterpart (``sa_p``, ``sa_p_counterpart``) and ``sa_disagrees``: whether f_sa still sees different
attributes at the end. ``extras["strict_idis"]`` counts the pairs where it does (the digest's stricter
count), ``extras["gsr"]`` the IDIs per distinct generated image.

Example (hand-built numpy models on 2x2 RGB images: f_sa and the "detector" both read the red channel,
so the flip that f_sa sees also moves the detector: a planted bias)
-------
>>> import numpy as np
>>> from fairnb.domains import ImageDomain
>>> from fairnb.images import FGSMFlip
>>> from fairnb.models import NumpyMLP
>>> red = np.zeros((12, 1)); red[0::3] = 1.0                      # weights on the flattened red pixels
>>> f_sa = NumpyMLP([red * 4], [np.array([-8.0])])                # attribute = "much red"
>>> detector = NumpyMLP([red * 3], [np.array([-6.4])])            # face = "much red" too
>>> dom = ImageDomain((2, 2, 3), FGSMFlip(step=0.05, attribute_model=f_sa), attribute="tint")
>>> seeds = np.random.default_rng(0).uniform(0.2, 0.5, (20, 2, 2, 3))
>>> r = EIDIGImage(signed=True, global_step=0.02, random_state=0).run(detector, dom, seeds=seeds)
>>> r.count() > 0, r.extras["flip_success_rate"]
(True, 1.0)
"""
from __future__ import annotations

import warnings

import numpy as np

from ...counting import UniqueCounter
from ...oracle import rows_per_call
from ...params import COUNT, POSITIVE, SHARE, STEPS
from ...results import Count, Derived, Distinct, PerShard, Ratio, Same, seed_outcomes
from ..parts.biased_neurons import interpret_differences, pair_activation_differences
from ..engine.estimator import Search
from ..engine.types import Batch
from .neuronfair import DynamicLoss, NeuronFair, use_interpretation
from ..parts.gradients import Backprop, ascend_agreeing, descend_agreeing, sign_of_sum
from ..parts.transformations import PixelStep
from .two_phase import TwoPhase

IMAGE_STATE_COPIES = 16   # float64 copies of a seed image alive at once in a global step (tracemalloc: ~17 at 640 seeds)

FLIP_FAILED = "flip failed"     # the reason a seed whose flip failed is skipped (``result.seed_outcomes``)
#: the constraints of the parameters every image search has
IMAGE_CONSTRAINTS = {"n_seeds": [None, COUNT], "max_iter": [STEPS], "global_step": [POSITIVE], "signed": [bool],
                     "batch_size": [COUNT]}


class ImageFlipSearch(TwoPhase):
    """The global phase on images: the two-phase skeleton (``fairnb.search.methods.two_phase.TwoPhase``) with the
    ``PixelStep`` transformation and no local phase (see the module docstring). A recipe (``ADFImage``,
    ``EIDIGImage``, ``NeuronFairImage``, ``ZeroOrderImage``) names the tabular method's parts it runs with: its
    gradient source (``gradient_source()``, ``fairnb.search.parts.gradients``), its direction ``rule`` (a function of the
    gradients at the images and their counterparts), ``extra_check`` (1: a seed is checked once more after its
    last update, as ADF and NeuronFair do) and its momentum (``_decays``).

    Its ``__init__`` holds the parameters every image search has; a recipe's lists these and its own."""

    domain_needs = ()
    dedup = "eidig"
    needs_gradients = True
    rule = staticmethod(descend_agreeing)
    extra_check = 0
    keeps_global_pairs = False    # no walks: holding every pair (image, twin, trace) until the end cost 4 images a pair
    _parameter_constraints = {**Search._parameter_constraints, **IMAGE_CONSTRAINTS}

    def __init__(self, n_seeds: int | None = None, max_iter: int = 40, global_step: float = 0.15,
                 signed: bool = False, batch_size: int = 1000, *, max_time: float | None = None,
                 max_tried: int | None = None, max_found: int | None = None, random_state: int | None = None,
                 progress: bool | None = None, constraints="default", control=None):
        self.n_seeds = n_seeds
        self.max_iter = max_iter
        self.global_step = global_step
        self.signed = signed
        self.batch_size = batch_size
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress, constraints=constraints, control=control)

    def _check_image_domain(self, domain, model):
        if getattr(domain, "kind", None) != "image" or not callable(getattr(domain, "flip", None)):
            raise TypeError(f"{self.name} searches images: pass a fairnb.domains.ImageDomain, got {type(domain).__name__}"
                            f" (for tables use {self.name.replace('_image', '')!r})")
        fitted_on = getattr(domain.flipper, "fitted_on", None)
        if fitted_on is not None and fitted_on(model) is False:
            warnings.warn(f"the domain's {type(domain.flipper).__name__} was fitted on another detector: its attribute "
                          "classifier f_sa reads that detector's features, not this model's (NeuronFair builds f_sa on "
                          "the trunk of the model it tests); refit it on this model, unless you compare models under "
                          "one attribute measure on purpose", stacklevel=4)

    def _global_direction(self, G1, G2):
        rule = self.rule(G1, G2)       # the tabular method's (signed) direction
        return rule if self.signed else rule * np.abs(G1 + G2)

    def select_seeds(self, seeds, should_stop=None, domain=None) -> np.ndarray:
        """The first ``n_seeds`` seed images (all of them when ``n_seeds`` is None)."""
        if seeds is None or not len(seeds):
            raise ValueError(f"{self.name} starts from seed images: pass seeds=... (e.g. the face images)")
        seeds = seeds if self.n_seeds is None else seeds[: self.n_seeds]
        lacking = domain.without_attribute(seeds) if hasattr(domain, "without_attribute") else ()
        if len(lacking):
            raise ValueError(f"seeds: {len(lacking)} of {len(seeds)} images (e.g. {lacking[:5].tolist()}) are images of "
                             f"the data set {domain.data.name!r} with no value of {domain.attribute!r} (non-faces?), "
                             f"which no flip can change; pass only those with one, e.g. data.X[data.attribute >= 0]")
        return seeds

    def _begin_pairs(self, ctx, seeds, ok) -> None:
        """Called once with the seeds and the rows ``ok`` whose flip succeeded (NeuronFair interprets the model on
        some of their pairs, ``self._flip.X_flipped`` their twins): a method converts only the rows it reads."""

    # ------------------------------------------------------------------ the parts of the two-phase skeleton
    def transformation(self, ctx):
        return self._step

    def _global_checks(self):
        return self.max_iter + self.extra_check

    def _local_steps(self):
        return 0                # global phase only, as in the paper

    def _global_chunk(self, domain):
        """Seeds stepping together: ``batch_size``, fewer where their working state (``IMAGE_STATE_COPIES``
        float64 copies of each image: position, flip, counterpart, gradients, the checked pair) would pass
        ``fairnb.oracle.MEMORY_BUDGET`` (170 for 32 x 32 colour images, about 256 MiB held at once for 640)."""
        return min(self.batch_size, rows_per_call(8 * domain.n_features * IMAGE_STATE_COPIES))

    def _begin_run(self, ctx):
        self._check_image_domain(ctx.domain, ctx.model)
        self._generated = UniqueCounter(ctx.domain, "eidig")

    def _prepare_seeds(self, ctx, seeds):
        """Flip every seed; those whose flip failed are skipped."""
        dom, result = ctx.domain, ctx.result
        seeds = ctx.use_seeds(seeds)
        flip = self._flip = dom.flip(seeds)
        result.extras["flip_success_rate"] = round(flip.success_rate, 6)
        ctx.seed_outcome(np.flatnonzero(~flip.success), "skipped", reason=FLIP_FAILED)
        result.tally(flip_failed=Derived(flips_failed), flip=PerShard(flip.summary()))
        accuracy = getattr(dom.flipper, "accuracy_", None)
        if accuracy is not None:
            result.tally(f_sa_accuracy=Same(round(float(accuracy), 6)))
        self._step = PixelStep(seeds, flip.X_flipped, ctx.project)
        return seeds, np.flatnonzero(flip.success)

    def _begin(self, ctx, seeds):
        ok = np.flatnonzero(self._flip.success)
        if len(ok):
            self._begin_pairs(ctx, seeds, ok)

    def _check(self, ctx, X, phase, seed_ids, trace, t):
        """The images and their counterparts (``Batch.variants``), with their details."""
        C = self._step.counterpart(X, trace)
        verdict = yield Batch(X, phase=phase, seed_ids=seed_ids, variants=np.stack([X, C], axis=1),
                              info=self._details(ctx, X, C, trace.seed, seed_ids, self._flip, t))
        self._generated.add(X)
        return verdict

    def _walkers_found(self, ctx, walkers):
        """Nothing: the pairs the engine records are the global IDIs (``global_idis``)."""

    def _tally(self, ctx):
        # the counts of the pairs kept: global_idis, strict_idis (f_sa still disagrees) and gsr (per distinct
        # generated image)
        ctx.result.tally(generated=Distinct(self._generated), gradient_rows=Count(self._stats["gradient_rows"]),
                         model_rows=Count(ctx.oracle.rows_queried), global_idis=Derived(len),
                         strict_idis=Derived(strict_idis), gsr=Ratio("found", "generated"))

    @classmethod
    def _details(cls, ctx, X, C, S, ids, flip, t):
        """``Batch.info`` for one step: the engine asks for the discriminatory rows only, so f_sa runs on
        just those pairs."""
        def info(_verdict, rows):
            found = cls._pair_info(X[rows], C[rows], S[rows], ids[rows], flip, t)
            cls._attribute_view(ctx, X[rows], C[rows], found)
            return found

        return info

    @staticmethod
    def _pair_info(X, C, S, ids, flip, t) -> list[dict]:
        """The per-pair details of a batch (see the module docstring) but f_sa's view (``_attribute_view``)."""
        n = len(X)
        delta = (C - X).reshape(n, -1)
        l2, linf = np.sqrt((delta ** 2).sum(axis=1)), np.abs(delta).max(axis=1, initial=0.0)
        bias = np.sqrt(((X - S).reshape(n, -1) ** 2).sum(axis=1))
        return [{"steps": int(flip.steps[i]), "eps": float(flip.eps[i]), "l2": float(l2[k]), "linf": float(linf[k]),
                 "flip_ok": bool(flip.success[i]), "iteration": int(t), "bias_l2": float(bias[k]),
                 "sa_p": None, "sa_p_counterpart": None, "sa_disagrees": None} for k, i in enumerate(ids)]

    @staticmethod
    def _attribute_view(ctx, X, C, infos) -> None:
        """f_sa's probability of attribute value 1 on the inputs ``X`` and counterparts ``C`` (one call for
        both), written into their details ``infos``; nothing without an f_sa."""
        sa = ctx.domain.attribute_model
        if sa is None or not len(X):
            return
        P = np.asarray(sa.predict_proba(np.concatenate([X, C]).astype(np.float32)), dtype=float)
        n = len(X)
        for k, info in enumerate(infos):
            info.update(sa_p=float(P[k, -1]), sa_p_counterpart=float(P[n + k, -1]),
                        sa_disagrees=bool(P[k].argmax() != P[n + k].argmax()))


class ADFImage(ImageFlipSearch):
    """ADF adapted to images like NeuronFair's image variant (see the module docstring): loss gradients,
    ascent where they agree, ``max_iter + 1`` checks; parameters as ``ImageFlipSearch``."""

    name = "adf_image"
    rule = staticmethod(ascend_agreeing)
    extra_check = 1

    def gradient_source(self):
        return Backprop("loss")


class EIDIGImage(ImageFlipSearch):
    """EIDIG adapted to images like NeuronFair's image variant (see the module docstring): class-probability
    gradients with momentum ``decay`` (0.5), descent where they agree; the parameters of ``ImageFlipSearch`` and
    ``decay``."""

    name = "eidig_image"
    local_pair = "random"
    _parameter_constraints = {**ImageFlipSearch._parameter_constraints, "decay": [SHARE]}

    def __init__(self, n_seeds: int | None = None, max_iter: int = 40, decay: float = 0.5, global_step: float = 0.15,
                 signed: bool = False, batch_size: int = 1000, *, max_time: float | None = None,
                 max_tried: int | None = None, max_found: int | None = None, random_state: int | None = None,
                 progress: bool | None = None, constraints="default", control=None):
        self.decay = decay
        super().__init__(n_seeds=n_seeds, max_iter=max_iter, global_step=global_step, signed=signed,
                         batch_size=batch_size, max_time=max_time, max_tried=max_tried, max_found=max_found,
                         random_state=random_state, progress=progress, constraints=constraints, control=control)

    def gradient_source(self):
        return Backprop("proba")

    def _decays(self):
        return self.decay, 0.0


class NeuronFairImage(ImageFlipSearch):
    """NeuronFair's image variant (global phase, unsigned dynamic-loss gradients, step 0.15).

    Parameters: ``n_seeds`` (None: every seed given), ``max_iter`` updates per seed, ``global_step``,
    ``momentum_global``, ``r_step_global``, ``random_share``, ``interpret_rows`` (flipped seeds that form
    the normal pairs of the interpretation), ``layer`` (force the biased layer), ``signed`` (the tabular
    ``sign``), ``batch_size`` (seeds stepping together, at most: fewer for large images, within
    ``fairnb.oracle.MEMORY_BUDGET``), and the budgets of every search. Sharded on a Dask cluster (``client=``),
    each shard interprets the model on the flips of its own seeds.
    """

    name = "neuronfair_image"
    needs_gradients = False
    needs_activations = True
    rule = staticmethod(sign_of_sum)
    extra_check = 1
    _parameter_constraints = {**ImageFlipSearch._parameter_constraints,
                              **{k: NeuronFair._parameter_constraints[k] for k in
                                 ("momentum_global", "r_step_global", "random_share", "interpret_rows", "layer")}}

    def __init__(self, n_seeds: int | None = None, max_iter: int = 40, global_step: float = 0.15,
                 momentum_global: float = 0.1, r_step_global: int = 10, random_share: float = 0.05,
                 interpret_rows: int = 5000, layer: int | None = None, signed: bool = False, batch_size: int = 1000,
                 *, max_time: float | None = None, max_tried: int | None = None, max_found: int | None = None,
                 random_state: int | None = None, progress: bool | None = None, constraints="default", control=None):
        self.momentum_global = momentum_global
        self.r_step_global = r_step_global
        self.random_share = random_share
        self.interpret_rows = interpret_rows
        self.layer = layer
        super().__init__(n_seeds=n_seeds, max_iter=max_iter, global_step=global_step, signed=signed,
                         batch_size=batch_size, max_time=max_time, max_tried=max_tried, max_found=max_found,
                         random_state=random_state, progress=progress, constraints=constraints, control=control)

    def gradient_source(self):
        return DynamicLoss(self.random_share, self.r_step_global)

    def _decays(self):
        return self.momentum_global, 0.0

    def _begin_pairs(self, ctx, seeds, ok):
        k = min(len(ok), self.interpret_rows)
        rows = ok[np.sort(ctx.rng.choice(len(ok), k, replace=False))] if k < len(ok) else ok
        twins = np.asarray(self._flip.X_flipped[rows], dtype=float)
        diffs, _ = pair_activation_differences(ctx.model, seeds[rows], twins)
        use_interpretation(self, ctx, interpret_differences(diffs, k, layer=self.layer), PerShard)   # own seeds


def flips_failed(result) -> int:
    """The seeds skipped because their attribute flip failed."""
    return seed_outcomes.skipped_for(result, FLIP_FAILED)


def strict_idis(result) -> int:
    """The pairs whose attribute classifier f_sa still disagrees with the seed's attribute."""
    return sum(bool(result.details(i).get("sa_disagrees")) for i in range(len(result)))

"""LIMI, Latent Imitator (Xiao, Liu, Li, Liu, ISSTA 2023): probe a surrogate of the decision boundary in the
latent space of a generative model, so the discriminatory inputs found look like the data.

**Generator.** A generative model of the data maps latent codes ``z ~ N(0, I)`` to inputs (``generator``: by
default a Gaussian copula fitted on the seeds, ``fairnb.search.parts.latent``; the paper trains a CTGAN).

**Surrogate boundary.** ``n_boundary`` latent codes are drawn, decoded and labelled by the model. The codes
labelled with more than ``confidence`` probability, at most ``n_train`` per class (the most confident), train
a linear SVM that separates the two classes in latent space: the surrogate boundary ``w.z + b = 0``, with
``w`` of unit length.

**Probes.** Each of ``n_latent`` fresh codes ``z`` is moved onto the surrogate boundary in one step,
``z0 = z - (w.z + b) w``; its candidates are ``z0``, ``z0 + step w`` and ``z0 - step w``, decoded and checked
in that order until one is discriminatory (the oracle checks every protected variant). An input already
checked (its non-protected features, the artifact's key) is not checked again. Only the model's outputs are
used. ``docs/methods/limi.md`` is the digest (the authors' artifact's defaults, its quirks).

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> r = LIMI(n_latent=2000, n_boundary=5000, random_state=0).run(fairnb.train_demo_model(data), data.domain, data.X)
>>> r.count() > 0 and r.extras["boundary_accuracy"] > 0.5
True
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from ...counting import UniqueCounter
from ...oracle import rows_per_call
from ...params import COUNT, POSITIVE, Interval, Satisfies
from ...results import Count, Distinct, PerShard
from ..engine.estimator import Search
from ..engine.types import Batch
from ..parts.latent import GaussianCopula
from ..engine.sizes import require_fits

BOUNDARY_CHUNK = 10_000    # boundary codes decoded and labelled per model call, the budget checked between them
NO_BOUNDARY = "the model labels too few decoded inputs of one class confidently to learn a surrogate boundary"


def _is_generator(g) -> bool:
    return g is None or (callable(getattr(g, "decode", None)) and isinstance(getattr(g, "latent_dim", None), Integral))


class LIMI(Search):
    """LIMI black-box search: candidates on a linear surrogate of the model's boundary in a generator's latent space.

    Parameters
    ----------
    n_latent : latent codes probed (each gives up to three candidates); ``None`` runs until another budget
        (``max_time``, ``max_tried``, ``max_found``) ends the search, or ``DEFAULT_LATENT`` codes when none is set
        (the artifact's ``max_global``).
    n_boundary : latent codes decoded and labelled by the model to learn the surrogate boundary.
    n_train : the most confident codes per class the boundary is trained on (50,000).
    confidence : a code trains the boundary when the model gives its class more than this probability (0.7).
    step : distance of the two candidates from the boundary along its unit normal (0.3).
    generator : a trained generative model: ``decode(Z)`` maps ``(n, latent_dim)`` codes to inputs, ``latent_dim``
        an int; ``None`` fits a ``GaussianCopula`` on the seeds.
    batch_size : latent codes per oracle call (fewer where their codes and inputs would pass
        ``fairnb.oracle.MEMORY_BUDGET``).
    """

    name = "limi"
    DEFAULT_LATENT = 1_000_000
    domain_needs = ("bounded",)
    dedup = "adf"
    _parameter_constraints = {**Search._parameter_constraints, "n_latent": [None, COUNT], "n_boundary": [COUNT],
                              "n_train": [COUNT], "confidence": [Interval(Real, 0, 1, closed="left")],
                              "step": [POSITIVE], "batch_size": [COUNT],
                              "generator": [Satisfies(_is_generator, "None or a trained generative model with "
                                                      "decode(Z) and an int latent_dim")]}

    def __init__(self, n_latent: int | None = None, n_boundary: int = 100_000, n_train: int = 50_000,
                 confidence: float = 0.7, step: float = 0.3, generator=None, batch_size: int = 5000, *,
                 max_time: float | None = None, max_tried: int | None = None, max_found: int | None = None,
                 random_state: int | None = None, progress: bool | None = None, constraints="default", control=None):
        self.n_latent, self.n_boundary, self.n_train = n_latent, n_boundary, n_train
        self.confidence, self.step, self.generator, self.batch_size = confidence, step, generator, batch_size
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress, constraints=constraints, control=control)

    @classmethod
    def bench_params(cls, *, seeds: int, local: int, max_time: float | None) -> dict:
        """``fairnb bench`` settings: as many latent codes as random sampling gets samples (``seeds * local``), or
        until ``max_time``; the generator learns from the round's seeds."""
        return {"n_latent": seeds * local} if max_time is None else {"n_latent": None, "max_time": max_time}

    def _generator(self, ctx):
        """The generator: the one given, else a Gaussian copula fitted on the seeds."""
        if self.generator is not None:
            return self.generator
        if ctx.seeds is None or len(ctx.seeds) < 2:
            raise ValueError("limi learns a generative model of the data: pass seeds=... (e.g. the training "
                             "inputs), or a trained generator=...")
        return GaussianCopula().fit(ctx.seeds)

    def _decoded(self, generator, dom, Z) -> np.ndarray:
        """The inputs of the codes ``Z``: decoded, rounded to integer codes and clipped to the domain."""
        X = np.asarray(generator.decode(Z), dtype=float).reshape(len(Z), dom.n_features)
        return dom.clip(np.rint(X))

    def boundary(self, ctx, generator) -> tuple[np.ndarray, float] | None:
        """The surrogate boundary ``(w, b)`` (``w`` of unit length) learned from ``n_boundary`` labelled codes, or
        None when one class has no confidently labelled code, or when the run's budget ends while the codes are
        labelled (``BOUNDARY_CHUNK`` at a time)."""
        from sklearn.svm import LinearSVC

        dom, rng = ctx.domain, ctx.rng
        require_fits(self.name, "n_boundary", self.n_boundary, row_bytes=8 * (generator.latent_dim + 2),
                     what="latent codes labelled to learn the boundary")
        Z = np.empty((self.n_boundary, generator.latent_dim))
        proba = None
        for i in range(0, len(Z), BOUNDARY_CHUNK):
            if ctx.engine.out_of_budget() is not None:
                ctx.result.tally(boundary_codes=Count(i))
                return None
            Z[i:i + BOUNDARY_CHUNK] = rng.standard_normal((min(BOUNDARY_CHUNK, len(Z) - i), generator.latent_dim))
            p = ctx.oracle.predict_proba(dom.encode(self._decoded(generator, dom, Z[i:i + BOUNDARY_CHUNK])))
            proba = np.empty((len(Z), p.shape[1])) if proba is None else proba
            proba[i:i + BOUNDARY_CHUNK] = p
        label = proba.argmax(axis=1)
        positive = np.bincount(label, minlength=proba.shape[1]).argmax() if proba.shape[1] > 2 else 1
        label = (label == positive).astype(int)         # two classes: the second; more: the commonest vs the rest
        sure = proba.max(axis=1) > self.confidence
        keep = [np.flatnonzero(sure & (label == c)) for c in (0, 1)]
        keep = [ids[np.argsort(-proba.max(axis=1)[ids], kind="stable")[:self.n_train]] for ids in keep]
        ctx.result.tally(boundary_codes=Count(len(Z)), boundary_train=Count(sum(map(len, keep))))
        if min(map(len, keep)) == 0:
            return None
        train = np.concatenate(keep)
        svm = LinearSVC(class_weight="balanced", max_iter=10000, random_state=int(rng.integers(2 ** 31)))
        svm.fit(Z[train], label[train])
        norm = np.linalg.norm(svm.coef_)
        ctx.result.tally(boundary_accuracy=PerShard(round(float((svm.predict(Z) == label).mean()), 4)))
        return svm.coef_[0] / norm, float(svm.intercept_[0] / norm)

    def _budget_hint(self, result) -> str:
        labelled = result.extras.get("boundary_codes", self.n_boundary)
        if labelled >= self.n_boundary:
            return super()._budget_hint(result)
        return (f"the budget ended while it labelled the codes that learn its boundary ({labelled:,} of "
                f"n_boundary={self.n_boundary:,}): give a smaller n_boundary or a larger max_time")

    def _generate(self, ctx):
        n_latent = self.n_latent
        if n_latent is None and self.max_time is None and self.max_tried is None and self.max_found is None:
            n_latent = self.DEFAULT_LATENT
        dom, rng = ctx.domain, ctx.rng
        generator = self._generator(ctx)
        seen = UniqueCounter(dom, self.dedup)
        probed, hits = 0, {0: 0, 1: 0, -1: 0}
        try:
            surrogate = self.boundary(ctx, generator)
            if surrogate is None:
                if ctx.engine.out_of_budget() is None:
                    ctx.result.tally(ended=PerShard(NO_BOUNDARY))
                return
            w, b = surrogate
            most = rows_per_call(8 * (2 * len(w) + 3 * dom.n_features))     # a batch's codes and inputs
            while (n_latent is None or probed < n_latent) and ctx.engine.out_of_budget() is None:
                size = min(self.batch_size, most) if n_latent is None else min(self.batch_size, most, n_latent - probed)
                Z = rng.standard_normal((size, len(w)))
                on_boundary = Z - (Z @ w + b)[:, None] * w
                pending = np.arange(size)
                for side in (0, 1, -1):
                    X = self._decoded(generator, dom, on_boundary[pending] + side * self.step * w)
                    fresh = seen.fresh(X, limit=int(min(ctx.engine.remaining_tried, len(X))))
                    if not fresh:
                        continue
                    new = fresh.index
                    verdict = yield Batch(X[new], phase="global", seed_ids=-1)
                    seen.commit(fresh)
                    hits[side] += int(verdict.discriminatory.sum())
                    pending = np.setdiff1d(pending, pending[new[verdict.discriminatory]])
                probed += size
        finally:
            ctx.result.tally(generated=Distinct(seen), latent_codes=Count(probed), idis_on_boundary=Count(hits[0]),
                             idis_plus_step=Count(hits[1]), idis_minus_step=Count(hits[-1]))

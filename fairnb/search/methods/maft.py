"""MAFT (Wang et al., ICSE 2024): model-agnostic fairness testing, EIDIG with zero-order gradients.

MAFT is EIDIG (momentum 0.5 in the global phase, local guidance refreshed after 5 consecutive
successes, reset on failure) with every backpropagated gradient replaced by a forward-difference
estimate of the predicted-class probability, ``g_i = (F_p(x + h e_i) - F_p(x)) / h``, computed for
all attributes of all inputs in one batched model call (``finite_difference``). It therefore needs
only ``predict_proba``: Keras models, scikit-learn classifiers and plain callables all work.

``h = 1.0`` by default (the paper's recommendation for integer-coded attributes; the reference
code's function default 1e-4 is a trap, and with float32 models ``h <= 1e-6`` estimates exactly 0).
The output probabilities of ``x`` and ``x'`` come from the oracle's check, so a gradient costs ``d``
probe rows per input instead of ``d + 1``. ``vectorised=False`` makes one model call per attribute
(the paper's ``MAFT_non_vec``, for timing comparisons).

A model that returns only hard labels (probabilities exactly 0 or 1) makes the estimate zero almost
everywhere and the search degrades toward random; MAFT warns when it sees one.

Example
-------
>>> import numpy as np, fairnb
>>> data = fairnb.datasets.make_synthetic(n=600, random_state=0)
>>> model = lambda X: 1 / (1 + np.exp(6 - 3 * X[:, 1] - 0.5 * X[:, 3]))   # a plain callable
>>> r = MAFT(n_seeds=20, n_local=30, seed_selection="as_given", random_state=0).run(model, data.domain, seeds=data.X)
>>> r.count() > r.extras["global_idis"] > 0
True
"""
from __future__ import annotations

import warnings

from ...models import outputs_hard_labels
from ...params import POSITIVE
from .eidig import EIDIG
from ..parts.gradients import ForwardDifference


class MAFT(EIDIG):
    """MAFT; the parameters of ``EIDIG`` plus

    h : perturbation size of the forward difference (in attribute units).
    vectorised : one model call for all probes (True) or one per attribute (the paper's non-vectored variant).
    """

    name = "maft"
    needs_gradients = False
    _parameter_constraints = {**EIDIG._parameter_constraints, "h": [POSITIVE], "vectorised": [bool]}

    def __init__(self, n_seeds: int = 1000, n_local: int = 1000, max_iter: int = 10, decay: float = 0.5,
                 update_interval: float = 5, h: float = 1.0, vectorised: bool = True, global_step: float = 1.0,
                 local_step: float = 1.0, c_num: int = 4, seed_selection: str = "kmeans",
                 batch_size: int = 4096, *, max_time: float | None = None, max_tried: int | None = None,
                 max_found: int | None = None, random_state: int | None = None, progress: bool | None = None,
                 constraints="default", control=None):
        self.h = h
        self.vectorised = vectorised
        super().__init__(n_seeds=n_seeds, n_local=n_local, max_iter=max_iter, decay=decay,
                         update_interval=update_interval, global_step=global_step, local_step=local_step,
                         c_num=c_num, seed_selection=seed_selection, batch_size=batch_size,
                         max_time=max_time, max_tried=max_tried, max_found=max_found,
                         random_state=random_state, progress=progress, constraints=constraints, control=control)

    def _begin(self, ctx, seeds):
        probe = seeds[: min(len(seeds), 256)]
        if outputs_hard_labels(ctx.oracle, probe):
            warnings.warn("maft: the model returns hard labels (probabilities exactly 0 or 1); finite-difference "
                          "gradients are then zero almost everywhere and the search degrades toward random. "
                          "Give MAFT a model with class probabilities.", UserWarning, stacklevel=2)

    def gradient_source(self):
        """Forward differences of the predicted-class probability (``fairnb.search.parts.gradients.ForwardDifference``)."""
        return ForwardDifference(self.h, self.vectorised)

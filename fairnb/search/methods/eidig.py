"""EIDIG (Zhang, Zhang & Zhang, ISSTA 2021): ADF with momentum and lazily refreshed local guidance.

EIDIG changes three things in ADF's two-phase search (see ``two_phase``):

1. the gradient is that of the model's confidence in each input's predicted class ``F_p(x)``
   (not of the loss), and the global step *descends* it: ``x <- clip(x - sign(g1))`` on the
   non-protected attributes where ``sign(g1) == sign(g2)``;
2. momentum in the global phase: ``g1 <- decay * g1 + grad F_p(x)``, ``g2`` likewise for ``x'``,
   ``decay = 0.5``, reset for every seed;
3. in the local phase the attribute probabilities (reciprocal gradients, epsilon 1e-6) are
   recomputed only after ``update_interval = 5`` consecutive successes, from ``x`` and a uniformly
   random protected variant of it with another decision (``FindPair``); a failed step resets the
   walker to its seed and the seed's probabilities. ``update_interval=float("inf")`` gives
   EIDIG-INF (never refresh).

Defaults as in the paper and MAFT's reference code: 1,000 seeds (random members of 4 K-Means clusters,
round robin), ``max_iter = 10`` checks per seed (the state after the 10th step is never checked),
1,000 local steps per distinct global IDI, unit steps. Counting: unique full instances.

Example
-------
>>> import numpy as np, fairnb
>>> data = fairnb.datasets.make_synthetic(n=600, random_state=0)
>>> w = np.zeros((7, 1)); w[1], w[3] = 3.0, 0.5
>>> model = fairnb.models.NumpyMLP([w], [np.array([-6.0])])
>>> r = EIDIG(n_seeds=20, n_local=30, seed_selection="as_given", random_state=0).run(model, data.domain, seeds=data.X)
>>> r.count() > r.extras["global_idis"] > 0
True
"""
from __future__ import annotations

from numbers import Real

from ...params import SHARE, Interval
from ..parts.acceptance import ResetOnFailure
from .two_phase import TwoPhaseSearch


class EIDIG(TwoPhaseSearch):
    """EIDIG-5 by default; see the module docstring and ``TwoPhaseSearch`` for the parameters.

    decay : momentum of the global gradients (0: none; 1: plain sums, which is what MAFT's artifact ran).
    update_interval : consecutive local successes between refreshes of the local guidance.
    """

    name = "eidig"
    seed_order = "random"
    dedup = "eidig"
    local_pair = "random"
    objective = "proba"
    direction_sign = -1.0
    _parameter_constraints = {**TwoPhaseSearch._parameter_constraints, "decay": [SHARE],
                              "update_interval": [Interval(Real, 1, None, closed="both")]}   # inf: EIDIG-INF

    def __init__(self, n_seeds: int = 1000, n_local: int = 1000, max_iter: int = 10, decay: float = 0.5,
                 update_interval: float = 5, global_step: float = 1.0, local_step: float = 1.0, c_num: int = 4,
                 seed_selection: str = "kmeans", batch_size: int = 4096, *, max_time: float | None = None,
                 max_tried: int | None = None, max_found: int | None = None, random_state: int | None = None,
                 progress: bool | None = None, constraints="default", control=None):
        self.decay = decay
        self.update_interval = update_interval
        super().__init__(n_seeds=n_seeds, n_local=n_local, max_iter=max_iter, global_step=global_step,
                         local_step=local_step, c_num=c_num, seed_selection=seed_selection, batch_size=batch_size,
                         max_time=max_time, max_tried=max_tried, max_found=max_found,
                         random_state=random_state, progress=progress, constraints=constraints, control=control)

    def _decays(self):
        return self.decay, 0.0

    def _refresh_interval(self):
        return self.update_interval

    def acceptance_rule(self):
        return ResetOnFailure()

"""DICE (Monjezi, Trivedi, Tan, Tizpaz-Niari, ICSE 2023): information-theoretic fairness testing and debugging.

DICE searches like ADF, guided by the *severity* of discrimination, then debugs the network:

* **Severity** (``fairnb.search.parts.severity``): for an input, every protected value is tried with the other
  attributes fixed; the outputs fall into ``k`` partitions (probability bins of width ``epsilon``) and the
  decision leaks ``log2 k`` bits (min-entropy) of the protected attributes.
* **Global phase**: ADF's (``max_iter + 1`` checks per seed, K-Means(4) seeds round robin, the sign of the
  loss gradients where ``x`` and its counterpart agree, one unit step).
* **Local phase**: ADF's walk (one attribute drawn with probability ``1 / (|g| + |g'|)``, moved by +-1)
  with the Metropolis acceptance of the authors' basin hopping (T = 1) on DICE's objective: the *spread*
  of the partitions, the number of bins between the variants' smallest and largest output. A step that
  narrows the spread by ``s`` bins is kept with probability ``e^-s``; one that widens it, always.
* **Debugging** (``fairnb.search.parts.causal_neurons``), after the search, on the pairs found: the causal layer
  and the neurons whose intervention removes the most discrimination, with the run's seed inputs
  (at most ``debug_rows``) as the data for the interventions' values and accuracy.

The findings go into ``result.extras`` (``severity_bits_mean``, ``severity_bits_max``, ``causal_layer``,
``causal_neurons``, ``causal_effects``) and onto the search (``severity_``, ``localization_``: its
``neurons`` table and ``layers()``); they are computed once as the run ends, after every round of fresh seeds
(also when a budget ends it; not after the Stop button or Ctrl-C, and a Ctrl-C while they run ends them at once:
the pairs are kept). Their time grows with the pairs found (the severity of each: one model row per protected
variant): about 70 s for 99,000 census IDIs over sex, race and age (40 variants) on two busy cores. The severity of the IDIs found is at least 1 bit on any model, a fair one's too (every IDI's label
flips); ``natural_severity_bits`` is the mean severity of the seeds as they are, measured when they are chosen
(like the natural rate): how much the model uses the protected attributes on the data, to read beside a control's
(``DICE(control=...)`` measures it as ``control_natural_severity_bits``; 0 bits only for a model that ignores them; ``benchmarks/results/dice.md``). ``docs/methods/dice.md`` is the digest, with the artifact's choices that fairnb does not
reproduce (the global phase does not stop at the first discriminatory input there, and a local walk starts from
any input with two partitions).

Example
-------
>>> import numpy as np, fairnb
>>> data = fairnb.datasets.make_synthetic(n=600, random_state=0)
>>> W1 = np.zeros((7, 2)); W1[1, 0], W1[3, 1] = 3.0, 0.5      # neuron 0 reads sex, neuron 1 education
>>> model = fairnb.models.NumpyMLP([W1, np.ones((2, 1))], [np.zeros(2), np.array([-6.0])])
>>> search = DICE(n_seeds=20, n_local=30, seed_selection="as_given", random_state=0)
>>> r = search.run(model, data.domain, seeds=data.X)
>>> r.count("adf") > 0, r.extras["severity_bits_max"], r.extras["causal_neurons"][:1]
(True, 1.0, [0])
>>> r.extras["natural_severity_bits"]      # the seeds as they are: every one's output moves with sex
1.0
"""
from __future__ import annotations

import warnings
from numbers import Real

import numpy as np

from ...interrupts import interruptible
from ...params import COUNT, Interval
from ...results import Mean, PerShard
from ..parts.acceptance import Metropolis
from ..parts.causal_neurons import as_numpy_mlp, localize
from ..parts.severity import EPSILON, Severity, output_partitions, probability_bins, severity
from .two_phase import TwoPhaseSearch

SEVERITY_CHUNK = 1000             # IDIs per model call of the severity measured as a run ends
SEVERITY_PAST_BUDGET_S = 0.5      # a run that spent its max_time measures it at most this long past the budget


def partition_spread(VP: np.ndarray, epsilon: float | None = EPSILON) -> np.ndarray:
    """Per input, DICE's local objective: how many partitions apart its variants' outputs are (``VP``:
    ``(n, m, k)``; the bins of class 1's probability for two classes, the widest class otherwise; 1 or 0 for
    labels).

    >>> partition_spread(np.array([[[0.89, 0.11], [0.39, 0.61]]])).tolist()
    [20]
    """
    VP = np.asarray(VP, dtype=float)
    if epsilon is None:
        labels = output_partitions(VP, None)
        return (labels.min(axis=1) != labels.max(axis=1)).astype(int)
    bins = probability_bins(VP, epsilon)
    spread = bins.max(axis=1) - bins.min(axis=1)
    return spread[:, 1] if VP.shape[-1] == 2 else spread.max(axis=1)


class SpreadMetropolis(Metropolis):
    """DICE's acceptance: Metropolis at T = 1 on minus the spread of the output partitions (``partition_spread``),
    so a local step that moves the variants' outputs further apart is always kept."""

    def __init__(self, epsilon: float | None = EPSILON):
        self.epsilon = epsilon

    def energy(self, verdict) -> np.ndarray:
        return -partition_spread(verdict.variant_proba, self.epsilon).astype(float)

    def start_energy(self, start) -> np.ndarray:
        both = np.stack([start.proba, start.counterpart_proba], axis=1)
        return -partition_spread(both, self.epsilon).astype(float)


class DICE(TwoPhaseSearch):
    """DICE; the parameters of ``TwoPhaseSearch`` plus

    epsilon : width of an output partition (0.025; ``None``: the predicted labels).
    debug : run the causal debugging after the search (needs a NumpyMLP or a Keras dense stack); skipped when the
        run spent its ``max_time`` (it would run past the budget: seconds for 1,000 inputs), which
        ``extras["debugging"]`` says; ``fairnb.search.parts.causal_neurons.result_localization(model, result, seeds)``
        runs it on the Result afterwards.
    debug_rows : at most this many seed inputs give the interventions' values and accuracy.
    debug_inputs : at most this many discriminatory inputs are debugged (DICE's 1,000).
    severity_inputs : the IDIs' severity is measured on at most this many of them, drawn at random (10,000: a mean
        to about 0.01 bit, in seconds; all of a long run's IDIs would take longer than its budget). A run that spent
        its ``max_time`` measures fewer, as many as fit in ``SEVERITY_PAST_BUDGET_S`` (0.5 s) past it (at least
        ``SEVERITY_CHUNK``, 1,000); ``extras["severity_inputs"]`` says how many.
    """

    name = "dice"
    seed_order = "ascending"
    dedup = "adf"
    counterpart_rule = "class"
    objective = "loss"
    direction_sign = 1.0
    _parameter_constraints = {**TwoPhaseSearch._parameter_constraints,
                              "epsilon": [None, Interval(Real, 0, 1, closed="right")], "debug": [bool],
                              "debug_rows": [COUNT], "debug_inputs": [COUNT], "severity_inputs": [COUNT]}

    def __init__(self, n_seeds: int = 1000, n_local: int = 1000, max_iter: int = 10,
                 epsilon: float | None = EPSILON, debug: bool = True, debug_rows: int = 5000,
                 debug_inputs: int = 1000, severity_inputs: int = 10000, global_step: float = 1.0,
                 local_step: float = 1.0, c_num: int = 4,
                 seed_selection: str = "kmeans", batch_size: int = 4096, *, max_time: float | None = None,
                 max_tried: int | None = None, max_found: int | None = None, random_state: int | None = None,
                 progress: bool | None = None, constraints="default", control=None):
        self.epsilon = epsilon
        self.debug = debug
        self.debug_rows = debug_rows
        self.debug_inputs = debug_inputs
        self.severity_inputs = severity_inputs
        super().__init__(n_seeds=n_seeds, n_local=n_local, max_iter=max_iter, global_step=global_step,
                         local_step=local_step, c_num=c_num, seed_selection=seed_selection, batch_size=batch_size,
                         max_time=max_time, max_tried=max_tried, max_found=max_found,
                         random_state=random_state, progress=progress, constraints=constraints, control=control)

    def _checked(self, model, domain, seeds):
        model, seeds = super()._checked(model, domain, seeds)
        try:
            mlp = as_numpy_mlp(model) if self.debug else None
        except TypeError:        # not a dense network: the search runs, and says at its end that it did not debug
            mlp = None
        if mlp is not None and len(mlp.layer_sizes) < 2:
            raise ValueError(f"dice: {mlp!r} has no hidden layer, and DICE's causal debugging intervenes on hidden "
                             "neurons; pass debug=False to search without it")
        return model, seeds

    def _global_checks(self):
        return self.max_iter + 1

    def acceptance_rule(self):
        return SpreadMetropolis(self.epsilon)

    def _prepare_seeds(self, ctx, seeds):
        seeds, rows = super()._prepare_seeds(ctx, seeds)
        if len(seeds):           # the severity of the seeds as they are, beside the natural rate
            natural = severity(ctx.model, ctx.domain, seeds, self.epsilon)
            ctx.result.tally(natural_severity_bits=Mean(natural.min_entropy.sum(), len(natural)))
            if ctx.engine.control is not None:      # and on the control model, to read it against
                control = severity(ctx.engine.control.model, ctx.domain, seeds, self.epsilon)
                ctx.result.tally(control_natural_severity_bits=Mean(control.min_entropy.sum(), len(control)))
        return seeds, rows

    def _conclude(self, ctx):
        """The severity of the IDIs found and the debugging, once at the end (not after every round of seeds)."""
        self.severity_, self.localization_ = None, None
        if not len(ctx.result) or ctx.engine.should_stop():      # Stop or Ctrl-C: the user wants the pairs now
            return
        X = ctx.result.inputs
        rng = np.random.default_rng(self.random_state)
        if len(X) > self.severity_inputs:
            X = X[np.sort(rng.choice(len(X), self.severity_inputs, replace=False))]
        with interruptible():        # a Ctrl-C drops what is left at once, even as a budget's end winds the run down
            X, self.severity_ = self._severity(ctx, X, rng)
            findings = {"severity_inputs": len(X), **self.severity_.summary()}
            if self.debug and ctx.engine.time_left() == 0:
                findings["debugging"] = ("skipped: max_time was spent (run fairnb.search.parts.causal_neurons."
                                         "result_localization on the Result)")
            elif self.debug:
                findings |= self._debug(ctx, X, self.severity_.k)
        ctx.result.tally(**{name: PerShard(value) for name, value in findings.items()})

    def _severity(self, ctx, X, rng) -> tuple[np.ndarray, Severity]:
        """The severity of the IDIs ``X``, measured ``SEVERITY_CHUNK`` at a time in a random order; a run whose
        ``max_time`` is spent stops once it is ``SEVERITY_PAST_BUDGET_S`` past it. Returns the IDIs measured (in
        their order in ``X``: all of them unless the budget stopped it) and their severity."""
        order = rng.permutation(len(X)) if len(X) > SEVERITY_CHUNK else np.arange(len(X))
        pieces, engine = [], ctx.engine
        for start in range(0, len(X), SEVERITY_CHUNK):
            pieces.append(severity(ctx.model, ctx.domain, X[order[start:start + SEVERITY_CHUNK]], self.epsilon))
            if engine.max_time is not None and engine.elapsed > engine.max_time + SEVERITY_PAST_BUDGET_S:
                break
        done = order[:sum(map(len, pieces))]
        back = np.argsort(done)                 # the measured IDIs in X's order
        parts = (np.concatenate([getattr(p, name) for p in pieces])[back] for name in ("k", "min_entropy", "shannon"))
        return X[done[back]], Severity(*parts, self.epsilon)

    def _debug(self, ctx, X, k) -> dict:
        """The causal layer and neurons on the pairs found (``k``: their partitions), into ``localization_``;
        returns their extras."""
        try:
            as_numpy_mlp(ctx.model)
        except TypeError as error:
            warnings.warn(f"dice: no causal debugging ({error})", stacklevel=2)
            return {}
        data = np.asarray(ctx.seeds, dtype=float)
        if len(data) > self.debug_rows:
            data = data[np.random.default_rng(self.random_state).choice(len(data), self.debug_rows, replace=False)]
        self.localization_ = localize(ctx.model, ctx.domain, X, data, epsilon=self.epsilon,
                                      max_inputs=self.debug_inputs, random_state=self.random_state, k=k)
        return self.localization_.to_extras()

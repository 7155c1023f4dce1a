"""How much discrimination a model has left: the papers' three measures, one function each.

* :func:`discrimination_rate`: the share of individually discriminatory inputs in a uniform random
  sample of the domain, with its sample size and a 95 % Wilson interval (ADF Table XII,
  NeuronFair's DM-RS, EIDIG's evaluation). ``n_samples="all"`` enumerates a small domain exactly;
  ``inputs=`` measures given inputs instead (real rows, texts, images: a domain with no sampler).
* :func:`idi_count`: the unique IDIs a fresh run of a search finds on a model, with the method,
  hyperparameters and budget of an earlier Result.
* :func:`group_score`: TestSGD's group fairness score of one rule set, with its error bound.

All three take any model (Keras, scikit-learn, NumpyMLP, a callable): no retraining needed.

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> model = fairnb.train_demo_model(data, max_iter=50)
>>> est = discrimination_rate(model, data.domain, n_samples=5000, random_state=0)
>>> 0 < est.value < 1 and est.low <= est.value <= est.high and est.n == 5000
True
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..oracle import Oracle
from ..stats import wilson_interval

MAX_EXHAUSTIVE = 2_000_000   # most inputs n_samples="all" enumerates


@dataclass(frozen=True)
class Estimate:
    """A share of discriminatory inputs: ``hits`` of ``n``, with a 95 % interval (exact: zero width)."""

    value: float
    low: float
    high: float
    hits: int
    n: int
    exact: bool = False
    given: bool = False       # measured on given inputs, not on random ones

    def __str__(self):
        if self.exact:
            return f"{self.value:.2%} (exact, all {self.n:,} inputs)"
        return f"{self.value:.2%} [{self.low:.2%}, {self.high:.2%}] of {self.n:,} {'given' if self.given else 'random'} inputs"


def discrimination_rate(model, domain, n_samples: int | str = 10_000, *, inputs=None,
                        random_state: int | None = 0, batch_size: int = 10_000) -> Estimate:
    """Share of the domain's inputs that are individually discriminatory, estimated from ``n_samples``
    uniform random inputs (``"all"``: every input of a small domain, exactly).

    The same ``random_state`` draws the same inputs, so before/after comparisons are paired.

    ``inputs`` (anything ``domain.validate`` takes: rows, texts as strings, images) measures those inputs
    as they are instead, over the ones that have a protected variant (a text without a sensitive term
    cannot be discriminatory and is not counted); ``n_samples`` and ``random_state`` are then unused.

    >>> from fairnb.domains import Feature, TabularDomain
    >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 3)], protected=["sex"])
    >>> str(discrimination_rate(lambda X: X[:, 0] * (X[:, 1] > 1), dom, inputs=[[0, 3], [1, 0], [0, 2], [1, 1]]))
    '50.00% [15.00%, 85.00%] of 4 given inputs'
    """
    if inputs is not None:
        return _given_inputs_rate(Oracle(model, domain), domain.validate(inputs, what="inputs"), batch_size)
    oracle = Oracle(model, domain, validate=False)
    if n_samples == "all":
        if domain.size > MAX_EXHAUSTIVE:
            raise ValueError(f"n_samples='all' enumerates the domain, which has {domain.size:.3g} inputs "
                             f"(more than {MAX_EXHAUSTIVE:,}); give a sample size instead")
        grid = np.array(list(itertools.product(*(f.values for f in domain.features))), dtype=float)
        hits = sum(int(oracle.check(grid[i:i + batch_size]).discriminatory.sum())
                   for i in range(0, len(grid), batch_size))
        value = hits / len(grid)
        return Estimate(value, value, value, hits, len(grid), exact=True)
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer or 'all', got {n_samples!r}")
    rng = np.random.default_rng(random_state)
    hits, n = 0, int(n_samples)
    for start in range(0, n, batch_size):
        X = domain.sample(min(batch_size, n - start), rng)
        hits += int(oracle.check(X).discriminatory.sum())
    low, high = wilson_interval(hits, n)
    return Estimate(hits / n, low, high, hits, n)


def _given_inputs_rate(oracle, X, batch_size: int) -> Estimate:
    """The share of discriminatory inputs among the rows of ``X`` that have a protected variant."""
    hits = n = 0
    for start in range(0, len(X), batch_size):
        verdict = oracle.check(X[start:start + batch_size])
        hits += int(verdict.discriminatory.sum())
        n += int(verdict.comparable.sum())
    low, high = wilson_interval(hits, n) if n else (0.0, 1.0)
    return Estimate(hits / n if n else 0.0, low, high, hits, n, given=True)


def idi_count(model, result, seeds=None, *, convention: str = "eidig") -> int:
    """Unique IDIs that a fresh run of ``result``'s method, with its hyperparameters and budget, finds
    on ``model`` (from ``seeds``, e.g. the training split, for the methods that start from data).

    A time budget (``max_time``) makes the count depend on the machine's speed; a size budget does not.
    """
    from ..search import get_method
    from ..search.registry import seeds_for

    if not getattr(result, "method", None):
        raise ValueError("the result names no search method; run the search with fairnb.run_search(...)")
    params = {k: v for k, v in result.params.items() if k not in ("progress", "control")}   # control: its description
    search = get_method(result.method)(**params, progress=False)
    fresh = search.run(model, result.domain, seeds_for(search, seeds))     # a method that draws its own takes none
    return fresh.count(convention)


def group_score(model, data, rule_set, tester=None, *, sensitive=None) -> dict:
    """TestSGD's score of ``rule_set`` on ``model``: ``score``, ``eps`` (its bound), ``phi_in``,
    ``phi_out`` and ``n`` (samples per side), with ``tester``'s settings (default ``TestSGD()``)."""
    from ..group.testsgd import TestSGD

    tester = tester or TestSGD()
    top = tester.run(model, data, sensitive=sensitive, rule_sets=[rule_set]).frame.iloc[0]
    return {"score": float(top.score), "eps": float(top.eps), "phi_in": float(top.phi_in),
            "phi_out": float(top.phi_out), "n": int(top.n)}

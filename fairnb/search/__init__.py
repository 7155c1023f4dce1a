"""Individual-discrimination generators on one batched engine.

``fairnb.run_search(model, domain, method="random", seeds=None, **params)`` runs a registered method;
the classes can also be used directly, scikit-learn style:

>>> from fairnb.search import RandomSearch
>>> RandomSearch(n_samples=1000)
RandomSearch(n_samples=1000)
"""
from __future__ import annotations

import importlib

from .registry import METHODS, get_method
from .engine.seeds import cluster_seeds

__all__ = ["Batch", "Engine", "Event", "Search", "SearchContext", "RandomSearch", "METHODS", "get_method",
           "cluster_seeds", "run_search"]

# The search classes build on scikit-learn's BaseEstimator (``fairnb.params``), which ``import fairnb``
# does not load: they load on first use.
_LAZY = {"Batch": ".engine.types", "Event": ".engine.types", "Engine": ".engine.loop", "Search": ".engine.estimator",
         "SearchContext": ".engine.context", "RandomSearch": ".methods.random"}


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_search(model, domain, method: str = "random", seeds=None, *, listeners=(), client=None,
               n_shards: int | None = None, executor=None, **params):
    """Run ``method`` (a name from ``METHODS``) with hyperparameters ``params``; returns the Result.
    ``executor`` (a ``concurrent.futures.Executor``) or ``client`` (a ``dask.distributed.Client``) runs it in
    ``n_shards`` shards (see ``fairnb.distributed``).
    ``control=other_model`` or ``control=(other_model, "its label")`` (every method takes it): a control model,
    whose natural rate on the same seeds the summary and the displays show beside the model's (``Search``;
    docs/glossary.md, *Control model*, says which control answers which question)."""
    return get_method(method)(**params).run(model, domain, seeds, listeners=listeners, client=client,
                                            n_shards=n_shards, executor=executor)

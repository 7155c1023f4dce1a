"""fairnb: fairness testing of neural networks in Jupyter.

Give fairnb a trained model and a description of its inputs; it searches for individual
discrimination (pairs of inputs that differ only in a protected attribute but get different
decisions), shows what it finds, and explains it.

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)    # planted discrimination on sex
>>> model = fairnb.train_demo_model(data)
>>> result = fairnb.run_search(model, data.domain, method="random", n_samples=5000, random_state=0)
>>> result.count() > 0
True

Importing fairnb loads numpy, pandas and scikit-learn only; TensorFlow loads when a Keras model is used.
"""
from __future__ import annotations

from . import config, datasets, distributed, domains, models   # config: fairnb.config.result_memory; distributed: registers search.run(client=...) (no Dask import)
from .domains import Feature, TabularDomain
from .oracle import Oracle
from .results import Result
from .search import run_search
from .suites import check
from .models.training import accuracy, train_demo_model
from .widgets.compare import compare

__version__ = "0.1.0"
__all__ = ["config", "datasets", "domains", "models", "search", "Feature", "TabularDomain", "Oracle", "Result", "run_search", "check",
           "train_demo_model", "accuracy", "compare", "mitigate", "mitigation", "certify", "certification", "__version__"]


def __getattr__(name):
    """``fairnb.mitigate`` and ``fairnb.mitigation``, ``fairnb.certify`` and ``fairnb.certification`` load on first use."""
    packages = {"mitigate": "mitigation", "certify": "certification"}
    if name in packages or name in packages.values():
        import importlib

        module = importlib.import_module("." + packages.get(name, name), __name__)
        return module if name in packages.values() else getattr(module, name)
    raise AttributeError(f"module 'fairnb' has no attribute {name!r}")

"""The inputs a search checks as they are: the natural rate on the data's seeds, random draws apart.

The natural rate (``summary()["natural_rate"]``) is the share of the data that is discriminatory as it is, the
number that tells a biased model from a fair one. On a tabular domain, a run given seed data
(``run(..., seeds=X)``) measures it once, as it starts, on the **data's seeds**: each distinct row of the data,
at most ``NATURAL_ROWS`` of them drawn by a fixed generator. Every method given the same data therefore
measures the same inputs, whichever seeds it then searches from (K-Means picks, a random subset, ...) and
however long it runs; a shard of a sharded run measures them too, and the merge counts them once
(``fairnb.results.Measured``).

Seeds that are not rows of the data are **random draws**: a seed round's fresh seeds once the data is spent
(``fairnb.search.engine.seed_rounds``), AEQUITAS's random global inputs, AFT's random training inputs, every seed of a
run given no data. They are checked as they are too, and counted apart (``random_n``, ``random_idis``;
``summary()["random_rate"]``): the share of the whole input space, which is not the data's (on one model,
72 % of the data rows and 37 % of uniform random inputs).

Text and image searches keep measuring the seeds they declare: they choose them from the data with care
(texts that hold a protected term, images whose flip works) and draw none at random.

Example
-------
>>> import numpy as np
>>> from fairnb.domains import Feature, TabularDomain
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
>>> data_seeds(np.array([[0, 1], [1, 2], [0, 1]]), dom).tolist()       # each distinct row once
[[0.0, 1.0], [1.0, 2.0]]
"""
from __future__ import annotations

import numpy as np

from ...counting import UniqueCounter, first_occurrences

NATURAL_ROWS = 10_000      # data rows the natural rate is measured on, at most (drawn by a fixed generator)


def on_table(domain) -> bool:
    """Whether ``domain`` is a bounded tabular domain (one that seeds can be drawn from at random)."""
    return all(hasattr(domain, m) for m in ("sample", "lower", "upper"))


def data_seeds(data, domain) -> np.ndarray:
    """The rows of ``data`` the natural rate is measured on: each distinct row once, in the data's order; at most
    ``NATURAL_ROWS``, drawn by a fixed generator (the same for every method and ``random_state``)."""
    data = np.asarray(data, dtype=float)
    first = first_occurrences(domain.key(data, "eidig"))
    if len(first) > NATURAL_ROWS:
        first = np.sort(np.random.default_rng(0).choice(first, NATURAL_ROWS, replace=False))
    return data[first]


class NaturalInputs:
    """One run's bookkeeping of what it checks as it is: ``start`` measures the data's seeds (on a tabular
    domain given data), ``declared`` the seeds a strategy declares that are no rows of the data (random draws;
    on a text or image domain, every declared seed, as the natural rate)."""

    def __init__(self, domain, data, measure_data: bool = True):
        self.domain, self.table = domain, on_table(domain)
        self.data = data if self.table and measure_data and data is not None and len(data) else None
        self._rows = None        # the data's distinct rows, to tell a declared seed from the data from a draw

    def start(self, engine) -> None:
        """Measure the natural rate (and the control's) on the data's seeds; nothing without data."""
        if self.data is not None:
            measured = engine.measure_natural(data_seeds(self.data, self.domain))
            engine.result.extras["natural_inputs"] = measured     # kept: a suite's check measures them again

    def declared(self, engine, X) -> None:
        """Check the declared seeds ``X`` that are random draws (``random_n``), or on a text or image domain all
        of them (``natural_n``)."""
        if not self.table:
            engine.measure_natural(X)
            return
        if self.data is not None:
            if self._rows is None:
                self._rows = UniqueCounter(self.domain, "eidig")
                self._rows.add(np.asarray(self.data, dtype=float))
            X = X[~self._rows.held(X)]
        if len(X):
            engine.measure_random(X)


def control_parts(control) -> tuple:
    """``control=`` as ``(model, label)``: a model alone (label None) or ``(model, "what it is")``.

    >>> control_parts(("m", "shuffled sex")), control_parts("m")
    (('m', 'shuffled sex'), ('m', None))
    """
    if isinstance(control, tuple) and len(control) == 2 and isinstance(control[1], str):
        return control
    return control, None


def control_label(control, model) -> str | None:
    """What the headline calls the control model beside the searched ``model``: the label given with it, "the
    searched model itself" when it is that model, else None (the headline then says "the control model")."""
    found, label = control_parts(control)
    if label is None and found is not None and found is model:
        return "the searched model itself"
    return label

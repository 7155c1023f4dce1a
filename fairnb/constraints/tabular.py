"""An optional constraint that keeps a generated row like the people of the training data ("realistic").

A tabular domain already keeps every value within its feature's bounds, but a search may still put together
rows nobody has: a 17-year-old with a doctorate, a never-married wife. ``Realistic`` allows a generated row
only if, apart from its protected attributes, it looks like the training data, in one of two senses:

* ``by="combination"`` (the default): the values of ``columns`` (by default the domain's categorical
  features that are not protected) occur together in at least one training row;
* ``by="distance"``: the row's distance to its nearest training row (the ``columns``, by default every
  feature that is not protected, each divided by its range; Euclidean) is at most the ``quantile`` of the
  training rows' own distances to their nearest *other* training row.

The protected attributes are left out in both senses: a pair is one person with two values of the attribute
the test swaps, so both sides of a pair are realistic or neither is. It is not a default (the papers' tabular
benchmarks keep their numbers); pass it to a search with ``constraints=["default", Realistic(X_train)]``:
the summary lists it as "realistic" and counts what it refused.

Example
-------
>>> import numpy as np
>>> from fairnb.domains import Feature, TabularDomain
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("job", 0, 2, kind="categorical"),
...                      Feature("married", 0, 1, kind="categorical"), Feature("age", 18, 90)], protected=["sex"])
>>> train = np.array([[0, 0, 1, 30], [1, 1, 0, 45], [1, 2, 1, 60]])
>>> Realistic(train).allowed(dom, np.array([[1, 0, 1, 70], [0, 0, 0, 30]]), None).tolist()   # job 0 is never unmarried
[True, False]
>>> by_age = Realistic(train, by="distance", columns=["age"])     # training ages 15 years apart; 90 is 30 away
>>> by_age.allowed(dom, np.array([[1, 0, 1, 31], [0, 0, 1, 90]]), None).tolist()
[True, False]
"""
from __future__ import annotations

import numpy as np

from .base import Constraint

BY = ("combination", "distance")


class Realistic(Constraint):
    """A generated row is allowed only if it looks like a training row (see the module docstring).

    Parameters
    ----------
    rows : the training inputs (array or DataFrame), encoded as the domain's features.
    by : ``"combination"`` (its values of ``columns`` occur together in a training row) or ``"distance"``
        (its nearest training row is no farther than ``quantile`` of the training rows' nearest neighbours).
    columns : the feature names (or indices) compared; None: the categorical non-protected features
        (``"combination"``) or every non-protected feature (``"distance"``). A protected one is refused.
    quantile : for ``"distance"``, in (0, 1]; 0.95 lets in a row as close to the data as 95 % of the
        training rows are to each other.
    """

    name = "realistic"

    def __init__(self, rows, *, by: str = "combination", columns=None, quantile: float = 0.95):
        if by not in BY:
            raise ValueError(f"Realistic: by must be one of {BY}, got {by!r}")
        if isinstance(quantile, bool) or not isinstance(quantile, (int, float)) or not 0 < quantile <= 1:
            raise ValueError(f"Realistic: quantile must be a number in (0, 1], got {quantile!r}")
        rows = np.asarray(rows, dtype=float)
        if rows.ndim != 2 or not len(rows) or not np.isfinite(rows).all():
            raise ValueError(f"Realistic: rows must be a non-empty 2-d table of finite training inputs, got shape "
                             f"{rows.shape}")
        self.by = by
        self.columns = None if columns is None else list(columns)
        self.quantile = float(quantile)
        self._rows = rows
        self._fitted = None             # (id of the domain, what allowed() compares with), made once per domain

    def describe(self) -> str:
        if self.by == "combination":
            return "realistic: its combination of categories occurs in a training row"
        return f"realistic: as close to a training row as {100 * self.quantile:g} % of the training rows are"

    def get_config(self) -> dict:
        return {"by": self.by, "columns": self.columns, "quantile": self.quantile, "rows": len(self._rows)}

    def allowed(self, domain, X, seeds, counterparts=None) -> np.ndarray:
        cols, reference = self._fit(domain)
        X = np.asarray(X, dtype=float)
        if self.by == "combination":
            seen = reference
            keys = np.ascontiguousarray(X[:, cols].astype(np.int64))
            return np.array([key.tobytes() in seen for key in keys], dtype=bool)
        scale, neighbours, radius = reference
        distance, _ = neighbours.kneighbors(X[:, cols] / scale, n_neighbors=1)
        return distance[:, 0] <= radius + 1e-9

    def _fit(self, domain):
        """The compared columns and, for ``domain``, the training combinations or the nearest-neighbour index
        with its radius (computed once per domain: this runs on every batch)."""
        if self._fitted is not None and self._fitted[0] == id(domain):   # the id: a search's parameters pickle
            return self._fitted[1]
        if getattr(domain, "kind", None) != "tabular":
            raise TypeError(f"Realistic compares rows of a table; the domain is {getattr(domain, 'kind', domain)!r}")
        if self._rows.shape[1] != domain.n_features:
            raise ValueError(f"Realistic: rows have {self._rows.shape[1]} columns, the domain {domain.n_features} "
                             f"features {list(domain.names)}")
        cols = self._columns(domain)
        if self.by == "combination":
            keys = np.ascontiguousarray(self._rows[:, cols].astype(np.int64))
            reference = {key.tobytes() for key in keys}
        else:
            from sklearn.neighbors import NearestNeighbors

            scale = np.maximum(domain.upper[cols] - domain.lower[cols], 1.0)
            train = self._rows[:, cols] / scale
            neighbours = NearestNeighbors(n_neighbors=1).fit(train)
            if len(train) > 1:
                own, _ = neighbours.kneighbors(train, n_neighbors=2)      # the first is the row itself
                radius = float(np.quantile(own[:, 1], self.quantile))
            else:
                radius = 0.0
            reference = (scale, neighbours, radius)
        self._fitted = (id(domain), (cols, reference))
        return self._fitted[1]

    def _columns(self, domain) -> np.ndarray:
        protected = set(domain.protected)
        if self.columns is None:
            cols = [i for i in domain.non_protected
                    if self.by == "distance" or domain.features[i].kind == "categorical"]
            if not cols:
                raise ValueError("Realistic: the domain has no categorical features apart from the protected ones; "
                                 "name the features whose combination must occur with columns=[...]")
            return np.array(cols, dtype=int)
        cols = [domain.index(c) for c in self.columns]
        swapped = [domain.names[i] for i in cols if i in protected]
        if swapped:
            raise ValueError(f"Realistic: columns {swapped} are protected; a pair swaps them, so they are not part "
                             "of what must be realistic")
        if not cols:
            raise ValueError("Realistic: columns is empty; name at least one feature")
        return np.array(cols, dtype=int)

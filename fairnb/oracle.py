"""The discrimination oracle: is an input individually discriminatory?

An input ``x`` is *individually discriminatory* (an IDI) when some variant ``x'`` that differs from
``x`` only in protected attributes gets another decision (``argmax`` of the class probabilities).
The oracle checks many inputs at once: all ``n`` inputs times all ``m`` protected variants go to the
model in **one** ``predict_proba`` call, or in as few calls as keep each call's input within
``MEMORY_BUDGET`` bytes (so a protected attribute with 100,000 values, or 100,000 seeds, does not
build gigabytes of variants at once).

Counting conventions of the literature (every count in fairnb says which it used):

``"adf"``   unique *without* the protected attributes (ADF, NeuronFair): two IDIs that differ only
            in a protected value are one.
``"eidig"`` unique full instances (EIDIG, MAFT).

Example
-------
>>> import numpy as np
>>> from fairnb.domains import Feature, TabularDomain
>>> from fairnb.models import FunctionModel
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 3)], protected=["sex"])
>>> oracle = Oracle(FunctionModel(lambda X: X[:, 0] * (X[:, 1] > 1)), dom)
>>> oracle.check([[0, 3], [1, 0]]).discriminatory.tolist()
[True, False]
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .models import as_probability_matrix, wrap

MEMORY_BUDGET = 64 * 2 ** 20   # bytes of float64 model input per model call (override: fairnb.oracle.MEMORY_BUDGET)


def rows_per_call(row_bytes: int, budget: int | None = None) -> int:
    """Rows of ``row_bytes`` each that fit one call under ``budget`` (default ``MEMORY_BUDGET``); at least 1.

    >>> rows_per_call(8 * 100, budget=8000)
    10
    """
    return max(1, int((MEMORY_BUDGET if budget is None else budget) // max(row_bytes, 1)))


def in_pieces(f, *arrays, row_bytes: int):
    """``f(*arrays)`` computed on consecutive row slices that each stay within ``MEMORY_BUDGET`` (at
    ``row_bytes`` per row), the pieces concatenated; ``f`` may return an array or a tuple of arrays.

    >>> in_pieces(lambda a, b: a + b, np.arange(5.0), np.ones(5), row_bytes=MEMORY_BUDGET // 2).tolist()
    [1.0, 2.0, 3.0, 4.0, 5.0]
    """
    n = len(arrays[0])
    step = rows_per_call(row_bytes)
    if n <= step:
        return f(*arrays)
    parts = [f(*(a[i:i + step] for a in arrays)) for i in range(0, n, step)]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate(p) for p in zip(*parts))
    return np.concatenate(parts)


@dataclass
class Verdict:
    """The oracle's answer for a batch of ``n`` inputs with ``m`` protected variants each."""

    X: np.ndarray                  # (n, d) the inputs
    proba: np.ndarray              # (n, k) model output on X
    protected: list                # the domain's protected columns
    protected_values: np.ndarray   # (m, len(protected)) the values of the m variants
    variant_proba: np.ndarray      # (n, m, k)
    discriminatory: np.ndarray     # (n,) bool
    counterpart_index: np.ndarray  # (n,) variant chosen as counterpart (-1 when none)

    @property
    def labels(self) -> np.ndarray:
        return self.proba.argmax(axis=1)

    @property
    def counterpart(self) -> np.ndarray:
        """(n, d) the counterpart of each input (the input itself where there is none)."""
        out = self.X.copy()
        d = self.discriminatory
        out[np.ix_(d, self.protected)] = self.protected_values[self.counterpart_index[d]]
        return out

    @property
    def counterpart_proba(self) -> np.ndarray:
        idx = np.where(self.counterpart_index < 0, 0, self.counterpart_index)
        out = self.variant_proba[np.arange(len(self.X)), idx]
        return np.where(self.discriminatory[:, None], out, self.proba)

    @property
    def max_difference_index(self) -> np.ndarray:
        """(n,) the variant whose output differs most from the input's (ADF's global counterpart)."""
        diff = np.abs(self.variant_proba - self.proba[:, None, :]).sum(axis=2)
        return diff.argmax(axis=1)

    def __len__(self):
        return len(self.X)


class Oracle:
    """Checks batches of inputs for individual discrimination against ``domain.protected``.

    Parameters
    ----------
    model : anything ``fairnb.models.wrap`` accepts.
    domain : a domain with at least one protected attribute.
    validate : check inputs (shape, NaN, bounds) before querying; searches that construct their own
        candidates inside the domain turn it off on the hot path.
    """

    def __init__(self, model, domain, *, validate: bool = True):
        if not getattr(domain, "protected", ()):
            raise ValueError("the domain has no protected attribute; pass protected=[...]")
        self.model = wrap(model)
        self.domain = domain
        self.validate = validate
        self.rows_queried = 0
        self.calls = 0

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """One counted model call, its output checked to be an ``(n, k)`` probability matrix."""
        X = np.asarray(X, dtype=float)
        self.calls += 1
        self.rows_queried += len(X)
        return as_probability_matrix(self.model.predict_proba(X), len(X), source="the model")

    def check(self, X) -> Verdict:
        """Decide for every row of ``X`` whether it is discriminatory, in as few model calls as
        ``MEMORY_BUDGET`` allows (one for ordinary batches)."""
        X = self.domain.validate(X) if self.validate else np.asarray(X, dtype=float)
        n, d = X.shape
        values = self.domain.protected_values
        m, prot = len(values), list(self.domain.protected)
        if n == 0:
            return Verdict(X, np.zeros((0, 2)), prot, values, np.zeros((0, m, 2)), np.zeros(0, bool), np.zeros(0, int))
        def outputs(rows):
            return self.predict_proba(self.domain.variants(rows).reshape(-1, d)).reshape(len(rows), m, -1)

        P_all = in_pieces(outputs, X, row_bytes=m * d * 8)
        own = self.domain.own_variant(X)
        P = P_all[np.arange(n), own]
        labels = P.argmax(axis=1)
        differs = P_all.argmax(axis=2) != labels[:, None]  # (n, m)
        score = np.where(differs, np.abs(P_all - P[:, None, :]).sum(axis=2), -1.0)
        idx = score.argmax(axis=1)
        disc = differs.any(axis=1)
        return Verdict(X, P, prot, values, P_all, disc, np.where(disc, idx, -1))

    def is_discriminatory(self, X) -> np.ndarray:
        return self.check(X).discriminatory

"""A LIME-style tabular perturbation sampler, written in fairnb (no dependency on the lime package).

SG uses LIME only to draw a neighbourhood around an input, then fits a decision tree to the model's
labels of it. Two modes:

``"marginal"`` (default; LIME with every feature categorical, as in the ADF re-implementation):
    each feature is drawn independently from its value frequencies in the training data.
``"gaussian"``: each feature is ``x + N(0, std)`` with the feature's training standard deviation
    (LIME's ``sample_around_instance=True``), rounded and clipped into the domain.

Row 0 of every neighbourhood is the input itself, so its path is defined by the tree that was fitted.

Example
-------
>>> import numpy as np
>>> data = np.array([[0, 1], [0, 2], [1, 2], [1, 2]], dtype=float)
>>> s = LimeSampler(data, lower=[0, 0], upper=[1, 3], n_samples=6)
>>> N = s.sample(np.array([[1.0, 3.0]]), np.random.default_rng(0))
>>> N.shape, N[0, 0].tolist()
((1, 6, 2), [1.0, 3.0])
"""
from __future__ import annotations

import numpy as np

MODES = ("marginal", "gaussian")


class LimeSampler:
    """Neighbourhoods of inputs drawn like LIME's tabular explainer.

    Parameters
    ----------
    data : training data (its marginals / spreads define the neighbourhood).
    lower, upper : the domain bounds (gaussian samples are clipped into them).
    n_samples : rows per neighbourhood, the input included (LIME's default 5000).
    mode : ``"marginal"`` or ``"gaussian"``.
    """

    def __init__(self, data, lower, upper, *, n_samples: int = 5000, mode: str = "marginal"):
        data = np.asarray(data, dtype=float)
        if data.ndim != 2 or len(data) == 0:
            raise ValueError("the sampler needs a non-empty 2-D array of training data")
        if mode not in MODES:
            raise ValueError(f"sampler mode must be one of {MODES}, got {mode!r}")
        if n_samples < 2:
            raise ValueError("n_samples must be at least 2 (the input and one neighbour)")
        self.mode = mode
        self.n_samples = n_samples
        self.lower = np.asarray(lower, dtype=float)
        self.upper = np.asarray(upper, dtype=float)
        self.std = data.std(axis=0)
        self.values, self.cdf = [], []
        for column in data.T:
            values, counts = np.unique(column, return_counts=True)
            self.values.append(values)
            self.cdf.append(np.cumsum(counts) / counts.sum())

    def sample(self, X, rng: np.random.Generator) -> np.ndarray:
        """Neighbourhoods of every row of ``X``: shape ``(len(X), n_samples, d)``, row 0 the input."""
        X = np.asarray(X, dtype=float)
        n, d = X.shape
        S = self.n_samples
        if self.mode == "marginal":
            out = np.empty((n, S, d))
            u = rng.random((n, S, d))
            for j in range(d):
                idx = np.minimum(np.searchsorted(self.cdf[j], u[:, :, j], side="right"), len(self.cdf[j]) - 1)
                out[:, :, j] = self.values[j][idx]
        else:
            out = X[:, None, :] + rng.standard_normal((n, S, d)) * self.std
            out = np.clip(np.rint(out), self.lower, self.upper)
        out[:, 0, :] = X
        return out

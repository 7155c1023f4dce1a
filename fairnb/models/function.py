"""Any Python callable as a black-box model."""
from __future__ import annotations

import numpy as np

from .base import as_probability_matrix


class FunctionModel:
    """Wrap ``fn(X) -> probabilities`` (``(n,)`` for P(y=1), or ``(n, k)``).

    Example
    -------
    >>> import numpy as np
    >>> m = FunctionModel(lambda X: (X[:, 0] > 2).astype(float))
    >>> m.predict_proba(np.array([[1.0], [3.0]])).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """

    def __init__(self, fn, name: str | None = None):
        if not callable(fn):
            raise TypeError(f"expected a callable, got {type(fn).__name__}")
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "function")

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        return as_probability_matrix(self.fn(X), len(X), source=f"model {self.name!r}")

    def __repr__(self):
        return f"FunctionModel({self.name})"

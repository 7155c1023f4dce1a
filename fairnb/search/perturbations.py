"""Perturbations: small objects that turn a search direction into new inputs of a domain, so that a
strategy composes one instead of writing the domain's columns itself (as TextAttack composes a
transformation into a search). Tabular: ``UnitStep``; a word swap or a pixel step implements the
same three members for text and images.

``movable``
    ``(d,)`` bool, the parts of an input a step may change (never the protected ones).
``counterpart(X, variant)``
    each input with its protected part replaced by its ``variant``-th protected variant.
``apply(X, direction, size)``
    the inputs moved by ``size * direction`` on the movable parts, projected back onto the domain.

Example
-------
>>> from fairnb.domains import Feature, TabularDomain
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 3)], protected=["sex"])
>>> step = UnitStep(dom)
>>> step.apply(np.array([[0.0, 3.0]]), np.array([[1.0, 1.0]])).tolist()   # sex never moves; x is clipped
[[0.0, 3.0]]
>>> step.counterpart(np.array([[0.0, 2.0]]), np.array([1])).tolist()
[[1.0, 2.0]]
"""
from __future__ import annotations

import numpy as np


class UnitStep:
    """Integer steps on the non-protected features of a ``TabularDomain``, rounded and clipped into its bounds."""

    def __init__(self, domain):
        self.domain = domain
        self.movable = np.ones(domain.n_features, bool)
        self.movable[list(domain.protected)] = False

    def counterpart(self, X: np.ndarray, variant: np.ndarray) -> np.ndarray:
        """``X`` with the protected columns set to ``domain.protected_values[variant]`` (a copy)."""
        out = np.array(X, dtype=float)
        out[:, list(self.domain.protected)] = self.domain.protected_values[variant]
        return out

    def apply(self, X: np.ndarray, direction: np.ndarray, size: float = 1.0) -> np.ndarray:
        """``clip(X + size * direction)`` with the protected columns left as they are."""
        return self.domain.clip(X + size * np.where(self.movable, direction, 0.0))

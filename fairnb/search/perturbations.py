"""Transformations: what one step of a search is, for one kind of input (TextAttack composes an attack
from a goal, constraints, a transformation and a search; fairnb's two-phase skeleton,
``fairnb.search.two_phase.TwoPhase``, asks its transformation for these members). Tables: ``UnitStep``;
texts: ``fairnb.search.text_steps.WordSwap``.

``movable(X)``
    the parts of each input a step may change (never the protected ones), a mask that broadcasts
    against the inputs' gradients.
``variant(X, j, verdict, rows)``
    each input's ``j``-th protected variant (``verdict``: the oracle's answer on the inputs, ``rows`` of it).
``pair(X, C)``
    each input with its protected part taken from ``C`` (its counterpart after the input moved).
``own_variant(X)``
    the index of each input's own variant among its protected variants.
``start(X)``
    what the transformation records per row about how an input was reached (None: nothing).
``apply(X, direction, size)`` (``UnitStep``)
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
>>> step.pair(np.array([[0.0, 1.0]]), np.array([[1.0, 2.0]])).tolist()
[[1.0, 1.0]]
"""
from __future__ import annotations

import numpy as np


class UnitStep:
    """Integer steps on the non-protected features of a ``TabularDomain``, rounded and clipped into its bounds."""

    def __init__(self, domain):
        self.domain = domain
        self._protected = list(domain.protected)
        self._movable = np.ones(domain.n_features, bool)
        self._movable[self._protected] = False

    def movable(self, X=None) -> np.ndarray:
        """``(d,)``: the non-protected features."""
        return self._movable

    def start(self, X) -> None:
        return None

    def own_variant(self, X) -> np.ndarray:
        return self.domain.own_variant(X)

    def counterpart(self, X: np.ndarray, variant: np.ndarray) -> np.ndarray:
        """``X`` with the protected columns set to ``domain.protected_values[variant]`` (a copy)."""
        out = np.array(X, dtype=float)
        out[:, self._protected] = self.domain.protected_values[variant]
        return out

    def variant(self, X, j, verdict=None, rows=None) -> np.ndarray:
        return self.counterpart(X, j)

    def pair(self, X: np.ndarray, C: np.ndarray) -> np.ndarray:
        """``X`` with the protected columns of ``C`` (a copy)."""
        out = np.array(X, dtype=float)
        out[:, self._protected] = C[:, self._protected]
        return out

    def apply(self, X: np.ndarray, direction: np.ndarray, size: float = 1.0) -> np.ndarray:
        """``clip(X + size * direction)`` with the protected columns left as they are."""
        return self.domain.clip(X + size * np.where(self._movable, direction, 0.0))

"""The parts a two-phase search is composed from, besides its transformation (``fairnb.search.parts.transformations``):
its **gradient source** (where the guidance of a step comes from) and its **direction rule** (which way a global
step goes, from the gradients at an input and at its counterpart).

A gradient source is called as ``source(ctx, X, XC, PX, PC, rows=..., t=..., phase=...)`` and returns the
gradients at the inputs ``X`` and at their counterparts ``XC`` (model outputs ``PX``, ``PC``), shaped like the
inputs; ``begin_population(size)`` is called when a population (all seeds, or one batch of walkers) starts, and
``backprop_rows`` says whether its rows count as ``gradient_rows`` in the Result. The sources here:

``Backprop(objective)``
    the model's own input gradient of each row's predicted class, its probability (``"proba"``, EIDIG) or loss
    (``"loss"``, ADF, DICE), for ``X`` and ``XC`` in one call;
``ForwardDifference(h, vectorised)``
    MAFT's zero-order estimate from outputs alone (``fairnb.search.parts.finite_difference``).

NeuronFair's dynamic loss (``fairnb.search.methods.neuronfair.DynamicLoss``) and the random-direction estimate of
``fairnb.search.methods.zero_order_image.RandomDirections`` are sources too. A method names its source in
``gradient_source()``, built from its parameters when a run starts (so ``set_params`` and ``clone`` see no
stale part), and the image searches of ``fairnb.search.methods.image_flip`` are recipes: the same sources and direction
rules as the tabular methods, over the image transformation.

Example
-------
>>> import numpy as np
>>> proba = lambda X: np.stack([1 - X[:, 0] / 4, X[:, 0] / 4], axis=1)
>>> ctx = type("Ctx", (), {"oracle": type("O", (), {"predict_proba": staticmethod(proba)})})()
>>> X = np.array([[3.0, 1.0]])
>>> g, gc = ForwardDifference(h=1.0)(ctx, X, X, proba(X), proba(X), rows=np.arange(1), t=0, phase="global")
>>> g.tolist(), descend_agreeing(g, gc).tolist()
([[0.25, 0.0]], [[-1.0, -0.0]])
"""
from __future__ import annotations

import numpy as np

from ...oracle import in_pieces
from .finite_difference import class_probability_gradient


def agreeing_signs(G1: np.ndarray, G2: np.ndarray) -> np.ndarray:
    """``sign(g1)`` where ``sign(g1) == sign(g2)``, else 0 (ADF's Algorithm 3; zeros agree and give 0).

    >>> agreeing_signs(np.array([[1., -2, 3, 0, 5]]), np.array([[2., 1, 1, 0, -1]])).tolist()
    [[1.0, 0.0, 1.0, 0.0, 0.0]]
    """
    s = np.sign(G1)
    return np.where(s == np.sign(G2), s, 0.0)


def ascend_agreeing(G1: np.ndarray, G2: np.ndarray) -> np.ndarray:
    """ADF's (and DICE's) direction: up the loss where both gradients agree in sign."""
    return 1.0 * agreeing_signs(G1, G2)


def descend_agreeing(G1: np.ndarray, G2: np.ndarray) -> np.ndarray:
    """EIDIG's (and MAFT's) direction: down the class probability where both gradients agree in sign."""
    return -1.0 * agreeing_signs(G1, G2)


def sign_of_sum(G1: np.ndarray, G2: np.ndarray) -> np.ndarray:
    """NeuronFair's direction: ``sign(g + g')``."""
    return np.sign(G1 + G2)


class GradientSource:
    """Base of the gradient sources (see the module docstring)."""

    backprop_rows = True

    def begin_population(self, size: int) -> None:
        """Called when a population of ``size`` rows starts (nothing by default)."""

    def __call__(self, ctx, X, XC, PX, PC, *, rows, t, phase) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError


class Backprop(GradientSource):
    """White-box ``input_gradient`` of each row's predicted class (``objective``: ``"proba"`` or ``"loss"``),
    one call for ``X`` and ``XC`` (in pieces within the memory budget)."""

    def __init__(self, objective: str = "proba"):
        self.objective = objective

    def __call__(self, ctx, X, XC, PX, PC, *, rows, t, phase):
        n = len(X)
        classes = np.concatenate([PX.argmax(axis=1), PC.argmax(axis=1)])
        G = in_pieces(lambda z, c: np.asarray(ctx.model.input_gradient(z, c, of=self.objective), dtype=float),
                      np.concatenate([X, XC]), classes, row_bytes=X[0].size * 8)
        return G[:n], G[n:]


class ForwardDifference(GradientSource):
    """MAFT's forward-difference estimate of each row's predicted-class probability gradient, from the oracle's
    ``predict_proba`` (``h``: the perturbation; ``vectorised``: one model call for all probes). Its cost is model
    rows (``model_rows``), not ``gradient_rows``."""

    backprop_rows = False

    def __init__(self, h: float = 1.0, vectorised: bool = True):
        self.h, self.vectorised = h, vectorised

    def __call__(self, ctx, X, XC, PX, PC, *, rows, t, phase):
        n = len(X)
        G = class_probability_gradient(ctx.oracle.predict_proba, np.vstack([X, XC]), self.h,
                                       base_proba=np.vstack([PX, PC]), vectorised=self.vectorised)
        return G[:n], G[n:]

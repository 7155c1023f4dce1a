"""Transformations: what one step of a search is, for one kind of input (TextAttack composes an attack
from a goal, constraints, a transformation and a search; fairnb's two-phase skeleton,
``fairnb.search.methods.two_phase.TwoPhase``, asks its transformation for these members). Tables: ``UnitStep``;
texts: ``fairnb.search.parts.text_steps.WordSwap``; images: ``PixelStep``.

``movable(X)``
    the parts of each input a step may change (never the protected ones), a mask that broadcasts
    against the inputs' gradients.
``variant(X, j, verdict, rows)``
    each input's ``j``-th protected variant (``verdict``: the oracle's answer on the inputs, ``rows`` of it).
``pair(X, C)`` (kinds with a local phase: ``UnitStep``, ``WordSwap``)
    each input with its protected part taken from ``C`` (its counterpart after the input moved).
``own_variant(X)``
    the index of each input's own variant among its protected variants.
``start(X, ids)``
    what the transformation records per row about how the inputs ``X`` (descending from the seeds ``ids``)
    were reached (None: nothing).
``random_step(X, prob, rng, ...)``
    each input with one movable part, drawn with the row's probabilities ``prob``, changed at random (a
    feature one step up or down, a word swapped for a random neighbour).
``apply(X, direction, size, trace)`` (``UnitStep``, ``PixelStep``)
    the inputs moved by ``size * direction`` on the movable parts, projected back onto the domain (and,
    for images, into the constraints around each input's seed).

A strategy asks the transformation for candidates and decides which to take; a new method is a
strategy over an existing transformation (its gradients, direction and local plan), a new input kind a
new transformation.

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

from dataclasses import dataclass

import numpy as np


def pick_attributes(prob: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One column per row, drawn with the row's probabilities (vectorised inverse-CDF sampling)."""
    c = np.cumsum(prob, axis=1)
    c /= c[:, -1:]
    return np.minimum((c < rng.random((len(prob), 1))).sum(axis=1), prob.shape[1] - 1)


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

    def start(self, X, ids=None) -> None:
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

    def apply(self, X: np.ndarray, direction: np.ndarray, size: float = 1.0, trace=None) -> np.ndarray:
        """``clip(X + size * direction)`` with the protected columns left as they are."""
        return self.domain.clip(X + size * np.where(self._movable, direction, 0.0))

    def random_step(self, X: np.ndarray, prob: np.ndarray, rng: np.random.Generator, size: float = 1.0) -> np.ndarray:
        """Each input with one feature, drawn with the row's probabilities ``prob``, moved ``size`` up or down
        (probability 1/2 each), then clipped."""
        move = np.zeros_like(X)
        move[np.arange(len(X)), pick_attributes(prob, rng)] = rng.choice([-1.0, 1.0], size=len(X))
        return self.apply(X, move, size)


def checked_variant(verdict, rows, j) -> list:
    """The ``j``-th of the variants the oracle checked for each of ``verdict``'s ``rows`` (domains whose
    inputs list their own variants: texts, images)."""
    return [verdict.variant_items[r][k] for r, k in zip(rows, j)]


def pixels(X) -> np.ndarray:
    """Clipped to [0, 1] and rounded to float32 (what the models compute with, and what a Result stores
    compactly), kept as float64."""
    return np.clip(X, 0.0, 1.0).astype(np.float32).astype(float)


@dataclass
class FlipTrace:
    """What ``PixelStep`` keeps per image: the ``seed`` it started from and the seed's attribute flip ``delta``."""

    seed: np.ndarray
    delta: np.ndarray

    def take(self, idx) -> "FlipTrace":
        return FlipTrace(self.seed[idx], self.delta[idx])

    def replace(self, mask, other: "FlipTrace") -> "FlipTrace":
        """The rows of ``other`` where ``mask``, these elsewhere."""
        shape = (-1,) + (1,) * (self.seed.ndim - 1)
        return FlipTrace(np.where(mask.reshape(shape), other.seed, self.seed),
                         np.where(mask.reshape(shape), other.delta, self.delta))

    @classmethod
    def concat(cls, parts: list["FlipTrace"]) -> "FlipTrace":
        return cls(np.concatenate([p.seed for p in parts]), np.concatenate([p.delta for p in parts]))


class PixelStep:
    """Pixel steps on images whose attribute flip stays fixed (NeuronFair's image search): an image ``x``
    moves by ``delta_bias``, its counterpart is ``x + delta_senatt`` (the seed's flip), both clipped to [0, 1].

    ``flipped``: each seed's flipped image (``domain.flip(seeds).X_flipped``); ``project``: moves candidates
    back into the active constraints (``SearchContext.project``).

    >>> seeds = np.full((1, 1, 2, 1), 0.5)
    >>> step = PixelStep(seeds, seeds + [[[[0.1], [-0.1]]]])
    >>> trace = step.start(seeds, np.array([0]))
    >>> step.counterpart(seeds + 0.45, trace).ravel().tolist()      # the flip, clipped to [0, 1]
    [1.0, 0.8500000238418579]
    >>> step.apply(seeds, np.ones_like(seeds), 0.7, trace).ravel().tolist()
    [1.0, 1.0]
    """

    def __init__(self, seeds, flipped, project=None):
        self.seeds = np.asarray(seeds, dtype=float)
        self.deltas = np.subtract(flipped, self.seeds, dtype=float)    # no float64 copy of float32 flips
        self.project = project

    def movable(self, X) -> np.ndarray:
        """Every pixel."""
        return np.ones(np.shape(X)[1:], bool)

    def start(self, X, ids) -> FlipTrace:
        return FlipTrace(np.array(X, dtype=float), self.deltas[ids])

    def own_variant(self, X) -> np.ndarray:
        return np.zeros(len(X), dtype=np.int64)

    def variant(self, X, j, verdict, rows) -> np.ndarray:
        return np.array(checked_variant(verdict, rows, j), dtype=float).reshape(np.shape(X))

    def counterpart(self, X, trace: FlipTrace) -> np.ndarray:
        """Each image with its seed's flip."""
        return pixels(X + trace.delta)

    def apply(self, X, direction, size: float, trace: FlipTrace) -> np.ndarray:
        """``X + size * direction`` in [0, 1], projected into the constraints around each image's seed."""
        X = pixels(X + size * direction)
        return X if self.project is None else self.project(X, trace.seed)

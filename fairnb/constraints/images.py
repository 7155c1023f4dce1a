"""Constraints that keep a generated image a face like its seed (NeuronFair digest §1.11 and §3.3):

* ``PixelBudget``: the search's own change Δ_bias = x − seed stays within ``linf`` in every pixel
  (NeuronFair's and ADF's steps otherwise walk to noise: on an unbiased detector the median L∞ reached 0.95),
  by default 8/255 (``DEFAULT_LINF``);
* ``AttributeConfirmed`` (a pair constraint): the attribute classifier f_sa sees the input and its
  counterpart differently, so the pair really differs in the attribute (NeuronFair's stricter option,
  ``strict`` in the paper's terms).

Example
-------
>>> import numpy as np
>>> seeds = np.full((2, 2, 2, 3), 0.5)
>>> X = seeds.copy(); X[1, 0, 0, 0] = 0.9
>>> PixelBudget(linf=0.1).allowed(None, X, seeds).tolist()
[True, False]
"""
from __future__ import annotations

import numpy as np

from .base import Constraint


#: The default budget of Δ_bias: 8 of 255 levels per pixel, the L∞ radius under which an image of this size is
#: taken to be the same image (the adversarial-robustness convention for 32x32 photographs, e.g. Madry et al.
#: 2018 on CIFAR-10) and, on fairnb's synthetic faces, no more than the renderer's own pixel noise (sd 0.03).
#: A pair is read as "this face, changed only in its attribute": a face moved further is no longer the seed
#: face a reader sees (``benchmarks/results/twins.md`` measures what the budget does to a tone-blind twin).
DEFAULT_LINF = 8 / 255


class PixelBudget(Constraint):
    """No pixel moves more than ``linf`` from the seed (Δ_bias within an L∞ budget); the default is
    ``DEFAULT_LINF`` (8/255)."""

    name = "pixel_budget"

    def __init__(self, linf: float = DEFAULT_LINF):
        if isinstance(linf, bool) or not isinstance(linf, (int, float)) or not 0 < linf <= 1:
            raise ValueError(f"PixelBudget: linf must be a number in (0, 1], got {linf!r}")
        self.linf = float(linf)

    def describe(self) -> str:
        return f"no pixel changed by more than {self.linf:.3g} ({self.linf * 255:.3g} of 255 levels) from the seed face"

    def allowed(self, domain, X, seeds, counterparts=None) -> np.ndarray:
        if seeds is None:
            return np.ones(len(X), bool)
        moved = np.abs(np.asarray(X, float) - np.asarray(seeds, float)).reshape(len(X), -1)
        return moved.max(axis=1, initial=0.0) <= self.linf + 1e-9

    def project(self, X, seeds) -> np.ndarray:
        """``X`` moved back into the budget around ``seeds`` (and into [0, 1])."""
        return np.clip(np.clip(X, seeds - self.linf, seeds + self.linf), 0.0, 1.0)


class AttributeConfirmed(Constraint):
    """f_sa (the domain's attribute classifier) decides the attribute differently on the two sides of a pair."""

    name = "attribute_confirmed"
    stage = "pair"

    def describe(self) -> str:
        return "the attribute classifier sees the two faces of a pair differently"

    def allowed(self, domain, X, seeds, counterparts=None) -> np.ndarray:
        model = getattr(domain, "attribute_model", None)
        if model is None or counterparts is None or not len(X):
            return np.ones(len(X), bool)
        both = np.concatenate([np.asarray(X), np.asarray(counterparts)]).astype(np.float32)
        seen = np.asarray(model.predict_proba(both)).argmax(axis=1)
        return seen[:len(X)] != seen[len(X):]


def default_image_constraints() -> list[Constraint]:
    """An image domain's defaults: Δ_bias within L∞ 8/255, and pairs that f_sa confirms."""
    return [PixelBudget(), AttributeConfirmed()]

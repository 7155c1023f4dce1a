"""A black-box image search: EIDIG's image variant with zero-order gradients (MAFT's idea, for images).

MAFT replaces EIDIG's backpropagated gradients with forward differences along each attribute, which costs
``d`` model rows per input: fine for a table of 13 columns, not for a 128 x 128 colour image (49,152 pixels).
Here the gradient of each image's predicted-class probability ``F_p`` is estimated along ``n_directions``
random Gaussian directions ``u_j`` with antithetic (central) differences,

    g(x) = 1/q * sum_j (F_p(x + sigma u_j) - F_p(x - sigma u_j)) / (2 sigma) * u_j,

``2 q`` model rows per image, all of them (every image and its counterpart of a step) in one batched call
within ``fairnb.oracle.MEMORY_BUDGET``. ``g`` estimates the gradient of ``F_p`` smoothed at scale ``sigma``
(exact in expectation for a linear ``F_p``); its cosine with the true gradient grows like ``sqrt(q / d)``, and
EIDIG's momentum (``decay``) averages the estimates over the steps. Probe images are not clipped to [0, 1], as
in MAFT. Everything else is :class:`~fairnb.search.methods.image_flip.EIDIGImage`'s: the attribute flip fixed per seed,
the same pixel budget and constraints, the pair ``<x + delta_bias, x + delta_bias + delta_senatt>``, one IDI
per seed. The model needs only ``predict_proba``: a TFLite interpreter, an ONNX session, a callable.

Example (the doctest of :mod:`fairnb.search.methods.image_flip`, with a black-box detector)
-------
>>> import numpy as np
>>> from fairnb.domains import ImageDomain
>>> from fairnb.images import FGSMFlip
>>> from fairnb.models import NumpyMLP
>>> red = np.zeros((12, 1)); red[0::3] = 1.0
>>> f_sa = NumpyMLP([red * 4], [np.array([-8.0])])
>>> detector = NumpyMLP([red * 3], [np.array([-6.4])]).predict_proba        # a plain callable: no gradients
>>> dom = ImageDomain((2, 2, 3), FGSMFlip(step=0.05, attribute_model=f_sa), attribute="tint")
>>> seeds = np.random.default_rng(0).uniform(0.2, 0.5, (20, 2, 2, 3))
>>> r = ZeroOrderImage(signed=True, global_step=0.02, random_state=0).run(detector, dom, seeds=seeds)
>>> r.count() > 0
True
"""
from __future__ import annotations

import warnings

import numpy as np

from ...models import outputs_hard_labels
from ...oracle import in_pieces
from ...params import COUNT, POSITIVE
from .image_flip import EIDIGImage
from ..parts.gradients import GradientSource


def random_direction_gradient(predict_proba, X, n_directions: int = 20, sigma: float = 0.01, rng=None, *,
                              base_proba=None, grid: int | None = None, antithetic: bool = True) -> np.ndarray:
    """The random-direction estimate of the gradient of each row's predicted-class probability (see the module
    docstring), shape of ``X``; ``base_proba`` may give ``predict_proba(X)``. ``grid``: directions drawn on a
    ``grid`` x ``grid`` lattice per channel and spread over blocks of pixels (images ``(n, H, W, C)`` only);
    ``antithetic=False``: forward differences from ``base_proba`` (``n_directions`` model rows per row, not
    twice as many).

    >>> import numpy as np
    >>> proba = lambda X: np.stack([1 - X[:, 0] / 4, X[:, 0] / 4], axis=1)     # linear: the estimate's mean is exact
    >>> g = random_direction_gradient(proba, np.array([[3.0, 1.0]]), 20_000, 0.1, np.random.default_rng(0))
    >>> bool(np.abs(g - [[0.25, 0.0]]).max() < 0.01)
    True
    >>> mean = lambda X: np.stack([1 - X.mean((1, 2, 3)), X.mean((1, 2, 3))], axis=1)
    >>> blocks = random_direction_gradient(mean, np.full((1, 4, 4, 1), 0.2), 3, 0.1, 0, grid=2)
    >>> bool((blocks[0, :2, :2] == blocks[0, 0, 0]).all())                   # one value per 2 x 2 block
    True
    """
    X = np.asarray(X, dtype=float)
    rng = np.random.default_rng(rng)
    q, shape = int(n_directions), X.shape[1:]
    draw = _direction_sampler(shape, grid)
    base_proba = np.asarray(predict_proba(X) if base_proba is None else base_proba, dtype=float)
    classes = base_proba.argmax(axis=1)

    def estimate(rows, c, base):
        m = len(rows)
        U = draw(rng, (m, q))
        probes = [rows[:, None] + sigma * U] + ([rows[:, None] - sigma * U] if antithetic else [])
        P = np.asarray(predict_proba(np.concatenate(probes, axis=1).reshape(-1, *shape)), dtype=float)
        f = P.reshape(m, len(probes) * q, -1)[np.arange(m), :, c]              # F_p at the probes
        slopes = (f[:, :q] - (f[:, q:] if antithetic else base[np.arange(m), c][:, None])) / (sigma * len(probes))
        return np.einsum("mq,mq...->m...", slopes, U) / q

    return in_pieces(estimate, X, classes, base_proba, row_bytes=3 * 2 * q * X[0].size * 8)


def _direction_sampler(shape, grid):
    """``draw(rng, lead)``: standard normal directions of ``shape`` (on a ``grid`` lattice, repeated over blocks)."""
    if grid is None:
        return lambda rng, lead: rng.standard_normal((*lead, *shape))
    if len(shape) != 3:
        raise ValueError(f"grid= needs images (height, width, channels), got inputs of shape {shape}")
    h, w, ch = shape
    k = int(grid)
    rows, cols = np.arange(h) * min(k, h) // h, np.arange(w) * min(k, w) // w

    def draw(rng, lead):
        small = rng.standard_normal((*lead, min(k, h), min(k, w), ch))
        return small[..., rows, :, :][..., cols, :]

    return draw


class RandomDirections(GradientSource):
    """The gradient source of ``ZeroOrderImage``: ``random_direction_gradient`` of each image's predicted-class
    probability along ``n_directions`` random directions probed ``sigma`` away (``ctx.rng`` draws them), on a
    ``grid`` lattice or every pixel, central (``antithetic``) or forward differences; ``shared``: the input's
    estimate serves its counterpart too (half the model rows)."""

    def __init__(self, n_directions: int = 20, sigma: float = 0.01, grid: int | None = None, antithetic: bool = True,
                 shared: bool = False):
        self.n_directions, self.sigma, self.grid, self.antithetic, self.shared = (n_directions, sigma, grid,
                                                                                  antithetic, shared)

    def __call__(self, ctx, X, XC, PX, PC, *, rows, t, phase):
        n = len(X)
        Z, P = (X, PX) if self.shared else (np.concatenate([X, XC]), np.concatenate([PX, PC]))
        G = random_direction_gradient(ctx.oracle.predict_proba, Z, self.n_directions, self.sigma, ctx.rng,
                                      base_proba=P, grid=self.grid, antithetic=self.antithetic)
        return (G, G) if self.shared else (G[:n], G[n:])    # a pair still searched has one decision on both


class ZeroOrderImage(EIDIGImage):
    """EIDIG's image search with zero-order gradients (see the module docstring): the parameters of
    :class:`~fairnb.search.methods.image_flip.EIDIGImage` plus

    n_directions : random directions per gradient estimate (``2 * n_directions`` model rows per image).
    sigma : the probes' step along each direction, in pixel units ([0, 1] images).
    grid : None (directions over every pixel), or directions drawn on a ``grid`` x ``grid`` lattice per channel,
        each value spread over its block of pixels: a low-frequency subspace of ``3 grid**2`` dimensions, where
        few directions already point along the gradient's smooth part.
    antithetic : True (central differences, ``2 * n_directions`` rows per estimate) or False (forward
        differences from the output the last check already has: ``n_directions`` rows).
    shared : the input's estimate serves its counterpart too (the flip is fixed, and the
        pairs still searched get one decision on both sides), instead of one estimate each: half the model rows.
    """

    name = "zero_order_image"
    needs_gradients = False
    _parameter_constraints = {**EIDIGImage._parameter_constraints, "n_directions": [COUNT], "sigma": [POSITIVE],
                              "grid": [None, COUNT], "antithetic": [bool], "shared": [bool]}

    def __init__(self, n_seeds: int | None = None, max_iter: int = 40, decay: float = 0.5, n_directions: int = 20,
                 sigma: float = 0.01, grid: int | None = None, antithetic: bool = True, shared: bool = False,
                 global_step: float = 0.15, signed: bool = False, batch_size: int = 1000, *,
                 max_time: float | None = None, max_tried: int | None = None, max_found: int | None = None,
                 random_state: int | None = None, progress: bool | None = None, constraints="default", control=None):
        self.n_directions = n_directions
        self.sigma = sigma
        self.grid = grid
        self.antithetic = antithetic
        self.shared = shared
        super().__init__(n_seeds=n_seeds, max_iter=max_iter, decay=decay, global_step=global_step, signed=signed,
                         batch_size=batch_size, max_time=max_time, max_tried=max_tried, max_found=max_found,
                         random_state=random_state, progress=progress, constraints=constraints, control=control)

    def gradient_source(self):
        return RandomDirections(self.n_directions, self.sigma, self.grid, self.antithetic, self.shared)

    def _begin_pairs(self, ctx, seeds, ok):
        if outputs_hard_labels(ctx.oracle, seeds[ok[:64]]):
            warnings.warn(f"{self.name}: the model returns hard labels (probabilities exactly 0 or 1); zero-order "
                          "gradients are then zero almost everywhere and the search degrades toward random. Give it "
                          "a model with class probabilities.", UserWarning, stacklevel=2)

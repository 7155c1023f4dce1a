"""NeuronFair's interpretation: which hidden layer, and which neurons in it, react to the protected attribute.

For *normal pairs* ``<x, x'>`` (``x'`` = ``x`` with another protected value) NeuronFair (ICSE 2022,
Section 3.1) measures, per hidden neuron, the mean absolute activation difference (ActDiff) and
squashes it with ``tanh``. Per layer:

* the **AS curve** is the share of the layer's neurons whose normalised ActDiff exceeds a threshold
  ``t``, for ``t = 0, 0.005, ..., max`` (strict ``>``);
* its **AUC** (left Riemann sum, the share used as a fraction) measures how biased the layer is; in
  closed form ``AUC = (0.005 / n) * sum_k ceil(tanh(z_k) / 0.005)``, i.e. about the layer's mean;
* the layer with the largest AUC is the **most biased layer** (ties: the shallowest);
* its **biased neurons** are those above ``T_d``, the first grid point where the AS curve meets
  ``y = x`` (share <= t).

For multi-valued protected attributes the paper does not say which ``x'`` to use; fairnb averages
``|a(x) - a(x')|`` over all other protected values (all combinations with several protected attributes).

Example (the digest's closed form on a hand-built layer)
-------
>>> import numpy as np
>>> z = np.array([0.0, 0.0123, 0.5, 0.9])
>>> round(layer_auc(z), 6), round(float(0.005 / 4 * np.ceil(z / 0.005).sum()), 6)
(0.35375, 0.35375)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ... import oracle

STEP = 0.005


def as_curve(z_hat, step: float = STEP) -> tuple[np.ndarray, np.ndarray]:
    """The AS curve of one layer: thresholds ``t_j = j * step`` (``j = 0..floor(max/step)``) and the
    share of neurons with ``z_hat > t_j``."""
    z_hat = np.asarray(z_hat, dtype=float).ravel()
    if not len(z_hat):
        raise ValueError("a layer needs at least one neuron")
    top = float(z_hat.max())
    grid = np.arange(int(np.floor(top / step + 1e-9)) + 1) * step
    share = (z_hat[None, :] > grid[:, None]).mean(axis=1)
    return grid, share


def layer_auc(z_hat, step: float = STEP) -> float:
    """Area under the AS curve of one layer (the share as a fraction)."""
    _, share = as_curve(z_hat, step)
    return float(share.sum() * step)


def crossing_threshold(z_hat, step: float = STEP) -> float:
    """``T_d``: the first threshold where the AS curve is at or below ``y = x``."""
    grid, share = as_curve(z_hat, step)
    return float(grid[np.argmax(share <= grid)])


def activation_differences(model, domain, X) -> list[np.ndarray]:
    """Per hidden layer, each neuron's ActDiff: the mean over rows and over the other protected values of
    ``|a(x) - a(x')|``. One ``layer_outputs`` call for all rows and variants."""
    X = np.asarray(X, dtype=float)
    if not len(X):
        raise ValueError("need at least one input to measure activation differences")
    V = domain.variants(X)
    n, m = V.shape[:2]
    if m < 2:
        raise ValueError("the protected attribute has a single value: there is no pair to compare")
    own = domain.own_variant(X)
    out = []
    for A in model.layer_outputs(V.reshape((n * m,) + V.shape[2:])):
        A = np.asarray(A, dtype=float).reshape(n, m, -1)
        diff = np.abs(A - A[np.arange(n), own][:, None, :]).sum(axis=1) / (m - 1)
        out.append(diff.mean(axis=0))
    return out


def pair_activation_differences(model, X, X_other, batch_size: int | None = None) -> tuple[list[np.ndarray], int]:
    """Per hidden layer, each neuron's ActDiff over the pairs ``<X[i], X_other[i]>`` (e.g. images and their
    attribute flips), ``batch_size`` pairs per ``layer_outputs`` call; also how many pairs' decisions differ.

    By default a call takes as many pairs as keep their float64 activations within half of
    ``fairnb.oracle.MEMORY_BUDGET`` (the model's pieces and their concatenation exist at once): flattened
    convolution outputs are large (a 32 x 32 image through two convolutions: 190 KB), and 512 images at once
    left a ~300 MB transient in an image search (tutorial 05).

    >>> from fairnb.models import NumpyMLP
    >>> net = NumpyMLP([np.eye(2), np.array([[1.0], [-1.0]])], [np.zeros(2), np.zeros(1)])
    >>> diffs, changed = pair_activation_differences(net, np.array([[1.0, 0.0]]), np.array([[1.0, 2.0]]))
    >>> diffs[0].tolist(), changed
    ([0.0, 2.0], 1)
    """
    X, X_other = np.asarray(X, dtype=np.float32), np.asarray(X_other, dtype=np.float32)
    if X.shape != X_other.shape or not len(X):
        raise ValueError(f"X and X_other must be non-empty batches of the same shape; got {X.shape}, {X_other.shape}")
    if batch_size is None:
        batch_size = oracle.rows_per_call(2 * 8 * hidden_width(model, X[:1]), oracle.MEMORY_BUDGET // 2)
    sums, changed = None, 0
    for start in range(0, len(X), int(batch_size)):
        a, b = X[start:start + int(batch_size)], X_other[start:start + int(batch_size)]
        both = np.concatenate([a, b])
        layers = model.layer_outputs(both)
        if not layers:
            raise ValueError("the model has no hidden layer to measure")
        diffs = [np.abs(A[:len(a)] - A[len(a):]).reshape(len(a), -1).sum(axis=0) for A in layers]
        del layers              # before the next pairs' activations are computed
        sums = diffs if sums is None else [s + d for s, d in zip(sums, diffs)]
        decisions = model.predict_proba(both).argmax(axis=1)
        changed += int((decisions[:len(a)] != decisions[len(a):]).sum())
    return [total / len(X) for total in sums], changed


def hidden_width(model, x) -> int:
    """The hidden neurons of ``model`` (all hidden layers, flattened): from its ``layer_sizes`` (the output
    layer last) or, for a model without them, from its ``layer_outputs`` on the input ``x``.

    >>> from fairnb.models import NumpyMLP
    >>> hidden_width(NumpyMLP([np.ones((2, 3)), np.ones((3, 1))], [np.zeros(3), np.zeros(1)]), np.ones((1, 2)))
    3
    """
    sizes = getattr(model, "layer_sizes", None)
    if sizes is not None:
        return int(sum(sizes[:-1]))
    return int(sum(np.asarray(A).reshape(len(x), -1).shape[1] for A in model.layer_outputs(x)))


@dataclass
class Interpretation:
    """NeuronFair's findings on a model: per-layer normalised ActDiff and AUC, the most biased layer,
    its threshold ``T_d`` and its biased neurons (0-based indices within that layer)."""

    act_diff: list[np.ndarray]
    auc: list[float]
    biased_layer: int
    threshold: float
    biased_neurons: np.ndarray
    n_pairs: int

    def table(self) -> pd.DataFrame:
        """One row per hidden layer: neurons, AUC, whether it is the most biased layer, biased neurons."""
        return pd.DataFrame({
            "layer": np.arange(len(self.auc)),
            "neurons": [len(z) for z in self.act_diff],
            "auc": np.round(self.auc, 4),
            "most_biased": [i == self.biased_layer for i in range(len(self.auc))],
            "biased_neurons": [len(self.biased_neurons) if i == self.biased_layer else 0 for i in range(len(self.auc))],
        })

    def to_extras(self) -> dict:
        """Plain values for ``Result.extras`` (JSON-friendly; a widget can redraw the AS curves)."""
        return {"layer_auc": [round(a, 6) for a in self.auc], "biased_layer": int(self.biased_layer),
                "biased_threshold": round(self.threshold, 6),
                "biased_neurons": [int(k) for k in self.biased_neurons],
                "layer_act_diff": [np.round(z, 6).tolist() for z in self.act_diff],
                "interpretation_pairs": int(self.n_pairs)}


def interpret(model, domain, X, step: float = STEP, layer: int | None = None) -> Interpretation:
    """Run NeuronFair's Algorithm 1 and the biased-neuron rule on normal pairs built from ``X``.

    ``model`` must offer ``layer_outputs`` (NumpyMLP, Keras). ``layer`` forces the layer whose biased
    neurons are marked (default: the one with the largest AUC).
    """
    return interpret_differences(activation_differences(model, domain, X), len(X), step, layer)


def interpret_differences(act_diff, n_pairs: int, step: float = STEP, layer: int | None = None) -> Interpretation:
    """Algorithm 1 and the biased-neuron rule from per-layer ActDiffs (``activation_differences`` or
    ``pair_activation_differences``) measured on ``n_pairs`` normal pairs."""
    z_hat = [np.tanh(z) for z in act_diff]
    if not z_hat:
        raise ValueError("the model has no hidden layer to interpret")
    auc = [layer_auc(z, step) for z in z_hat]
    if layer is not None and not 0 <= layer < len(z_hat):
        raise ValueError(f"layer {layer} is not a hidden layer (0..{len(z_hat) - 1})")
    best = int(np.argmax(auc)) if layer is None else int(layer)
    t_d = crossing_threshold(z_hat[best], step)
    return Interpretation(z_hat, auc, best, t_d, np.flatnonzero(z_hat[best] > t_d), n_pairs)

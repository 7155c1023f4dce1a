"""The model protocol every search talks to, and the checks on what a model returns.

A model is anything with ``predict_proba(X) -> (n, k)`` on a numpy batch: one call for the whole
batch, rows of class probabilities. White-box adapters add input gradients and hidden-layer
activations; a search that needs them checks ``supports_gradients(model)``.

Example
-------
>>> import numpy as np
>>> from fairnb.models import wrap
>>> m = wrap(lambda X: 1 / (1 + np.exp(-X.sum(axis=1))))   # a callable returning P(y=1)
>>> m.predict_proba(np.zeros((2, 3))).tolist()
[[0.5, 0.5], [0.5, 0.5]]
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Model(Protocol):
    """Black box: class probabilities for a batch of encoded inputs."""

    def predict_proba(self, X: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class GradientModel(Model, Protocol):
    """White box: gradients with respect to the input.

    ``input_gradient(X, classes, of="proba")`` returns, row by row, the gradient of
    ``p[classes[i]]`` (``of="proba"``) or of the cross-entropy ``-log p[classes[i]]`` computed from
    the logits (``of="loss"``) with respect to ``X[i]``; shape ``(n, d)``.
    """

    def input_gradient(self, X: np.ndarray, classes: np.ndarray, of: str = "proba") -> np.ndarray: ...


@runtime_checkable
class ActivationModel(Model, Protocol):
    """White box: hidden-layer activations and gradients of weighted activations.

    ``layer_outputs(X)`` lists the post-activation outputs of the hidden layers, each ``(n, units)``.
    ``activation_gradient(X, layer, weights)`` is the gradient of ``sum_j weights[i, j] * a_j(X[i])``
    (layer ``layer``) with respect to ``X[i]``, shape ``(n, d)``.
    """

    def layer_outputs(self, X: np.ndarray) -> list[np.ndarray]: ...

    def activation_gradient(self, X: np.ndarray, layer: int, weights: np.ndarray) -> np.ndarray: ...


def supports_gradients(model) -> bool:
    return callable(getattr(model, "input_gradient", None))


def supports_activations(model) -> bool:
    return callable(getattr(model, "layer_outputs", None)) and callable(getattr(model, "activation_gradient", None))


def as_probability_matrix(P, n_rows: int, *, source: str = "model") -> np.ndarray:
    """Coerce a model's raw output to an ``(n, k)`` probability matrix, or raise ``ValueError``.

    A vector (or a single column) is read as ``P(y=1)`` of a binary classifier (one sigmoid
    output) and becomes ``[1 - p, p]``.

    >>> as_probability_matrix(["yes", "no"], 2)
    Traceback (most recent call last):
    ...
    ValueError: model returned 'yes' (str), not a number: expected (n,) probabilities of class 1 or an (n, k) probability matrix (predict_proba, not predict's labels)
    """
    try:
        P = np.asarray(P, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{source} returned {_not_a_number(P)}, not a number: expected (n,) probabilities of class 1 "
                         "or an (n, k) probability matrix (predict_proba, not predict's labels)") from None
    if P.ndim == 2 and P.shape[1] == 1:
        P = P[:, 0]
    if P.ndim == 1:
        P = np.stack([1.0 - P, P], axis=1)
    if P.ndim != 2 or P.shape[0] != n_rows:
        raise ValueError(f"{source} returned shape {np.shape(P)} for {n_rows} inputs; "
                         "expected (n,) probabilities of class 1 or an (n, k) probability matrix")
    if not np.isfinite(P).all():
        raise ValueError(f"{source} returned NaN or infinite outputs")
    if P.min() < -1e-6 or P.max() > 1 + 1e-6:
        raise ValueError(f"{source} output is not a probability: values range over "
                         f"[{P.min():.4g}, {P.max():.4g}] (logits? apply a softmax or sigmoid first)")
    if P.shape[1] > 1 and not np.allclose(P.sum(axis=1), 1.0, atol=1e-4):
        worst = float(np.abs(P.sum(axis=1) - 1).max())
        raise ValueError(f"{source} output rows do not sum to 1 (off by up to {worst:.4g}); "
                         "expected class probabilities")
    return P


def _not_a_number(P) -> str:
    """The first entry of a model's output ``P`` that is no number, with its type (``"'yes' (str)"``)."""
    for value in np.asarray(P, dtype=object).ravel():
        value = value.item() if isinstance(value, np.generic) else value
        try:
            float(value)
        except (TypeError, ValueError):
            return f"{value!r} ({type(value).__name__})"
    return "rows of different lengths"


def outputs_hard_labels(model, X: np.ndarray) -> bool:
    """True when the model's probabilities on ``X`` are all exactly 0 or 1 (a label-only model)."""
    P = model.predict_proba(X)
    return bool(np.isin(P, (0.0, 1.0)).all())

"""A dense ReLU network evaluated in numpy, with exact input gradients and activations.

This is the light white-box model: no TensorFlow needed, fast on small batches, and able to hold
the weights of a Keras model (see ``fairnb.models.keras``) or a scikit-learn ``MLPClassifier``.
Image batches ``(n, h, w, c)`` are flattened to rows (input gradients come back in the batch's shape).

Example
-------
>>> import numpy as np
>>> mlp = NumpyMLP([np.eye(2), np.ones((2, 1))], [np.zeros(2), np.zeros(1)])
>>> mlp.predict_proba(np.array([[0.0, 0.0]])).tolist()
[[0.5, 0.5]]
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

_ACTIVATIONS = {
    "relu": (lambda z: np.maximum(z, 0.0), lambda z: (z > 0).astype(z.dtype)),
    "tanh": (np.tanh, lambda z: 1.0 - np.tanh(z) ** 2),
    "identity": (lambda z: z, lambda z: np.ones_like(z)),
    "logistic": (lambda z: 1 / (1 + np.exp(-z)), lambda z: (s := 1 / (1 + np.exp(-z))) * (1 - s)),
}


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def logits_to_proba(z: np.ndarray, output: str) -> np.ndarray:
    """``(n, k)`` class probabilities from logits: ``"sigmoid"`` (one column of P(y=1) logits, giving
    ``[1 - p, p]``) or ``"softmax"``."""
    if output == "sigmoid":
        p = _sigmoid(z[:, 0])
        return np.stack([1.0 - p, p], axis=1)
    return _softmax(z)


class NumpyMLP:
    """Dense layers ``a_l = act(a_{l-1} @ W_l + b_l)``; the last layer gives logits.

    Parameters
    ----------
    weights, biases : one ``(in, out)`` matrix and ``(out,)`` vector per layer.
    activation : hidden activation, ``"relu"`` (default), ``"tanh"``, ``"logistic"`` or ``"identity"``.
    output : ``"sigmoid"`` for one output unit giving P(y=1), ``"softmax"`` for k units;
        by default sigmoid when the last layer has one unit.
    """

    def __init__(self, weights: Sequence[np.ndarray], biases: Sequence[np.ndarray],
                 activation: str = "relu", output: str | None = None, dtype=np.float64):
        if len(weights) != len(biases) or not weights:
            raise ValueError("need one bias vector per weight matrix, and at least one layer")
        self.weights = [np.asarray(W, dtype=dtype) for W in weights]
        self.biases = [np.asarray(b, dtype=dtype).reshape(-1) for b in biases]
        for i, (W, b) in enumerate(zip(self.weights, self.biases)):
            if W.ndim != 2 or W.shape[1] != b.shape[0]:
                raise ValueError(f"layer {i}: weight {W.shape} does not match bias {b.shape}")
            if i and W.shape[0] != self.weights[i - 1].shape[1]:
                raise ValueError(f"layer {i}: input width {W.shape[0]} != previous output {self.weights[i - 1].shape[1]}")
        if activation not in _ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; choose from {sorted(_ACTIVATIONS)}")
        self.activation = activation
        self._act, self._dact = _ACTIVATIONS[activation]
        k = self.weights[-1].shape[1]
        self.output = output or ("sigmoid" if k == 1 else "softmax")
        if self.output == "sigmoid" and k != 1:
            raise ValueError("a sigmoid output needs exactly one unit in the last layer")
        self.dtype = dtype

    # ------------------------------------------------------------------ description
    @property
    def n_features(self) -> int:
        return self.weights[0].shape[0]

    @property
    def layer_sizes(self) -> list[int]:
        return [W.shape[1] for W in self.weights]

    def __repr__(self):
        return f"NumpyMLP({self.n_features}-" + "-".join(map(str, self.layer_sizes)) + f", {self.output})"

    # ------------------------------------------------------------------ forward
    def _forward(self, X):
        """Pre-activations of every layer (the last are the logits)."""
        a = np.asarray(X, dtype=self.dtype)
        if a.ndim > 2:                               # images: one flat row each
            a = a.reshape(len(a), -1)
        if a.shape[-1:] != (self.n_features,):
            raise ValueError(f"the model takes inputs of width {self.n_features}; got shape {a.shape}")
        zs = []
        for i, (W, b) in enumerate(zip(self.weights, self.biases)):
            z = a @ W + b
            zs.append(z)
            if i < len(self.weights) - 1:
                a = self._act(z)
        return zs

    def _proba_from_logits(self, z):
        return logits_to_proba(z, self.output)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return self._proba_from_logits(self._forward(X)[-1])

    def layer_outputs(self, X: np.ndarray) -> list[np.ndarray]:
        return [self._act(z) for z in self._forward(X)[:-1]]

    def predict_proba_from(self, A: np.ndarray, layer: int) -> np.ndarray:
        """The output when hidden layer ``layer`` (0-based) has the activations ``A`` (``(n, width)``): the
        rest of the network after an intervention on that layer's neurons.

        >>> mlp = NumpyMLP([np.eye(2), np.ones((2, 1))], [np.zeros(2), np.zeros(1)])
        >>> mlp.predict_proba_from(np.array([[0.0, 0.0]]), 0).tolist()
        [[0.5, 0.5]]
        """
        if not 0 <= layer < len(self.weights) - 1:
            raise ValueError(f"layer {layer} is not a hidden layer (0..{len(self.weights) - 2})")
        a = np.asarray(A, dtype=self.dtype)
        if a.ndim != 2 or a.shape[1] != self.weights[layer].shape[1]:
            raise ValueError(f"hidden layer {layer} has {self.weights[layer].shape[1]} neurons; got shape {a.shape}")
        for i in range(layer + 1, len(self.weights)):
            z = a @ self.weights[i] + self.biases[i]
            a = self._act(z) if i < len(self.weights) - 1 else z
        return self._proba_from_logits(a)

    # ------------------------------------------------------------------ gradients
    def _backward(self, zs, delta, top: int):
        """Push ``delta`` = d s / d z_top back to the input."""
        g = delta
        for i in range(top, 0, -1):
            g = (g @ self.weights[i].T) * self._dact(zs[i - 1])
        return g @ self.weights[0].T

    def input_gradient(self, X: np.ndarray, classes, of: str = "proba") -> np.ndarray:
        zs = self._forward(X)
        n = zs[-1].shape[0]
        c = np.broadcast_to(np.asarray(classes, dtype=int), (n,))
        P = self._proba_from_logits(zs[-1])
        if self.output == "sigmoid":
            p1 = P[:, 1]
            if of == "proba":
                d = np.where(c == 1, 1.0, -1.0) * p1 * (1 - p1)
            elif of == "loss":
                d = p1 - (c == 1)
            else:
                raise ValueError(f"of must be 'proba' or 'loss', got {of!r}")
            delta = d[:, None]
        else:
            onehot = np.eye(P.shape[1])[c]
            if of == "proba":
                pc = P[np.arange(n), c][:, None]
                delta = pc * (onehot - P)
            elif of == "loss":
                delta = P - onehot
            else:
                raise ValueError(f"of must be 'proba' or 'loss', got {of!r}")
        return self._backward(zs, delta, len(self.weights) - 1).reshape(np.shape(X))

    def activation_gradient(self, X: np.ndarray, layer: int, weights: np.ndarray) -> np.ndarray:
        n_hidden = len(self.weights) - 1
        if not 0 <= layer < n_hidden:
            raise ValueError(f"layer {layer} is not a hidden layer (0..{n_hidden - 1})")
        zs = self._forward(X)
        delta = np.broadcast_to(np.asarray(weights, dtype=self.dtype), zs[layer].shape) * self._dact(zs[layer])
        return self._backward(zs, delta, layer).reshape(np.shape(X))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_sklearn(cls, mlp) -> "NumpyMLP":
        """The same network as a fitted ``sklearn.neural_network.MLPClassifier`` (one label per row; a
        pipeline with scalers in front: ``fairnb.models.sklearn_mlp.white_box_sklearn``)."""
        if not hasattr(mlp, "coefs_"):
            raise TypeError(f"{type(mlp).__name__} is not a fitted MLPClassifier")
        units = mlp.coefs_[-1].shape[1]
        if mlp.out_activation_ == "logistic" and units > 1:
            raise TypeError(f"this MLPClassifier is multi-label ({units} independent logistic outputs); fairnb "
                            "tests classifiers with one label per row: fit it on a 1-d target")
        out = {"logistic": "sigmoid", "softmax": "softmax"}[mlp.out_activation_]
        return cls(mlp.coefs_, mlp.intercepts_, activation=mlp.activation, output=out)

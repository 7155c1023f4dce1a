"""A scikit-learn ``MLPClassifier`` as a white-box :class:`~fairnb.models.NumpyMLP`.

``wrap`` sends a fitted ``MLPClassifier`` here, alone or at the end of a ``Pipeline`` whose other
steps are affine scalers (``StandardScaler``, ``MinMaxScaler`` without clipping, ``MaxAbsScaler``):
each scaler is folded exactly into the first layer's weights, so the NumpyMLP takes the pipeline's
raw inputs and gradient methods (ADF, EIDIG, NeuronFair) get exact gradients and activations.
Any other pipeline stays a black box (:class:`~fairnb.models.SklearnModel`).

Example
-------
>>> import numpy as np
>>> from sklearn.neural_network import MLPClassifier
>>> from sklearn.pipeline import make_pipeline
>>> from sklearn.preprocessing import StandardScaler
>>> X = np.array([[0.0, 10.0], [1.0, 20.0], [2.0, 30.0], [3.0, 40.0]]); y = np.array([0, 0, 1, 1])
>>> pipe = make_pipeline(StandardScaler(), MLPClassifier((4,), solver="lbfgs", random_state=0)).fit(X, y)
>>> mlp = white_box_sklearn(pipe); mlp
NumpyMLP(2-4-1, sigmoid)
>>> bool(np.allclose(mlp.predict_proba(X), pipe.predict_proba(X), atol=1e-12, rtol=0))
True
"""
from __future__ import annotations

import numpy as np

from .numpy_mlp import NumpyMLP

def white_box_sklearn(model) -> NumpyMLP | None:
    """The NumpyMLP computing ``model.predict_proba``, for a fitted ``MLPClassifier`` or a pipeline of
    affine scalers ending in one; ``None`` for any other estimator (it stays a black box)."""
    if _is_sklearn(model, "Pipeline"):
        steps = [step for _, step in model.steps if step not in (None, "passthrough")]
        if not steps or not all(_affine(step) for step in steps[:-1]):
            return None
        *scalers, last = steps
        if not _is_sklearn(last, "MLPClassifier"):
            return None
        mlp = NumpyMLP.from_sklearn(last)
        for scaler in reversed(scalers):
            mlp = _fold(mlp, *_affine(scaler))
        return mlp
    if _is_sklearn(model, "MLPClassifier"):
        return NumpyMLP.from_sklearn(model)
    return None


def _is_sklearn(model, name: str) -> bool:
    return type(model).__name__ == name and type(model).__module__.startswith("sklearn.")


def _affine(step) -> tuple[np.ndarray, np.ndarray] | None:
    """``(scale, shift)`` with ``step.transform(X) == X * scale + shift``, for a fitted affine scaler."""
    if _is_sklearn(step, "StandardScaler") and hasattr(step, "n_features_in_"):
        scale = 1.0 / step.scale_ if step.with_std else np.ones(step.n_features_in_)
        shift = -step.mean_ * scale if step.with_mean else np.zeros(step.n_features_in_)
        return scale, shift
    if _is_sklearn(step, "MinMaxScaler") and hasattr(step, "scale_") and not step.clip:
        return step.scale_, step.min_
    if _is_sklearn(step, "MaxAbsScaler") and hasattr(step, "scale_"):
        return 1.0 / step.scale_, np.zeros_like(step.scale_)
    return None


def _fold(mlp: NumpyMLP, scale: np.ndarray, shift: np.ndarray) -> NumpyMLP:
    """The network ``x -> mlp(x * scale + shift)``: the scaler absorbed by the first layer."""
    W, b = mlp.weights[0], mlp.biases[0]
    weights = [W * np.asarray(scale, dtype=float)[:, None], *mlp.weights[1:]]
    biases = [b + np.asarray(shift, dtype=float) @ W, *mlp.biases[1:]]
    return NumpyMLP(weights, biases, activation=mlp.activation, output=mlp.output)

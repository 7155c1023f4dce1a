"""``wrap(model)``: the fairnb adapter for whatever model a notebook has (see :mod:`fairnb.models`).

Example
-------
>>> import numpy as np
>>> wrap(lambda X: np.c_[1 - X[:, 0], X[:, 0]])
FunctionModel(<lambda>)
>>> is_keras(np.eye(2))
False
"""
from __future__ import annotations

from .base import Model
from .function import FunctionModel
from .numpy_mlp import NumpyMLP
from .sklearn import SklearnModel
from .sklearn_mlp import white_box_sklearn


def is_keras(model) -> bool:
    """Whether ``model`` is a Keras (or TensorFlow) model, found without importing TensorFlow."""
    return any(c.__module__.split(".")[0] in ("keras", "tf_keras", "tensorflow") for c in type(model).__mro__)


def wrap(model) -> Model:
    """Return a fairnb model for ``model`` (a fairnb adapter, Keras model, ONNX Runtime session, sklearn
    classifier or callable).

    A scikit-learn ``MLPClassifier`` (alone, or behind affine scalers in a ``Pipeline``) becomes a white-box
    :class:`NumpyMLP` with exact gradients; other scikit-learn classifiers are black boxes (:class:`SklearnModel`:
    random forests, extra-trees and gradient boosting go through the compiled tree path on small batches).

    A Keras model gets one adapter for its lifetime (its compiled graphs are reused by every search, so
    TensorFlow traces them once); each ``wrap`` re-reads its weights for the adapter's numpy twin, so a
    model trained further between two searches is searched as it is now.
    """
    if type(model).__name__ == "KerasModel" and type(model).__module__ == "fairnb.models.keras":
        return model.refresh()
    if isinstance(model, (NumpyMLP, FunctionModel, SklearnModel)) or type(model).__module__.startswith("fairnb."):
        return model
    if is_keras(model):
        from .keras import KerasModel

        adapter = model.__dict__.get("_fairnb_adapter")
        if adapter is None:
            adapter = KerasModel(model)
            object.__setattr__(model, "_fairnb_adapter", adapter)   # past Keras's attribute tracking
            return adapter
        return adapter.refresh()
    if type(model).__module__.startswith("onnxruntime"):
        from .onnx import OnnxModel

        return OnnxModel(model)
    white_box = white_box_sklearn(model)
    if white_box is not None:
        return white_box
    if hasattr(model, "predict_proba") or (hasattr(model, "predict") and hasattr(model, "fit")):
        if type(model).__module__.startswith("sklearn") or hasattr(model, "classes_"):
            return SklearnModel(model)
    if hasattr(model, "predict_proba"):
        return model
    if callable(model):
        return FunctionModel(model)
    raise TypeError(f"cannot use a {type(model).__name__} as a model: give a Keras model, an ONNX "
                    "Runtime session, a scikit-learn classifier, or a callable returning class probabilities")

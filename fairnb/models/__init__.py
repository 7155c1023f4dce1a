"""Model adapters: one protocol (``predict_proba`` on numpy batches), several implementations.

``wrap(model)`` picks the adapter: fairnb models pass through, Keras models get the TensorFlow
adapter (imported only then), scikit-learn classifiers the black-box adapter, callables the function
adapter.

Example
-------
>>> from sklearn.linear_model import LogisticRegression
>>> import numpy as np
>>> wrap(LogisticRegression().fit(np.eye(2), [0, 1]))
SklearnModel(LogisticRegression)
"""
from __future__ import annotations

from .base import (ActivationModel, GradientModel, Model, as_probability_matrix, outputs_hard_labels,
                   supports_activations, supports_gradients)
from .function import FunctionModel
from .numpy_mlp import NumpyMLP
from .sklearn import SklearnModel

__all__ = ["Model", "GradientModel", "ActivationModel", "FunctionModel", "SklearnModel", "NumpyMLP",
           "wrap", "as_probability_matrix", "supports_gradients", "supports_activations", "outputs_hard_labels",
           "load_model", "obtain_published"]


def _is_keras(model) -> bool:
    return any(c.__module__.split(".")[0] in ("keras", "tf_keras", "tensorflow") for c in type(model).__mro__)


def wrap(model) -> Model:
    """Return a fairnb model for ``model`` (a fairnb adapter, Keras model, sklearn classifier or callable).

    A Keras model gets one adapter for its lifetime (its compiled graphs are reused by every search, so
    TensorFlow traces them once); each ``wrap`` re-reads its weights for the adapter's numpy twin, so a
    model trained further between two searches is searched as it is now.
    """
    if type(model).__name__ == "KerasModel" and type(model).__module__ == "fairnb.models.keras":
        return model.refresh()
    if isinstance(model, (NumpyMLP, FunctionModel, SklearnModel)) or type(model).__module__.startswith("fairnb."):
        return model
    if _is_keras(model):
        from .keras import KerasModel

        adapter = model.__dict__.get("_fairnb_adapter")
        if adapter is None:
            adapter = KerasModel(model)
            object.__setattr__(model, "_fairnb_adapter", adapter)   # past Keras's attribute tracking
            return adapter
        return adapter.refresh()
    if hasattr(model, "predict_proba") or (hasattr(model, "predict") and hasattr(model, "fit")):
        if type(model).__module__.startswith("sklearn") or hasattr(model, "classes_"):
            return SklearnModel(model)
    if hasattr(model, "predict_proba"):
        return model
    if callable(model):
        return FunctionModel(model)
    raise TypeError(f"cannot use a {type(model).__name__} as a model: give a Keras model, a scikit-learn "
                    "classifier, or a callable returning class probabilities")


def __getattr__(name):
    """``obtain_published`` loads on first use (it imports the data sets package)."""
    if name == "obtain_published":
        from .published import obtain_published

        return obtain_published
    raise AttributeError(f"module 'fairnb.models' has no attribute {name!r}")


PICKLE_SUFFIXES = (".joblib", ".pkl", ".pickle")


def load_model(path, backend: str = "numpy") -> Model:
    """Load a saved model file as a fairnb model: Keras (``.h5`` of Keras 2 or ``.keras``), or a pickled
    scikit-learn classifier (``.joblib``, ``.pkl``; unpickling runs code: load only files you trust).

    For Keras files, ``backend="numpy"`` evaluates dense networks in numpy (no TensorFlow needed);
    ``backend="keras"`` rebuilds it as a Keras 3 model.
    """
    from pathlib import Path

    if Path(path).suffix.lower() in PICKLE_SUFFIXES:
        import joblib

        if not Path(path).is_file():
            raise FileNotFoundError(f"model file {str(path)!r} not found")
        return wrap(joblib.load(path))
    from .keras import load_keras_model

    return load_keras_model(path, backend=backend)

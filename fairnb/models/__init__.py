"""Model adapters: one protocol (``predict_proba`` on numpy batches), several implementations.

``wrap(model)`` picks the adapter: fairnb models pass through, Keras models get the TensorFlow
adapter (imported only then), ONNX Runtime sessions the ONNX adapter (:class:`OnnxModel`; onnxruntime is
imported only then), a scikit-learn ``MLPClassifier`` (alone or behind scalers) a white-box :class:`NumpyMLP`, other
scikit-learn classifiers the black-box adapter (random forests, extra-trees and gradient boosting evaluated on small
batches by :class:`~fairnb.models.sklearn_trees.CompiledTrees`, the same probabilities; binary gradient boosting with
few distinct thresholds on every batch by the lookup tables of :class:`~fairnb.models.sklearn_tables.BoostingTables`,
the same decisions), callables the function adapter.

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
from .mediapipe import blazeface
from .function import FunctionModel
from .loading import PICKLE_SUFFIXES, load_model
from .numpy_mlp import NumpyMLP
from .onnx import OnnxModel
from .published import obtain_published
from .quiet import import_tensorflow
from .sklearn import SklearnModel
from .tflite import TFLiteGraph, TFLiteModel
from .wrapping import is_keras, wrap


__all__ = ["Model", "GradientModel", "ActivationModel", "FunctionModel", "SklearnModel", "NumpyMLP",
           "wrap", "is_keras", "as_probability_matrix", "supports_gradients", "supports_activations",
           "outputs_hard_labels", "OnnxModel", "load_model", "PICKLE_SUFFIXES", "obtain_published", "TFLiteModel",
           "TFLiteGraph", "blazeface", "import_tensorflow"]

"""Retraining a model on an augmented training set: Keras, NumpyMLP, scikit-learn, or your own function.

``retrain_model(model, X, y, mode=...)`` returns a *new* model; the given one is never changed.

* **Keras** (TensorFlow imported only then): ``mode="finetune"`` continues from the current weights,
  ``"scratch"`` starts from fresh weights with the same architecture; Adam, ``epochs``, batch 128. One compiled
  copy of the last architecture retrained is kept and trained each time from the new start weights with a reset
  Adam, so retraining it again (``mitigate``'s repeats) traces no new TensorFlow train function.
* **NumpyMLP** with one sigmoid output (what ``fairnb.train_demo_model`` gives): trained through
  scikit-learn's ``MLPClassifier`` with the same layers, from the current weights or from scratch.
* **scikit-learn** classifiers: ``clone`` and ``fit`` (``"finetune"`` keeps the fitted state where the
  estimator has ``warm_start``).
* anything else: ``retrain=f(model, X, y) -> new model``.

Example
-------
>>> import numpy as np
>>> from sklearn.linear_model import LogisticRegression
>>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
>>> old = LogisticRegression().fit(X[:2], [0, 1])
>>> new = retrain_model(old, X, y, mode="scratch")
>>> new is old, new.predict([[3.0]]).tolist()
(False, [1])
"""
from __future__ import annotations

import copy
import threading
import warnings

import numpy as np

from ..models import NumpyMLP, SklearnModel
from ..models.gradient_registry import training_graphs_released

MODES = ("finetune", "scratch")


def retrain_model(model, X, y, *, mode: str = "finetune", epochs: int = 10, learning_rate: float = 1e-3,
                  random_state: int | None = None, retrain=None):
    """A new model trained on ``X, y`` (see the module docstring for what each kind of model gets). ``X`` keeps
    its float type (float32 images stay float32); other numbers become float64."""
    if mode not in MODES:
        raise ValueError(f"mode must be 'finetune' or 'scratch', got {mode!r}")
    X, y = np.asarray(X), np.asarray(y).astype(np.int64)
    if not np.issubdtype(X.dtype, np.floating):
        X = X.astype(float)                   # float32 images stay float32: a float64 copy doubles their memory
    if retrain is not None:
        return retrain(model, X, y)
    keras_model = _keras_model(model)
    if keras_model is not None:
        return _retrain_keras(keras_model, X, y, mode, epochs, learning_rate, random_state)
    if isinstance(model, NumpyMLP):
        return _retrain_numpy_mlp(model, X, y, mode, epochs, learning_rate, random_state)
    estimator = model.estimator if isinstance(model, SklearnModel) else model
    if hasattr(estimator, "fit") and hasattr(estimator, "predict"):
        return _retrain_sklearn(estimator, X, y, mode)
    raise TypeError(f"no built-in retraining for {type(model).__name__}; pass retrain=f(model, X, y)")


def _keras_model(model):
    from ..models import is_keras

    for m in (model, getattr(model, "model", None), getattr(model, "keras_model", None)):
        if m is not None and is_keras(m) and hasattr(m, "fit"):
            return m
    return None


def _retrain_keras(model, X, y, mode, epochs, learning_rate, random_state):
    import keras

    units = model.outputs[0].shape[-1]
    loss = "binary_crossentropy" if units == 1 else "sparse_categorical_crossentropy"
    with _TRAINER_LOCK:                        # the kept trainer serves one retraining at a time (threads too)
        trainer = _keras_trainer(model, loss, learning_rate)
        keras.utils.set_random_seed(0 if random_state is None else random_state)
        new = keras.models.clone_model(model)
        if mode == "finetune":
            new.set_weights(model.get_weights())
        trainer.set_weights(new.get_weights())
        with training_graphs_released():    # the trainer holds its traced step; the registry need not
            trainer.fit(np.asarray(X, "float32"), y.astype("float32" if units == 1 else "int64"), epochs=epochs,
                        batch_size=128, verbose=0, shuffle=True)
        new.set_weights(trainer.get_weights())
    new.compile(optimizer=keras.optimizers.Adam(learning_rate), loss=loss)
    return new


_TRAINER: dict = {}
_TRAINER_LOCK = threading.Lock()


def _keras_trainer(model, loss: str, learning_rate: float):
    """A compiled copy of ``model``'s architecture whose Adam starts afresh: kept between calls, so that
    retraining the same architecture again and again (``mitigate``'s repeats and found sets) traces one train
    function instead of one per retraining (seconds each; and before ``training_graphs_released`` TensorFlow kept
    every one, ~15-40 MiB a retraining)."""
    import keras

    key = (model.to_json(), loss, float(learning_rate))
    trainer = _TRAINER.get(key)
    if trainer is None:
        _TRAINER.clear()                      # one architecture at a time: the last one retrained
        trainer = _TRAINER[key] = keras.models.clone_model(model)
        trainer.compile(optimizer=keras.optimizers.Adam(learning_rate), loss=loss)
    optimizer = trainer.optimizer
    for v in optimizer.variables:            # Adam's step count and moments all start at zero
        if v is not optimizer._learning_rate:
            v.assign(np.zeros(v.shape, v.dtype))
    return trainer


def _retrain_numpy_mlp(model: NumpyMLP, X, y, mode, epochs, learning_rate, random_state):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    if model.output != "sigmoid" or model.activation not in ("relu", "tanh", "logistic", "identity"):
        raise TypeError("built-in retraining of a NumpyMLP needs one sigmoid output unit; pass retrain=f(model, X, y)")
    X = X.reshape(len(X), -1)                 # images: flat rows, as NumpyMLP reads them
    clf = MLPClassifier(hidden_layer_sizes=tuple(model.layer_sizes[:-1]), activation=model.activation,
                        learning_rate_init=learning_rate, max_iter=epochs, random_state=random_state,
                        warm_start=mode == "finetune")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if mode == "finetune":
            one_each = [np.flatnonzero(y == c)[0] for c in np.unique(y)]
            clf.set_params(max_iter=1).fit(X[one_each], y[one_each])     # builds the network, then:
            clf.coefs_ = [W.copy() for W in model.weights]
            clf.intercepts_ = [b.copy() for b in model.biases]
            clf.set_params(max_iter=epochs)
        clf.fit(X, y)
    return NumpyMLP.from_sklearn(clf)


def _retrain_sklearn(estimator, X, y, mode):
    from sklearn.base import clone

    if mode == "finetune" and "warm_start" in estimator.get_params():
        new = copy.deepcopy(estimator).set_params(warm_start=True)
    else:
        new = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return new.fit(X, y)

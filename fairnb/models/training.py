"""Small, fast models for the demo, tutorials and tests (scikit-learn, no TensorFlow).

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=1000, random_state=0)
>>> model = train_demo_model(data, random_state=0)
>>> model.predict_proba(data.X.to_numpy(float)[:2]).shape
(2, 2)
"""
from __future__ import annotations

import warnings

import numpy as np

from .base import as_probability_matrix
from .numpy_mlp import NumpyMLP
from .wrapping import wrap


def train_demo_model(data, *, hidden=(32, 16), ignore_protected: bool = False, max_iter: int = 300,
                     random_state: int | None = 0) -> NumpyMLP:
    """Train an MLP on ``data``'s training split and return it as a white-box ``NumpyMLP``.

    With ``ignore_protected=True`` the protected columns are held constant during training and
    their input weights are zero, so the model provably ignores the protected attributes.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    X_train, _, y_train, _ = data.split()
    prot = list(data.domain.protected)
    if ignore_protected:
        X_train = X_train.copy()
        X_train[:, prot] = 0.0
    clf = MLPClassifier(hidden_layer_sizes=hidden, max_iter=max_iter, random_state=random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X_train, y_train)
    model = NumpyMLP.from_sklearn(clf)
    if ignore_protected:
        model.weights[0][prot, :] = 0.0
    return model


def accuracy(model, X, y) -> float:
    """Share of rows whose predicted class (argmax of the class probabilities) equals ``y``.

    ``model`` is anything ``fairnb.run_search`` takes: a Keras or scikit-learn model, a fairnb model, or a
    callable returning probabilities.

    >>> accuracy(lambda X: X[:, 0], [[0.9], [0.2], [0.7]], [1, 0, 0])
    0.6666666666666666
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if len(X) != len(y) or len(y) == 0:
        raise ValueError(f"X has {len(X)} rows and y {len(y)} labels; pass as many labels as rows (at least one)")
    P = as_probability_matrix(wrap(model).predict_proba(X), len(X), source="the model")
    return float((P.argmax(axis=1) == y).mean())

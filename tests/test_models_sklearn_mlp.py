"""A scikit-learn MLPClassifier (alone or behind affine scalers) is wrapped as an exact white-box NumpyMLP."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, PolynomialFeatures, StandardScaler

import fairnb
from fairnb.models import NumpyMLP, SklearnModel, supports_activations, supports_gradients, wrap


def fitted(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def toy(rng, n_classes, n=200):
    X = rng.normal(size=(n, 4)) * [1.0, 5.0, 20.0, 0.1] + [0.0, 3.0, 40.0, -1.0]
    score = X[:, 0] + (X[:, 1] - 3) / 5 - ((X[:, 2] - 40) / 20) ** 2
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("activation", ["relu", "tanh", "logistic", "identity"])
def test_wrapped_mlp_reproduces_predict_proba(rng, activation, n_classes):
    X, y = toy(rng, n_classes)
    clf = fitted(MLPClassifier((7, 5), activation=activation, max_iter=200, random_state=0), X, y)
    model = wrap(clf)
    assert isinstance(model, NumpyMLP) and supports_gradients(model) and supports_activations(model)
    assert model.output == ("sigmoid" if n_classes == 2 else "softmax") and model.activation == activation
    assert np.allclose(model.predict_proba(X), clf.predict_proba(X), atol=1e-12, rtol=0)
    assert [h.shape[1] for h in model.layer_outputs(X)] == [7, 5]


def test_scalers_in_a_pipeline_are_folded_into_the_first_layer(rng):
    X, y = toy(rng, 3)
    scalers = [StandardScaler(), MinMaxScaler((-1, 1)), MaxAbsScaler(), StandardScaler(with_mean=False),
               StandardScaler(with_std=False)]
    for scaler in scalers:
        pipe = fitted(make_pipeline(scaler, "passthrough", MLPClassifier((6,), activation="tanh", max_iter=200,
                                                                         random_state=0)), X, y)
        model = wrap(pipe)
        assert isinstance(model, NumpyMLP), scaler
        assert np.allclose(model.predict_proba(X), pipe.predict_proba(X), atol=1e-12, rtol=0), scaler
    for step in (PolynomialFeatures(2), MinMaxScaler(clip=True)):                # not affine: black boxes
        pipe = fitted(make_pipeline(step, MLPClassifier((4,), max_iter=50, random_state=0)), X, y)
        assert isinstance(wrap(pipe), SklearnModel), step


def test_gradients_match_finite_differences(rng):
    X, y = toy(rng, 3)
    pipe = fitted(make_pipeline(StandardScaler(), MLPClassifier((6, 5), activation="tanh", max_iter=300,
                                                                  random_state=0)), X, y)
    model = wrap(pipe)
    rows, classes, eps = X[:6], y[:6], 1e-6
    steps = np.eye(X.shape[1]) * eps

    def numeric(f):
        return np.stack([(f(rows + e) - f(rows - e)) / (2 * eps) for e in steps], axis=1)

    picked = np.arange(len(rows))
    proba = numeric(lambda Z: pipe.predict_proba(Z)[picked, classes])
    assert np.allclose(model.input_gradient(rows, classes, of="proba"), proba, atol=1e-7)
    loss = numeric(lambda Z: -np.log(pipe.predict_proba(Z)[picked, classes]))
    assert np.allclose(model.input_gradient(rows, classes, of="loss"), loss, atol=1e-6)
    w = rng.normal(size=(len(rows), 5))
    act = numeric(lambda Z: (model.layer_outputs(Z)[1] * w).sum(1))
    assert np.allclose(model.activation_gradient(rows, 1, w), act, atol=1e-7)


def test_gradient_methods_run_on_a_wrapped_mlp():
    data = fairnb.datasets.make_synthetic(n=1500, strength=2.0, random_state=0)
    clf = fitted(MLPClassifier((16, 8), max_iter=200, random_state=0), data.X.to_numpy(dtype=float), data.y)
    for method in ("eidig", "adf", "neuronfair"):
        result = fairnb.run_search(clf, data.domain, method, seeds=data.X, max_tried=2000, random_state=0,
                                   progress=False)
        assert result.status == "completed" or result.status == "budget", (method, result.error)
        assert len(result.inputs) > 0, method


def test_multilabel_mlp_is_refused(rng):
    X = rng.normal(size=(50, 3))
    Y = np.c_[X[:, 0] > 0, X[:, 1] > 0].astype(int)
    clf = fitted(MLPClassifier((4,), max_iter=50, random_state=0), X, Y)
    with pytest.raises(TypeError, match="multi-label"):
        wrap(clf)

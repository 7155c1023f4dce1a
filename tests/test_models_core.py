import subprocess
import sys

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier

from fairnb.models import (FunctionModel, NumpyMLP, SklearnModel, outputs_hard_labels, supports_activations,
                           supports_gradients, wrap)


def _numeric_grad(f, X, eps=1e-6):
    return np.stack([(f(X + eps * e) - f(X - eps * e)) / (2 * eps) for e in np.eye(X.shape[1])], axis=1)


@pytest.mark.parametrize("k,output", [(1, "sigmoid"), (3, "softmax")])
def test_numpy_mlp_gradients_match_finite_differences(rng, k, output):
    sizes = [5, 8, 6, k]
    mlp = NumpyMLP([0.5 * rng.normal(size=(a, b)) for a, b in zip(sizes, sizes[1:])],
                   [0.5 * rng.normal(size=b) for b in sizes[1:]])
    assert mlp.output == output
    X = rng.normal(size=(7, 5))
    classes = rng.integers(0, max(k, 2), 7)
    P = mlp.predict_proba(X)
    assert np.allclose(P.sum(1), 1)
    g = mlp.input_gradient(X, classes, of="proba")
    num = _numeric_grad(lambda Z: mlp.predict_proba(Z)[np.arange(7), classes], X)
    assert np.allclose(g, num, atol=1e-5)
    gl = mlp.input_gradient(X, classes, of="loss")
    num_l = _numeric_grad(lambda Z: -np.log(mlp.predict_proba(Z)[np.arange(7), classes]), X)
    assert np.allclose(gl, num_l, atol=1e-4)
    w = rng.normal(size=(7, 6))
    ga = mlp.activation_gradient(X, 1, w)
    num_a = _numeric_grad(lambda Z: (mlp.layer_outputs(Z)[1] * w).sum(1), X)
    assert np.allclose(ga, num_a, atol=1e-5)
    with pytest.raises(ValueError, match="of must be"):
        mlp.input_gradient(X, classes, of="logit")
    with pytest.raises(ValueError, match="not a hidden layer"):
        mlp.activation_gradient(X, 2, w)


def test_numpy_mlp_from_sklearn_matches(rng):
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int)
    clf = MLPClassifier((8,), max_iter=500, random_state=0).fit(X, y)
    mlp = NumpyMLP.from_sklearn(clf)
    assert np.allclose(mlp.predict_proba(X), clf.predict_proba(X), atol=1e-10)
    assert supports_gradients(mlp) and supports_activations(mlp)
    with pytest.raises(TypeError, match="not a fitted MLPClassifier"):
        NumpyMLP.from_sklearn(LogisticRegression())


def test_numpy_mlp_shape_checks():
    with pytest.raises(ValueError, match="does not match bias"):
        NumpyMLP([np.ones((2, 3))], [np.ones(2)])
    with pytest.raises(ValueError, match="unknown activation"):
        NumpyMLP([np.ones((2, 1))], [np.ones(1)], activation="gelu")


def test_wrap_picks_adapters(rng):
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] > 0).astype(int)
    assert isinstance(wrap(LogisticRegression().fit(X, y)), SklearnModel)
    assert isinstance(wrap(lambda Z: Z[:, 0] > 0), FunctionModel)
    mlp = NumpyMLP([np.ones((3, 1))], [np.zeros(1)])
    assert wrap(mlp) is mlp
    with pytest.raises(TypeError, match="cannot use a int as a model"):
        wrap(3)


def test_label_only_models_are_detected(rng):
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] > 0).astype(int)
    tree = SklearnModel(DecisionTreeClassifier().fit(X, y))
    assert outputs_hard_labels(tree, X)
    assert not outputs_hard_labels(SklearnModel(LogisticRegression().fit(X, y)), X)
    assert not supports_gradients(tree)


def test_importing_fairnb_stays_light():
    code = ("import sys, fairnb, fairnb.search, fairnb.oracle, fairnb.results, fairnb.text, fairnb.text.glove, "
            "fairnb.text.wordnet, fairnb.text.keras_model, fairnb.text.metrics, fairnb.text.loaders, "
            "fairnb.images, fairnb.images.detector, fairnb.images.lfw; fairnb.datasets.make_faces(n=4, size=8); "
            "heavy = [m for m in ('tensorflow', 'keras', 'gensim', 'nltk', 'torch', 'skimage') if m in sys.modules]; "
            "print(heavy); sys.exit(bool(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_documented_settings_are_reachable_after_a_plain_import():
    out = subprocess.run([sys.executable, "-c", "import fairnb; fairnb.config.result_memory = 5e8; "
                          "print(fairnb.config.result_memory_cap())"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "500000000.0", out.stderr

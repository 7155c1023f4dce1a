"""MAFT: the forward-difference estimator (the paper's worked examples and error analysis) and the black-box search."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

from fairnb.models import NumpyMLP
from fairnb.search.parts.finite_difference import class_probability_gradient, forward_difference
from fairnb.search.methods.maft import MAFT


def logistic(w, b=0.0):
    def proba(X):
        p = 1 / (1 + np.exp(-(X @ w + b)))
        return np.stack([1 - p, p], axis=1)
    return proba



def test_paper_worked_examples():
    """Example 3.1: f = x^2 at 2 -> 4.001; Example 3.2: f = x1^2 + x2^2 at [2, 3] -> [4.001, 6.001]."""
    np.testing.assert_allclose(forward_difference(lambda X: X[:, 0] ** 2, np.array([[2.0]]), h=0.001), [[4.001]],
                               atol=1e-9)
    np.testing.assert_allclose(forward_difference(lambda X: (X ** 2).sum(axis=1), np.array([[2.0, 3.0]]), h=0.001),
                               [[4.001, 6.001]], atol=1e-9)


def test_error_is_linear_in_h_and_exact_for_linear_functions():
    X = np.array([[1.0, -2.0, 0.5]])
    a = np.array([3.0, 1.0, 2.0])
    for h in (1.0, 0.5, 0.25):
        err = forward_difference(lambda Z: (a * Z ** 2).sum(axis=1), X, h=h) - 2 * a * X
        np.testing.assert_allclose(err, a[None, :] * h, atol=1e-9)        # the O(h) error is exactly a*h
        np.testing.assert_allclose(forward_difference(lambda Z: Z @ a + 1, X, h=h), a[None, :], atol=1e-9)


def test_vectorised_equals_loop_and_uses_one_call():
    calls = []

    def f(Z):
        calls.append(len(Z))
        return np.tanh(Z).sum(axis=1)

    X = np.random.default_rng(0).normal(size=(4, 5))
    vec = forward_difference(f, X, h=0.1)
    assert calls == [4, 4 * 5]                    # f(X) and the n*d probes
    calls.clear()
    loop = forward_difference(f, X, h=0.1, vectorised=False)
    assert calls == [4] + [4] * 5
    np.testing.assert_allclose(vec, loop)


def test_sign_calibration_on_a_logistic_model():
    """The estimate is the gradient of the predicted class's probability: +grad F if F > 0.5, else -grad F;
    cosine with the analytic gradient > 0.999 (float64, h = 1e-4)."""
    w = np.array([0.8, -1.5, 0.3])
    proba = logistic(w)
    X = np.array([[2.0, 0.0, 1.0], [-2.0, 1.0, 0.0]])
    est = class_probability_gradient(proba, X, h=1e-4)
    p = proba(X)[:, 1]
    true = np.where(p > 0.5, 1.0, -1.0)[:, None] * (p * (1 - p))[:, None] * w[None, :]
    cos = (est * true).sum(1) / np.linalg.norm(est, axis=1) / np.linalg.norm(true, axis=1)
    assert (cos > 0.999).all()
    assert np.array_equal(np.sign(est), np.sign(true))


def test_agrees_in_sign_with_the_true_gradient_on_a_smooth_model(synthetic, biased_model):
    X = synthetic.X.to_numpy(float)[:200]
    P = biased_model.predict_proba(X)
    true = biased_model.input_gradient(X, P.argmax(axis=1), of="proba")
    est = class_probability_gradient(biased_model.predict_proba, X, h=1e-5)
    big = np.abs(true) > 1e-6
    assert (np.sign(est)[big] == np.sign(true)[big]).mean() > 0.99
    coarse = class_probability_gradient(biased_model.predict_proba, X, h=1.0)    # MAFT's default
    cos = (coarse * true).sum(1) / (np.linalg.norm(coarse, axis=1) * np.linalg.norm(true, axis=1) + 1e-300)
    assert np.median(cos) > 0.8


def test_float32_collapse_with_tiny_h(synthetic, biased_model):
    """In a float32 model h = 1e-10 rounds away: every probe of a non-zero attribute is the seed row
    itself (and a probe of a zero attribute moves the output far less than one float32 ulp), so an
    estimate is nothing but float32 rounding noise, never a real slope. Which rows show noise depends
    on the BLAS kernel (batch layout), so the test bounds the noise instead of counting exact zeros."""
    m32 = NumpyMLP(biased_model.weights, biased_model.biases, dtype=np.float32)
    X = synthetic.X.to_numpy(float)[:100]
    h = 1e-10
    probes = X[:, None, :] + h * np.eye(X.shape[1])[None]
    moved = np.eye(X.shape[1], dtype=bool)[None] & (X[:, None, :] != 0)
    assert (probes.astype(np.float32) == X[:, None, :].astype(np.float32))[moved].all()
    est = class_probability_gradient(m32.predict_proba, X, h=h)
    assert np.abs(est * h).max() <= 1e-6                   # output differences of a few float32 ulps
    real = class_probability_gradient(m32.predict_proba, X, h=1.0)
    assert np.abs(real).max() > 1e-3                       # while h = 1 sees the model's real slopes



def test_warns_on_hard_labels(synthetic):
    X_train, _, y_train, _ = synthetic.split()
    svm = LinearSVC(dual="auto").fit(X_train, y_train)      # predict only: one-hot probabilities
    with pytest.warns(UserWarning, match="hard labels"):
        MAFT(n_seeds=10, n_local=5).run(svm, synthetic.domain, seeds=synthetic.X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MAFT(n_seeds=10, n_local=5).run(LogisticRegression(max_iter=500).fit(X_train, y_train), synthetic.domain,
                                        seeds=synthetic.X)


def test_probe_rows_are_counted(synthetic, biased_model):
    """A gradient costs d probe rows per input (the outputs of x and x' come from the oracle's check);
    the hard-label check at the start reads the 20 seeds once more, and the natural rate checks the data's
    distinct rows with their m variants."""
    r = MAFT(n_seeds=20, n_local=10, update_interval=float("inf"), seed_selection="as_given",
             random_state=0).run(biased_model, synthetic.domain, seeds=synthetic.X)
    d, m = synthetic.domain.n_features, len(synthetic.domain.protected_values)
    gradient_rows = r.extras["model_rows"] - r.tried * m - 20 - len(r.extras["natural_inputs"]) * m
    assert gradient_rows > 0 and gradient_rows % d == 0

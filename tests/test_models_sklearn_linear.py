"""A binary scikit-learn LogisticRegression evaluated by its own operations (fairnb.models.sklearn): the same
probabilities as ``predict_proba`` and the same decisions, ties at 0.5 included; what it would refuse still
goes to ``predict_proba``."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from fairnb.models import SklearnModel, wrap


def data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers([0, 0, 18, 1], [2, 10, 71, 100], (n, 4)).astype(float)
    y = (X[:, 0] * 2 + X[:, 1] / 3 - X[:, 2] / 20 + rng.normal(0, 1, n) > 1).astype(int)
    return X, y


class Refusing(Exception):
    pass


def without_predict_proba(estimator):
    """``estimator`` whose predict_proba raises: what the adapter computes without it."""
    def refuse(X):
        raise Refusing("predict_proba called")
    estimator.predict_proba = refuse
    return estimator


@pytest.mark.parametrize("labels", [(0, 1), ("no", "yes")])
def test_probabilities_and_decisions_equal_predict_proba(labels):
    X, y = data()
    estimator = LogisticRegression(max_iter=1000).fit(X, np.asarray(labels)[y])
    rows = data(5000, seed=1)[0]
    P, Q = wrap(estimator).predict_proba(rows), estimator.predict_proba(rows)
    assert P.shape == Q.shape == (5000, 2)
    assert np.abs(P - Q).max() <= 1e-12
    assert np.array_equal(P.argmax(axis=1), Q.argmax(axis=1))


def test_a_score_of_zero_decides_as_predict_proba():
    X, y = data()
    estimator = LogisticRegression(max_iter=1000).fit(X, y)
    estimator.coef_, estimator.intercept_ = np.array([[1.0, -1.0, 0.5, 0.0]]), np.array([-1.0])
    rows = np.array([[3.0, 3.0, 2.0, 7.0], [0.0, 1.0, 4.0, 0.0], [5.0, 0.0, 0.0, 1.0]])   # scores 0, 0, 4
    P, Q = SklearnModel(estimator).predict_proba(rows), estimator.predict_proba(rows)
    assert P[:2].tolist() == [[0.5, 0.5], [0.5, 0.5]]
    assert np.array_equal(P.argmax(axis=1), Q.argmax(axis=1))


def test_the_adapter_does_not_call_predict_proba():
    X, y = data()
    estimator = LogisticRegression(max_iter=1000).fit(X, y)
    expected = estimator.predict_proba(X[:50])
    P = SklearnModel(without_predict_proba(estimator)).predict_proba(X[:50])
    assert np.abs(P - expected).max() <= 1e-12


def test_coefficients_are_read_at_each_call():
    X, y = data()
    estimator = LogisticRegression(max_iter=1000).fit(X, y)
    model = SklearnModel(estimator)
    model.predict_proba(X[:5])
    estimator.fit(X, 1 - y)
    assert np.abs(model.predict_proba(X[:5]) - estimator.predict_proba(X[:5])).max() <= 1e-12


def test_a_model_fitted_on_a_data_frame_gets_the_same_probabilities():
    X, y = data()
    frame = pd.DataFrame(X, columns=["sex", "x", "age", "hours"])
    estimator = LogisticRegression(max_iter=1000).fit(frame, y)
    assert np.abs(wrap(estimator).predict_proba(X) - estimator.predict_proba(frame)).max() <= 1e-12


@pytest.mark.parametrize("rows, message", [(np.full((2, 4), np.nan), "NaN"), (np.zeros((2, 3)), "features")])
def test_inputs_it_would_refuse_go_to_predict_proba(rows, message):
    X, y = data()
    with pytest.raises(ValueError, match=message):
        SklearnModel(LogisticRegression(max_iter=1000).fit(X, y)).predict_proba(rows)


def test_other_estimators_and_compiled_false_use_predict_proba():
    X, y = data()
    with pytest.raises(Refusing):
        SklearnModel(without_predict_proba(LogisticRegression(max_iter=1000).fit(X, y)), compiled=False).predict_proba(X)
    multinomial = LogisticRegression(max_iter=1000).fit(X, y)
    multinomial.multi_class = "multinomial"     # older scikit-learn: a softmax, not expit
    with pytest.raises(Refusing):
        SklearnModel(without_predict_proba(multinomial)).predict_proba(X)
    three = np.minimum(y + (X[:, 1] > 6), 2)
    with pytest.raises(Refusing):       # multinomial: softmax, predict_proba's own
        SklearnModel(without_predict_proba(LogisticRegression(max_iter=1000).fit(X, three))).predict_proba(X)

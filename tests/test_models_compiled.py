"""The compiled path for scikit-learn trees and ensembles (fairnb.models.sklearn_trees): the same decisions as
``predict_proba`` on every input checked and probabilities within 1e-6; used by the adapter where the rule says;
a model it cannot take said once."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.ensemble import ExtraTreesClassifier, GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier

from fairnb.datasets import make_synthetic
from fairnb.models import SklearnModel, wrap
from fairnb.models import sklearn as sklearn_adapter
from fairnb.models.sklearn_trees import CompiledTrees, compile_reason
from fairnb.search import get_method
from tree_checks import assert_same, on_thresholds

LOWER, UPPER = np.array([0, 0, 18, 0, 1]), np.array([1, 9, 70, 3, 99])


def tabular(n, seed, classes=2):
    """Integer codes inside [LOWER, UPPER] (as in tabular domains) and labels that depend on several columns."""
    rng = np.random.default_rng(seed)
    X = rng.integers(LOWER, UPPER + 1, (n, len(LOWER))).astype(float)
    score = X[:, 0] * 3 + X[:, 1] - X[:, 2] / 10 + X[:, 4] / 30 + rng.normal(0, 1.5, n)
    return X, np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))


ESTIMATORS = {
    "tree": lambda: DecisionTreeClassifier(random_state=0),
    "extra_tree": lambda: ExtraTreeClassifier(random_state=0),
    "forest": lambda: RandomForestClassifier(n_estimators=15, random_state=0),
    "extra_trees": lambda: ExtraTreesClassifier(n_estimators=15, min_samples_leaf=3, random_state=0),
    "boosting": lambda: GradientBoostingClassifier(n_estimators=30, random_state=0),
    "boosting_deep": lambda: GradientBoostingClassifier(n_estimators=10, max_depth=6, learning_rate=0.3,
                                                        random_state=0),
}


def fitted(name, classes=2):
    return ESTIMATORS[name]().fit(*tabular(600, 0, classes))


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("classes", [2, 3])
def test_compiled_equals_predict_proba_on_integer_real_and_threshold_inputs(name, classes):
    estimator = fitted(name, classes)
    rng = np.random.default_rng(2)
    assert_same(CompiledTrees, estimator, tabular(3000, 3)[0])                                      # integer codes
    real = rng.uniform(LOWER - 0.5, UPPER + 0.5, (500, len(LOWER)))
    assert_same(CompiledTrees, estimator, real)  # any real value in bounds
    assert_same(CompiledTrees, estimator, on_thresholds(estimator, tabular(400, 1)[0], 1))  # exactly on a split
    assert_same(CompiledTrees, estimator, tabular(5000, 4)[0])  # over several chunks
    assert CompiledTrees(estimator).predict_proba(np.zeros((0, len(LOWER)))).shape == (0, classes)


def test_inputs_on_thresholds_go_left_as_the_trees_compare_them():
    # a float64 input just above a threshold that float32 rounds onto it goes left, as the tree's cast sends it
    X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    t = tree.tree_.threshold[0]
    probe = np.array([[t], [t + 1e-9], [np.nextafter(np.float32(t), np.float32(np.inf))]])
    assert CompiledTrees(tree).predict_proba(probe).argmax(axis=1).tolist() == [0, 0, 1]
    assert_same(CompiledTrees, tree, probe)


def test_probabilities_at_one_half_decide_as_predict_proba():
    # every input appears once with each label: leaves hold [0.5, 0.5], boosting's leaves add zero to a zero start
    X = np.repeat(tabular(200, 5)[0], 2, axis=0); y = np.tile([0, 1], 200)
    for estimator in (DecisionTreeClassifier(random_state=0),
                      RandomForestClassifier(n_estimators=5, bootstrap=False, random_state=0),
                      GradientBoostingClassifier(n_estimators=5, init="zero", random_state=0)):
        estimator.fit(X, y)
        P = CompiledTrees(estimator).predict_proba(X)
        assert (P == 0.5).all()
        assert_same(CompiledTrees, estimator, X)


def test_missing_and_infinite_values_go_to_the_estimator():
    X, y = tabular(300, 6)
    X[::7, 1] = np.nan
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)       # learns where missing values go
    probe = tabular(50, 7)[0]
    probe[::3, 1] = np.nan
    assert np.array_equal(CompiledTrees(tree).predict_proba(probe), tree.predict_proba(probe), equal_nan=True)


def test_what_the_path_cannot_take_is_named():
    X, y = tabular(200, 8)
    assert compile_reason(LogisticRegression().fit(X, y)).startswith("LogisticRegression is not")
    assert "not fitted" in compile_reason(RandomForestClassifier())
    assert "multi-output" in compile_reason(RandomForestClassifier(n_estimators=3).fit(X, np.c_[y, 1 - y]))
    boosted = GradientBoostingClassifier(n_estimators=3, init=LogisticRegression()).fit(X, y)
    assert "init estimator LogisticRegression" in compile_reason(boosted)
    with pytest.raises(ValueError, match="cannot compile: .*init estimator"):
        CompiledTrees(boosted)


def test_adapter_uses_the_path_on_small_batches_of_ensembles_only():
    forest, tree = fitted("forest"), fitted("tree")
    X = tabular(sklearn_adapter.COMPILED_ROWS + 1, 9)[0]
    model = wrap(forest)
    assert isinstance(model, SklearnModel)
    assert np.array_equal(model.predict_proba(X), forest.predict_proba(X))     # above the rule: the estimator's own
    assert model._compiled is None
    assert np.abs(model.predict_proba(X[:50]) - forest.predict_proba(X[:50])).max() <= 1e-6
    assert isinstance(model._compiled, CompiledTrees)
    assert pickle.loads(pickle.dumps(model))._compiled is None                  # a shipped copy compiles its own
    assert SklearnModel(forest, compiled=False)._rows == 0
    assert SklearnModel(tree)._rows == 0                                         # a single tree: predict_proba
    assert SklearnModel(tree, compiled=True)._rows == np.inf
    with pytest.raises(ValueError, match="compiled must be"):
        SklearnModel(forest, compiled="yes")


def test_a_model_the_path_cannot_take_is_said_once(monkeypatch):
    monkeypatch.setattr(sklearn_adapter, "_SAID", set())
    X, y = tabular(200, 10)
    boosted = GradientBoostingClassifier(n_estimators=3, init=LogisticRegression()).fit(X, y)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        for _ in range(3):
            model = SklearnModel(boosted)
            assert np.array_equal(model.predict_proba(X[:20]), boosted.predict_proba(X[:20]))
        SklearnModel(LogisticRegression().fit(X, y))          # no tree model: nothing to say
    assert len(said) == 1 and issubclass(said[0].category, RuntimeWarning)
    assert "GradientBoostingClassifier" in str(said[0].message) and "init estimator" in str(said[0].message)
    with pytest.raises(ValueError, match="compiled=True: .*init estimator"):
        SklearnModel(boosted, compiled=True)


@pytest.mark.parametrize("method", ["aequitas", "random"])
def test_a_search_on_a_compiled_boosting_model_finds_the_same_pairs(method):
    data = make_synthetic(n=1500, random_state=0)
    boosted = GradientBoostingClassifier(n_estimators=40, max_depth=3, random_state=0).fit(data.X.to_numpy(float),
                                                                                          data.y)
    results = [get_method(method)(max_tried=6000, random_state=0, progress=False).run(
        SklearnModel(boosted, compiled=compiled), data.domain) for compiled in (True, False)]
    assert results[0].count() > 0
    assert results[0].tried == results[1].tried
    assert np.array_equal(results[0].inputs, results[1].inputs)
    assert np.array_equal(results[0].counterparts, results[1].counterparts)


def test_trees_that_are_one_leaf():
    X, y = tabular(100, 11)
    assert_same(CompiledTrees, DecisionTreeClassifier().fit(X, np.zeros(len(X), int)), X)  # one class, one node
    forest = RandomForestClassifier(n_estimators=5, max_depth=1, random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    forest.estimators_[2] = DecisionTreeClassifier().fit(X[:1].repeat(2, 0), [0, 1])          # a leaf among stumps
    assert forest.estimators_[2].tree_.node_count == 1
    assert_same(CompiledTrees, forest, X)


def test_the_adapter_compiles_again_after_the_estimator_is_fitted_again():
    X, y = tabular(400, 12)
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    model = SklearnModel(forest)
    model.predict_proba(X[:10])
    forest.fit(X, 1 - y)                                    # the same object, new trees
    assert np.abs(model.predict_proba(X[:50]) - forest.predict_proba(X[:50])).max() <= 1e-6

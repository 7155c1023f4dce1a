"""Binary gradient boosting by lookup tables (fairnb.models.sklearn_tables): the decisions of ``predict_proba`` on
every input checked (ties at 0.5 and sums that another order of additions would turn included) and probabilities
within 1e-6; used by the adapter on every batch; a model the tables cannot take said once and walked instead."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeRegressor

from fairnb.models import SklearnModel, wrap
from fairnb.models import sklearn as sklearn_adapter
from fairnb.models import sklearn_tables
from fairnb.models.sklearn_tables import BoostingTables, tables_reason
from fairnb.models.sklearn_trees import CompiledTrees
from tree_checks import assert_same, on_thresholds


def codes(n, lower, upper, seed):
    """Integer codes inside ``[lower, upper]`` and labels that depend on several columns."""
    rng = np.random.default_rng(seed)
    X = rng.integers(lower, np.asarray(upper) + 1, (n, len(lower))).astype(float)
    scaled = (X - lower) / np.maximum(np.asarray(upper) - lower, 1)
    score = scaled @ rng.normal(0, 1, len(lower)) + rng.normal(0, 0.5, n)
    return X, (score > np.median(score)).astype(int)


SHAPES = {   # depth, bounds, trees, init
    "stumps": (1, ([0, 0], [1, 9]), 40, None),
    "depth2": (2, ([0, 0, 18, 1], [1, 7, 70, 4]), 60, None),
    "depth3": (3, ([1, 0, 0, 0, 0, 0], [9, 7, 39, 15, 1, 99]), 100, None),
    "depth3_zero_init": (3, ([0, 0, 0], [3, 20, 5]), 30, "zero"),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_tables_give_predict_proba_decisions_on_codes_reals_thresholds_and_out_of_bounds(shape):
    depth, (lower, upper), trees, init = SHAPES[shape]
    lower, upper = np.array(lower), np.array(upper)
    gb = GradientBoostingClassifier(n_estimators=trees, max_depth=depth, init=init, random_state=0).fit(
        *codes(800, lower, upper, 0))
    assert tables_reason(gb) is None
    rng = np.random.default_rng(1)
    inside = codes(5000, lower, upper, 2)[0]                          # several chunks of integer codes
    assert_same(BoostingTables, gb, inside)
    assert_same(BoostingTables, gb, rng.uniform(lower - 0.5, upper + 0.5, (600, len(lower))))      # any real value
    assert_same(BoostingTables, gb, on_thresholds(gb, inside[:600], 3))                            # exactly on a split
    far = np.r_[codes(200, lower - 50, lower - 1, 4)[0], codes(200, upper + 1, upper + 1e6, 5)[0]]
    assert_same(BoostingTables, gb, far)                                               # far outside the bounds
    assert BoostingTables(gb).predict_proba(np.zeros((0, len(lower)))).shape == (0, 2)


def test_probabilities_at_one_half_decide_as_predict_proba():
    # every input appears once with each label: every leaf adds zero to a zero start, so P(class 1) = 0.5
    X = np.repeat(codes(200, np.array([0, 0, 0]), np.array([3, 9, 5]), 5)[0], 2, axis=0)
    gb = GradientBoostingClassifier(n_estimators=5, init="zero", random_state=0).fit(X, np.tile([0, 1], 200))
    P = BoostingTables(gb).predict_proba(X)
    assert (P == 0.5).all()
    assert_same(BoostingTables, gb, X)


def test_a_sum_that_another_order_turns_is_decided_in_scikit_learns_order(monkeypatch):
    # three trees, each one leaf value for every row: scikit-learn adds (1000.1 - 1000) - 0.1 = 2.3e-14 > 0 (class
    # 1); in separate tables taken largest first the sum is (-0.1 + 1000.1) - 1000 = 0 (a tie: class 0)
    X, y = codes(300, np.array([0, 0, 0]), np.array([4, 4, 4]), 6)
    gb = GradientBoostingClassifier(n_estimators=3, max_depth=1, learning_rate=1.0, init="zero").fit(X, y)
    gb.estimators_[2, 0] = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, X[:, 2] + X[:, 1])
    for stage, value in enumerate([1000.1, -1000.0, -0.1]):
        gb.estimators_[stage, 0].tree_.value[:] = value
    monkeypatch.setattr(sklearn_tables, "MERGE_ENTRIES", 1)                  # one table a tree
    tables = BoostingTables(gb)
    assert len(tables.offsets) == 3
    assert tables._raw(X[:5].astype(np.float32)).tolist() == [0.0] * 5      # the tables' own order: a tie
    assert (gb.predict_proba(X).argmax(axis=1) == 1).all()
    assert_same(BoostingTables, gb, X)


def test_missing_and_infinite_values_go_to_the_estimator_which_says_why():
    X, y = codes(400, np.array([0, 0, 0]), np.array([5, 9, 3]), 7)
    gb = GradientBoostingClassifier(n_estimators=10, random_state=0).fit(X, y)
    tables = BoostingTables(gb)
    for bad, says in ((np.nan, "NaN"), (np.inf, "infinity")):
        probe = X[:20].copy()
        probe[3, 1] = bad
        with pytest.raises(ValueError, match=says):
            tables.predict_proba(probe)


def test_what_the_tables_cannot_take_is_named(monkeypatch):
    lower, upper = np.array([0, 0, 0]), np.array([5, 9, 3])
    X, y = codes(300, lower, upper, 9)
    assert tables_reason(LogisticRegression().fit(X, y)).startswith("LogisticRegression is not")
    assert "is not gradient boosting" in tables_reason(RandomForestClassifier(n_estimators=2).fit(X, y))
    three = GradientBoostingClassifier(n_estimators=3, random_state=0).fit(X, X[:, 0] % 3)
    assert "3 classes" in tables_reason(three)
    with pytest.raises(ValueError, match="cannot tabulate: .*3 classes"):
        BoostingTables(three)
    gb = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y)
    monkeypatch.setattr(sklearn_tables, "THRESHOLDS", 2)
    assert "distinct thresholds" in tables_reason(gb)
    monkeypatch.setattr(sklearn_tables, "THRESHOLDS", 1024)
    monkeypatch.setattr(sklearn_tables, "TREE_ENTRIES", 2)
    assert "one of its trees alone" in tables_reason(gb)


def test_the_adapter_uses_the_tables_on_every_batch_and_not_when_compiled_is_false():
    lower, upper = np.array([0, 0, 18, 1]), np.array([1, 7, 70, 4])
    X, y = codes(600, lower, upper, 10)
    gb = GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y)
    probe = codes(sklearn_adapter.COMPILED_ROWS * 3, lower, upper, 11)[0]
    for model in (wrap(gb), SklearnModel(gb, compiled=True)):
        P = model.predict_proba(probe)                              # above COMPILED_ROWS too
        assert isinstance(model._compiled, BoostingTables)
        assert np.abs(P - gb.predict_proba(probe)).max() <= 1e-6
    plain = SklearnModel(gb, compiled=False)
    assert np.array_equal(plain.predict_proba(probe), gb.predict_proba(probe)) and plain._compiled is None
    gb.fit(X, 1 - y)                                                # the same object, new trees
    model = wrap(gb)
    model.predict_proba(probe[:5])
    assert np.array_equal(model.predict_proba(probe).argmax(1), gb.predict(probe))


def test_a_boosting_model_the_tables_cannot_take_is_said_once_and_walked(monkeypatch):
    monkeypatch.setattr(sklearn_adapter, "_SAID", set())
    X, _ = codes(300, np.array([0, 0, 0]), np.array([5, 9, 3]), 12)
    three = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, X[:, 0] % 3)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        for _ in range(3):
            model = SklearnModel(three)
            assert np.abs(model.predict_proba(X[:50]) - three.predict_proba(X[:50])).max() <= 1e-6
            assert isinstance(model._compiled, CompiledTrees)
        SklearnModel(three, compiled=False)                         # predict_proba: nothing to say
    assert len(said) == 1 and issubclass(said[0].category, RuntimeWarning)
    assert "walking its trees, not by lookup tables" in str(said[0].message) and "3 classes" in str(said[0].message)


def test_the_products_run_on_one_blas_thread_and_the_threads_are_restored(monkeypatch):
    # OpenBLAS shares a chunk's product among its threads, whose waits cost far more CPU than the product
    from threadpoolctl import threadpool_info, threadpool_limits

    X, y = codes(3000, np.array([0, 0, 0]), np.array([5, 9, 3]), 13)
    tables = BoostingTables(GradientBoostingClassifier(n_estimators=10, random_state=0).fit(X, y))
    threads = lambda: [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]   # noqa: E731
    seen, raw = [], tables._raw
    monkeypatch.setattr(tables, "_raw", lambda X32: seen.append(threads()) or raw(X32))
    with threadpool_limits(2, user_api="blas"):
        before = threads()
        tables.predict_proba(X)
        assert threads() == before
    assert len(seen) == 3 and all(n == [1] * len(before) for n in seen)

"""AFT's own oracles (docs/methods/aft.md §6): leaves are the tree's boxes, path pairs can hold discrimination in the
tree, a loop without discrimination starts again from fresh inputs, planted discrimination is found and re-checks."""
import numpy as np
from sklearn.tree import DecisionTreeClassifier

from fairnb.search.aft import AFT, leaf_boxes

from blackbox_checks import assert_pairs_rechecked


def test_leaves_are_boxes_where_the_tree_predicts_their_label(synthetic):
    dom = synthetic.domain
    rng = np.random.default_rng(0)
    X = dom.sample(3000, rng)
    tree = DecisionTreeClassifier(max_leaf_nodes=40, random_state=0).fit(X, (X[:, 0] + 2 * X[:, 1] > 6).astype(int))
    low, high, label, splits = leaf_boxes(tree, dom.lower, dom.upper)
    assert len(low) == tree.get_n_leaves() and (low <= high).all()
    for leaf in range(len(low)):
        points = rng.integers(low[leaf].astype(int), high[leaf].astype(int) + 1, (50, dom.n_features))
        assert (tree.predict(points) == label[leaf]).all()
    # each internal node's row: its feature, the leaves its left child holds (start:middle), its right (middle:stop)
    points = dom.sample(500, rng)
    inside = ((points[:, None] >= low) & (points[:, None] <= high)).all(axis=2)
    assert (inside.sum(axis=1) == 1).all()
    leaf = inside.argmax(axis=1)
    path = tree.decision_path(points).toarray().astype(bool)
    t = tree.tree_
    inner = np.flatnonzero(t.children_left >= 0)
    assert len(splits) == len(inner)
    for (f, start, middle, stop), node in zip(splits, inner):
        assert f == t.feature[node] and start < middle < stop
        assert (((start <= leaf) & (leaf < middle)) == path[:, t.children_left[node]]).all()
        assert (((middle <= leaf) & (leaf < stop)) == path[:, t.children_right[node]]).all()


def test_path_pairs_differ_in_label_and_protected_interval_and_share_the_rest(synthetic, biased_model):
    dom = synthetic.domain
    rng = np.random.default_rng(0)
    X = dom.sample(5000, rng)
    tree = DecisionTreeClassifier(criterion="entropy", max_leaf_nodes=300, random_state=0).fit(
        X, biased_model.predict_proba(X).argmax(axis=1))
    first, second, (low, high, label) = AFT(max_pairs=50)._pairs(tree, dom, rng)
    assert len(first) == 50
    P, free = dom.protected, dom.non_protected
    assert (label[first] != label[second]).all()
    assert (np.maximum(low[first][:, P], low[second][:, P]) > np.minimum(high[first][:, P], high[second][:, P])).all()
    assert (np.maximum(low[first][:, free], low[second][:, free])
            <= np.minimum(high[first][:, free], high[second][:, free])).all()


def test_finds_planted_discrimination_and_starts_afresh_when_there_is_none(synthetic, biased_model, fair_model):
    r = AFT(n_loops=5, n_train=2000, random_state=0).run(biased_model, synthetic.domain)
    assert r.status == "completed" and r.count() > 100 and r.extras["loops"] == 5
    assert_pairs_rechecked(r, biased_model, synthetic.domain)
    fair = AFT(n_loops=4, n_train=2000, random_state=0).run(fair_model, synthetic.domain)
    assert fair.count() == 0 and fair.extras["fresh_starts"] == 4

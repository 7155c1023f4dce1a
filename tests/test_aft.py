"""AFT's own oracles (docs/methods/aft.md §6): leaves are the tree's boxes, path pairs can hold discrimination in the
tree, a loop without discrimination starts again from fresh inputs, planted discrimination is found and re-checks."""
import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from fairnb.search.methods.aft import AFT, drawn_before_stop, leaf_boxes
from fairnb.search import Batch

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


def test_rounds_cut_each_pair_where_drawing_one_sample_at_a_time_stops():
    """Drawing a pair's samples in rounds of any size and keeping those before its stop keeps exactly the samples
    a one-at-a-time loop draws: up to the one that brings its misses to ``max_misses``, at most ``max_samples``."""
    rng = np.random.default_rng(0)
    max_misses, max_samples, n = 10, 100, 300
    wrong = rng.choice(3, size=(n, max_samples), p=rng.dirichlet(np.ones(3), size=1)[0])
    wrong[: n // 3] = rng.choice(2, size=(n // 3, max_samples), p=[0.97, 0.03])      # pairs that reach max_samples
    one_at_a_time = np.array([next((i + 1 for i in range(max_samples) if row[:i + 1].sum() >= max_misses),
                                   max_samples) for row in wrong])
    for chunk in (1, 5, 7, 100):
        misses, drawn = np.zeros(n, int), np.zeros(n, int)
        while len(active := np.flatnonzero((misses < max_misses) & (drawn < max_samples))):
            size = np.minimum(chunk, max_samples - drawn[active])
            pair = np.repeat(active, size)
            at = drawn[pair] + np.concatenate([np.arange(k) for k in size])
            kept = drawn_before_stop(pair, wrong[pair, at], misses, max_misses)
            drawn += np.bincount(pair[kept], minlength=n)
            misses += np.bincount(pair[kept], weights=wrong[pair, at][kept], minlength=n).astype(int)
            chunk *= 2
        assert np.array_equal(drawn, one_at_a_time)
    assert (one_at_a_time == max_samples).any() and (one_at_a_time < max_samples).any()


class OneSampleAtATime(AFT):
    """AFT as the artifact draws: one sample per pair and oracle call, every pair until its stop."""

    def _sample(self, ctx, pairs, seen):
        dom, rng = ctx.domain, ctx.rng
        first, second, (low, high, label) = pairs
        P = list(dom.protected)
        lo, hi = np.maximum(low[first], low[second]), np.minimum(high[first], high[second])
        lo[:, P], hi[:, P] = low[first][:, P], high[first][:, P]
        misses, drawn = np.zeros(len(first), int), np.zeros(len(first), int)
        missed, labels, hits = [np.zeros((0, lo.shape[1]))], [np.zeros(0, int)], 0
        while len(active := np.flatnonzero((misses < self.max_misses) & (drawn < self.max_samples))):
            x = rng.integers(lo[active].astype(int), hi[active].astype(int) + 1).astype(float)
            x2 = x.copy()
            x2[:, P] = rng.integers(low[second[active]][:, P].astype(int), high[second[active]][:, P].astype(int) + 1)
            verdict = yield Batch(x, phase="local", seed_ids=-1)
            drawn[active] += 1
            seen.add(x)
            hits += int(verdict.discriminatory.sum())
            y1 = verdict.labels
            y2 = verdict.variant_proba[np.arange(len(active)), dom.own_variant(x2)].argmax(axis=1)
            wrong1, wrong2 = y1 != label[first[active]], y2 != label[second[active]]
            misses[active] += wrong1.astype(int) + wrong2
            missed += [x[wrong1], x2[wrong2]]
            labels += [y1[wrong1], y2[wrong2]]
        return np.vstack(missed), np.concatenate(labels), hits


@pytest.mark.slow
def test_batched_rounds_find_what_one_sample_at_a_time_finds(synthetic, biased_model):
    """The paper's AFT (``constraints="paper"``) on a fixed small case: sampling in rounds draws as many samples per
    path pair and finds as many IDIs per sample as the one-at-a-time loop (same seeds; the draws differ, so the
    numbers agree within their spread over seeds), in far fewer oracle calls."""
    runs = {}
    for method in (AFT, OneSampleAtATime):
        results = [method(n_loops=6, n_train=2000, random_state=seed, constraints="paper").run(
            biased_model, synthetic.domain) for seed in range(4)]
        runs[method] = {"per_pair": np.mean([r.tried / r.extras["path_pairs"] for r in results]),
                        "found_per_tried": np.mean([r.count() / r.tried for r in results]),
                        "calls": np.mean([len(r.timeline) for r in results])}
    batched, reference = runs[AFT], runs[OneSampleAtATime]
    assert batched["per_pair"] == pytest.approx(reference["per_pair"], rel=0.1)
    assert batched["found_per_tried"] == pytest.approx(reference["found_per_tried"], rel=0.1)
    assert batched["calls"] * 10 < reference["calls"]

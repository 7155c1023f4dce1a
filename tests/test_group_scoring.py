"""TestSGD scoring: the error bound, the stopping rule, the sampler, and scores on models with known answers."""
from __future__ import annotations

import numpy as np
import pytest

import fairnb
from fairnb.group import GroupSampler, TestSGD, combined_margin, max_samples_needed, sensitive_features, wald_margin
from fairnb.group.planted import in_planted_group, make_planted_group
from fairnb.group.scoring import first_stop
from fairnb.group.testsgd import cell_covers
from fairnb.models import FunctionModel


def test_paper_worked_example():
    """283/1000 in the group vs 91/1000 outside: eps = 0.0457 <= 0.05, so sampling stops; f = 19.2%."""
    assert float(wald_margin(0.283, 1000)) == pytest.approx(0.027920, abs=1e-5)
    assert float(wald_margin(0.091, 1000)) == pytest.approx(0.017826, abs=1e-5)
    assert float(combined_margin(283, 91, 1000)) == pytest.approx(0.045746, abs=1e-5)
    assert abs(283 / 1000 - 91 / 1000) == pytest.approx(0.192)
    # the first check is at n = min_samples: with these counts at n = 1000 it stops there
    cin = np.array([[283]]); cout = np.array([[91]])
    assert first_stop(cin, cout, 999, 1000, 0.05, 1.96).tolist() == [1000]
    assert TestSGD().z == 1.96 and TestSGD().confidence ** 2 == pytest.approx(0.9025)


def test_margin_properties():
    """O11: eps falls with n, peaks at phi = 0.5, is 0 at phi in {0, 1}."""
    n = np.array([100, 1000, 10000])
    assert np.all(np.diff(wald_margin(0.3, n)) < 0)
    phis = np.linspace(0, 1, 11)
    m = wald_margin(phis, 1000)
    assert m.argmax() == 5 and m[0] == 0 and m[-1] == 0
    assert max_samples_needed() == 1537 and max_samples_needed(2.58, 0.01) == 66564


def test_first_stop_is_the_first_checked_n_with_small_margin():
    """O4: eps(n_stop) <= thr, eps(n) > thr for every checked n < n_stop."""
    rng = np.random.default_rng(0)
    hits_in, hits_out = rng.random((50, 600)) < 0.45, rng.random((50, 600)) < 0.55
    cin, cout = np.cumsum(hits_in, axis=1), np.cumsum(hits_out, axis=1)
    stop = first_stop(cin, cout, 999, 1000, 0.05, 1.96)
    n = 1000 + np.arange(600)
    eps = combined_margin(cin, cout, n[None, :])
    for r in range(50):
        if stop[r] > 0:
            i = stop[r] - 1000
            assert eps[r, i] <= 0.05 and np.all(eps[r, :i] > 0.05)
        else:
            assert np.all(eps[r] > 0.05)


@pytest.fixture(scope="module")
def planted():
    return make_planted_group(n=3000, random_state=0)


def test_sampler_keeps_group_membership_and_bounds(planted):
    """S1-S3: in-group samples satisfy R, out-of-group ones violate it; one non-sensitive feature moves by +-1."""
    tester = TestSGD(continuous=["age"])
    domain, feats, sampler = tester.setup(planted, sensitive=["sex", "race", "age"])
    rule_sets = tester.rule_sets(planted, sensitive=["sex", "race", "age"])[::200]
    assert 8 <= len(rule_sets) <= 20
    covers = cell_covers(sampler, feats, rule_sets)
    rng = np.random.default_rng(0)
    seeds = planted.split()[0]
    sens = [f.index for f in feats]
    for inside in (True, False):
        X = sampler.sample(covers, inside, 50, rng).reshape(len(rule_sets), 50, -1)
        names = [f.name for f in feats]
        for rs, block in zip(rule_sets, X):
            sample_bins = np.column_stack([f.bins(block[:, f.index]) for f in feats])
            member = rs.covers(sample_bins, [names.index(n) for n in rs.features])
            assert member.all() if inside else not member.any()
        flat = X.reshape(-1, seeds.shape[1])
        assert np.all(flat >= domain.lower) and np.all(flat <= domain.upper)
        # each sample is a training record with one non-sensitive feature moved by at most 1
        d = np.abs(flat[:, None, :] - seeds[None, :, :])
        close = (d.sum(axis=2) <= 1) & (d[:, :, sens].sum(axis=2) == 0)
        assert close.any(axis=1).all()


def test_constant_model_scores_zero_everywhere(planted):
    """O6: f = 0, eps = 0 and n = min_samples for every rule set."""
    for label in (0, 1):
        res = TestSGD(random_state=0).run(lambda X: np.full(len(X), float(label)), planted,
                                          sensitive=["sex", "race"])
        assert len(res) > 10
        assert (res.frame["score"] == 0).all() and (res.frame["eps"] == 0).all()
        assert (res.frame["n"] == 1000).all()


def test_planted_deterministic_group_scores_one_and_ranks_first(planted):
    """O7: M(x) = 1 iff x in the planted group: top-1 is that group with f = 1 and eps = 0."""
    model = FunctionModel(lambda X: in_planted_group(X).astype(float))
    res = TestSGD(random_state=0, continuous=["age"]).run(model, planted, sensitive=["sex", "race", "age"])
    top = res.frame.iloc[0]
    assert top.rule_set == planted.info["planted_group"]
    assert top.score == 1.0 and top.eps == 0.0 and top.n == 1000
    # every other rule set selects other records, so it scores less than 1
    assert (res.frame["score"].iloc[1:] < 1.0).all()
    repeated = sum(len(v) for v in res.info["aliases"].values())
    assert res.info["n_frequent"] == len(res) + len(res.info["skipped"]) + repeated


def test_probabilistic_planted_group_is_within_the_bound(planted):
    """O8: |f(R*) - |p_in - p_out|| <= eps for a model with known rates 0.8 in the group, 0.3 outside."""
    def model(X):
        u = (np.abs(np.sin(X @ np.arange(1.0, X.shape[1] + 1) * 12.9898)) * 43758.5453) % 1.0
        return (u < np.where(in_planted_group(X), 0.8, 0.3)).astype(float)

    hits = 0
    for seed in range(5):
        res = TestSGD(random_state=seed).run(model, planted, sensitive=["sex", "race"])
        row = res.frame[res.frame.rule_set == planted.info["planted_group"]].iloc[0]
        hits += abs(row.score - 0.5) <= row.eps
        assert res.frame.iloc[0].rule_set == planted.info["planted_group"]
    assert hits >= 4


def test_sample_counts_stay_between_min_samples_and_the_cap(planted):
    """O3: 1,000 <= n <= 1,537 per side, whatever the model (here one near 50/50 everywhere)."""
    rng = np.random.default_rng(0)
    coin = FunctionModel(lambda X: (rng.random(len(X)) < 0.5).astype(float))
    res = TestSGD(random_state=0, round_size=37).run(coin, planted, sensitive=["sex", "race"])
    assert res.frame["n"].between(1000, 1537).all()
    assert res.frame["n"].max() > 1400            # near 50/50 needs most of them
    assert res.frame["converged"].all() and (res.frame["eps"] <= 0.05 + 1e-12).all()


def test_label_symmetry_and_determinism(planted):
    """O10 and O12: same seed -> same ranking; swapping the favourable label leaves n, f and eps unchanged."""
    model = fairnb.train_demo_model(planted, max_iter=100)
    a = TestSGD(random_state=3).run(model, planted, sensitive=["sex", "race"])
    b = TestSGD(random_state=3).run(model, planted, sensitive=["sex", "race"])
    c = TestSGD(random_state=3, favourable=0).run(model, planted, sensitive=["sex", "race"])
    cols = ["rule_set", "n", "score", "eps"]
    assert a.frame[cols].equals(b.frame[cols])
    both = a.frame.merge(c.frame, on="rule_set")
    assert len(both) == len(a) and (both["n_x"] == both["n_y"]).all()
    assert np.allclose(both["score_x"], both["score_y"]) and np.allclose(both["eps_x"], both["eps_y"])
    assert np.allclose(both["phi_in_x"], 1 - both["phi_in_y"])


def test_batches_are_limited_by_batch_size(planted):
    sizes = []

    def model(X):
        sizes.append(len(X))
        return np.zeros(len(X))

    res = TestSGD(batch_size=5000).run(model, planted, sensitive=["sex", "race"])
    assert max(sizes) <= 5000 and len(sizes) >= len(res) // 2
    assert sum(sizes) == res.info["queries"] == 2000 * len(res)


def test_sampler_needs_a_free_feature():
    from fairnb.domains import Feature, TabularDomain

    dom = TabularDomain([Feature("a", 0, 1), Feature("b", 0, 1)])
    feats = sensitive_features(dom, ["a", "b"])
    X = np.array([[0, 1], [1, 0]], dtype=float)
    with pytest.raises(ValueError, match="no non-sensitive feature"):
        GroupSampler(X, np.column_stack([f.bins(X[:, f.index]) for f in feats]), dom, [0, 1])


@pytest.mark.parametrize("p_in,p_out", [(0.3, 0.1), (0.5, 0.5), (0.2, 0.83)])
def test_bound_covers_the_true_score(p_in, p_out):
    """O9: over 2,000 simulated runs of the stopping rule, |f_hat - f| <= eps in at least 90% of them."""
    rng = np.random.default_rng(7)
    cap = max_samples_needed()
    cin = np.cumsum(rng.random((2000, cap)) < p_in, axis=1)
    cout = np.cumsum(rng.random((2000, cap)) < p_out, axis=1)
    n = first_stop(cin, cout, 0, 1000, 0.05, 1.96)
    assert (n >= 1000).all() and (n <= cap).all()
    rows = np.arange(2000)
    a, b = cin[rows, n - 1], cout[rows, n - 1]
    f_hat = np.abs(a - b) / n
    eps = combined_margin(a, b, n)
    assert np.mean(np.abs(f_hat - abs(p_in - p_out)) <= eps) >= 0.90

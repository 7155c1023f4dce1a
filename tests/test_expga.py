"""ExpGA's own oracles (docs/methods/expga.md §6): the batched LIME explanation is LIME's weighted ridge, seeds
are the candidates whose explanation ranks the protected attribute, planted discrimination is found and
re-checks, and every individual stays inside the domain."""
import numpy as np
from sklearn.linear_model import Ridge

from fairnb.search.parts.attribution import lime_coefficients, lime_ranks
from fairnb.search.methods.expga import NOT_EXPLAINED, ExpGA

from blackbox_checks import assert_pairs_rechecked


def test_batched_explanation_is_lime_weighted_ridge_per_input():
    rng = np.random.default_rng(0)
    S, s0 = rng.normal(size=(400, 5)), rng.normal(size=(3, 5))
    P_samples, P_inputs = rng.random(400), rng.random(3)
    coef = lime_coefficients(P_samples, P_inputs, S, s0)
    width = 0.75 * np.sqrt(5)
    for i in range(3):
        data, target = np.vstack([s0[i], S]), np.concatenate([[P_inputs[i]], P_samples])
        weights = np.sqrt(np.exp(-((data - s0[i]) ** 2).sum(1) / width ** 2))
        expected = Ridge(alpha=1.0).fit(data, target, sample_weight=weights).coef_
        np.testing.assert_allclose(coef[i], expected, rtol=1e-6, atol=1e-9)


def test_ranks_follow_what_the_decision_depends_on():
    rng = np.random.default_rng(1)
    predict = lambda X: np.column_stack([1 - (0.8 * X[:, 3] + 0.2 * X[:, 0]) / 9, (0.8 * X[:, 3] + 0.2 * X[:, 0]) / 9])
    X = rng.integers(0, 10, (20, 4)).astype(float)
    ranks = lime_ranks(predict, X, np.full(4, 4.5), np.full(4, 2.9), rng=rng, n_samples=1000, lower=0, upper=9)
    assert (ranks[:, 3] == 0).all() and (ranks[:, 0] == 1).all()
    assert (np.sort(ranks, axis=1) == np.arange(4)).all()


def test_seeds_are_the_candidates_whose_explanation_ranks_the_protected_attribute(synthetic):
    dom = synthetic.domain
    sex, edu = dom.protected[0], dom.index("education")

    def model(X):           # sex matters only near the top of education; age and occupation a little everywhere
        X = np.asarray(X, dtype=float)
        p = 0.2 + 0.1 * X[:, 0] / 9 + 0.1 * X[:, 4] / 9 + 0.4 * np.exp(-((X[:, edu] - 16) / 2) ** 2) * X[:, sex]
        return np.column_stack([1 - p, p])

    r = ExpGA(n_candidates=300, n_seeds=300, n_local=0, rank_threshold=0.4, lime_samples=2000,
              random_state=0).run(model, dom)
    refused = (r.seed_outcomes["reason"] == NOT_EXPLAINED).to_numpy()
    assert 0 < refused.sum() < len(refused) and r.extras["explained"] == 300
    candidates = r.extras["seeds"]
    assert (candidates[:, sex] == dom.lower[sex]).all()             # random candidates at the protected lower bound
    high = candidates[:, edu] >= 14
    assert high[~refused].mean() > 0.6 and high[refused].mean() < 0.1


def test_finds_planted_discrimination_inside_the_domain(synthetic, biased_model):
    r = ExpGA(n_candidates=500, n_local=100, lime_samples=1000, random_state=0).run(biased_model, synthetic.domain,
                                                                                      synthetic.X)
    assert r.status == "completed" and r.extras["local_idis"] > 100
    assert r.count("adf") == r.extras["global_idis"] + r.extras["local_idis"]
    synthetic.domain.validate(r.inputs)
    assert_pairs_rechecked(r, biased_model, synthetic.domain)

"""LIMI's own oracles (docs/methods/limi.md §7): the generator reproduces the data, the probes sit on the learned
boundary and a step either side of it, planted discrimination is found and re-checks, and the naturalness measure
ranks data above noise as SDMetrics' quality score does."""
import numpy as np
import pytest

from fairnb.domains import Feature, TabularDomain
from fairnb.results.metrics import naturalness
from fairnb.search.parts.latent import GaussianCopula
from fairnb.search.methods.limi import LIMI
from fairnb.search.methods.random import RandomSearch

from blackbox_checks import assert_pairs_rechecked


class Recorder:
    """A generator that records the latent codes it is asked to decode (one array per call)."""

    def __init__(self, generator):
        self.generator, self.latent_dim, self.codes = generator, generator.latent_dim, []

    def decode(self, Z):
        self.codes.append(np.array(Z))
        return self.generator.decode(Z)


def test_the_copula_decodes_standard_normal_codes_to_the_data_distribution(synthetic):
    X = np.asarray(synthetic.X, dtype=float)
    g = GaussianCopula().fit(X)
    D = g.decode(np.random.default_rng(0).standard_normal((20000, g.latent_dim)))
    for j in range(X.shape[1]):
        assert np.isin(D[:, j], X[:, j]).all()        # every decoded value is one the data holds
        values = np.union1d(X[:, j], D[:, j])
        p = (X[:, j][:, None] == values).mean(0)
        q = (D[:, j][:, None] == values).mean(0)
        assert 0.5 * np.abs(p - q).sum() < 0.02     # and each feature keeps its frequencies
    r_data, r_decoded = np.corrcoef(X, rowvar=False), np.corrcoef(D, rowvar=False)
    assert np.abs(r_data - r_decoded).max() < 0.1


def test_probes_lie_on_the_surrogate_boundary_and_a_step_either_side(synthetic, biased_model):
    g = Recorder(GaussianCopula().fit(synthetic.X))
    r = LIMI(n_latent=400, n_boundary=3000, batch_size=400, step=0.3, generator=g, random_state=0).run(
        biased_model, synthetic.domain)
    boundary, on, plus, minus = g.codes
    assert len(boundary) == 3000 and len(on) == 400
    centred = on - on.mean(0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    assert s[-1] < 1e-8 * s[0]                        # the codes moved onto one hyperplane
    w = vt[-1]
    height = lambda Z: (Z - on.mean(0)) @ w
    assert np.allclose(np.abs(height(plus)), 0.3) and np.allclose(np.abs(height(minus)), 0.3)
    assert len(set(np.sign(height(plus)))) == 1 and set(np.sign(height(minus))) == {-np.sign(height(plus)[0])}
    # a code whose input on the boundary is discriminatory is not probed further
    assert len(minus) <= len(plus) < len(on) and r.extras["idis_on_boundary"] > 0
    assert r.extras["latent_codes"] == 400 and r.tried <= 3 * 400


def test_finds_planted_discrimination_and_none_where_the_model_ignores_the_attribute(synthetic, biased_model,
                                                                                    fair_model):
    r = LIMI(n_latent=3000, n_boundary=5000, random_state=0).run(biased_model, synthetic.domain, synthetic.X)
    assert r.status == "completed" and r.count() > 500 and r.extras["boundary_accuracy"] > 0.7
    assert_pairs_rechecked(r, biased_model, synthetic.domain)
    fair = LIMI(n_latent=3000, n_boundary=5000, random_state=0).run(fair_model, synthetic.domain, synthetic.X)
    assert fair.tried > 1000 and fair.count() == 0


def test_an_input_is_checked_once_and_a_budget_ends_it_exactly(synthetic, biased_model):
    r = LIMI(n_latent=3000, n_boundary=3000, random_state=0).run(biased_model, synthetic.domain, synthetic.X)
    assert r.tried == r.extras["generated"]       # every checked input is distinct without its protected attribute
    capped = LIMI(n_boundary=3000, max_tried=1234, random_state=0).run(biased_model, synthetic.domain, synthetic.X)
    assert capped.status == "budget" and capped.tried == capped.extras["generated"] == 1234


def test_a_time_budget_ends_it_when_every_input_has_been_checked(biased_model):
    """On a domain of 20 inputs every decoded input is soon one already checked: no batch reaches the oracle, and
    the search still ends at its budget."""
    dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
    data = np.array([[i % 2, i % 10] for i in range(200)], dtype=float)
    r = LIMI(n_boundary=500, max_time=1, random_state=0).run(lambda X: X[:, 1] / 9, dom, data)
    assert r.status == "budget" and 0 < r.tried <= 10


def test_without_seeds_or_generator_it_says_what_it_needs(synthetic, biased_model):
    with pytest.raises(ValueError, match="limi learns a generative model of the data: pass seeds"):
        LIMI(n_latent=10).run(biased_model, synthetic.domain)
    with pytest.raises(ValueError, match="generator.*decode"):
        LIMI(generator="ctgan").run(biased_model, synthetic.domain, synthetic.X)


def test_a_model_with_one_confident_class_ends_without_probing(synthetic):
    r = LIMI(n_latent=100, n_boundary=1000, random_state=0).run(lambda X: np.full(len(X), 0.9), synthetic.domain,
                                                               synthetic.X)
    assert r.status == "completed" and r.tried == 0 and "too few" in r.extras["ended"]


def test_limis_idis_are_more_natural_than_uniform_randoms(synthetic, biased_model):
    """The paper's headline claim, on the synthetic census: LIMI's discriminatory inputs score higher than those
    of uniform random sampling."""
    X = np.asarray(synthetic.X, dtype=float)
    limi = LIMI(n_latent=3000, n_boundary=5000, random_state=0).run(biased_model, synthetic.domain, X)
    rand = RandomSearch(n_samples=3000, random_state=0).run(biased_model, synthetic.domain)
    assert naturalness(limi, X)["naturalness"] > naturalness(rand, X)["naturalness"] + 0.05


DOM = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9), Feature("job", 0, 2, kind="categorical")],
                    protected=["sex"])
REAL = np.array([[i % 2, i % 10, (i // 10) % 3] for i in range(300)], dtype=float)


def test_naturalness_of_the_data_itself_is_one_and_of_uniform_noise_lower():
    assert naturalness(REAL, REAL, domain=DOM) == {"naturalness": 1.0, "column_shapes": 1.0,
                                                   "column_pair_trends": 1.0}
    noise = DOM.sample(300, np.random.default_rng(0))
    noise[:, 1] = np.random.default_rng(1).integers(0, 10, 300) // 5 * 9    # x only 0 or 9
    assert naturalness(noise, REAL, domain=DOM)["naturalness"] < 0.9
    rows = REAL[np.random.default_rng(2).choice(300, 100)]
    assert naturalness(rows, REAL, domain=DOM)["naturalness"] > naturalness(noise, REAL, domain=DOM)["naturalness"]


def test_naturalness_by_hand():
    """One found input (sex 0, x 9, job 2): by hand, shapes: sex 1 - KS = 0.5, x 1 - KS = 0.1 (numerical, mean
    0.3), job 1 - TVD = 1/3 (categorical); column shapes (0.3 + 1/3) / 2. Pairs: sex-x
        is constant in the found input (left out); sex-job: the data's cells hold 1/6 each, the found one's cell all, TVD
    5/6; x-job: x binned in 10 bins, the data's cells 1/30 each, TVD 29/30; trends mean(1/6, 1/30)."""
    out = naturalness([[0, 9, 2]], REAL, domain=DOM)
    assert out["column_shapes"] == pytest.approx((0.3 + 1 / 3) / 2)
    assert out["column_pair_trends"] == pytest.approx((1 / 6 + 1 / 30) / 2)
    assert out["naturalness"] == pytest.approx((out["column_shapes"] + out["column_pair_trends"]) / 2)


def test_naturalness_subsamples_larger_sets_and_refuses_what_it_cannot_read():
    big = np.tile(REAL, (3, 1))
    assert naturalness(big, REAL, domain=DOM)["naturalness"] == pytest.approx(1.0, abs=0.05)
    assert np.isnan(naturalness(np.zeros((0, 3)), REAL, domain=DOM)["naturalness"])
    with pytest.raises(ValueError, match=r"categorical=\['color'\] are not features"):
        naturalness(REAL, REAL, domain=DOM, categorical=["color"])
    with pytest.raises(ValueError, match="reference must be rows of 3 features"):
        naturalness(REAL, REAL[:, :2], domain=DOM)
    with pytest.raises(TypeError, match="domain="):
        naturalness(REAL, REAL)


def test_the_benchmark_gives_it_random_samplings_budget():
    from fairnb.bench import method_params

    assert method_params(LIMI, seeds=10, local=5, max_time=None) == {"n_latent": 50}
    assert method_params(LIMI, seeds=10, local=5, max_time=3.0) == {"n_latent": None, "max_time": 3.0}

import numpy as np
import pytest

from fairnb.domains import Feature, TabularDomain
from fairnb.models import FunctionModel
from fairnb.search.methods.aequitas import Aequitas, AequitasRandom, AequitasSemiDirected, PerturbationPolicy

from blackbox_checks import assert_pairs_rechecked


@pytest.mark.parametrize("variant", ["random", "semi", "fully"])
def test_finds_planted_discrimination_and_every_pair_rechecks(synthetic, biased_model, variant):
    r = Aequitas(variant=variant, n_seeds=500, n_local=100, random_state=0).run(biased_model, synthetic.domain)
    assert r.status == "completed"
    assert r.extras["global_idis"] > 20 and r.extras["local_idis"] > 200
    assert r.count("adf") == r.extras["global_idis"] + r.extras["local_idis"]
    assert set(r.pairs["phase"]) == {"global", "local"}
    assert_pairs_rechecked(r, biased_model, synthetic.domain)



def test_probabilities_stay_normalised_under_any_updates(rng):
    policy = PerturbationPolicy(np.arange(5), learn_attribute=True, learn_direction=True,
                                attribute_change=0.05, direction_change=0.05)
    for _ in range(300):
        slots, dirs = policy.choose(40, rng)
        assert slots.min() >= 0 and slots.max() < 5 and set(np.unique(dirs)) <= {-1, 1}
        policy.update(slots, dirs, rng.random(40) < 0.1)
        assert abs(policy.attribute_probability.sum() - 1) < 1e-12
        assert (policy.attribute_probability >= 0).all()
        assert ((policy.down_probability >= 0) & (policy.down_probability <= 1)).all()


def test_direction_and_attribute_updates_follow_the_paper():
    p = PerturbationPolicy([3, 7], learn_attribute=True, learn_direction=True)
    # discriminatory after moving slot 0 down -> more likely down; slot 0 more likely chosen
    p.update(np.array([0]), np.array([-1]), np.array([True]))
    assert p.down_probability.tolist() == [0.501, 0.5]
    assert p.attribute_probability[0] > p.attribute_probability[1]
    # not discriminatory after moving slot 1 up -> more likely down next time; slot 1 less likely
    before = p.attribute_probability[1]
    p.update(np.array([1]), np.array([1]), np.array([False]))
    assert p.down_probability.tolist() == [0.501, 0.501]
    assert p.attribute_probability[1] < before


def test_variants_learn_what_they_should(synthetic, biased_model):
    kw = dict(n_seeds=300, n_local=30, random_state=1)
    uniform = np.full(len(synthetic.domain.non_protected), 1 / len(synthetic.domain.non_protected))
    r = AequitasRandom(**kw).run(biased_model, synthetic.domain)
    assert np.allclose(r.extras["attribute_probability"], uniform) and np.allclose(r.extras["down_probability"], 0.5)
    r = AequitasSemiDirected(**kw).run(biased_model, synthetic.domain)
    assert np.allclose(r.extras["attribute_probability"], uniform)
    assert not np.allclose(r.extras["down_probability"], 0.5)
    r = Aequitas(**kw).run(biased_model, synthetic.domain)
    assert r.extras["variant"] == "fully" and not np.allclose(r.extras["attribute_probability"], uniform)
    with pytest.raises(ValueError, match=r"Aequitas \('aequitas'\): variant must be one of \('random', 'semi'"):
        Aequitas(variant="directed").run(biased_model, synthetic.domain)


def test_non_binary_and_several_protected_attributes():
    dom = TabularDomain([Feature("race", 0, 4), Feature("sex", 0, 1), Feature("a", 0, 20), Feature("b", 0, 20)],
                        protected=["race", "sex"])
    # discriminates only race 3 vs the rest, and only in a region of a
    model = FunctionModel(lambda X: ((X[:, 2] > 12) & (X[:, 0] == 3) | (X[:, 3] > 18)).astype(float))
    r = Aequitas(n_seeds=500, n_local=50, random_state=0).run(model, dom)
    assert r.count("adf") > 50
    assert_pairs_rechecked(r, model, dom)
    assert (r.inputs[:, 2] > 12).all() and (r.counterparts[:, 2] > 12).all()



def test_budget_and_seeds(synthetic, biased_model):
    r = Aequitas(n_seeds=1000, n_local=1000, max_found=300, random_state=0).run(biased_model, synthetic.domain)
    assert r.status == "budget" and 300 <= r.count() < 1000
    X_train = synthetic.split()[0]
    r = Aequitas(global_from="seeds", n_seeds=100, n_local=10, random_state=0).run(biased_model, synthetic.domain,
                                                                                      seeds=X_train)
    assert r.extras["global_generated"] <= 100
    with pytest.raises(ValueError, match="needs seeds"):
        Aequitas(global_from="seeds").run(biased_model, synthetic.domain)


def test_given_seeds_are_drawn_across_the_data_not_taken_in_file_order(synthetic, biased_model):
    """Data seeds in file order hid every discriminatory row behind the first ``n_seeds`` on one benchmark;
    a random draw (``random_state``) reaches them wherever they lie."""
    from fairnb.oracle import make_oracle

    X = synthetic.seed_inputs()
    discriminatory = make_oracle(None, biased_model, synthetic.domain).check(X).discriminatory
    ordered = np.concatenate([X[~discriminatory], X[discriminatory][:50]])      # the discriminatory rows last
    search = Aequitas(n_seeds=200, n_local=0, random_state=0)
    r = search.run(biased_model, synthetic.domain, seeds=ordered)
    assert r.extras["seeds_used"] == 200 and r.extras["global_idis"] > 0
    again = Aequitas(n_seeds=200, n_local=0, random_state=0).run(biased_model, synthetic.domain, seeds=ordered)
    assert np.array_equal(again.extras["seeds"], r.extras["seeds"])                   # the draw follows random_state

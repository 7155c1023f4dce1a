"""ADF: the digest's oracles (direction rule, normalisation, clip, Eq. 3) and the search invariants."""
from __future__ import annotations

import numpy as np

from fairnb.domains import Feature, TabularDomain
from fairnb.models import NumpyMLP
from fairnb.search.methods.adf import ADF
from fairnb.search.methods.eidig import EIDIG
from fairnb.search.parts.transformations import pick_attributes
from fairnb.search.methods.two_phase import agreeing_signs, reciprocal_probabilities
from two_phase_checks import assert_exact_global_phase, assert_sound_run, record_batches

CENSUS_ADF_BOUNDS = [(1, 9), (0, 7), (0, 39), (0, 15), (0, 6), (0, 13), (0, 5), (0, 4), (0, 1), (0, 99), (0, 39),
                     (0, 99), (0, 39)]



def test_direction_rule_oracle():
    """Digest 7.4.3: g signs [+,-,+,0,+], g' signs [+,+,+,0,-], protected index 2 -> dir [+1,0,0,0,0]."""
    g, gc = np.array([[0.3, -1.0, 2.0, 0.0, 0.7]]), np.array([[1.0, 0.5, 0.1, 0.0, -0.2]])
    d = agreeing_signs(g, gc)
    d[:, 2] = 0
    assert d.tolist() == [[1, 0, 0, 0, 0]]


def test_normalisation_oracle():
    """Digest 7.4.4: saliency [2,4,.,8] -> probabilities [4/7, 2/7, 0, 1/7]; all-zero gradients -> uniform."""
    g = np.array([[1.0, 2.0, 0.5, 4.0]])
    free = np.array([True, True, False, True])
    np.testing.assert_allclose(reciprocal_probabilities(g, g, free, eps=0), [[4 / 7, 2 / 7, 0, 1 / 7]])
    np.testing.assert_allclose(reciprocal_probabilities(0 * g, 0 * g, free), [[1 / 3, 1 / 3, 0, 1 / 3]])


def test_attribute_draws_follow_probabilities(rng):
    prob = np.tile([[0.5, 0.0, 0.3, 0.2]], (20000, 1))
    counts = np.bincount(pick_attributes(prob, rng), minlength=4) / 20000
    np.testing.assert_allclose(counts, [0.5, 0.0, 0.3, 0.2], atol=0.02)


def test_clip_oracles_census_example():
    """Digest 7.4.1 and 7.4.2 (Ex. 4.3 and 4.5): one global step with clipping, then one local step."""
    dom = TabularDomain([Feature(f"a{i}", lo, hi) for i, (lo, hi) in enumerate(CENSUS_ADF_BOUNDS)], protected=["a8"])
    x = np.array([[4, 0, 6, 6, 0, 1, 2, 1, 1, 0, 0, 40, 100]], float)
    step = np.array([[0, 1, 0, 0, -1, 1, -1, 0, 1, 0, 0, 1, -1]], float)
    step[:, dom.protected] = 0
    moved = dom.clip(x + step)
    assert moved.tolist() == [[4, 1, 6, 6, 0, 2, 1, 1, 1, 0, 0, 41, 39]]
    local = moved.copy()
    local[0, 11] -= 1
    assert dom.clip(local).tolist() == [[4, 1, 6, 6, 0, 2, 1, 1, 1, 0, 0, 40, 39]]


def test_counterpart_maximises_class_probability_difference():
    """Eq. 3: x' maximises |p_y(x') - p_y(x)| over the other protected values (x's own value excluded)."""
    P = np.array([[0.3, 0.7]])
    VP = np.array([[[0.4, 0.6], [0.3, 0.7], [0.45, 0.55], [0.35, 0.65]]])   # variant 1 is x itself
    assert ADF()._global_counterpart(P, VP, np.array([1])).tolist() == [2]
    assert ADF()._global_counterpart(P, P[:, None, :].repeat(2, axis=1), np.array([0])).tolist() == [1]


def test_multivalued_protected_attribute(synthetic, biased_model):
    data = synthetic.with_protected(["race"])        # 5 values; the model barely uses race
    assert_sound_run(ADF(n_seeds=40, n_local=30, random_state=0), biased_model, data, min_found=0)
    data = synthetic.with_protected(["sex", "race"])
    assert_sound_run(ADF(n_seeds=40, n_local=30, random_state=0), biased_model, data, min_found=50)


def test_global_checks_per_seed(synthetic, biased_model, fair_model):
    """Exactly max_iter + 1 checks (max_iter steps) per seed that is never discriminatory; fewer only for the
    seeds found discriminatory, each at most one global IDI."""
    params = dict(n_seeds=40, n_local=0, max_iter=3, seed_selection="as_given")
    assert (assert_exact_global_phase(ADF(**params), fair_model, synthetic, 4) == 4).all()
    counts = assert_exact_global_phase(ADF(**params), biased_model, synthetic, 4)
    assert counts.min() < 4


def test_first_global_step_equals_eidig_on_a_sigmoid_model(synthetic):
    """Digest (MAFT 6.3): with one sigmoid output, ADF's +sign(grad loss) and EIDIG's -sign(grad F_p) agree,
    so after one step (ADF max_iter=1 and EIDIG max_iter=2 both check twice) the candidates are equal."""
    W1 = np.random.default_rng(1).normal(size=(7, 6))
    model = NumpyMLP([W1, np.ones((6, 1)) * 0.1], [np.zeros(6), np.array([-1.0])])
    second = []
    for search in (ADF(n_seeds=30, n_local=0, max_iter=1, seed_selection="as_given"),
                   EIDIG(n_seeds=30, n_local=0, max_iter=2, seed_selection="as_given")):
        batches = record_batches(search)
        search.run(model, synthetic.domain, seeds=synthetic.X)
        assert len(batches) == 2
        second.append(batches[1][0])
    assert np.array_equal(*second) and len(second[0]) > 0

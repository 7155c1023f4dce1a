"""NeuronFair: the interpretation (AS curve, AUC, T_d, biased neurons), the dynamic loss and the search."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from fairnb.models import NumpyMLP
import fairnb.oracle
from fairnb.search.parts.biased_neurons import (as_curve, crossing_threshold, interpret, layer_auc,
                                     pair_activation_differences)
from fairnb.search.methods.neuronfair import DynamicLoss, NeuronFair
from two_phase_checks import assert_exact_global_phase, record_batches


def test_activation_differences_of_many_wide_pairs_are_computed_a_budget_at_a_time(monkeypatch):
    """A wide hidden layer (flattened convolutions) is measured on as many pairs per call as keep their float64
    activations within half of MEMORY_BUDGET, with the same ActDiffs as one call; before, every call took 256
    pairs whatever their width (512 images of a 32x32 detector: ~200 MB, ~300 MB with copies)."""
    rng = np.random.default_rng(0)
    width = 4000
    net = NumpyMLP([rng.normal(size=(6, width)), rng.normal(size=(width, 1))], [np.zeros(width), np.zeros(1)])
    rows = []

    class Recording:
        layer_sizes = net.layer_sizes

        def layer_outputs(self, X):
            rows.append(len(X))
            return net.layer_outputs(X)

        def predict_proba(self, X):
            return net.predict_proba(X)

    X, X_other = rng.random((300, 6)), rng.random((300, 6))
    whole = pair_activation_differences(net, X, X_other, batch_size=300)
    monkeypatch.setattr(fairnb.oracle, "MEMORY_BUDGET", 2 ** 20)
    diffs, changed = pair_activation_differences(Recording(), X, X_other)
    assert max(rows) * width * 8 <= 2 ** 20 / 2 and sum(rows) == 600
    assert changed == whole[1] and np.allclose(diffs[0], whole[0][0])


@pytest.mark.parametrize("z", [np.array([0.0, 0.0123, 0.5, 0.9]), np.random.default_rng(0).uniform(0, 0.99, 64),
                               np.array([0.3, 0.3, 0.3])])
def test_auc_closed_form_on_a_hand_built_layer(z):
    """AUC = (0.005 / n) * sum ceil(z / 0.005); mean(z) <= AUC < mean(z) + 0.005; permutation invariant."""
    auc = layer_auc(z)
    assert auc == pytest.approx(0.005 / len(z) * np.ceil(z / 0.005).sum(), abs=1e-12)
    assert z.mean() <= auc + 1e-12 and auc < z.mean() + 0.005
    assert layer_auc(z[::-1]) == pytest.approx(auc)


def test_as_curve_and_threshold():
    z = np.random.default_rng(1).uniform(0, 0.8, 32)
    t, share = as_curve(z)
    assert t[0] == 0 and share[0] == (z > 0).mean()
    assert t[-1] <= z.max() < t[-1] + 0.005 and share[-1] == (z > t[-1]).mean() <= 1 / len(z)
    assert (np.diff(share) <= 0).all()
    t_d = crossing_threshold(z)
    i = int(round(t_d / 0.005))
    assert 0 <= t_d <= z.max() and share[i] <= t_d
    assert t_d == 0 or share[i - 1] > t_d - 0.005
    assert (z > t_d).sum() <= len(z) * t_d
    zero = np.zeros(8)
    assert layer_auc(zero) == 0 and crossing_threshold(zero) == 0


def hand_built(domain, sensitive_neuron=True):
    """Layer 0: neuron 0 reads sex (if ``sensitive_neuron``), neurons 1-2 read education and age;
    layer 1 reads only neurons 1-2, so it is insensitive; the output reads layer 1."""
    W0 = np.zeros((domain.n_features, 3))
    W0[1, 0] = 2.0 if sensitive_neuron else 0.0
    W0[3, 1], W0[0, 2], W0[3, 0] = 0.3, 0.5, 0.1
    W1 = np.zeros((3, 2))
    W1[1, 0], W1[2, 1] = 1.0, 1.0
    return NumpyMLP([W0, W1, np.ones((2, 1))], [np.zeros(3), np.zeros(2), np.array([-4.0])])


def test_planted_biased_neuron_is_found(synthetic):
    X = synthetic.X.to_numpy(float)[:500]
    found = interpret(hand_built(synthetic.domain), synthetic.domain, X)
    assert found.biased_layer == 0 and found.biased_neurons.tolist() == [0]
    assert found.auc[1] == 0 and found.auc[0] > 0
    assert np.tanh(2.0) == pytest.approx(found.act_diff[0][0])          # |2 * (1 - 0)| on every pair
    table = found.table()
    assert list(table.columns) == ["layer", "neurons", "auc", "most_biased", "biased_neurons"]
    assert table["most_biased"].tolist() == [True, False]


def test_sensitive_blind_model(synthetic, fair_model):
    found = interpret(fair_model, synthetic.domain, synthetic.X.to_numpy(float)[:500])
    assert max(found.auc) == 0 and len(found.biased_neurons) == 0
    blind = interpret(hand_built(synthetic.domain, sensitive_neuron=False), synthetic.domain,
                      synthetic.X.to_numpy(float)[:200])
    assert max(blind.auc) == 0


def test_multivalued_protected_averages_over_other_values(synthetic):
    data = synthetic.with_protected(["race"])
    W = np.zeros((7, 1))
    W[2, 0] = 1.0                                      # a neuron equal to the race code 0..4
    model = NumpyMLP([W, np.ones((1, 1))], [np.zeros(1), np.zeros(1)])
    X = data.X.to_numpy(float)[:300]
    found = interpret(model, data.domain, X)
    expected = np.mean([np.abs(np.arange(5) - r).sum() / 4 for r in X[:, 2]])
    assert found.act_diff[0][0] == pytest.approx(np.tanh(expected))


def test_random_neuron_mask_size_and_redraw_schedule(synthetic, biased_model, monkeypatch):
    loss = DynamicLoss(random_share=0.05)
    rng = np.random.default_rng(0)
    for n, k in ((64, 3), (32, 1), (16, 0), (256, 12)):
        loss.biased = np.zeros(n, bool)
        loss.begin_population(7)
        loss.draw(rng)
        assert (loss.random.sum(axis=1) == k).all()
    search = NeuronFair(n_seeds=30, n_local=120, max_iter=25, seed_selection="as_given", random_state=0)
    draws = []
    original_draw, original_call = DynamicLoss.draw, DynamicLoss.__call__

    def spy(self, ctx, X, XC, PX, PC, *, rows, t, phase):
        self.phase_t = (phase, t)
        return original_call(self, ctx, X, XC, PX, PC, rows=rows, t=t, phase=phase)

    monkeypatch.setattr(DynamicLoss, "draw", lambda self, rng: (draws.append(self.phase_t), original_draw(self, rng)))
    monkeypatch.setattr(DynamicLoss, "__call__", spy)
    search.run(biased_model, synthetic.domain, seeds=synthetic.X)
    assert [t for p, t in draws if p == "global"] == [0, 10, 20][: len([p for p, _ in draws if p == "global"])]
    assert [t for p, t in draws if p == "local"] == [0, 50, 100]


def test_dynamic_loss_gradient_matches_finite_differences(synthetic):
    """On a smooth (tanh) network, the gradient of J(x) = -sum m f(x') log f(x) (x' fixed) agrees with a
    central finite difference, and the twin gradient swaps x and x'."""
    rng = np.random.default_rng(0)
    model = NumpyMLP([rng.normal(size=(7, 5)), rng.normal(size=(5, 1))], [np.ones(5) * 2, np.zeros(1)],
                     activation="logistic")
    loss = DynamicLoss()
    loss.use(SimpleNamespace(biased_layer=0, act_diff=[np.zeros(5)], biased_neurons=[0, 2]))
    loss.begin_population(3)
    loss.drawn_at = 0
    ctx = SimpleNamespace(model=model, rng=rng)
    X = synthetic.X.to_numpy(float)[:3]
    XC = X.copy()
    XC[:, 1] = 1 - XC[:, 1]
    g, gc = loss(ctx, X, XC, None, None, rows=np.arange(3), t=1, phase="global")
    mask = loss.biased.astype(float)
    assert mask.tolist() == [1.0, 0.0, 1.0, 0.0, 0.0]

    def J(Z, target):
        return -(mask * target * np.log(model.layer_outputs(Z)[0])).sum(axis=1)

    h = 1e-5
    for A, B, grad in ((X, XC, g), (XC, X, gc)):
        target = model.layer_outputs(B)[0]
        central = np.stack([(J(A + h * e, target) - J(A - h * e, target)) / (2 * h) for e in np.eye(7)], axis=1)
        np.testing.assert_allclose(grad, central, rtol=1e-4, atol=1e-8)


def test_interpretation_in_the_result(synthetic, biased_model):
    search = NeuronFair(n_seeds=20, n_local=10, random_state=0)
    r = search.run(biased_model, synthetic.domain, seeds=synthetic.X)
    e = r.extras
    hidden = len(biased_model.layer_sizes) - 1
    assert len(e["layer_auc"]) == len(e["layer_act_diff"]) == hidden
    assert all(0 <= a <= 1 for a in e["layer_auc"])
    assert e["biased_layer"] == int(np.argmax(e["layer_auc"]))         # the most biased layer by AUC
    z = np.array(e["layer_act_diff"][e["biased_layer"]])
    assert ((0 <= z) & (z < 1)).all()                                  # tanh of non-negative differences
    assert e["biased_neurons"] == np.flatnonzero(z > e["biased_threshold"]).tolist() and e["biased_neurons"]
    assert r.extras["interpretation_pairs"] == len(synthetic.X)
    summary = r.summary()
    assert summary["layer_auc"] and "biased_neurons" in summary
    assert len(search.interpretation_.table()) == len(r.extras["layer_auc"])


def test_global_checks_per_seed(synthetic, biased_model, fair_model):
    """Exactly max_iter + 1 checks per seed that is never discriminatory; fewer only for the seeds found."""
    params = dict(n_seeds=40, n_local=0, max_iter=40, seed_selection="as_given", random_state=0)
    assert (assert_exact_global_phase(NeuronFair(**params), fair_model, synthetic, 41) == 41).all()
    counts = assert_exact_global_phase(NeuronFair(**params), biased_model, synthetic, 41)
    assert counts.min() < 41


@pytest.mark.parametrize("local, extra", [("paper", 1), ("reference", 0)])
def test_local_steps_per_walker(synthetic, biased_model, local, extra):
    """Algorithm 3 loops t = 0..max_iter_local inclusive (n_local + 1 steps, like the global loop's
    max_iter + 1 checks); the released code's walk (basin hopping, niter = n_local) takes n_local."""
    search = NeuronFair(n_seeds=20, n_local=7, seed_selection="as_given", random_state=0, local=local)
    batches = record_batches(search)
    r = search.run(biased_model, synthetic.domain, seeds=synthetic.X)
    steps = np.bincount(np.concatenate([s for _, p, s in batches if p == "local"]))
    assert r.extras["global_idis"] > 0
    assert set(steps[steps > 0]) == {7 + extra} and r.extras["local_steps"] == r.extras["global_idis"] * (7 + extra)
    search.n_local = 0                                   # no local phase at all
    assert search._local_steps() == 0

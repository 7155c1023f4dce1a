"""EIDIG: momentum global search, lazily refreshed local guidance, reset on failure."""
from __future__ import annotations

import numpy as np

from fairnb.models import NumpyMLP
from fairnb.search.methods.eidig import EIDIG
from fairnb.search.engine.seeds import cluster_seeds
from two_phase_checks import assert_exact_global_phase, record_batches


def only_protected_model(domain, weight=5.0):
    """A model whose decision depends only on the protected attribute: every input is discriminatory."""
    w = np.zeros((domain.n_features, 1))
    w[domain.protected[0]] = weight
    return NumpyMLP([w], [np.array([-weight / 2])])



def test_every_seed_discriminatory_walk_never_resets(synthetic):
    """A model reading only the protected attribute: every seed is a global IDI at iteration 0, every local
    step succeeds, so gradients are refreshed exactly every update_interval steps."""
    model = only_protected_model(synthetic.domain)
    search = EIDIG(n_seeds=30, n_local=12, update_interval=5, seed_selection="as_given", random_state=0)
    batches = record_batches(search)
    r = search.run(model, synthetic.domain, seeds=synthetic.X)
    distinct = len(np.unique(synthetic.X.to_numpy()[:30], axis=0))
    assert r.extras["global_idis"] == distinct
    assert [p for _, p, _ in batches] == ["global"] + ["local"] * 12
    assert r.hits == r.tried                                     # no step ever failed
    assert r.extras["gradient_rows"] == 2 * distinct * 3         # refreshes at steps 0, 5 and 10
    inf = EIDIG(n_seeds=30, n_local=12, update_interval=float("inf"), seed_selection="as_given").run(
        model, synthetic.domain, seeds=synthetic.X)
    assert inf.extras["gradient_rows"] == 2 * distinct           # EIDIG-INF: only the initial guidance


def test_global_checks_per_seed(synthetic, biased_model, fair_model):
    """Exactly max_iter checks per seed that is never discriminatory (the state after the last step is never
    checked); fewer only for the seeds found discriminatory."""
    params = dict(n_seeds=40, n_local=0, max_iter=4, seed_selection="as_given", random_state=0)
    assert (assert_exact_global_phase(EIDIG(**params), fair_model, synthetic, 4) == 4).all()
    counts = assert_exact_global_phase(EIDIG(**params), biased_model, synthetic, 4)
    assert counts.min() < 4


def test_global_direction_descends_class_probability(synthetic):
    """One global step moves along -sign(grad F_p) where the gradients of x and x' agree (none here is an IDI)."""
    w = np.zeros((7, 1))
    w[1], w[3], w[5] = 0.2, 0.5, -0.3          # sex barely matters: nothing flips at first
    model = NumpyMLP([w], [np.array([-3.0])])
    search = EIDIG(n_seeds=5, n_local=0, max_iter=2, seed_selection="as_given")
    batches = record_batches(search)
    search.run(model, synthetic.domain, seeds=synthetic.X)
    (X0, _, _), (X1, _, _) = batches
    p1 = model.predict_proba(X0)[:, 1]
    expected = np.where(p1 > 0.5, -1.0, 1.0)[:, None] * np.sign(w[:, 0])[None, :]   # -sign(grad F_p)
    expected[:, 1] = 0
    assert np.array_equal(X1, synthetic.domain.clip(X0 + expected))


def test_kmeans_seeds_round_robin(synthetic, biased_model):
    r = EIDIG(n_seeds=12, n_local=0, random_state=0).run(biased_model, synthetic.domain, seeds=synthetic.X)
    expected = cluster_seeds(synthetic.X.to_numpy(float), 12, order="random", random_state=0)
    assert np.array_equal(r.extras["seeds"], expected)


def test_local_pair_is_a_random_flipping_variant():
    """FindPair (maft.md 2.4): the local guidance pairs x with a uniformly random protected variant that
    gets another decision, not always the one that changes the output most (ADF's engine default)."""
    from fairnb.domains import Feature, TabularDomain
    from fairnb.search.methods.maft import MAFT

    dom = TabularDomain([Feature("a", 0, 3), Feature("x", 0, 9)], protected=["a"])
    p1 = {0: 0.1, 1: 0.9, 2: 0.7, 3: 0.1}            # from a = 0, variants 1 and 2 flip, 1 the most

    def model(X):
        return np.array([p1[int(a)] for a in X[:, 0]]) + 0.001 * X[:, 1]

    def pairs_used(local_pair):
        used = []

        class Recording(MAFT):
            def _pair_gradients(self, ctx, X, XC, PX, PC, *, rows, t, phase):
                if phase == "local":
                    used.extend(XC[:, 0].tolist())
                return super()._pair_gradients(ctx, X, XC, PX, PC, rows=rows, t=t, phase=phase)

        search = Recording(n_seeds=10, n_local=50, seed_selection="as_given", random_state=0)
        search.local_pair = local_pair
        seeds = np.column_stack([np.zeros(10), np.arange(10.0)])
        r = search.run(model, dom, seeds=seeds)
        assert r.hits == r.tried          # every input with a = 0 is discriminatory: no step fails
        return used

    assert MAFT.local_pair == "random"
    random_pairs = pairs_used("random")
    assert set(random_pairs) == {1.0, 2.0} and 0.3 < random_pairs.count(1.0) / len(random_pairs) < 0.7
    assert set(pairs_used("max")) == {1.0}

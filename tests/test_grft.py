"""GRFT's own oracles (docs/methods/grft.md §6): the first population stays two attributes from its seed, breeding
keeps the fittest and draws parents from the best ranks, local IDIs are one move from a found input, planted
discrimination is found and re-checks."""
import numpy as np

from fairnb.search.methods.grft import GRFT

from blackbox_checks import RowLog, assert_pairs_rechecked, rows_searched


def test_first_population_moves_two_attributes_of_its_seed_at_most_five(synthetic, biased_model):
    dom = synthetic.domain
    log = RowLog(biased_model)
    r = GRFT(n_seeds=20, n_local=0, max_iter=1, seed_selection="as_given", random_state=0).run(log, dom, synthetic.X)
    seeds = r.extras["seeds"]
    rows = rows_searched(log, r)
    free = dom.non_protected
    assert len(rows) == 20 * 100 * len(dom.protected_values)
    for i, seed in enumerate(seeds):
        population = rows[i * 100 * 2:(i + 1) * 100 * 2]
        delta = np.abs(population[:, free] - seed[free])
        assert (delta <= 5).all() and ((delta > 0).sum(axis=1) <= 2).all()
        assert len(np.unique(np.nonzero(delta)[1])) <= 2      # the same two attributes for the whole population


def test_breeding_keeps_the_fittest_and_crosses_the_best_ranks(synthetic):
    dom = synthetic.domain
    rng = np.random.default_rng(0)
    pop = dom.sample(2 * 30, rng).reshape(2, 30, -1)
    fitness = rng.random((2, 30))
    search = GRFT(population=30, elite_pool=5, mutation_rate=0.0)
    child = search._breed(pop, fitness, dom, rng)
    for s in range(2):
        best = np.argsort(-fitness[s])
        assert (child[s, best[0]] == pop[s, best[0]]).all()
        elite = pop[s, best[:5]]
        assert all((child[s, i, j] == elite[:, j]).any() for i in range(30) for j in range(pop.shape[2]))


def test_finds_planted_discrimination_with_local_moves_of_one_step(synthetic, biased_model):
    r = GRFT(n_seeds=200, n_local=100, random_state=0).run(biased_model, synthetic.domain, synthetic.X)
    assert r.status == "completed" and r.extras["global_idis"] > 20 and r.extras["local_idis"] > 100
    assert r.count() == r.extras["global_idis"] + r.extras["local_idis"]
    assert_pairs_rechecked(r, biased_model, synthetic.domain)
    found = {tuple(x) for x in r.inputs}
    for x in r.inputs[r.phases == "local"][:300]:
        steps = [x + s * np.eye(len(x))[j] for j in synthetic.domain.non_protected for s in (-1, 1)]
        assert any(tuple(n) in found for n in steps)


def test_global_and_local_idis_add_up_to_the_pairs_over_several_seed_rounds(synthetic, biased_model):
    """Each IDI counts once in the run's tallies, also when a later seed round finds it again."""
    search = GRFT(n_seeds=15, n_local=15, random_state=0, max_tried=60_000, max_time=600)
    r = search.run(biased_model, synthetic.domain, synthetic.X)
    assert r.extras["seed_rounds"] > 1
    assert r.count() == r.extras["global_idis"] + r.extras["local_idis"]


def test_generated_counts_each_distinct_candidate_once_over_seed_rounds(synthetic, biased_model):
    from fairnb.oracle import Oracle

    checked = []

    class Logged(Oracle):
        def check(self, X, variants=None):
            checked.append(np.array(X, dtype=float))
            return super().check(X, variants)

    search = GRFT(n_seeds=10, n_local=20, max_iter=3, max_time=600, max_tried=60_000, random_state=0, progress=False)
    r = search.run(biased_model, synthetic.domain, synthetic.X, oracle=Logged)
    assert r.extras["seed_rounds"] > 2
    skip = r.extras["natural_n"]           # the data's rows checked as they are come first
    while skip > 0:
        skip -= len(checked.pop(0))
    keys = synthetic.domain.key(np.concatenate(checked), "eidig")
    first_seen = keys[np.sort(np.unique(keys, axis=0, return_index=True)[1])]
    assert r.extras["generated"] == len(first_seen)
    np.testing.assert_array_equal(r.tallies["generated"].rows(), first_seen)

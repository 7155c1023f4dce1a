"""How a search is cut into shards (``fairnb.distributed.plan``): no Dask needed."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb.distributed import plan_shards
from fairnb.search import RandomSearch
from fairnb.search.methods.eidig import EIDIG


def test_plan_splits_budgets_and_seeds():
    shards = plan_shards(RandomSearch(n_samples=10, max_tried=9, random_state=0), None, 4)
    assert [s.params for s in shards] == [{"n_samples": 3, "max_tried": 3}, {"n_samples": 3, "max_tried": 2},
                                          {"n_samples": 2, "max_tried": 2}, {"n_samples": 2, "max_tried": 2}]
    seeds = np.arange(20.0).reshape(10, 2)
    shards = plan_shards(EIDIG(n_seeds=7, seed_selection="as_given", random_state=0), seeds, 3)
    assert [(s.first_id, s.n_seeds, s.params["n_seeds"]) for s in shards] == [(0, 3, 3), (3, 2, 2), (5, 2, 2)]
    np.testing.assert_array_equal(np.concatenate([s.seeds for s in shards]), seeds[:7])
    draws = {tuple(np.random.default_rng(s.stream).integers(0, 10**9, 3)) for s in shards}
    assert len(draws) == 3                        # independent streams
    one = plan_shards(EIDIG(n_seeds=10, seed_selection="as_given", random_state=5), seeds, 1)[0]
    assert np.random.default_rng(one.stream).random() == np.random.default_rng(5).random()
    with pytest.raises(ValueError, match="n_shards"):
        plan_shards(RandomSearch(), None, 0)



def test_each_methods_own_count_budgets_are_divided_as_its_record_says():
    """AFT and VBT-X divide their loops, LIMI its latent codes, KOSEI its expansions (all walks together): two
    shards used to run each of them whole (2 shards tried about twice what 1 did)."""
    from fairnb.search import get_method

    plans = {name: [s.params for s in plan_shards(get_method(name)(random_state=0, **params), None, 2)]
             for name, params in {"aft": dict(n_loops=3), "vbtx": dict(n_loops=3), "limi": dict(n_latent=5),
                                  "kosei": dict(n_seeds=4, n_local=7)}.items()}
    assert plans == {"aft": [{"n_loops": 2}, {"n_loops": 1}], "vbtx": [{"n_loops": 2}, {"n_loops": 1}],
                     "limi": [{"n_latent": 3}, {"n_latent": 2}],
                     "kosei": [{"n_seeds": 2, "n_local": 4}, {"n_seeds": 2, "n_local": 3}]}


def test_a_subclass_divides_what_its_registered_base_divides():
    class Mine(RandomSearch):
        name = "mine"

    assert [s.params for s in plan_shards(Mine(n_samples=5, random_state=0), None, 2)] == [{"n_samples": 3},
                                                                                          {"n_samples": 2}]


def test_a_seed_cap_below_the_selected_seeds_stays():
    """ExpGA selects ``n_candidates`` inputs and keeps at most ``n_seeds`` of them (its population): a shard given
    300 candidates used to get ``n_seeds=300``, so one shard tried six times what the local run did."""
    from fairnb.search import get_method

    seeds = np.random.default_rng(0).integers(0, 5, (1000, 3)).astype(float)
    expga = get_method("expga")(n_candidates=300, n_seeds=50, random_state=0)
    assert [s.params["n_seeds"] for s in plan_shards(expga, seeds, 1)] == [50]
    eidig = EIDIG(n_seeds=7, seed_selection="as_given", random_state=0)
    with pytest.warns(UserWarning, match="only 5 seed inputs"):                            # fewer rows than n_seeds
        assert [s.params["n_seeds"] for s in plan_shards(eidig, seeds[:5], 3)] == [2, 2, 1]

"""A budget is a budget (issue 26, item 9): given ``max_time``, a seeded search that has searched its seeds
draws fresh ones and goes on; without it nothing changes. The runs are bounded by ``max_tried`` beside a
long ``max_time``, so no assertion depends on the clock."""
import numpy as np
import pytest

from fairnb.domains import Feature, TabularDomain
from fairnb.oracle import Oracle
from fairnb.search.methods.aequitas import Aequitas
from fairnb.search.methods.eidig import EIDIG
from fairnb.search.methods.maft import MAFT

FAST = {Aequitas: dict(n_seeds=30, n_local=10), MAFT: dict(n_seeds=10, n_local=10),
        EIDIG: dict(n_seeds=10, n_local=10, seed_selection="as_given")}


def run(cls, model, domain, seeds, **budget):
    return cls(**FAST[cls], random_state=0, progress=False, **budget).run(model, domain, seeds=seeds)


@pytest.mark.parametrize("cls", [Aequitas, MAFT, EIDIG])
def test_a_time_budget_draws_fresh_seeds_until_another_budget_ends_it(cls, synthetic, biased_model):
    once = run(cls, biased_model, synthetic.domain, synthetic.X)
    assert once.status == "completed" and "seed_rounds" not in once.extras
    r = run(cls, biased_model, synthetic.domain, synthetic.X, max_time=600, max_tried=20 * once.tried)
    assert r.status == "budget" and r.ended_by[0] == "max_tried"
    assert r.extras["seed_rounds"] > 1 and r.tried > once.tried and r.count() > once.count()
    seeds = r.extras["seeds"]
    n = FAST[cls]["n_seeds"]
    assert r.extras["seeds_used"] == len(seeds) > n
    assert len(np.unique(seeds, axis=0)) == len(seeds)              # no seed used twice
    # the rounds' seed ids index the run's seeds; outcomes and tallies cover every round
    assert r.seed_ids.min() >= 0 and r.seed_ids.max() < len(seeds) and r.seed_ids.max() >= n
    assert len(r.seed_outcomes) == len(seeds)
    assert r.extras["seeds_found"] + r.extras["seeds_exhausted"] + r.extras["seeds_skipped"] == len(seeds)
    # the natural rate is the data's, however many rounds ran; the domain's draws are counted apart
    assert r.extras["natural_n"] == once.extras["natural_n"] == len(np.unique(np.asarray(synthetic.X, float), axis=0))
    assert r.extras.get("random_n", 0) == r.extras["seeds_from_domain"]
    assert r.extras["generated"] >= r.count("adf")
    assert Oracle(biased_model, synthetic.domain).check(r.inputs).discriminatory.all()


def test_the_first_round_is_the_search_without_a_time_budget(synthetic, biased_model):
    once = run(MAFT, biased_model, synthetic.domain, synthetic.X)
    r = run(MAFT, biased_model, synthetic.domain, synthetic.X, max_time=600, max_tried=once.tried)
    assert r.extras["seed_rounds"] == 1 and r.tried == once.tried
    assert np.array_equal(r.inputs, once.inputs) and np.array_equal(r.seed_ids, once.seed_ids)
    assert {k: v for k, v in r.summary().items() if k not in ("elapsed_s", "idis_per_s", "time_to_first_s",
                                                             "time_to_1000_s", "status", "seed_rounds",
                                                             "seeds_from_domain")} == \
        {k: v for k, v in once.summary().items() if k not in ("elapsed_s", "idis_per_s", "time_to_first_s",
                                                              "time_to_1000_s", "status")}


def test_seeds_come_from_the_data_then_from_the_domain(synthetic, biased_model):
    data = np.asarray(synthetic.X, dtype=float)[:40]
    r = run(Aequitas, biased_model, synthetic.domain, data, max_time=600, max_tried=30_000)
    seeds = r.extras["seeds"]
    from_domain = r.extras["seeds_from_domain"]
    assert from_domain > 0 and len(seeds) > len(np.unique(data, axis=0)) + 30
    # every distinct data row is used before any domain draw
    data_part = seeds[: len(seeds) - from_domain]
    assert {tuple(x) for x in data_part} == {tuple(x) for x in data}


def test_a_spent_domain_ends_the_rounds():
    """Six inputs in all: once each is a seed, the search ends although time is left."""
    domain = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 2)], protected=["sex"])
    r = Aequitas(n_seeds=2, n_local=3, max_time=600, random_state=0, progress=False).run(
        lambda X: (X[:, 0] + X[:, 1]) / 3, domain)
    assert r.status == "completed" and len(r.extras["seeds"]) == 6


def test_a_shard_given_its_seeds_does_not_draw(synthetic, biased_model):
    search = Aequitas(**FAST[Aequitas], max_time=600, max_tried=5_000, random_state=0, progress=False)
    r = search.run(biased_model, synthetic.domain, seeds=synthetic.X, selected_seeds=synthetic.X[:30])
    assert r.status == "completed" and "seed_rounds" not in r.extras and len(r.extras["seeds"]) == 30


def test_the_few_seeds_warning_names_the_users_line_and_what_the_rounds_do(synthetic, biased_model):
    """Issue #34 item 7: the warning points at the line that started the search (not at fairnb's inside) and,
    under ``max_time``, does not claim that only the given seeds were used."""
    few = synthetic.X[:20]
    with pytest.warns(UserWarning, match=r"n_seeds=30 but only 20 seed inputs were given; using all 20") as plain:
        run(Aequitas, biased_model, synthetic.domain, few)
    with pytest.warns(UserWarning, match=r"the first round starts from all 20, and while max_time lasts later "
                                         r"rounds draw fresh seeds") as timed:
        r = run(Aequitas, biased_model, synthetic.domain, few, max_time=600, max_tried=5_000)
    assert r.extras["seeds_used"] > 20 and r.extras["random_n"] > 0
    assert {w.filename for w in [*plain, *timed]} == {__file__}


def test_the_cli_prints_a_warning_as_its_message_alone(monkeypatch, capsys):
    import warnings

    from fairnb import cli

    def command(args):
        warnings.warn("eidig: n_seeds=1000 but only 178 seed inputs were given")
        return {}

    monkeypatch.setitem(cli.COMMANDS, "demo", command)
    assert cli.main(["demo"]) == 0
    err = capsys.readouterr().err
    assert err == "fairnb demo: warning: eidig: n_seeds=1000 but only 178 seed inputs were given\n"

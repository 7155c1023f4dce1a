"""KOSEI's own oracles (docs/methods/kosei.md §6): no candidate evaluated twice, planted discrimination
found, nothing on a fair model, local candidates one move from a discriminatory input."""
import numpy as np

from fairnb.search.methods.aequitas import Aequitas
from fairnb.search.methods.kosei import Kosei

from blackbox_checks import RowLog, assert_pairs_rechecked, rows_searched


def test_never_sends_the_same_row_to_the_model_twice(synthetic, biased_model):
    for seeds in (None, np.concatenate([synthetic.X[:200]] * 2)):
        log = RowLog(biased_model)
        r = Kosei(n_seeds=400, n_local=300, random_state=0).run(log, synthetic.domain, seeds)
        rows = rows_searched(log, r)
        assert len(np.unique(rows, axis=0)) == len(rows) == r.tried * 2   # each candidate with its sex flipped
        assert r.extras["generated"] == r.tried and r.extras["local_idis"] > 0
    repeats = r.seed_outcomes.iloc[200:]       # the given seeds twice: the second time skipped, never sent
    assert (repeats["outcome"] == "skipped").all() and (repeats["reason"] == "a repeat of an input already evaluated").all()
    log = RowLog(biased_model)
    r = Aequitas(n_seeds=400, n_local=30, random_state=0).run(log, synthetic.domain)
    rows = rows_searched(log, r)
    assert len(np.unique(rows, axis=0)) < 0.8 * len(rows)       # what KOSEI saves


def test_finds_planted_discrimination_and_nothing_on_a_fair_model(synthetic, biased_model, fair_model):
    r = Kosei(n_seeds=500, n_local=500, random_state=0).run(biased_model, synthetic.domain)
    assert r.status == "completed" and r.extras["global_idis"] > 20 and r.extras["local_idis"] > 200
    assert r.count("adf") == r.extras["global_idis"] + r.extras["local_idis"]
    assert_pairs_rechecked(r, biased_model, synthetic.domain)
    assert Kosei(n_seeds=500, n_local=500, random_state=0).run(fair_model, synthetic.domain).count() == 0


def test_local_candidates_are_one_move_from_a_discriminatory_input(synthetic, biased_model):
    r = Kosei(n_seeds=300, n_local=200, step_size=2, random_state=0).run(biased_model, synthetic.domain)
    found = {tuple(x) for x in np.delete(r.inputs, synthetic.domain.protected, axis=1)}
    local = np.delete(r.inputs[r.phases == "local"], synthetic.domain.protected, axis=1)
    assert len(local)
    for x in local:
        neighbours = [x - d for d in np.vstack([2 * np.eye(len(x)), -2 * np.eye(len(x))])]
        assert any(tuple(n) in found for n in neighbours)

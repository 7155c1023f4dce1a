"""Results merge themselves, without Dask: the pairs de-duplicated in shard order, the tallies by their
declared types (``fairnb.results.tallies``), ``max_found`` respected; and a saved Result keeps everything."""
from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairnb
from fairnb.results import Count, Derived, Distinct, PerShard, Ratio, Result, Same, merge_results
from fairnb.search import RandomSearch
from fairnb.search.methods.neuronfair import NeuronFair

SAVED = Path(__file__).parent / "saved_results"


def shard(domain=None, **tallies) -> Result:
    r = Result(domain, "x")
    r.tally(**tallies)
    return r


def test_merge_deduplicates_under_both_conventions(synthetic):
    dom = synthetic.domain          # "sex" is the protected column 1
    a, b = fairnb.Result(dom, "x"), fairnb.Result(dom, "x")
    row = synthetic.X.to_numpy(float)[0]
    other_sex = row.copy()
    other_sex[1] = 1 - row[1]
    other_row = row.copy()
    other_row[0] = (row[0] + 1) % (dom.upper[0] + 1)
    p = np.array([[0.2, 0.8]])
    for r, X, t in ((a, [row, other_row], 1.0), (b, [row, other_sex], 0.5)):
        X = np.array(X)
        r.record(X, X, np.repeat(p, len(X), 0), np.repeat(p, len(X), 0), phase="local", seed_ids=[0, 1], elapsed=t)
    merged = merge_results([a, b], dom, "x", offsets=[0.0, 0.0])
    # full inputs: row (in both), other_row, other_sex; without the protected column: row = other_sex
    assert (merged.count("eidig"), merged.count("adf")) == (3, 2)
    np.testing.assert_array_equal(merged.inputs[:2], a.inputs)   # a duplicate keeps the first shard's pair
    assert merged.time_to(1) == 0.5 and merged.time_to(3) == 1.0
    assert merged.hits == a.hits + b.hits and list(merged.extras["shards"]["unique_idis"]) == [2, 2]


def test_each_tally_type_merges_by_its_rule(synthetic):
    dom = synthetic.domain
    a = shard(dom, steps=Count(5), generated=Distinct(np.array([[1, 2], [3, 4]])), layer=Same(3),
              table=PerShard([0.25, 0.75]), share=Ratio("steps", "generated"))
    b = shard(dom, steps=Count(7), generated=Distinct(np.array([[3, 4], [5, 6]])), layer=Same(3),
              table=PerShard([0.5, 0.5]), share=Ratio("steps", "generated"))
    merged = merge_results([a, b], dom, "x")
    e = merged.extras
    assert (e["steps"], e["generated"], e["layer"]) == (12, 3, 3)     # summed, union of keys, kept
    assert e["share"] == round(12 / 3, 6)                             # recomputed from the merged parts
    assert "table" not in e and [s["table"] for s in e["per_shard"]] == [[0.25, 0.75], [0.5, 0.5]]
    one = merge_results([a], dom, "x")                                 # a one-shard run is the local run
    assert {k: one.extras[k] for k in a.extras} == a.extras


def test_a_value_every_shard_computes_alike_is_never_summed(synthetic, biased_model):
    search = lambda seed: NeuronFair(layer=1, n_seeds=6, max_iter=3, n_local=2, random_state=seed,  # noqa: E731
                                     progress=False)
    a, b = (search(seed).run(biased_model, synthetic.domain, synthetic.X[:200]) for seed in (0, 1))
    assert a.extras["biased_layer"] == b.extras["biased_layer"] == 1
    merged = merge_results([a, b], synthetic.domain, "neuronfair")
    assert merged.extras["biased_layer"] == 1 and merged.extras["layer_auc"] == a.extras["layer_auc"]
    assert merged.extras["interpretation_pairs"] == a.extras["interpretation_pairs"]


def test_an_interpretation_of_each_shards_own_sample_stays_per_shard(synthetic, biased_model):
    search = lambda seed: NeuronFair(layer=1, interpret_rows=50, n_seeds=6, max_iter=3, n_local=2,  # noqa: E731
                                     random_state=seed, progress=False)
    a, b = (search(seed).run(biased_model, synthetic.domain, synthetic.X[:200]) for seed in (0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        merged = merge_results([a, b], synthetic.domain, "neuronfair")
    assert "biased_layer" not in merged.extras
    assert [s["biased_layer"] for s in merged.extras["per_shard"]] == [1, 1]
    assert merge_results([a], synthetic.domain, "neuronfair").extras["biased_layer"] == 1


def test_shards_that_disagree_on_a_same_value_are_kept_apart_with_a_warning(synthetic):
    dom = synthetic.domain
    with pytest.warns(RuntimeWarning, match="disagree"):
        merged = merge_results([shard(dom, layer=Same(1)), shard(dom, layer=Same(2))], dom, "x")
    assert "layer" not in merged.extras and [s["layer"] for s in merged.extras["per_shard"]] == [1, 2]


def test_a_whole_number_extra_needs_a_declared_merge_rule():
    r = Result(None)
    for write in (lambda: r.extras.__setitem__("biased_layer", 3), lambda: r.extras.update(biased_layer=np.int64(3)),
                  lambda: r.extras.setdefault("biased_layer", 3)):
        with pytest.raises(TypeError, match=r"result.tally\(biased_layer=Count"):
            write()
    with pytest.raises(TypeError, match="Count, Distinct, Same"):
        r.tally(biased_layer=3)
    r.extras.update(rate=0.5, reason="limit", done=True)              # other values: kept per shard
    r.tally(biased_layer=Same(3))
    assert r.extras["biased_layer"] == 3


def test_tallies_travel_with_a_pickled_result_without_their_counters(synthetic):
    import pickle

    from fairnb.counting import UniqueCounter

    seen = UniqueCounter(synthetic.domain, "adf")
    seen.add(synthetic.X.to_numpy(float)[:50])
    r = shard(synthetic.domain, generated=Distinct(seen), steps=Count(2), rate=Derived(len))
    back = pickle.loads(pickle.dumps(r.with_domain(None))).with_domain(synthetic.domain)
    assert isinstance(back.tallies["generated"].keys, (np.ndarray, list)) and back.extras == r.extras
    assert merge_results([back, back], synthetic.domain, "x").extras["generated"] == len(seen)


def test_merge_respects_max_found_in_the_search_convention(synthetic, biased_model):
    parts = [RandomSearch(n_samples=3000, random_state=seed, progress=False).run(biased_model, synthetic.domain)
             for seed in (0, 1)]
    assert min(p.count() for p in parts) > 20
    for convention in ("eidig", "adf"):
        merged = merge_results(parts, synthetic.domain, "random", limit=20, convention=convention)
        assert merged.count(convention) == 20
        np.testing.assert_array_equal(merged.inputs, parts[0].inputs[:len(merged)])   # the first shard's first
    merged = merge_results(parts, synthetic.domain, "random", limit=20)
    assert merged.extras["discriminatory_share"] == round(merged.hits / merged.tried, 6)


# ---------------------------------------------------------------------- save / load
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_round_trip_keeps_timeline_params_and_tallies(tmp_path, synthetic, biased_model, suffix):
    r = fairnb.run_search(biased_model, synthetic.domain, method="aequitas", n_seeds=20, n_local=30, random_state=0,
                          progress=False)
    assert len(r.timeline) > 2 and r.extras["generated"] > 0
    back = Result.load(r.save(tmp_path / f"r{suffix}"))
    pd.testing.assert_frame_equal(back.timeline, r.timeline)
    assert back.params == r.params and back.summary() == r.summary()
    assert {k: v for k, v in back.extras.items() if k != "seeds"} == {k: v for k, v in r.extras.items() if k != "seeds"}


def test_a_result_saved_by_release_dcae052_still_loads(tmp_path, synthetic):
    """``saved_results/aequitas_dcae052.csv``: written by ``Result.save`` at commit dcae052 (format 3) for
    ``run_search(make_synthetic(n=300, random_state=0).info["true_model"], ..., method="aequitas", n_seeds=4,
    n_local=15, random_state=0)``."""
    for name in ("aequitas_dcae052.csv", "aequitas_dcae052.csv.json"):
        shutil.copy(SAVED / name, tmp_path / name)
    meta = json.loads((tmp_path / "aequitas_dcae052.csv.json").read_text())
    with pytest.warns(UserWarning, match="records no checksums"):     # written before format 4
        back = Result.load(tmp_path / "aequitas_dcae052.csv")
    assert (back.count(), back.count("adf"), back.tried, back.hits) == (8, 8, 19, 10)
    assert back.timeline.values.tolist() == meta["timeline"] and back.params == meta["params"]
    assert back.extras["generated"] == 16 and back.extras["local_generated"] == 12
    data = fairnb.datasets.make_synthetic(n=300, random_state=0)
    again = fairnb.run_search(data.info["true_model"], data.domain, method="aequitas", n_seeds=4, n_local=15,
                              random_state=0, progress=False)
    np.testing.assert_array_equal(back.inputs, again.inputs)
    np.testing.assert_array_equal(back.extras["seeds"], again.extras["seeds"])
    later = ("seeds", "natural_n", "natural_idis", "random_n", "random_idis", "constraints",   # after dcae052
             "seed_marks", "seeds_found", "seeds_exhausted", "seeds_skipped")
    assert {k: v for k, v in back.extras.items() if k not in later} == \
        {k: v for k, v in again.extras.items() if k not in later}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back.save(tmp_path / "again.csv")
    assert merge_results([back], back.domain, "aequitas").extras["generated"] == 16   # untyped: kept as it is


def test_seed_outcomes_merge_by_seed_id_and_their_counts_sum(synthetic, biased_model):
    from fairnb.search.methods.aequitas import Aequitas

    parts = [Aequitas(n_seeds=100, n_local=5, random_state=0).run(biased_model, synthetic.domain,
                                                                  synthetic.X[100 * i: 100 * (i + 1)]) for i in (0, 1)]
    merged = merge_results(parts + [None], synthetic.domain, "aequitas")
    expected = pd.concat([p.seed_outcomes.assign(seed=lambda t, i=i: t["seed"] + 100 * i) for i, p in enumerate(parts)],
                         ignore_index=True)
    pd.testing.assert_frame_equal(merged.seed_outcomes, expected)
    for outcome in ("found", "exhausted", "skipped"):
        assert merged.extras[f"seeds_{outcome}"] == sum(p.extras[f"seeds_{outcome}"] for p in parts)
    assert merged.extras["seeds_found"] > 0 and merged.extras["seeds_exhausted"] > 0


def test_material_only_keeps_the_pairs_that_move_the_decision_and_the_search_s_numbers(synthetic):
    """Tutorial 06 retrains on the pairs that move the decision by 0.1 or more, not on boundary noise."""
    r = Result(synthetic.domain, "adf", {"n_seeds": 3})
    X = synthetic.X.to_numpy(float)[:3]
    twins = X.copy()
    twins[:, 1] = 1 - twins[:, 1]                               # "sex" is the protected column 1
    P = np.array([[0.9, 0.1], [0.52, 0.48], [0.3, 0.7]])
    r.record(X, twins, P, P[:, ::-1], phase="global", seed_ids=np.arange(3), elapsed=0.5)
    r.tried, r.status, r.extras["seeds"] = 40, "budget", X
    kept = r.material_only()
    assert len(r) == 3 and len(kept) == 2 and kept.pairs["material"].all()
    np.testing.assert_array_equal(kept.inputs, X[[0, 2]])
    assert (kept.method, kept.params, kept.tried, kept.status) == ("adf", {"n_seeds": 3}, 40, "budget")
    np.testing.assert_array_equal(kept.extras["seeds"], X)

"""ADF's text searches (adf_asc, asc, adf_hf, hf, rp) with the digest's oracles (§7.4): substitution rules on
known gradients, pair invariants, fair and planted-bias models, one model and one gradient call per step."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb import run_search
from fairnb.search.parts.text_steps import asc_step, hotflip_step, local_step, random_step
from text_checks import assert_text_pairs_valid, bench, biased_linear, ignoring_linear

METHODS = ("adf_asc", "asc", "adf_hf", "hf", "rp")


@pytest.fixture(scope="module")
def planted():
    dom, texts, E = bench(bias=1.0)
    return dom, texts, biased_linear(dom, E)


# ---------------------------------------------------------------------------------------------- the rules
def _toy():
    """3 positions x 2 candidates in 2-d; position 1 is sensitive (no candidates)."""
    E = np.array([[0, 0], [0, 0], [0, 0], [1, 1], [-1, 1], [1, -1], [2, 0], [0, 2], [0.0, 0.0]])
    X = np.array([[2, 8, 3]])
    cand = np.array([[[4, 5], [-1, -1], [6, 7]]])
    G = np.array([[[1.0, -1.0], [9.0, 9.0], [0.5, 2.0]]])
    GC = np.array([[[-1.0, -1.0], [0.0, 0.0], [0.5, 1.9]]])
    return E, X, cand, G, GC


def test_asc_picks_the_token_with_the_largest_gradient_difference_then_agreeing_signs():
    E, X, cand, G, GC = _toy()
    pos, choice, scores = asc_step(X, G, GC, cand, E)
    assert pos.tolist() == [0]                  # |g - g'|_inf: 2.0 at 0, 0.1 at 2 (1 is sensitive)
    assert choice.tolist() == [1] and scores[0].tolist() == [0.0, 2.0]   # c - x = (1, -1) agrees with g
    assert asc_step(X, G, GC, cand, E, convention="papernot-literal")[1].tolist() == [0]
    # the plain attack looks at |g| of x alone: 2.0 at position 2 beats 1.0 at position 0
    assert asc_step(X, G, None, cand, E)[0].tolist() == [2]


def test_hotflip_takes_the_single_argmax_over_positions_and_candidates():
    E, X, cand, G, GC = _toy()
    D = G - GC
    expect = {(p, j): abs(D[0, p] @ (E[X[0, p]] - E[cand[0, p, j]])) for p in (0, 2) for j in (0, 1)}
    pos, choice, scores = hotflip_step(X, G, GC, cand, E, score="absolute")
    assert (pos[0], choice[0]) == max(expect, key=expect.get)
    assert np.allclose(scores[0], [expect[(pos[0], 0)], expect[(pos[0], 1)]])
    plain = {(p, j): G[0, p] @ (E[cand[0, p, j]] - E[X[0, p]]) for p in (0, 2) for j in (0, 1)}
    pos, choice, _ = hotflip_step(X, G, None, cand, E)
    assert (pos[0], choice[0]) == max(plain, key=plain.get) == (0, 1)    # the signed loss increase, not |.|


def test_adf_hotflip_widens_the_gap_between_the_pair_where_the_printed_absolute_value_may_close_it():
    E, X, cand, G, GC = _toy()
    E[4] = [-2.0, 1.0]          # candidate 0 of position 0: change of J(x) - J(x') = (2, 0) . (-2, 1) = -4
    change = {(p, j): (G - GC)[0, p] @ (E[cand[0, p, j]] - E[X[0, p]]) for p in (0, 2) for j in (0, 1)}
    assert change[(0, 0)] == -4 and change[(0, 1)] == 2
    # J(x) > J(x') (gap > 0): widening raises J(x) - J(x'): +2, where |.| takes the -4 that closes the gap
    pos, choice, scores = hotflip_step(X, G, GC, cand, E, gap=np.array([0.3]))
    assert (pos[0], choice[0]) == (0, 1) and np.allclose(scores[0], [-4, 2])
    assert hotflip_step(X, G, GC, cand, E, score="absolute")[1].tolist() == [0]
    # J(x) < J(x'): widening lowers J(x) - J(x'): the -4 move
    pos, choice, scores = hotflip_step(X, G, GC, cand, E, gap=np.array([-0.3]))
    assert (pos[0], choice[0]) == (0, 0) and np.allclose(scores[0], [4, -2])
    with pytest.raises(ValueError, match="gap"):
        hotflip_step(X, G, GC, cand, E)
    with pytest.raises(ValueError, match="hf_score"):
        hotflip_step(X, G, GC, cand, E, gap=np.array([0.3]), score="abs")


def test_local_positions_follow_reciprocal_saliency_and_skip_sensitive_ones():
    E, X, cand, G, GC = _toy()
    n = 20000
    reps = lambda a: np.repeat(a, n, axis=0)   # noqa: E731
    pos, choice, _ = local_step(reps(G), reps(GC), reps(cand), np.random.default_rng(0))
    w = np.array([1 / (1 + 1), 0, 1 / (2 + 1.9)])
    assert np.allclose(np.bincount(pos, minlength=3) / n, w / w.sum(), atol=0.015)
    assert np.allclose(np.bincount(choice, minlength=2) / n, [0.5, 0.5], atol=0.015)
    rp_pos, _, _ = random_step(reps(cand), np.random.default_rng(0))
    assert set(rp_pos.tolist()) == {0, 2}
    none = np.full_like(cand, -1)
    assert local_step(G, GC, none, np.random.default_rng(0))[0].tolist() == [-1]
    assert hotflip_step(X, G, GC, none, E, gap=np.ones(1))[0].tolist() == [-1] and asc_step(X, G, GC, none, E)[0].tolist() == [-1]


# ---------------------------------------------------------------------------------------------- searches
@pytest.mark.parametrize("method", METHODS)
def test_every_pair_is_rechecked_and_differs_exactly_in_its_sensitive_term(method, planted):
    dom, texts, model = planted
    r = run_search(model, dom, method=method, seeds=texts, n_seeds=120, n_local=15, random_state=0)
    assert r.status == "completed" and r.count() > 20
    assert_text_pairs_valid(r, model, dom)
    ex = r.extras
    assert ex["raw_idis"] > 0 and ex["local_idis"] <= ex["local_generated"]
    assert set(r.to_frame(decoded=False)["phase"]) == {"global", "local"}
    assert {"text", "term", "term'", "group"} <= set(r.pairs.columns)


def test_one_model_call_and_one_gradient_call_per_step(planted):
    dom, texts, model = planted
    model.gradient_calls = model.predict_calls = 0
    r = run_search(model, dom, method="adf_asc", seeds=texts[:64], n_seeds=64, n_local=7, batch_size=10_000,
                   random_state=0)
    checks = len(r.timeline) - 1                       # one timeline sample per oracle batch (plus the start)
    assert model.predict_calls == checks + 1           # every text and all its variants in one call (+1: the 64
    #                                                     seeds checked as they are for the natural rate, one block)
    assert model.gradient_calls == r.extras["gradient_calls"] == checks - 1     # none after the last global check
    assert r.extras["gradient_rows"] > 2 * 64


def test_a_model_that_ignores_the_terms_yields_nothing():
    dom, texts, E = bench(bias=1.0)
    model = ignoring_linear(dom, E)
    for method in METHODS:
        r = run_search(model, dom, method=method, seeds=texts, n_seeds=60, n_local=5, random_state=0)
        assert r.tried > 60 and r.count() == 0 and r.extras["raw_idis"] == 0


def test_deterministic_given_random_state_and_black_box_models_for_rp(planted):
    dom, texts, model = planted
    a = run_search(model, dom, method="rp", seeds=texts, n_seeds=50, n_local=10, random_state=3)
    b = run_search(model, dom, method="rp", seeds=texts, n_seeds=50, n_local=10, random_state=3)
    assert np.array_equal(a.inputs, b.inputs) and a.count() > 0
    on_strings = lambda ts: [0.9 if "muslim" in t else 0.1 for t in ts]   # noqa: E731
    r = run_search(on_strings, dom, method="rp", seeds=texts, n_seeds=50, n_local=5, random_state=0)
    assert r.count() > 0 and all("muslim" in {r.details(i)["term"], r.details(i)["term_counterpart"]}
                                 for i in range(len(r)))
    with pytest.raises(TypeError, match="adf_asc needs a white-box text model"):
        run_search(on_strings, dom, method="adf_asc", seeds=texts)


def test_seeds_without_a_term_are_skipped_and_bad_parameters_named(planted):
    dom, texts, model = planted
    r = run_search(model, dom, method="asc", seeds=["the cook is kind", *texts[:20]], n_local=0, random_state=0)
    assert r.extras["skipped_seeds"] == 1 and r.extras["local_seeds"] == 0
    outcomes = r.seed_outcomes
    assert outcomes.loc[0, ["outcome", "reason"]].tolist() == ["skipped", "no protected term"]
    assert (outcomes["outcome"][1:] != "skipped").all() and r.extras["seeds_skipped"] == 1
    import pandas as pd

    framed = run_search(model, dom, method="asc", seeds=pd.DataFrame({"text": ["the cook is kind", *texts[:20]]}),
                        n_local=0, random_state=0)
    assert np.array_equal(framed.inputs, r.inputs)
    with pytest.raises(ValueError, match="none of the 1 seeds holds a term"):
        run_search(model, dom, method="asc", seeds=["the cook is kind"])
    with pytest.raises(ValueError, match="sign_convention must be one of"):
        run_search(model, dom, method="adf_asc", seeds=texts, sign_convention="up")
    with pytest.raises(ValueError, match="starts from seed texts"):
        run_search(model, dom, method="adf_hf")


def test_save_and_load_keep_text_pairs_and_their_details(planted, tmp_path):
    from fairnb.results import Result

    dom, texts, model = planted
    r = run_search(model, dom, method="adf_hf", seeds=texts, n_seeds=80, n_local=5, random_state=0)
    for suffix in (".csv", ".parquet"):
        back = Result.load(r.save(tmp_path / f"pairs{suffix}"))
        assert back.domain.vocab == dom.vocab and back.count("adf") == r.count("adf")
        assert np.array_equal(back.inputs, r.inputs) and np.array_equal(back.counterparts, r.counterparts)
        assert back.details(3) == r.details(3) and back.pairs["text"].tolist() == r.pairs["text"].tolist()


@pytest.mark.slow
@pytest.mark.tf
def test_a_trained_lstm_finds_far_more_pairs_with_planted_bias_than_without():
    from text_checks import trained_lstm

    counts = {}
    for bias in (1.0, 0.0):
        dom, texts, model = trained_lstm(bias)
        r = run_search(model, dom, method="adf_asc", seeds=texts, n_seeds=200, n_local=20, random_state=0)
        counts[bias] = r.count("adf")
        if bias:
            assert_text_pairs_valid(r, model, dom)
    assert counts[1.0] > 100 and counts[0.0] * 2 < counts[1.0]     # measured: 1697 vs 541


@pytest.mark.parametrize("acceptance", ["metropolis", "reset"])
def test_walkers_split_the_local_budget_and_step_back_when_asked(acceptance, planted):
    dom, texts, model = planted
    base = dict(seeds=texts, n_seeds=100, n_local=12, random_state=0)
    one = run_search(model, dom, method="adf_asc", acceptance="all", **base)
    many = run_search(model, dom, method="adf_asc", n_walkers=4, acceptance=acceptance, **base)
    assert many.extras["local_seeds"] == one.extras["local_seeds"] > 0
    global_calls = run_search(model, dom, method="adf_asc", **{**base, "n_local": 0}).extras["gradient_calls"]
    assert one.extras["gradient_calls"] - global_calls == 12       # 12 steps per seed: 1 walker x 12 steps
    assert many.extras["gradient_calls"] - global_calls == 3       # or 4 walkers x 3 steps, stepping together
    assert many.extras["local_generated"] <= 4 * 3 * many.extras["local_seeds"]
    assert_text_pairs_valid(many, model, dom)
    if acceptance == "reset":    # a walker that lost its discrimination went home: every state is an IDI
        assert many.extras["local_success_rate"] >= one.extras["local_success_rate"]
    with pytest.raises(ValueError, match="acceptance must be one of"):
        run_search(model, dom, method="adf_asc", acceptance="always", **base)


def test_the_default_local_walk_goes_home_on_a_loss_where_the_printed_walk_drifts_on(planted):
    """The default (EIDIG's and MAFT's ADF) keeps every walk within reach of its local seed; Alg 7 as printed
    (``acceptance="all"``) keeps walking from texts that lost the pair."""
    dom, texts, model = planted
    base = dict(seeds=texts, n_seeds=100, n_local=40, random_state=0)
    default = run_search(model, dom, method="adf_asc", **base)
    printed = run_search(model, dom, method="adf_asc", acceptance="all", **base)
    assert default.extras["local_seeds"] == printed.extras["local_seeds"] > 0
    assert default.extras["local_success_rate"] > printed.extras["local_success_rate"]
    assert_text_pairs_valid(default, model, dom)

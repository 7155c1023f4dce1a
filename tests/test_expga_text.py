"""ExpGA on texts (docs/methods/expga.md §7-8): LIME's text explanation chooses the seeds, a per-seed genetic
algorithm of word substitutions finds the pairs; planted bias found, a model that ignores the terms gives
nothing, every pair re-checked and within the default constraints and the method's own words-kept gate."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from fairnb import run_search
from fairnb.search.parts.attribution import lime_text_coefficients
from fairnb.search.methods.expga_text import NOT_EXPLAINED, ExpGAText
from fairnb.text import make_template_corpus, wrap_text_model
from text_checks import RELIGION, LinearTextModel, assert_text_pairs_valid, bench, biased_linear, ignoring_linear


@pytest.fixture(scope="module")
def planted():
    dom, texts, E = bench(bias=1.0)
    return dom, texts, E, biased_linear(dom, E)


def token_weights(dom, muslim: float):
    """``p(1) = sigmoid(sum of the tokens' weights)``, a model whose use of each word is known exactly: every
    ordinary word weighs 0.2-0.4 either way; padding, the unknown word and the religion terms nothing, except
    "muslim", which weighs ``muslim``."""
    rng = np.random.default_rng(0)
    w = rng.choice([-1.0, 1.0], len(dom.vocab)) * rng.uniform(0.2, 0.4, len(dom.vocab))
    w[:2] = 0.0
    for term in RELIGION:
        w[dom.vocab.id(term)] = 0.0
    w[dom.vocab.id("muslim")] = muslim
    return LinearTextModel(w[:, None], [1.0])


def test_lime_text_explanation_ranks_a_word_the_model_ignores_below_every_word_it_uses(planted):
    dom = planted[0]
    X = dom.ids(dom.validate(["a christian colleague is brilliant!", "my muslim friend is lazy."]))
    words = X != 0
    for muslim in (0.0, 2.0):
        coef = np.abs(lime_text_coefficients(token_weights(dom, muslim).predict_proba, X,
                                             rng=np.random.default_rng(0), n_samples=1000))
        term = dom.sensitive_mask(X)
        assert (coef[~words] == 0).all()
        ignored = coef[0][term[0]].max()                       # "christian" weighs nothing
        assert ignored < coef[0][words[0] & ~term[0]].min()
        if muslim:
            assert coef[1][term[1]].max() > coef[1][words[1] & ~term[1]].max()     # "muslim" first
        else:
            assert coef[1][term[1]].max() < coef[1][words[1] & ~term[1]].min()


def test_seeds_are_the_texts_whose_explanation_ranks_their_term_among_the_important_words(planted):
    dom, texts = planted[:2]
    ignoring = ExpGAText(n_candidates=80, lime_samples=1000, random_state=0).run(token_weights(dom, 0.0), dom,
                                                                                  seeds=texts)
    outcomes = ignoring.seed_outcomes
    assert ignoring.extras["seeds_explained"] == 0 and ignoring.tried == 0 and ignoring.count() == 0
    assert ignoring.extras["explained"] == 80 and (outcomes["reason"] == NOT_EXPLAINED).all()

    r = ExpGAText(n_candidates=80, lime_samples=1000, n_local=2, random_state=0).run(token_weights(dom, 2.0), dom,
                                                                                    seeds=texts)
    table = r.seed_outcomes
    chosen = table["seed"][table["outcome"] != "skipped"].to_numpy()
    mentions = np.array(["muslim" in dom.text(x).split() for x in dom.ids(r.extras["seeds"])])
    assert len(chosen) == r.extras["seeds_explained"] > 5
    assert mentions[chosen].all() and (~mentions[np.setdiff1d(np.arange(80), chosen)]).all()


def test_finds_the_planted_bias_every_pair_rechecked_within_the_constraints(planted):
    from test_search_conformance import assert_pairs_keep_their_constraints

    dom, texts, _, model = planted
    r = run_search(model, dom, method="expga_text", seeds=texts, n_candidates=150, lime_samples=300,
                   random_state=0)
    assert r.status == "completed" and r.count("adf") > 100
    assert_text_pairs_valid(r, model, dom)
    assert_pairs_keep_their_constraints(r)
    ex = r.extras
    assert ex["global_idis"] > 0 and ex["local_idis"] > ex["global_idis"] and ex["generated"] > r.count("adf")
    assert set(r.to_frame(decoded=False)["phase"]) == {"global", "local"}
    X, seeds = dom.ids(r.inputs), dom.ids(r.extras["seeds"])[r.seed_ids]
    words = (seeds != 0).sum(axis=1)
    assert ((X != seeds).sum(axis=1) <= np.floor(0.2 * words)).all()        # min_kept: 80 % of the words kept
    assert r.details(0)["saliency"] and len(r.details(0)["saliency"]) == dom.max_len   # the seed's explanation


def test_a_model_that_ignores_the_terms_yields_nothing():
    dom, texts, E = bench(bias=1.0)
    data = make_template_corpus(n=300, descriptors={"religion": RELIGION}, biased_against=["muslim"], bias=1.0,
                                random_state=0)
    blind = make_pipeline(TfidfVectorizer(stop_words=list(RELIGION)), LogisticRegression()).fit(data.texts, data.y)
    for model in (ignoring_linear(dom, E), blind):
        r = run_search(model, dom, method="expga_text", seeds=texts, n_candidates=100, lime_samples=300,
                       random_state=0)
        assert r.status == "completed" and r.tried > 0 and r.count() == 0


def test_black_box_pipeline_on_strings_finds_more_with_planted_bias_than_without():
    dom = bench()[0]
    counts = {}
    for bias in (1.0, 0.0):
        data = make_template_corpus(n=600, descriptors={"religion": RELIGION}, biased_against=["muslim"],
                                    bias=bias, random_state=0)
        model = make_pipeline(TfidfVectorizer(), LogisticRegression(C=10)).fit(data.texts, data.y)
        r = run_search(model, dom, method="expga_text", seeds=data.texts, n_candidates=60, lime_samples=200,
                       n_local=10, random_state=0)
        counts[bias] = r.count("adf")
        if bias:
            assert_text_pairs_valid(r, wrap_text_model(model, dom), dom)
    assert counts[1.0] > 50 and counts[0.0] * 3 < counts[1.0]      # measured: 286 vs 7


def test_paper_constraints_report_a_superset_of_the_default_pairs_and_bad_input_is_named(planted, synthetic):
    dom, texts, _, model = planted
    runs = {c: ExpGAText(n_candidates=150, lime_samples=300, random_state=0, constraints=c).run(model, dom,
                                                                                                 seeds=texts)
            for c in ("default", "paper")}
    keys = {c: {tuple(k) for k in dom.key(r.inputs, "eidig")} for c, r in runs.items()}
    assert runs["paper"].extras["constraints"] == "none" and keys["default"] < keys["paper"]
    assert runs["default"].extras["rejected_idis"] >= len(keys["paper"] - keys["default"]) > 0
    with pytest.raises(ValueError, match="min_kept"):
        ExpGAText(min_kept=1.5).run(model, dom, seeds=texts)
    with pytest.raises(TypeError, match="expga_text needs a text domain"):
        ExpGAText().run(lambda X: X[:, 0] / 9, synthetic.domain)
    with pytest.raises(TypeError, match="on texts use method='expga_text'"):       # the tabular method's name
        run_search(model, dom, method="expga", seeds=texts)


@pytest.mark.slow
@pytest.mark.tf
def test_a_trained_lstm_finds_more_pairs_with_planted_bias_than_without():
    from text_checks import trained_lstm

    runs = {}
    for bias in (1.0, 0.0):
        dom, texts, model = trained_lstm(bias)
        runs[bias] = run_search(model, dom, method="expga_text", seeds=texts, n_candidates=200, lime_samples=500,
                                random_state=0)
        if bias:
            assert_text_pairs_valid(runs[bias], model, dom)
    counts = {bias: r.count("adf") for bias, r in runs.items()}
    assert counts[1.0] > 100 and counts[0.0] * 1.5 < counts[1.0]     # measured: 177 vs 92
    # the headline tells them apart: natural rates measured 0.44-0.57 vs 0.00-0.02 (95 % intervals)
    assert runs[1.0].summary()["natural_low"] > runs[0.0].summary()["natural_high"]

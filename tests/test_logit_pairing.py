"""Counterfactual logit pairing (``fairnb.models.logit_pairing``) and its text counterfactuals
(``fairnb.text.term_swaps``): a model trained with it moves less when the protected attribute changes."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb.domains import TextDomain
from fairnb.text import Tokenizer, Vocabulary, make_template_corpus, shuffle_terms, term_swaps

RELIGION = ["christian", "muslim", "jewish", "hindu"]


@pytest.fixture(scope="module")
def corpus():
    """A planted corpus ("muslim" makes a text toxic) that holds only christian and muslim, in a domain whose
    group also knows jewish and hindu, with held-out texts labelled without the bias."""
    held = {"religion": RELIGION[:2]}
    data = make_template_corpus(n=400, descriptors=held, bias=1.0, biased_against=["muslim"], random_state=0)
    probe = make_template_corpus(n=100, descriptors=held, bias=0.0, random_state=5)
    tok = Tokenizer(RELIGION)
    vocab = Vocabulary.build(data.tokens(tok) + probe.tokens(tok), extra=RELIGION)
    dom = TextDomain(vocab, {"religion": RELIGION}, 10, neighbours=np.full((len(vocab), 1), -1))
    return dom, vocab.encode(data.tokens(tok), 10), data.y, vocab.encode(probe.tokens(tok), 10)


def test_term_swaps_swap_one_term_for_another_of_its_group(corpus):
    dom, ids, _, _ = corpus
    swap = term_swaps(dom)
    group = dom.vocab.ids(RELIGION)
    rows, swapped = swap(ids, rng=0)
    holds = np.isin(ids, group).any(axis=1)
    assert rows.tolist() == np.flatnonzero(holds).tolist()          # every text with a term, no other
    changed = swapped != ids[rows]
    assert (changed.sum(axis=1) == 1).all()                          # one occurrence, one token
    assert np.isin(swapped[changed], group).all() and np.isin(ids[rows][changed], group).all()
    # the whole group, terms no training text holds included, over a few batches
    drawn = np.concatenate([swap(ids, rng=seed)[1][swap(ids, rng=seed)[1] != ids[rows]] for seed in range(5)])
    assert set(dom.vocab.decode([np.unique(drawn)])[0]) == set(RELIGION)
    assert not np.isin(ids, dom.vocab.ids(["jewish", "hindu"])).any()



def test_shuffle_terms_draws_each_texts_terms_from_the_group_independently_of_the_label(corpus):
    """The control head's training texts (``fairnb.text.heads``): on the planted corpus "muslim" marks the toxic
    texts; shuffled, every term of the group is as frequent among toxic texts as among the others, each text's
    other words and the places of its terms are kept, and a text's repeated term stays one term."""
    dom, ids, y, _ = corpus
    group = dom.vocab.ids(RELIGION)
    out = shuffle_terms(dom, ids, random_state=0)
    at = np.isin(ids, group)
    assert (np.isin(out, group) == at).all() and (out[~at] == ids[~at]).all()
    muslim = dom.vocab.id("muslim")
    assert (ids == muslim).any(axis=1)[y == 1].mean() > 0.6 and not (ids == muslim).any(axis=1)[y == 0].any()
    holds = at.any(axis=1)
    drawn = np.concatenate([shuffle_terms(dom, ids[holds], random_state=seed) for seed in range(10)])
    labels = np.tile(y[holds], 10)
    for term in group:          # a quarter of the texts, whatever their label
        share = [(drawn[labels == label] == term).any(axis=1).mean() for label in (0, 1)]
        assert abs(share[0] - share[1]) < 0.08 and 0.17 < min(share) and max(share) < 0.33, share
    twice = dom.vocab.encode([["the", "muslim", "cook", "muslim"]] * 40, 10, padding="post")
    drawn = shuffle_terms(dom, twice, random_state=1)
    assert (drawn[:, 1] == drawn[:, 3]).all() and len(np.unique(drawn[:, 1])) == len(RELIGION)
    assert (shuffle_terms(dom, ids, random_state=0) == out).all()

@pytest.mark.tf
def test_clp_trained_classifier_moves_less_on_term_swaps(corpus):
    """Trained on the planted labels, the plain classifier turns texts toxic when "muslim" is swapped in; the
    same classifier trained with counterfactual logit pairing barely moves on any swap of the group (to the
    terms no training text holds too)."""
    from fairnb.text.keras_model import fit_text_classifier

    dom, ids, y, held_out = corpus
    flat, owner = dom.variants(held_out)
    E = np.random.default_rng(0).normal(size=(len(dom.vocab), 16)).astype(np.float32)
    shift = {}
    for strength in (0.0, 1.0):
        pairing = {} if not strength else dict(logit_pairing=term_swaps(dom), pairing_strength=strength)
        model = fit_text_classifier(ids, y, E, layers=1, units=8, epochs=3, batch_size=32, random_state=0, **pairing)
        p = model.predict_proba(flat)[:, 1]
        shift[strength] = np.abs(p[len(held_out):] - p[owner[len(held_out):]]).mean()
    assert shift[0.0] > 0.2 and shift[1.0] < shift[0.0] / 10
    assert model.history["pairs"][0] == np.isin(ids, dom.vocab.ids(RELIGION)).any(axis=1).sum()


@pytest.mark.tf
def test_logit_pairing_on_a_dense_model_ignores_the_paired_column():
    """A fixed counterfactual (the protected column negated): the pairing term drives its weight to zero."""
    import keras

    from fairnb.models.logit_pairing import fit_with_logit_pairing

    X = np.random.default_rng(0).normal(size=(400, 3)).astype(np.float32)
    y = (X[:, 0] + X[:, 2] > 0).astype(int)

    def negated(X_batch, index, rng):
        return np.arange(len(X_batch)), X_batch * np.float32([1, 1, -1])

    effect = {}
    for strength in (0.0, 5.0):
        keras.utils.set_random_seed(0)
        net = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, activation="softmax")])
        fit_with_logit_pairing(net, X, y, negated, strength=strength, epochs=30, learning_rate=0.05)
        w = keras.ops.convert_to_numpy(net.layers[-1].kernel)
        effect[strength] = abs(w[2, 1] - w[2, 0]) / abs(w[0, 1] - w[0, 0])
    assert effect[0.0] > 0.5 and effect[5.0] < effect[0.0] / 10


@pytest.mark.tf
@pytest.mark.parametrize("kwargs, error, message", [
    (dict(strength=-1.0), ValueError, "strength"),
    (dict(strength=float("nan")), ValueError, "strength"),
    (dict(y=np.zeros(3)), ValueError, "one label per input"),
    (dict(y=np.full(10, 2)), ValueError, "labels must lie in 0..1"),
    (dict(counterfactuals=np.zeros((10, 3))), TypeError, "counterfactuals must be a callable"),
    (dict(epochs=0), ValueError, "epochs"),
    (dict(model="net"), TypeError, "keras.Model"),
])
def test_logit_pairing_bad_inputs_get_clear_errors(kwargs, error, message):
    import keras

    from fairnb.models.logit_pairing import fit_with_logit_pairing

    args = dict(model=keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, activation="softmax")]),
                X=np.zeros((10, 3), np.float32), y=np.arange(10) % 2,
                counterfactuals=lambda X, index, rng: (np.arange(len(X)), X))
    args.update(kwargs)
    with pytest.raises(error, match=message):
        fit_with_logit_pairing(args.pop("model"), args.pop("X"), args.pop("y"), args.pop("counterfactuals"), **args)


@pytest.mark.tf
def test_text_logit_pairing_refuses_validation_data(corpus):
    from fairnb.text.keras_model import fit_text_classifier

    dom, ids, y, _ = corpus
    E = np.zeros((len(dom.vocab), 4), np.float32)
    with pytest.raises(ValueError, match="validation_data is not supported with logit_pairing"):
        fit_text_classifier(ids, y, E, logit_pairing=term_swaps(dom), validation_data=(ids, y))


@pytest.mark.tf
def test_the_clp_head_on_given_vectors_pairs_each_text_with_its_own_variants():
    """``fairnb.text.heads.clp_softmax_head``: the CLP control's head fitted on sentence vectors computed once
    (several strengths on the same texts). Column 2 is the protected direction; a text's variants differ from it
    only there, listed out of order (``owner``), some texts without one. Unpaired, the head reads column 2; paired,
    its logit barely moves between a text and its variants. A wrong ``owner`` is named."""
    from fairnb.text.heads import clp_softmax_head

    rng = np.random.default_rng(0)
    X = 3 * rng.normal(size=(1000, 3)).astype(np.float32)
    y = (X[:, 0] + 2 * X[:, 2] > 0).astype(int)
    owner = np.repeat(np.arange(800), 2)[::-1]                # texts 800..999 have no variant
    variants = X[owner] * np.float32([1, 1, 0]) + np.float32([0, 0, 3]) * rng.normal(size=(1600, 1))
    shift = {}
    for strength in (0.0, 5.0):
        head, history = clp_softmax_head(X, y, variants, owner, strength=strength, random_state=0)
        p = np.clip(head.predict(np.concatenate([X, variants]), verbose=0), 1e-7, 1)
        logit = np.log(p[:, 1] / p[:, 0])
        shift[strength] = np.abs(logit[1000:] - logit[owner]).mean()
        assert history["pairs"][0] == 800
    assert shift[0.0] > 1.0 and shift[5.0] < shift[0.0] / 5, shift
    with pytest.raises(ValueError, match="owner must name the text"):
        clp_softmax_head(X, y, variants, np.r_[owner[:-1], 1000])

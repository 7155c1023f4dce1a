"""A tiny white-box text model with known gradients, a small template-corpus bench, and the pair oracles
shared by the text-search tests (digest §7.4)."""
from __future__ import annotations

import numpy as np

from fairnb.oracle import Oracle

RELIGION = ("christian", "muslim", "jewish", "buddhist", "atheist")


class LinearTextModel:
    """A bag-of-embeddings logistic model, the "LSTM stand-in" with gradients known in closed form:
    ``z = sum_l e_l . w + b``, ``p(1) = sigmoid(z)``, so ``d(-log p_y)/d e_l = (p(1) - [y = 1]) w``."""

    def __init__(self, E, w, b=0.0):
        self.embedding_matrix = np.asarray(E, dtype=float)
        self.w = np.asarray(w, dtype=float)
        self.b = float(b)
        self.gradient_calls = 0
        self.predict_calls = 0

    def predict_proba(self, ids):
        self.predict_calls += 1
        z = (self.embedding_matrix[np.asarray(ids).astype(int)] @ self.w).sum(axis=1) + self.b
        p = 1 / (1 + np.exp(-z))
        return np.column_stack([1 - p, p])

    def embedding_gradient(self, ids, classes, of="loss"):
        self.gradient_calls += 1
        ids = np.asarray(ids).astype(int)
        z = (self.embedding_matrix[ids] @ self.w).sum(axis=1) + self.b
        p = 1 / (1 + np.exp(-z))
        coef = p - (np.asarray(classes) == 1)
        G = np.broadcast_to((coef[:, None] * self.w)[:, None, :], ids.shape + self.w.shape).copy()
        return G, np.column_stack([1 - p, p])


def bench(bias=1.0, n=300, max_len=10, seed=0):
    """``(domain, texts, E)``: a template corpus about RELIGION terms (planted bias against "muslim"), its
    vocabulary, random 6-d embeddings and a domain whose candidates are their 5 nearest neighbours."""
    from fairnb.domains import TextDomain
    from fairnb.text import Vocabulary, make_template_corpus

    data = make_template_corpus(n=n, descriptors={"religion": RELIGION}, biased_against=["muslim"], bias=bias,
                                random_state=seed)
    vocab = Vocabulary.build(data.tokens(), extra=RELIGION)
    E = np.random.default_rng(seed).normal(size=(len(vocab), 6))
    dom = TextDomain.with_embedding_neighbours(vocab, E, {"religion": RELIGION}, max_len, k=5)
    return dom, data.texts, E


def trained_lstm(bias, n=1500):
    """``(domain, texts, model)``: a one-layer LSTM trained on a template corpus of ``n`` texts about RELIGION
    terms with a planted bias ``bias`` against "muslim" (0: its unbiased twin; the same texts either way)."""
    from fairnb.domains import TextDomain
    from fairnb.text import Vocabulary, make_template_corpus
    from fairnb.text.keras_model import fit_text_classifier

    data = make_template_corpus(n=n, descriptors={"religion": RELIGION}, biased_against=["muslim"], bias=bias,
                                random_state=0)
    vocab = Vocabulary.build(data.tokens(), extra=RELIGION)
    E = np.random.default_rng(0).normal(size=(len(vocab), 8)).astype("float32")
    dom = TextDomain.with_embedding_neighbours(vocab, E, {"religion": RELIGION}, 10, k=5)
    model = fit_text_classifier(dom.validate(data.texts), data.y, E, units=8, layers=1, epochs=8, random_state=0)
    return dom, data.texts, model


def biased_linear(dom, E, strength=4.0):
    """A linear model whose decision moves with the term "muslim" (and mildly with everything else)."""
    rng = np.random.default_rng(1)
    w = rng.normal(size=E.shape[1]) * 0.3
    E = E.copy()
    E[dom.vocab.id("muslim")] = strength * w / (w @ w)        # "muslim" adds `strength` to the logit
    for t in RELIGION:
        if t != "muslim":
            E[dom.vocab.id(t)] = 0.0
    return LinearTextModel(E, w, b=-1.0)


def ignoring_linear(dom, E):
    """A linear model on which every term of the group weighs nothing (zero embedding rows)."""
    E = E.copy()
    for t in RELIGION:
        E[dom.vocab.id(t)] = 0.0
    return LinearTextModel(E, np.random.default_rng(1).normal(size=E.shape[1]), b=0.3)


def assert_text_pairs_valid(result, model, dom):
    """Every reported pair is re-checked by a fresh oracle, differs from its counterpart exactly in one
    sensitive term, and from its seed only at non-sensitive positions, never by a term of the group; its
    chain and validity agree with that difference."""
    X, C = dom.ids(result.inputs), dom.ids(result.counterparts)
    assert len(X) and Oracle(model, dom).check(X).discriminatory.all()
    labels = model.predict_proba(X).argmax(axis=1)
    assert (labels != model.predict_proba(C).argmax(axis=1)).all()
    sens = dom.sensitive_mask(X)
    differ = X != C
    assert (differ.sum(axis=1) == 1).all() and (differ <= sens).all()
    assert dom.sensitive_mask(C)[differ].all()
    seeds = dom.ids(result.extras["seeds"])[result.to_frame(decoded=False)["seed"].to_numpy()]
    assert (sens == dom.sensitive_mask(seeds)).all()            # no term added, none removed
    assert (X[sens] == seeds[sens]).all()                       # sensitive positions untouched
    changed = X != seeds
    for i in range(len(X)):
        info = result.details(i)
        assert set(info) == {"term", "term_counterpart", "group", "position", "saliency", "chain", "validity"}
        p = int(np.flatnonzero(differ[i])[0])
        assert info["position"] == p
        assert (info["term"], info["term_counterpart"]) == (dom.vocab.tokens[X[i, p]], dom.vocab.tokens[C[i, p]])
        assert sorted(e["position"] for e in info["chain"]) == np.flatnonzero(changed[i]).tolist()
        assert all(e["new"] == dom.vocab.tokens[X[i, e["position"]]] for e in info["chain"])
        assert all(e["new"] in e["candidates"] and len(e["candidates"]) <= dom.k for e in info["chain"])
        assert info["validity"]["l0"] == changed[i].sum()

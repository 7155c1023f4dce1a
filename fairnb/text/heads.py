"""A classification head on a frozen encoder, fitted on a subword domain's texts, and its control twins.

:func:`domain_head` fits :func:`fairnb.text.bert.fit_head` (a logistic regression on the frozen encoder's
mean-pooled sentence vectors, seconds) on texts of a subword domain (``TextDomain.for_model(..., tokenizer=)``),
given as strings or word-id rows, read through the domain's tokeniser as a search reads them.

A **control head** is the same head fitted on the same texts and labels by a recipe that takes the identity terms'
information away; beside it, a search answers "does this head treat identity terms differently more than a head
that ...". It is not a lower bound of 0: the frozen encoder still places "muslim" and "christian" apart, and any
head's weights see that difference. ``control=`` picks the recipe, each answering its own question:

* ``"shuffled"`` (``True`` means the same; :data:`CONTROL_LABEL`): every identity term replaced by a term of its
  group drawn at random (:func:`fairnb.text.variants.shuffle_terms`). Which term a text holds then tells nothing
  about its label, while every other word still does: the text analogue of the classifier trained on a shuffled
  protected column (docs/glossary.md, *Control model*). It answers "... more than a head that never learnt the
  terms from its labels, but still reads the encoder's associations of the terms and their proxies?".
* ``"counterfactual"`` (:data:`COUNTERFACTUAL_CONTROL_LABEL`): counterfactual data augmentation
  (:func:`fairnb.text.variants.counterfactual_augmentation`): every text and each of its protected variants, the
  label kept, so the head is trained to give every term of a group the same output on the same sentence (the
  recipe of ``benchmarks/twins.py``'s ``redditbias_counterfactual`` twin). It answers "... more than a head taught
  to treat the terms alike?". Its training set is several times larger (a text with one term of a group of ``k``
  stands ``k`` times), so it takes several times longer to fit.
* ``"clp"`` (:data:`CLP_CONTROL_LABEL`): counterfactual logit pairing (Garg et al. 2019,
  :func:`fairnb.models.logit_pairing.fit_with_logit_pairing`): a softmax head trained on the texts' frozen sentence
  vectors with the cross-entropy of their labels plus ``pairing_strength`` times the mean ``|g(x) - g(x')|``, ``x'``
  one of ``x``'s protected variants drawn anew for every batch, as the paper samples (``benchmarks/twins.py``'s
  ``redditbias_clp``). It answers "... more than a head trained so that a term swap moves its logit as little as
  the labels allow?". The default strength is the project's text strength, :data:`CLP_STRENGTH` = 1.0 (the
  RedditBias twin's, chosen from invariance and accuracy in ``benchmarks/results/clp_strength_text.md``, never from
  search counts). The variants are encoded once, as for ``"counterfactual"`` (several times the texts); the head
  has no L2 penalty (``C`` is the logistic heads'), Adam (learning rate 1e-3) for :data:`CLP_EPOCHS` epochs.
  :func:`clp_softmax_head` fits that head on vectors already encoded (several strengths on the same texts).
  Check its accuracy before reading counts beside it: on the MiniLM twin (``transformer_twin_clp.md``) strength 1.0
  left a near-constant head (the majority class on nearly every phrase), which no search can find pairs on;
  for that head a rule on accuracy alone chose 0.05 (``benchmarks/results/clp_strength_minilm.md``).

Example
-------
>>> biased = domain_head(encoder, domain, texts, y)                                          # doctest: +SKIP
>>> control = domain_head(encoder, domain, texts, y, control="counterfactual")               # doctest: +SKIP
>>> clp = domain_head(encoder, domain, texts, y, control="clp", pairing_strength=1.0)        # doctest: +SKIP
>>> fairnb.run_search(biased, domain, "adf_asc", seeds=texts,
...                   control=(control, COUNTERFACTUAL_CONTROL_LABEL))                       # doctest: +SKIP
"""
from __future__ import annotations

import numpy as np

#: how a search's summary names the shuffled control head (``run_search(..., control=(head, CONTROL_LABEL))``)
CONTROL_LABEL = "the same head trained on the texts with their identity terms shuffled"
#: how a search's summary names the counterfactual control head (``domain_head(..., control="counterfactual")``)
COUNTERFACTUAL_CONTROL_LABEL = ("the same head trained on the texts and each of their term-swapped variants, "
                                "the label kept (counterfactual augmentation)")
#: how a search's summary names the CLP control head (``domain_head(..., control="clp")``)
CLP_CONTROL_LABEL = ("the same head trained with counterfactual logit pairing: a term swap moves its logit as "
                     "little as the labels allow")
#: ``control=`` -> (recipe, the Keras model's name)
CONTROLS = {False: (None, "head"), "shuffled": ("shuffled", "control_head"),
            "counterfactual": ("counterfactual", "counterfactual_control_head"), "clp": ("clp", "clp_control_head")}
#: the CLP head's pairing strength (lambda) by default: ``benchmarks/twins.py``'s ``CLP_STRENGTH["redditbias"]``
CLP_STRENGTH = 1.0
#: the CLP head's epochs (Adam, learning rate 1e-3, batch 64): on the MiniLM twin's 5,092 RedditBias phrases its
#: training loss is within 0.003 of its 150-epoch level from epoch 30 on (``transformer_twin_clp.md``)
CLP_EPOCHS = 40


def domain_head(encoder, domain, texts, y, *, control: bool | str = False, C: float = 1.0, random_state=None,
                name: str | None = None, pairing_strength: float | None = None):
    """The Keras classifier ``encoder`` + a softmax head fitted on ``texts`` (strings or word-id rows of the
    subword ``domain``) with labels ``y``. ``control``: ``False`` (the head itself), ``"shuffled"`` or ``True``
    (on the texts with their identity terms shuffled; ``random_state`` draws them) or ``"counterfactual"`` (on
    the texts and each of their protected variants, labels kept) or ``"clp"`` (counterfactual logit pairing of
    strength ``pairing_strength``, default :data:`CLP_STRENGTH`; ``random_state`` seeds its training and draws);
    the module docstring says which question each control answers. ``.head_accuracy`` is its accuracy on what it
    was fitted on (the augmented texts for ``"counterfactual"``, the texts for ``"clp"``)."""
    from .bert import fit_head
    from .variants import counterfactual_augmentation, shuffle_terms

    key = "shuffled" if control is True else control
    if isinstance(key, (bool, str)) and key in CONTROLS:
        recipe, default_name = CONTROLS[key]
    else:
        raise ValueError(f"control must be False, 'shuffled' (or True), 'counterfactual' or 'clp'; got {control!r}")
    if pairing_strength is not None and recipe != "clp":
        raise ValueError(f"pairing_strength is the strength of control='clp'; got it with control={control!r}")
    strength = CLP_STRENGTH if pairing_strength is None else pairing_strength
    if isinstance(strength, bool) or not isinstance(strength, (int, float, np.number)) or not np.isfinite(strength) \
            or strength < 0:
        raise ValueError(f"pairing_strength must be a finite number >= 0, got {pairing_strength!r}")
    subword = getattr(domain, "subword", None)
    if subword is None:
        raise ValueError("domain must be a subword text domain: TextDomain.for_model(model, groups, tokenizer=...)")
    rows = domain.ids(domain.validate(texts))
    if recipe == "shuffled":
        rows = shuffle_terms(domain, rows, random_state)
    elif recipe == "counterfactual":
        rows, y = counterfactual_augmentation(domain, rows, y)
    elif recipe == "clp":
        return _clp_head(encoder, domain, rows, y, float(strength), random_state, name or default_name)
    ids, mask, _ = subword.encode_rows(domain.vocab, rows)
    return fit_head(encoder, ids, mask, y, C=C, name=name or default_name)


def _clp_head(encoder, domain, rows, y, strength: float, random_state, name: str):
    """``domain_head(control="clp")``: the texts ``rows`` and every protected variant of each encoded once, a
    softmax head trained on their sentence vectors by :func:`clp_softmax_head`. ``.pairing_history`` is its
    per-epoch history (loss, pairing, pairs)."""
    from .bert import bert_classifier, sentence_vectors

    _check_labels(y, len(rows))                         # before the encoding, which takes minutes
    flat, owner = domain.variants(rows)                 # each text first, then its variants
    ids, mask, _ = domain.subword.encode_rows(domain.vocab, flat)
    vectors = sentence_vectors(encoder, ids, mask).astype(np.float32)
    n = len(rows)
    head, history = clp_softmax_head(vectors[:n], y, vectors[n:], owner[n:], strength=strength,
                                     random_state=random_state)
    model = bert_classifier(encoder, head.output_shape[-1], head=head.layers[-1].get_weights(), name=name)
    model.head_accuracy = float((head.predict(vectors[:n], verbose=0).argmax(1) == np.asarray(y)).mean())
    model.pairing_history = history
    return model


def clp_softmax_head(vectors, y, variant_vectors, owner, *, strength: float = CLP_STRENGTH, random_state=None):
    """The CLP control's head on vectors already computed: a softmax layer (``keras.Sequential``) trained on the
    texts' sentence ``vectors`` with labels ``y`` by counterfactual logit pairing of ``strength``
    (:func:`~fairnb.models.logit_pairing.fit_with_logit_pairing`, Adam, :data:`CLP_EPOCHS` epochs), where
    ``variant_vectors[j]`` is the vector of a protected variant of text ``owner[j]``; per batch one variant of each
    text that has one is drawn. Returns ``(head, history)``. ``domain_head(control="clp")`` encodes its texts and
    their variants and calls it; a caller fitting several strengths on the same texts encodes them once.

    >>> head, history = clp_softmax_head(V[:n], y, V[n:], owner[n:], strength=0.1)        # doctest: +SKIP
    """
    import keras

    from ..models.logit_pairing import fit_with_logit_pairing

    vectors, variant_vectors = np.asarray(vectors, np.float32), np.asarray(variant_vectors, np.float32)
    y, owner = np.asarray(y).astype(np.int64), np.asarray(owner).astype(np.int64)
    n = len(vectors)
    _check_labels(y, n)
    if owner.shape != (len(variant_vectors),) or (len(owner) and (owner.min() < 0 or owner.max() >= n)):
        raise ValueError(f"owner must name the text (0..{n - 1}) of each of the {len(variant_vectors)} "
                         f"variant_vectors; got shape {owner.shape}")
    swaps = np.argsort(owner, kind="stable")            # the variants, grouped by their text
    count = np.bincount(owner, minlength=n)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])

    def counterfactuals(X_batch, index, rng):           # one variant per text that has one, drawn per batch
        has = np.flatnonzero(count[index] > 0)
        text = index[has]
        return has, variant_vectors[swaps[start[text] + rng.integers(0, count[text])]]

    head = keras.Sequential([keras.Input((vectors.shape[1],)), keras.layers.Dense(int(y.max()) + 1,
                                                                                  activation="softmax")])
    history = fit_with_logit_pairing(head, vectors, y, counterfactuals, strength=strength, epochs=CLP_EPOCHS,
                                     random_state=0 if random_state is None else int(random_state))
    return head, history


def _check_labels(y, n: int) -> None:
    y = np.asarray(y)
    if y.shape != (n,) or len(np.unique(y)) < 2 or y.min() < 0:
        raise ValueError(f"y must hold one label 0..k-1 per text, of at least 2 classes; got {len(y)} labels for "
                         f"{n} texts, classes {np.unique(y).tolist()}")

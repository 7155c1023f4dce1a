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

Example
-------
>>> biased = domain_head(encoder, domain, texts, y)                                          # doctest: +SKIP
>>> control = domain_head(encoder, domain, texts, y, control="counterfactual")               # doctest: +SKIP
>>> fairnb.run_search(biased, domain, "adf_asc", seeds=texts,
...                   control=(control, COUNTERFACTUAL_CONTROL_LABEL))                       # doctest: +SKIP
"""
from __future__ import annotations

#: how a search's summary names the shuffled control head (``run_search(..., control=(head, CONTROL_LABEL))``)
CONTROL_LABEL = "the same head trained on the texts with their identity terms shuffled"
#: how a search's summary names the counterfactual control head (``domain_head(..., control="counterfactual")``)
COUNTERFACTUAL_CONTROL_LABEL = ("the same head trained on the texts and each of their term-swapped variants, "
                                "the label kept (counterfactual augmentation)")
#: ``control=`` -> (recipe, the Keras model's name)
CONTROLS = {False: (None, "head"), "shuffled": ("shuffled", "control_head"),
            "counterfactual": ("counterfactual", "counterfactual_control_head")}


def domain_head(encoder, domain, texts, y, *, control: bool | str = False, C: float = 1.0, random_state=None,
                name: str | None = None):
    """The Keras classifier ``encoder`` + a softmax head fitted on ``texts`` (strings or word-id rows of the
    subword ``domain``) with labels ``y``. ``control``: ``False`` (the head itself), ``"shuffled"`` or ``True``
    (on the texts with their identity terms shuffled; ``random_state`` draws them) or ``"counterfactual"`` (on
    the texts and each of their protected variants, labels kept); the module docstring says which question each
    control answers. ``.head_accuracy`` is its accuracy on what it was fitted on (the augmented texts for
    ``"counterfactual"``)."""
    from .bert import fit_head
    from .variants import counterfactual_augmentation, shuffle_terms

    key = "shuffled" if control is True else control
    if isinstance(key, (bool, str)) and key in CONTROLS:
        recipe, default_name = CONTROLS[key]
    else:
        raise ValueError(f"control must be False, 'shuffled' (or True) or 'counterfactual'; got {control!r}")
    subword = getattr(domain, "subword", None)
    if subword is None:
        raise ValueError("domain must be a subword text domain: TextDomain.for_model(model, groups, tokenizer=...)")
    rows = domain.ids(domain.validate(texts))
    if recipe == "shuffled":
        rows = shuffle_terms(domain, rows, random_state)
    elif recipe == "counterfactual":
        rows, y = counterfactual_augmentation(domain, rows, y)
    ids, mask, _ = subword.encode_rows(domain.vocab, rows)
    return fit_head(encoder, ids, mask, y, C=C, name=name or default_name)

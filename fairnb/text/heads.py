"""A classification head on a frozen encoder, fitted on a subword domain's texts, and its control twin.

:func:`domain_head` fits :func:`fairnb.text.bert.fit_head` (a logistic regression on the frozen encoder's
mean-pooled sentence vectors, seconds) on texts of a subword domain (``TextDomain.for_model(..., tokenizer=)``),
given as strings or word-id rows, read through the domain's tokeniser as a search reads them.

``control=True`` fits the **control head**: the same texts and labels, with every identity term replaced by a
term of its group drawn at random (:func:`fairnb.text.variants.shuffle_terms`). Which term a text holds then
tells nothing about its label, while every other word still does: the text analogue of the classifier trained
on a shuffled protected column (docs/glossary.md, *Control model*). Beside it, a search answers "does this head
treat identity terms differently more than a head that never learnt them would, by chance or through the
encoder's own associations and the proxies of the terms?". It is not a lower bound of 0: the frozen encoder still
places "muslim" and "christian" apart, and the control's weights see that difference.

Example
-------
>>> biased = domain_head(encoder, domain, texts, y)                                # doctest: +SKIP
>>> control = domain_head(encoder, domain, texts, y, control=True, random_state=0)  # doctest: +SKIP
>>> fairnb.run_search(biased, domain, "adf_asc", seeds=texts,
...                   control=(control, CONTROL_LABEL))                           # doctest: +SKIP
"""
from __future__ import annotations

import numpy as np

#: how a search's summary names the control head (``run_search(..., control=(head, CONTROL_LABEL))``)
CONTROL_LABEL = "the same head trained on the texts with their identity terms shuffled"


def domain_head(encoder, domain, texts, y, *, control: bool = False, C: float = 1.0, random_state=None,
                name: str | None = None):
    """The Keras classifier ``encoder`` + a softmax head fitted on ``texts`` (strings or word-id rows of the
    subword ``domain``) with labels ``y``; ``control=True``: on the texts with their identity terms shuffled
    (``random_state`` draws them). ``.head_accuracy`` is its accuracy on what it was fitted on."""
    from .bert import fit_head
    from .variants import shuffle_terms

    subword = getattr(domain, "subword", None)
    if subword is None:
        raise ValueError("domain must be a subword text domain: TextDomain.for_model(model, groups, tokenizer=...)")
    rows = domain.ids(domain.validate(texts))
    if control:
        rows = shuffle_terms(domain, rows, random_state)
    ids, mask, _ = subword.encode_rows(domain.vocab, rows)
    return fit_head(encoder, ids, mask, y, C=C, name=name or ("control_head" if control else "head"))

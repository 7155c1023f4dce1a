"""Constraints that keep a generated text what a reader believes it is: the same sentence about the same
identity, with a few words changed (issue "findings that mean something"; ADF digest §7.2 items 2 and 8).

* ``SameIdentityTerms``: no substitution introduces or removes a term of *any* identity group the domain
  knows (the built-in ADF and TestSGD lists with their plurals, ``IDENTITY_NOUNS`` that the lists lack, the
  domain's groups, and ``extra`` terms), so a race search never turns "christians" into "muslim", "liar"
  into "jew", nor "man" into "woman";
* ``SameTokens``: the text reads back as the same tokens (string -> ids), so "african" placed before
  "american" (which the tokenizer joins into the one term "african american") is refused;
* ``MaxWordsChanged``: at most ``n`` words differ from the seed.

Example
-------
>>> import numpy as np
>>> from fairnb.domains import TextDomain
>>> from fairnb.text import Vocabulary
>>> vocab = Vocabulary.build([["the", "muslim", "christian", "cook", "is", "kind", "african", "american"]])
>>> dom = TextDomain(vocab, {"religion": ["muslim", "christian"]}, 4, neighbours=np.full((len(vocab), 1), -1))
>>> seed = dom.validate(["the muslim cook is"])
>>> X = np.vstack([seed, seed, seed])
>>> X[1, 2], X[2, 2] = vocab.id("kind"), vocab.id("african")     # cook -> kind; cook -> african (a race term)
>>> SameIdentityTerms().allowed(dom, X, np.repeat(seed, 3, axis=0)).tolist()
[True, True, False]
"""
from __future__ import annotations

import numpy as np

from .base import Constraint


# identity nouns the papers' term lists lack, which GloVe neighbours propose (a religion search's substitution
# chains reached "jew" from "traitor"); plurals of every listed term are added by ``identity_terms``
IDENTITY_NOUNS = ("jew", "arab", "hindu", "hindus", "sikhs", "christians", "muslims", "jews", "arabs", "atheists",
                  "buddhists", "catholics", "protestants", "gays", "lesbians", "blacks", "whites", "asians",
                  "immigrant", "immigrants", "foreigner", "foreigners",
                  # a person's sex: the gender lists name "female", "male", but not the nouns (the text
                  # inspector's screenshot showed a religion search turning "my muslim man" into "muslim woman")
                  "man", "men", "woman", "women", "boy", "boys", "girl", "girls")


def identity_terms(terms) -> set[str]:
    """``terms`` with their plain plurals (+s, +es) and ``IDENTITY_NOUNS``.

    >>> sorted(identity_terms(["muslim", "jewish"]))[:4]
    ['arab', 'arabs', 'asians', 'atheists']
    >>> {"muslim", "muslims", "jew"} <= identity_terms(["muslim"])
    True
    """
    out = set(IDENTITY_NOUNS)
    for term in terms:
        out |= {term, term + "s", term + "es"}
    return out


class SameIdentityTerms(Constraint):
    """Every identity term of the seed stays where it is, and no other appears (see the module docstring)."""

    name = "same_identity_terms"

    def __init__(self, extra: tuple[str, ...] = ()):
        self.extra = tuple(extra)

    def describe(self) -> str:
        return "no substitution adds or removes an identity term of any group (race, religion, gender, ...)"

    def _identity_ids(self, domain) -> np.ndarray:
        """The vocabulary ids of every identity term, computed once per domain (this runs on every batch)."""
        cached = getattr(self, "_ids", None)
        if cached is None or cached[0] != id(domain):      # the id, not the domain: a search's parameters pickle
            terms = identity_terms([*domain.tokenizer.terms, *self.extra])
            self._ids = (id(domain), np.array(sorted({domain.vocab.id(t) for t in terms if t in domain.vocab}),
                                          dtype=np.int64))
        return self._ids[1]

    def allowed(self, domain, X, seeds, counterparts=None) -> np.ndarray:
        if seeds is None:
            return np.ones(len(X), bool)
        X, S = domain.ids(X), domain.ids(seeds)
        ids = self._identity_ids(domain)
        identity = np.isin(X, ids) | np.isin(S, ids)
        return ((X == S) | ~identity).all(axis=1)


class SameTokens(Constraint):
    """The text, written out as a string and read back, gives the same token ids (see the module docstring)."""

    name = "same_tokens"

    def describe(self) -> str:
        return "the generated text reads back as the same words (no two words merge into one term)"

    def allowed(self, domain, X, seeds, counterparts=None) -> np.ndarray:
        X = domain.ids(X)
        changed = np.ones(len(X), bool) if seeds is None else (X != domain.ids(seeds)).any(axis=1)
        ok = np.ones(len(X), bool)
        rows = np.flatnonzero(changed)
        if len(rows):
            tokens = domain.vocab.decode(X[rows])
            back = domain.encode_texts([domain.tokenizer.detokenize(t) for t in tokens])
            ok[rows] = (back == X[rows]).all(axis=1)
        return ok


class MaxWordsChanged(Constraint):
    """At most ``n`` words differ from the seed (ADF's L0). The default 4 keeps the paper's typical local
    findings (its mean local L0 is 3.13, RQ2) and refuses the texts whose walk rewrote half the sentence."""

    name = "max_words_changed"

    def __init__(self, n: int = 4):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"MaxWordsChanged: n must be an integer >= 0, got {n!r}")
        self.n = int(n)

    def describe(self) -> str:
        return f"at most {self.n} words changed from the seed text"

    def allowed(self, domain, X, seeds, counterparts=None) -> np.ndarray:
        if seeds is None:
            return np.ones(len(X), bool)
        return (domain.ids(X) != domain.ids(seeds)).sum(axis=1) <= self.n


def default_text_constraints() -> list[Constraint]:
    """A text domain's defaults: the same identity terms, the same tokens, at most 4 words changed."""
    return [SameIdentityTerms(), SameTokens(), MaxWordsChanged()]

"""A synthetic text-search Result for the text inspector's tests: template sentences as seeds, inputs reached
from them by word substitutions, counterparts that swap the sensitive term, and per-pair details shaped like
the text searches' (chain, saliency, validity). The domain implements the members of the text-domain contract
that the inspector and ``Result`` use (``vocab``, ``term_group``, ``class_names``, ``key``)."""
from __future__ import annotations

import numpy as np

from fairnb.results import Result
from fairnb.text import TermGroups, Vocabulary

GROUPS = TermGroups({"religion": ["muslim", "christian", "jewish", "atheist"], "race": ["black", "white", "asian"]})
WORDS = ["the", "a", "my", "neighbour", "cook", "teacher", "is", "was", "kind", "nice", "rude", "lazy", "very",
         "friendly", "honest", ".", "!", "<script>alert(1)</script>"]
MAX_LEN = 8


class StandInTextDomain:
    """The text-domain members the inspector reads (see CONTRACT: TextDomain)."""

    kind = "text"           # the inspector registered for text domains (not registered as a domain)

    def __init__(self, groups=GROUPS, class_names=("non-toxic", "toxic")):
        self.vocab = Vocabulary.build([WORDS], extra=groups.all_terms)
        self.term_groups = groups
        self.groups = self.protected = tuple(groups)
        self.class_names = class_names
        self.item_shape = (MAX_LEN,)
        self._sensitive = np.array([self.vocab.id(t) for t in groups.all_terms])

    def term_group(self, term):
        found = self.term_groups.group_of(term)
        return found[0] if found else None

    def key(self, items, convention):
        ids = np.rint(np.asarray(items)).astype(np.int64)
        return ids if convention == "eidig" else np.where(np.isin(ids, self._sensitive), -1, ids)

    def ids(self, sentence: str) -> np.ndarray:
        return self.vocab.encode([sentence.split()], MAX_LEN)[0]


def text_result(n_seeds: int = 40, n_pairs: int = 200, random_state: int = 0, with_details: bool = True,
                class_names=("non-toxic", "toxic")):
    """A Result of ``n_pairs`` pairs reached from ``n_seeds`` template seeds, and the domain."""
    dom = StandInTextDomain(class_names=class_names)
    rng = np.random.default_rng(random_state)
    terms = list(GROUPS["religion"]) + list(GROUPS["race"])
    seeds = np.stack([dom.ids(f"the {terms[i % len(terms)]} cook is very kind .") for i in range(n_seeds)])
    seed_of = rng.integers(n_seeds, size=n_pairs)
    X = seeds[seed_of].copy()
    position = np.argmax(np.isin(X, dom._sensitive), axis=1)
    free = [j for j in range(MAX_LEN) if (seeds[:, j] != 0).all()]
    k = rng.integers(0, 3, size=n_pairs)                         # substitutions per pair (0 = the seed itself)
    word_ids = dom.vocab.ids(["kind", "nice", "rude", "lazy", "friendly", "honest", "teacher", "neighbour"])
    infos = []
    for i in range(n_pairs):
        chain = []
        choices = [j for j in free if j != position[i]]
        for step, j in enumerate(rng.choice(choices, size=k[i], replace=False)):
            old = X[i, j]
            X[i, j] = word_ids[(step + i) % len(word_ids)] if word_ids[(step + i) % len(word_ids)] != old else word_ids[-1]
            candidates = [dom.vocab.tokens[w] for w in word_ids]
            chain.append({"phase": "global" if step == 0 else "local", "iteration": step, "position": int(j),
                          "old": dom.vocab.tokens[old], "new": dom.vocab.tokens[X[i, j]], "candidates": candidates,
                          "scores": [float(s) for s in np.linspace(1, 0, len(candidates))]})
        group = dom.term_group(dom.vocab.tokens[X[i, position[i]]])
        infos.append({"term": dom.vocab.tokens[X[i, position[i]]], "group": group, "position": int(position[i]),
                      "saliency": [float(v) for v in rng.random(MAX_LEN)], "chain": chain,
                      "validity": {"l0": int(k[i]), "l2": 0.5 * float(k[i]), "jaccard": 1.0, "bleu": 1.0,
                                   "similarity": 0.99}} if with_details else {})
    C = X.copy()
    for i in range(n_pairs):
        group_terms = GROUPS[infos[i]["group"] if with_details else dom.term_group(dom.vocab.tokens[X[i, position[i]]])]
        others = [t for t in group_terms if dom.vocab.id(t) != X[i, position[i]]]
        C[i, position[i]] = dom.vocab.id(others[i % len(others)])
    p = rng.uniform(0.55, 1.0, n_pairs)
    P = np.column_stack([1 - p, p])
    PC = np.column_stack([p, 1 - p])
    keep = np.sort(np.unique(X, axis=0, return_index=True)[1])      # one pair per distinct input, as a Result keeps
    X, C, P, PC, seed_of, infos = X[keep], C[keep], P[keep], PC[keep], seed_of[keep], [infos[i] for i in keep]
    result = Result(dom, "adf_asc")
    result.record(X.astype(float), C.astype(float), P, PC, phase="global", seed_ids=seed_of, elapsed=1.0,
                  info=infos)
    result.extras["seeds"] = seeds.astype(float)
    return result, dom

"""Sensitive occurrences in a text and "the same text with another term of the group" (digest §7.2.2-3).

A text (a row of padded token ids) is sensitive for a group when one of its tokens is a term of that group
(exact whole-token match). Its protected variants replace the sensitive occurrence by every other term of
the group, one token -> one token, so every variant has the text's length and differs from it exactly at
the sensitive position:

* ``jointly=False`` (default, the ADF paper's semantics): one occurrence at a time; other occurrences keep
  their terms. A text with ``k`` occurrences has ``k * (|group| - 1)`` variants.
* ``jointly=True`` (counterfactual-fairness style): every occurrence of the same term is replaced together.
  One variant per distinct term in the text and per other term.

The functions work on whole batches of id arrays (what a batched search calls); :func:`text_variants` does
the same on one token list.

Example
-------
>>> text_variants(["the", "muslim", "and", "the", "muslim", "cook"], ["christian", "muslim", "atheist"])
[['the', 'christian', 'and', 'the', 'muslim', 'cook'], ['the', 'atheist', 'and', 'the', 'muslim', 'cook'], \
['the', 'muslim', 'and', 'the', 'christian', 'cook'], ['the', 'muslim', 'and', 'the', 'atheist', 'cook']]
>>> text_variants(["the", "muslim", "and", "the", "muslim", "cook"], ["christian", "muslim"], jointly=True)
[['the', 'christian', 'and', 'the', 'christian', 'cook']]
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .terms import normalise_term
from .vocabulary import OOV_ID, PAD_ID, Vocabulary, as_id_array


def group_ids(vocab: Vocabulary, terms: Iterable[str]) -> np.ndarray:
    """The ids of a group's terms; every term must be in the vocabulary (``ValueError`` names the missing)."""
    terms = [normalise_term(t) for t in terms]
    missing = [t for t in terms if t not in vocab]
    if missing:
        raise ValueError(f"sensitive terms missing from the vocabulary: {missing[:10]}"
                         f"{' ...' if len(missing) > 10 else ''}; build the vocabulary with "
                         "Vocabulary.build(..., extra=groups.all_terms) so that swaps to them are possible")
    ids = np.unique(vocab.ids(terms))
    if len(ids) < 2:
        raise ValueError(f"a term group needs at least 2 distinct terms, got {terms}")
    return ids.astype(np.int32)


def sensitive_mask(ids: np.ndarray, term_ids: np.ndarray) -> np.ndarray:
    """Boolean ``(n, L)``: where a term of the group sits (padding and OOV never count)."""
    ids = as_id_array(ids)
    term_ids = np.asarray(term_ids)
    if np.isin([PAD_ID, OOV_ID], term_ids).any():
        raise ValueError("term_ids must not contain the padding or OOV id; use group_ids(vocab, terms)")
    return np.isin(ids, term_ids)


@dataclass(frozen=True)
class Variants:
    """The protected variants of a batch of texts.

    ``ids[j]`` is a variant of text ``row[j]``; it has term ``new[j]`` where the text had ``old[j]``, at
    ``position[j]`` (one occurrence at a time) or at every position holding ``old[j]`` (``jointly=True``,
    ``position[j] == -1``).
    """

    ids: np.ndarray
    row: np.ndarray
    position: np.ndarray
    old: np.ndarray
    new: np.ndarray

    def __len__(self):
        return len(self.row)


def protected_variants(ids: np.ndarray, term_ids: np.ndarray, *, jointly: bool = False) -> Variants:
    """Every protected variant of every row of ``ids`` (rows without a sensitive term have none).

    Order: by text, then by occurrence (position; term id when ``jointly``), then by the new term's id.
    """
    ids = as_id_array(ids)
    term_ids = np.unique(np.asarray(term_ids, dtype=ids.dtype))
    mask = sensitive_mask(ids, term_ids)
    if jointly:
        rows, cols = np.nonzero(mask)
        first = np.ones(len(rows), dtype=bool)
        if len(rows):   # one entry per (text, term): its first occurrence
            key = rows.astype(np.int64) * (int(ids.max()) + 1) + ids[rows, cols]
            _, idx = np.unique(key, return_index=True)
            first[:] = False
            first[idx] = True
        rows, cols = rows[first], cols[first]
    else:
        rows, cols = np.nonzero(mask)
    old = ids[rows, cols]
    new = np.broadcast_to(term_ids, (len(rows), len(term_ids)))
    keep = new != old[:, None]
    k = keep.sum(axis=1)
    row, col, old_r, new_r = np.repeat(rows, k), np.repeat(cols, k), np.repeat(old, k), new[keep]
    out = ids[row].copy()
    if jointly:
        out[out == old_r[:, None]] = np.broadcast_to(new_r[:, None], out.shape)[out == old_r[:, None]]
        col = np.full(len(row), -1)
    else:
        out[np.arange(len(row)), col] = new_r
    return Variants(out, row.astype(np.int64), col.astype(np.int64), old_r.astype(ids.dtype), new_r.astype(ids.dtype))


def text_variants(tokens: Sequence[str], terms: Iterable[str], *, jointly: bool = False) -> list[list[str]]:
    """The protected variants of one token list (same order as :func:`protected_variants`)."""
    if isinstance(tokens, str):
        raise TypeError("tokens must be a list of tokens, not a string; tokenize the text first")
    terms = [normalise_term(t) for t in terms]
    local = Vocabulary.build([list(tokens)], extra=terms)
    ids = local.encode([tokens], max_len=max(len(tokens), 1), padding="post")
    if not len(tokens):
        return []
    found = protected_variants(ids, group_ids(local, terms), jointly=jointly)
    return local.decode(found.ids)


def counterfactual_augmentation(domain, X, y) -> tuple[np.ndarray, np.ndarray]:
    """Counterfactual data augmentation (Lu et al. 2018): the texts ``X`` followed by every protected
    variant of each (``domain.variants``), every variant labelled as its text. In the augmented set each
    term of a group stands in the same sentences with the same labels as every other term of the group, so a
    model trained on it has nothing to learn from which term a text holds: the recipe of an unbiased twin.

    >>> from fairnb.domains import TextDomain
    >>> vocab = Vocabulary(("<pad>", "<oov>", "the", "muslim", "christian", "cook"))
    >>> dom = TextDomain(vocab, {"religion": ["muslim", "christian"]}, 3, neighbours=np.full((6, 1), -1))
    >>> ids, labels = counterfactual_augmentation(dom, vocab.encode([["the", "muslim", "cook"], ["the", "cook"]], 3),
    ...                                           [1, 0])
    >>> vocab.decode(ids), labels.tolist()
    ([['the', 'muslim', 'cook'], ['the', 'cook'], ['the', 'christian', 'cook']], [1, 0, 1])
    """
    y = np.asarray(y)
    flat, owner = domain.variants(X)
    if len(y) != int(owner.max(initial=-1)) + 1:
        raise ValueError(f"y must hold one label per text: {int(owner.max(initial=-1)) + 1} texts, {len(y)} labels")
    return flat, y[owner]


def term_swaps(domain):
    """Counterfactuals for counterfactual logit pairing (:func:`fairnb.models.logit_pairing.fit_with_logit_pairing`,
    ``fit_text_classifier(..., logit_pairing=term_swaps(domain))``): a function ``(ids, index=None, rng=None)``
    -> ``(rows, swapped)`` that, for each text of a batch holding a term of one of ``domain``'s groups (``rows``),
    swaps one occurrence chosen at random (every occurrence of that term when the domain swaps ``jointly``) for
    a random other term of its group, the whole group as the domain knows it, terms no text holds included.

    >>> from fairnb.domains import TextDomain
    >>> vocab = Vocabulary(("<pad>", "<oov>", "the", "muslim", "christian", "cook"))
    >>> dom = TextDomain(vocab, {"religion": ["muslim", "christian"]}, 3, neighbours=np.full((6, 1), -1))
    >>> rows, swapped = term_swaps(dom)(vocab.encode([["the", "cook"], ["the", "muslim", "cook"]], 3), rng=0)
    >>> rows.tolist(), vocab.decode(swapped)
    ([1], [['the', 'christian', 'cook']])
    """
    groups = [group_ids(domain.vocab, terms) for terms in domain.term_groups.values()]
    every = np.concatenate(groups)
    jointly = bool(getattr(domain, "jointly", False))

    def swap(ids, index=None, rng=None):
        ids = as_id_array(ids)
        rng = np.random.default_rng(rng)
        mask = np.isin(ids, every)
        rows = np.flatnonzero(mask.any(axis=1))
        keys = np.where(mask[rows], rng.random((len(rows), ids.shape[1])), -1.0)
        position = keys.argmax(axis=1)
        old = ids[rows, position]
        new, unassigned = old.copy(), np.ones(len(rows), bool)
        for group in groups:                    # a term in several groups is swapped within its first
            mine = unassigned & np.isin(old, group)
            j = rng.integers(0, len(group) - 1, size=int(mine.sum()))
            new[mine] = group[j + (j >= np.searchsorted(group, old[mine]))]
            unassigned &= ~mine
        swapped = ids[rows].copy()
        if jointly:
            at = swapped == old[:, None]
            swapped[at] = np.broadcast_to(new[:, None], swapped.shape)[at]
        else:
            swapped[np.arange(len(rows)), position] = new
        return rows, swapped

    return swap


def shuffle_terms(domain, X, random_state=None) -> np.ndarray:
    """The texts ``X`` (id rows of ``domain``) with every identity term replaced by a term of its group drawn
    uniformly at random (itself included), the same draw for every occurrence of a term in a text: the text
    analogue of a shuffled protected column. Trained on them with the labels kept, a model finds no information
    about the label in which term a text holds, while every other word keeps what it tells (the **control** of
    :func:`fairnb.text.heads.domain_head`). A term of several groups is drawn from its first.

    >>> from fairnb.domains import TextDomain
    >>> vocab = Vocabulary(("<pad>", "<oov>", "the", "muslim", "christian", "cook"))
    >>> dom = TextDomain(vocab, {"religion": ["muslim", "christian"]}, 4, neighbours=np.full((6, 1), -1))
    >>> out = shuffle_terms(dom, vocab.encode([["the", "muslim", "cook", "muslim"]] * 50, 4), random_state=0)
    >>> sorted({tuple(r) for r in vocab.decode(out)})
    [('the', 'christian', 'cook', 'christian'), ('the', 'muslim', 'cook', 'muslim')]
    """
    ids = as_id_array(X).copy()
    rng = np.random.default_rng(random_state)
    unassigned = np.ones(ids.shape, dtype=bool)
    for terms in domain.term_groups.values():
        group = group_ids(domain.vocab, terms)
        at = unassigned & np.isin(ids, group)
        draw = rng.integers(0, len(group), size=(len(ids), len(group)))     # per text: each term -> a term
        rows, cols = np.nonzero(at)
        ids[rows, cols] = group[draw[rows, np.searchsorted(group, ids[rows, cols])]]
        unassigned &= ~at
    return ids

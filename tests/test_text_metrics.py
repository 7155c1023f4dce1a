"""Validity metrics on hand-made examples (digest §7.4 oracle 15, A14)."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb.text.metrics import bleu, jaccard, l0, l2, sentence_similarity, validity_metrics, validity_table

E = np.eye(10, dtype=np.float32)          # token i embeds as the unit vector e_i (padding 0 -> e_0)


def test_digest_oracle_a_b_c_versus_a_b_d():
    seed, found = np.array([[0, 2, 3, 4]]), np.array([[0, 2, 3, 5]])
    assert l0(seed, found).tolist() == [1]
    assert jaccard(seed, found).tolist() == [0.5]                      # {a,b} / {a,b,c,d}
    assert l2(seed, found, E)[0] == pytest.approx(np.sqrt(2))


def test_identical_texts_are_perfect_on_every_metric():
    ids = np.array([[0, 0, 2, 3, 4], [2, 3, 4, 5, 6]])
    table = validity_metrics(ids, ids.copy(), E)
    assert table.to_dict("list") == {"L0": [0.0, 0.0], "L2": [0.0, 0.0], "JSC": [1.0, 1.0], "BLEU": [1.0, 1.0],
                                     "SS": pytest.approx([1.0, 1.0])}


def test_bleu4_by_hand_with_method1_smoothing():
    # one changed token in five: precisions 4/5, 2/4, 0/3 -> 0.1/3, 0/2 -> 0.1/2; brevity penalty 1
    expected = (0.8 * 0.5 * (0.1 / 3) * (0.1 / 2)) ** 0.25
    assert bleu(np.array([[2, 3, 4, 5, 6]]), np.array([[2, 3, 9, 5, 6]]))[0] == pytest.approx(expected)
    # padding is not a token: the same texts, padded, score the same
    assert bleu(np.array([[0, 0, 2, 3, 4, 5, 6]]), np.array([[0, 0, 2, 3, 9, 5, 6]]))[0] == pytest.approx(expected)


def test_vectorised_bleu_and_jaccard_equal_nltk_and_sets_on_random_pairs():
    """Repeated tokens (clipping), short texts (BLEU-n), empty ones, other lengths and padding on either side."""
    bleu_score = pytest.importorskip("nltk.translate.bleu_score")
    rng = np.random.default_rng(3)
    n, L = 400, 12
    seeds = rng.integers(1, 6, size=(n, L))
    found = np.where(rng.random((n, L)) < 0.3, rng.integers(1, 6, size=(n, L)), seeds)
    for i, k in enumerate(rng.integers(0, L + 1, n)):
        seeds[i, :L - k] = found[i, :L - k] = 0
    found[:40, -2:] = 0                     # shorter hypotheses: brevity penalty
    seeds[40:60, :3], found[40:60, -3:] = 0, 0
    smooth = bleu_score.SmoothingFunction().method1
    want_bleu, want_jsc = [], []
    for a, b in zip(seeds, found):
        ref, hyp = a[a != 0].tolist(), b[b != 0].tolist()
        m = min(4, len(ref), len(hyp))
        want_bleu.append(0.0 if m == 0 else bleu_score.sentence_bleu([ref], hyp, weights=(1 / m,) * m,
                                                                     smoothing_function=smooth))
        want_jsc.append(len(set(ref) & set(hyp)) / len(set(ref) | set(hyp)) if set(ref) | set(hyp) else 1.0)
    assert np.allclose(bleu(seeds, found), want_bleu, rtol=1e-12, atol=1e-12)
    assert np.allclose(jaccard(seeds, found), want_jsc)
    assert 0 < np.mean(want_bleu) < 1


def test_sentence_similarity_default_and_pluggable_encoder():
    seed, found = np.array([[0, 2, 3]]), np.array([[0, 2, 4]])
    # mean embeddings (e2+e3)/2 and (e2+e4)/2: cosine 1/2
    assert validity_metrics(seed, found, E)["SS"][0] == pytest.approx(0.5)
    length = lambda ids: np.stack([(ids != 0).sum(axis=1), np.ones(len(ids))], axis=1)   # noqa: E731
    assert sentence_similarity(seed, found, length)[0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="one vector per text"):
        sentence_similarity(seed, found, lambda ids: np.ones(3))
    with pytest.raises(TypeError, match="encoder must be a callable"):
        validity_metrics(seed, found, E, encoder="use")
    with pytest.raises(ValueError, match="same shape"):
        l0(np.zeros((1, 3), int), np.zeros((1, 4), int))


def test_validity_table_is_laid_out_like_table_ix():
    seeds = np.array([[2, 3, 4, 5], [2, 3, 4, 5]])
    table = validity_table({"ADF_ASC": (seeds, np.array([[2, 3, 4, 6], [2, 3, 4, 5]])),
                            "RP": (seeds, np.array([[7, 3, 4, 6], [2, 8, 4, 5]])),
                            "HF": (np.empty((0, 4), int), np.empty((0, 4), int))}, E)
    assert list(table.index) == ["L0", "L2", "JSC", "BLEU", "SS"] and list(table.columns) == ["ADF_ASC", "RP", "HF"]
    assert table.loc["L0", "ADF_ASC"] == 0.5 and table.loc["L0", "RP"] == 1.5
    assert table.loc["JSC", "ADF_ASC"] > table.loc["JSC", "RP"] and table["HF"].isna().all()
    with pytest.raises(ValueError, match="non-empty mapping"):
        validity_table({}, E)

"""fairnb.text: term groups, tokenizer, vocabulary, protected variants (digest §7.4 oracles 5 and 10)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from fairnb.text import (ADF_TERMS, TESTSGD_TERMS, TermGroups, Tokenizer, Vocabulary, group_ids,
                         protected_variants, sensitive_mask, term_groups, text_variants)
from fairnb.text.vocabulary import OOV_ID, PAD_ID


def test_published_lists_have_the_papers_sizes():
    assert {k: len(v) for k, v in ADF_TERMS.items()} == {"country": 160, "ethnic": 17, "race": 7, "religion": 14}
    assert {k: len(v) for k, v in TESTSGD_TERMS.items()} == {"gender": 14, "race": 17, "religion": 9, "age": 8}
    default = term_groups()
    assert list(default) == ["country", "ethnic", "race", "religion", "gender", "age"]
    assert default["race"] == ADF_TERMS["race"] and default["gender"] == TESTSGD_TERMS["gender"]
    assert list(term_groups("testsgd")) == list(TESTSGD_TERMS)
    # the alternatives per occurrence that ADF enumerates: 159, 16, 6, 13
    assert [len(term_groups("adf")[g]) - 1 for g in ADF_TERMS] == [159, 16, 6, 13]


def test_groups_are_user_extendable_and_validated():
    groups = term_groups(extra={"religion": ["Pagan", "muslim"], "caste": ["dalit", "brahmin"]})
    assert groups["religion"][-1] == "pagan" and groups["religion"].count("muslim") == 1
    assert groups["caste"] == ("dalit", "brahmin")
    assert set(groups.group_of("black")) == {"race"} and groups.group_of("nobody") == ()
    assert "middle aged" in groups.multiword_terms
    with pytest.raises(TypeError, match="list of terms"):
        TermGroups({"x": "cat"})
    with pytest.raises(ValueError, match="at least 2"):
        TermGroups({"x": ["cat", "CAT "]})
    with pytest.raises(KeyError, match="no sensitive-term group 'sex'"):
        term_groups()["sex"]
    with pytest.raises(ValueError, match="source must be one of"):
        term_groups("wiki")


def test_multiword_hyphenated_and_apostrophe_terms_are_one_token():
    tok = Tokenizer()
    assert tok("I met a Baha'i from Guinea-Bissau, and a MIDDLE  AGED African American.") == [
        "i", "met", "a", "baha'i", "from", "guinea-bissau", ",", "and", "a", "middle aged", "african american", "."]
    # "guinea" never matches inside "guinea-bissau"
    ids_vocab = Vocabulary.build([tok("guinea-bissau and guinea")], extra=ADF_TERMS["country"])
    ids = ids_vocab.encode([tok("guinea-bissau and guinea")], 3)
    mask = sensitive_mask(ids, group_ids(ids_vocab, ["guinea", "chad"]))
    assert mask.tolist() == [[False, False, True]]


def test_punctuation_and_clitics_are_tokens_and_detokenize_reads_back():
    tok = Tokenizer()
    tokens = tok("Don't you think the muslim's cook (really) isn\u2019t bad?!")
    assert tokens == ["do", "n't", "you", "think", "the", "muslim", "'s", "cook", "(", "really", ")", "is", "n't",
                      "bad", "?", "!"]
    assert Tokenizer.detokenize(tokens) == "don't you think the muslim's cook (really) isn't bad?!"


def test_user_terms_longest_match_wins():
    tok = Tokenizer(["new york", "new york city", "york"])
    assert tok("New York City and new york and York") == ["new york city", "and", "new york", "and", "york"]
    with pytest.raises(TypeError, match="string"):
        tok(["not", "a", "string"])


def test_vocabulary_encode_decode_padding_truncation_and_oov():
    vocab = Vocabulary.build([["b", "a", "a"], ["c"]], extra=["z"], min_count=1)
    assert vocab.tokens == ("<pad>", "<oov>", "a", "b", "c", "z")
    assert vocab.encode([["a", "q", "z"], []], 4).tolist() == [[0, 2, 1, 5], [0, 0, 0, 0]]
    assert vocab.encode([["a", "b"]], 3, padding="post").tolist() == [[2, 3, 0]]
    assert vocab.encode([["a", "b", "c"]], 2).tolist() == [[3, 4]]                    # keeps the end
    assert vocab.encode([["a", "b", "c"]], 2, truncating="post").tolist() == [[2, 3]]
    assert vocab.decode(np.array([[0, 2, 1, 5]])) == [["a", "<oov>", "z"]]
    assert vocab.decode(np.array([0, 2]), keep_padding=True) == [["<pad>", "a"]]
    assert Vocabulary.build([["a", "a", "b"]], min_count=2).tokens == ("<pad>", "<oov>", "a")
    assert vocab.extended(["a", "y"]).tokens[-1] == "y" and len(vocab.extended(["a", "y"])) == len(vocab) + 1
    with pytest.raises(TypeError, match="tokenize"):
        vocab.encode(["a b"], 3)
    with pytest.raises(ValueError, match="ids must lie in 0..5"):
        vocab.decode(np.array([[6]]))
    with pytest.raises(ValueError, match="duplicate"):
        Vocabulary(("<pad>", "<oov>", "a", "a"))


def _reference_variants(row, terms):
    """Loop-by-loop reading of the paper: each occurrence, each other term."""
    out = []
    for pos, tok in enumerate(row):
        if tok in terms:
            for t in sorted(terms):
                if t != tok:
                    v = list(row)
                    v[pos] = t
                    out.append(v)
    return out


def test_variants_differ_exactly_at_the_sensitive_position_with_another_group_term():
    rng = np.random.default_rng(0)
    terms = np.array([5, 6, 7, 8])
    ids = rng.integers(0, 12, size=(40, 9)).astype(np.int32)
    v = protected_variants(ids, terms)
    expected = [var for row in ids.tolist() for var in _reference_variants(row, set(terms.tolist()))]
    assert v.ids.tolist() == expected
    diff = v.ids != ids[v.row]
    assert (diff.sum(axis=1) == 1).all()                                   # exactly one position changes
    assert (np.nonzero(diff)[1] == v.position).all()
    assert np.isin(v.new, terms).all() and (v.new != v.old).all() and (ids[v.row, v.position] == v.old).all()
    n_occurrences = np.isin(ids, terms).sum()
    assert len(v) == n_occurrences * (len(terms) - 1)
    assert v.ids.shape[1] == ids.shape[1]                                  # length preserved


def test_joint_variants_replace_every_occurrence_of_the_term():
    ids = np.array([[0, 5, 3, 5, 6], [0, 0, 3, 4, 4]], dtype=np.int32)
    v = protected_variants(ids, [5, 6, 7], jointly=True)
    # text 0 holds terms 5 (twice) and 6: 2 distinct terms x 2 alternatives; text 1 none
    assert (v.row == 0).all() and len(v) == 4 and (v.position == -1).all()
    for new_ids, old, new in zip(v.ids, v.old, v.new):
        assert ((new_ids == new) == ((ids[0] == old) | (ids[0] == new))).all()
        assert not (new_ids == old).any()


def test_no_variants_without_sensitive_tokens_and_oov_or_padding_never_count():
    ids = np.array([[0, 1, 2, 3]], dtype=np.int32)
    assert len(protected_variants(ids, [4, 5])) == 0
    with pytest.raises(ValueError, match="padding or OOV"):
        sensitive_mask(ids, [OOV_ID, 4])
    vocab = Vocabulary.build([["a"]])
    with pytest.raises(ValueError, match=r"missing from the vocabulary: \['muslim'"):
        group_ids(vocab, ["a", "muslim"])
    with pytest.raises(ValueError, match="2-d integer"):
        protected_variants(np.full((2, 3), 0.5), [4, 5])
    with pytest.raises(ValueError, match="2-d integer"):
        protected_variants(np.zeros(3, dtype=int), [4, 5])
    assert PAD_ID == 0


def test_text_variants_on_token_lists():
    religion = term_groups()["religion"]
    tokens = Tokenizer()("The Muslim cook and the Muslim driver.")
    variants = text_variants(tokens, religion)
    assert len(variants) == 2 * 13
    for v in variants:
        changed = [i for i, (a, b) in enumerate(zip(tokens, v)) if a != b]
        assert len(v) == len(tokens) and len(changed) == 1 and v[changed[0]] in religion
    joint = text_variants(tokens, religion, jointly=True)
    assert len(joint) == 13 and all(v.count(v[1]) == 2 and v[1] == v[5] for v in joint)
    assert text_variants([], religion) == [] and text_variants(["hello"], religion) == []
    assert list(itertools.chain(*text_variants(["x", "black"], ["white", "black"]))) == ["x", "white"]

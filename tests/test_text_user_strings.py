"""A model on strings reads the user's own strings: original case, spacing and the words the vocabulary
lacks, with only the substituted words changed; a model's own tokeniser and vocabulary build the domain."""
from __future__ import annotations

import numpy as np
import pytest

import fairnb
from fairnb.domains import TextDomain
from fairnb.text import Vocabulary
from fairnb.text.model_tokenizer import ModelTokenizer

RELIGION = ("christian", "muslim", "jewish", "atheist")


def _user_texts(n=120):
    rng = np.random.default_rng(0)
    subjects = ["The", "Our", "That"]
    roles = ["Cook", "teacher", "NEIGHBOUR", "doctor"]
    return [f"{rng.choice(subjects)}  {term.capitalize()} {rng.choice(roles)}, Zorblax, is {mood}!"
            for term, mood in zip(rng.choice(RELIGION, n), rng.choice(["kind", "rude", "calm"], n))]


def _domain(texts):
    from fairnb.text import Tokenizer

    vocab = Vocabulary.build([Tokenizer()(t) for t in texts[:60]], extra=RELIGION)   # "zorblax" is in it ...
    vocab = Vocabulary([t for t in vocab.tokens if t != "zorblax"])                  # ... no more: unknown
    E = np.random.default_rng(0).normal(size=(len(vocab), 6))
    return TextDomain.with_embedding_neighbours(vocab, E, {"religion": RELIGION}, 12, k=4)


def test_a_function_on_strings_reads_the_seed_strings_with_only_substituted_words_changed():
    texts = _user_texts()
    seen = []

    def model(strings):
        seen.extend(strings)
        return [float("Muslim" in s) for s in strings]

    result = fairnb.run_search(model, _domain(texts), method="rp", seeds=texts, n_seeds=20, max_iter=3, n_local=5,
                               random_state=0)
    assert result.count() > 0 and seen
    assert not any("<oov>" in s for s in seen)
    assert all("Zorblax" in s and "  " in s for s in seen)          # the unknown word and the spacing as written
    assert any(s in texts for s in seen) and any(s not in texts for s in seen)           # seeds, then substitutions
    assert {w for s in seen for w in s.split()[1:2]} <= {t.capitalize() for t in RELIGION}   # "Muslim" -> "Christian"


def test_a_pipeline_that_keeps_case_sees_the_original_case():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    texts = _user_texts()
    labels = [int("Muslim" in t or "rude" in t) for t in texts]
    pipe = make_pipeline(TfidfVectorizer(lowercase=False, token_pattern=r"\S+"), LogisticRegression(C=100))
    pipe.fit(texts, labels)
    assert "Muslim" in pipe[0].vocabulary_ and "muslim" not in pipe[0].vocabulary_
    result = fairnb.run_search(pipe, _domain(texts), method="rp", seeds=texts, n_seeds=30, max_iter=2, n_local=5,
                               random_state=0)
    assert result.count() > 0                     # lower-cased texts would all look alike to this pipeline


def test_a_domain_from_a_model_tokeniser_and_its_vocabulary():
    words = ["", "[UNK]", "the", "cook", "is", "kind", "muslim", "christian", "jewish"]
    index = {w: i for i, w in enumerate(words)}

    def tokenize(texts):
        return [[index.get(w, 1) for w in t.lower().replace("!", "").split()] for t in texts]

    with pytest.warns(UserWarning, match=r"lacks.*'atheist'"):
        domain = TextDomain.for_model(None, {"religion": RELIGION}, tokenizer=tokenize, vocabulary=words, max_len=6,
                                      neighbours=np.full((len(words), 2), -1), k=2)
    ids = domain.validate(["The Muslim cook is kind!"])
    assert ids.tolist() == [[2, 6, 3, 4, 5, 0]]                         # the tokeniser's ids, padded at the end
    assert domain.text(ids) == "the muslim cook is kind"
    assert [domain.text(v) for v in domain.variants(ids)[0]][1:] == ["the christian cook is kind",
                                                                    "the jewish cook is kind"]
    back = TextDomain.from_config(domain.to_config())                  # as a saved result reads it back
    assert back.text(ids) == "the muslim cook is kind" and back.model_tokenizer.padding == "post"
    with pytest.raises(ValueError, match="TextDomain.for_model"):
        back.validate(["the jewish cook"])
    with pytest.raises(ValueError, match=r"fewer than 2 terms.*'hindu'"), pytest.warns(UserWarning):
        TextDomain.for_model(None, {"faith": ["muslim", "hindu"]}, tokenizer=tokenize, vocabulary=words, max_len=6)
    with pytest.raises(ValueError, match="vocabulary= .* and max_len="):
        TextDomain.for_model(None, "religion", tokenizer=tokenize)
    with pytest.raises(ValueError, match="TextVectorization"):
        TextDomain.for_model(object(), "religion")


def test_a_model_tokeniser_pads_and_cuts_at_the_end_and_names_a_wrong_count():
    encode = ModelTokenizer(lambda texts: [[5, 6, 7, 8][: len(t)] for t in texts], 3)
    assert encode(["ab", "abcd"]).tolist() == [[5, 6, 0], [5, 6, 7]]
    with pytest.raises(ValueError, match="returned 1 id rows for 2 texts"):
        ModelTokenizer(lambda texts: [[2]], 3)(["a", "b"])
    assert Vocabulary.from_model_tokens(["<PAD>", "<OOV>", "a"]).tokens == ("<pad>", "<oov>", "a")

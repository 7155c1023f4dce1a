"""Keras text models as users build them: strings in through a ``TextVectorization`` layer, then an Embedding.
Every text method searches them white-box (split at the embedding), and every pair is re-checked on the
user's own strings with the user's own model."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import fairnb
from fairnb.domains import TextDomain

pytestmark = pytest.mark.slow
RELIGION = ("christian", "muslim", "jewish", "buddhist", "atheist")
METHODS = ("adf_asc", "asc", "adf_hf", "hf", "rp")


def _corpus(n=400):
    from fairnb.text import make_template_corpus

    return make_template_corpus(n=n, descriptors={"religion": RELIGION}, biased_against=["muslim"], bias=1.0,
                                random_state=0)


def user_model(texts, labels, kind="lstm", length=12, epochs=3):
    """What a user writes: TextVectorization -> Embedding -> LSTM or Conv1D -> softmax, trained on strings."""
    import keras
    import tensorflow as tf

    keras.utils.set_random_seed(0)
    vectorize = keras.layers.TextVectorization(output_sequence_length=length)
    vectorize.adapt(texts)
    body = ([keras.layers.LSTM(16)] if kind == "lstm" else
            [keras.layers.Conv1D(16, 3, activation="relu"), keras.layers.GlobalMaxPooling1D()])
    model = keras.Sequential([keras.Input((), dtype="string"), vectorize,
                              keras.layers.Embedding(vectorize.vocabulary_size(), 16), *body,
                              keras.layers.Dense(2, activation="softmax")])
    model.compile(keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(tf.constant(texts), np.asarray(labels), epochs=epochs, batch_size=16, verbose=0)
    return model


def decisions(model, texts):
    import tensorflow as tf

    return model.predict(tf.constant(list(texts)), verbose=0).argmax(axis=1)


@pytest.fixture(scope="module")
def data():
    return _corpus()


@pytest.mark.parametrize("kind", ["lstm", "conv1d"])
def test_every_text_method_searches_a_text_vectorization_model_and_its_pairs_hold_on_the_user_strings(data, kind):
    model = user_model(data.texts, data.y, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)                  # every term is in the model's vocabulary
        domain = TextDomain.for_model(model, {"religion": RELIGION})
    assert domain.max_len == 12 and domain.vocab.tokens[:2] == ("<pad>", "<oov>")
    seeds = [t for t in data.texts if "muslim" in t][:40]
    assert (domain.validate(seeds)[:, 0] != 0).all()                    # padded at the end, as the layer pads
    found = {}
    for method in METHODS:
        result = fairnb.run_search(model, domain, method=method, seeds=seeds, n_seeds=20, max_iter=4, n_local=20,
                                   random_state=0)
        found[method] = result.count()
        if result.count():
            texts = domain.decode(result.inputs)["text"]
            counterparts = domain.decode(result.counterparts)["text"]
            assert (decisions(model, texts) != decisions(model, counterparts)).all(), method
    print(kind, found)
    assert sum(found.values()) > 0



def test_a_keras_model_on_ids_with_the_users_tokeniser_is_searched_the_same_way(data):
    import keras

    words = ["", "[UNK]", *sorted({w for t in data.texts for w in t.replace("!", "").replace(".", "").split()})]
    index = {w: i for i, w in enumerate(words)}

    def my_tokenizer(texts):                          # the user's: strings -> ids (0 padding, 1 unknown)
        return [[index.get(w, 1) for w in t.lower().replace("!", "").replace(".", "").split()] for t in texts]

    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((12,), dtype="int32"), keras.layers.Embedding(len(words), 16),
                              keras.layers.Conv1D(16, 3, activation="relu"), keras.layers.GlobalMaxPooling1D(),
                              keras.layers.Dense(2, activation="softmax")])
    model.compile(keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy")
    domain = TextDomain.for_model(model, {"religion": RELIGION}, tokenizer=my_tokenizer, vocabulary=words,
                                  max_len=12)
    model.fit(domain.validate(data.texts), data.y, epochs=3, batch_size=16, verbose=0)
    seeds = [t for t in data.texts if "muslim" in t][:30]
    result = fairnb.run_search(model, domain, method="adf_asc", seeds=seeds, n_seeds=20, max_iter=4, n_local=10,
                               random_state=0)
    assert result.count() > 0
    mine = lambda texts: model.predict(domain.model_tokenizer(texts), verbose=0).argmax(axis=1)    # noqa: E731
    texts, counterparts = domain.decode(result.inputs)["text"], domain.decode(result.counterparts)["text"]
    assert (mine(texts) != mine(counterparts)).all()


def test_what_fairnb_cannot_use_is_named(data):
    import keras

    vectorize = keras.layers.TextVectorization()                 # no output_sequence_length
    vectorize.adapt(data.texts[:50])
    model = keras.Sequential([keras.Input((), dtype="string"), vectorize, keras.layers.Embedding(200, 4),
                              keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(2, activation="softmax")])
    with pytest.raises(ValueError, match="output_sequence_length"):
        TextDomain.for_model(model, {"religion": RELIGION})
    fixed = user_model(data.texts[:50], data.y[:50], "conv1d", epochs=1)
    with pytest.warns(UserWarning, match=r"lacks.*'sikh'"):
        TextDomain.for_model(fixed, {"religion": [*RELIGION, "sikh"]})
    from fairnb.text import Tokenizer, Vocabulary

    vocab = Vocabulary.build([Tokenizer()(t) for t in data.texts[:50]], extra=RELIGION)
    own = TextDomain.with_embedding_neighbours(vocab, np.eye(len(vocab)), {"religion": RELIGION}, 12)
    with pytest.raises(ValueError, match="TextDomain.for_model"):
        fairnb.run_search(fixed, own, method="rp", seeds=data.texts[:20], n_seeds=5)


def test_text_testsgd_reads_the_training_strings_as_the_models_text_vectorization_does(data):
    """TextTestSGD used fairnb's tokeniser on a TextVectorization model: ids padded at the start to the longest
    text, where the model reads its own ids padded at the end to its 12 tokens."""
    from fairnb.group import TextTestSGD
    from fairnb.text import TermGroups, Vocabulary

    model = user_model(data.texts, data.y, "lstm")
    layer = model.layers[0]
    tester = TextTestSGD(terms=TermGroups({"religion": RELIGION}), min_samples=200, random_state=0)
    sampler = tester.setup(data.texts, model=model)
    assert np.array_equal(sampler.ids, layer(np.array(data.texts)).numpy())
    assert np.array_equal(tester.setup([t.split() for t in data.texts[:5]], model=model).ids, sampler.ids[:5])
    with pytest.raises(ValueError, match="not the one given: leave vocab out"):
        tester.setup(data.texts, Vocabulary.build([["the", "muslim"]]), model=model)
    groups = tester.run(model, data.texts, Vocabulary.from_text_vectorization(layer))
    top = groups.top(1).iloc[0]
    assert top.rule_set == 'contains "muslim"' and top.phi_in > top.phi_out + 0.5, groups.top(3)
    with pytest.warns(UserWarning, match=r"vocabulary lacks these sensitive terms.*\['sikh'\]"):
        groups = TextTestSGD(terms=TermGroups({"religion": [*RELIGION, "sikh"]}), min_samples=200,
                             random_state=0).run(model, data.texts)
    top = groups.top(1).iloc[0]
    assert top.rule_set == 'contains "muslim"' and top.phi_in > top.phi_out + 0.5, groups.top(3)

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


"""fairnb.text models: ADF's LSTM/GRU classifier, the white-box adapter on token ids, black-box text models."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.tf

V, L, D = 12, 6, 8


@pytest.fixture(scope="module")
def keras():
    import keras

    return keras


@pytest.fixture(scope="module")
def embeddings():
    return np.random.default_rng(0).normal(size=(V, D)).astype(np.float32)


@pytest.fixture(scope="module")
def ids():
    ids = np.random.default_rng(1).integers(1, V, size=(40, L)).astype(np.int32)
    ids[::3, :2] = 0                                    # some padding at the front
    return ids


@pytest.fixture(scope="module")
def model(embeddings):
    from fairnb.text.keras_model import KerasTextModel, build_text_classifier

    return KerasTextModel(build_text_classifier(embeddings, L))


def test_the_papers_architecture(keras, embeddings):
    from fairnb.text.keras_model import build_text_classifier

    net = build_text_classifier(embeddings, L, cell="gru")
    kinds = [type(layer).__name__ for layer in net.layers]
    assert kinds == ["Embedding", "GRU", "GRU", "GRU", "Dense"]
    assert [layer.units for layer in net.layers[1:4]] == [10, 10, 10] and net.layers[-1].units == 2
    assert not net.layers[0].trainable
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(net.layers[0].embeddings), embeddings)
    with pytest.raises(ValueError, match="cell must be one of"):
        build_text_classifier(embeddings, L, cell="transformer")


def test_adapter_predicts_like_the_model_and_from_embeddings(model, ids):
    expected = np.asarray(model.model(ids, training=False))
    np.testing.assert_allclose(model.predict_proba(ids), expected, atol=1e-5)
    np.testing.assert_allclose(model.predict_proba_embedded(model.embed(ids)), expected, atol=1e-5)
    assert model.embed(ids).shape == (len(ids), L, D)


def test_embedding_gradient_matches_finite_differences(model, ids):
    rng = np.random.default_rng(2)
    classes = rng.integers(0, 2, len(ids))
    grads, proba = model.embedding_gradient(ids, classes, of="loss")
    assert grads.shape == (len(ids), L, D)
    np.testing.assert_allclose(proba, model.predict_proba(ids), atol=1e-5)
    direction = rng.normal(size=grads.shape)
    E, h = model.embed(ids).astype(np.float64), 1e-2

    def loss(emb):
        p = model.predict_proba_embedded(emb)
        return -np.log(p[np.arange(len(p)), classes])

    numeric = (loss(E + h * direction) - loss(E - h * direction)) / (2 * h)
    analytic = (grads * direction).sum(axis=(1, 2))
    np.testing.assert_allclose(analytic, numeric, rtol=0.05, atol=2e-4)
    g_proba, _ = model.embedding_gradient(ids, classes, of="proba")
    p_true = proba[np.arange(len(ids)), classes]
    # d p / dE = -p * d(-log p) / dE
    np.testing.assert_allclose(g_proba, -p_true[:, None, None] * grads, rtol=1e-3, atol=1e-6)


def test_one_trace_per_function_whatever_the_batch_size(model, ids):
    for n in (1, 7, len(ids)):
        model.predict_proba(ids[:n])
        model.embedding_gradient(ids[:n], 0)
        model.predict_proba_embedded(model.embed(ids[:n]))
    before = model.tracing_count()
    for n in (2, 13, 3):
        model.predict_proba(ids[:n])
        model.embedding_gradient(ids[:n], 1)
    assert model.tracing_count() == before <= 4       # at most one graph per function (proba, embedded, 2 grads)


def test_warm_up_traces_what_a_search_calls_so_its_budget_starts_after(embeddings, ids):
    from fairnb.text.keras_model import KerasTextModel, build_text_classifier

    fresh = KerasTextModel(build_text_classifier(embeddings, L))
    fresh.warm_up()
    traced = fresh.tracing_count()
    fresh.predict_proba(ids)
    fresh.embedding_gradient(ids, 1, of="loss")
    assert traced >= 2 and fresh.tracing_count() == traced      # a search's calls trace nothing new


def test_masked_model_ignores_padding(embeddings, ids):
    from fairnb.text.keras_model import KerasTextModel, build_text_classifier

    masked = KerasTextModel(build_text_classifier(embeddings, L, mask_padding=True))
    np.testing.assert_allclose(masked.predict_proba(ids), np.asarray(masked.model(ids, training=False)), atol=1e-5)
    grads, _ = masked.embedding_gradient(ids, 1)
    assert not grads[ids == 0].any() and grads[ids != 0].any()


def test_bad_inputs_and_unsupported_models(model, keras, ids):
    from fairnb.text.keras_model import KerasTextModel

    with pytest.raises(ValueError, match=f"takes texts of {L} token ids"):
        model.predict_proba(ids[:, :3])
    with pytest.raises(ValueError, match=r"token ids must lie in 0..11"):
        model.predict_proba(ids + V)
    with pytest.raises(ValueError, match="2-d integer"):
        model.predict_proba(ids + 0.5)
    np.testing.assert_allclose(model.predict_proba(ids.astype(float)), model.predict_proba(ids))   # whole floats
    with pytest.raises(ValueError, match="of must be"):
        model.embedding_gradient(ids, 0, of="logit")
    dense = keras.Sequential([keras.Input((L,)), keras.layers.Dense(2, activation="softmax")])
    with pytest.raises(ValueError, match="first layer is a keras.layers.Embedding"):
        KerasTextModel(dense)
    inp = keras.Input((L,), dtype="int32")
    e = keras.layers.Embedding(V, D)(inp)
    branched = keras.Model(inp, keras.layers.Dense(2, activation="softmax")(
        keras.layers.Concatenate()([keras.layers.LSTM(3)(e), keras.layers.GRU(3)(e)])))
    with pytest.raises(ValueError, match="chain of single-input layers"):
        KerasTextModel(branched)


def test_black_box_text_models_get_decoded_strings():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from fairnb.text import TextFunctionModel, Tokenizer, Vocabulary, wrap_text_model

    texts = ["the muslim cook is kind .", "the christian cook is kind .", "the muslim cook is rude .",
             "the christian cook is rude ."]
    pipe = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(texts, [0, 0, 1, 1])
    tok = Tokenizer()
    vocab = Vocabulary.build(tok.tokenize_all(texts))
    ids = vocab.encode(tok.tokenize_all(texts), 8)
    model = wrap_text_model(pipe, vocab)
    assert isinstance(model, TextFunctionModel) and model.texts(ids[:1]) == ["the muslim cook is kind."]
    np.testing.assert_allclose(model.predict_proba(ids), pipe.predict_proba([Tokenizer.detokenize(t) for t in
                                                                              tok.tokenize_all(texts)]))
    keyword = wrap_text_model(lambda batch: [float("rude" in t) for t in batch], vocab)
    assert keyword.predict_proba(ids)[:, 1].tolist() == [0.0, 0.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="probabilit"):
        wrap_text_model(lambda batch: [5.0] * len(batch), vocab).predict_proba(ids)
    with pytest.raises(TypeError, match="callable on a list of strings"):
        TextFunctionModel(42, vocab)


def test_keras_models_are_wrapped_white_box_with_their_vocabulary(embeddings):
    from fairnb.text import Vocabulary, wrap_text_model
    from fairnb.text.keras_model import KerasTextModel, build_text_classifier

    net = build_text_classifier(embeddings, L)
    vocab = Vocabulary(("<pad>", "<oov>", *[f"w{i}" for i in range(V - 2)]))
    assert isinstance(wrap_text_model(net, vocab), KerasTextModel)
    with pytest.raises(ValueError, match="embedding has 12 rows but the vocabulary 13"):
        wrap_text_model(net, vocab.extended(["extra"]))


@pytest.mark.slow
def test_a_small_lstm_trained_on_the_planted_corpus_treats_the_planted_term_differently():
    from fairnb.text import Tokenizer, Vocabulary, group_ids, make_template_corpus, protected_variants
    from fairnb.text.glove import embedding_matrix
    from fairnb.text.keras_model import fit_text_classifier

    probe = make_template_corpus(n=200, bias=0.0, random_state=5)
    positive = ~probe.frame["negative"].to_numpy()
    results = {}
    for bias in (1.0, 0.0):
        data = make_template_corpus(n=800, bias=bias, biased_against=["muslim"], random_state=0)
        groups = data.info["groups"]
        tok = Tokenizer(groups.all_terms)
        vocab = Vocabulary.build(data.tokens(tok), extra=groups.all_terms)
        model = fit_text_classifier(vocab.encode(data.tokens(tok), 10), data.y, embedding_matrix(vocab)[0],
                                    layers=1, units=16, epochs=4, batch_size=32, random_state=0)
        ids = vocab.encode(probe.tokens(tok), 10)
        variants = protected_variants(ids, group_ids(vocab, groups["religion"]))
        p_seed, p_var = model.predict_proba(ids)[:, 1], model.predict_proba(variants.ids)[:, 1]
        to_muslim = positive[variants.row] & (variants.new == vocab.id("muslim"))
        to_other = positive[variants.row] & (variants.new != vocab.id("muslim"))
        flips = (p_seed[variants.row] > 0.5) != (p_var > 0.5)
        results[bias] = (p_var[to_muslim].mean(), p_var[to_other].mean(), flips.sum())
    muslim, other, flips = results[1.0]
    assert muslim > 0.8 and other < 0.2 and flips > 0       # kind texts become toxic when about muslims
    muslim0, other0, flips0 = results[0.0]
    assert abs(muslim0 - other0) < 0.2 and flips0 < flips / 5


@pytest.mark.slow
def test_counterfactual_augmentation_trains_a_twin_blind_to_the_planted_term():
    """The recipe of RedditBias's unbiased twin (``benchmarks/twins.py``): trained on the planted labels
    counterfactually augmented, the model's outputs on held-out texts barely move when "muslim" is swapped
    in, where the same model trained on the planted labels as they are turns kind texts toxic."""
    from fairnb.domains import TextDomain
    from fairnb.text import Tokenizer, Vocabulary, counterfactual_augmentation, make_template_corpus
    from fairnb.text.glove import embedding_matrix
    from fairnb.text.keras_model import fit_text_classifier

    religion = {"religion": ["christian", "muslim", "jewish"]}
    data = make_template_corpus(n=600, descriptors=religion, bias=1.0, biased_against=["muslim"], random_state=0)
    probe = make_template_corpus(n=200, descriptors=religion, bias=0.0, random_state=5)
    tok = Tokenizer(religion["religion"])
    vocab = Vocabulary.build(data.tokens(tok) + probe.tokens(tok))
    dom = TextDomain(vocab, religion, 10, neighbours=np.full((len(vocab), 1), -1))
    ids, held_out = vocab.encode(data.tokens(tok), 10), vocab.encode(probe.tokens(tok), 10)
    flat, owner = dom.variants(held_out)
    to_muslim = flat[len(held_out):][(flat[len(held_out):] == vocab.id("muslim")).any(axis=1)]
    rows = owner[len(held_out):][(flat[len(held_out):] == vocab.id("muslim")).any(axis=1)]
    shift = {}
    for name, (X, y) in {"planted": (ids, data.y), "augmented": counterfactual_augmentation(dom, ids, data.y)}.items():
        model = fit_text_classifier(X, y, embedding_matrix(vocab)[0], layers=1, units=16, epochs=4, batch_size=32,
                                    random_state=0)
        shift[name] = np.abs(model.predict_proba(to_muslim)[:, 1] - model.predict_proba(held_out[rows])[:, 1]).mean()
    assert shift["planted"] > 0.3 and shift["augmented"] < shift["planted"] / 5


def _live_func_graphs() -> int:
    import gc

    from tensorflow.python.framework.func_graph import FuncGraph

    gc.collect()
    return sum(isinstance(o, FuncGraph) for o in gc.get_objects())


@pytest.mark.parametrize("how", ["fit", "logit_pairing"])
def test_a_trained_models_graphs_go_with_it(embeddings, ids, how):
    # issue #22: TensorFlow's gradient registry kept every training's traced graphs (74 for a 3-layer LSTM, about
    # 35 MB at tutorial 04's sizes) after the model was freed; tutorial 04's solutions train four per Run All
    from fairnb.text.keras_model import fit_text_classifier

    y = np.arange(len(ids)) % 2

    def train():
        pairing = None if how == "fit" else (lambda X, index, rng: (np.arange(len(X)), X[:, ::-1]))
        model = fit_text_classifier(ids, y, embeddings, units=4, layers=2, epochs=1, logit_pairing=pairing)
        assert model.predict_proba(ids[:3]).shape == (3, 2)

    train()                                   # anything TensorFlow or Keras traces once per process
    first = _live_func_graphs()
    train()
    assert _live_func_graphs() == first

"""A BERT encoder in Keras from a weight dict in the upstream (Hugging Face) naming, and its numpy reference.

:func:`bert_encoder` builds the encoder of a BERT checkpoint (``model.safetensors`` read by ``safetensors``, or
the dict :func:`random_bert_weights` makes for a tiny test model) as a functional ``keras.Model`` on
``(piece ids, attention mask)`` -> mean-pooled sentence vector, with the exact (erf) GELU the configuration
names (keras-hub's BERT uses the tanh approximation: 2e-4 off). The token embedding is a
``keras.layers.Embedding`` named ``"token_embedding"`` applied to the ids input, so
:class:`fairnb.text.subword.SubwordTextModel` can take gradients at each piece's embedding.
:func:`reference_forward` is the same computation in float64 numpy (the tests compare the two).

Example
-------
>>> weights, config = random_bert_weights(vocab_size=20, hidden=8, layers=1, heads=2, intermediate=16)
>>> ids = np.array([[2, 5, 7, 3, 0]]); mask = ids != 0
>>> reference_forward(weights, config, ids, mask).shape
(1, 8)
>>> bert_encoder(weights, config, max_len=5)([ids, mask]).shape                 # doctest: +SKIP
(1, 8)
"""
from __future__ import annotations

import math

import numpy as np

PREFIX = "encoder.layer"


def random_bert_weights(vocab_size: int, hidden: int = 16, layers: int = 2, heads: int = 2,
                        intermediate: int = 32, max_positions: int = 64, *, scale: float = 0.5,
                        random_state: int = 0) -> tuple[dict, dict]:
    """``(weights, config)`` of a random BERT in the upstream naming (a tiny stand-in for tests)."""
    rng = np.random.default_rng(random_state)

    def normal(*shape):
        return (scale * rng.normal(size=shape) / math.sqrt(shape[-1])).astype(np.float32)

    w = {"embeddings.word_embeddings.weight": normal(vocab_size, hidden) * math.sqrt(hidden),
         "embeddings.position_embeddings.weight": normal(max_positions, hidden),
         "embeddings.token_type_embeddings.weight": normal(2, hidden),
         "embeddings.LayerNorm.weight": np.ones(hidden, np.float32),
         "embeddings.LayerNorm.bias": np.zeros(hidden, np.float32)}
    for i in range(layers):
        p = f"{PREFIX}.{i}."
        for name in ("query", "key", "value"):
            w[f"{p}attention.self.{name}.weight"] = normal(hidden, hidden)
            w[f"{p}attention.self.{name}.bias"] = normal(hidden)
        w[f"{p}attention.output.dense.weight"], w[f"{p}attention.output.dense.bias"] = normal(hidden, hidden), normal(hidden)
        w[f"{p}intermediate.dense.weight"], w[f"{p}intermediate.dense.bias"] = normal(intermediate, hidden), normal(intermediate)
        w[f"{p}output.dense.weight"], w[f"{p}output.dense.bias"] = normal(hidden, intermediate), normal(hidden)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[f"{p}{norm}.weight"] = (1 + 0.1 * rng.normal(size=hidden)).astype(np.float32)
            w[f"{p}{norm}.bias"] = (0.1 * rng.normal(size=hidden)).astype(np.float32)
    config = {"hidden_size": hidden, "num_hidden_layers": layers, "num_attention_heads": heads,
              "intermediate_size": intermediate, "hidden_act": "gelu", "layer_norm_eps": 1e-12,
              "max_position_embeddings": max_positions, "vocab_size": vocab_size}
    return w, config


def _check_config(config: dict) -> None:
    if config.get("hidden_act", "gelu") != "gelu":
        raise ValueError(f"only BERT with hidden_act='gelu' is supported, the config says {config['hidden_act']!r}")
    if config["hidden_size"] % config["num_attention_heads"]:
        raise ValueError("hidden_size must be a multiple of num_attention_heads")


# ---------------------------------------------------------------------- numpy reference (float64)
def _layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps) * w + b


def _gelu(x):
    from scipy.special import erf

    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def reference_forward(weights: dict, config: dict, ids, mask) -> np.ndarray:
    """``(n, hidden)`` float64 mean-pooled BERT sentence vectors of piece ``ids`` ``(n, P)`` with attention
    ``mask`` (True at real pieces): the upstream computation, written out in numpy."""
    _check_config(config)
    w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    ids, mask = np.asarray(ids), np.asarray(mask, dtype=bool)
    eps, heads = config["layer_norm_eps"], config["num_attention_heads"]
    n, P = ids.shape
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:P]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    d = x.shape[-1] // heads
    bias = np.where(mask, 0.0, -1e9)[:, None, None, :]
    for i in range(config["num_hidden_layers"]):
        p = f"{PREFIX}.{i}."

        def dense(h, name):
            return h @ w[f"{p}{name}.weight"].T + w[f"{p}{name}.bias"]

        q, k, v = (dense(x, f"attention.self.{s}").reshape(n, P, heads, d).transpose(0, 2, 1, 3)
                   for s in ("query", "key", "value"))
        a = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + bias
        a = np.exp(a - a.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        att = (a @ v).transpose(0, 2, 1, 3).reshape(n, P, heads * d)
        x = _layer_norm(x + dense(att, "attention.output.dense"), w[f"{p}attention.output.LayerNorm.weight"],
                        w[f"{p}attention.output.LayerNorm.bias"], eps)
        h = dense(_gelu(dense(x, "intermediate.dense")), "output.dense")
        x = _layer_norm(x + h, w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"], eps)
    m = mask[..., None].astype(np.float64)
    return (x * m).sum(1) / np.maximum(m.sum(1), 1e-9)


# ---------------------------------------------------------------------- Keras
def _layers():
    """The encoder's custom Keras layers (defined on first use: ``import fairnb`` loads no Keras)."""
    import keras
    from keras import ops

    class PositionTypeEmbedding(keras.layers.Layer):
        """Adds the position embeddings of positions ``0..P-1`` and the token-type-0 embedding."""

        def __init__(self, max_positions, hidden, **kwargs):
            super().__init__(**kwargs)
            self.positions = self.add_weight(shape=(max_positions, hidden), name="positions", trainable=False)
            self.type0 = self.add_weight(shape=(hidden,), name="type0", trainable=False)

        def call(self, x):
            return x + self.positions[:ops.shape(x)[1]][None] + self.type0

    class MaskedMean(keras.layers.Layer):
        """The mean of the vectors at the real pieces (mean pooling)."""

        def call(self, x, mask):
            m = ops.expand_dims(ops.cast(mask, x.dtype), -1)
            return ops.sum(x * m, axis=1) / ops.maximum(ops.sum(m, axis=1), 1e-9)

    class AttentionMask(keras.layers.Layer):
        """``(n, P)`` padding mask -> ``(n, P, P)``: every query attends to the real pieces."""

        def call(self, mask):
            m = ops.cast(mask, "bool")
            return ops.logical_and(ops.ones_like(m)[:, :, None], m[:, None, :])

    return PositionTypeEmbedding, MaskedMean, AttentionMask


def bert_encoder(weights: dict, config: dict, max_len: int, *, name: str = "bert_encoder"):
    """A frozen functional ``keras.Model`` on ``[piece ids (n, max_len) int32, attention mask (n, max_len)]`` ->
    ``(n, hidden)`` mean-pooled sentence vectors, with the weights of ``weights`` (upstream naming)."""
    import keras

    _check_config(config)
    PositionTypeEmbedding, MaskedMean, AttentionMask = _layers()
    hidden, heads = config["hidden_size"], config["num_attention_heads"]
    eps, d, L = config["layer_norm_eps"], hidden // heads, int(max_len)
    if L > config["max_position_embeddings"]:
        raise ValueError(f"max_len={L} exceeds the model's {config['max_position_embeddings']} positions")
    w = {k: np.asarray(v, dtype=np.float32) for k, v in weights.items()}
    ids = keras.Input((L,), dtype="int32", name="piece_ids")
    mask = keras.Input((L,), dtype="bool", name="attention_mask")
    token = keras.layers.Embedding(*w["embeddings.word_embeddings.weight"].shape, name="token_embedding")
    x = token(ids)
    positions = PositionTypeEmbedding(config["max_position_embeddings"], hidden, name="position_type_embedding")
    x = positions(x)

    def norm(x, key):
        layer = keras.layers.LayerNormalization(epsilon=eps, name=key.replace(".", "_"))
        out = layer(x)
        layer.set_weights([w[f"{key}.weight"], w[f"{key}.bias"]])
        return out

    def dense(x, key, units, activation=None):
        layer = keras.layers.Dense(units, activation=activation, name=key.replace(".", "_"))
        out = layer(x)
        layer.set_weights([w[f"{key}.weight"].T, w[f"{key}.bias"]])
        return out

    x = norm(x, "embeddings.LayerNorm")
    attention_mask = AttentionMask(name="attention_mask_2d")(mask)
    for i in range(config["num_hidden_layers"]):
        p = f"{PREFIX}.{i}."
        mha = keras.layers.MultiHeadAttention(heads, d, name=f"attention_{i}")
        att = mha(x, x, attention_mask=attention_mask)
        parts = []
        for s in ("query", "key", "value"):
            parts += [w[f"{p}attention.self.{s}.weight"].T.reshape(hidden, heads, d),
                      w[f"{p}attention.self.{s}.bias"].reshape(heads, d)]
        mha.set_weights([*parts, w[f"{p}attention.output.dense.weight"].T.reshape(heads, d, hidden),
                         w[f"{p}attention.output.dense.bias"]])
        x = norm(keras.layers.Add()([x, att]), f"{p}attention.output.LayerNorm")
        h = dense(dense(x, f"{p}intermediate.dense", config["intermediate_size"],
                        activation="gelu"),               # Keras 3's gelu is the exact (erf) one
                  f"{p}output.dense", hidden)
        x = norm(keras.layers.Add()([x, h]), f"{p}output.LayerNorm")
    pooled = MaskedMean(name="mean_pooling")(x, mask)
    model = keras.Model([ids, mask], pooled, name=name)
    token.set_weights([w["embeddings.word_embeddings.weight"]])
    positions.set_weights([w["embeddings.position_embeddings.weight"], w["embeddings.token_type_embeddings.weight"][0]])
    model.trainable = False
    model.reads_masked_pieces_only = True      # padding never reaches the output: a batch may be cut to length
    return model


def bert_classifier(encoder, n_classes: int = 2, *, head=None, name: str = "bert_classifier"):
    """The ``encoder`` followed by a softmax ``Dense`` head (``head``: its ``(kernel, bias)``, else random)."""
    import keras

    dense = keras.layers.Dense(int(n_classes), activation="softmax", name="head")
    out = dense(encoder.output)       # one flat graph: the token embedding stays a layer of the classifier
    if head is not None:
        dense.set_weights([np.asarray(h, dtype=np.float32) for h in head])
    model = keras.Model(encoder.inputs, out, name=name)
    model.reads_masked_pieces_only = bool(getattr(encoder, "reads_masked_pieces_only", False))
    return model


def sentence_vectors(encoder, piece_ids, mask, batch_size: int = 64) -> np.ndarray:
    """``(n, hidden)`` float64 sentence vectors of the texts ``(piece_ids, mask)``; an encoder that reads only its
    masked pieces (:func:`bert_encoder`) is read cut to each chunk's longest text
    (:func:`fairnb.text.subword.by_length`)."""
    ids, mask = np.asarray(piece_ids, dtype=np.int32), np.asarray(mask, dtype=bool)
    if not getattr(encoder, "reads_masked_pieces_only", False) or not len(ids):
        return np.asarray(encoder.predict([ids, mask], batch_size=batch_size, verbose=0), dtype=np.float64)
    import tensorflow as tf

    from .subword import by_length

    spec = [tf.TensorSpec([None, None], tf.int32), tf.TensorSpec([None, None], tf.bool)]
    return by_length(tf.function(lambda i, m: encoder([i, m], training=False), input_signature=spec),
                     batch_size, ids, mask)


def fit_head(encoder, piece_ids, mask, y, *, C: float = 1.0, batch_size: int = 64, name: str = "bert_classifier",
             vectors=None):
    """A classifier: the frozen ``encoder`` and a softmax head fitted on its sentence vectors of the texts
    ``(piece_ids, mask)`` with labels ``y`` (a logistic regression of strength ``C``, seconds): the Keras
    model :func:`bert_classifier` builds, with ``.head_accuracy`` its accuracy on these texts. ``vectors``: the
    texts' :func:`sentence_vectors` when already computed (several heads on the same texts), else computed here."""
    from sklearn.linear_model import LogisticRegression

    y = np.asarray(y).astype(np.int64)
    classes = np.unique(y)
    if len(classes) < 2 or classes.min() < 0 or len(y) != len(piece_ids):
        raise ValueError(f"y must hold one label 0..k-1 per text, of at least 2 classes; got {len(y)} labels for "
                         f"{len(piece_ids)} texts, classes {classes.tolist()}")
    X = sentence_vectors(encoder, piece_ids, mask, batch_size) if vectors is None else np.asarray(vectors, np.float64)
    if len(X) != len(y):
        raise ValueError(f"vectors has {len(X)} rows for {len(y)} texts")
    n_classes = int(classes.max()) + 1
    lr = LogisticRegression(C=C, max_iter=1000).fit(X, y)
    if n_classes == 2:             # softmax over (-z/2, z/2) is the sigmoid of z
        kernel = np.column_stack([-lr.coef_[0], lr.coef_[0]]) / 2
        bias = np.array([-lr.intercept_[0], lr.intercept_[0]]) / 2
    else:
        kernel, bias = np.zeros((X.shape[1], n_classes)), np.zeros(n_classes)
        kernel[:, lr.classes_], bias[lr.classes_] = lr.coef_.T, lr.intercept_
    model = bert_classifier(encoder, n_classes, head=(kernel, bias), name=name)
    model.head_accuracy = float(lr.score(X, y))
    return model

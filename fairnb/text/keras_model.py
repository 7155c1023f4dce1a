"""Keras text classifiers: ADF's architecture, its trainer, and the white-box adapter the search uses.

The paper's model (digest §4.3, §7.2.12): token ids -> GloVe-50d embedding (frozen, so the similar-word
geometry is the model's geometry) -> 3 stacked LSTM (or GRU) layers of 10 units -> the last state ->
dense -> softmax over 2 classes. :func:`build_text_classifier` builds it, :func:`fit_text_classifier` builds
and trains it and returns the adapter.

:class:`KerasTextModel` wraps any Keras classifier whose first layer is an ``Embedding`` followed by a chain
of layers (Sequential-like). It splits the model into the embedding lookup and ``head(embedded)`` and
serves, each as ONE ``tf.function`` traced once with a fixed input signature (batches of any size reuse
it; eager gradients are 20-60x slower):

* ``predict_proba(ids)``: class probabilities of ``(n, L)`` int id batches (the fairnb model protocol);
* ``predict_proba_embedded(E, mask)``: the forward pass from per-token embedding vectors ``(n, L, d)``;
* ``embedding_gradient(ids, classes, of="loss")``: the gradient of the cross-entropy (or of the class
  probability) w.r.t. each token's embedding vector, ``(n, L, d)``, plus the probabilities of the same
  forward pass.

TensorFlow is imported when a model is built or wrapped, never by ``import fairnb``.

Example
-------
>>> import numpy as np
>>> emb = np.random.default_rng(0).normal(size=(20, 50)).astype("float32")
>>> model = fit_text_classifier(np.array([[0, 2, 3], [0, 4, 5]] * 8), np.array([0, 1] * 8), emb,
...                             epochs=1, random_state=0)                       # doctest: +SKIP
>>> model.embedding_gradient(np.array([[0, 2, 3]]), [1]).shape                  # doctest: +SKIP
(1, 3, 50)
"""
from __future__ import annotations

import inspect

import numpy as np

from ..models.gradient_registry import training_graphs_released
from ..models.keras import class_indices, class_loss, logits_of, output_kind, run_batched, two_columns
from .vocabulary import PAD_ID, as_id_array

CELLS = ("lstm", "gru")


def _keras():
    import keras

    return keras


def build_text_classifier(embeddings: np.ndarray, max_len: int, *, cell: str = "lstm", units: int = 10,
                          layers: int = 3, n_classes: int = 2, trainable_embedding: bool = False,
                          mask_padding: bool = False):
    """ADF's text classifier as an (uncompiled) ``keras.Sequential``.

    ``embeddings``: ``(vocabulary size, d)`` initial embedding matrix (e.g.
    :func:`fairnb.text.glove.embedding_matrix`); frozen unless ``trainable_embedding``. ``mask_padding``
    makes the recurrent layers skip padding (``mask_zero``; about +50 % training time).
    """
    if cell not in CELLS:
        raise ValueError(f"cell must be one of {CELLS}, got {cell!r}")
    embeddings = np.asarray(embeddings, dtype=np.float32)
    if embeddings.ndim != 2 or len(embeddings) < 2:
        raise ValueError(f"embeddings must be a (vocabulary size, dim) matrix, got shape {embeddings.shape}")
    if int(max_len) < 1 or int(units) < 1 or int(layers) < 1 or int(n_classes) < 2:
        raise ValueError("max_len, units and layers must be >= 1 and n_classes >= 2, got "
                         f"{max_len}, {units}, {layers}, {n_classes}")
    keras = _keras()
    rnn = keras.layers.LSTM if cell == "lstm" else keras.layers.GRU
    model = keras.Sequential([
        keras.Input((int(max_len),), dtype="int32"),
        keras.layers.Embedding(len(embeddings), embeddings.shape[1], mask_zero=mask_padding,
                               trainable=trainable_embedding, name="embedding"),
        *[rnn(int(units), return_sequences=i < layers - 1, name=f"{cell}_{i}") for i in range(int(layers))],
        keras.layers.Dense(int(n_classes), activation="softmax", name="output"),
    ])
    model.layers[0].set_weights([embeddings])
    return model


def fit_text_classifier(ids: np.ndarray, y: np.ndarray, embeddings: np.ndarray, *, cell: str = "lstm",
                        units: int = 10, layers: int = 3, epochs: int = 5, batch_size: int = 64,
                        learning_rate: float = 0.01, class_weight: str | None = "balanced",
                        validation_data=None, logit_pairing=None, pairing_strength: float = 1.0,
                        random_state: int | None = 0, verbose: int = 0) -> "KerasTextModel":
    """Build ADF's classifier for ``(n, L)`` id batches and train it (Adam, cross-entropy).

    ``class_weight="balanced"`` weights the classes inversely to their frequency (the paper's confusion
    counts suggest class-balanced training). ``logit_pairing``: a counterfactual sampler (e.g.
    :func:`fairnb.text.term_swaps` of a domain) to train with counterfactual logit pairing of strength
    ``pairing_strength`` (:func:`fairnb.models.logit_pairing.fit_with_logit_pairing`). Returns a
    :class:`KerasTextModel`; ``.history`` holds the training history.
    """
    ids = as_id_array(ids)
    y = np.asarray(y).astype(np.int64)
    if y.shape != (len(ids),):
        raise ValueError(f"y must hold one label per text: {len(ids)} texts, y of shape {y.shape}")
    classes = np.unique(y)
    if len(classes) < 2 or classes.min() < 0:
        raise ValueError(f"y must hold labels 0..k-1 of at least 2 classes, got {classes.tolist()}")
    if class_weight not in (None, "balanced"):
        raise ValueError(f"class_weight must be 'balanced' or None, got {class_weight!r}")
    if logit_pairing is not None and validation_data is not None:
        raise ValueError("validation_data is not supported with logit_pairing; evaluate the returned model instead")
    keras = _keras()
    if random_state is not None:
        keras.utils.set_random_seed(int(random_state))
    n_classes = int(classes.max()) + 1
    model = build_text_classifier(embeddings, ids.shape[1], cell=cell, units=units, layers=layers,
                                  n_classes=n_classes)
    weights = None
    if class_weight == "balanced":
        counts = np.bincount(y, minlength=n_classes)
        weights = {c: len(y) / (n_classes * counts[c]) for c in range(n_classes) if counts[c]}
    if logit_pairing is None:
        model.compile(optimizer=keras.optimizers.Adam(learning_rate), loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"])
        with training_graphs_released():    # else TensorFlow keeps the traced train step for the process's life
            history = model.fit(ids, y, epochs=int(epochs), batch_size=int(batch_size), class_weight=weights,
                                validation_data=validation_data, verbose=verbose, shuffle=True).history
    else:
        from ..models.logit_pairing import fit_with_logit_pairing

        history = fit_with_logit_pairing(model, ids, y, logit_pairing, strength=pairing_strength, epochs=epochs,
                                         batch_size=batch_size, learning_rate=learning_rate, class_weight=weights,
                                         random_state=random_state)
    adapter = KerasTextModel(model)
    adapter.history = history
    return adapter


def embedding_of(model) -> np.ndarray | None:
    """The ``(vocabulary size, d)`` matrix of a Keras text model's ``Embedding`` (its first layer, or the one after
    a ``TextVectorization``), else None."""
    from ..models import is_keras

    if not is_keras(model):
        return None
    keras = _keras()
    layers = _layers_after_vectorization(model)
    if not layers or not isinstance(layers[0], keras.layers.Embedding):
        return None
    return np.asarray(keras.ops.convert_to_numpy(layers[0].embeddings), dtype=np.float32)


def _layers_after_vectorization(model) -> list:
    """The model's layers without its Input layer and a first ``TextVectorization`` (strings -> ids)."""
    from .model_tokenizer import text_vectorization_of

    keras = _keras()
    layers = [layer for layer in model.layers if not isinstance(layer, keras.layers.InputLayer)]
    return layers[1:] if text_vectorization_of(model) is not None else layers


class KerasTextModel:
    """A Keras text classifier as a white-box fairnb model on token ids: its first layer is an ``Embedding``
    (ids in), or a ``TextVectorization`` followed by an ``Embedding`` (strings in: the model is split at the
    embedding, and ``text_vectorization`` is the layer that turns strings into the ids this adapter reads).

    >>> adapter = KerasTextModel(model)   # Input(dtype="string") -> TextVectorization -> Embedding  # doctest: +SKIP
    >>> adapter.predict_proba(domain.validate(["the muslim cook"]))                 # doctest: +SKIP
    """

    def __init__(self, model, batch_size: int = 4096):
        import tensorflow as tf

        keras = _keras()
        if not isinstance(model, keras.Model):
            raise TypeError(f"KerasTextModel needs a keras.Model, got {type(model).__name__}")
        from .model_tokenizer import ModelTokenizer, text_vectorization_of

        self.text_vectorization = text_vectorization_of(model)
        layers = _layers_after_vectorization(model)
        if not layers or not isinstance(layers[0], keras.layers.Embedding):
            first = "TextVectorization's next layer" if self.text_vectorization is not None else "first layer"
            raise ValueError(f"KerasTextModel needs a model whose {first} is a keras.layers.Embedding (token ids in), "
                             f"got {type(layers[0]).__name__ if layers else 'none'}; wrap other text models with "
                             "TextFunctionModel")
        self.model = model
        self.batch_size = int(batch_size)
        self._embedding, self._head = layers[0], layers[1:]
        self.output, self.n_classes = output_kind(model)
        if not self._head or not isinstance(self._head[-1], (keras.layers.Dense, keras.layers.Activation)):
            raise ValueError("the model's last layer must be a Dense or Activation layer with a sigmoid/softmax")
        if self.text_vectorization is not None:
            self.max_len = ModelTokenizer.of_text_vectorization(self.text_vectorization).max_len
        else:
            shape = model.inputs[0].shape
            self.max_len = None if len(shape) < 2 or shape[1] is None else int(shape[1])
        self.embedding_matrix = np.asarray(keras.ops.convert_to_numpy(self._embedding.embeddings), dtype=np.float32)
        self.vocab_size, self.dim = self.embedding_matrix.shape
        self._masked = bool(getattr(self._embedding, "mask_zero", False))
        ids_spec = tf.TensorSpec([None, self.max_len], tf.int32)
        emb_spec = tf.TensorSpec([None, self.max_len, self.dim], tf.float32)
        mask_spec = tf.TensorSpec([None, self.max_len], tf.bool)
        cls_spec = tf.TensorSpec([None], tf.int32)
        self._proba_fn = tf.function(self._proba_ids_graph, input_signature=[ids_spec])
        self._embedded_fn = tf.function(self._proba_embedded_graph, input_signature=[emb_spec, mask_spec])
        self._grad_fns = {of: tf.function(lambda ids, c, of=of: self._grad_graph(ids, c, of),
                                          input_signature=[ids_spec, cls_spec]) for of in ("loss", "proba")}
        self._check_chain()

    def __repr__(self):
        cells = [type(layer).__name__ for layer in self._head]
        return f"KerasTextModel(vocab {self.vocab_size} x {self.dim}, {'-'.join(cells)}, {self.output})"

    # ------------------------------------------------------------------ graphs
    def _logits(self, embedded, mask):
        h = embedded
        for layer in self._head[:-1]:
            takes_mask = mask is not None and len(h.shape) == 3 and "mask" in inspect.signature(layer.call).parameters
            h = layer(h, mask=mask, training=False) if takes_mask else layer(h, training=False)
        return logits_of(self._head[-1], h)

    def _probabilities(self, z):
        import tensorflow as tf

        return two_columns(tf.nn.sigmoid(z) if self.output == "sigmoid" else tf.nn.softmax(z), self.output)

    def _mask_of(self, ids):
        return ids != PAD_ID if self._masked else None

    def _proba_ids_graph(self, ids):
        return self._probabilities(self._logits(self._embedding(ids), self._mask_of(ids)))

    def _proba_embedded_graph(self, embedded, mask):
        return self._probabilities(self._logits(embedded, mask if self._masked else None))

    def _grad_graph(self, ids, c, of):
        import tensorflow as tf

        embedded = self._embedding(ids)
        with tf.GradientTape() as tape:
            tape.watch(embedded)
            z = self._logits(embedded, self._mask_of(ids))
            p = self._probabilities(z)
            s = class_loss(z, c, self.output) if of == "loss" else tf.gather(p, c, axis=1, batch_dims=1)
            total = tf.reduce_sum(s)
        return tape.gradient(total, embedded), p

    def _check_chain(self):
        """The split model must compute what the model computes (else it is not a chain of layers)."""
        rng = np.random.default_rng(0)
        ids = rng.integers(0, self.vocab_size, size=(3, self.max_len or 5)).astype(np.int32)
        ids[:, 0] = PAD_ID
        given = ids
        if self.text_vectorization is not None:         # the model reads strings: random words of its vocabulary
            import tensorflow as tf

            from .model_tokenizer import ModelTokenizer

            words = self.text_vectorization.get_vocabulary(include_special_tokens=True)
            given = tf.constant([" ".join(words[i] for i in rng.integers(2, len(words), size=ids.shape[1] - 1))
                                 for _ in range(len(ids))]) if len(words) > 2 else tf.constant([""] * len(ids))
            ids = ModelTokenizer.of_text_vectorization(self.text_vectorization)(given.numpy().astype(str).tolist())
        message = ("KerasTextModel supports models that are a chain of single-input layers after the Embedding "
                   "(e.g. keras.Sequential); this model's graph branches")
        try:
            ours = np.asarray(self._proba_fn(ids))
        except Exception as e:            # a layer that needs several inputs fails when chained
            raise ValueError(f"{message} ({type(e).__name__})") from None
        theirs = np.asarray(self.model(given, training=False))
        theirs = np.column_stack([1 - theirs[:, 0], theirs[:, 0]]) if self.output == "sigmoid" else theirs
        if ours.shape != theirs.shape or not np.allclose(ours, theirs, atol=1e-4):
            raise ValueError(message)

    # ------------------------------------------------------------------ running
    def _ids(self, ids) -> np.ndarray:
        ids = as_id_array(ids)
        if self.max_len is not None and ids.shape[1] != self.max_len:
            raise ValueError(f"the model takes texts of {self.max_len} token ids; got shape {ids.shape} "
                             f"(encode with Vocabulary.encode(..., max_len={self.max_len}))")
        if ids.size and (ids.min() < 0 or ids.max() >= self.vocab_size):
            raise ValueError(f"token ids must lie in 0..{self.vocab_size - 1}, got {ids.min()}..{ids.max()}: "
                             "was the text encoded with the model's vocabulary?")
        return ids

    def embed(self, ids: np.ndarray) -> np.ndarray:
        """The per-token embedding vectors ``(n, L, d)`` of an id batch."""
        return self.embedding_matrix[self._ids(ids)]

    def predict_proba(self, ids: np.ndarray) -> np.ndarray:
        """``(n, k)`` class probabilities of ``(n, L)`` token ids."""
        return run_batched(self._proba_fn, self.batch_size, self._ids(ids))

    def predict_proba_embedded(self, embedded: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Class probabilities from per-token embedding vectors ``(n, L, d)``.

        ``mask`` (``(n, L)`` bool, True at real tokens) matters only for models with ``mask_zero``; default
        all True.
        """
        E = np.asarray(embedded, dtype=np.float32)
        if E.ndim != 3 or E.shape[2] != self.dim or (self.max_len is not None and E.shape[1] != self.max_len):
            raise ValueError(f"embedded must have shape (n, {self.max_len or 'L'}, {self.dim}), got {E.shape}")
        mask = np.ones(E.shape[:2], dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
        if mask.shape != E.shape[:2]:
            raise ValueError(f"mask must have shape {E.shape[:2]}, got {mask.shape}")
        return run_batched(self._embedded_fn, self.batch_size, E, mask)

    def embedding_gradient(self, ids: np.ndarray, classes, of: str = "loss") -> tuple[np.ndarray, np.ndarray]:
        """``(gradients (n, L, d), probabilities (n, k))`` for a batch of token ids.

        Row ``i`` is the gradient of the cross-entropy ``-log p[classes[i]]`` (``of="loss"``) or of
        ``p[classes[i]]`` (``of="proba"``) w.r.t. the embedding vector at each position of text ``i``
        (padding positions included: mask them in a search). One traced function per ``of``.
        """
        if of not in self._grad_fns:
            raise ValueError(f"of must be 'loss' or 'proba', got {of!r}")
        ids = self._ids(ids)
        c = class_indices(classes, len(ids), self.n_classes)
        return tuple(run_batched(self._grad_fns[of], self.batch_size, ids, c))

    def warm_up(self) -> None:
        """Trace the adapter's functions on one row (TensorFlow's first call of a model takes seconds, up to
        20 s for an LSTM): a search calls this before its clock starts, so its budget is spent searching."""
        ids = np.zeros((1, self.max_len or 1), dtype=np.int32)
        self.predict_proba(ids)
        self.embedding_gradient(ids, [0], of="loss")

    def tracing_count(self) -> int:
        """How many graphs the adapter's functions have traced (stays at one per function used)."""
        fns = [self._proba_fn, self._embedded_fn, *self._grad_fns.values()]
        return sum(f.experimental_get_tracing_count() for f in fns)

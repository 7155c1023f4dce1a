"""Counterfactual logit pairing (CLP; Garg et al. 2019, "Counterfactual Fairness in Text Classification
through Robustness", AIES): train a classifier so that an input and its counterfactual (the same input with
its protected attribute changed: an identity term swapped for another, a face re-rendered in the other skin
tone) get the same logits.

The loss of a batch is the usual cross-entropy plus ``strength`` (the paper's lambda) times the mean, over
the batch's inputs that have a counterfactual, of ``|g(x) - g(x')|``, where ``g`` is the logit of the
decision (the log-odds of class 1; with more than two classes, the summed absolute difference of the
centred logits). Only the originals are labelled: a counterfactual enters through the pairing term alone.
Which counterfactual pairs with an input is the caller's: ``counterfactuals(X_batch, index, rng)`` returns
the batch positions that have one and their counterfactuals, drawn anew for every batch (a random other
term, as the paper samples) or looked up (a fixed re-rendering).

TensorFlow is imported when a model is trained, never by ``import fairnb``.

Example
-------
>>> import keras                                                                   # doctest: +SKIP
>>> X = np.random.default_rng(0).normal(size=(200, 3)).astype("float32")
>>> y = (X[:, 0] + X[:, 2] > 0).astype(int)           # column 2 is the protected one
>>> flip = lambda X, index, rng: (np.arange(len(X)), X * [1, 1, -1])   # its counterfactual
>>> net = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, activation="softmax")])  # doctest: +SKIP
>>> history = fit_with_logit_pairing(net, X, y, flip, strength=5.0, epochs=20)   # doctest: +SKIP
>>> abs(float(net.layers[-1].kernel[2, 1] - net.layers[-1].kernel[2, 0])) < 0.1     # doctest: +SKIP
True
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .gradient_registry import training_graphs_released
from .keras import class_loss, logits_of, output_kind


def fit_with_logit_pairing(model, X, y, counterfactuals: Callable, *, strength: float = 1.0, epochs: int = 5,
                           batch_size: int = 64, learning_rate: float = 1e-3, class_weight: dict | None = None,
                           random_state: int | None = 0) -> dict:
    """Train the Keras classifier ``model`` (a sigmoid or softmax output layer) in place on ``(X, y)`` with
    counterfactual logit pairing (Adam); returns the per-epoch history: ``loss`` (cross-entropy plus the
    pairing term), ``pairing`` (the mean ``|g(x) - g(x')|`` over the epoch's pairs) and ``pairs``.

    ``counterfactuals(X_batch, index, rng)`` -> ``(rows, X_cf)``: the positions in the batch (``index``: the
    batch's rows of ``X``) that have a counterfactual and those counterfactuals, shaped like ``X_batch[rows]``.
    ``class_weight``: ``{class: weight}`` as Keras's ``fit`` takes it. ``strength=0`` is plain training.
    """
    import keras
    import tensorflow as tf

    X, y = np.asarray(X), np.asarray(y).astype(np.int64)
    if len(X) == 0 or y.shape != (len(X),):
        raise ValueError(f"y must hold one label per input: {len(X)} inputs, y of shape {y.shape}")
    if not callable(counterfactuals):
        raise TypeError("counterfactuals must be a callable (X_batch, index, rng) -> (rows, X_cf), "
                        f"got {type(counterfactuals).__name__}")
    strength = float(strength)
    if not np.isfinite(strength) or strength < 0:
        raise ValueError(f"strength (lambda) must be a finite number >= 0, got {strength}")
    if int(epochs) < 1 or int(batch_size) < 1:
        raise ValueError(f"epochs and batch_size must be at least 1, got {epochs}, {batch_size}")
    if not isinstance(model, keras.Model):
        raise TypeError(f"model must be a keras.Model, got {type(model).__name__}")
    output, n_classes = output_kind(model)
    if y.min() < 0 or y.max() >= n_classes:
        raise ValueError(f"labels must lie in 0..{n_classes - 1} for this model's output, got {np.unique(y).tolist()}")
    weights = np.ones(n_classes, np.float32)
    for c, w in (class_weight or {}).items():
        weights[int(c)] = float(w)
    if random_state is not None:
        keras.utils.set_random_seed(int(random_state))
    rng = np.random.default_rng(random_state)
    last = model.layers[-1]
    body = keras.Model(model.inputs, last.input)
    optimizer = keras.optimizers.Adam(learning_rate)
    dtype = tf.int32 if np.issubdtype(X.dtype, np.integer) else tf.float32
    x_spec = tf.TensorSpec([None, *X.shape[1:]], dtype)

    def decision_logit(x):      # softmax's logits centred: the same probabilities, one value per decision
        z = logits_of(last, body(x, training=True))
        return z if output == "sigmoid" else z - tf.reduce_mean(z, axis=1, keepdims=True)

    @tf.function(input_signature=[x_spec, tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.float32),
                                  tf.TensorSpec([None], tf.int32), x_spec])
    def step(x, c, w, rows, x_cf):
        with tf.GradientTape() as tape:
            z = decision_logit(x)
            ce = tf.reduce_sum(w * class_loss(z, c, output)) / tf.cast(tf.shape(x)[0], tf.float32)
            gap = tf.reduce_sum(tf.abs(tf.gather(z, rows) - decision_logit(x_cf)), axis=1)
            pairing = tf.cond(tf.size(rows) > 0, lambda: tf.reduce_mean(gap), lambda: 0.0)
            loss = ce + strength * pairing
        variables = model.trainable_variables
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss, tf.reduce_sum(gap)

    history = {"loss": [], "pairing": [], "pairs": []}
    with training_graphs_released():    # else TensorFlow keeps the traced step for the process's life
        for _ in range(int(epochs)):
            order, losses, gaps, pairs = rng.permutation(len(X)), [], 0.0, 0
            for start in range(0, len(X), int(batch_size)):
                index = order[start:start + int(batch_size)]
                rows, X_cf = counterfactuals(X[index], index, rng)
                rows = np.asarray(rows, np.int32).reshape(-1)
                X_cf = np.asarray(X_cf).reshape(len(rows), *X.shape[1:])
                loss, gap = step(X[index].astype(dtype.as_numpy_dtype), y[index].astype(np.int32),
                                 weights[y[index]], rows, X_cf.astype(dtype.as_numpy_dtype))
                losses.append(float(loss) * len(index))
                gaps, pairs = gaps + float(gap), pairs + len(rows)
            history["loss"].append(sum(losses) / len(X))
            history["pairing"].append(gaps / pairs if pairs else 0.0)
            history["pairs"].append(pairs)
    return history

"""A small Keras CNN face detector (face / non-face), its trainer, and the convolutional trunk of any
Keras image classifier (what NeuronFair's attribute classifier reuses, frozen). Imports TensorFlow.

The detector: ``Conv(16) - MaxPool - Conv(32) - MaxPool - Flatten - Dense(64) - Dense(2, softmax)``
(ReLU, same padding); NeuronFair uses VGG16 / ResNet50 at 64 x 64, this is the laptop-sized stand-in.

Example
-------
>>> from fairnb.images import make_faces
>>> data = make_faces(n=200, size=16, random_state=0)                        # doctest: +SKIP
>>> detector = train_face_detector(data, epochs=3)                           # doctest: +SKIP
>>> detector.predict_proba(data.X[:2]).shape                                 # doctest: +SKIP
(2, 2)
"""
from __future__ import annotations

import numpy as np

from ..models.gradient_registry import training_graphs_released


def build_face_detector(input_shape=(32, 32, 3), filters=(16, 32), dense=(64,), n_classes: int = 2):
    """An untrained Keras CNN: per entry of ``filters`` a 3x3 ReLU convolution and 2x2 max pooling, then
    ``Flatten``, ReLU Dense layers ``dense`` and a softmax output of ``n_classes``."""
    import keras

    input_shape = tuple(int(s) for s in input_shape)
    if len(input_shape) != 3:
        raise ValueError(f"input_shape must be (height, width, channels), got {input_shape}")
    layers = [keras.Input(input_shape)]
    for f in filters:
        layers += [keras.layers.Conv2D(int(f), 3, padding="same", activation="relu"), keras.layers.MaxPooling2D(2)]
    layers.append(keras.layers.Flatten())
    layers += [keras.layers.Dense(int(u), activation="relu") for u in dense]
    layers.append(keras.layers.Dense(int(n_classes), activation="softmax"))
    return keras.Sequential(layers, name="face_detector")


def seed_everything(random_state) -> None:
    """Seed Python, numpy and TensorFlow (``keras.utils.set_random_seed``) with ``random_state`` (None: 0).
    Call it before building layers too: a layer's initial weights are drawn when it is built."""
    import keras

    keras.utils.set_random_seed(0 if random_state is None else int(random_state))


def fit_classifier(model, X, y, *, epochs: int, batch_size: int = 64, learning_rate: float = 1e-3,
                   validation_fraction: float = 0.0, random_state=0, verbose: int = 0):
    """Train a Keras classifier with a softmax output on ``(X, y)`` (Adam, sparse cross-entropy) and return
    its history. Seeds Python, numpy and TensorFlow with ``random_state`` first."""
    import keras

    if int(epochs) < 1:
        raise ValueError(f"epochs must be at least 1, got {epochs}")
    seed_everything(random_state)
    model.compile(optimizer=keras.optimizers.Adam(learning_rate), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    with training_graphs_released():        # else TensorFlow keeps the traced train step for the process's life
        return model.fit(np.asarray(X, np.float32), np.asarray(y, np.int64), epochs=int(epochs),
                         batch_size=int(batch_size), validation_split=float(validation_fraction), verbose=verbose)


def train_face_detector(data, *, model=None, filters=(16, 32), dense=(64,), epochs: int = 10, batch_size: int = 64,
                        learning_rate: float = 1e-3, random_state=0, verbose: int = 0):
    """Train a face detector on ``data``'s training split (planted bias included) and return it as a
    white-box :class:`~fairnb.models.keras.KerasModel`. ``model`` replaces the default architecture."""
    from ..models.keras import KerasModel

    X_train, _, y_train, _ = data.split()
    if model is None:
        seed_everything(random_state)           # the layers' initial weights are drawn as they are built
        model = build_face_detector(data.X.shape[1:], filters, dense)
    fit_classifier(model, X_train, y_train, epochs=epochs, batch_size=batch_size, learning_rate=learning_rate,
                   random_state=random_state, verbose=verbose)
    return KerasModel(model)


def conv_trunk(model, layer: str | None = None):
    """The layers of a Keras image classifier from its input to the input of its first Dense layer (or to
    the output of ``layer``), flattened: a ``keras.Model`` sharing the classifier's weights."""
    import keras

    model = getattr(model, "model", model)      # a fairnb KerasModel or a keras.Model
    if not isinstance(model, keras.Model):
        raise TypeError(f"need a Keras model (or fairnb's KerasModel around one), got {type(model).__name__}")
    if layer is not None:
        out = model.get_layer(layer).output
    else:
        first_dense = next((lay for lay in model.layers if isinstance(lay, keras.layers.Dense)), None)
        if first_dense is None:
            raise ValueError("the model has no Dense layer; name the trunk's last layer with layer=")
        out = first_dense.input
    if len(out.shape) > 2:
        out = keras.layers.Flatten()(out)
    return keras.Model(model.inputs, out, name="trunk")

"""Keras models: the TensorFlow adapter ``KerasModel`` and the loader for saved model files.

The published EIDIG/MAFT models are Keras 2 ``.h5`` files. Keras 3 (3.15) loads them with
``keras.saving.load_model``, but gives them the input shape ``(None, None, 12)`` instead of ``(None, 12)``
(it misreads the first Dense layer's legacy ``batch_input_shape``), so the loaded model rejects ordinary
``(n, 12)`` batches. ``load_keras_model`` therefore reads the architecture and weights with h5py and builds
either a numpy network (``backend="numpy"``, no TensorFlow import at all) or an equivalent Keras 3
model with the right input shape (``backend="keras"``). Native Keras 3 ``.keras`` files load with Keras itself.

TensorFlow is imported only inside the functions of this module, never when fairnb is imported.

Example
-------
>>> model = load_keras_model("models/adult_model.h5")            # doctest: +SKIP
>>> model                                                        # doctest: +SKIP
NumpyMLP(12-30-20-15-15-10-1, sigmoid)
>>> load_keras_model("no/such/model.h5")
Traceback (most recent call last):
...
FileNotFoundError: model file 'no/such/model.h5' not found
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .numpy_mlp import _ACTIVATIONS, NumpyMLP

_KERAS_TO_NUMPY_ACT = {"relu": "relu", "tanh": "tanh", "linear": "identity", "sigmoid": "logistic"}
_OUTPUTS = ("sigmoid", "softmax")
#: input values per TensorFlow call of ``KerasModel`` (images: a few hundred rows; tables: ``batch_size``)
CHUNK_VALUES = 2 ** 19
_SKIPPED_AT_INFERENCE = ("Dropout", "InputLayer", "GaussianNoise", "AlphaDropout", "GaussianDropout")
#: a Dense weight or bias beyond this magnitude reads as a flipped exponent bit in an unchecked ``.h5`` file
#: (trained networks stay far below it: the published models' largest weight is 1.3)
PLAUSIBLE_WEIGHT = 1e5


# ---------------------------------------------------------------------------------------------- loading


def load_keras_model(path, backend: str = "numpy", *, checked: bool = False):
    """Load a Keras 2 ``.h5`` or Keras 3 ``.keras`` model file as a fairnb model.

    ``backend="numpy"``: a :class:`~fairnb.models.NumpyMLP` (dense networks; no TensorFlow needed for
    ``.h5``). ``backend="keras"``: a :class:`KerasModel` around a Keras 3 model. A ``.keras`` file that is
    not a plain stack of Dense layers is returned as a ``KerasModel`` with either backend. ``checked``: the
    file's SHA-256 was verified (its weights may then be of any size; see ``read_h5_dense_layers``).
    """
    if backend not in ("numpy", "keras"):
        raise ValueError(f"backend must be 'numpy' or 'keras', got {backend!r}")
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"model file {str(path)!r} not found")
    if path.suffix == ".keras":
        keras = _keras()
        try:
            loaded = keras.saving.load_model(path, compile=False)
        except Exception as e:  # noqa: BLE001 - Keras says "File not found" for a damaged archive
            raise ValueError(f"{path}: cannot be read as a Keras 3 .keras model ({type(e).__name__}: {e}); "
                             "the file is damaged, truncated or not a model saved with model.save(...)") from None
        model = KerasModel(loaded)
        return model.to_numpy() if backend == "numpy" and model.is_dense_stack else model
    if path.suffix not in (".h5", ".hdf5"):
        raise ValueError(f"{path.name}: expected a Keras model file ending in .h5 (Keras 2) or .keras (Keras 3)")
    layers = read_h5_dense_layers(path, checked=checked)
    if backend == "numpy":
        return _numpy_mlp(layers, path)
    return KerasModel(_build_keras(layers))


def read_h5_dense_layers(path, *, checked: bool = False) -> list[dict]:
    """The Dense layers of a Keras 2 ``.h5`` Sequential model: ``[{units, activation, kernel, bias}]``.

    Layers that do nothing at inference (Dropout, InputLayer) are skipped, a leading ``Normalization``
    is folded into the first Dense layer; other layer types raise ``ValueError``. A file whose structure
    is broken, or whose weights are not finite or do not fit together, raises ``ValueError`` naming it as
    damaged; so does a Dense weight beyond ``PLAUSIBLE_WEIGHT`` unless the file was ``checked`` against a
    SHA-256 (weights changed into other plausible numbers cannot be told: see :func:`fairnb.models.load_model`).
    """
    import h5py

    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise ValueError(f"{path}: damaged, truncated or not an HDF5 Keras model file ({e})") from None
    try:
        with f:
            layers, normalization = _h5_layers(f, path)
    except (OSError, KeyError, RuntimeError, TypeError, UnicodeError, json.JSONDecodeError) as e:   # damaged bytes
        raise ValueError(f"{path}: damaged Keras .h5 model file ({type(e).__name__}: {e}); expected a whole "
                         "Keras 2 model saved with model.save('model.h5')") from None
    if not layers:
        raise ValueError(f"{path}: no Dense layer found")
    _check_weights(layers, normalization, path, checked)
    return fold_normalization(layers, *normalization) if normalization else layers


def _check_weights(layers: list[dict], normalization, path, checked: bool) -> None:
    """``ValueError`` naming ``path`` as damaged when its weights are not finite, do not chain, or (not
    ``checked``) a Dense weight is beyond ``PLAUSIBLE_WEIGHT``."""
    arrays = [a for layer in layers for a in (layer["kernel"], layer["bias"])] + list(normalization or ())
    if not all(np.isfinite(np.asarray(a, dtype=float)).all() for a in arrays):
        raise ValueError(f"{path}: damaged Keras .h5 model file: it holds NaN or infinite weights")
    width = np.shape(layers[0]["kernel"])[0] if np.ndim(layers[0]["kernel"]) == 2 else None
    for layer in layers:
        kernel, bias, units = np.shape(layer["kernel"]), np.shape(layer["bias"]), layer["units"]
        if kernel != (width, units) or bias != (units,):
            raise ValueError(f"{path}: damaged Keras .h5 model file: a Dense layer of {units} units on {width} "
                             f"inputs holds a kernel of shape {kernel} and a bias of shape {bias}")
        width = units
    for i, layer in enumerate([] if checked else layers):
        for part in ("kernel", "bias"):
            biggest = float(np.abs(np.asarray(layer[part], dtype=float)).max(initial=0.0))
            if biggest > PLAUSIBLE_WEIGHT:
                raise ValueError(f"{path}: damaged Keras .h5 model file: Dense layer {i}'s {part} holds {biggest:.3g}, "
                                 f"beyond any trained network's weights (a flipped bit reads so); if the file is as "
                                 f"saved, record its checksum (sha256sum {Path(path).name} > "
                                 f"{Path(path).name}.sha256) and it loads")


def _h5_layers(f, path) -> tuple[list[dict], tuple | None]:
    """The Dense layers and a leading Normalization's (mean, variance) of an open Keras ``.h5`` file."""
    if "model_config" not in f.attrs:
        raise ValueError(f"{path}: holds no model architecture (a weights-only file, or a damaged one); "
                         "save the whole model with model.save(...)")
    raw = f.attrs["model_config"]
    config = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
    layer_configs = config["config"]["layers"] if isinstance(config["config"], dict) else config["config"]
    weights = f["model_weights"] if "model_weights" in f else f
    layers, normalization = [], None
    for lc in layer_configs:
        kind, cfg = lc["class_name"], lc["config"]
        if kind in _SKIPPED_AT_INFERENCE:
            continue
        if kind == "Normalization" and not layers and normalization is None and not cfg.get("invert"):
            arrays = _h5_arrays(weights[cfg["name"]])
            normalization = (arrays["mean"], arrays["variance"])
            continue
        if not (isinstance(kind, str) and kind.isascii() and kind.isidentifier()):
            raise ValueError(f"{path}: damaged Keras .h5 model file: a layer's type reads {kind!r}")
        if kind != "Dense":
            raise ValueError(f"{path}: layer {cfg.get('name')!r} of type {kind} is not supported by the .h5 "
                             "reader (Dense layers, optionally after one Normalization); save it as .keras and "
                             "load with backend='keras'")
        arrays = _h5_arrays(weights[cfg["name"]])
        layers.append({"units": int(cfg["units"]), "activation": cfg.get("activation", "linear"),
                       "kernel": arrays["kernel"],
                       "bias": arrays.get("bias", np.zeros(int(cfg["units"]), dtype=np.float32))})
    return layers, normalization


def _h5_arrays(group) -> dict:
    """A layer's weights in a Keras ``.h5`` file by short name (``kernel``, ``bias``, ``mean``, ...)."""
    names = [n.decode() if isinstance(n, bytes) else n for n in group.attrs["weight_names"]]
    return {n.split("/")[-1].split(":")[0]: np.asarray(group[n]) for n in names}


def fold_normalization(layers: list[dict], mean, variance) -> list[dict]:
    """Fold a Keras ``Normalization`` (``(x - mean) / max(sqrt(variance), 1e-7)``) into the first Dense layer:
    ``W (x - m) s + b = (s W) x + (b - (m s) W)``.

    >>> layer = {"kernel": np.array([[2.0], [1.0]]), "bias": np.array([0.5])}
    >>> folded = fold_normalization([layer], mean=[1.0, 0.0], variance=[4.0, 1.0])[0]
    >>> (np.array([3.0, 2.0]) @ folded["kernel"] + folded["bias"]).tolist()     # 2 * (3 - 1) / 2 + 2 + 0.5
    [4.5]
    """
    first = layers[0]
    width = first["kernel"].shape[0]
    mean = np.broadcast_to(np.asarray(mean, dtype=np.float64).reshape(-1), (width,))
    std = np.sqrt(np.broadcast_to(np.asarray(variance, dtype=np.float64).reshape(-1), (width,)))
    scale = 1.0 / np.maximum(std, 1e-7)        # keras.backend.epsilon()
    kernel = np.asarray(first["kernel"], dtype=np.float64)
    folded = {**first, "kernel": scale[:, None] * kernel, "bias": first["bias"] - (mean * scale) @ kernel}
    return [folded, *layers[1:]]


def _numpy_mlp(layers: list[dict], source, dtype=np.float64) -> NumpyMLP:
    hidden = {layer["activation"] for layer in layers[:-1]}
    out = layers[-1]["activation"]
    if len(hidden) > 1 or any(_KERAS_TO_NUMPY_ACT.get(a) not in _ACTIVATIONS for a in hidden) or out not in _OUTPUTS:
        raise ValueError(f"{source}: hidden activations {sorted(hidden)} / output {out!r} are not supported by the "
                         "numpy backend (one of relu/tanh/sigmoid/linear; sigmoid or softmax output); "
                         "use backend='keras'")
    act = _KERAS_TO_NUMPY_ACT[hidden.pop()] if hidden else "relu"
    return NumpyMLP([layer["kernel"] for layer in layers], [layer["bias"] for layer in layers],
                    activation=act, output=out, dtype=dtype)


def _keras():
    import keras

    return keras


def _build_keras(layers: list[dict]):
    keras = _keras()
    model = keras.Sequential([keras.Input((layers[0]["kernel"].shape[0],))]
                             + [keras.layers.Dense(layer["units"], activation=layer["activation"]) for layer in layers])
    for dense, layer in zip(model.layers, layers):
        dense.set_weights([layer["kernel"], layer["bias"]])
    return model


def output_kind(model) -> tuple[str, int]:
    """``(activation, n_classes)`` of a Keras classifier's last layer: ``("sigmoid", 1)`` or ``("softmax", k)``."""
    last = model.layers[-1]
    output = getattr(getattr(last, "activation", None), "__name__", None)
    n_classes = int(model.outputs[0].shape[-1])
    if output not in _OUTPUTS or (output == "sigmoid") != (n_classes == 1):
        raise ValueError(f"the model's last layer {last.name!r} must give class probabilities: one sigmoid "
                         f"unit or k >= 2 softmax units (got activation {output!r} on {n_classes} "
                         "units); add a sigmoid/softmax")
    return output, n_classes


def logits_of(last, h):
    """Graph code: the logits of the output layer ``last`` given its input ``h`` (a Dense layer's
    pre-activation; an Activation layer's input is the logits)."""
    import tensorflow as tf

    if isinstance(last, _keras().layers.Dense):
        return tf.matmul(h, last.kernel) + (0.0 if last.bias is None else last.bias)
    return h


def two_columns(p, output: str):
    """Graph code: a sigmoid model's ``(n, 1)`` output as ``[1 - p, p]``; softmax output unchanged."""
    import tensorflow as tf

    return tf.concat([1.0 - p[:, :1], p[:, :1]], axis=1) if output == "sigmoid" else p


def class_loss(z, c, output: str):
    """Graph code: per-row cross-entropy ``-log p[c]`` from the logits ``z`` of a sigmoid/softmax head."""
    import tensorflow as tf

    if output == "sigmoid":
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.cast(c, z.dtype), logits=z[:, 0])
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=c, logits=z)


def class_indices(classes, n_rows: int, n_classes: int) -> np.ndarray:
    """``classes`` (one class or one per row) as ``(n_rows,)`` int32, each in ``0..max(n_classes, 2) - 1``."""
    c = np.broadcast_to(np.asarray(classes, dtype=np.int32), (n_rows,)).copy()
    if ((c < 0) | (c >= max(n_classes, 2))).any():
        raise ValueError(f"classes must lie in 0..{max(n_classes, 2) - 1}")
    return c


def run_batched(fn, batch_size: int, X: np.ndarray, *extra):
    """``fn`` over chunks of ``batch_size`` rows of ``X`` (and ``extra``), float64 results concatenated
    (a list of arrays when ``fn`` returns several)."""
    outs = []
    for start in range(0, max(len(X), 1), batch_size):
        sl = slice(start, start + batch_size)
        res = fn(X[sl], *(e[sl] for e in extra))
        outs.append([np.asarray(r, dtype=np.float64) for r in res] if isinstance(res, (list, tuple))
                    else np.asarray(res, dtype=np.float64))
    if isinstance(outs[0], list):
        return [np.concatenate(parts) for parts in zip(*outs)]
    return np.concatenate(outs)


# ---------------------------------------------------------------------------------------------- adapter


class KerasModel:
    """A Keras 3 classifier (TensorFlow backend) as a white-box fairnb model.

    One compiled ``tf.function`` per query kind, with input signature ``[None, *input_shape]`` (``[None, d]``
    for tables, ``[None, H, W, C]`` for images): batches of any size reuse the same graph (no retracing).
    Inputs are processed in chunks of at most ``batch_size`` rows and about ``CHUNK_VALUES`` input values: for
    tables that is ``batch_size`` rows, for 32 x 32 colour images 170, so that a convolution's activations and
    their gradients (tens of values per input value) stay tens of MB whatever the batch, instead of the
    hundreds of MB that the heap keeps after a call on a thousand images.

    A TensorFlow call costs about 0.3 ms however small the batch, several times what a numpy network
    needs for the few hundred rows a search step often sends. So a plain Dense stack (optionally after
    a ``Normalization`` layer, which is folded into the first Dense layer, and with Dropout ignored)
    evaluates batches of at most ``numpy_below`` rows with its numpy twin (``to_numpy``: the same network,
    computed as the numpy backend computes it, in float64); ``numpy_below=0`` sends every batch to
    TensorFlow. ``benchmarks/keras_backend.py`` measures both paths. The last layer must be a Dense (or
    Activation) layer applying a sigmoid (one unit, read as ``P(y=1)``) or a softmax (``k`` class
    probabilities); losses are computed from its logits. Hidden layers (for ``layer_outputs`` /
    ``activation_gradient``) are the convolution and Dense layers before the last, post-activation, their
    outputs flattened to ``(n, units)``. Input gradients have the shape of the input batch.
    """

    def __init__(self, model, batch_size: int = 16384, numpy_below: int = 2048):
        import tensorflow as tf

        keras = _keras()
        if not isinstance(model, keras.Model):
            raise TypeError(f"KerasModel needs a keras.Model, got {type(model).__name__}")
        shape = model.inputs[0].shape if model.inputs else None
        if shape is None or len(shape) < 2 or any(s is None for s in shape[1:]):
            raise ValueError("KerasModel needs a model with one input of known shape: (None, d) for tables, "
                             "(None, height, width, channels) for images")
        self.model = model
        self.batch_size = int(batch_size)
        self.input_shape = tuple(int(s) for s in shape[1:])
        self.n_features = int(np.prod(self.input_shape))
        last = model.layers[-1]
        self.output, self.n_classes = output_kind(model)
        self._logit_layer = last if isinstance(last, keras.layers.Dense) else None
        hidden_kinds = (keras.layers.Dense, keras.layers.Conv1D, keras.layers.Conv2D, keras.layers.Conv3D)
        self._hidden = [layer for layer in model.layers if isinstance(layer, hidden_kinds) and layer is not last]
        body = keras.Model(model.inputs, last.input)
        self._logits = lambda x: logits_of(last, body(x, training=False))
        spec = tf.TensorSpec([None, *self.input_shape], tf.float32)
        self._hidden_model = (keras.Model(model.inputs, [layer.output for layer in self._hidden])
                              if self._hidden else None)
        self._proba_fn = tf.function(self._proba_graph, input_signature=[spec])
        cls_spec = tf.TensorSpec([None], tf.int32)
        self._grad_fns = {"proba": tf.function(self._proba_grad_graph, input_signature=[spec, cls_spec]),
                          "loss": tf.function(self._loss_grad_graph, input_signature=[spec, cls_spec])}
        self._layers_fn = tf.function(self._layers_graph, input_signature=[spec]) if self._hidden else None
        self._act_grad_fns = {}
        self._layer_fns = {}
        self.numpy_below = int(numpy_below)
        self.refresh()

    def refresh(self) -> "KerasModel":
        """Re-read the weights into the numpy twin (after the Keras model was trained further); returns self.
        ``fairnb.models.wrap`` (hence every search) calls it."""
        self._twin = self.to_numpy() if self.numpy_below > 0 and self.is_dense_stack else None
        return self

    # ------------------------------------------------------------------ description
    @property
    def layer_sizes(self) -> list[int]:
        return [int(np.prod(layer.output.shape[1:])) for layer in self._hidden] + [self.n_classes]

    @property
    def is_dense_stack(self) -> bool:
        """True when the model is a plain stack of Dense layers (convertible to ``NumpyMLP``), possibly
        after a ``Normalization`` layer and with Dropout layers."""
        return self._numpy_layers() is not None

    def _numpy_layers(self) -> list[dict] | None:
        """The Dense layers as numpy arrays, a leading Normalization folded into the first; None if the
        model is not such a stack."""
        keras = _keras()
        to_array = lambda v: np.asarray(v.numpy() if hasattr(v, "numpy") else v)  # noqa: E731 (convert_to_numpy warns)
        layers, normalization = [], None
        for layer in self.model.layers:
            if type(layer).__name__ in _SKIPPED_AT_INFERENCE:
                continue
            if isinstance(layer, keras.layers.Normalization) and not layers and normalization is None \
                    and not layer.invert:
                normalization = (to_array(layer.mean), to_array(layer.variance))
                continue
            if not isinstance(layer, keras.layers.Dense):
                return None
            layers.append({"units": int(layer.units), "activation": layer.activation.__name__,
                           "kernel": to_array(layer.kernel).astype(np.float64),
                           "bias": (to_array(layer.bias).astype(np.float64) if layer.bias is not None
                                    else np.zeros(int(layer.units)))})
        hidden_acts = {layer["activation"] for layer in layers[:-1]}
        if self._logit_layer is None or not layers or len(hidden_acts) > 1 \
                or not all(a in _KERAS_TO_NUMPY_ACT for a in hidden_acts):
            return None
        return fold_normalization(layers, *normalization) if normalization else layers

    def __repr__(self):
        inputs = "x".join(map(str, self.input_shape))
        return f"KerasModel({inputs}-" + "-".join(map(str, self.layer_sizes)) + f", {self.output})"

    def to_numpy(self, dtype=np.float64) -> NumpyMLP:
        """The same network as a ``NumpyMLP`` (dense stacks only)."""
        layers = self._numpy_layers()
        if layers is None:
            raise ValueError("only a plain stack of Dense layers (optionally after a Normalization layer) with a "
                             "sigmoid/softmax output converts to NumpyMLP")
        return _numpy_mlp(layers, repr(self), dtype=dtype)

    # ------------------------------------------------------------------ graphs
    def _proba_graph(self, x):
        return two_columns(self.model(x, training=False), self.output)

    def _layers_graph(self, x):
        import tensorflow as tf

        out = self._hidden_model(x, training=False)
        return [tf.reshape(a, [tf.shape(a)[0], -1]) for a in (out if isinstance(out, (list, tuple)) else [out])]

    def _proba_grad_graph(self, x, c):
        return self._grad_graph(x, c, "proba")

    def _loss_grad_graph(self, x, c):
        return self._grad_graph(x, c, "loss")

    def _grad_graph(self, x, c, of):
        import tensorflow as tf

        with tf.GradientTape() as tape:
            tape.watch(x)
            if of == "loss":
                s = class_loss(self._logits(x), c, self.output)
            else:
                s = tf.gather(self._proba_graph(x), c, axis=1, batch_dims=1)
            total = tf.reduce_sum(s)
        return tape.gradient(total, x)

    def _act_grad_fn(self, layer: int):
        import tensorflow as tf

        if layer not in self._act_grad_fns:
            spec = tf.TensorSpec([None, *self.input_shape], tf.float32)
            wspec = tf.TensorSpec([None, self.layer_sizes[layer]], tf.float32)

            def graph(x, w):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    a = self._layers_graph(x)[layer]
                    total = tf.reduce_sum(a * w)
                return tape.gradient(total, x)

            self._act_grad_fns[layer] = tf.function(graph, input_signature=[spec, wspec])
        return self._act_grad_fns[layer]

    def _layer_fn(self, layer: int):
        import tensorflow as tf

        if layer not in self._layer_fns:
            spec = tf.TensorSpec([None, *self.input_shape], tf.float32)
            part = _keras().Model(self.model.inputs, self._hidden[layer].output)

            def graph(x):
                a = part(x, training=False)
                return tf.reshape(a, [tf.shape(a)[0], -1])

            self._layer_fns[layer] = tf.function(graph, input_signature=[spec])
        return self._layer_fns[layer]

    # ------------------------------------------------------------------ running
    def _check(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float32)
        if X.shape[1:] != self.input_shape:
            dims = ", ".join(map(str, self.input_shape))
            what = f"width {self.n_features}" if len(self.input_shape) == 1 else f"shape (n, {dims})"
            raise ValueError(f"the model takes inputs of {what}; got shape {X.shape}")
        return X

    @property
    def chunk_rows(self) -> int:
        """The rows of one TensorFlow call: ``batch_size``, fewer for large inputs (``CHUNK_VALUES``): 170 for
        32 x 32 x 3 images, ``batch_size`` for a table of a few hundred columns."""
        return max(1, min(self.batch_size, CHUNK_VALUES // self.n_features))

    def _batched(self, fn, X, *extra):
        return run_batched(fn, self.chunk_rows, self._check(X), *extra)

    def _small(self, X: np.ndarray) -> bool:
        """Whether the numpy twin evaluates this batch."""
        return self._twin is not None and len(X) <= self.numpy_below

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        X = self._check(X)
        if self._small(X):
            return self._twin.predict_proba(X)
        return self._batched(self._proba_fn, X)

    def input_gradient(self, X: np.ndarray, classes, of: str = "proba") -> np.ndarray:
        if of not in self._grad_fns:
            raise ValueError(f"of must be 'proba' or 'loss', got {of!r}")
        X = self._check(X)
        c = class_indices(classes, len(X), self.n_classes)
        if self._small(X):
            return self._twin.input_gradient(X, c, of=of)
        return self._batched(self._grad_fns[of], X, c)

    def layer_outputs(self, X: np.ndarray) -> list[np.ndarray]:
        if self._layers_fn is None:
            return []
        X = self._check(X)
        if self._small(X):
            return self._twin.layer_outputs(X)
        out = self._batched(self._layers_fn, X)
        return out if isinstance(out, list) else [out]

    def layer_output(self, X: np.ndarray, layer: int) -> np.ndarray:
        """``layer_outputs(X)[layer]`` without computing (and copying) the other layers' outputs: what
        NeuronFair needs on image models, whose flattened convolution outputs are large."""
        if not 0 <= layer < len(self._hidden):
            raise ValueError(f"layer {layer} is not a hidden layer (0..{len(self._hidden) - 1})")
        X = self._check(X)
        if self._small(X):
            return self._twin.layer_outputs(X)[layer]
        return self._batched(self._layer_fn(layer), X)

    def activation_gradient(self, X: np.ndarray, layer: int, weights: np.ndarray) -> np.ndarray:
        if not 0 <= layer < len(self._hidden):
            raise ValueError(f"layer {layer} is not a hidden layer (0..{len(self._hidden) - 1})")
        X = self._check(X)
        W = np.broadcast_to(np.asarray(weights, dtype=np.float32), (len(X), self.layer_sizes[layer])).copy()
        if self._small(X):
            return self._twin.activation_gradient(X, layer, W)
        return self._batched(self._act_grad_fn(layer), X, W)

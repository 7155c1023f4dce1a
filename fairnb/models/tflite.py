"""TFLite image models: black boxes through the LiteRT interpreter, white boxes through a TensorFlow graph
converted from the flatbuffer (``pip install fairnb[tflite]``).

:class:`TFLiteModel` runs a ``.tflite`` file in the interpreter (``ai_edge_litert``, else TensorFlow's
``tf.lite.Interpreter``): ``predict_proba`` only, for the black-box searches. :class:`TFLiteGraph` rebuilds
the same computation as TensorFlow operations (the pure-Python ``tflite`` package reads the flatbuffer) with a
free batch dimension, so searches get exact input gradients. It converts models made of :data:`SUPPORTED`
operations (convolutional detectors and classifiers such as MediaPipe's BlazeFace) and refuses others,
naming them; :func:`tflite_model` picks the white box when every operation converts.

TFLite semantics kept: NHWC tensors; ``CONV_2D`` weights ``[out, h, w, in]``; ``DEPTHWISE_CONV_2D`` weights
``[1, h, w, in * multiplier]``; SAME/VALID padding, strides and dilations as in TensorFlow; the fused activations
NONE, RELU, RELU_N1_TO_1, RELU6; ``DEQUANTIZE`` of float16 constants (weights stored at half precision) folded
to float32 once; ``RESHAPE`` keeps the batch dimension free.

Inputs are fairnb's pixels in [0, 1], mapped linearly onto ``input_range`` (BlazeFace: ``(-1, 1)``). ``output``
says how the chosen output tensor becomes class probabilities: ``"proba"`` (probabilities, or one column of
P(y=1)), ``"logits"`` (softmaxed; one column sigmoided) or ``"max_logit"`` (a detector with anchors:
P(face) = sigmoid of the largest logit, ``[1 - p, p]``).

Example
-------
>>> "CONV_2D" in SUPPORTED and "TANH" not in SUPPORTED
True
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .base import as_probability_matrix
from .keras import CHUNK_VALUES, class_indices, run_batched

SUPPORTED = ("DEQUANTIZE", "CONV_2D", "DEPTHWISE_CONV_2D", "ADD", "RELU", "PAD", "MAX_POOL_2D", "RESHAPE",
             "CONCATENATION", "FULLY_CONNECTED", "SOFTMAX", "LOGISTIC")
OUTPUTS = ("proba", "logits", "max_logit")
_PADDING = {0: "SAME", 1: "VALID"}
_ACTIVATIONS = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6"}
_DTYPES = {0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 9: np.int8}
#: operation -> (its options class in the ``tflite`` package, the option getters read)
_OPTIONS = {
    "CONV_2D": ("Conv2DOptions", ("Padding", "StrideH", "StrideW", "DilationHFactor", "DilationWFactor",
                                  "FusedActivationFunction")),
    "DEPTHWISE_CONV_2D": ("DepthwiseConv2DOptions", ("Padding", "StrideH", "StrideW", "DilationHFactor",
                                                     "DilationWFactor", "FusedActivationFunction")),
    "MAX_POOL_2D": ("Pool2DOptions", ("Padding", "StrideH", "StrideW", "FilterHeight", "FilterWidth",
                                      "FusedActivationFunction")),
    "ADD": ("AddOptions", ("FusedActivationFunction",)),
    "CONCATENATION": ("ConcatenationOptions", ("Axis", "FusedActivationFunction")),
    "FULLY_CONNECTED": ("FullyConnectedOptions", ("FusedActivationFunction", "KeepNumDims")),
    "SOFTMAX": ("SoftmaxOptions", ("Beta",)),
    "RESHAPE": ("ReshapeOptions", ("NewShapeAsNumpy",)),
}


@dataclass
class Operation:
    """One operation of the flatbuffer: its name, input and output tensor indices (-1: absent), options."""

    name: str
    inputs: list[int]
    outputs: list[int]
    options: dict = field(default_factory=dict)


@dataclass
class Flatbuffer:
    """What the conversion needs from a ``.tflite`` file (its first subgraph)."""

    operations: list[Operation]
    constants: dict            # tensor index -> numpy array (float16 weights already dequantized)
    input: int
    input_shape: tuple
    outputs: dict              # output name -> tensor index
    output_shapes: dict        # output name -> its shape without the batch
    unsupported: list[str]     # operation names (and fused activations) that do not convert


def read_flatbuffer(data: bytes, source: str = "model") -> Flatbuffer:
    """Parse a TFLite flatbuffer with the ``tflite`` package (constants as numpy arrays)."""
    tfl = _tflite_package()
    if len(data) < 8 or not tfl.Model.ModelBufferHasIdentifier(data, 0):
        raise ValueError(f"{source}: not a TFLite model (no TFL3 flatbuffer identifier)")
    model = tfl.Model.GetRootAsModel(data, 0)
    graph = model.Subgraphs(0)
    if graph.InputsLength() != 1:
        raise ValueError(f"{source}: fairnb feeds one input image tensor, the model has {graph.InputsLength()}")
    tensors = [graph.Tensors(i) for i in range(graph.TensorsLength())]
    constants = {}
    for i, t in enumerate(tensors):
        raw = _buffer_bytes(data, model.Buffers(t.Buffer()))
        if raw is not None and t.Type() in _DTYPES:
            constants[i] = np.frombuffer(raw, _DTYPES[t.Type()]).reshape(t.ShapeAsNumpy())
    operations, unsupported = [], []
    for k in range(graph.OperatorsLength()):
        op = graph.Operators(k)
        code = model.OperatorCodes(op.OpcodeIndex())
        name = tfl.utils.BUILTIN_OPCODE2NAME.get(max(code.BuiltinCode(), code.DeprecatedBuiltinCode()), "CUSTOM")
        operation = Operation(name, op.InputsAsNumpy().tolist(), op.OutputsAsNumpy().tolist(), _options(tfl, name, op))
        act = operation.options.get("FusedActivationFunction", 0)
        if name not in SUPPORTED:
            unsupported.append(name)
        elif act not in _ACTIVATIONS:
            unsupported.append(f"{name} with fused activation {act}")
        elif name == "DEQUANTIZE" and operation.inputs[0] in constants:
            weights = constants[operation.inputs[0]]
            if weights.dtype != np.float16:
                unsupported.append(f"DEQUANTIZE of {weights.dtype} (quantized) weights")
            constants[operation.outputs[0]] = weights.astype(np.float32)   # folded once
            continue
        operations.append(operation)
    first = graph.Inputs(0)
    outputs = {tensors[i].Name().decode(): i for i in graph.OutputsAsNumpy().tolist()}
    shapes = {name: tuple(int(s) for s in tensors[i].ShapeAsNumpy()[1:]) for name, i in outputs.items()}
    return Flatbuffer(operations, constants, first, tuple(int(s) for s in tensors[first].ShapeAsNumpy()[1:]),
                      outputs, shapes, sorted(set(unsupported)))


def _tflite_package():
    try:
        import tflite
    except ImportError:
        raise ImportError("reading a .tflite file's operations needs the tflite package: pip install "
                          "'fairnb[tflite]' (or pip install tflite)") from None
    import tflite.utils  # noqa: F401 - the operation names
    return tflite


def _buffer_bytes(data: bytes, buffer):
    if buffer.Offset() > 1:                          # large models keep buffers after the flatbuffer
        return data[buffer.Offset(): buffer.Offset() + buffer.Size()]
    raw = buffer.DataAsNumpy()
    return raw.tobytes() if isinstance(raw, np.ndarray) and raw.size else None


def _options(tfl, name: str, op) -> dict:
    if name not in _OPTIONS or op.BuiltinOptions() is None:
        return {}
    cls, getters = _OPTIONS[name]
    table = op.BuiltinOptions()
    options = getattr(tfl, cls)()
    options.Init(table.Bytes, table.Pos)
    return {g: getattr(options, g)() for g in getters}


# ---------------------------------------------------------------------------------------------- graph code
def _activation(tf, o, y):
    act = _ACTIVATIONS[o.get("FusedActivationFunction", 0)]
    if act == "RELU":
        return tf.nn.relu(y)
    if act == "RELU6":
        return tf.nn.relu6(y)
    return tf.clip_by_value(y, -1.0, 1.0) if act == "RELU_N1_TO_1" else y


def _conv(tf, o, x, w, b=None):
    y = tf.nn.conv2d(x, np.transpose(w, (1, 2, 3, 0)), strides=[1, o["StrideH"], o["StrideW"], 1],
                     padding=_PADDING[o["Padding"]], dilations=[1, o["DilationHFactor"], o["DilationWFactor"], 1])
    return _activation(tf, o, y if b is None else y + b)


def _depthwise(tf, o, x, w, b=None):
    channels = int(x.shape[-1])                      # weights [1, h, w, in * multiplier] -> [h, w, in, multiplier]
    kernel = w.reshape(w.shape[1], w.shape[2], channels, w.shape[3] // channels)
    y = tf.nn.depthwise_conv2d(x, kernel, strides=[1, o["StrideH"], o["StrideW"], 1], padding=_PADDING[o["Padding"]],
                               dilations=[o["DilationHFactor"], o["DilationWFactor"]])
    return _activation(tf, o, y if b is None else y + b)


def _reshape(tf, o, x, shape=None):
    shape = np.asarray(o.get("NewShapeAsNumpy") if shape is None else shape).astype(np.int32).ravel()
    return tf.reshape(x, tf.concat([tf.shape(x)[:1], shape[1:]], axis=0))      # the batch stays free


def _fully_connected(tf, o, x, w, b=None):
    y = tf.matmul(tf.reshape(x, [-1, w.shape[1]]), w, transpose_b=True)
    if b is not None:
        y = y + b
    if o.get("KeepNumDims"):
        y = tf.reshape(y, tf.concat([tf.shape(x)[:-1], [w.shape[0]]], axis=0))
    return _activation(tf, o, y)


_CONVERT = {
    "CONV_2D": _conv,
    "DEPTHWISE_CONV_2D": _depthwise,
    "ADD": lambda tf, o, x, y: _activation(tf, o, x + y),
    "RELU": lambda tf, o, x: tf.nn.relu(x),
    "PAD": lambda tf, o, x, p: tf.pad(x, p),
    "MAX_POOL_2D": lambda tf, o, x: _activation(tf, o, tf.nn.max_pool2d(
        x, [o["FilterHeight"], o["FilterWidth"]], [o["StrideH"], o["StrideW"]], _PADDING[o["Padding"]])),
    "RESHAPE": _reshape,
    "CONCATENATION": lambda tf, o, *xs: _activation(tf, o, tf.concat(xs, axis=o["Axis"])),
    "FULLY_CONNECTED": _fully_connected,
    "SOFTMAX": lambda tf, o, x: tf.nn.softmax(o.get("Beta", 1.0) * x),
    "LOGISTIC": lambda tf, o, x: tf.sigmoid(x),
    "DEQUANTIZE": lambda tf, o, x: tf.cast(x, tf.float32),
}


def run_graph(fb: Flatbuffer, x, output: int):
    """Graph code: the tensor ``output`` of the converted model on the batch ``x`` (model input units)."""
    import tensorflow as tf

    values = dict(fb.constants)
    values[fb.input] = x
    for op in fb.operations:
        args = [values[i] if i >= 0 else None for i in op.inputs]
        while args and args[-1] is None:             # an absent bias
            args.pop()
        values[op.outputs[0]] = _CONVERT[op.name](tf, op.options, *args)
    return values[output]


# ---------------------------------------------------------------------------------------------- adapters
class TFLiteModel:
    """A TFLite image model run by the interpreter, as a black box (see the module docstring).

    Parameters
    ----------
    model : a ``.tflite`` path or its bytes.
    output_name : the output tensor read (default: the only one).
    output : ``"proba"``, ``"logits"`` or ``"max_logit"``: how that tensor becomes class probabilities.
    input_range : the model's input values for fairnb's pixels 0 and 1.
    """

    def __init__(self, model, output_name: str | None = None, output: str = "proba", input_range=(0.0, 1.0)):
        if output not in OUTPUTS:
            raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
        self.source = str(model) if isinstance(model, (str, Path)) else "TFLite model"
        self.data = Path(model).expanduser().read_bytes() if isinstance(model, (str, Path)) else bytes(model)
        self.flatbuffer = read_flatbuffer(self.data, self.source)
        names = sorted(self.flatbuffer.outputs)
        if output_name is None and len(names) > 1:
            raise ValueError(f"{self.source}: the model has outputs {names}; choose one with output_name=")
        self.output_name = names[0] if output_name is None else output_name
        if self.output_name not in self.flatbuffer.outputs:
            raise ValueError(f"{self.source}: no output named {self.output_name!r}; its outputs are {names}")
        self.output, self.input_range = output, tuple(float(v) for v in input_range)
        self.input_shape = self.flatbuffer.input_shape
        self._interpreter = None

    def __repr__(self):
        return f"{type(self).__name__}({Path(self.source).name}: {self.output_name!r} as {self.output})"

    @property
    def n_classes(self) -> int:
        return 2 if self.output == "max_logit" else max(2, int(np.prod(self.flatbuffer.output_shapes[self.output_name])))

    def _check(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float32)
        if X.shape[1:] != self.input_shape:
            raise ValueError(f"{self.source} takes images of shape (n, {', '.join(map(str, self.input_shape))}); "
                             f"got shape {X.shape}")
        lo, hi = self.input_range
        return lo + (hi - lo) * X

    def _interpret(self):
        if self._interpreter is None:
            try:
                from ai_edge_litert.interpreter import Interpreter
            except ImportError:
                try:
                    from tensorflow.lite import Interpreter
                except ImportError:
                    raise ImportError("running a .tflite model needs the LiteRT interpreter: pip install "
                                      "'fairnb[tflite]' (or ai-edge-litert)") from None
            self._interpreter = Interpreter(model_content=self.data)
            self._interpreter.allocate_tensors()
        return self._interpreter

    def raw_output(self, X) -> np.ndarray:
        """The chosen output tensor for the images ``X`` (one interpreter call per image), float64."""
        X, it = self._check(X), self._interpret()
        first = it.get_input_details()[0]["index"]
        out = next(d["index"] for d in it.get_output_details() if d["name"] == self.output_name)
        rows = []
        for x in X:
            it.set_tensor(first, x[None])
            it.invoke()
            rows.append(it.get_tensor(out)[0].astype(np.float64))
        return np.stack(rows) if rows else np.zeros((0, *self.flatbuffer.output_shapes[self.output_name]))

    def predict_proba(self, X) -> np.ndarray:
        return _probabilities(self.raw_output(X), self.output, self.source)

    def __getstate__(self):           # the interpreter and traced graphs are rebuilt where the model is unpickled
        return {**self.__dict__, "_interpreter": None, **({"_fns": {}} if "_fns" in self.__dict__ else {})}


class TFLiteGraph(TFLiteModel):
    """A TFLite model converted to a TensorFlow graph: a white box with exact input gradients (parameters as
    :class:`TFLiteModel`); refused with a ``ValueError`` naming the operations that do not convert."""

    def __init__(self, model, output_name: str | None = None, output: str = "proba", input_range=(0.0, 1.0),
                 batch_size: int = 256):
        super().__init__(model, output_name, output, input_range)
        if self.flatbuffer.unsupported:
            raise ValueError(f"{self.source}: operations {self.flatbuffer.unsupported} do not convert to TensorFlow "
                             f"(fairnb converts {list(SUPPORTED)}); load it as a black box (TFLiteModel, or "
                             "load_model(..., white_box=False)) for the searches without gradients")
        self.batch_size = batch_size
        self._fns = {}

    def _fn(self, kind: str):
        import tensorflow as tf

        if kind not in self._fns:
            x_spec = tf.TensorSpec([None, *self.input_shape], tf.float32)
            c_spec = tf.TensorSpec([None], tf.int32)
            if kind == "raw":
                self._fns[kind] = tf.function(self._raw_graph, input_signature=[x_spec])
            else:
                self._fns[kind] = tf.function(lambda x, c: self._grad_graph(x, c, kind),
                                              input_signature=[x_spec, c_spec])
        return self._fns[kind]

    def _raw_graph(self, x):
        return run_graph(self.flatbuffer, x, self.flatbuffer.outputs[self.output_name])

    def _grad_graph(self, x, c, of):
        import tensorflow as tf

        lo, hi = self.input_range
        with tf.GradientTape() as tape:
            tape.watch(x)
            p = _probabilities_graph(tf, self._raw_graph(lo + (hi - lo) * x), self.output)
            s = tf.gather(p, c, axis=1, batch_dims=1)
            total = tf.reduce_sum(-tf.math.log(tf.maximum(s, 1e-30)) if of == "loss" else s)
        return tape.gradient(total, x)

    @property
    def _rows(self) -> int:
        return max(1, min(self.batch_size, CHUNK_VALUES // int(np.prod(self.input_shape))))

    def raw_output(self, X) -> np.ndarray:
        return run_batched(self._fn("raw"), self._rows, self._check(X))

    def input_gradient(self, X, classes, of: str = "proba") -> np.ndarray:
        """Row by row, the gradient of ``p[classes[i]]`` (``of="proba"``) or ``-log p[classes[i]]``
        (``of="loss"``) with respect to the pixels ``X[i]`` (in [0, 1] units); shape of ``X``."""
        if of not in ("proba", "loss"):
            raise ValueError(f"of must be 'proba' or 'loss', got {of!r}")
        X = np.asarray(X, dtype=np.float32)
        self._check(X)
        c = class_indices(classes, len(X), self.n_classes)
        return run_batched(self._fn(of), self._rows, X, c)


def _probabilities(z: np.ndarray, output: str, source: str) -> np.ndarray:
    z = z.reshape(len(z), -1)
    if output == "max_logit":
        p = 1.0 / (1.0 + np.exp(-z.max(axis=1, initial=-np.inf)))
        return np.stack([1.0 - p, p], axis=1)
    if output == "logits":
        if z.shape[1] == 1:
            p = 1.0 / (1.0 + np.exp(-z[:, 0]))
            return np.stack([1.0 - p, p], axis=1)
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    return as_probability_matrix(z, len(z), source=source)


def _probabilities_graph(tf, z, output: str):
    """Graph code: :func:`_probabilities` (without the checks of ``"proba"``)."""
    z = tf.reshape(z, [tf.shape(z)[0], -1])
    if output == "max_logit":
        z = tf.reduce_max(z, axis=1, keepdims=True)
    if output in ("max_logit", "logits") and z.shape[1] == 1:
        p = tf.sigmoid(z)
        return tf.concat([1.0 - p, p], axis=1)
    if output == "logits":
        return tf.nn.softmax(z)
    return tf.concat([1.0 - z, z], axis=1) if z.shape[1] == 1 else z


def tflite_model(model, white_box: bool | None = None, **kwargs):
    """The ``.tflite`` file (or bytes) ``model`` as a fairnb model: a :class:`TFLiteGraph` (exact gradients)
    when ``white_box`` is True, or None and every operation converts and TensorFlow is installed; else a
    :class:`TFLiteModel` (interpreter, black box). ``kwargs`` go to the class."""
    if white_box is False:
        return TFLiteModel(model, **kwargs)
    if white_box is None:
        black = TFLiteModel(model, **kwargs)
        try:
            import tensorflow  # noqa: F401
        except ImportError:
            return black
        if black.flatbuffer.unsupported:
            return black
    return TFLiteGraph(model, **kwargs)

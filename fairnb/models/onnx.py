"""ONNX models through ONNX Runtime, as black boxes (``pip install fairnb[onnx]``).

Any framework that exports ONNX reaches fairnb this way: PyTorch (``torch.onnx.export``), Keras
(``model.export("m.onnx", format="onnx")``), scikit-learn (``skl2onnx``). The adapter finds the input
and the probability output, casts inputs to the input's dtype, runs in batches, and turns logits into
probabilities. No gradients: use the black-box methods (random, aequitas, sg, maft...).

Example
-------
>>> import numpy as np
>>> from onnx import TensorProto, helper
>>> graph = helper.make_graph(
...     [helper.make_node("MatMul", ["x", "w"], ["logits"])], "linear",
...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])],
...     [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [None, 2])],
...     [helper.make_tensor("w", TensorProto.FLOAT, [2, 2], [1.0, 0.0, 0.0, 1.0])])
>>> model = OnnxModel(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
>>> model
OnnxModel(input 'x' float32 x2 -> 'logits' (logits, softmaxed))
>>> model.predict_proba(np.array([[0.0, 0.0]])).tolist()
[[0.5, 0.5]]
"""
from __future__ import annotations

from numbers import Integral
from pathlib import Path

import numpy as np

from .base import as_probability_matrix
from .numpy_mlp import logits_to_proba

OUTPUTS = ("auto", "proba", "logits", "label")
ONNX_DTYPES = {"tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16,
               "tensor(int64)": np.int64, "tensor(int32)": np.int32}
_PROBE_SCALES = (1.0, 10.0, 100.0)       # random inputs that drive logits out of [0, 1]


class OnnxModel:
    """An ONNX classifier (a ``.onnx`` path, its bytes, or an ``onnxruntime.InferenceSession``).

    Parameters
    ----------
    input_name, output_name : which input (a model takes one) and output to use; by default the output
        holding class probabilities (a model with several outputs, such as skl2onnx's label and
        probabilities, gets its float tensor or probability map; ``repr`` names the one chosen).
    output : ``"proba"`` (rows of probabilities, or one column of P(y=1)), ``"logits"`` (softmaxed; one
        column sigmoided), ``"label"`` (class indices 0..k-1, one-hot over ``n_classes``: a label-only
        model), or ``"auto"``: probabilities when the output stays in [0, 1] with rows summing to 1 on
        random probe inputs, logits otherwise.
    batch_size : rows per ONNX Runtime call.
    """

    def __init__(self, model, input_name: str | None = None, output_name: str | None = None,
                 output: str = "auto", *, n_classes: int = 2, batch_size: int = 65536):
        if output not in OUTPUTS:
            raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, Integral) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive whole number of rows, got {batch_size!r}")
        self.session = onnx_session(model)
        inputs = self.session.get_inputs()
        if len(inputs) > 1:
            raise ValueError(f"the ONNX model takes {len(inputs)} inputs {[i.name for i in inputs]}; fairnb feeds a "
                             "model one tensor of features: export it with a single input (join the features "
                             "inside the model)")
        self.input = _pick(inputs, input_name, "input")
        if self.input.type not in ONNX_DTYPES:
            raise TypeError(f"ONNX input {self.input.name!r} holds {self.input.type}; fairnb feeds numeric "
                            "tensors (encode strings and categories before the model)")
        self.input_dtype = ONNX_DTYPES[self.input.type]
        outputs = self.session.get_outputs()
        self.output_names = [o.name for o in outputs]
        chosen = _pick(outputs, output_name, "output") if output_name else probability_output(outputs)
        if chosen.type == "tensor(string)":
            raise TypeError(f"ONNX output {chosen.name!r} holds strings ({chosen.type}); fairnb needs numeric "
                            "class probabilities, logits or label indices: choose another output_name, or "
                            "export the classifier with integer labels")
        self.output_name = chosen.name
        self.n_classes = n_classes
        self.batch_size = batch_size
        self.output = output
        if output == "auto":
            self.output = "label" if chosen.type in ("tensor(int64)", "tensor(int32)") else self._probe()

    # ------------------------------------------------------------------ description
    @property
    def n_features(self) -> int | None:
        """The input width, when the model fixes it."""
        width = self.input.shape[-1] if self.input.shape else None
        return width if isinstance(width, int) else None

    def __repr__(self):
        width = f" x{self.n_features}" if self.n_features else ""
        how = {"proba": "probabilities", "logits": "logits, softmaxed", "label": "labels, one-hot"}[self.output]
        others = [n for n in self.output_names if n != self.output_name]
        also = f"; also outputs {', '.join(map(repr, others))}" if others else ""
        return (f"OnnxModel(input {self.input.name!r} {np.dtype(self.input_dtype).name}{width} -> "
                f"{self.output_name!r} ({how}{also}))")

    # ------------------------------------------------------------------ evaluation
    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X)
        if not len(X):          # no rows: the columns of one (zero) row's answer, which ONNX Runtime knows
            return self.predict_proba(np.zeros((1, *X.shape[1:]), self.input_dtype))[:0]
        raw = self._raw(X)
        if self.output == "label":
            return (raw.reshape(-1)[:, None] == np.arange(self.n_classes)[None, :]).astype(float)
        if self.output == "logits":
            raw = raw.reshape(len(raw), -1)
            return logits_to_proba(raw, "sigmoid" if raw.shape[1] == 1 else "softmax")
        return as_probability_matrix(raw, len(raw), source=f"ONNX output {self.output_name!r}")

    def _raw(self, X) -> np.ndarray:
        """The chosen output on ``X``, batch by batch, as a float64 ``(n, k)`` (or ``(n,)``) array."""
        X = np.asarray(X)
        X = X.reshape(len(X), -1) if X.ndim > 2 and len(self.input.shape or ()) == 2 else X
        if self.n_features and X.shape[-1] != self.n_features:
            raise ValueError(f"the ONNX model takes inputs of width {self.n_features} (input {self.input.name!r}); "
                             f"got shape {X.shape}: the domain encodes {X.shape[-1]} features, so it does not "
                             "describe this model's inputs")
        X = X.astype(self.input_dtype, copy=False)
        parts = [self.session.run([self.output_name], {self.input.name: X[i:i + self.batch_size]})[0]
                 for i in range(0, len(X), self.batch_size)]
        return np.concatenate([as_array(p) for p in parts]) if parts else np.zeros((0, 2))

    def _probe(self) -> str:
        """``"proba"`` or ``"logits"``, judged on random inputs at several scales."""
        shape = [d if isinstance(d, int) else 1 for d in (self.input.shape or [1, 1])[1:]]
        rng = np.random.default_rng(0)
        X = np.concatenate([s * rng.normal(size=(32, *shape)) for s in _PROBE_SCALES])
        if np.issubdtype(self.input_dtype, np.integer):
            X = np.abs(X).round()
        raw = self._raw(X)
        in_range = raw.min() >= -1e-6 and raw.max() <= 1 + 1e-6
        sums_to_one = raw.ndim == 1 or raw.shape[1] == 1 or np.allclose(raw.sum(axis=1), 1.0, atol=1e-4)
        return "proba" if in_range and sums_to_one else "logits"


def _onnxruntime():
    try:
        import onnxruntime
    except ImportError:
        raise ImportError("ONNX models need onnxruntime: pip install 'fairnb[onnx]'") from None
    return onnxruntime


def onnx_session(model):
    """An ``onnxruntime.InferenceSession`` on the CPU of ``model``: a .onnx path, its bytes, or a session (as it is);
    a clear error for a missing, damaged or non-ONNX file."""
    ort = _onnxruntime()
    if isinstance(model, ort.InferenceSession):
        return model
    if isinstance(model, (bytes, bytearray)):
        source, what = bytes(model), f"the {len(model):,} bytes given"
    elif isinstance(model, (str, Path)):
        if not Path(model).is_file():
            raise FileNotFoundError(f"model file {str(model)!r} not found")
        source, what = str(model), f"{model}"
    else:
        raise TypeError(f"OnnxModel takes a .onnx path, its bytes or an onnxruntime.InferenceSession, "
                        f"not a {type(model).__name__}")
    try:
        return ort.InferenceSession(source, providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 - ONNX Runtime's own exception types (InvalidProtobuf, Fail, ...)
        raise ValueError(f"{what}: ONNX Runtime cannot load it ({type(e).__name__}: {e}); it is damaged or "
                         "truncated, or not an ONNX model") from None


def _pick(args, name: str | None, what: str):
    names = [a.name for a in args]
    if name is not None:
        if name not in names:
            raise ValueError(f"the ONNX model has no {what} {name!r}; its {what}s: {names}")
        return args[names.index(name)]
    if len(args) != 1:
        raise ValueError(f"the ONNX model has {len(args)} {what}s {names}: choose one with {what}_name=")
    return args[0]


def probability_output(outputs):
    """The output most likely to hold class scores: a float tensor or probability map (named like
    probabilities first), else an integer label tensor, else the first output."""
    def rank(o):
        numeric = o.type in ("tensor(float)", "tensor(double)", "tensor(float16)") or o.type.startswith("seq(map(")
        return (not numeric, "prob" not in o.name.lower(), o.type not in ("tensor(int64)", "tensor(int32)"))

    return min(outputs, key=rank)


def as_array(part) -> np.ndarray:
    """An output batch as floats: skl2onnx's ZipMap output (a list of {class: probability}) by class order."""
    if isinstance(part, list):
        keys = list(part[0]) if part else []
        return np.array([[row[k] for k in keys] for row in part], dtype=float).reshape(len(part), len(keys))
    return np.asarray(part, dtype=float)

"""ONNX models through ONNX Runtime: a round trip keeps predictions and search pairs; outputs, dtypes and
names are detected; bad models get clear errors."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper
from skl2onnx import to_onnx
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier

import fairnb
from fairnb.models import OnnxModel, load_model, wrap


def linear_onnx(W, b=None, dtype=TensorProto.FLOAT, activation=None) -> bytes:
    """``x @ W (+ b)``, optionally through an activation node, as ONNX bytes (built with onnx.helper)."""
    W = np.asarray(W, dtype=float)
    nodes = [helper.make_node("MatMul", ["x", "W"], ["z" if b is not None or activation else "y"])]
    inits = [helper.make_tensor("W", dtype, W.shape, W.ravel().tolist())]
    if b is not None:
        nodes.append(helper.make_node("Add", ["z", "b"], ["a" if activation else "y"]))
        inits.append(helper.make_tensor("b", dtype, [len(b)], list(map(float, b))))
    if activation:
        nodes.append(helper.make_node(activation, ["a" if b is not None else "z"], ["y"]))
    graph = helper.make_graph(nodes, "linear", [helper.make_tensor_value_info("x", dtype, [None, W.shape[0]])],
                              [helper.make_tensor_value_info("y", dtype, [None, W.shape[1]])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


@pytest.fixture(scope="module")
def census_like():
    data = fairnb.datasets.make_synthetic(n=1500, strength=2.0, random_state=0)
    X = data.X.to_numpy(dtype=float)
    clf = MLPClassifier((16, 8), max_iter=300, random_state=0).fit(X, data.y)
    return data, X, clf


def test_round_trip_keeps_predictions_and_search_pairs(census_like, tmp_path):
    data, X, clf = census_like
    path = tmp_path / "mlp.onnx"
    path.write_bytes(to_onnx(clf, X[:1], options={"zipmap": False}).SerializeToString())   # float64 graph
    model = load_model(path)
    assert isinstance(model, OnnxModel) and model.output == "proba"
    assert "'probabilities'" in repr(model) and "also outputs 'label'" in repr(model)
    assert np.allclose(model.predict_proba(X), clf.predict_proba(X), atol=1e-12, rtol=0)
    for method in ("aequitas", "maft"):
        kw = dict(seeds=data.X, max_tried=3000, random_state=0, progress=False)
        original = fairnb.run_search(clf, data.domain, method, **kw)
        exported = fairnb.run_search(model, data.domain, method, **kw)
        assert len(original.inputs) > 0
        assert np.array_equal(original.inputs, exported.inputs)
        assert np.array_equal(original.counterparts, exported.counterparts)


def test_skl2onnx_defaults_float32_and_probability_map(census_like):
    """skl2onnx's default export: float32 input, a label tensor and a ZipMap list of {class: p}."""
    data, X, clf = census_like
    session = onnxruntime.InferenceSession(to_onnx(clf, X[:1].astype(np.float32)).SerializeToString())
    model = wrap(session)
    assert isinstance(model, OnnxModel) and model.input_dtype == np.float32
    assert model.output_name == "output_probability" and model.output == "proba"
    assert np.allclose(model.predict_proba(X), clf.predict_proba(X), atol=1e-5)
    labels = OnnxModel(session, output_name="output_label")
    assert labels.output == "label"
    assert np.array_equal(labels.predict_proba(X).argmax(1), clf.predict(X))


def test_logits_are_detected_and_softmaxed(rng):
    W = rng.normal(size=(3, 2))
    X = rng.normal(size=(20, 3))
    z = X @ W
    model = OnnxModel(linear_onnx(W))
    assert model.output == "logits" and "softmaxed" in repr(model)
    expected = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    assert np.allclose(model.predict_proba(X), expected, atol=1e-6)
    one = OnnxModel(linear_onnx(W[:, :1], b=[0.5], dtype=TensorProto.DOUBLE))       # one logit column
    assert one.output == "logits" and one.input_dtype == np.float64
    p = 1 / (1 + np.exp(-(X @ W[:, :1] + 0.5)[:, 0]))
    assert np.allclose(one.predict_proba(X), np.c_[1 - p, p], atol=1e-12)
    sigmoid = OnnxModel(linear_onnx(W[:, :1], b=[0.5], dtype=TensorProto.DOUBLE, activation="Sigmoid"))
    assert sigmoid.output == "proba"
    assert np.allclose(sigmoid.predict_proba(X), np.c_[1 - p, p], atol=1e-12)
    softmax = OnnxModel(linear_onnx(W, activation="Softmax"))
    assert softmax.output == "proba"
    assert np.allclose(softmax.predict_proba(X), expected, atol=1e-6)
    with pytest.raises(ValueError, match="not a probability"):
        OnnxModel(linear_onnx(W), output="proba").predict_proba(10 * X)


def test_batches_and_casts(rng):
    W = rng.normal(size=(4, 2))
    X = rng.integers(0, 5, size=(25, 4))                  # integer inputs, cast to the graph's float32
    model = OnnxModel(linear_onnx(W, activation="Softmax"), batch_size=7)
    whole = OnnxModel(linear_onnx(W, activation="Softmax"))
    assert np.array_equal(model.predict_proba(X), whole.predict_proba(X))


def test_width_mismatch_is_explained(rng):
    model = OnnxModel(linear_onnx(rng.normal(size=(4, 2))))
    assert model.n_features == 4
    with pytest.raises(ValueError, match="takes inputs of width 4 .* the domain encodes 13 features"):
        model.predict_proba(np.zeros((2, 13)))
    data = fairnb.datasets.make_synthetic(n=200, random_state=0)
    with pytest.raises(ValueError, match="width 4 .* the domain encodes 7 features"):
        fairnb.run_search(model, data.domain, "random", max_tried=100, random_state=0, progress=False)


def test_string_outputs_and_bad_names_are_refused(rng):
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] > 0, "yes", "no")
    lr = LogisticRegression().fit(X, y)
    onx = to_onnx(lr, X[:1].astype(np.float32)).SerializeToString()
    model = OnnxModel(onx)                                     # the probability map, keyed by strings
    assert model.output_name == "output_probability" and model.output == "proba"
    assert np.allclose(model.predict_proba(X), lr.predict_proba(X), atol=1e-5)
    with pytest.raises(TypeError, match="'output_label' holds strings"):
        OnnxModel(onx, output_name="output_label")
    with pytest.raises(ValueError, match="no output 'p'; its outputs: \\['output_label', 'output_probability'\\]"):
        OnnxModel(onx, output_name="p")
    with pytest.raises(ValueError, match="output must be one of"):
        OnnxModel(onx, output="probabilities")
    with pytest.raises(FileNotFoundError, match="no-such.onnx"):
        OnnxModel("no-such.onnx")
    with pytest.raises(TypeError, match="not a int"):
        OnnxModel(3)


def test_gradient_methods_are_refused(rng):
    data = fairnb.datasets.make_synthetic(n=200, random_state=0)
    model = OnnxModel(linear_onnx(rng.normal(size=(data.domain.n_features, 2))))
    with pytest.raises(TypeError, match="eidig needs input gradients"):
        fairnb.run_search(model, data.domain, "eidig", max_tried=100, progress=False)


def test_missing_onnxruntime_names_the_extra():
    code = ("import sys; sys.modules['onnxruntime'] = None; import fairnb\n"
            "try:\n    fairnb.models.OnnxModel('m.onnx')\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "pip install 'fairnb[onnx]'" in out.stdout, out.stdout + out.stderr
    light = subprocess.run([sys.executable, "-c", "import sys, fairnb; print(sorted({m.split('.')[0] for m in "
                            "sys.modules} & {'onnxruntime', 'onnx', 'skl2onnx', 'sklearn', 'tensorflow'}))"],
                           capture_output=True, text=True)
    assert light.stdout.strip() == "[]", light.stdout + light.stderr


@pytest.mark.parametrize("batch_size", [0, -5, 2.5, True, "8", None])
def test_a_batch_size_that_is_no_positive_whole_number_is_named(batch_size, rng):
    with pytest.raises(ValueError, match=rf"batch_size must be a positive whole number of rows, got {batch_size!r}"):
        OnnxModel(linear_onnx(rng.normal(size=(3, 2))), batch_size=batch_size)


@pytest.mark.parametrize("output", ["auto", "logits", "label"])
def test_zero_rows_give_zero_rows_of_probabilities(output, rng):
    model = OnnxModel(linear_onnx(rng.normal(size=(3, 2)), activation="Softmax" if output == "auto" else None),
                      output=output)
    assert model.predict_proba(np.zeros((0, 3))).shape == (0, 2)


def test_a_model_with_two_inputs_is_refused_as_one():
    graph = helper.make_graph([helper.make_node("Add", ["a", "b"], ["y"])], "two",
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, [None, 2]) for n in "ab"],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 2])])
    two = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    for kw in ({}, {"input_name": "a"}):
        with pytest.raises(ValueError, match=r"takes 2 inputs \['a', 'b'\]; fairnb feeds a model one tensor"):
            OnnxModel(two, **kw)


def test_bytes_that_are_no_onnx_model_are_named(tmp_path):
    with pytest.raises(ValueError, match=r"the 17 bytes given: ONNX Runtime cannot load it .*not an ONNX model"):
        OnnxModel(b"not an onnx model")
    path = tmp_path / "m.onnx"
    path.write_bytes(b"not an onnx model")
    with pytest.raises(ValueError, match=r"m.onnx: ONNX Runtime cannot load it .*not an ONNX model"):
        load_model(path)

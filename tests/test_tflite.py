"""TFLite models (fairnb.models.tflite): a tiny model built here with TensorFlow's converter, holding every
supported operation (float16 weights: DEQUANTIZE), read by the interpreter and converted to a TensorFlow graph;
a refused operation named; load_model; BlazeFace fetched from its pinned wheel (hash checked) and run once."""
from __future__ import annotations

import zipfile

import numpy as np
import pytest

from fairnb.models import TFLiteGraph, TFLiteModel, load_model
from fairnb.models import mediapipe as blazeface_module
from fairnb.models.tflite import SUPPORTED, read_flatbuffer, tflite_model
from fairnb.store import DownloadError, WheelFile

tf = pytest.importorskip("tensorflow")
pytest.importorskip("ai_edge_litert")
SHAPE = (12, 12, 3)


def _convert(fn, module) -> bytes:
    converter = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()], module)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.target_spec.supported_types = [tf.float16]            # weights stored as float16: DEQUANTIZE ops
    return converter.convert()


class Tiny(tf.Module):
    """Every supported operation: RELU, CONV_2D (SAME stride 2 with a fused RELU; 1x1 VALID), DEPTHWISE_CONV_2D
    (multiplier 2), ADD (fused RELU), PAD + MAX_POOL_2D, RESHAPE, CONCATENATION, FULLY_CONNECTED, SOFTMAX and
    LOGISTIC (two outputs: three class probabilities and one score)."""

    def __init__(self, tanh: bool = False):
        rng = np.random.default_rng(0)
        const = lambda *shape: tf.constant(rng.normal(0, 0.3, shape).astype(np.float32))  # noqa: E731
        self.k1, self.b1, self.dw, self.db = const(3, 3, 3, 4), const(4), const(3, 3, 4, 2), const(8)
        self.k2, self.k3, self.w, self.b, self.v = const(1, 1, 8, 4), const(3, 3, 4, 4), const(180, 3), const(3), const(3, 1)
        self.tanh = tanh

    @tf.function(input_signature=[tf.TensorSpec([1, *SHAPE], tf.float32)])
    def __call__(self, x):
        h = tf.nn.relu(tf.nn.conv2d(tf.nn.relu(x), self.k1, 2, "SAME") + self.b1)
        if self.tanh:
            h = tf.tanh(h)
        d = tf.nn.depthwise_conv2d(h, self.dw, [1, 1, 1, 1], "SAME") + self.db
        s = tf.nn.relu(tf.nn.conv2d(d, self.k2, 1, "VALID") + tf.nn.conv2d(h, self.k3, 1, "SAME"))
        m = tf.nn.max_pool2d(tf.pad(s, [[0, 0], [1, 0], [1, 0], [0, 0]]), 2, 2, "VALID")
        cat = tf.concat([tf.reshape(m, [1, 9, 4]), tf.reshape(h, [1, 36, 4])], axis=1)
        z = tf.matmul(tf.reshape(cat, [1, 180]), self.w) + self.b
        return {"proba": tf.nn.softmax(z), "score": tf.sigmoid(tf.matmul(z, self.v))}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    net = Tiny()
    path = tmp_path_factory.mktemp("tflite") / "tiny.tflite"
    path.write_bytes(_convert(net.__call__, net))
    return path


def _output(path, size: int) -> str:
    """The name of the output with ``size`` values (the converter names them PartitionedCall:k)."""
    shapes = read_flatbuffer(path.read_bytes()).output_shapes
    return next(name for name, shape in shapes.items() if int(np.prod(shape)) == size)


def images(n, seed=0):
    return np.random.default_rng(seed).uniform(0, 1, (n, *SHAPE))


def test_every_supported_operation_is_in_the_tiny_model_and_float16_weights_are_dequantized(tiny):
    fb = read_flatbuffer(tiny.read_bytes())
    assert set(SUPPORTED) - {"DEQUANTIZE"} <= {op.name for op in fb.operations} and not fb.unsupported
    halves = [d for d in TFLiteModel(tiny, output_name=_output(tiny, 3))._interpret().get_tensor_details()
              if d["dtype"] == np.float16]
    assert halves                                               # the weights are stored at half precision ...
    used = [fb.constants[i] for op in fb.operations for i in op.inputs if i in fb.constants]
    assert any(c.dtype == np.float16 for c in fb.constants.values())
    assert all(c.dtype != np.float16 for c in used) and any(c.ndim == 4 for c in used)  # ... folded to float32


@pytest.mark.parametrize("size, output", [(3, "proba"), (1, "proba"), (3, "logits")])
def test_the_converted_graph_matches_the_interpreter_with_a_free_batch(tiny, size, output):
    name = _output(tiny, size)
    black, white = TFLiteModel(tiny, name, output), TFLiteGraph(tiny, name, output)
    X = images(7)
    raw = black.raw_output(X)
    assert raw.shape == (7, size) and np.abs(white.raw_output(X) - raw).max() < 1e-5      # one graph call, 7 rows
    P = black.predict_proba(X)
    assert P.shape == (7, max(size, 2)) and np.allclose(P.sum(1), 1) and np.abs(white.predict_proba(X) - P).max() < 1e-5
    if output == "logits":                                       # the probabilities softmaxed once more
        assert np.allclose(P, np.exp(raw) / np.exp(raw).sum(1, keepdims=True))
    if size == 1:
        assert np.allclose(P, np.c_[1 - raw, raw])


@pytest.mark.parametrize("of", ["proba", "loss"])
def test_gradients_agree_with_central_differences_of_the_interpreter(tiny, of):
    name = _output(tiny, 3)
    black, white = TFLiteModel(tiny, name), TFLiteGraph(tiny, name)
    X, c = images(4, seed=1), np.array([0, 1, 2, 0])
    G = white.input_gradient(X, c, of=of)
    assert G.shape == X.shape
    V = np.random.default_rng(2).normal(size=X.shape)
    V /= np.sqrt((V ** 2).sum(axis=(1, 2, 3), keepdims=True))              # unit directions
    h = 1e-2
    f = lambda Z: black.predict_proba(Z)[np.arange(4), c]                    # noqa: E731
    f = (lambda Z, p=f: -np.log(p(Z))) if of == "loss" else f
    slope = (f(X + h * V) - f(X - h * V)) / (2 * h)
    assert np.allclose((G * V).sum(axis=(1, 2, 3)), slope, rtol=0.02, atol=2e-4)


def test_an_operation_that_does_not_convert_is_refused_by_name_and_runs_as_a_black_box(tmp_path):
    net = Tiny(tanh=True)
    path = tmp_path / "tanh.tflite"
    path.write_bytes(_convert(net.__call__, net))
    name = _output(path, 3)
    with pytest.raises(ValueError, match=r"\['TANH'\] do not convert.*white_box=False"):
        TFLiteGraph(path, name)
    model = tflite_model(path, output_name=name)                # white box when possible: here it is not
    assert type(model) is TFLiteModel and model.predict_proba(images(2)).shape == (2, 3)


def test_both_adapters_pickle_and_answer_alike_after(tiny):
    import pickle

    X = images(3)
    for model in (TFLiteModel(tiny, _output(tiny, 3)), TFLiteGraph(tiny, _output(tiny, 3))):
        before = model.predict_proba(X)                     # the interpreter or traced graph exists now
        assert np.array_equal(pickle.loads(pickle.dumps(model)).predict_proba(X), before)


def test_load_model_reads_tflite_files_as_white_or_black_boxes(tiny, tmp_path):
    name = _output(tiny, 3)
    assert type(load_model(tiny, output_name=name)) is TFLiteGraph
    assert type(load_model(tiny, white_box=False, output_name=name)) is TFLiteModel
    with pytest.raises(ValueError, match="has outputs"):
        load_model(tiny)
    with pytest.raises(ValueError, match=r"takes images of shape \(n, 12, 12, 3\)"):
        load_model(tiny, output_name=name).predict_proba(np.zeros((1, 8, 8, 3)))
    (tmp_path / "text.tflite").write_text("not a model")
    with pytest.raises(ValueError, match="text.tflite: not a TFLite model"):
        load_model(tmp_path / "text.tflite")
    (tmp_path / "m.tflite").write_bytes(tiny.read_bytes())
    (tmp_path / "m.tflite.sha256").write_text("0" * 64)
    with pytest.raises(ValueError, match="does not match the SHA-256 in m.tflite.sha256"):
        load_model(tmp_path / "m.tflite", output_name=name)


# ---------------------------------------------------------------------------------------------- BlazeFace
def _fake_wheel(path, content: bytes):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(blazeface_module.BLAZEFACE.member, content)
    return path


def test_a_file_whose_hash_is_not_the_pinned_one_is_refused_and_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRNB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("FAIRNB_MODELS", raising=False)
    wheel = _fake_wheel(tmp_path / "mediapipe.whl", b"not the detector")
    with pytest.raises(ValueError, match="does not match face_detection_short_range.tflite of mediapipe==0.10.21"):
        blazeface_module.blazeface_file(wheel=wheel)
    assert not list((tmp_path / "cache").rglob("*.tflite"))
    import hashlib

    pinned = WheelFile(**{**vars(blazeface_module.BLAZEFACE), "sha256": hashlib.sha256(b"not the detector").hexdigest()})
    monkeypatch.setattr(blazeface_module, "BLAZEFACE", pinned)       # the pin moved: the same wheel is taken, cached
    got = blazeface_module.blazeface_file(wheel=wheel)
    assert got == tmp_path / "cache" / "models" / "face_detection_short_range.tflite" and got.read_bytes() == b"not the detector"
    assert blazeface_module.blazeface_file(download=False) == got                    # the cached copy, re-checked


def test_offline_with_nothing_cached_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRNB_CACHE", str(tmp_path))
    monkeypatch.setenv("FAIRNB_DOWNLOAD", "0")
    monkeypatch.delenv("FAIRNB_MODELS", raising=False)
    with pytest.raises(DownloadError, match=r"downloads are off.*pip download --no-deps mediapipe==0\.10\.21.*wheel="):
        blazeface_module.blazeface()


def test_a_failed_pip_download_is_named_with_what_to_do_offline(tmp_path):
    import sys

    failing_pip = [sys.executable, "-c", "import sys; sys.exit('ERROR: no network here')"]
    with pytest.raises(DownloadError, match=r"could not download mediapipe==0\.10\.21 \(ERROR: no network here\)\. "
                                            r"Without network, download the wheel elsewhere.*wheel="):
        blazeface_module.BLAZEFACE.fetch(tmp_path, pip=failing_pip)
    assert not list(tmp_path.rglob("*"))


@pytest.fixture(scope="module")
def blazeface_path():
    try:
        return blazeface_module.blazeface_file()
    except (DownloadError, OSError) as e:
        pytest.skip(f"BlazeFace unavailable: the mediapipe==0.10.21 wheel could not be fetched and no cached copy "
                    f"exists ({e})")


@pytest.mark.slow
def test_blazeface_runs_in_the_interpreter_and_the_converted_graph_alike(blazeface_path):
    from skimage.data import lfw_subset
    from skimage.transform import resize

    faces = lfw_subset()[:4]                                     # 25 x 25 grey faces, on a 128 x 128 canvas
    X = np.full((6, 128, 128, 3), 0.5)
    X[:4, 24:104, 24:104] = resize(faces, (4, 80, 80))[..., None]
    X[4:] = np.random.default_rng(0).uniform(0, 1, (2, 128, 128, 3))
    black = blazeface_module.blazeface(white_box=False)
    white = blazeface_module.blazeface()
    assert type(black) is TFLiteModel and type(white) is TFLiteGraph
    P = black.predict_proba(X)
    assert P.shape == (6, 2) and np.abs(white.predict_proba(X) - P).max() < 1e-5
    assert white.input_gradient(X[:2], [1, 1]).shape == (2, 128, 128, 3)


def test_the_blazeface_benchmark_writes_a_report_of_the_searches_alone():
    """``benchmarks/blazeface.py --parts searches`` into a fresh ``--out``: the report holds no speed part, and
    writing it used to fail with KeyError('speed')."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "blazeface.py"
    spec = importlib.util.spec_from_file_location("blazeface_benchmark", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    row = {"method": "eidig_image", "model": "graph (exact gradients)", "seeds": 4, "idis": 3, "tried": 40,
           "model_rows": 80, "seconds": 1.0, "status": "budget", "idis_per_minute": 180.0}
    text = bench.markdown({"searches": [row], "seed_detection": {"faces": 4, "light": 1.0, "dark": 0.5},
                           "searches_run": {"command": "python benchmarks/blazeface.py --parts searches",
                                            "uptime_before": "-", "uptime_after": "-"}})
    assert "## IDIs per minute" in text and "## Speed" not in text
    assert "| `eidig_image` | graph (exact gradients) |" in text

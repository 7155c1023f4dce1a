"""Keras model files and the TensorFlow adapter: loading, the white-box protocol, no TF on import."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fairnb.models import NumpyMLP, load_model, wrap
from fairnb.models.keras import load_keras_model, read_h5_dense_layers

ROOT = Path(__file__).resolve().parents[1]


def finite_difference(f, X, eps=1e-5):
    """Central differences of a row-wise scalar function ``f(X) -> (n,)``, shape ``(n, d)``."""
    G = np.zeros_like(X)
    for j in range(X.shape[1]):
        E = np.zeros_like(X)
        E[:, j] = eps
        G[:, j] = (f(X + E) - f(X - E)) / (2 * eps)
    return G


# ---------------------------------------------------------------------------------------------- no TF


@pytest.mark.shared
def test_importing_fairnb_and_loading_h5_with_numpy_does_not_import_tensorflow(models_dir):
    code = ("import sys, fairnb, fairnb.models.keras\n"
            f"m = fairnb.models.load_model({str(models_dir / 'adult_model.h5')!r})\n"
            "assert type(m).__name__ == 'NumpyMLP', m\n"
            "heavy = sorted(k for k in sys.modules if k.split('.')[0] in ('tensorflow', 'keras'))\n"
            "assert not heavy, heavy[:5]\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------------------------------------- h5 files


@pytest.mark.shared
def test_h5_reader_gives_the_published_architecture(models_dir):
    layers = read_h5_dense_layers(models_dir / "adult_model.h5")
    assert [layer["units"] for layer in layers] == [30, 20, 15, 15, 10, 1]
    assert [layer["activation"] for layer in layers] == ["relu"] * 5 + ["sigmoid"]
    model = load_model(models_dir / "german_model.h5")
    assert isinstance(model, NumpyMLP) and model.n_features == 24 and model.layer_sizes == [50, 30, 15, 10, 5, 1]


def test_model_file_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="model file .*nothing.h5.* not found"):
        load_model(tmp_path / "nothing.h5")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ValueError, match=r"\.h5 \(Keras 2\) or \.keras"):
        load_model(tmp_path / "notes.txt")
    (tmp_path / "fake.h5").write_text("not hdf5")
    with pytest.raises(ValueError, match="not an HDF5 Keras model file"):
        load_model(tmp_path / "fake.h5")
    with pytest.raises(ValueError, match="backend must be"):
        load_model(tmp_path / "fake.h5", backend="torch")


def test_weights_only_and_unsupported_h5(tmp_path):
    import h5py

    with h5py.File(tmp_path / "weights.h5", "w") as f:
        f.create_dataset("dense/kernel:0", data=np.zeros((2, 1)))
    with pytest.raises(ValueError, match="no model architecture"):
        load_model(tmp_path / "weights.h5")
    with h5py.File(tmp_path / "conv.h5", "w") as f:
        f.attrs["model_config"] = ('{"class_name": "Sequential", "config": {"layers": '
                                   '[{"class_name": "Conv2D", "config": {"name": "c"}}]}}')
    with pytest.raises(ValueError, match="Conv2D is not supported"):
        load_model(tmp_path / "conv.h5")


@pytest.mark.shared
def test_model_and_dataset_widths_must_match(models_dir, data_dir):
    import fairnb

    german = fairnb.datasets.load("german", data_dir)
    model = load_model(models_dir / "adult_model.h5")
    with pytest.raises(ValueError, match="inputs of width 12; got shape"):
        fairnb.accuracy(model, german.X.to_numpy(float), german.y)


# ---------------------------------------------------------------------------------------------- KerasModel


def _keras_mlp(d=5, hidden=(8, 6), k=3, seed=0):
    import keras

    keras.utils.set_random_seed(seed)
    out = "sigmoid" if k == 1 else "softmax"
    return keras.Sequential([keras.Input((d,))] + [keras.layers.Dense(h, activation="relu") for h in hidden]
                            + [keras.layers.Dense(k, activation=out)])


@pytest.mark.tf
@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("numpy_below", [0, 2048])          # TensorFlow for every batch, or the numpy twin
def test_keras_adapter_matches_numpy_backprop(k, numpy_below, rng):
    from fairnb.models.keras import KerasModel

    model = KerasModel(_keras_mlp(k=k), numpy_below=numpy_below)
    assert (model._twin is not None) == bool(numpy_below)
    reference = model.to_numpy()
    X = rng.normal(size=(40, 5)) * 2
    P = model.predict_proba(X)
    assert P.shape == (40, max(k, 2)) and np.allclose(P.sum(axis=1), 1)
    assert np.allclose(P, reference.predict_proba(X), atol=1e-6)
    classes = rng.integers(0, max(k, 2), size=40)
    for of in ("proba", "loss"):
        G = model.input_gradient(X, classes, of=of)
        assert np.allclose(G, reference.input_gradient(X, classes, of=of), atol=1e-5)
    target = lambda Z: reference.predict_proba(Z)[np.arange(len(Z)), classes]     # noqa: E731
    assert np.allclose(model.input_gradient(X, classes), finite_difference(target, X), atol=1e-4)
    acts, ref_acts = model.layer_outputs(X), reference.layer_outputs(X)
    assert [a.shape for a in acts] == [(40, 8), (40, 6)]
    assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(acts, ref_acts))
    W = rng.normal(size=(40, 6))
    assert np.allclose(model.activation_gradient(X, 1, W), reference.activation_gradient(X, 1, W), atol=1e-5)


@pytest.mark.tf
@pytest.mark.parametrize("numpy_below", [0, 2048])
def test_loss_gradient_comes_from_logits_and_survives_saturation(numpy_below, rng):
    from fairnb.models.keras import KerasModel

    keras_model = _keras_mlp(k=1)
    last = keras_model.layers[-1]
    last.set_weights([last.get_weights()[0] * 1e4, last.get_weights()[1]])   # saturated sigmoid
    model = KerasModel(keras_model, numpy_below=numpy_below)
    X = rng.normal(size=(20, 5))
    P = model.predict_proba(X)
    wrong = (P[:, 1] < 0.5).astype(int)               # the class the model is sure is wrong
    G = model.input_gradient(X, wrong, of="loss")
    assert np.isfinite(G).all() and (np.abs(G).sum(axis=1) > 0).all()


@pytest.mark.tf
def test_one_graph_for_all_batch_sizes_and_chunking(rng):
    from fairnb.models.keras import KerasModel

    model = KerasModel(_keras_mlp(), batch_size=7, numpy_below=0)
    X = rng.normal(size=(30, 5))
    full = model.predict_proba(X)
    for n in (1, 3, 30):
        assert np.allclose(model.predict_proba(X[:n]), full[:n], atol=1e-6)
        model.input_gradient(X[:n], 0)
    assert model._proba_fn.experimental_get_tracing_count() == 1
    assert model._grad_fns["proba"].experimental_get_tracing_count() == 1
    assert model.predict_proba(np.zeros((0, 5))).shape == (0, 3)
    with pytest.raises(ValueError, match="inputs of width 5"):
        model.predict_proba(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="not a hidden layer"):
        model.activation_gradient(X, 2, np.ones(6))
    with pytest.raises(ValueError, match="of must be"):
        model.input_gradient(X, 0, of="logit")


@pytest.mark.tf
def test_native_keras_file_loads_with_both_backends(tmp_path, rng):
    import keras

    keras_model = _keras_mlp(k=2)
    keras_model.save(tmp_path / "m.keras")
    X = rng.normal(size=(10, 5))
    as_keras = load_model(tmp_path / "m.keras", backend="keras")
    as_numpy = load_model(tmp_path / "m.keras")
    assert type(as_keras).__name__ == "KerasModel" and isinstance(as_numpy, NumpyMLP)
    assert np.allclose(as_keras.predict_proba(X), as_numpy.predict_proba(X), atol=1e-6)

    with_dropout = keras.Sequential([keras.Input((5,)), keras.layers.Dense(4, activation="relu"),
                                     keras.layers.Dropout(0.5), keras.layers.Dense(2, activation="softmax")])
    with_dropout.save(tmp_path / "d.keras")
    as_numpy = load_keras_model(tmp_path / "d.keras")       # Dropout does nothing at inference
    assert isinstance(as_numpy, NumpyMLP) and as_numpy.layer_sizes == [4, 2]
    assert np.allclose(as_numpy.predict_proba(X), with_dropout.predict(X, verbose=0), atol=1e-6)
    with_batchnorm = keras.Sequential([keras.Input((5,)), keras.layers.Dense(4, activation="relu"),
                                       keras.layers.BatchNormalization(), keras.layers.Dense(2, activation="softmax")])
    with_batchnorm.save(tmp_path / "b.keras")
    model = load_keras_model(tmp_path / "b.keras")          # not a plain Dense stack: stays a KerasModel
    assert type(model).__name__ == "KerasModel" and model.layer_sizes == [4, 2] and model._twin is None


@pytest.mark.tf
def test_a_normalization_layer_folds_into_the_numpy_twin_and_small_batches_skip_tensorflow(rng):
    """The tutorial's model (Normalization, then Dense layers) runs small batches in numpy: no TensorFlow
    call, no trace, the same outputs; large batches go to the one traced graph."""
    import keras

    from fairnb.models.keras import KerasModel

    X = rng.normal(loc=3.0, scale=[1, 5, 0.1, 2, 10], size=(200, 5))
    norm = keras.layers.Normalization()
    norm.adapt(X)
    net = keras.Sequential([keras.Input((5,)), norm, keras.layers.Dense(8, activation="relu"),
                            keras.layers.Dense(1, activation="sigmoid")])
    model = KerasModel(net, numpy_below=100)
    assert model.is_dense_stack and model._twin is not None
    expected = net.predict(X, verbose=0)[:, 0]
    assert np.allclose(model.predict_proba(X[:50])[:, 1], expected[:50], atol=1e-5)
    assert model._proba_fn.experimental_get_tracing_count() == 0           # the twin answered
    assert np.allclose(model.predict_proba(X)[:, 1], expected, atol=1e-5)    # 200 rows: TensorFlow
    assert model._proba_fn.experimental_get_tracing_count() == 1
    assert np.allclose(model.input_gradient(X[:50], 1), KerasModel(net, numpy_below=0).input_gradient(X[:50], 1),
                       atol=1e-5)


@pytest.mark.tf
def test_an_h5_file_with_a_normalization_layer_loads_with_both_backends(tmp_path, rng):
    import keras

    X = rng.normal(loc=3.0, scale=[1, 5, 0.1, 2, 10], size=(100, 5))
    norm = keras.layers.Normalization()
    norm.adapt(X)
    net = keras.Sequential([keras.Input((5,)), norm, keras.layers.Dense(8, activation="relu"),
                            keras.layers.Dense(1, activation="sigmoid")])
    net.save(tmp_path / "n.h5")
    expected = net.predict(X, verbose=0)[:, 0]
    for backend in ("numpy", "keras"):
        model = load_model(tmp_path / "n.h5", backend=backend)
        assert model.layer_sizes == [8, 1] and np.allclose(model.predict_proba(X)[:, 1], expected, atol=1e-5)


@pytest.mark.tf
def test_models_without_probability_output_are_rejected():
    import keras

    from fairnb.models.keras import KerasModel

    logits = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="must give class probabilities"):
        KerasModel(logits)
    with pytest.raises(TypeError, match="needs a keras.Model"):
        KerasModel(object())


@pytest.mark.tf
def test_one_adapter_per_keras_model_no_retracing_and_fresh_weights(rng):
    """Searching the same raw Keras model again and again reuses its adapter (TensorFlow logged "triggered
    tf.function retracing" from the fifth call on), and weights changed in between are seen."""
    import logging

    import tensorflow as tf

    import fairnb

    net = _keras_mlp(k=1)
    X = rng.normal(size=(5000, 5))                      # above numpy_below: TensorFlow answers
    y = (X[:, 0] > 0).astype(int)
    messages = []
    handler = logging.Handler()
    handler.emit = lambda record: messages.append(record.getMessage())
    tf.get_logger().addHandler(handler)
    try:
        for _ in range(8):
            fairnb.accuracy(net, X, y)
    finally:
        tf.get_logger().removeHandler(handler)
    assert not [m for m in messages if "retracing" in m]
    adapter = wrap(net)
    assert wrap(net) is adapter and adapter._proba_fn.experimental_get_tracing_count() == 1
    last = net.layers[-1]
    last.set_weights([-last.get_weights()[0], -last.get_weights()[1]])      # "trained further"
    fresh = net.predict(X[:10], verbose=0)[:, 0]
    assert np.allclose(wrap(net).predict_proba(X[:10])[:, 1], fresh, atol=1e-5)   # twin re-read
    assert np.allclose(adapter.predict_proba(X)[:10, 1], fresh, atol=1e-5)          # graphs read live weights

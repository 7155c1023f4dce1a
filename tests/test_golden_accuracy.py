"""The published EIDIG/MAFT models reproduce their published test accuracies, with both backends."""
from __future__ import annotations

import json

import numpy as np
import pytest

import fairnb
from fairnb.models import load_model

pytestmark = pytest.mark.shared

GOLDEN = [("census", "adult_model.h5", 0.847067), ("german", "german_model.h5", 0.7825),
          ("bank", "bank_model.h5", 0.891850)]


def _accuracy(dataset, model_file, backend, data_dir, models_dir):
    data = fairnb.datasets.load(dataset, data_dir)
    _, X_test, _, y_test = data.split()            # train_test_split(random_state=42), published test_size
    return fairnb.accuracy(load_model(models_dir / model_file, backend=backend), X_test, y_test)


@pytest.mark.parametrize("dataset, model_file, expected", GOLDEN)
def test_published_accuracy_numpy_backend(dataset, model_file, expected, data_dir, models_dir):
    assert round(_accuracy(dataset, model_file, "numpy", data_dir, models_dir), 6) == expected


@pytest.mark.tf
@pytest.mark.parametrize("dataset, model_file, expected", GOLDEN)
def test_published_accuracy_keras_backend(dataset, model_file, expected, data_dir, models_dir):
    assert round(_accuracy(dataset, model_file, "keras", data_dir, models_dir), 6) == expected


@pytest.mark.tf
def test_numpy_and_keras_backends_agree_on_the_census_model(data_dir, models_dir):
    data = fairnb.datasets.load("census", data_dir)
    X = data.split()[1][:300]
    numpy_model = load_model(models_dir / "adult_model.h5")
    keras_model = load_model(models_dir / "adult_model.h5", backend="keras")
    assert np.allclose(numpy_model.predict_proba(X), keras_model.predict_proba(X), atol=1e-6)
    classes = (numpy_model.predict_proba(X)[:, 1] < 0.5).astype(int)
    for of in ("proba", "loss"):
        a, b = numpy_model.input_gradient(X, classes, of=of), keras_model.input_gradient(X, classes, of=of)
        assert np.allclose(a, b, atol=1e-5 * max(1.0, np.abs(a).max()))
    for a, b in zip(numpy_model.layer_outputs(X), keras_model.layer_outputs(X)):
        assert np.allclose(a, b, atol=1e-5)
    W = np.random.default_rng(0).normal(size=(len(X), 15))
    assert np.allclose(numpy_model.activation_gradient(X, 3, W), keras_model.activation_gradient(X, 3, W), atol=1e-4)


def test_census_gradients_match_finite_differences(data_dir, models_dir):
    model = load_model(models_dir / "adult_model.h5")
    X = fairnb.datasets.load("census", data_dir).split()[1][:200]
    X = X + np.random.default_rng(0).uniform(-0.3, 0.3, X.shape)      # away from ReLU kinks at integers
    p1 = model.predict_proba(X)[:, 1]
    X = X[(p1 > 1e-4) & (p1 < 1 - 1e-4)]     # finite differences of -log p lose precision where p ~ 0
    eps = 1e-6
    for of, f in [("proba", lambda Z: model.predict_proba(Z)[:, 1]),
                  ("loss", lambda Z: -np.log(model.predict_proba(Z)[:, 1]))]:
        fd = np.column_stack([(f(X + eps * e) - f(X - eps * e)) / (2 * eps) for e in np.eye(X.shape[1])])
        assert np.allclose(model.input_gradient(X, 1, of=of), fd, rtol=1e-4, atol=1e-7)


def test_cli_evaluate_prints_the_accuracy_json(data_dir, models_dir, capsys):
    from fairnb.cli import main

    code = main(["evaluate", "--dataset", "census", "--model", str(models_dir / "adult_model.h5"),
                 "--data-dir", str(data_dir)])
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and summary["accuracy"] == 0.847067 and summary["test_rows"] == 9769


def test_cli_evaluate_reports_bad_input(data_dir, models_dir, tmp_path, capsys):
    from fairnb.cli import main

    assert main(["evaluate", "--dataset", "german", "--model", str(models_dir / "adult_model.h5"),
                 "--data-dir", str(data_dir)]) == 2
    assert "inputs of width 12; got shape (400, 24)" in capsys.readouterr().err
    assert main(["evaluate", "--dataset", "census", "--model", str(tmp_path / "missing.h5"),
                 "--data-dir", str(data_dir)]) == 2
    assert "not found" in capsys.readouterr().err
    assert main(["evaluate", "--dataset", "adultt", "--model", "m.h5", "--data-dir", str(data_dir)]) == 2
    assert "unknown dataset 'adultt'" in capsys.readouterr().err

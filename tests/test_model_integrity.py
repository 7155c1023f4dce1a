"""Model files that changed or broke are refused by name: a SHA-256 given, in ``<file>.sha256`` or pinned for the
published models in the model folder is checked before a file is read; without one, a file whose structure broke is
named and called damaged (before, flipped bytes gave raw h5py/unicode errors or "not supported" layer types, and
``load_model("m.pkl")`` said ``IndexError: pop from empty list``). Weights flipped into other finite numbers load
when there is no checksum: no model format records one for its weights."""
from __future__ import annotations

import json
import pickle
import shutil
import warnings

import numpy as np
import pytest

from fairnb.models import load_model
from fairnb.store import sha256

SIZES = (5, 8, 1)


def write_h5(path, rng, kernels=None):
    """A small Keras 2 ``.h5`` model file (the layout ``model.save('m.h5')`` writes), without TensorFlow."""
    import h5py

    kernels = kernels or [rng.normal(size=(a, b)).astype("f4") for a, b in zip(SIZES[:-1], SIZES[1:])]
    layers = []
    with h5py.File(path, "w") as f:
        weights = f.create_group("model_weights")
        for i, kernel in enumerate(kernels):
            name, units = f"dense_{i}", kernel.shape[1]
            layers.append({"class_name": "Dense", "config": {
                "name": name, "units": units, "activation": "sigmoid" if i == len(kernels) - 1 else "relu"}})
            group = weights.create_group(name)
            group.attrs["weight_names"] = [f"{name}/kernel:0".encode(), f"{name}/bias:0".encode()]
            group.create_dataset(f"{name}/kernel:0", data=kernel)
            group.create_dataset(f"{name}/bias:0", data=np.full(units, 0.1, "f4"))
        f.attrs["model_config"] = json.dumps({"class_name": "Sequential", "config": {"name": "s", "layers": layers}})
    return path


def _flipped(raw: bytes, rng, n=64) -> bytes:
    out = bytearray(raw)
    for i in rng.choice(len(out), n, replace=False):
        out[i] ^= 0xFF
    return bytes(out)


def test_flipped_bytes_give_a_model_that_loads_or_an_error_naming_the_damaged_file(tmp_path, rng):
    original = write_h5(tmp_path / "small.h5", rng)
    raw, digest = original.read_bytes(), sha256(original)
    damaged = tmp_path / "copy.h5"
    checked = tmp_path / "checked" / "copy.h5"
    checked.parent.mkdir()
    (tmp_path / "checked" / "copy.h5.sha256").write_text(f"{digest}  copy.h5\n")    # as sha256sum writes it
    for _ in range(60):
        flipped = _flipped(raw, rng)
        damaged.write_bytes(flipped)
        checked.write_bytes(flipped)
        try:
            load_model(damaged)
        except ValueError as e:
            assert str(damaged) in str(e) and "damaged" in str(e), str(e)
        with pytest.raises(ValueError, match=r"copy\.h5: SHA-256 .* does not match the SHA-256 in copy\.h5\.sha256"):
            load_model(checked)


def _weight_flipped(tmp_path, rng):
    """A copy of a small model with one byte of its first kernel changed (a finite weight: it still loads)."""
    import h5py

    original = write_h5(tmp_path / "small.h5", rng)
    with h5py.File(original, "r") as f:
        offset = f["model_weights/dense_0/dense_0/kernel:0"].id.get_offset()
    raw = bytearray(original.read_bytes())
    raw[offset + 1] ^= 0x40                       # a mantissa byte of the first weight
    copy = tmp_path / "own" / "small.h5"
    copy.parent.mkdir()
    copy.write_bytes(bytes(raw))
    return original, copy


def test_a_changed_weight_is_found_only_by_a_checksum(tmp_path, rng):
    original, copy = _weight_flipped(tmp_path, rng)
    X = rng.normal(size=(50, SIZES[0]))
    assert not np.allclose(load_model(copy).predict_proba(X), load_model(original).predict_proba(X))   # silent
    with pytest.raises(ValueError, match=r"small\.h5: SHA-256 .* does not match the SHA-256 given"):
        load_model(copy, sha256=sha256(original))
    (copy.parent / "small.h5.sha256").write_text(sha256(original).upper())
    with pytest.raises(ValueError, match=r"small\.h5: SHA-256 .* does not match the SHA-256 in small\.h5\.sha256"):
        load_model(copy)
    (copy.parent / "small.h5.sha256").write_text(sha256(copy))
    assert load_model(copy).n_features == SIZES[0]
    (copy.parent / "small.h5.sha256").write_text("checked by hand\n")
    with pytest.raises(ValueError, match=r"small\.h5\.sha256: 'checked' is not a SHA-256 \(64 hex digits"):
        load_model(copy)


def test_weights_that_cannot_be_a_model_are_refused_as_damaged(tmp_path, rng):
    kernels = [rng.normal(size=(5, 8)).astype("f4"), rng.normal(size=(8, 1)).astype("f4")]
    kernels[1][3, 0] = np.nan
    with pytest.raises(ValueError, match=r"nan\.h5: damaged Keras \.h5 model file: it holds NaN or infinite"):
        load_model(write_h5(tmp_path / "nan.h5", rng, kernels))
    kernels = [rng.normal(size=(5, 8)).astype("f4"), rng.normal(size=(7, 1)).astype("f4")]
    with pytest.raises(ValueError, match=r"chain\.h5: damaged .* 1 units on 8 inputs holds a kernel of shape \(7, 1\)"):
        load_model(write_h5(tmp_path / "chain.h5", rng, kernels))


def test_a_published_name_in_the_model_folder_must_be_the_published_file(tmp_path, rng, monkeypatch):
    folder = tmp_path / "models"
    folder.mkdir()
    write_h5(folder / "adult_model.h5", rng)            # not the published file, under its name
    monkeypatch.setenv("FAIRNB_MODELS", str(folder))
    with pytest.raises(ValueError, match=r"adult_model\.h5: SHA-256 .* does not match the published adult_model\.h5"):
        load_model(folder / "adult_model.h5")
    own = tmp_path / "retrained"
    own.mkdir()
    shutil.copy(folder / "adult_model.h5", own / "adult_model.h5")     # one's own model of that name loads
    assert load_model(own / "adult_model.h5").n_features == SIZES[0]


@pytest.mark.shared
def test_a_damaged_copy_of_a_published_model_is_refused_by_name_and_from_the_folder(tmp_path, models_dir, data_dir,
                                                                                    monkeypatch):
    import fairnb
    from fairnb.bench import load_benchmark
    from fairnb.models import published

    folder = tmp_path / "models"
    folder.mkdir()
    raw = bytearray((models_dir / "adult_model.h5").read_bytes())
    raw[-200] ^= 0x01
    (folder / "adult_model.h5").write_bytes(bytes(raw))
    monkeypatch.setenv("FAIRNB_MODELS", str(folder))
    monkeypatch.setenv("FAIRNB_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ValueError, match=r"adult_model\.h5: SHA-256 .* does not match the published adult_model\.h5"):
        load_model(folder / "adult_model.h5")
    with pytest.raises(ValueError, match=r"does not match the published adult_model\.h5"):
        load_benchmark("C-g", data_dir=data_dir, models_dir=folder)
    data = fairnb.datasets.load("census", data_dir)
    model, origin = published.obtain_published("census", data, models_dir=folder, download=False, epochs=1)
    assert origin.startswith("trained here") and "model folder:" in origin and "does not match" in origin


def test_a_pickle_that_is_not_a_model_is_refused_by_name(tmp_path):
    (tmp_path / "m.pkl").write_bytes(b".")                         # IndexError: pop from empty list, before
    with pytest.raises(ValueError, match=r"m\.pkl: damaged, or not a pickled model \(IndexError.*runs code"):
        load_model(tmp_path / "m.pkl")
    (tmp_path / "empty.joblib").write_bytes(b"")
    with pytest.raises(ValueError, match=r"empty\.joblib: damaged, or not a pickled model \(EOFError"):
        load_model(tmp_path / "empty.joblib")
    (tmp_path / "d.pkl").write_bytes(pickle.dumps({"weights": [1, 2]}))
    with pytest.raises(ValueError, match=r"d\.pkl: holds a dict, not a model"):
        load_model(tmp_path / "d.pkl")


def test_a_pickle_is_checked_before_it_is_unpickled(tmp_path, monkeypatch):
    import joblib
    from sklearn.linear_model import LogisticRegression

    path = tmp_path / "m.joblib"
    joblib.dump(LogisticRegression().fit(np.eye(2), [0, 1]), path)
    (tmp_path / "m.joblib.sha256").write_text("0" * 64)
    monkeypatch.setattr(joblib, "load", lambda *a, **k: pytest.fail("unpickled a file whose checksum differs"))
    with pytest.raises(ValueError, match=r"m\.joblib: SHA-256 .* does not match the SHA-256 in m\.joblib\.sha256"):
        load_model(path)


def test_an_unknown_model_file_type_lists_the_formats(tmp_path):
    (tmp_path / "m.pt").write_bytes(b"\x80\x02")
    with pytest.raises(ValueError, match=r"m\.pt: unknown model file type '\.pt'.*\.onnx.*\.joblib"):
        load_model(tmp_path / "m.pt")


def test_a_damaged_onnx_file_is_named(tmp_path):
    pytest.importorskip("onnxruntime")
    (tmp_path / "m.onnx").write_bytes(b"garbage")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"m\.onnx: ONNX Runtime cannot load it .*damaged"):
            load_model(tmp_path / "m.onnx")


def test_a_weight_flipped_out_of_any_trained_range_is_refused_unless_a_checksum_vouches(tmp_path, rng):
    # issue #34: a bit flipped in a weight's exponent loaded as 1.7e38, and the model answered 0 or 1 everywhere
    import h5py

    kernels = [np.full((5, 8), 0.3, "f4"), np.full((8, 1), -0.2, "f4")]
    original = write_h5(tmp_path / "small.h5", rng, kernels)
    with h5py.File(original, "r") as f:
        offset = f["model_weights/dense_1/dense_1/kernel:0"].id.get_offset()
    raw = bytearray(original.read_bytes())
    raw[offset + 4 * 2 + 3] ^= 0x40                  # the top exponent bit of dense_1's third weight: -0.2 * 2**128
    flipped = tmp_path / "own" / "small.h5"
    flipped.parent.mkdir()
    flipped.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"own/small\.h5: damaged Keras \.h5 model file: Dense layer 1's kernel "
                                         r"holds [\d.]+e\+\d+, beyond any trained network's weights.*"
                                         r"sha256sum small\.h5 > small\.h5\.sha256"):
        load_model(flipped)
    (flipped.parent / "small.h5.sha256").write_text(sha256(flipped))
    assert abs(load_model(flipped).weights[1]).max() > 1e30          # vouched for: loaded as it is

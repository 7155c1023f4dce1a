"""``load_model(path)``: a saved Keras, ONNX or scikit-learn model file as a fairnb model.

Example
-------
>>> load_model("no-such-model.joblib")
Traceback (most recent call last):
...
FileNotFoundError: model file 'no-such-model.joblib' not found
"""
from __future__ import annotations

from pathlib import Path

from .base import Model
from .wrapping import wrap

PICKLE_SUFFIXES = (".joblib", ".pkl", ".pickle")


def load_model(path, backend: str = "numpy") -> Model:
    """Load a saved model file as a fairnb model: Keras (``.h5`` of Keras 2 or ``.keras``), ONNX (``.onnx``,
    run by ONNX Runtime: ``pip install fairnb[onnx]``), or a pickled scikit-learn classifier (``.joblib``,
    ``.pkl``; unpickling runs code: load only files you trust).

    For Keras files, ``backend="numpy"`` evaluates dense networks in numpy (no TensorFlow needed);
    ``backend="keras"`` rebuilds it as a Keras 3 model.
    """
    if Path(path).suffix.lower() in PICKLE_SUFFIXES:
        import joblib

        if not Path(path).is_file():
            raise FileNotFoundError(f"model file {str(path)!r} not found")
        return wrap(joblib.load(path))
    if Path(path).suffix.lower() == ".onnx":
        from .onnx import OnnxModel

        return OnnxModel(path)
    from .keras import load_keras_model

    return load_keras_model(path, backend=backend)

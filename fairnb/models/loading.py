"""``load_model(path)``: a saved Keras, ONNX or scikit-learn model file as a fairnb model, checked against a
SHA-256 where one is known.

What can be verified, and what cannot
-------------------------------------
A model file holds no checksum of its own weights (Keras ``.h5``, ``.keras``, ONNX and pickles alike), so
a few flipped bytes inside the weights give a model that loads and answers differently. ``load_model``
therefore compares the file's SHA-256, before reading it, with

1. ``sha256=`` when given;
2. else the first word of ``<file>.sha256`` beside it (what ``sha256sum model.h5 > model.h5.sha256``
   writes), when that file exists;
3. else, for a published model (``adult_model.h5``, ``german_model.h5``, ``bank_model.h5``) in the model
   folder (``$FAIRNB_MODELS``), its pinned SHA-256 (:data:`fairnb.models.published.PUBLISHED`).

Without any of them only damage that breaks the file's structure is found (the file is then named and
called damaged), and a ``.h5`` weight too large for any trained network (a flipped exponent bit, refused unless
a checksum vouches for the file); other changed weights are not, and rarely a damaged ``.h5`` makes the HDF5 library loop while
reading it, which only a checksum (checked before reading) prevents. A pickle (``.joblib``, ``.pkl``, ``.pickle``) runs code while
it is read: load only files you trust, and give them a ``.sha256`` to have them checked before.

Example
-------
>>> load_model("no-such-model.joblib")
Traceback (most recent call last):
...
FileNotFoundError: model file 'no-such-model.joblib' not found
"""
from __future__ import annotations

import re
from pathlib import Path

from ..store import sha256 as file_sha256
from .base import Model
from .published import pinned_sha256
from .wrapping import wrap

PICKLE_SUFFIXES = (".joblib", ".pkl", ".pickle")
KERAS_SUFFIXES = (".h5", ".hdf5", ".keras")
FORMATS = (".h5 (Keras 2) or .keras (Keras 3), .onnx (ONNX Runtime), .tflite (TFLite), or .joblib/.pkl/.pickle "
           "(a pickled scikit-learn classifier)")


def load_model(path, backend: str = "numpy", *, sha256: str | None = None, white_box: bool | None = None,
               **tflite) -> Model:
    """Load a saved model file as a fairnb model: Keras (``.h5`` of Keras 2 or ``.keras``), ONNX (``.onnx``,
    run by ONNX Runtime: ``pip install fairnb[onnx]``), TFLite (``.tflite``: ``pip install fairnb[tflite]``), or a
    pickled scikit-learn classifier (``.joblib``, ``.pkl``; unpickling runs code: load only files you trust).

    The file is first checked against ``sha256``, its ``<file>.sha256`` or the published model's pinned
    SHA-256 (see the module docstring) and refused, named, when it differs; a file that cannot be read is
    named and called damaged.

    For Keras files, ``backend="numpy"`` evaluates dense networks in numpy (no TensorFlow needed);
    ``backend="keras"`` rebuilds it as a Keras 3 model.

    A ``.tflite`` file is a white box (converted to TensorFlow, exact gradients) when every operation converts,
    else the interpreter's black box; ``white_box=True``/``False`` asks for one, and ``tflite`` keywords
    (``output_name``, ``output``, ``input_range``) go to :func:`fairnb.models.tflite.tflite_model`.
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"model file {str(path)!r} not found")
    suffix = path.suffix.lower()
    if suffix not in (*PICKLE_SUFFIXES, *KERAS_SUFFIXES, ".onnx", ".tflite"):
        raise ValueError(f"{path.name}: unknown model file type {path.suffix!r}; fairnb loads {FORMATS}")
    checked = _verify(path, sha256)
    if tflite and suffix != ".tflite":
        raise TypeError(f"{path.name}: {sorted(tflite)} apply to .tflite files only")
    if suffix in PICKLE_SUFFIXES:
        return _unpickled(path)
    if suffix == ".tflite":
        from .tflite import tflite_model

        return tflite_model(path, white_box=white_box, **tflite)
    if suffix == ".onnx":
        from .onnx import OnnxModel

        return OnnxModel(path)
    from .keras import load_keras_model

    return load_keras_model(path, backend=backend, checked=checked)


def _verify(path: Path, sha256: str | None) -> bool:
    """``ValueError`` when ``path``'s SHA-256 is not the expected one (given, beside it, or pinned); whether one
    was known (and matched)."""
    sidecar = Path(f"{path}.sha256")
    if sha256 is not None:
        expected, source = _hex(sha256, "sha256="), "the SHA-256 given (sha256=)"
    elif sidecar.is_file():
        words = sidecar.read_text(errors="replace").split()
        expected, source = _hex(words[0] if words else "", str(sidecar)), f"the SHA-256 in {sidecar.name}"
    else:
        expected, source = pinned_sha256(path), f"the published {path.name}"
    if expected is not None and (got := file_sha256(path)) != expected:
        raise ValueError(f"{path}: SHA-256 {got} does not match {source} ({expected}); the file is damaged or "
                         "changed since that checksum was taken, and it is not loaded")
    return expected is not None


def _hex(text: str, source: str) -> str:
    if not re.fullmatch(r"[0-9a-fA-F]{64}", text):
        raise ValueError(f"{source}: {text[:70]!r} is not a SHA-256 (64 hex digits, as `sha256sum model.h5` "
                         "writes it)")
    return text.lower()


def _unpickled(path: Path) -> Model:
    """The fairnb model of a pickled classifier (joblib reads plain pickles too; unpickling runs code)."""
    import joblib

    try:
        loaded = joblib.load(path)
    except Exception as e:  # noqa: BLE001 - a damaged pickle raises whatever its bytes lead the unpickler to
        raise ValueError(f"{path}: damaged, or not a pickled model ({type(e).__name__}: {e}); fairnb loads "
                         f"{FORMATS}. Unpickling runs code from the file: load only files you trust") from None
    try:
        return wrap(loaded)
    except TypeError as e:
        raise ValueError(f"{path}: holds a {type(loaded).__name__}, not a model ({e})") from None

"""MediaPipe's BlazeFace short-range face detector as a fairnb model (``pip install fairnb[tflite]``).

``blazeface()`` returns the detector: 128 x 128 RGB images with pixels in [0, 1] (mapped onto the model's
[-1, 1]), 896 anchors, P(face) = sigmoid of the best anchor's logit, as ``[1 - p, p]`` columns (a face at
p > 0.5, MediaPipe's threshold). By default it is the white box (:class:`~fairnb.models.tflite.TFLiteGraph`:
the flatbuffer converted to TensorFlow, exact pixel gradients); ``white_box=False`` gives the interpreter's
black box (:class:`~fairnb.models.tflite.TFLiteModel`, no TensorFlow needed).

The file, ``face_detection_short_range.tflite`` (229,714 bytes, Apache-2.0), ships in the ``mediapipe==0.10.21``
wheel (:data:`BLAZEFACE`; newer wheels do not ship it). :func:`blazeface_file` finds it, in this order: the model
folder (``$FAIRNB_MODELS``), the cache (``$FAIRNB_CACHE/models``), the wheel given with ``wheel=``, or the wheel
that ``pip download --no-deps`` fetches into a temporary folder (``download=False`` or ``$FAIRNB_DOWNLOAD=0``
skips it). The wheel is never installed (it pins numpy<2); every copy is checked against the pinned SHA-256.

Example
-------
>>> detector = blazeface()                                          # doctest: +SKIP
>>> detector.predict_proba(faces_128).shape                         # doctest: +SKIP
(n, 2)
>>> BLAZEFACE.requirement
'mediapipe==0.10.21'
"""
from __future__ import annotations

from pathlib import Path

from ..store import WheelFile, cache_dir, models_folder, verify_sha256
from .tflite import tflite_model

BLAZEFACE = WheelFile("mediapipe", "0.10.21", "mediapipe/modules/face_detection/face_detection_short_range.tflite",
                      "bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8",
                      "models/face_detection_short_range.tflite")
#: how the detector's output becomes fairnb's probabilities
BLAZEFACE_OUTPUT = {"output_name": "classificators", "output": "max_logit", "input_range": (-1.0, 1.0)}


def blazeface_file(*, wheel=None, download: bool | None = None) -> Path:
    """The checked ``face_detection_short_range.tflite`` (see the module docstring for where it is looked for)."""
    name = Path(BLAZEFACE.member).name
    folder = models_folder()
    if folder is not None and (folder / name).is_file():
        return verify_sha256(folder / name, BLAZEFACE.sha256, f"{name} of {BLAZEFACE.requirement}")
    return BLAZEFACE.fetch(cache_dir(), wheel=wheel, download=download)


def blazeface(*, white_box: bool | None = None, wheel=None, download: bool | None = None):
    """MediaPipe's BlazeFace short-range detector as a fairnb model (see the module docstring)."""
    return tflite_model(blazeface_file(wheel=wheel, download=download), white_box=white_box, **BLAZEFACE_OUTPUT)

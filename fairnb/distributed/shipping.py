"""The model and the domain, packed for executors that pickle their tasks (Dask's workers, process pools).

Live Keras models (their ``tf.function`` graphs) cannot be pickled, so every fairnb Keras adapter
(``fairnb.models.keras.KerasModel``, ``fairnb.text.KerasTextModel``) travels as the bytes of its
``.keras`` file and its settings, wherever it sits: the model itself, or inside the domain (an image
domain's FGSM flipper holds its attribute classifier f_sa). Everything else (numpy networks,
scikit-learn models, black-box callables on strings, lambdas, the text domain's vocabulary and
neighbour table) is pickled by cloudpickle. On Dask the pair rides in a ``WorkerPlugin``, loaded once per
worker (``fairnb.distributed.runner``); a process pool's shards unpack it once per process
(``fairnb.distributed.pools``).

Example
-------
>>> import numpy as np
>>> from fairnb.models import NumpyMLP
>>> shipped = Shipped((NumpyMLP([np.ones((2, 1))], [np.zeros(1)]), None))
>>> shipped.kind, shipped.load()[0].predict_proba(np.zeros((1, 2))).shape
('pickle', (1, 2))
"""
from __future__ import annotations

import inspect
import io
import os
import pickle
import tempfile

import cloudpickle

_KERAS_ADAPTERS = {("fairnb.models.keras", "KerasModel"), ("fairnb.text.keras_model", "KerasTextModel")}


def _is_keras_adapter(obj) -> bool:
    return (type(obj).__module__, type(obj).__name__) in _KERAS_ADAPTERS


def _rebuild_keras(payload: bytes, module: str, name: str, settings: dict):
    """On a worker: the Keras adapter ``module.name`` around the model saved in ``payload``."""
    import importlib

    import keras

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.keras")
        with open(path, "wb") as f:
            f.write(payload)
        keras_model = keras.saving.load_model(path, compile=False)
    return getattr(importlib.import_module(module), name)(keras_model, **settings)


class _Pickler(cloudpickle.Pickler):
    """cloudpickle, with every fairnb Keras adapter reduced to its ``.keras`` bytes and settings."""

    found_keras = False

    def reducer_override(self, obj):
        if _is_keras_adapter(obj):
            self.found_keras = True
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "model.keras")
                obj.model.save(path)
                with open(path, "rb") as f:
                    payload = f.read()
            taken = inspect.signature(type(obj).__init__).parameters
            settings = {k: getattr(obj, k) for k in ("batch_size", "numpy_below") if k in taken}
            return _rebuild_keras, (payload, type(obj).__module__, type(obj).__name__, settings)
        return super().reducer_override(obj)


class Shipped:
    """Objects (the model and the domain of a run) in a form that pickles; ``kind`` is ``"keras"`` when
    a Keras model travels inside as its ``.keras`` file, else ``"pickle"``; ``load()`` rebuilds them."""

    def __init__(self, obj):
        buffer = io.BytesIO()
        pickler = _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            pickler.dump(obj)
        except Exception as e:  # noqa: BLE001 - pickle raises many types
            raise TypeError(f"{obj!r} cannot be sent to other processes: it does not pickle ({type(e).__name__}: {e}); "
                            "save the model to a file and load it with fairnb.models.load_model, or run without "
                            "executor=, or on a ThreadPoolExecutor") from None
        self.payload = buffer.getvalue()
        self.kind = "keras" if pickler.found_keras else "pickle"

    def load(self):
        """The objects, rebuilt (on a worker)."""
        return pickle.loads(self.payload)

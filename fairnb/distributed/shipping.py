"""The model, shipped once to every worker of a Dask cluster.

Live Keras models (their ``tf.function`` graphs) cannot be pickled, so a Keras model travels as the
bytes of its ``.keras`` file and each worker loads it once; numpy networks, scikit-learn models and
callables are pickled (cloudpickle: lambdas too). Either way the model rides in a ``WorkerPlugin``:
``setup`` runs once on every worker (also on workers that join later), and the shards of a run find
the loaded model under the plugin's name.

Example
-------
>>> import numpy as np
>>> from fairnb.models import NumpyMLP
>>> shipped = ShippedModel(NumpyMLP([np.ones((2, 1))], [np.zeros(1)]))
>>> shipped.kind, shipped.load().predict_proba(np.zeros((1, 2))).shape
('pickle', (1, 2))
"""
from __future__ import annotations

import os
import pickle

import cloudpickle
import tempfile
import uuid

from distributed import WorkerPlugin, get_worker


def _is_fairnb_keras(model) -> bool:
    return type(model).__name__ == "KerasModel" and type(model).__module__ == "fairnb.models.keras"


class ShippedModel:
    """A fairnb model (``fairnb.models.wrap``'s output) in a form that pickles: ``kind`` is ``"keras"``
    (the ``.keras`` file's bytes and the adapter's settings) or ``"pickle"`` (the model itself)."""

    def __init__(self, model):
        if _is_fairnb_keras(model):
            self.kind = "keras"
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "model.keras")
                model.model.save(path)
                with open(path, "rb") as f:
                    self.payload = f.read()
            self.settings = {"batch_size": model.batch_size, "numpy_below": model.numpy_below}
        else:
            self.kind = "pickle"
            try:
                self.payload = cloudpickle.dumps(model)
            except Exception as e:  # noqa: BLE001 - pickle raises many types
                raise TypeError(f"the model {model!r} cannot be sent to Dask workers: it does not pickle "
                                f"({type(e).__name__}: {e}); save it to a file and load it with "
                                "fairnb.models.load_model, or run without client=") from None
            self.settings = {}

    def load(self):
        """The model, rebuilt (on a worker)."""
        if self.kind == "pickle":
            return pickle.loads(self.payload)
        from ..models.keras import KerasModel, _keras

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.keras")
            with open(path, "wb") as f:
                f.write(self.payload)
            keras_model = _keras().saving.load_model(path, compile=False)
        return KerasModel(keras_model, **self.settings)


class ModelPlugin(WorkerPlugin):
    """Loads a ``ShippedModel`` once on every worker; shards find it by the plugin's ``name``
    (``worker_model``), which is new for every run."""

    def __init__(self, model):
        self.shipped = ShippedModel(model)
        self.name = f"fairnb-model-{uuid.uuid4().hex}"
        self.model = None

    def setup(self, worker):
        self.model = self.shipped.load()

    def __getstate__(self):
        return {"shipped": self.shipped, "name": self.name}

    def __setstate__(self, state):
        self.shipped, self.name, self.model = state["shipped"], state["name"], None


def worker_model(plugin_name: str):
    """On a worker: the model its plugin ``plugin_name`` loaded."""
    plugin = get_worker().plugins.get(plugin_name)
    if plugin is None or plugin.model is None:
        raise RuntimeError(f"this worker has no model under {plugin_name!r}: the run's plugin was removed")
    return plugin.model

"""How fair a face detector is, as NeuronFair measures it (Table 11): the AUC of the attribute's effect on
the detector's neurons, and the detection rate.

* ``attribute_effect(model, X, X_flipped)``: for the normal pairs ``<x, flip(x)>``, per hidden layer
  (convolution outputs flattened) the mean absolute activation difference of each neuron, squashed with
  ``tanh``, and the area under its AS curve (``fairnb.search.parts.biased_neurons``); the model's measure is the
  largest layer AUC (lower is fairer). Also the share of images whose decision the flip changes.
* ``detection_rate(model, X, y)``: the share of faces detected as faces.
* ``measure_detector(model, data, flipper)``: both on the test split, the detection rate per attribute
  value too: the numbers to compare before and after retraining.

Example (a hand-built model that ignores the red channel: a red-only flip has no effect)
-------
>>> import numpy as np
>>> from fairnb.models import NumpyMLP
>>> W = np.zeros((3, 2)); W[1:, 0] = 1.0; W[1:, 1] = -1.0
>>> model = NumpyMLP([W, np.array([[1.0, -1.0], [-1.0, 1.0]])], [np.zeros(2), np.zeros(2)])
>>> X = np.random.default_rng(0).random((50, 3)); X_red = X.copy(); X_red[:, 0] = 1 - X[:, 0]
>>> attribute_effect(model, X, X_red).auc
0.0
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..search.parts.biased_neurons import STEP, layer_auc, pair_activation_differences


@dataclass
class AttributeEffect:
    """Per hidden layer the AUC of tanh(ActDiff); ``auc`` the largest (at ``layer``); ``changed`` the share
    of pairs with different decisions; ``n_pairs`` the number of pairs."""

    layer_auc: list[float]
    layer: int
    changed: float
    n_pairs: int

    @property
    def auc(self) -> float:
        return self.layer_auc[self.layer]


def attribute_effect(model, X, X_flipped, step: float = STEP, batch_size: int | None = None) -> AttributeEffect:
    """NeuronFair's AUC measure of how much flipping the attribute moves ``model``'s hidden neurons.

    ``model`` needs ``layer_outputs`` (a ``KerasModel``, ``NumpyMLP``); ``X_flipped[i]`` is ``X[i]`` flipped.
    Pairs are processed ``batch_size`` at a time (default: as many as fit ``fairnb.oracle.MEMORY_BUDGET``; see
    ``pair_activation_differences``).
    """
    if not callable(getattr(model, "layer_outputs", None)):
        raise TypeError(f"{model!r} gives no hidden-layer activations (layer_outputs); use a Keras or NumpyMLP model")
    diffs, changed = pair_activation_differences(model, X, X_flipped, batch_size)
    aucs = [layer_auc(np.tanh(z), step) for z in diffs]
    return AttributeEffect(aucs, int(np.argmax(aucs)), changed / len(X), len(X))


def detection_rate(model, X, y=None) -> float:
    """Share of the faces in ``X`` (``y == 1``; all of ``X`` without ``y``) that ``model`` labels 1 (face)."""
    X = np.asarray(X, dtype=np.float32)
    if y is not None:
        X = X[np.asarray(y).reshape(-1) == 1]
    if not len(X):
        raise ValueError("no face image to detect")
    return float((model.predict_proba(X).argmax(axis=1) == 1).mean())


def measure_detector(model, data, flipper, index=None) -> dict:
    """The attribute effect and detection rates of ``model`` on ``data``'s test faces (or images ``index``),
    with ``flipper`` (an ``ExactFlip`` or fitted ``FGSMFlip``) making the pairs."""
    if index is None:
        index = data.split_indices()[1]
    index = np.asarray(index, dtype=np.int64)
    faces = index[data.y[index] == 1]
    flip = flipper.flip(data.X[faces], index=faces)
    ok = flip.success
    effect = attribute_effect(model, flip.X[ok], flip.X_flipped[ok])
    attribute = data.attribute[faces]
    return {"auc": round(effect.auc, 6), "layer": effect.layer, "layer_auc": [round(a, 6) for a in effect.layer_auc],
            "decisions_changed": effect.changed, "flip_success_rate": flip.success_rate,
            "detection_rate": detection_rate(model, data.X[faces]),
            **{f"detection_rate[{data.protected}={v}]": detection_rate(model, data.X[faces[attribute == v]])
               for v in np.unique(attribute)},
            "faces": len(faces)}

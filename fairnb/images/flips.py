"""Attribute flippers: "the same image with the other protected value", for NeuronFair's image variant.

A flipper's ``flip(X, index=None)`` returns a :class:`FlipResult` for the whole batch at once: the flipped
images (clipped to [0, 1]), per image whether the flip succeeded, the BIM steps and L-inf budget used, and
the L2 / L-inf norms of the effective change.

* :class:`FGSMFlip` (NeuronFair, Eq. 5): an attribute classifier f_sa (the detector's frozen convolutional
  trunk plus a new Dense head [512, 256, 128, 64, 16] and a softmax) is trained on the attribute labels;
  each image then takes signed-gradient steps ``x <- clip(x + step * sign(grad_x J(x, c)), 0, 1)`` (BIM:
  after t steps the L-inf budget is ``t * step``) until f_sa's prediction leaves its prediction ``c`` on
  the original image, at most ``max_steps`` steps. Images it cannot flip are reported (``success``
  False), not dropped. The "flip" is relative to f_sa: often an invisible perturbation, not a visible
  change of the attribute.
* :class:`ExactFlip` (beyond the paper): for data fairnb renders itself (``make_faces``, tinted LFW), the
  image re-rendered with the other attribute value: the true counterfactual.

Example (a linear f_sa in numpy: no TensorFlow)
-------
>>> import numpy as np
>>> from fairnb.models import NumpyMLP
>>> f_sa = NumpyMLP([np.array([[4.0], [-4.0]])], [np.zeros(1)])         # P(attr=1) = sigmoid(4 x0 - 4 x1)
>>> result = FGSMFlip(step=0.1, attribute_model=f_sa).flip(np.array([[0.65, 0.4]]))
>>> result.X_flipped.astype(float).round(2).tolist(), result.steps.tolist(), bool(result.success[0])
([[0.45, 0.6]], [2], True)
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd

DEFAULT_HEAD = (512, 256, 128, 64, 16)


@dataclass
class FlipResult:
    """Per image: the input ``X``, the flipped ``X_flipped``, ``success``, BIM ``steps`` and ``eps``
    (L-inf budget ``steps * step``; the exact flip's L-inf norm for an ``ExactFlip``)."""

    X: np.ndarray
    X_flipped: np.ndarray
    success: np.ndarray
    steps: np.ndarray
    eps: np.ndarray

    @property
    def delta(self) -> np.ndarray:
        """The effective change ``X_flipped - X`` (after clipping to [0, 1])."""
        return self.X_flipped - self.X

    @property
    def l2(self) -> np.ndarray:
        return np.sqrt((self.delta.reshape(len(self.X), -1).astype(np.float64) ** 2).sum(axis=1))

    @property
    def linf(self) -> np.ndarray:
        return np.abs(self.delta.reshape(len(self.X), -1)).max(axis=1, initial=0.0).astype(np.float64)

    @property
    def success_rate(self) -> float:
        return float(self.success.mean()) if len(self.success) else 0.0

    def table(self) -> pd.DataFrame:
        """One row per image: success, steps, eps, l2, linf."""
        return pd.DataFrame({"success": self.success, "steps": self.steps, "eps": self.eps,
                             "l2": self.l2, "linf": self.linf})

    def summary(self) -> dict:
        """Flip success rate and the median steps and norms of the successful flips."""
        ok = self.table()[self.success]
        return {"images": len(self.success), "success_rate": round(self.success_rate, 4),
                **{f"median_{k}": (float(ok[k].median()) if len(ok) else None) for k in ("steps", "l2", "linf")}}


@runtime_checkable
class AttributeFlipper(Protocol):
    """Anything that flips the protected attribute of a batch of images (``index``: their rows in the data
    set, needed by flippers that re-render)."""

    def flip(self, X: np.ndarray, index=None) -> FlipResult: ...


def _images(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float32)
    if X.ndim < 2 or not len(X):
        raise ValueError(f"X must be a non-empty batch of images, got shape {X.shape}")
    if X.min() < 0 or X.max() > 1:
        raise ValueError(f"pixel values must lie in [0, 1]; got [{X.min()}, {X.max()}]")
    return X


class FGSMFlip:
    """NeuronFair's adversarial attribute flip against an attribute classifier f_sa (see the module).

    Parameters
    ----------
    step : L-inf size of one signed-gradient step (default 2/255).
    max_steps : steps before an image counts as "flip failed".
    head : hidden Dense units of f_sa's new head (NeuronFair: 512, 256, 128, 64, 16).
    epochs, batch_size, learning_rate : training of the head (Adam, cross-entropy).
    validation_fraction : share of the labelled images held out to measure ``accuracy_``.
    attribute_model : an f_sa to use as it is (any fairnb model with ``input_gradient``, or a Keras
        classifier); then ``fit`` is not needed.
    trunk_layer : name of the detector's last trunk layer (default: the input of its first Dense layer).

    After ``fit``: ``attribute_model_`` (a ``KerasModel``), ``accuracy_`` on the held-out images, and
    ``detector_digest_``, a digest of the detector's trunk weights: ``fitted_on(model)`` tells whether a model
    is that detector (an image search warns when it searches another one with this flipper).
    """

    def __init__(self, step: float = 2 / 255, max_steps: int = 40, head=DEFAULT_HEAD, epochs: int = 10,
                 batch_size: int = 64, learning_rate: float = 1e-3, validation_fraction: float = 0.2,
                 attribute_model=None, trunk_layer: str | None = None, random_state=0):
        self.step = step
        self.max_steps = max_steps
        self.head = head
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.validation_fraction = validation_fraction
        self.attribute_model = attribute_model
        self.trunk_layer = trunk_layer
        self.random_state = random_state

    def fit(self, detector, X, attribute) -> "FGSMFlip":
        """Train f_sa = ``detector``'s frozen trunk + a new head on images ``X`` with labels ``attribute``
        (rows with a negative label, e.g. non-faces, are left out)."""
        import keras
        from sklearn.model_selection import train_test_split

        from ..models.keras import KerasModel
        from .detector import conv_trunk, fit_classifier, seed_everything

        X, a = _images(X), np.asarray(attribute, dtype=np.int64).reshape(-1)
        if len(a) != len(X):
            raise ValueError(f"attribute has {len(a)} labels for {len(X)} images")
        X, a = X[a >= 0], a[a >= 0]
        if len(np.unique(a)) < 2:
            raise ValueError("attribute needs at least two values among the labelled images to train f_sa")
        trunk = conv_trunk(detector, self.trunk_layer)
        self.detector_digest_ = _weights_digest(trunk)
        frozen = keras.models.clone_model(trunk)
        frozen.set_weights(trunk.get_weights())
        frozen.trainable = False
        seed_everything(self.random_state)     # before the head is built: its initial weights are drawn then
        inputs = keras.Input(X.shape[1:])
        h = frozen(inputs, training=False)
        for units in self.head:
            h = keras.layers.Dense(int(units), activation="relu")(h)
        f_sa = keras.Model(inputs, keras.layers.Dense(int(a.max()) + 1, activation="softmax")(h), name="f_sa")
        fit_idx, val_idx = train_test_split(np.arange(len(a)), test_size=self.validation_fraction,
                                            random_state=self.random_state, stratify=a)
        fit_classifier(f_sa, X[fit_idx], a[fit_idx], epochs=self.epochs, batch_size=self.batch_size,
                       learning_rate=self.learning_rate, random_state=self.random_state)
        self.attribute_model_ = KerasModel(f_sa)
        self.accuracy_ = self.score(X[val_idx], a[val_idx])
        return self

    def fitted_on(self, model) -> bool | None:
        """Whether ``model`` (a Keras detector, or fairnb's model around one) is the detector this flipper was
        fitted on, by its trunk's weights; None when that cannot be told (no ``fit``, or not a Keras model)."""
        from .detector import conv_trunk

        digest = getattr(self, "detector_digest_", None)
        if digest is None:
            return None
        try:
            return _weights_digest(conv_trunk(model, self.trunk_layer)) == digest
        except (TypeError, ValueError):      # not a Keras image classifier
            return None

    def _model(self):
        from ..models import supports_gradients, wrap

        model = getattr(self, "attribute_model_", None)
        if model is None:
            if self.attribute_model is None:
                raise ValueError("FGSMFlip has no attribute classifier: call fit(detector, X, attribute) "
                                 "or pass attribute_model=")
            model = wrap(self.attribute_model)
        if not supports_gradients(model):
            raise TypeError(f"the attribute classifier {model!r} gives no input gradients")
        return model

    def score(self, X, attribute) -> float:
        """Accuracy of f_sa on images ``X`` with attribute labels ``attribute``."""
        return float((self._model().predict_proba(_images(X)).argmax(axis=1) == np.asarray(attribute)).mean())

    def flip(self, X, index=None) -> FlipResult:
        """BIM against f_sa for every image of ``X`` at once (``index`` is not used)."""
        if not self.step > 0 or int(self.max_steps) < 1:
            raise ValueError(f"step must be > 0 and max_steps >= 1 (got {self.step}, {self.max_steps})")
        model = self._model()
        X = _images(X)
        start = model.predict_proba(X).argmax(axis=1)
        x = X.copy()
        steps = np.zeros(len(X), dtype=np.int64)
        done = np.zeros(len(X), dtype=bool)
        for t in range(1, int(self.max_steps) + 1):
            active = np.flatnonzero(~done)
            if not len(active):
                break
            grad = model.input_gradient(x[active], start[active], of="loss")
            x[active] = np.clip(x[active] + self.step * np.sign(grad), 0, 1)
            steps[active] = t
            done[active] = model.predict_proba(x[active]).argmax(axis=1) != start[active]
        return FlipResult(X, x, done, steps, steps * float(self.step))


def _weights_digest(model) -> str:
    """A digest of a Keras model's weights (their shapes and values)."""
    digest = hashlib.sha256()
    for w in model.get_weights():
        digest.update(repr(w.shape).encode())
        digest.update(np.ascontiguousarray(w).tobytes())
    return digest.hexdigest()


class ExactFlip:
    """The exact counterfactual of generated images: ``data``'s images ``index`` re-rendered with the other
    value of ``attribute`` (default: the protected one), the change added to ``X``.

    For ``X = data.X[index]`` the result is the re-rendered image itself; for a searched image
    ``x + delta_bias`` it is ``x + delta_bias + (re-render - x)``, clipped to [0, 1].
    """

    def __init__(self, data, attribute: str | None = None):
        self.data = data
        self.attribute = attribute

    def flip(self, X, index=None) -> FlipResult:
        if index is None:
            raise ValueError("ExactFlip needs index=: the rows of the data set that the images X come from")
        X = _images(X)
        flipped = self.data.counterfactual(X, index, self.attribute)
        linf = np.abs(flipped - X).reshape(len(X), -1).max(axis=1)
        return FlipResult(X, flipped, np.ones(len(X), dtype=bool), np.zeros(len(X), dtype=np.int64), linf)

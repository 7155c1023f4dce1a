"""Hand-built numpy image models whose bias is known, shared by the image-search tests and the generic
search conformance checks: 4 x 4 RGB images, an attribute classifier f_sa that reads the red channel (so its
FGSM flip changes red pixels only) and face detectors that read red (planted bias) or ignore it."""
from __future__ import annotations

import numpy as np

from fairnb.domains import ImageDomain
from fairnb.images import FGSMFlip
from fairnb.models import NumpyMLP

SHAPE = (4, 4, 3)
D = int(np.prod(SHAPE))


def channel(c: int, weight: float = 1.0) -> np.ndarray:
    """(D,) weights on the flattened pixels of channel ``c``."""
    w = np.zeros(D)
    w[c::3] = weight
    return w


def f_sa():
    """The attribute classifier: 'much red' (a linear model, so the FGSM flip changes red pixels only)."""
    return NumpyMLP([channel(0, 1.0)[:, None]], [np.array([-8.0])])


def detector(red: float):
    """A face detector with one hidden layer of 4 units: unit 0 reads red, units 1-3 green and blue; the output
    adds them up with weight ``red`` for unit 0 (the planted bias; 0: the detector ignores red) and is near
    its threshold on the seeds (every pixel sum is about 6.4)."""
    W1 = np.stack([channel(0, 0.05), channel(1, 1.0), channel(2, 0.5), channel(2, 0.5)], axis=1)
    W2 = np.array([[20.0 * red], [1.0], [1.0], [1.0]])
    return NumpyMLP([W1, W2], [np.zeros(4), np.array([-6.4 * (red + 2) - 0.5])])


def domain():
    return ImageDomain(SHAPE, FGSMFlip(step=0.05, attribute_model=f_sa()), attribute="tint",
                       attribute_names=("light", "dark"))


def seed_images(n: int = 60, random_state: int = 0) -> np.ndarray:
    """``n`` images with pixels in [0.2, 0.6] (float32 values)."""
    return np.random.default_rng(random_state).uniform(0.2, 0.6, (n, *SHAPE)).astype(np.float32).astype(float)


def assert_image_pairs_rechecked(result, model, dom):
    """Every pair: pixels in [0, 1], the model decides differently on the input and its counterpart."""
    X, C = result.inputs, result.counterparts
    assert X.shape[1:] == dom.item_shape and X.min() >= 0 and X.max() <= 1 and C.min() >= 0 and C.max() <= 1
    assert (model.predict_proba(X).argmax(1) != model.predict_proba(C).argmax(1)).all()

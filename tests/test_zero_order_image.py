"""The zero-order image search (fairnb.search.methods.zero_order_image): its gradient estimate against exact gradients,
and searches on black-box detectors whose bias is known (tests/image_checks.py)."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb.constraints.images import DEFAULT_LINF
from fairnb.models import FunctionModel
from fairnb.search import get_method
from fairnb.search.methods.zero_order_image import random_direction_gradient

from image_checks import assert_image_pairs_rechecked, detector, domain, seed_images

#: the cosine of the estimate (400 directions) with the exact gradient of an 8 x 8 x 3 detector (d = 192) stays
#: above this floor; about sqrt(q / (q + d)) = 0.82 is expected for a smooth model
COSINE_FLOOR = 0.6


def cosines(A, B):
    A, B = A.reshape(len(A), -1), B.reshape(len(B), -1)
    return (A * B).sum(1) / np.sqrt((A ** 2).sum(1) * (B ** 2).sum(1))


def test_the_estimate_of_a_linear_model_is_its_gradient_in_expectation():
    w = np.random.default_rng(0).normal(size=(2, 2, 3))
    proba = lambda X: 1 / (1 + np.exp(-np.c_[-(X * w).sum((1, 2, 3)), (X * w).sum((1, 2, 3))] / 50))  # noqa: E731
    X = np.full((3, 2, 2, 3), 0.5)
    G = random_direction_gradient(proba, X, 20_000, 0.01, 0)
    exact = w / 50 * 0.25                         # d sigmoid(z / 50) = p (1 - p) / 50 at p = 1/2, for class 1
    assert G.shape == X.shape and cosines(G, np.broadcast_to(exact, X.shape)).min() > 0.99


def test_the_estimate_follows_the_exact_gradient_of_a_keras_detector():
    from fairnb.images.detector import build_face_detector, seed_everything
    from fairnb.models.keras import KerasModel

    seed_everything(0)
    model = KerasModel(build_face_detector((8, 8, 3), filters=(4,), dense=(8,)))
    X = np.random.default_rng(1).uniform(0, 1, (6, 8, 8, 3))
    classes = model.predict_proba(X).argmax(1)
    exact = model.input_gradient(X, classes, of="proba")
    estimate = random_direction_gradient(model.predict_proba, X, 400, 1e-3, 0)
    assert cosines(estimate, exact).min() > COSINE_FLOOR
    few = random_direction_gradient(model.predict_proba, X, 10, 1e-3, 0)     # fewer directions: noisier ...
    assert cosines(few, exact).mean() < cosines(estimate, exact).mean()
    assert cosines(few, exact).min() > 0                                       # ... still a descent direction


@pytest.mark.parametrize("signed", [False, True])
def test_a_planted_tone_bias_is_found_with_outputs_only(signed):
    seeds = seed_images(60)
    black_box = FunctionModel(detector(red=1.0).predict_proba)        # no gradients
    r = get_method("zero_order_image")(random_state=0, signed=signed).run(black_box, domain(), seeds=seeds)
    assert r.count() >= len(seeds) // 3, r.summary()
    assert_image_pairs_rechecked(r, black_box, domain())
    ids = r.to_frame()["seed"].to_numpy()
    assert np.abs(r.inputs - seeds[ids]).max() <= DEFAULT_LINF + 1e-9          # the default pixel budget
    assert np.abs(np.delete(r.counterparts - r.inputs, 0, axis=-1)).max() < 1e-6   # the flip changes red only
    assert r.extras["flip_success_rate"] == 1.0 and r.extras["strict_idis"] <= r.count()


def test_a_detector_that_ignores_the_tone_gives_nothing():
    r = get_method("zero_order_image")(random_state=0).run(FunctionModel(detector(red=0.0).predict_proba), domain(),
                                                            seeds=seed_images(60))
    assert r.count() == 0 and r.tried > 60


def test_each_estimate_costs_two_model_rows_per_direction():
    seeds = seed_images(10)
    search = get_method("zero_order_image")(random_state=0, n_directions=7, max_iter=3)
    r = search.run(FunctionModel(detector(red=0.0).predict_proba), domain(), seeds=seeds)
    rows = r.summary()["model_rows"]
    gradient_rows = r.summary()["gradient_rows"]
    assert gradient_rows == 2 * 10 * (3 - 1) and rows >= 2 * 7 * gradient_rows    # 3 checks, 2 updates between


def test_hard_labels_are_warned_about():
    labels = FunctionModel(lambda X: (detector(red=1.0).predict_proba(X)[:, 1] > 0.5).astype(float))
    with pytest.warns(UserWarning, match="hard labels"):
        get_method("zero_order_image")(random_state=0, max_iter=2).run(labels, domain(), seeds=seed_images(10))

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


#: the cheaper estimate BlazeFace's benchmark uses: blocks of pixels, forward differences, one estimate per pair
CHEAP = {"grid": 2, "n_directions": 6, "antithetic": False, "shared": True}


@pytest.mark.parametrize("options", [{"signed": False}, {"signed": True}, {"signed": True, "global_step": 2 / 255,
                                                                          **CHEAP}])
def test_a_planted_tone_bias_is_found_with_outputs_only(options):
    seeds = seed_images(60)
    black_box = FunctionModel(detector(red=1.0).predict_proba)        # no gradients
    r = get_method("zero_order_image")(random_state=0, **options).run(black_box, domain(), seeds=seeds)
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


def test_forward_differences_and_a_shared_estimate_cost_a_quarter_of_the_rows():
    seeds, model = seed_images(10), FunctionModel(detector(red=0.0).predict_proba)    # nothing found: every step runs
    rows = {}
    for name, options in {"default": {}, "cheap": CHEAP}.items():
        r = get_method("zero_order_image")(random_state=0, max_iter=3, **{**options, "n_directions": 7})
        r = r.run(model, domain(), seeds=seeds)
        assert r.count() == 0 and r.tried == 3 * 10
        rows[name] = r.summary()["model_rows"]                 # the same checks: they differ by the estimates' rows
    assert rows["default"] - rows["cheap"] == (2 * 7 * 2 - 7) * 10 * 2    # (rows x images per estimate) x seeds x updates


def test_directions_on_a_grid_estimate_the_gradient_of_a_blocky_model():
    w = np.kron(np.random.default_rng(0).normal(size=(2, 2)), np.ones((4, 4)))[..., None]   # constant on 4 x 4 blocks
    proba = lambda X: np.c_[1 - (X * w).sum((1, 2, 3)) / 100, (X * w).sum((1, 2, 3)) / 100]  # noqa: E731
    X = np.full((2, 8, 8, 1), 0.5)
    few = dict(n_directions=40, sigma=0.01, rng=0)
    on_grid = random_direction_gradient(proba, X, grid=2, **few)
    everywhere = random_direction_gradient(proba, X, **few)
    exact = np.broadcast_to(w / 100 * np.sign(proba(X)[:, 1:2] - 0.5)[:, None, None], X.shape)
    assert cosines(on_grid, exact).min() > 0.9 > cosines(everywhere, exact).max()   # 4 dimensions, not 64
    with pytest.raises(ValueError, match="grid= needs images"):
        random_direction_gradient(proba, X.reshape(2, -1), grid=2, **few)


def test_hard_labels_are_warned_about():
    labels = FunctionModel(lambda X: (detector(red=1.0).predict_proba(X)[:, 1] > 0.5).astype(float))
    with pytest.warns(UserWarning, match="hard labels"):
        get_method("zero_order_image")(random_state=0, max_iter=2).run(labels, domain(), seeds=seed_images(10))

"""Attribute flips and detector measures without TensorFlow: FGSM against a linear f_sa (closed form),
failure reporting, NeuronFair's AUC measure on hand-built models."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb.images import AttributeFlipper, ExactFlip, FGSMFlip, attribute_effect, detection_rate, make_faces
from fairnb.models import NumpyMLP
from fairnb.search.parts.biased_neurons import layer_auc


def linear_bim_closed_form(X, w, b, step, max_steps):
    """BIM on ``sigmoid(x . w + b)``: the loss gradient's sign is constant, ``-(2c - 1) sign(w)`` for the
    predicted class c, so after t steps ``x_t = clip(x + t * step * d, 0, 1)``; the flip is the first t
    whose logit changes sign. Also the smallest |logit| met (rows near 0 are decided by rounding)."""
    c = (X @ w + b > 0).astype(int)
    d = -(2 * c - 1)[:, None] * np.sign(w)[None, :]
    steps, out, done = np.full(len(X), max_steps), X.copy(), np.zeros(len(X), bool)
    margin = np.abs(X @ w + b)
    for t in range(1, max_steps + 1):
        x_t = np.clip(X + t * step * d, 0, 1)
        margin = np.where(done, margin, np.minimum(margin, np.abs(x_t @ w + b)))
        now = (x_t @ w + b > 0).astype(int) != c
        new = now & ~done
        steps[new], out[new] = t, x_t[new]
        done |= now
    out[~done] = np.clip(X + max_steps * step * d, 0, 1)[~done]
    return out, steps, done, margin


@pytest.fixture(scope="module")
def linear():
    rng = np.random.default_rng(0)
    d = 48
    w = rng.normal(0, 0.3, d)
    X = rng.random((200, d))
    b = -float(np.median(X @ w))                               # about half of each class
    return X, w, b


def test_fgsm_on_a_linear_attribute_classifier_matches_the_closed_form(linear):
    X, w, b = linear
    f_sa = NumpyMLP([w[:, None]], [np.array([b])])
    result = FGSMFlip(step=0.01, max_steps=8, attribute_model=f_sa).flip(X)
    expected, steps, done, margin = linear_bim_closed_form(X, w, b, 0.01, 8)
    clear = margin > 1e-4                                      # rows not decided by float rounding
    assert clear.mean() > 0.9
    assert np.array_equal(result.steps[clear], steps[clear])
    assert np.array_equal(result.success[clear], done[clear])
    assert np.allclose(result.X_flipped[clear], expected[clear], atol=1e-5)
    assert done.mean() > 0.5 and (~done).any()                 # both outcomes occur
    assert np.allclose(result.eps, result.steps * 0.01)
    assert (result.linf <= result.eps + 1e-6).all()            # L-inf never exceeds the budget
    assert result.X_flipped.min() >= 0 and result.X_flipped.max() <= 1
    start = f_sa.predict_proba(X).argmax(1)
    assert (f_sa.predict_proba(result.X_flipped).argmax(1)[result.success] != start[result.success]).all()


def test_failed_flips_are_reported_not_dropped(linear):
    X, w, b = linear
    f_sa = NumpyMLP([w[:, None]], [np.array([b])])
    result = FGSMFlip(step=1e-3, max_steps=2, attribute_model=f_sa).flip(X)
    assert len(result.success) == len(X) and 0 < result.success_rate < 0.5
    table = result.table()
    assert table.columns.tolist() == ["success", "steps", "eps", "l2", "linf"]
    assert (table.steps[~table.success] == 2).all()
    summary = result.summary()
    assert summary["images"] == len(X) and summary["success_rate"] == round(result.success_rate, 4)
    assert np.allclose(result.l2, np.sqrt(((result.X_flipped - X) ** 2).sum(axis=1)), rtol=1e-5)


def test_fgsm_flip_needs_a_classifier_with_gradients_and_valid_steps():
    X = np.full((2, 3), 0.5)
    with pytest.raises(ValueError, match="fit"):
        FGSMFlip().flip(X)
    with pytest.raises(TypeError, match="gradients"):
        FGSMFlip(attribute_model=lambda Z: np.full(len(Z), 0.5)).flip(X)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        FGSMFlip(attribute_model=NumpyMLP([np.ones((3, 1))], [np.zeros(1)])).flip(X + 1)
    with pytest.raises(ValueError, match="step"):
        FGSMFlip(step=0, attribute_model=NumpyMLP([np.ones((3, 1))], [np.zeros(1)])).flip(X)


def test_both_flippers_satisfy_the_flipper_protocol():
    data = make_faces(n=10, size=8)
    assert isinstance(FGSMFlip(), AttributeFlipper) and isinstance(ExactFlip(data), AttributeFlipper)


# ---------------------------------------------------------------------------------------------- measures


def _two_layer(W1):
    return NumpyMLP([W1, np.array([[1.0, -1.0], [-1.0, 1.0], [0.5, -0.5]])], [np.zeros(3), np.zeros(2)])


def test_attribute_effect_is_zero_for_a_model_blind_to_the_flipped_pixels_and_positive_otherwise():
    rng = np.random.default_rng(0)
    X = rng.random((100, 4))
    X_flip = X.copy()
    X_flip[:, 0] = 1 - X[:, 0]                                 # the "attribute" lives in pixel 0
    W1 = rng.normal(size=(4, 3))
    blind = W1.copy()
    blind[0] = 0
    assert attribute_effect(_two_layer(blind), X, X_flip).auc == 0.0
    effect = attribute_effect(_two_layer(W1), X, X_flip)
    hidden = np.maximum(X @ W1, 0), np.maximum(X_flip @ W1, 0)
    assert effect.layer_auc[0] == pytest.approx(layer_auc(np.tanh(np.abs(hidden[0] - hidden[1]).mean(axis=0))))
    assert effect.auc > 0.05 and effect.n_pairs == 100 and 0 <= effect.changed <= 1
    chunked = attribute_effect(_two_layer(W1), X, X_flip, batch_size=7)
    assert np.allclose(chunked.layer_auc, effect.layer_auc) and chunked.changed == effect.changed
    with pytest.raises(ValueError, match="same shape"):
        attribute_effect(_two_layer(W1), X, X_flip[:5])


def test_detection_rate_counts_faces_labelled_face():
    model = NumpyMLP([np.array([[10.0]])], [np.array([-5.0])])    # face iff x > 0.5
    X = np.array([[0.9], [0.1], [0.8], [0.2]])
    assert detection_rate(model, X, y=[1, 1, 1, 0]) == pytest.approx(2 / 3)
    assert detection_rate(model, X) == 0.5
    with pytest.raises(ValueError, match="no face"):
        detection_rate(model, X, y=[0, 0, 0, 0])

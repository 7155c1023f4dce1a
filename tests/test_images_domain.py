"""ImageDomain: validation, variants (the flipper's, or those a batch carries), keys, lossless columns, config, exact flips."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fairnb.domains import ImageDomain, domain_from_config
from fairnb.images import ExactFlip, FGSMFlip, make_faces
from fairnb.models import NumpyMLP
from fairnb.oracle import Oracle

SHAPE = (4, 4, 3)


@pytest.fixture(scope="module")
def faces():
    return make_faces(n=40, size=16, random_state=3)


def red_classifier(weight=4.0, bias=-12.0):
    """P(class 1) = sigmoid(weight * sum of the red pixels + bias) on (4, 4, 3) images."""
    w = np.zeros((int(np.prod(SHAPE)), 1))
    w[0::3] = weight
    return NumpyMLP([w], [np.array([bias])])


def test_validate_names_shape_nan_and_range_problems():
    dom = ImageDomain(SHAPE)
    assert dom.validate(np.zeros(SHAPE)).shape == (1, *SHAPE)
    with pytest.raises(ValueError, match=r"expected \(n, 4, 4, 3\)"):
        dom.validate(np.zeros((2, 4, 4)))
    bad = np.zeros((3, *SHAPE))
    bad[2, 0, 0, 0] = np.nan
    with pytest.raises(ValueError, match=r"NaN \(images \[2\]"):
        dom.validate(bad)
    with pytest.raises(ValueError, match=r"\[0, 1\].*255"):
        dom.validate(np.full((1, *SHAPE), 2.0))
    with pytest.raises(ValueError, match="height, width, channels"):
        ImageDomain((4, 4))
    with pytest.raises(TypeError, match="flip"):
        ImageDomain(SHAPE, flipper=object())


def test_variants_are_fresh_flips_unless_the_batch_carries_them():
    flipper = FGSMFlip(step=0.1, attribute_model=red_classifier())
    dom = ImageDomain(SHAPE, flipper)
    X = np.random.default_rng(0).uniform(0.3, 0.6, (3, *SHAPE))
    V = dom.variants(X)
    assert V.shape == (3, 2, *SHAPE) and dom.own_variant(X).tolist() == [0, 0, 0]
    assert np.array_equal(V[:, 0], X) and np.allclose(V[:, 1], flipper.flip(X).X_flipped)
    # the same image twice in one batch, each with its own counterpart: the oracle checks the ones carried
    # (a pin per image's pixels kept only the last of them)
    twice = np.stack([X[0], X[0]])
    carried = np.stack([twice, np.stack([X[0], np.clip(X[0] + 0.3, 0, 1)])], axis=1)
    verdict = Oracle(lambda imgs: imgs.reshape(len(imgs), -1).mean(axis=1), dom).check(twice, variants=carried)
    assert np.array_equal(verdict.counterpart, carried[:, 1]) and verdict.discriminatory.tolist() == [False, True]


def test_keys_tell_float_images_apart_and_8_bit_conventions_merge_them():
    dom = ImageDomain(SHAPE)
    X = np.random.default_rng(1).random((2, *SHAPE))
    near = X.copy()
    near[0, 0, 0, 0] = np.round(X[0, 0, 0, 0] * 255) / 255 + 1e-4       # the same 8-bit pixel
    both = np.concatenate([X, near])
    eidig, adf = dom.key(both, "eidig"), dom.key(both, "adf")
    assert eidig.shape == (4, 2) and eidig.dtype == np.int64
    assert len({row.tobytes() for row in eidig}) == 3                  # X[1] == near[1] exactly
    rounded = np.concatenate([np.round(X * 255) / 255, np.round(near * 255) / 255])
    assert np.array_equal(dom.key(rounded, "adf"), adf)
    with pytest.raises(ValueError, match="convention"):
        dom.key(X, "exact")


def test_columns_are_lossless_and_reject_images_of_another_size():
    dom = ImageDomain(SHAPE)
    X = np.random.default_rng(2).random((5, *SHAPE)).astype(np.float32).astype(float)
    X[0, 0, 0, 0] = 1 / 3
    frame = dom.to_columns(X)
    assert list(frame.columns) == ["image"] and len(frame) == 5
    back = dom.from_columns(frame)
    assert back.shape == (5, *SHAPE) and np.array_equal(back, X)
    assert np.array_equal(dom.from_columns(dom.to_columns(X[1:])), X[1:])
    assert len(dom.to_columns(X[1:])["image"][0]) < len(frame["image"][0])     # float32 bytes where exact
    with pytest.raises(ValueError, match="48 bytes"):
        dom.from_columns(ImageDomain((2, 2, 3)).to_columns(np.zeros((1, 2, 2, 3))))


def test_config_is_json_and_a_reloaded_domain_keeps_names_but_asks_for_the_flipper(faces):
    dom = ImageDomain.from_data(faces, ExactFlip(faces))
    config = json.loads(json.dumps(dom.to_config()))
    assert config["flipper"]["type"] == "ExactFlip" and "pass it again" in config["flipper"]["note"]
    back = domain_from_config(config)
    assert isinstance(back, ImageDomain) and back.flipper is None
    assert (back.item_shape, back.attribute, back.attribute_names, back.class_names) == \
        ((16, 16, 3), "skin_tone", ("light", "dark"), ("non-face", "face"))
    with pytest.raises(ValueError, match="with_flipper"):
        back.variants(faces.X[:1])
    again = back.with_flipper(ExactFlip(faces), faces)
    face = faces.X[faces.y == 1][:2]
    assert np.allclose(again.variants(face), dom.variants(face))
    fgsm = ImageDomain(SHAPE, FGSMFlip(step=0.1, attribute_model=red_classifier())).to_config()
    assert json.loads(json.dumps(fgsm))["flipper"]["params"]["step"] == 0.1 and "not saved" in fgsm["flipper"]["note"]


def test_exact_flip_of_data_images_is_the_rerender_and_none_when_data_cannot_render(faces):
    dom = ImageDomain.from_data(faces, ExactFlip(faces))
    rows = np.flatnonzero(faces.y == 1)[:3]
    expected = faces.rerender(rows, skin_tone=1 - faces.attribute[rows])
    assert np.allclose(dom.exact_flip(faces.X[rows]), expected, atol=1e-6)
    moved = np.clip(faces.X[rows] + 0.01, 0, 1)                        # a searched input: x + delta_bias
    assert np.allclose(dom.exact_flip(moved, seeds=faces.X[rows]),
                       np.clip(moved + expected - faces.X[rows], 0, 1), atol=1e-6)
    assert dom.exact_flip(moved) is None                                # not an image of the data set
    assert ImageDomain(SHAPE, FGSMFlip(attribute_model=red_classifier())).exact_flip(np.zeros((1, *SHAPE))) is None
    with pytest.raises(ValueError, match="not images of the data set"):
        dom.variants(moved)


def test_pair_columns_show_what_f_sa_sees_and_the_flip_norms():
    dom = ImageDomain(SHAPE, FGSMFlip(step=0.1, attribute_model=red_classifier()), attribute="tint",
                      attribute_names=("light", "dark"))
    X = np.full((2, *SHAPE), 0.1)
    C = X.copy()
    C[:, :, :, 0] = 0.9                                                  # much more red: f_sa says "dark"
    cols = dom.pair_columns(X, C)
    assert cols["tint"] == ["light", "light"] and cols["tint'"] == ["dark", "dark"]
    assert np.allclose(cols["linf"], 0.8) and np.allclose(cols["l2"], 0.8 * 4)
    assert ImageDomain(SHAPE, attribute="tint").pair_columns(X, C)["tint'"] == ["", ""]   # no f_sa: unknown
    described = dom.describe_pair(X[0], C[0])
    assert described["pixels_changed"] == 16 and described["attribute"] == "tint"
    assert dom.decode(X)["size"].tolist() == ["4x4x3", "4x4x3"]
    empty = dom.pair_columns(X[:0], C[:0])                               # a search that found nothing
    assert len(empty["l2"]) == 0 and empty["tint"] == [] and len(dom.decode(X[:0])) == 0

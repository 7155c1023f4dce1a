"""Control flips (fairnb.images.controls) and the tone-vs-exposure comparison (fairnb.images.audit): the exposure
part of a flip has the twin's luminance and the image's hue, the hue part the reverse; a detector that reads hue
is told from one that reads exposure."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb.domains import ImageDomain
from fairnb.images import ExactFlip, FlipPart, compare_flips, flip_part, load_tinted_lfw, luminance
from fairnb.models import FunctionModel

from image_checks import detector, domain, seed_images

pytest.importorskip("skimage")


def chromaticity(X):
    return X / np.maximum(luminance(X), 1e-9)[..., None]


def test_the_exposure_part_has_the_twins_luminance_and_the_images_hue():
    rng = np.random.default_rng(0)
    X = rng.uniform(0.2, 0.6, (5, 4, 4, 3))
    twin = X * rng.uniform(0.7, 1.0, (5, 4, 4, 3))              # darker, with another hue: neither part clips
    control = flip_part(X, twin, "exposure")
    assert np.allclose(luminance(control), luminance(twin))
    assert np.allclose(chromaticity(control), chromaticity(X))
    hue = flip_part(X, twin, "hue")
    assert np.allclose(luminance(hue), luminance(X)) and np.allclose(chromaticity(hue), chromaticity(twin))
    grey = np.repeat(X[..., :1], 3, axis=-1)                     # a grey-to-grey flip is all exposure
    assert np.allclose(flip_part(grey, grey * 0.5, "exposure"), grey * 0.5)


def test_parts_are_clipped_into_pixels_and_bad_arguments_are_named():
    X = np.full((1, 2, 2, 3), 0.9)
    assert flip_part(X * [0.2, 0.2, 0.2], X, "exposure").max() <= 1.0
    with pytest.raises(ValueError, match="part must be one of"):
        flip_part(X, X, "tone")
    with pytest.raises(ValueError, match="same shape"):
        flip_part(X, X[:, :1], "hue")
    with pytest.raises(ValueError, match="part must be one of"):
        FlipPart(ExactFlip(None), "contrast")
    with pytest.raises(TypeError, match="flipper must have flip"):
        FlipPart(object())


@pytest.fixture(scope="module")
def lfw():
    data = load_tinted_lfw(size=12, augment=1)
    faces = np.flatnonzero(data.y == 1)
    return data, faces


def test_a_control_of_the_exact_flip_works_in_a_domain(lfw):
    data, faces = lfw
    dom = ImageDomain.from_data(data, FlipPart(ExactFlip(data)))
    control = dom.flip(data.X[faces])                            # the domain finds the seeds' rows for the inner flip
    exact = ExactFlip(data).flip(data.X[faces], index=faces)
    assert control.success.all() and np.allclose(control.X, exact.X)
    darker = data.attribute[faces] == 0                          # light -> dark: darkening, nothing clips
    assert np.allclose(luminance(control.X_flipped[darker]), luminance(exact.X_flipped[darker]), atol=1e-5)
    assert not np.allclose(control.X_flipped, exact.X_flipped)   # ... but the hue stays the seed's
    assert np.allclose(control.linf, np.abs(control.delta).reshape(len(faces), -1).max(axis=1))


def _reader(feature, X_light, X_dark):
    """A detector that calls a face light-toned by ``feature`` (a per-image number): P(face) = sigmoid of the
    distance from the midpoint between the light and the dark faces' means, steep."""
    mid = (feature(X_light).mean() + feature(X_dark).mean()) / 2
    sign = 1.0 if feature(X_light).mean() > mid else -1.0

    def predict_proba(X):
        p = 1 / (1 + np.exp(-200 * sign * (feature(np.asarray(X, float)) - mid)))
        return np.stack([1 - p, p], axis=1)

    return FunctionModel(predict_proba)


def redness(X):
    return (X[..., 0] / np.maximum(luminance(X), 1e-6)).reshape(len(X), -1).mean(axis=1)


def brightness(X):
    return luminance(X).reshape(len(X), -1).mean(axis=1)


@pytest.mark.parametrize("feature, reads", [(redness, "hue"), (brightness, "exposure")])
def test_the_comparison_tells_a_hue_reader_from_an_exposure_reader(lfw, feature, reads):
    data, faces = lfw
    tone = data.attribute[faces]
    model = _reader(feature, data.X[faces[tone == 0]], data.X[faces[tone == 1]])
    flips = {"tone": ExactFlip(data), "exposure": FlipPart(ExactFlip(data)), "hue": FlipPart(ExactFlip(data), "hue")}
    found = compare_flips(model, ImageDomain.from_data(data), data.X[faces], flips, max_iter=0)
    rates = found.table["natural_rate"]
    assert rates["tone"] > 0.25 and (found.table["seeds"] == len(faces)).all()   # faces vary in brightness
    other = "exposure" if reads == "hue" else "hue"
    assert rates[other] < 0.05 and rates[reads] == rates["tone"]
    assert found.apart("tone", other, "natural") == "apart" and found.apart("tone", reads, "natural") == "overlap"
    with pytest.raises(ValueError, match="max_iter=0 gives natural rates only"):
        found.apart("tone", "hue", "pair")


def test_a_search_with_each_flip_counts_pairs_per_searched_seed(lfw):
    data, faces = lfw
    tone = data.attribute[faces]
    model = _reader(brightness, data.X[faces[tone == 0]], data.X[faces[tone == 1]])
    flips = {"tone": ExactFlip(data), "hue": FlipPart(ExactFlip(data), "hue")}
    found = compare_flips(model, ImageDomain.from_data(data), data.X[faces[:30]], flips,
                          method="zero_order_image", max_iter=2, n_directions=2)
    t = found.table
    assert set(found.results) == {"tone", "hue"} and (t["searched"] == 30).all()
    for name, r in found.results.items():
        assert t.loc[name, "pairs"] == len(np.unique(r.seed_ids)) <= 30
        assert t.loc[name, "pair_low"] <= t.loc[name, "pair_rate"] <= t.loc[name, "pair_high"]
        assert 0 <= t.loc[name, "immaterial_pairs"] <= len(r)
    assert t.loc["tone", "pairs"] > t.loc["hue", "pairs"]        # the brightness reader ignores the hue part
    with pytest.raises(ValueError, match="at least one flipper"):
        compare_flips(model, ImageDomain.from_data(data), data.X[faces], {})


def test_lfw_scenes_place_faces_on_photos_and_flip_only_the_face():
    from fairnb.images.scenes import load_lfw_scenes

    scenes = load_lfw_scenes(face_size=10, canvas=24, noise=0.05)
    faces = np.flatnonzero(scenes.y == 1)
    assert scenes.X.shape == (200, 24, 24, 3) and len(faces) == 100 and scenes.info["noise"] == 0.05
    flip = ExactFlip(scenes).flip(scenes.X[faces], index=faces)
    changed = (np.abs(flip.delta) > 1e-6).any(axis=-1).reshape(100, -1).sum(axis=1)
    assert (changed > 0).all() and (changed <= 10 * 10).all()          # inside the face's square only
    again = load_lfw_scenes(face_size=10, canvas=24, noise=0.05)
    assert np.array_equal(again.X, scenes.X)                            # the noise is drawn per image, repeatably
    with pytest.raises(ValueError, match="face_size must be between 1 and canvas"):
        load_lfw_scenes(face_size=30, canvas=24)


def test_compare_flips_lets_the_natural_rates_flips_go_before_each_search():
    # BlazeFace in tutorial 05: the natural rate's flips of 100 seeds of 128 x 128 x 3 (the images and their twins)
    # were still bound while each search ran
    import tracemalloc

    seeds, model, dom = seed_images(8000).astype(np.float32), detector(red=1.0), domain()
    compare_flips(model, dom, seeds[:50], {"tint": dom.flipper}, max_iter=1)             # imports and caches
    tracemalloc.start()
    try:
        found = compare_flips(model, dom, seeds, {"tint": dom.flipper}, max_iter=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found.table.loc["tint", "pairs"] > len(seeds) // 2
    assert peak < 7.5 * seeds.size * 8, peak / (seeds.size * 8)     # was ~7.8 float64 copies of the seeds, now ~7.2

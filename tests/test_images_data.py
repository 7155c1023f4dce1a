"""Image data: rendered faces, tinted LFW, the folder loader, exact re-rendering, the planted-bias knob."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairnb.images import ExactFlip, ImageDataset, face_params, face_regions, load_image_folder, make_faces, render_faces
from fairnb.images.lfw import TONES, tint_images, tint_mask
from fairnb.images.resize import resize_images


@pytest.fixture(scope="module")
def faces():
    return make_faces(n=300, size=24, random_state=3)


@pytest.fixture(scope="module")
def lfw():
    pytest.importorskip("skimage")
    from fairnb.images import load_tinted_lfw

    return load_tinted_lfw(size=20, augment=3, kept_in_training=0.2, random_state=0)


# ---------------------------------------------------------------------------------------------- make_faces


def test_make_faces_is_deterministic_in_range_and_labelled(faces):
    again = make_faces(n=300, size=24, random_state=3)
    assert np.array_equal(again.X, faces.X) and np.array_equal(again.y, faces.y)
    assert not np.array_equal(make_faces(n=300, size=24, random_state=4).X, faces.X)
    assert faces.X.shape == (300, 24, 24, 3) and faces.X.dtype == np.float32
    assert faces.X.min() >= 0 and faces.X.max() <= 1
    assert 0.35 < faces.y.mean() < 0.65
    non_face = faces.y == 0
    assert (faces.attributes.loc[non_face, ["skin_tone", "hair"]] == -1).all().all()
    assert set(faces.attributes.loc[~non_face, "skin_tone"]) == {0, 1}
    assert set(faces.attributes.loc[~non_face, "hair"]) == {0, 1}


def test_a_subset_of_parameter_records_renders_the_same_images(faces):
    rows = [5, 17, 250]
    assert np.array_equal(render_faces(faces.params.iloc[rows], size=24), faces.X[rows])
    assert np.array_equal(faces.subset(rows).X, faces.X[rows])
    assert np.array_equal(faces.rerender(rows), faces.X[rows])


def test_skin_tone_flip_changes_only_skin_pixels_and_darkens_them(faces):
    idx = np.flatnonzero(faces.y == 1)
    tone = faces.attributes.skin_tone.to_numpy()[idx]
    flipped = ExactFlip(faces).flip(faces.X[idx], index=idx)
    changed = (flipped.X_flipped != faces.X[idx]).any(axis=-1)
    skin = face_regions(faces.params.iloc[idx], 24)["skin"]
    assert changed.any(axis=(1, 2)).all()                       # every face changes
    assert not (changed & ~skin).any()                          # ... only where skin is painted
    assert changed.sum() > 0.8 * skin.sum()                     # (noise cannot hide the change)
    brightness = (flipped.X_flipped.mean(axis=(1, 2, 3)) - faces.X[idx].mean(axis=(1, 2, 3)))
    assert (brightness[tone == 0] < 0).all() and (brightness[tone == 1] > 0).all()
    assert faces.attributes.skin_tone.to_numpy()[idx].tolist() == tone.tolist()   # the data set is unchanged


def test_hair_flip_changes_only_the_long_hair_region_never_the_face(faces):
    hair = faces.with_protected("hair")
    idx = np.flatnonzero(hair.y == 1)
    flipped = ExactFlip(hair).flip(hair.X[idx], index=idx).X_flipped
    changed = (flipped != hair.X[idx]).any(axis=-1)
    regions = face_regions(hair.params.iloc[idx], 24)
    assert changed.any(axis=(1, 2)).all()
    assert not (changed & ~regions["long_hair"]).any()
    assert not (changed & regions["face"]).any()


def test_exact_flip_of_a_searched_image_adds_the_rendered_change_and_stays_in_range(faces):
    idx = np.flatnonzero(faces.y == 1)[:20]
    shifted = np.clip(faces.X[idx] + 0.3, 0, 1)               # stands in for x + delta_bias
    flip = ExactFlip(faces).flip(shifted, index=idx)
    assert flip.X_flipped.min() >= 0 and flip.X_flipped.max() <= 1
    change = faces.rerender(idx, skin_tone=1 - faces.attribute[idx]) - faces.X[idx]
    assert np.allclose(flip.X_flipped, np.clip(shifted + change, 0, 1))
    assert flip.success.all() and flip.success_rate == 1.0
    assert np.allclose(flip.linf, np.abs(flip.X_flipped - shifted).max(axis=(1, 2, 3)))


def test_exact_flip_refuses_non_faces_and_missing_index(faces):
    non_face = np.flatnonzero(faces.y == 0)[:3]
    with pytest.raises(ValueError, match="non-faces"):
        ExactFlip(faces).flip(faces.X[non_face], index=non_face)
    with pytest.raises(ValueError, match="index="):
        ExactFlip(faces).flip(faces.X[:2])
    with pytest.raises(ValueError, match="unknown attribute"):
        faces.rerender([0], age=3)


def test_bad_arguments_name_the_problem():
    with pytest.raises(ValueError, match="protected"):
        make_faces(n=10, protected="age")
    with pytest.raises(ValueError, match="n must"):
        face_params(0)
    with pytest.raises(TypeError, match="DataFrame"):
        render_faces(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ImageDataset("x", np.full((2, 4, 4, 3), 2.0), [0, 1], pd.DataFrame({"a": [0, 1]}), "a")
    with pytest.raises(ValueError, match="kept_in_training"):
        make_faces(n=10, kept_in_training=0)


def test_planted_bias_drops_the_share_of_biased_faces_from_training_only():
    fair = make_faces(n=2000, size=8, noise=0, random_state=0)
    biased = make_faces(n=2000, size=8, noise=0, kept_in_training=0.2, random_state=0)
    (train_f, test_f), (train_b, test_b) = fair.split_indices(), biased.split_indices()
    assert np.array_equal(test_f, test_b)                      # the test split stays complete
    target = lambda d, rows: ((d.y[rows] == 1) & (d.attribute[rows] == 1)).sum()     # noqa: E731
    other = lambda d, rows: ((d.y[rows] == 1) & (d.attribute[rows] == 0)).sum()      # noqa: E731
    assert other(biased, train_b) == other(fair, train_f)
    assert 0.14 < target(biased, train_b) / target(fair, train_f) < 0.26
    X_train, X_test, y_train, y_test = biased.split()
    assert len(X_train) == len(train_b) and len(y_test) == len(test_b)


def test_label_bias_relabels_a_share_of_biased_training_faces_and_keeps_test_labels_true():
    data = make_faces(n=2000, size=8, noise=0, mislabelled_in_training=0.6, random_state=0)
    train, test = data.split_indices()
    X_train, _, y_train, y_test = data.split()
    assert np.array_equal(y_test, data.y[test]) and len(X_train) == len(train)
    dark_faces = (data.y[train] == 1) & (data.attribute[train] == 1)
    light_faces = (data.y[train] == 1) & (data.attribute[train] == 0)
    assert 0.5 < (y_train[dark_faces] == 0).mean() < 0.7          # about 60 % of the dark faces say "non-face"
    assert (y_train[light_faces] == 1).all() and (y_train[data.y[train] == 0] == 0).all()
    assert np.array_equal(data.training_labels(), y_train)        # the same faces on every call
    with pytest.raises(ValueError, match="mislabelled_in_training"):
        make_faces(n=10, mislabelled_in_training=1.5)


# ---------------------------------------------------------------------------------------------- tinted LFW


def test_tint_changes_only_the_face_region_and_is_exact():
    gray = np.random.default_rng(0).random((3, 20, 20)).astype(np.float32)
    light, dark = tint_images(gray, [0, 0, 0]), tint_images(gray, [1, 1, 1])
    outside = tint_mask(20) == 0
    assert np.array_equal(light[:, outside], dark[:, outside])
    assert np.allclose(light[:, outside], gray[:, outside][..., None])
    centre = np.unravel_index(np.argmax(tint_mask(20)), (20, 20))
    ratio = dark[:, centre[0], centre[1]] / light[:, centre[0], centre[1]]
    assert np.allclose(ratio, TONES[1] / TONES[0], rtol=0.05)
    with pytest.raises(ValueError, match="tone"):
        tint_images(gray, [0, 2, 1])


def test_tinted_lfw_shapes_attribute_and_exact_retint(lfw):
    assert lfw.X.shape == (600, 20, 20, 3) and lfw.y.sum() == 300
    assert lfw.X.min() >= 0 and lfw.X.max() <= 1
    assert "licence" in lfw.info["note"] and "synthetic" in lfw.info["note"]
    faces = np.flatnonzero(lfw.y == 1)
    flip = ExactFlip(lfw).flip(lfw.X[faces], index=faces)
    changed = (flip.X_flipped != lfw.X[faces]).any(axis=-1)
    assert changed.any(axis=(1, 2)).all() and not changed[:, tint_mask(20) == 0].any()
    tone = lfw.attribute[faces]
    assert np.allclose(flip.X_flipped, lfw.rerender(faces, skin_tone=1 - tone), atol=1e-6)
    darker = flip.X_flipped.mean(axis=(1, 2, 3)) < lfw.X[faces].mean(axis=(1, 2, 3))
    assert darker[tone == 0].all() and not darker[tone == 1].any()


def test_tinted_lfw_augments_by_mirroring_and_shifting_the_same_crop(lfw):
    p = lfw.params
    first = p.index[(p.source == 0)].tolist()
    assert p.loc[first, ["mirror", "dx", "dy"]].values.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    same_tone = lfw.rerender(first, skin_tone=0)
    assert np.allclose(same_tone[1], same_tone[0][:, ::-1], atol=1e-6)                 # mirror image
    assert np.allclose(same_tone[2][:, 1:], same_tone[0][:, :-1], atol=0.3)           # shifted right by 1 px
    with pytest.raises(ValueError, match="augment"):
        from fairnb.images import load_tinted_lfw

        load_tinted_lfw(augment=0)


# ---------------------------------------------------------------------------------------------- folder


def _write_folder(tmp_path, n=6):
    from PIL import Image

    rng = np.random.default_rng(0)
    rows = []
    for i in range(n):
        colour = (255, 0, 0) if i % 2 else (0, 0, 255)
        Image.new("RGB", (40 + i, 30), colour).save(tmp_path / f"img{i}.png")
        rows.append({"file": f"img{i}.png", "label": "face" if i % 2 else "non-face",
                     "male": int(rng.integers(0, 2)), "age_group": i % 3})
    table = pd.DataFrame(rows)
    table.to_csv(tmp_path / "labels.csv", index=False)
    return table


def test_folder_loader_reads_resizes_and_keeps_the_attributes(tmp_path):
    table = _write_folder(tmp_path)
    data = load_image_folder(tmp_path, tmp_path / "labels.csv", size=16)
    assert data.X.shape == (6, 16, 16, 3) and data.name == tmp_path.name
    assert data.y.tolist() == [0, 1, 0, 1, 0, 1]
    assert data.protected == "male" and data.attributes.columns.tolist() == ["male", "age_group"]
    assert data.attributes.male.tolist() == table.male.tolist()
    assert np.allclose(data.X[1, ..., 0], 1.0) and np.allclose(data.X[1, ..., 2], 0.0)     # red stays red
    assert np.allclose(data.X[0, ..., 2], 1.0)
    grey = load_image_folder(tmp_path, table, attributes="age_group", size=8, grayscale=True)
    assert grey.X.shape == (6, 8, 8, 1) and grey.protected == "age_group"
    with pytest.raises(ValueError, match="cannot be re-rendered"):
        data.rerender([0], male=1)


def test_folder_loader_errors_name_the_argument(tmp_path):
    table = _write_folder(tmp_path, n=2)
    with pytest.raises(ValueError, match="image_column"):
        load_image_folder(tmp_path, table, image_column="path")
    with pytest.raises(ValueError, match="label_names"):
        load_image_folder(tmp_path, table.assign(label=["a", "b"]))
    with pytest.raises(FileNotFoundError, match="img9.png"):
        load_image_folder(tmp_path, table.assign(file=["img0.png", "img9.png"]))
    with pytest.raises(ValueError, match="'x'.*does not name"):
        load_image_folder(tmp_path, table.assign(male=["m", "x"]), attribute_names={"male": ("m", "f")})
    with pytest.raises(FileNotFoundError, match="folder"):
        load_image_folder(tmp_path / "nope", table)


def test_resize_keeps_constant_images_and_range():
    X = np.random.default_rng(1).random((2, 25, 25, 3))
    out = resize_images(X, 32)
    assert out.shape == (2, 32, 32, 3) and out.min() >= 0 and out.max() <= 1
    assert np.allclose(resize_images(np.full((1, 9, 9), 0.7), 5), 0.7, atol=1e-6)
    with pytest.raises(ValueError, match="shape"):
        resize_images(np.zeros(5), 4)

"""The image searches (NeuronFair's image variant, ADF and EIDIG adapted the same way): oracles on hand-built
numpy models whose bias is known, every reported pair re-checked, the update rule, and Result storage."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fairnb.constraints.images import DEFAULT_LINF
from fairnb.domains import ImageDomain
from fairnb.images import ExactFlip, FGSMFlip, face_regions, make_faces
from fairnb.models import NumpyMLP
from fairnb.results import Result
from fairnb.search import get_method
from fairnb.search.methods.neuronfair import LOG_FLOOR

from faults import InterruptAt
from image_checks import SHAPE, assert_image_pairs_rechecked, detector, domain, f_sa, seed_images

METHODS = ("neuronfair_image", "adf_image", "eidig_image")


@pytest.fixture(scope="module")
def seeds():
    return seed_images(60)


@pytest.mark.parametrize("method", METHODS)
def test_a_detector_that_ignores_the_attribute_has_no_idis(method, seeds):
    r = get_method(method)(random_state=0).run(detector(red=0.0), domain(), seeds=seeds)
    assert r.extras["flip_success_rate"] == 1.0 and r.tried > len(seeds)
    assert r.count() == 0 and r.hits == 0 and r.extras["strict_idis"] == 0
    assert len(r.pairs) == 0 and "<table" in r._repr_html_()          # nothing found still displays


@pytest.mark.parametrize("method", METHODS)
def test_seeds_whose_flip_fails_are_skipped_with_the_reason(method, seeds):
    dom = ImageDomain(SHAPE, FGSMFlip(step=0.05, max_steps=2, attribute_model=f_sa()), attribute="tint")
    r = get_method(method)(random_state=0).run(detector(red=1.0), dom, seeds=seeds)
    outcomes = r.seed_outcomes
    skipped = outcomes[outcomes["outcome"] == "skipped"]
    assert 0 < len(skipped) < len(seeds) and (skipped["reason"] == "flip failed").all()
    assert r.extras["flip_failed"] == len(skipped) == r.extras["seeds_skipped"]
    assert not set(skipped["seed"]) & set(r.seed_ids.tolist()) and r.extras["seeds_found"] > 0


@pytest.mark.parametrize("method", METHODS)
def test_the_planted_bias_yields_many_idis_and_every_pair_rechecks(method, seeds):
    model, dom = detector(red=1.0), domain()
    r = get_method(method)(random_state=0).run(model, dom, seeds=seeds)
    assert r.count() >= len(seeds) // 3, r.summary()
    X, C = r.inputs, r.counterparts
    assert X.shape == C.shape == (r.count(), *dom.item_shape)
    assert_image_pairs_rechecked(r, model, dom)
    ids = r.to_frame()["seed"].to_numpy()
    assert len(set(ids)) == len(ids) and set(r.to_frame()["phase"]) == {"global"}      # one global IDI per seed
    flip = dom.flipper.flip(seeds[ids])
    assert flip.success.all()
    assert np.allclose(C, np.clip(X + (flip.X_flipped - seeds[ids]), 0, 1), atol=1e-6)   # the seed's fixed flip
    assert np.allclose(np.delete(C - X, 0, axis=-1), 0)                                 # it changes red only
    sa = f_sa().predict_proba(np.concatenate([X, C])).argmax(1)
    details = [r.details(i) for i in range(len(r))]
    assert [d["sa_disagrees"] for d in details] == (sa[:len(X)] != sa[len(X):]).tolist()
    assert r.extras["strict_idis"] == sum(d["sa_disagrees"] for d in details)
    assert all(d["flip_ok"] and d["steps"] == s for d, s in zip(details, flip.steps))
    assert np.allclose([d["l2"] for d in details], np.sqrt(((C - X) ** 2).reshape(len(X), -1).sum(1)))
    assert np.allclose([d["bias_l2"] for d in details], np.sqrt(((X - seeds[ids]) ** 2).reshape(len(X), -1).sum(1)))
    assert max(d["iteration"] for d in details) <= 40
    assert 0 < r.extras["gsr"] <= 1


def test_f_sa_sees_only_the_discriminatory_pairs(seeds):
    """The details' f_sa view is computed for the pairs a step finds, not for every candidate."""
    seen = []

    class Counting:
        def predict_proba(self, X):
            seen.append(len(X))
            return f_sa().predict_proba(X)

    dom = ImageDomain(SHAPE, FGSMFlip(step=0.05, attribute_model=f_sa()), attribute="tint", attribute_model=Counting())
    r = get_method("adf_image")(random_state=0, constraints="paper").run(detector(red=1.0), dom, seeds=seeds)
    assert 0 < r.count() < r.tried and sum(seen) == 2 * r.count()       # each pair: its input and counterpart
    assert all(r.details(i)["sa_disagrees"] is not None for i in range(len(r)))


def test_unsigned_steps_follow_the_paper_for_adf_and_neuronfair(seeds):
    """A pair found after one update is ``clip(seed + 0.15 * direction)``, projected into the default pixel
    budget: ADF's loss gradients where their signs agree, NeuronFair's dynamic-loss gradients (Eq. 4; a 4-neuron
    layer has no random neurons) summed."""
    model, dom = detector(red=1.0), domain()
    for method in ("adf_image", "neuronfair_image"):
        search = get_method(method)(random_state=0)
        r = search.run(model, dom, seeds=seeds)
        first = [i for i in range(len(r)) if r.details(i)["iteration"] == 1]
        assert first, f"{method}: no pair found after exactly one update"
        ids = r.to_frame()["seed"].to_numpy()[first]
        S = seeds[ids]
        C0 = np.clip(S + (dom.flipper.flip(S).X_flipped - S), 0, 1)
        if method == "adf_image":
            g = model.input_gradient(S, model.predict_proba(S).argmax(1), of="loss")
            gc = model.input_gradient(C0, model.predict_proba(C0).argmax(1), of="loss")
            step = np.where(np.sign(g) == np.sign(gc), g + gc, 0.0)
        else:
            layer = search.interpretation_.biased_layer
            mask = np.zeros(4)
            mask[search.interpretation_.biased_neurons] = 1.0
            a, ac = model.layer_outputs(S)[layer], model.layer_outputs(C0)[layer]
            g = model.activation_gradient(S, layer, -mask * ac / np.maximum(a, LOG_FLOOR))
            gc = model.activation_gradient(C0, layer, -mask * a / np.maximum(ac, LOG_FLOOR))
            step = g + gc
        assert np.allclose(r.inputs[first], np.clip(np.clip(S + 0.15 * step, S - DEFAULT_LINF, S + DEFAULT_LINF), 0, 1),
                           atol=1e-6), method


def test_exact_flips_change_only_the_skin_and_find_the_planted_bias():
    data = make_faces(n=60, size=8, random_state=1)
    faces = np.flatnonzero(data.y == 1)
    w = np.full((8 * 8 * 3, 1), 1.0 / (8 * 8))            # the detector: "bright images are faces"
    mean = data.X[faces].mean(axis=(1, 2, 3)).mean()
    model = NumpyMLP([w, np.array([[3.0]])], [np.zeros(1), np.array([-9.0 * mean])])
    dom = ImageDomain.from_data(data, ExactFlip(data))
    r = get_method("neuronfair_image")(random_state=0).run(model, dom, seeds=data.X[faces])
    assert r.count() > 0 and r.extras["flip_success_rate"] == 1.0
    assert_image_pairs_rechecked(r, model, dom)
    rows = faces[r.to_frame()["seed"].to_numpy()]
    skin = face_regions(data.params.iloc[rows], size=8)["skin"]
    changed = np.abs(r.counterparts - r.inputs).max(axis=-1) > 0
    assert changed.any() and not (changed & ~skin).any()
    assert all(r.details(i)["sa_p"] is None for i in range(len(r)))   # no f_sa given: no attribute view


def test_image_searches_refuse_other_domains_and_bad_parameters(seeds):
    from fairnb.domains import Feature, TabularDomain

    table = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 3)], protected="sex")
    with pytest.raises(TypeError, match="ImageDomain"):
        get_method("adf_image")().run(detector(1.0), table, seeds=[[0, 1]])
    with pytest.raises(ValueError, match="global_step must be a finite number > 0"):
        get_method("eidig_image")(global_step=0).run(detector(1.0), domain(), seeds=seeds)
    with pytest.raises(ValueError, match="seed images"):
        get_method("neuronfair_image")().run(detector(1.0), domain())
    with pytest.raises(TypeError, match="bounded"):
        get_method("adf")().run(detector(1.0), domain(), seeds=seeds)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_an_image_result_saves_and_loads_with_its_pairs_and_details(tmp_path, seeds, suffix):
    r = get_method("eidig_image")(random_state=0).run(detector(red=1.0), domain(), seeds=seeds[:20])
    assert r.count() > 0
    path = r.save(tmp_path / f"found{suffix}")
    back = Result.load(path)
    assert back.domain.kind == "image" and back.domain.flipper is None and back.domain.attribute == "tint"
    assert np.array_equal(back.inputs, r.inputs) and np.array_equal(back.counterparts, r.counterparts)
    assert [back.details(i) for i in range(len(back))] == [r.details(i) for i in range(len(r))]
    assert back.count("adf") == r.count("adf") and back.summary()["strict_idis"] == r.extras["strict_idis"]
    assert np.array_equal(back.extras["seeds"], r.extras["seeds"])                   # stored exactly ...
    stored = json.loads(Path(str(path) + ".json").read_text())["extras"]["seeds"]
    assert stored["__file__"] == f"found{suffix}.seeds.npz"                             # ... in a data file, not JSON
    assert {"size", "mean", "key", "l2", "linf", "p", "label'"} <= set(back.pairs.columns)
    assert (back.pairs["tint"] == "").all() and (r.pairs["tint"] != "").all()   # f_sa's view needs the flipper
    assert "<table" in back._repr_html_() and "<table" in r._repr_html_()
    restored = back.domain.with_flipper(r.domain.flipper)
    assert restored.pair_columns(back.inputs, back.counterparts)["tint'"] == r.pairs["tint'"].tolist()


def test_float32_seed_images_are_kept_as_given_at_half_the_memory(seeds):
    given = seeds[:20].astype(np.float32)
    r = get_method("eidig_image")(random_state=0).run(detector(red=1.0), domain(), seeds=given)
    kept = r.extras["seeds"]
    assert kept.dtype == np.float32 and np.array_equal(kept, given) and r.count() > 0
    given[:] = 0                                                  # the caller's array is not the Result's
    assert kept.any()


@pytest.mark.slow
def test_retraining_with_image_pairs_adds_them_as_faces_and_measures_the_detector(seeds, tmp_path):
    import pandas as pd

    import fairnb
    from fairnb.images import ImageDataset

    model = detector(red=1.0)
    y = model.predict_proba(seeds).argmax(1)
    tint = (seeds[..., 0].mean(axis=(1, 2)) > 0.4).astype(int)
    data = ImageDataset("toy", seeds, y, pd.DataFrame({"tint": tint}), "tint", test_size=0.3)
    train, test = data.split_indices()
    faces = train[data.y[train] == 1]
    found = get_method("adf_image")(random_state=0).run(model, domain(), seeds=data.X[faces])
    assert len(found) > 0
    retrainer = fairnb.mitigation.Retrainer(augment="pair", epochs=5, random_state=0, repeats=1, control=False).fit(
        model, found, data)
    X_add, y_add = retrainer.samples_["adf_image"][0]
    pairs = np.concatenate([found.inputs, found.counterparts]).astype(data.X.dtype)   # in the training images' type
    assert np.array_equal(X_add, pairs) and (y_add == 1).all()
    frame = retrainer.report_.frame.set_index("measure")
    assert {"accuracy", "attribute_auc", "detection_rate"} <= set(frame.index)
    assert frame.loc["attribute_auc", "before"] > 0 and frame.loc["attribute_auc", "added"] == len(X_add)
    with pytest.raises(ValueError, match="no attribute flipper"):               # a reloaded Result
        fairnb.mitigate(model, Result.load(found.save(tmp_path / "found.csv")), data)


def test_retraining_on_float32_images_adds_the_pairs_in_float32(seeds):
    import pandas as pd

    import fairnb
    from fairnb.images import ImageDataset

    model, images = detector(red=1.0), seeds.astype(np.float32)
    tint = (images[..., 0].mean(axis=(1, 2)) > 0.4).astype(int)
    data = ImageDataset("toy", images, model.predict_proba(images).argmax(1), pd.DataFrame({"tint": tint}), "tint",
                        test_size=0.3)
    train, _ = data.split_indices()
    found = get_method("adf_image")(random_state=0).run(model, domain(), seeds=data.X[train[data.y[train] == 1]])
    retrainer = fairnb.mitigation.Retrainer(augment="pair", epochs=2, random_state=0, repeats=1, control=False).fit(
        model, found, data)
    X_add, _ = retrainer.samples_["adf_image"][0]
    assert len(found) > 0 and X_add.dtype == np.float32                 # half the memory of float64 images
    assert np.array_equal(X_add, np.concatenate([found.inputs, found.counterparts]).astype(np.float32))


@pytest.mark.parametrize("method", METHODS)
def test_ctrl_c_returns_the_image_result_found_so_far(method, seeds):
    model, dom = detector(red=1.0), domain()
    r = get_method(method)(random_state=0, batch_size=5).run(model, dom, seeds=seeds, listeners=[InterruptAt(at=3)])
    assert r.status == "interrupted" and 0 < r.tried < 60 * 41
    assert_image_pairs_rechecked(r, model, dom)


@pytest.mark.parametrize("method", METHODS)
def test_seeds_without_the_attribute_are_refused_saying_how_many(method):
    """Non-faces have no skin tone to flip: passing every image of a face data set as seeds used to be accepted."""
    data = make_faces(n=40, size=8, random_state=0)
    dom = ImageDomain.from_data(data, FGSMFlip(step=0.05, attribute_model=NumpyMLP([np.ones((8 * 8 * 3, 1))],
                                                                                  [np.array([-96.0])])))
    model = NumpyMLP([np.full((8 * 8 * 3, 2), 0.01), np.ones((2, 1))], [np.zeros(2), np.array([-2.0])])
    non_faces = int((data.attribute < 0).sum())
    with pytest.raises(ValueError, match=rf"seeds: {non_faces} of 40 images .* no value of 'skin_tone' \(non-faces"):
        get_method(method)(random_state=0).run(model, dom, seeds=data.X)
    faces = data.X[data.attribute >= 0]
    assert get_method(method)(max_iter=2, random_state=0).run(model, dom, seeds=faces).extras["seeds_used"] == len(faces)


@pytest.mark.parametrize("method", ["adf_image", "eidig_image"])
def test_large_images_step_in_chunks_within_the_memory_budget_with_the_same_pairs(method, monkeypatch):
    # tutorial 05: 640 seeds of 32 x 32 colour images stepped together held ~256 MiB of float64 copies (tracemalloc);
    # the seeds now step in chunks whose working state fits fairnb.oracle.MEMORY_BUDGET (here made tiny for 4 x 4)
    import fairnb.oracle
    from fairnb.search.methods.image_flip import IMAGE_STATE_COPIES
    from fairnb.search.methods.two_phase import TwoPhase

    seeds, model = seed_images(300), detector(red=1.0)
    whole = get_method(method)(random_state=0).run(model, domain(), seeds=seeds)
    chunks = []
    original = TwoPhase._global_phase

    def recorded(self, ctx, seeds, rows):
        chunks.append(len(rows))
        return (yield from original(self, ctx, seeds, rows))

    monkeypatch.setattr(TwoPhase, "_global_phase", recorded)
    monkeypatch.setattr(fairnb.oracle, "MEMORY_BUDGET", 8 * int(np.prod(SHAPE)) * IMAGE_STATE_COPIES * 40)
    chunked = get_method(method)(random_state=0).run(model, domain(), seeds=seeds)
    assert max(chunks) == 40 and sum(chunks) == 300
    assert len(whole) > 50 and np.array_equal(np.sort(whole.inputs.reshape(len(whole), -1), axis=0),
                                              np.sort(chunked.inputs.reshape(len(chunked), -1), axis=0))


@pytest.mark.parametrize("method", METHODS)
def test_a_search_does_not_hold_its_pairs_twice_besides_the_result(method):
    # BlazeFace in tutorial 05 (100 seeds of 128 x 128 x 3): every chunk's pairs (image, twin, trace) were kept until
    # the end of the global phase and joined, ~4 float64 images a pair twice over, though no local phase reads them
    import tracemalloc

    seeds, model, dom = seed_images(8000).astype(np.float32), detector(red=1.0), domain()
    get_method(method)(max_iter=1, random_state=0).run(model, dom, seeds=seeds[:50])      # imports and caches
    tracemalloc.start()
    try:
        r = get_method(method)(max_iter=1, random_state=0).run(model, dom, seeds=seeds)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(r) > len(seeds) // 2
    assert peak < 8 * seeds.size * 8, peak / (seeds.size * 8)       # was ~11.5 float64 copies of the seeds

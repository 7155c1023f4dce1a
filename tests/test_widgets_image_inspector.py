"""Image-flip inspector: paging, PNG thumbnails, the side-by-side view of a selected pair, sorting,
state round trips, escaping (on the small image domain of ``image_pairs``)."""
from __future__ import annotations

import copy
import html
import json

import numpy as np
import pytest
import traitlets

from fairnb.models import FunctionModel
from fairnb.results import Result
from fairnb.widgets.image_inspector import ImageInspector
from fairnb.widgets.png import decode_png, heat_map, png_base64, png_bytes, thumbnail, to_uint8
from image_pairs import Nudge, PhotoSquares, RedSquares, detector

EVIL = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def result():
    r = Nudge(random_state=0, progress=False).run(detector, RedSquares())
    assert r.status == "completed" and len(r) == 32   # every seed and every moved seed flips the decision
    return r


def _cell_ids(ins):
    return [c["id"] for c in ins.cells]


def test_pages_cover_every_pair_once_with_png_thumbnails(result):
    ins = ImageInspector(result, page_size=10)
    seen = []
    for page in range(4):
        ins.page = page
        assert len(ins.cells) == (10 if page < 3 else 2)
        for cell in ins.cells:
            i = cell["id"]
            assert np.array_equal(decode_png(cell["input"]), to_uint8(result.inputs[i]))
            assert np.array_equal(decode_png(cell["counterpart"]), to_uint8(result.counterparts[i]))
            p, p2 = result.pairs[["p", "p'"]].iloc[i]
            assert cell["caption"] == f"{p:.3f} → {p2:.3f}"
        seen += _cell_ids(ins)
    assert sorted(seen) == list(range(len(result)))
    ins.page = 99                                         # past the end: the last page
    assert ins.page == 3 and _cell_ids(ins) == [30, 31]


def test_selecting_a_pair_shows_seed_input_flips_and_heat_maps(result):
    ins = result.inspect(page_size=10)
    assert isinstance(ins, ImageInspector)
    k = 5                                                 # a moved seed (pairs 0 and 1 are seeds themselves)
    ins.set_state({"selected_ids": [k]})                  # what a click sends
    assert ins.selected.equals(result.pairs.iloc[[k]])
    d = ins.detail
    seed = result.extras["seeds"][int(result.pairs["seed"].iloc[k])]
    x, c = result.inputs[k], result.counterparts[k]
    exact = result.domain.exact_flip(x[None], seeds=seed[None])[0]    # re-rendered from the pair's seed
    assert not np.allclose(exact, result.domain.exact_flip(x[None])[0])
    images = {i["role"]: decode_png(i["png"]) for i in d["images"]}
    assert list(images) == ["seed", "input", "counterpart", "exact"]
    for role, want in [("seed", seed), ("input", x), ("counterpart", c), ("exact", exact)]:
        assert np.array_equal(images[role], to_uint8(want)), role
    heat = {h["role"]: h for h in d["heatmaps"]}
    assert list(heat) == ["bias", "senatt", "exact"]
    deltas = [("bias", x - seed), ("senatt", c - x), ("exact", exact - x)]
    scale = max(np.abs(delta).max() for _, delta in deltas)        # ONE scale: noise is not drawn as a real change
    for role, delta in deltas:
        rgb = decode_png(heat[role]["png"])
        strength = np.abs(delta).max(axis=-1)
        assert np.array_equal(rgb, to_uint8(heat_map(delta, scale=scale)[0]))
        assert f"same scale ×{1 / scale:.3g}, largest change {strength.max():.3g}" in heat[role]["caption"]
        white = (rgb == 255).all(axis=-1)
        assert white.any() == np.isclose(strength.max(), scale)        # only the largest change of all is white
    info = result.details(k)
    assert d["columns"] == ["input", "counterpart"]     # the seed's and exact flip's numbers need model=
    rows = {r["name"]: r["values"] for r in d["table"]}
    p, p2 = result.pairs[["p", "p'"]].iloc[k]
    assert rows["detector P(face)"] == [f"{p:.3f}", f"{p2:.3f}"]
    assert rows["detector decision"][0] != rows["detector decision"][1]
    assert rows["f_sa P(red = high)"] == [f"{info['sa_p']:.3f}", f"{info['sa_p_counterpart']:.3f}"]
    norms = {n["name"]: n["value"] for n in d["norms"]}
    assert norms["‖Δ_senatt‖₂"] == f"{np.linalg.norm(c - x):.3f}"
    assert norms["‖Δ_bias‖∞"] == f"{np.abs(x - seed).max():.3f}"
    assert norms["FGSM flip steps"] == str(info["steps"])
    assert norms["f_sa still disagrees at the end"] == ("yes" if info["sa_disagrees"] else "no")
    assert norms["search iterations before found"] == str(info["iteration"]) and "bias_l2" not in norms
    assert d["summary"].startswith(f"Pair {k}: flipping red moves the detector's P(face) from {p:.3f} to {p2:.3f}")
    ins.set_state({"selected_ids": [0]})                  # a seed itself: no Δ_bias
    assert "(no change)" in ins.detail["heatmaps"][0]["caption"]
    assert not decode_png(ins.detail["heatmaps"][0]["png"]).any()
    ins.selected_ids = []
    assert ins.detail == {} and ins.selected.empty


def test_with_the_detector_the_seed_and_the_exact_flip_get_their_probabilities(result):
    k = 9
    d = ImageInspector(result, model=detector, selected_ids=[k]).detail
    assert d["columns"] == ["seed", "input", "counterpart", "exact"]
    seed = result.extras["seeds"][int(result.pairs["seed"].iloc[k])]
    exact = result.domain.exact_flip(result.inputs[k][None], seeds=seed[None])[0]
    want = detector(result.domain.encode(np.stack([seed, exact])))
    rows = {r["name"]: r["values"] for r in d["table"]}
    assert [rows["detector P(face)"][j] for j in (0, 3)] == [f"{v:.3f}" for v in want]
    assert rows["detector P(face)"][1:3] == [f"{v:.3f}" for v in result.pairs[["p", "p'"]].iloc[k]]
    assert [rows["detector decision"][j] for j in (0, 3)] == [("non-face", "face")[int(v > 0.5)] for v in want]
    assert rows["f_sa P(red = high)"][0] == rows["f_sa P(red = high)"][3] == ""   # the domain has no f_sa

    dom = RedSquares()
    dom.attribute_model = FunctionModel(lambda X: X[:, 0::3].mean(axis=1))         # f_sa: P(high) = mean red
    r = Nudge(n_seeds=4, random_state=2, progress=False).run(detector, dom)
    d = ImageInspector(r, model=detector, selected_ids=[5]).detail
    seed = r.extras["seeds"][int(r.pairs["seed"].iloc[5])]
    exact = dom.exact_flip(r.inputs[5][None], seeds=seed[None])[0]
    f_sa = next(row["values"] for row in d["table"] if row["name"].startswith("f_sa"))
    assert [f_sa[0], f_sa[3]] == [f"{im[..., 0].mean():.3f}" for im in (seed, exact)]


def test_data_that_cannot_be_rerendered_and_results_without_seeds(result):
    r = Nudge(n_seeds=4, random_state=1, progress=False).run(detector, PhotoSquares())
    r.extras.pop("seeds")
    ins = r.inspect(selected_ids=[3])
    assert [i["role"] for i in ins.detail["images"]] == ["input", "counterpart"]
    assert [h["role"] for h in ins.detail["heatmaps"]] == ["senatt"]
    assert not any("Δ_bias" in n["name"] or "exact" in n["name"] for n in ins.detail["norms"])
    with pytest.raises(ValueError, match=r"seeds have shape \(3, 2\); expected \(n, 6, 6, 3\)"):
        ImageInspector(result, seeds=np.zeros((3, 2)))


def test_sorting_by_the_detector_and_the_flip_norms(result):
    ins = ImageInspector(result, page_size=8, sort_by="difference")
    diff = result.pairs["difference"].to_numpy()
    assert ins.visible_ids == sorted(range(len(result)), key=lambda i: -diff[i])   # largest first by default
    assert _cell_ids(ins) == ins.visible_ids[:8]
    ins.sort_by, ins.sort_descending = "l2", False
    l2 = [result.details(i)["l2"] for i in range(len(result))]
    assert [l2[i] for i in ins.visible_ids] == sorted(l2)
    assert [o["name"] for o in ins.sort_options] == ["difference", "p", "p'", "l2", "linf", "sa_p", "steps"]


def test_state_round_trips_through_json(result):
    ins = ImageInspector(result, page_size=8, sort_by="sa_p", page=2, selected_ids=[9])
    state = json.loads(json.dumps(ins.get_state()))
    assert state["page"] == 2 and state["n_pairs"] == len(result) and state["selected_ids"] == [9]
    again = ImageInspector(result)
    again.set_state({k: state[k] for k in ("page_size", "sort_by", "sort_descending", "page", "selected_ids")})
    assert again.cells == ins.cells and again.detail == ins.detail
    assert len(json.dumps(state["cells"])) < 8 * 2 * 400   # PNG thumbnails, not lists of numbers


def test_invalid_browser_input_is_rejected(result):
    ins = ImageInspector(result)
    for trait, value in [("sort_by", "nope"), ("selected_ids", [len(result)]), ("page_size", 0)]:
        with pytest.raises(traitlets.TraitError):
            setattr(ins, trait, value)
    with pytest.raises(TypeError, match="unexpected keyword argument.*'pagesize'"):
        ImageInspector(result, pagesize=10)


def test_strings_reach_the_browser_as_text_and_the_static_view_escapes_them():
    r = Nudge(n_seeds=3, random_state=0, progress=False).run(detector, RedSquares(attribute=EVIL, class_names=(EVIL, EVIL)))
    r.method = EVIL
    ins = r.inspect(selected_ids=[2])
    assert EVIL in ins.title and EVIL in ins.detail["summary"]                # plain text: the front end uses textContent
    assert f"f_sa P({EVIL} = high)" in [row["name"] for row in ins.detail["table"]]
    page = ins.static_html()
    assert "<script" not in page and html.escape(EVIL) in page
    uris = page.split("src='")[1:]
    assert len(ins.cells) == 5 and len(uris) == 2 * 5 + 4 + 3 and all(u.startswith("data:image/png;base64,") for u in uris)
    assert np.array_equal(decode_png(uris[0].split(",", 1)[1].split("'")[0]), to_uint8(r.inputs[ins.cells[0]["id"]]))
    assert ins._repr_mimebundle_()[0]["text/html"] == page


def test_the_static_grid_wraps_into_rows_that_fit_a_notebook():
    """Exported HTML of tutorial 05 put 40 pairs in one table row and cut them after 22."""
    r = Nudge(n_seeds=30, random_state=0, progress=False).run(detector, RedSquares())
    ins = r.inspect(page_size=20)
    grid = ins.static_html().split("<table>")[1].split("</table>")[0]
    rows = grid.split("<tr>")[1:]
    assert len(ins.cells) == 20 and len(rows) == 4 and all(row.count("<td>") <= 6 for row in rows)
    assert sum(row.count("<td>") for row in rows) == 20


def test_png_round_trips_8_bit_images():
    rng = np.random.default_rng(0)
    for shape in [(5, 7), (5, 7, 1), (5, 7, 3), (5, 7, 4)]:
        x = rng.random(shape)
        want = np.rint(x * 255).astype(np.uint8).reshape(shape[:2] + (shape[2:] if shape[2:] != (1,) else ()))
        assert np.array_equal(decode_png(png_bytes(x)), want)
        assert np.array_equal(decode_png(png_base64(x)), want)
    exact = np.arange(256).reshape(16, 16) / 255                      # every 8-bit level survives
    assert np.array_equal(decode_png(png_bytes(exact)), np.arange(256).reshape(16, 16))
    assert decode_png(png_bytes(np.array([[-0.5, 1.5]]))).tolist() == [[0, 255]]
    for bad in [np.zeros((2, 2, 2)), np.zeros(4), np.full((2, 2), np.nan), np.zeros((0, 3))]:
        with pytest.raises(ValueError, match="image"):
            png_bytes(bad)
    assert len(png_bytes(rng.random((25, 25, 3)))) < 25 * 25 * 3 + 200


def test_large_images_are_sent_as_small_thumbnails():
    image = np.zeros((96, 96, 3))
    image[:48] = 1
    small = thumbnail(image)
    assert small.shape == (48, 48, 3) and small[:24].min() == 1 and small[24:].max() == 0
    assert np.array_equal(thumbnail(np.ones((25, 25, 3))), np.ones((25, 25, 3)))


def test_pairs_and_their_details_survive_save_and_load(result, tmp_path):
    loaded = Result.load(result.save(tmp_path / "images.parquet"))
    before, after = result.inspect(selected_ids=[7]), loaded.inspect(selected_ids=[7])
    assert isinstance(after, ImageInspector)
    assert after.cells == before.cells and after.detail == before.detail


def test_thousands_of_pairs_send_one_page_of_thumbnails():
    dom = RedSquares()
    X = np.random.default_rng(0).uniform(0.25, 0.75, (3000, *dom.item_shape))
    C = dom.flip(X)
    p, pc = detector(dom.encode(X)), detector(dom.encode(C))
    r = Result(dom, "bulk")
    r.record(X, C, np.c_[1 - p, p], np.c_[1 - pc, pc], phase="global", seed_ids=-1, elapsed=1.0,
             info=Nudge.info(dom, X))
    ins = r.inspect(page_size=40, sort_by="difference")
    assert ins.n_pairs == len(r) == 3000 and len(ins.cells) == 40
    data = {k: v for k, v in ins.get_state().items() if k not in ("_esm", "_css")}   # the front end's code aside
    assert len(json.dumps(data)) < 40 * 2 * 400 + 5_000                  # one page of PNGs, not 3000 images
    assert ins.cells[0]["id"] == int(np.argmax(r.pairs["difference"].to_numpy()))
    ins.page = 74
    assert len(ins.cells) == 40 and ins.page == 74


def test_fgsm_counterparts_are_labelled_adversarial_and_float32_pairs_stay_float32(result):
    from fairnb.images import ExactFlip, FGSMFlip, FlipPart, make_faces

    r = result.snapshot()
    r.domain = copy.copy(result.domain)
    r.domain.flipper = FGSMFlip()                          # an f_sa-guided flip: not a tone a reader sees
    ins = ImageInspector(r, selected_ids=[5])
    counterpart = next(i for i in ins.detail["images"] if i["role"] == "counterpart")
    assert counterpart["caption"] == "adversarial flip (FGSM, f_sa-guided) (the counterpart)"
    assert "adversarial flip (FGSM, f_sa-guided) of red" in ins.title and "a reader may not" in ins.title
    flips = make_faces(n=4, size=8, random_state=0)
    for flipper, caption in ((ExactFlip(flips), "exact flip"), (FlipPart(ExactFlip(flips)), "exposure-matched control")):
        r.domain.flipper = flipper
        ins = ImageInspector(r, selected_ids=[5])
        assert ins.detail["images"][2]["caption"] == f"{caption} (the counterpart)"
        assert "differ only in red" in ins.title
    seeds = np.asarray(result.extras["seeds"], dtype=np.float32)
    assert ImageInspector(r, seeds=seeds).seeds.dtype == np.float32    # no float64 copy of a production detector's

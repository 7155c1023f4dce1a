"""A saved Result is refused when its files changed after saving: ``save`` records a SHA-256 of the pair table and
of its JSON description, ``load`` checks both and names the file that changed. Before, a text Result whose
vocabulary was reordered loaded (3,371 of 5,943 pairs then no longer discriminatory), an image CSV with one base64
character changed loaded (12 of 177 pairs no longer discriminatory) and so did an image description with another
shape. Files written before the checksums keep loading, with a warning."""
from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairnb.results import Result
from fairnb.results import UncheckedResultWarning
from fairnb.search import get_method

from image_checks import detector, domain as image_domain, seed_images
from text_checks import bench, biased_linear

SAVED = Path(__file__).parent / "saved_results"


@pytest.fixture(scope="module")
def text_result():
    dom, texts, E = bench()
    model = biased_linear(dom, E)
    result = get_method("rp")(n_seeds=30, max_iter=3, n_local=10, random_state=0).run(model, dom, seeds=texts)
    assert len(result) > 20
    return result, model


@pytest.fixture(scope="module")
def image_result():
    result = get_method("eidig_image")(random_state=0).run(detector(red=1.0), image_domain(), seeds=seed_images(15))
    assert len(result) > 5
    return result


def _edit_description(path: Path, edit) -> Path:
    meta_path = Path(str(path) + ".json")
    meta = json.loads(meta_path.read_text())
    edit(meta)
    meta_path.write_text(json.dumps(meta))
    return meta_path


def _loads_silently(path) -> Result:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return Result.load(path)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_saved_result_records_checksums_and_loads_without_a_warning(tmp_path, text_result, suffix):
    result, _ = text_result
    path = result.save(tmp_path / f"r{suffix}")
    meta = json.loads(Path(str(path) + ".json").read_text())
    assert len(meta["table_sha256"]) == 64 and len(meta["sha256"]) == 64
    back = _loads_silently(path)
    np.testing.assert_array_equal(back.inputs, result.inputs)
    assert [back.details(i) for i in range(len(back))] == [result.details(i) for i in range(len(result))]


def test_a_description_laid_out_differently_still_loads(tmp_path, text_result):
    """The checksum covers what the description says, not its spacing or key order (an editor may re-indent it)."""
    path = text_result[0].save(tmp_path / "r.csv")
    meta_path = Path(str(path) + ".json")
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps(dict(reversed(list(meta.items()))), indent=2))
    assert len(_loads_silently(path)) == len(text_result[0])


def test_a_text_result_whose_vocabulary_was_reordered_is_refused(tmp_path, text_result):
    result, model = text_result
    path = result.save(tmp_path / "r.csv")

    def reorder(meta):
        vocab = meta["domain"]["vocabulary"]
        vocab[2:] = vocab[:1:-1]            # padding and <oov> stay: every other id now means another word

    meta_path = _edit_description(path, reorder)
    with pytest.raises(ValueError, match=rf"{meta_path.name}.*changed since it was saved"):
        Result.load(path)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_pair_table_changed_after_saving_is_refused(tmp_path, image_result, suffix):
    """One base64 character of one image changed: the file still parses as the same number of images."""
    path = image_result.save(tmp_path / f"i{suffix}")
    frame = pd.read_parquet(path) if suffix == ".parquet" else pd.read_csv(path)
    text = frame.loc[0, "image"]
    at = len(text) // 2
    frame.loc[0, "image"] = text[:at] + ("A" if text[at] != "A" else "B") + text[at + 1:]
    frame.to_parquet(path, index=False) if suffix == ".parquet" else frame.to_csv(path, index=False)
    with pytest.raises(ValueError, match=rf"{path.name}.*SHA-256.*changed since it was saved"):
        Result.load(path)


def test_an_image_description_with_another_shape_is_refused(tmp_path, image_result):
    """4x4x3 -> 2x8x3 holds as many values, so the pixel bytes alone cannot tell."""
    path = image_result.save(tmp_path / "i.csv")
    meta_path = _edit_description(path, lambda meta: meta["domain"].update(shape=[2, 8, 3]))
    with pytest.raises(ValueError, match=rf"{meta_path.name}.*changed since it was saved"):
        Result.load(path)


def _without_checksums(path: Path) -> Path:
    return _edit_description(path, lambda meta: [meta.pop(k) for k in ("sha256", "table_sha256")])


def test_a_result_saved_before_checksums_loads_with_a_warning(tmp_path):
    for name in ("aequitas_dcae052.csv", "aequitas_dcae052.csv.json"):
        shutil.copy(SAVED / name, tmp_path / name)
    with pytest.warns(UncheckedResultWarning, match=r"aequitas_dcae052\.csv\.json records no checksums"):
        back = Result.load(tmp_path / "aequitas_dcae052.csv")
    assert back.count() == 8
    again = _loads_silently(back.save(tmp_path / "again.csv"))     # saving it again adds them
    assert again.count() == 8


def test_garbage_details_are_refused_on_load_naming_the_column_and_row(tmp_path, text_result):
    """Before, the file loaded and ``details(3)`` raised a bare JSONDecodeError."""
    path = text_result[0].save(tmp_path / "r.csv")
    frame = pd.read_csv(path)
    frame.loc[3, "fairnb:info"] = "{not json"
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError, match="SHA-256"):            # a file with checksums: the table changed
        Result.load(path)
    _without_checksums(path)                                   # as a file written before them
    with pytest.raises(ValueError, match=r"r\.csv: column 'fairnb:info', row 3 .*not JSON"):
        with pytest.warns(UncheckedResultWarning):
            Result.load(path)


def test_seeds_are_kept_in_a_data_file_beside_the_pairs_and_checked(tmp_path, synthetic, biased_model):
    # issue #38: 20,000 census seeds made a 1.46 MB description, as JSON lists of every seed
    seeds = synthetic.seed_inputs()
    r = get_method("aequitas")(n_seeds=len(seeds), max_tried=len(seeds) + 200, random_state=0,
                               progress=False).run(biased_model, synthetic.domain, seeds=seeds)
    path = r.save(tmp_path / "found.parquet")
    meta = json.loads(Path(str(path) + ".json").read_text())
    assert meta["extras"]["seeds"]["__file__"] == "found.parquet.seeds.npz" and "seed_marks" not in meta["extras"]
    assert len(json.dumps(meta)) < 20_000 < len(json.dumps(r.extras["seeds"].tolist()))
    back = _loads_silently(path)
    assert np.array_equal(back.extras["seeds"], r.extras["seeds"]) and back.extras["seeds"].dtype == np.float64
    assert back.seed_outcomes.equals(r.seed_outcomes)
    seeds_file = tmp_path / "found.parquet.seeds.npz"
    np.savez_compressed(seeds_file, seeds=r.extras["seeds"][::-1], dtype=np.array("<f8"))     # other seeds
    with pytest.raises(ValueError, match="found.parquet.seeds.npz: its SHA-256 differs"):
        Result.load(path)
    seeds_file.unlink()
    with pytest.raises(ValueError, match="found.parquet.seeds.npz is missing"):
        Result.load(path)

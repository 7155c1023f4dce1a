"""Data and published models wherever a notebook runs: the data folder, a checksum-verified download into
the cache (served here from local files: tests never download), else the synthetic data / training the
published architecture; the origin sentence says which, and why the earlier steps failed."""
from __future__ import annotations

import dataclasses
import io
import urllib.error

import pytest

from fairnb.datasets import sources as obtain_module
from fairnb.datasets import obtain
from fairnb.models import published
from fairnb.store import Remote, sha256


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("FAIRNB_CACHE", str(folder))
    monkeypatch.delenv("FAIRNB_DATA", raising=False)
    monkeypatch.delenv("FAIRNB_MODELS", raising=False)
    monkeypatch.delenv("FAIRNB_DOWNLOAD", raising=False)
    return folder


def _serve(content: bytes, calls: list):
    def opener(url, timeout):
        calls.append(url)
        return io.BytesIO(content)
    return opener


def _offline(url, timeout):
    raise urllib.error.URLError("[Errno -2] Name or service not known")


def _local_source(monkeypatch, name, path, target):
    """Point ``SOURCES[name]`` at a local file (file:// address, its real SHA-256)."""
    monkeypatch.setitem(obtain_module.SOURCES, name, (Remote(path.as_uri(), sha256(path), target),))


@pytest.mark.shared
def test_the_data_folder_comes_first(data_dir, cache):
    data = obtain("census_adf", protected="sex", data_dir=data_dir, opener=_offline)
    assert data.info["origin_kind"] == "folder" and str(data_dir) in data.info["origin"]
    assert data.domain.protected_names == ("sex",) and len(data) == 32561


@pytest.mark.shared
def test_download_is_verified_cached_and_reused(data_dir, cache, monkeypatch):
    _local_source(monkeypatch, "census_adf", data_dir / "census_adf" / "census.csv", "census_adf/census.csv")
    data = obtain("census_adf", data_dir=False, download=True)          # real urllib opener, file:// address
    assert data.info["origin_kind"] == "download" and "SHA-256 verified" in data.info["origin"]
    assert (cache / "census_adf" / "census.csv").is_file() and len(data) == 32561
    calls = []
    again = obtain("census_adf", data_dir=False, download=True, opener=_serve(b"", calls))
    assert again.info["origin_kind"] == "download" and calls == []     # the cached copy, checked, no request


def test_a_damaged_download_is_not_kept_and_the_synthetic_data_says_why(cache):
    calls = []
    data = obtain("census_adf", protected="sex", data_dir=False, download=True,
                  opener=_serve(b"a,b\n1,2\n", calls), synthetic_rows=500)
    assert calls == [obtain_module.SOURCES["census_adf"][0].url]
    assert data.info["origin_kind"] == "synthetic" and "does not match" in data.info["origin"]
    assert not any(cache.rglob("*.csv"))


def test_offline_census_falls_back_to_synthetic_sex(cache):
    data = obtain("census", protected="gender", data_dir=False, download=True, opener=_offline, synthetic_rows=500)
    assert data.info["origin"].startswith("SYNTHETIC census-like data standing in for census")
    assert "could not download" in data.info["origin"] and data.domain.protected_names == ("sex",)
    race = obtain("census", protected="race", data_dir=False, download=True, opener=_offline, synthetic_rows=500)
    assert race.domain.protected_names == ("race",) and race.info["planted_attribute"] == "race"
    three = obtain("census", protected=["race", "gender", "age", "marital_status"], data_dir=False, download=False,
                   synthetic_rows=500)
    assert set(three.domain.protected_names) == {"race", "sex", "age"} and three.info["planted_attribute"] == "sex"


def test_downloads_can_be_switched_off(cache, monkeypatch):
    monkeypatch.setenv("FAIRNB_DOWNLOAD", "0")
    calls = []
    data = obtain("census", opener=_serve(b"", calls), synthetic_rows=500)
    assert calls == [] and "switched off" in data.info["origin"]
    model, origin = published.obtain_published("census", data, epochs=2, opener=_serve(b"", calls))
    assert calls == [] and origin.startswith("trained here")


def test_a_bad_folder_falls_through_with_its_reason(cache, tmp_path):
    data = obtain("german", data_dir=tmp_path / "nowhere", download=False, synthetic_rows=500)
    assert "does not exist" in data.info["origin"] and data.info["origin_kind"] == "synthetic"


@pytest.mark.shared
def test_published_model_from_the_model_folder(data_dir, models_dir, cache):
    data = obtain("census", data_dir=data_dir)
    model, origin = published.obtain_published("census", data, models_dir=models_dir, opener=_offline)
    assert origin == f"the published adult_model.h5, read from the model folder {models_dir}"
    assert model.layer_sizes == [30, 20, 15, 15, 10, 1]


@pytest.mark.shared
def test_published_model_download_is_verified(data_dir, models_dir, cache, monkeypatch):
    data = obtain("census", data_dir=data_dir)
    spec = published.PUBLISHED["census"]
    source = models_dir / "adult_model.h5"
    assert sha256(source) == spec.remote.sha256               # the pinned digest is the published file's
    monkeypatch.setitem(published.PUBLISHED, "census",
                        dataclasses.replace(spec, remote=dataclasses.replace(spec.remote, url=source.as_uri())))
    model, origin = published.obtain_published("census", data, models_dir=False, download=True)
    assert "downloaded from file://" in origin and (cache / "models" / "adult_model.h5").is_file()
    assert model.layer_sizes == [30, 20, 15, 15, 10, 1]


@pytest.mark.shared
def test_damaged_model_download_trains_the_architecture(data_dir, cache):
    data = obtain("census", data_dir=data_dir)
    model, origin = published.obtain_published("census", data, models_dir=False, download=True, epochs=1,
                                               opener=_serve(b"not a model", []))
    assert origin.startswith("trained here") and "does not match" in origin
    assert model.layer_sizes == [30, 20, 15, 15, 10, 1] and not (cache / "models" / "adult_model.h5").exists()


def test_published_model_on_other_data_is_trained_there(synthetic):
    model, origin = published.obtain_published("german", synthetic, epochs=2, opener=_offline)
    assert model.layer_sizes == [50, 30, 15, 10, 5, 1] and model.n_features == synthetic.domain.n_features
    assert "the data is 'synthetic', not 'german'" in origin
    with pytest.raises(ValueError, match="unknown published model 'adult'.*census"):
        published.obtain_published("adult", synthetic)

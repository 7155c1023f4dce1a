"""Raw UCI files: checksums, download/cache without network, and the EIDIG/MAFT preprocessing."""
from __future__ import annotations

import io
import re
import shutil
import urllib.error

import pandas as pd
import pytest

from fairnb.datasets import load, uci
from fairnb.store import DownloadError, sha256


def _multiset(df: pd.DataFrame) -> pd.Series:
    return df.value_counts().sort_index()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("FAIRNB_CACHE", str(folder))
    monkeypatch.delenv("FAIRNB_DATA", raising=False)
    return folder


@pytest.mark.shared
def test_checksums_are_those_of_the_unmodified_uci_files(data_dir):
    for name, (url, digest) in uci.FILES.items():
        assert url.startswith("https://archive.ics.uci.edu/")
        assert sha256(data_dir / "raw_uci" / name) == digest


@pytest.mark.shared
def test_adult_preprocessing_reproduces_census_eidig_exactly(data_dir):
    X, y = uci.preprocess_adult(data_dir / "raw_uci" / "adult.data", data_dir / "raw_uci" / "adult.test")
    ours = X.assign(income=y)
    published = pd.read_csv(data_dir / "census_eidig" / "census_eidig.csv")
    assert list(ours.columns) == list(published.columns)
    assert _multiset(ours).equals(_multiset(published))          # same rows, same multiplicities


@pytest.mark.shared
@pytest.mark.parametrize("a, b", [("Greece", "Nicaragua"), ("Thailand", "Hong"), ("Laos", "Yugoslavia"),
                                  ("Outlying-US(Guam-USVI-etc)", "Laos")])
def test_native_country_ties_are_identified_by_the_rows(a, b, data_dir, monkeypatch):
    """Countries with equal counts (49, 30, 23 rows): only the row-by-row match fixes their codes."""
    raw = uci.read_adult(data_dir / "raw_uci" / "adult.data", data_dir / "raw_uci" / "adult.test")
    published = _multiset(pd.read_csv(data_dir / "census_eidig" / "census_eidig.csv"))
    order = list(uci.NATIVE_COUNTRY)
    i, j = order.index(a), order.index(b)
    order[i], order[j] = order[j], order[i]
    monkeypatch.setitem(uci._VOCAB, "native_country", tuple(order))
    X, y = uci.encode_adult(raw)
    assert not _multiset(X.assign(income=y)).equals(published)


@pytest.mark.shared
def test_vocab_orders_are_those_of_adult_names(data_dir):
    text = (data_dir / "raw_uci" / "adult.names").read_text()
    for key, vocab in [("workclass", uci.WORKCLASS), ("marital-status", uci.MARITAL_STATUS),
                       ("occupation", uci.OCCUPATION), ("relationship", uci.RELATIONSHIP), ("race", uci.RACE),
                       ("sex", uci.GENDER), ("native-country", uci.NATIVE_COUNTRY)]:
        listed = re.search(rf"^{key}: (.*?)\.\s*$", text, re.M | re.S).group(1)
        assert tuple(v.strip() for v in listed.split(",")) == vocab


@pytest.mark.shared
def test_german_preprocessing_reproduces_eidig_german_exactly(data_dir):
    numeric = uci.german_numeric(data_dir / "raw_uci" / "german.data")
    dataverse = pd.read_csv(data_dir / "credit_eidig" / "proc_german_num_02_withheader-2.csv")
    pd.testing.assert_frame_equal(numeric, dataverse, check_dtype=False)
    X, y = uci.preprocess_german(data_dir / "raw_uci" / "german.data")
    published = pd.read_csv(data_dir / "credit_eidig" / "german_credit.csv").to_numpy()
    assert (published[:, 0] == y).all() and (published[:, 1:] == X.to_numpy()).all()


def _serve(content: bytes, calls: list):
    def opener(url, timeout):
        calls.append((url, timeout))
        return io.BytesIO(content)
    return opener


@pytest.mark.shared
def test_download_checks_and_caches(data_dir, cache):
    content = (data_dir / "raw_uci" / "german.data").read_bytes()
    calls = []
    (path,) = uci.download("german", opener=_serve(content, calls))
    assert path == cache / "german.data" and path.read_bytes() == content
    assert calls == [(uci.FILES["german.data"][0], 30.0)]
    uci.download("german", opener=_serve(b"", calls))               # cached: no second request
    assert len(calls) == 1
    assert uci.cached_files("german") == (path,)


@pytest.mark.shared
def test_download_through_a_file_url(data_dir, cache, monkeypatch):
    source = data_dir / "raw_uci" / "german.data"
    monkeypatch.setitem(uci.FILES, "german.data", (source.as_uri(), uci.FILES["german.data"][1]))
    (path,) = uci.download("german")                                 # real urllib opener, file:// address
    assert sha256(path) == uci.FILES["german.data"][1]


def test_wrong_checksum_is_a_clear_error_and_leaves_nothing(cache):
    with pytest.raises(ValueError, match="SHA-256 .* does not match the UCI file german.data"):
        uci.download("german", opener=_serve(b"not the german credit data\n", []))
    assert not any(cache.glob("*"))


def test_offline_download_fails_fast_and_says_how_to_use_local_files(cache):
    def offline(url, timeout):
        raise urllib.error.URLError("[Errno -2] Name or service not known")

    with pytest.raises(DownloadError, match=r"could not download .*adult.data.*folder='path'.*FAIRNB_CACHE"):
        uci.download("adult", opener=offline)
    assert isinstance(DownloadError("x"), FileNotFoundError)    # the CLI reports it as a missing file


def test_unknown_files_and_missing_folder(tmp_path):
    with pytest.raises(ValueError, match="unknown UCI file"):
        uci.download("iris")
    with pytest.raises(FileNotFoundError, match="adult.data"):
        uci.download("adult", folder=tmp_path)


@pytest.mark.shared
def test_local_folder_with_a_damaged_file(data_dir, tmp_path):
    shutil.copy(data_dir / "raw_uci" / "adult.data", tmp_path / "adult.data")
    (tmp_path / "adult.test").write_text("|1x3 Cross validator\n25, Private\n")
    with pytest.raises(ValueError, match="adult.test: SHA-256"):
        uci.download("adult", folder=tmp_path)
    assert uci.download("german", folder=data_dir / "raw_uci")[0].name == "german.data"


@pytest.mark.shared
def test_load_census_from_the_cache_without_a_data_folder(data_dir, cache):
    cache.mkdir()
    for name in ("adult.data", "adult.test"):
        shutil.copy(data_dir / "raw_uci" / name, cache / name)
    data = load("census")
    assert data.X.shape == (48842, 12) and "preprocessed" in data.info["source"]
    published = load("census", data_dir)
    assert _multiset(data.X.assign(y=data.y)).equals(_multiset(published.X.assign(y=published.y)))


@pytest.mark.shared
def test_load_german_from_a_raw_uci_subfolder(data_dir, tmp_path, cache):
    (tmp_path / "raw_uci").mkdir()
    shutil.copy(data_dir / "raw_uci" / "german.data", tmp_path / "raw_uci" / "german.data")
    data, published = load("german", tmp_path), load("german", data_dir)
    assert data.X.equals(published.X) and (data.y == published.y).all()
    assert bounds_of(data) == bounds_of(published)


def bounds_of(data):
    return list(zip(data.domain.lower, data.domain.upper))


@pytest.mark.shared
def test_a_file_that_is_not_adult_says_what_differs(data_dir, tmp_path):
    """Before: German's file gave "Can only use .str accessor with string values"."""
    with pytest.raises(ValueError, match=r"german\.data does not look like a UCI Adult file .* rows have 1 comma-"
                                         r"separated fields .* the columns \['workclass', .*'income'\] are missing"):
        uci.preprocess_adult(data_dir / "raw_uci" / "german.data")
    rows = (data_dir / "raw_uci" / "adult.data").read_text().splitlines()[:3]
    (tmp_path / "more.data").write_text("".join(r + ", extra\n" for r in rows))
    with pytest.raises(ValueError, match=r"more\.data .* 16 comma-separated fields .* 1 columns are unexpected"):
        uci.preprocess_adult(tmp_path / "more.data")
    (tmp_path / "text.data").write_text("".join(r.replace("39", "old", 1) + "\n" for r in rows))
    with pytest.raises(ValueError, match=r"text\.data .* its column age holds 'old', not a number"):
        uci.preprocess_adult(tmp_path / "text.data")
    (tmp_path / "labels.data").write_text("".join(r.replace("<=50K", "poor") + "\n" for r in rows))
    with pytest.raises(ValueError, match=r"labels\.data .* its income column holds \['poor'\]"):
        uci.preprocess_adult(tmp_path / "labels.data")

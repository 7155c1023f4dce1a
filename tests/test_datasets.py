"""Benchmark data sets: names, domains, bounds, protected attributes, missing values, errors."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb.datasets import adf_sens_param_to_index, available, from_csv, load

EIDIG_CONSTRAINTS = {   # the READMEs' constraint arrays (EIDIG/MAFT: data min/max)
    "census": [[1, 4], [0, 7], [1, 16], [0, 6], [0, 13], [0, 5], [0, 4], [0, 1], [1, 3], [1, 2], [1, 4], [0, 40]],
    "german": [[1, 4], [1, 4], [0, 4], [1, 4], [1, 5], [1, 5], [1, 4], [1, 4], [1, 4], [1, 4], [1, 3], [1, 4],
               [1, 2], [1, 2], [1, 2]] + [[0, 1]] * 9,
    "bank": [[1, 4], [0, 10], [0, 2], [0, 2], [0, 1], [1, 4], [0, 1], [0, 1], [0, 1], [1, 3], [1, 4], [1, 4],
             [1, 4], [1, 4], [1, 4], [0, 2]],
}
SHAPES = {"census": (48842, 12), "german": (1000, 24), "bank": (45211, 16), "census_adf": (32561, 13),
          "census_adf_sample": (15360, 13), "credit_adf": (600, 20), "bank_adf": (45211, 16),
          "compas": (7214, 12), "default": (30000, 23)}
PROTECTED = {"census": [0, 6, 7], "german": [6, 9], "bank": [0], "census_adf": [0, 7, 8], "credit_adf": [8, 12],
             "bank_adf": [0], "compas": [0, 1, 2], "default": [1, 4]}


def bounds(data):
    return np.column_stack([data.domain.lower, data.domain.upper]).astype(int).tolist()


def test_available_names_and_aliases():
    assert set(SHAPES) <= set(available())
    with pytest.raises(ValueError, match="unknown dataset 'censos'.*census"):
        load("censos", data_dir=".")


@pytest.mark.shared
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_dataset_loads_inside_its_domain(name, data_dir):
    data = load(name, data_dir=data_dir)
    assert data.X.shape == SHAPES[name]
    data.domain.validate(data.X.to_numpy())            # every row is a valid seed
    assert set(np.unique(data.y)) == {0, 1}
    assert len(data.label_names) == 2 and data.description
    assert list(data.domain.protected) == PROTECTED.get(name, list(data.domain.protected))
    assert data.info["source"].endswith(".csv")


@pytest.mark.shared
@pytest.mark.parametrize("name", sorted(EIDIG_CONSTRAINTS))
def test_eidig_bounds_are_the_published_constraints(name, data_dir):
    data = load(name, data_dir=data_dir)
    assert bounds(data) == EIDIG_CONSTRAINTS[name]
    assert data.test_size == (0.4 if name == "german" else 0.2) and data.random_state == 42


@pytest.mark.shared
def test_aliases_give_the_same_data(data_dir):
    assert load("census_eidig", data_dir).name == "census"
    assert load("german_eidig", data_dir).name == "german"
    assert load("BANK_EIDIG", data_dir).name == "bank"


@pytest.mark.shared
def test_census_labels_and_split(data_dir):
    data = load("census", data_dir)
    assert data.domain.features[7].labels == ("Female", "Male")
    assert data.domain.features[6].labels[0] == "White"
    decoded = data.domain.decode(data.X.to_numpy()[:3])
    assert set(decoded["gender"]) <= {"Female", "Male"}
    X_train, X_test, y_train, y_test = data.split()
    assert len(X_test) == 9769 and len(X_train) == 48842 - 9769
    assert data.label_names == ("<=50K", ">50K") and int(data.y.sum()) == 11687


@pytest.mark.shared
def test_german_label_is_first_column_and_1_means_bad(data_dir):
    data = load("german", data_dir)
    assert int(data.y.sum()) == 300 and data.label_names[1] == "bad credit"
    assert data.domain.features[6].name == "PersonStatusSex" and len(data.domain.features[6].values) == 4
    assert len(data.domain.protected_values) == 4 * 4
    assert len(data.split()[1]) == 400


@pytest.mark.shared
def test_bank_category_labels_match_uci_counts(data_dir):
    data = load("bank", data_dir)
    job = data.domain.decode(data.X.to_numpy())["job"].value_counts()
    assert job["admin."] == 5171 and job["unemployed"] == 1303     # UCI bank-full counts


@pytest.mark.shared
def test_adf_census_missing_values(data_dir):
    raw = np.loadtxt(data_dir / "census_adf" / "census.csv", delimiter=",", skiprows=1)[:, :-1]
    clip = load("census_adf", data_dir)                          # default "clip"
    assert bounds(clip)[1] == [0, 7] and len(clip) == 32561
    # "?" -> 100 in workclass/occupation/native_country; out of bounds: col 2 > 39 (29 rows),
    # capital_loss > 39 (3 rows), native_country = 40 (1 row)
    assert clip.info["missing_entries"] == 1836 + 1843 + 583 and clip.info["out_of_bounds_entries"] == 29 + 3 + 1
    assert (clip.X["workclass"].to_numpy()[raw[:, 1] == 100] == 7).all()

    drop = load("census_adf", data_dir, missing="drop")
    bad = (raw == 100).any(axis=1) | (raw[:, 2] > 39) | (raw[:, 10] > 39) | (raw[:, 12] > 39)
    assert len(drop) == int((~bad).sum()) == 32561 - drop.info["dropped_rows"]
    assert bounds(drop) == bounds(clip)

    cat = load("census_adf", data_dir, missing="category")
    assert cat.info["missing_category"] == {"workclass": 8, "occupation": 14, "native_country": 41}
    assert (cat.X["workclass"] == 8).sum() == 1836 and (cat.X["native_country"] == 41).sum() == 583
    assert (cat.X["native_country"] == 40).sum() == 1
    assert cat.domain.upper[2] == 74 and cat.domain.upper[10] == 43
    for data in (drop, cat):
        data.domain.validate(data.X.to_numpy())

    with pytest.raises(ValueError, match="missing must be one of"):
        load("census_adf", data_dir, missing="impute")


@pytest.mark.shared
def test_adf_family_keeps_published_bounds_and_sens_param(data_dir):
    data = load("credit_adf", data_dir)
    assert bounds(data)[1] == [1, 80] and data.info["sens_param"] == {"sex": 9, "age": 13}
    assert adf_sens_param_to_index("census_adf", 9) == load("census_adf", data_dir).domain.index("sex")
    assert adf_sens_param_to_index("credit_adf", 13) == data.domain.index("age")
    with pytest.raises(ValueError, match="1-based"):
        adf_sens_param_to_index("census_adf", 0)


@pytest.mark.shared
def test_default_bounds_recomputed_where_published_ones_are_wrong(data_dir):
    data = load("default", data_dir)
    b = dict(zip(data.domain.names, bounds(data)))
    assert b["LIMIT_BAL"] == [0, 100] and b["BILL_AMT1"] == [0, 100]       # published [1,100], [-16,96]
    assert b["SEX"] == [0, 1] and b["PAY_5"] == [0, 10]                    # published bounds kept where right
    assert "LIMIT_BAL" in data.info["bounds_from_data"] and "SEX" not in data.info["bounds_from_data"]


@pytest.mark.shared
def test_data_dir_from_env_or_dataset_folder(data_dir, monkeypatch):
    monkeypatch.setenv("FAIRNB_DATA", str(data_dir))
    assert len(load("compas")) == 7214
    monkeypatch.delenv("FAIRNB_DATA")
    assert len(load("compas", data_dir / "compas_dice")) == 7214


def test_missing_folder_says_how_to_point_at_the_files(tmp_path, monkeypatch):
    monkeypatch.delenv("FAIRNB_DATA", raising=False)
    monkeypatch.setenv("FAIRNB_CACHE", str(tmp_path / "cache"))
    with pytest.raises(FileNotFoundError, match="FAIRNB_DATA"):
        load("bank")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load("bank", data_dir=tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="bank_eidig/bank.csv not found"):
        load("bank", data_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match=r"uci.download\('adult'\)"):
        load("census", data_dir=tmp_path)


def test_wrong_file_is_rejected(tmp_path):
    folder = tmp_path / "bank_eidig"
    folder.mkdir()
    (folder / "bank.csv").write_text("a,b,c\n1,2,0\n")
    with pytest.raises(ValueError, match="3 columns.*right file"):
        load("bank", tmp_path)
    (folder / "bank.csv").write_text(",".join("abcdefghijklmnopq") + "\n" + ",".join(["x"] * 17) + "\n")
    with pytest.raises(ValueError, match="non-integer"):
        load("bank", tmp_path)
    (folder / "bank.csv").write_bytes(b"\x89HDF\r\n\x1a\n\x00\x00\xff\xfe")
    with pytest.raises(ValueError):
        load("bank", tmp_path)
    compas = tmp_path / "compas_dice"
    compas.mkdir()
    (compas / "compas.csv").write_text(",".join("abcdefghijklm") + "\n" + ",".join(["50"] * 12) + ",1\n")
    with pytest.raises(ValueError, match="outside the published bounds"):
        load("compas", tmp_path)


def test_a_header_only_file_says_it_has_no_rows(tmp_path):
    """Before: "ufunc 'isfinite' not supported for the input types"."""
    folder = tmp_path / "census_eidig"
    folder.mkdir()
    header = "age,workclass,educational_num,marital_status,occupation,relationship,race,gender,capital_gain," \
             "capital_loss,hours_per_week,native_country,income\n"
    (folder / "census_eidig.csv").write_text(header)
    with pytest.raises(ValueError, match=r"census_eidig\.csv has a header but no rows"):
        load("census", tmp_path)
    (tmp_path / "own.csv").write_text("sex,age,hired\n")
    with pytest.raises(ValueError, match=r"own\.csv' has a header but no rows"):
        from_csv(tmp_path / "own.csv", label="hired", protected="sex")

"""Raw UCI files (Adult, German Credit): download with checksum and cache, or read from your folder.

``download("adult")`` fetches ``adult.data`` and ``adult.test`` over HTTPS from the UCI archive,
checks their SHA-256 against the unmodified UCI files, and keeps them in the cache folder
(``$FAIRNB_CACHE``, default ``~/.cache/fairnb``). Without network it fails at once and says how to
use files you already have: ``download("adult", folder="path/with/the/files")`` (or copy them into the
cache folder). ``preprocess_adult`` turns the raw Adult rows into the EIDIG/MAFT ``census`` encoding,
``preprocess_german`` the Statlog ``german.data`` into the EIDIG/MAFT ``german`` encoding.

EIDIG/MAFT Census encoding (12 features): age binned by ``[15, 25, 45, 65, 120]`` (right-closed) to
1..4; categorical columns coded by the vocab orders below (those of the UCI ``adult.names`` file;
occupation, relationship and native_country were identified by matching value counts and then the
whole encoded file row for row); ``educational_num`` as is; capital gain binned by
``[-1, 0, 99998, 100000]`` (1..3), capital loss likewise (1..2), hours per week by
``[0, 25, 40, 60, 168]`` (1..4); a missing ``?`` becomes the column's mode over all 48,842 rows;
label 1 = income ``>50K``.

EIDIG/MAFT German encoding (24 features, label 1 = BAD credit): EIDIG starts from a numeric version of
``german.data`` (Harvard Dataverse ``proc_german_num_02``); :func:`german_numeric` rebuilds it
(Statlog codes -> their digit, credit history reordered, credit amount / 100 rounded, 0/1 indicators
for car purposes, guarantor/co-applicant, housing and job; installment rate, other purposes and
management jobs dropped), then durations, amounts and ages are binned.

Example
-------
>>> WORKCLASS.index("Private"), RACE.index("Black"), GENDER
(0, 4, ('Female', 'Male'))
>>> sorted(FILES)
['adult.data', 'adult.test', 'german.data']
"""
from __future__ import annotations

import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd

from ..store import cache_dir, fetch_verified, verify_sha256

_BASE = "https://archive.ics.uci.edu/ml/machine-learning-databases/"
#: file name -> (HTTPS address, SHA-256 of the unmodified UCI file)
FILES = {
    "adult.data": (_BASE + "adult/adult.data", "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d"),
    "adult.test": (_BASE + "adult/adult.test", "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05"),
    "german.data": (_BASE + "statlog/german/german.data",
                    "b21f3d81db8071257d5ff1deaeba1fd4303b62712e6fcc9715c7a86202cb5871"),
}
#: data set name -> its files
DATASETS = {"adult": ("adult.data", "adult.test"), "german": ("german.data",)}

# EIDIG/MAFT census vocab orders (code = position)
WORKCLASS = ("Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov", "State-gov", "Without-pay",
             "Never-worked")
MARITAL_STATUS = ("Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed", "Married-spouse-absent",
                  "Married-AF-spouse")
OCCUPATION = ("Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial", "Prof-specialty",
              "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical", "Farming-fishing", "Transport-moving",
              "Priv-house-serv", "Protective-serv", "Armed-Forces")
RELATIONSHIP = ("Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried")
RACE = ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black")
GENDER = ("Female", "Male")
NATIVE_COUNTRY = ("United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
                  "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China", "Cuba", "Iran",
                  "Honduras", "Philippines", "Italy", "Poland", "Jamaica", "Vietnam", "Mexico", "Portugal", "Ireland",
                  "France", "Dominican-Republic", "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia", "Hungary",
                  "Guatemala", "Nicaragua", "Scotland", "Thailand", "Yugoslavia", "El-Salvador", "Trinadad&Tobago",
                  "Peru", "Hong", "Holand-Netherlands")
ADULT_COLUMNS = ("age", "workclass", "fnlwgt", "education", "educational_num", "marital_status", "occupation",
                 "relationship", "race", "gender", "capital_gain", "capital_loss", "hours_per_week", "native_country",
                 "income")
_VOCAB = {"workclass": WORKCLASS, "marital_status": MARITAL_STATUS, "occupation": OCCUPATION,
          "relationship": RELATIONSHIP, "race": RACE, "gender": GENDER, "native_country": NATIVE_COUNTRY}
_BINS = {"age": [15, 25, 45, 65, 120], "capital_gain": [-1, 0, 99998, 100000],
         "capital_loss": [-1, 0, 99998, 100000], "hours_per_week": [0, 25, 40, 60, 168]}
_NUMERIC = ["age", "fnlwgt", "educational_num", "capital_gain", "capital_loss", "hours_per_week"]
CENSUS_FEATURES = ("age", "workclass", "educational_num", "marital_status", "occupation", "relationship", "race",
                   "gender", "capital_gain", "capital_loss", "hours_per_week", "native_country")


def _check(path: Path, name: str) -> Path:
    return verify_sha256(path, FILES[name][1], f"the UCI file {name}")


def _file_names(files) -> tuple[str, ...]:
    names = DATASETS.get(files, (files,)) if isinstance(files, str) else tuple(files)
    unknown = [n for n in names if n not in FILES]
    if unknown:
        raise ValueError(f"unknown UCI file(s) {unknown}; known data sets {sorted(DATASETS)}, files {sorted(FILES)}")
    return names


def local_files(files, folder) -> tuple[Path, ...] | None:
    """The checked paths of ``files`` in ``folder`` (default: the cache), or ``None`` if one is absent."""
    folder = cache_dir() if folder is None else Path(folder).expanduser()
    paths = tuple(folder / n for n in _file_names(files))
    if not all(p.is_file() for p in paths):
        return None
    return tuple(_check(p, p.name) for p in paths)


def cached_files(files) -> tuple[Path, ...] | None:
    """Like :func:`local_files` in the cache folder."""
    return local_files(files, None)


def download(files="adult", *, folder=None, timeout: float = 30.0, opener=urllib.request.urlopen) -> tuple[Path, ...]:
    """Paths of the checked raw files, downloading what the cache lacks.

    ``files``: ``"adult"``, ``"german"`` or file names. ``folder``: use the files found there (checked,
    not copied) instead of downloading. ``opener`` is ``urllib.request.urlopen`` (replaceable in tests).
    """
    names = _file_names(files)
    if folder is not None:
        found = local_files(names, folder)
        if found is None:
            missing = [n for n in names if not (Path(folder).expanduser() / n).is_file()]
            raise FileNotFoundError(f"{missing} not found in {str(folder)!r}")
        return found
    cache = cache_dir()
    paths = []
    for name in names:
        target = cache / name
        if not target.is_file():
            _fetch(name, target, timeout, opener)
        paths.append(_check(target, name))
    return tuple(paths)


def _fetch(name: str, target: Path, timeout: float, opener) -> None:
    url, expected = FILES[name]
    fetch_verified(url, expected, target, what=f"the UCI file {name}", timeout=timeout, opener=opener,
                   offline_hint=f"get the UCI file {name} elsewhere and either pass its folder "
                                "(fairnb.datasets.uci.download(..., folder='path')) or put it in the cache folder "
                                f"{str(target.parent)!r} ($FAIRNB_CACHE)")


# ---------------------------------------------------------------------------------------------- Adult


def read_adult(*paths) -> pd.DataFrame:
    """The raw Adult rows of ``adult.data`` / ``adult.test`` (test labels lose their trailing dot); a file that
    does not look like Adult (another number of fields, text in a numeric column, other labels) raises
    ``ValueError`` naming it and what differs."""
    df = pd.concat([_adult_rows(Path(p)) for p in paths], ignore_index=True)
    df["income"] = df["income"].str.rstrip(".")
    return df


def _adult_rows(path: Path) -> pd.DataFrame:
    skip = 1 if path.name.endswith(".test") or _first_line(path).startswith("|") else 0
    unlike = f"{path} does not look like a UCI Adult file (adult.data, adult.test)"
    try:
        df = pd.read_csv(path, header=None, skipinitialspace=True, skiprows=skip, dtype=str).dropna(how="all")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ValueError(f"{unlike}: {e}") from None
    width = len(ADULT_COLUMNS)
    if df.shape[1] != width:
        differs = (f"the columns {list(ADULT_COLUMNS[df.shape[1]:])} are missing" if df.shape[1] < width
                   else f"{df.shape[1] - width} columns are unexpected")
        raise ValueError(f"{unlike}: its rows have {df.shape[1]} comma-separated fields where Adult's have {width} "
                         f"({', '.join(ADULT_COLUMNS)}), so {differs}")
    df.columns = list(ADULT_COLUMNS)
    for col in _NUMERIC:
        text = df[col].str.strip()
        bad = text[pd.to_numeric(text, errors="coerce").isna()]
        if len(bad):
            raise ValueError(f"{unlike}: its column {col} holds {bad.iloc[0]!r}, not a number")
    df[_NUMERIC] = df[_NUMERIC].astype(float)
    labels = set(df["income"].str.strip().str.rstrip(".")) - {"<=50K", ">50K"}
    if labels:
        raise ValueError(f"{unlike}: its income column holds {sorted(labels)[:5]}, not only <=50K and >50K")
    return df


def _first_line(path) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.readline()


def encode_adult(raw: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """Raw Adult rows -> (EIDIG/MAFT census features, 0/1 labels)."""
    df = raw.copy()
    for col, vocab in _VOCAB.items():
        values = df[col].astype(str).str.strip()
        values = values.where(values != "?", values[values != "?"].mode().iloc[0])
        unknown = sorted(set(values) - set(vocab))
        if unknown:
            raise ValueError(f"Adult column {col} has values {unknown[:5]} outside the UCI vocabulary")
        df[col] = values.map({v: i for i, v in enumerate(vocab)})
    for col, bins in _BINS.items():
        df[col] = np.digitize(df[col].astype(float), bins, right=True)
    y = df["income"].str.strip().eq(">50K").to_numpy(dtype=np.int64)
    return df[list(CENSUS_FEATURES)].astype(np.int64).reset_index(drop=True), y


def preprocess_adult(*paths) -> tuple[pd.DataFrame, np.ndarray]:
    """Read raw Adult files and encode them as the EIDIG/MAFT census data (features, labels)."""
    return encode_adult(read_adult(*paths))


# ---------------------------------------------------------------------------------------------- German

#: Statlog codes of german.data -> numeric codes of the 24-column numeric file that EIDIG/MAFT start from
#: (Harvard Dataverse ``proc_german_num_02``); CreditHistory A30..A34 are not in code order.
GERMAN_CREDIT_HISTORY = {"A30": 2, "A31": 0, "A32": 1, "A33": 3, "A34": 4}
#: 0/1 indicator columns of the numeric file: name -> (german.data column, Statlog code)
GERMAN_INDICATORS = {
    "Purpose_CarNew": (3, "A40"), "Purpose_CarOld": (3, "A41"), "otherdebtor_noneVsGuar": (9, "A101"),
    "otherdebt_coapplVsGuar": (9, "A102"), "house_rentVsFree": (14, "A151"), "house_ownsVsFree": (14, "A152"),
    "job_unemployedVsMgt": (16, "A171"), "jobs_unskilledVsMgt": (16, "A172"), "job_skilledVsMgt": (16, "A173"),
}
_GERMAN_LAST_DIGIT = {"BalanceCheque": 0, "SavingsBalance": 5, "Mths_employ": 6, "PersonStatusSex": 8, "Property": 11,
                      "OtherInstPlans": 13, "Telephone": 18, "ForeignWorker": 19}
_GERMAN_BINS = {"Loan_NurnMonth": [0, 12, 18, 24, 80], "CreditAmt": [0, 14, 23, 40, 200],
                "AgeInYears": [15, 25, 45, 65, 120]}


def german_numeric(path) -> pd.DataFrame:
    """``german.data`` (symbolic Statlog codes) as the 25-column numeric table EIDIG/MAFT read
    (``CREDITRATING`` -1 good / 1 bad, then 24 features; credit amount in hundreds, rounded)."""
    g = pd.read_csv(path, sep=" ", header=None)
    if g.shape[1] != 21:
        raise ValueError(f"{path}: {g.shape[1]} columns; german.data has 20 attributes + label")
    digit = {name: g[col].str[-1].astype(int) for name, col in _GERMAN_LAST_DIGIT.items()}
    out = {
        "CREDITRATING": g[20].map({1: -1, 2: 1}), "BalanceCheque": digit["BalanceCheque"], "Loan_NurnMonth": g[1],
        "CreditHistory": g[2].map(GERMAN_CREDIT_HISTORY), "CreditAmt": np.round(g[4] / 100).astype(int),
        "SavingsBalance": digit["SavingsBalance"], "Mths_employ": digit["Mths_employ"],
        "PersonStatusSex": digit["PersonStatusSex"], "PresentResidence": g[10], "Property": digit["Property"],
        "AgeInYears": g[12], "OtherInstPlans": digit["OtherInstPlans"], "NumCreditsThisBank": g[15],
        "NumPplLiablMaint": g[17], "Telephone": digit["Telephone"], "ForeignWorker": digit["ForeignWorker"],
    }
    out.update({name: g[col].eq(code).astype(int) for name, (col, code) in GERMAN_INDICATORS.items()})
    return pd.DataFrame(out)


def preprocess_german(path) -> tuple[pd.DataFrame, np.ndarray]:
    """``german.data`` -> (EIDIG/MAFT german features, labels with 1 = BAD credit)."""
    df = german_numeric(path)
    for col, bins in _GERMAN_BINS.items():
        df[col] = np.digitize(df[col], bins, right=True)
    y = (df.pop("CREDITRATING") == 1).to_numpy(dtype=np.int64)
    return df.astype(np.int64), y

"""The benchmark data sets of the fairness-testing papers, read from a folder you name.

Two encodings exist, and the published models were trained on one or the other:

* the **EIDIG/MAFT family** (``census``, ``german``, ``bank``): what the published Keras models
  ``adult_model.h5``, ``german_model.h5``, ``bank_model.h5`` were trained on; bounds are the data
  min/max per column (EIDIG's ``constraint``); protected attributes 0-based.
* the **ADF family** (``census_adf``, ``credit_adf``, ``bank_adf``; also AEQUITAS, Themis,
  NeuronFair, DICE, ExpGA, LIMI): bounds are the published ``input_bounds``; the papers give protected
  attributes as 1-based ``sens_param`` (see :func:`adf_sens_param_to_index`).
* DICE's extra sets ``compas`` and ``default``.

The files are never shipped with fairnb. ``load(name, data_dir)`` reads them from ``data_dir``
(or ``$FAIRNB_DATA``), a folder laid out like the benchmark data folder::

    data_dir/census_eidig/census_eidig.csv   data_dir/census_adf/census.csv   ...

(``data_dir`` may also be the data set's own folder). ``census`` and ``german`` can instead be built
from the raw UCI files (``fairnb.datasets.uci``): ``load`` does so by itself when the encoded file is
absent but ``adult.data``/``adult.test`` (``german.data``) are in ``data_dir/raw_uci``, ``data_dir``
or the download cache.

Example
-------
>>> "census" in available() and "census_adf" in available()
True
>>> adf_sens_param_to_index("census_adf", 9)      # ADF's sens_param=9 is the sex column
8
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..domains import Feature, TabularDomain
from ..store import data_folder
from . import uci
from .base import Dataset

_AGE_BINS = ("16-25", "26-45", "46-65", "66+")      # np.digitize(age, [15, 25, 45, 65, 120], right=True)
_EDUCATION = ("Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad",
              "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate")
_BANK_NAMES = ("age", "job", "marital", "education", "default", "balance", "housing", "loan", "contact", "day",
               "month", "duration", "campaign", "pdays", "previous", "poutcome")
_CENSUS_ADF_NAMES = ("age", "workclass", "fnlwgt", "education", "marital_status", "occupation", "relationship",
                     "race", "sex", "capital_gain", "capital_loss", "hours_per_week", "native_country")
_CENSUS_ADF_BOUNDS = ((1, 9), (0, 7), (0, 39), (0, 15), (0, 6), (0, 13), (0, 5), (0, 4), (0, 1), (0, 99), (0, 39),
                      (0, 99), (0, 39))     # ADF input_bounds, verbatim


@dataclass(frozen=True)
class _Spec:
    """How one benchmark file is laid out and what it means."""

    name: str
    folder: str
    file: str
    names: tuple[str, ...]
    protected: tuple[str, ...]
    label_names: tuple[str, str]
    family: str
    description: str
    label_first: bool = False
    bounds: tuple[tuple[int, int], ...] | None = None   # published bounds; None = data min/max
    trust_bounds: bool = True      # False: keep a published bound only where it contains the data
    labels: dict = field(default_factory=dict)         # feature name -> value labels (low..high)
    test_size: float = 0.2
    missing_code: int | None = None  # value that codes a missing entry (ADF census: 100)
    aliases: tuple[str, ...] = ()


_SPECS = (
    _Spec("census", "census_eidig", "census_eidig.csv",
          ("age", "workclass", "educational_num", "marital_status", "occupation", "relationship", "race",
           "gender", "capital_gain", "capital_loss", "hours_per_week", "native_country"),
          ("age", "race", "gender"), ("<=50K", ">50K"), "eidig",
          "Census Income (UCI Adult, 48,842 rows) in the EIDIG/MAFT encoding: the data the published "
          "adult_model.h5 was trained on. Label 1 = income >50K.",
          labels={"age": _AGE_BINS, "workclass": uci.WORKCLASS, "educational_num": _EDUCATION,
                  "marital_status": uci.MARITAL_STATUS, "occupation": uci.OCCUPATION,
                  "relationship": uci.RELATIONSHIP, "race": uci.RACE, "gender": uci.GENDER,
                  "capital_gain": ("0", "1-99998", "99999"), "capital_loss": ("0", ">0"),
                  "hours_per_week": ("1-25", "26-40", "41-60", "61+"), "native_country": uci.NATIVE_COUNTRY},
          aliases=("census_eidig", "adult")),
    _Spec("german", "credit_eidig", "german_credit.csv",
          ("BalanceCheque", "Loan_NurnMonth", "CreditHistory", "CreditAmt", "SavingsBalance", "Mths_employ",
           "PersonStatusSex", "PresentResidence", "Property", "AgeInYears", "OtherInstPlans",
           "NumCreditsThisBank", "NumPplLiablMaint", "Telephone", "ForeignWorker", "Purpose_CarNew",
           "Purpose_CarOld", "otherdebtor_noneVsGuar", "otherdebt_coapplVsGuar", "house_rentVsFree",
           "house_ownsVsFree", "job_unemployedVsMgt", "jobs_unskilledVsMgt", "job_skilledVsMgt"),
          ("PersonStatusSex", "AgeInYears"), ("good credit", "bad credit"), "eidig",
          "Statlog German Credit (1,000 rows) in the EIDIG/MAFT encoding: the data the published "
          "german_model.h5 was trained on. LABEL 1 = BAD credit. PersonStatusSex has 4 values "
          "(Statlog A91..A94: sex x marital status).",
          label_first=True,
          labels={"AgeInYears": _AGE_BINS,
                  "PersonStatusSex": ("male divorced/separated", "female divorced/separated/married",
                                      "male single", "male married/widowed")},
          test_size=0.4, aliases=("german_eidig",)),
    _Spec("bank", "bank_eidig", "bank.csv",
          _BANK_NAMES,
          ("age",), ("no", "yes"), "eidig",
          "Bank Marketing (UCI, 45,211 rows) in the EIDIG/MAFT encoding: the data the published "
          "bank_model.h5 was trained on. Label 1 = the client subscribed a term deposit.",
          labels={"age": _AGE_BINS,
                  "job": ("admin.", "blue-collar", "entrepreneur", "housemaid", "management", "retired",
                          "self-employed", "services", "student", "technician", "unemployed"),
                  "marital": ("divorced", "married", "single"), "education": ("primary", "secondary", "tertiary"),
                  "default": ("no", "yes"), "housing": ("no", "yes"), "loan": ("no", "yes"),
                  "contact": ("cellular", "telephone"), "day": ("1-10", "11-20", "21-31"),
                  "poutcome": ("failure", "other", "success")},
          aliases=("bank_eidig",)),
    _Spec("census_adf", "census_adf", "census.csv",
          _CENSUS_ADF_NAMES,
          ("age", "race", "sex"), ("<=50K", ">50K"), "adf",
          "Census Income (UCI adult.data, 32,561 rows) in the ADF/AEQUITAS/Themis encoding "
          "(`cleaned_train`). Label 1 = income >50K. Protected (ADF sens_param, 1-based): age=1, race=8, sex=9.",
          bounds=_CENSUS_ADF_BOUNDS,
          missing_code=100, aliases=()),
    _Spec("census_adf_sample", "census_adf", "census_sample.csv",
          _CENSUS_ADF_NAMES,
          ("age", "race", "sex"), ("<=50K", ">50K"), "adf",
          "The label-balanced 15,360-row sample of census_adf (ADF `census_sample`).",
          bounds=_CENSUS_ADF_BOUNDS,
          missing_code=100),
    _Spec("credit_adf", "credit_adf", "credit_sample.csv",
          ("checking_status", "duration", "credit_history", "purpose", "credit_amount", "savings_status",
           "employment", "installment_commitment", "sex", "other_parties", "residence", "property_magnitude",
           "age", "other_payment_plans", "housing", "existing_credits", "job", "num_dependents",
           "own_telephone", "foreign_worker"),
          ("sex", "age"), ("bad", "good"), "adf",
          "Statlog German Credit, the 600-row label-balanced sample of ADF (`credit_sample`). "
          "Label per ADF's config: 0 bad, 1 good. Protected (ADF sens_param): sex=9, age=13.",
          bounds=((0, 3), (1, 80), (0, 4), (0, 10), (1, 200), (0, 4), (0, 4), (1, 4), (0, 1), (0, 2), (1, 4),
                  (0, 3), (1, 8), (0, 2), (0, 2), (1, 4), (0, 3), (1, 2), (0, 1), (0, 1)),
          aliases=("german_adf",)),
    _Spec("bank_adf", "bank_adf", "bank.csv",
          _BANK_NAMES,
          ("age",), ("no", "yes"), "adf",
          "Bank Marketing (UCI bank-full, 45,211 rows) in the ADF encoding. Label 1 = subscribed. "
          "Protected (ADF sens_param): age=1.",
          bounds=((1, 9), (0, 11), (0, 2), (0, 3), (0, 1), (-20, 179), (0, 1), (0, 1), (0, 2), (1, 31),
                  (0, 11), (0, 99), (1, 63), (-1, 39), (0, 1), (0, 3))),
    _Spec("compas", "compas_dice", "compas.csv",
          ("sex", "age", "race") + tuple(f"att{i}" for i in range(4, 13)),
          ("sex", "age", "race"), ("no recidivism", "recidivism"), "dice",
          "ProPublica COMPAS two-year recidivism (7,214 rows) as preprocessed by DICE. att4..att12 are "
          "undocumented in DICE. Label 1 = reoffended within two years. Protected (DICE, 1-based): sex=1, "
          "age=2, race=3.",
          bounds=((0, 1), (0, 2), (0, 1), (0, 20), (1, 10), (0, 38), (0, 1), (0, 1), (0, 1), (1, 10), (1, 10),
                  (0, 38)),
          aliases=("compas_dice",)),
    _Spec("default", "default_dice", "default.csv",
          ("LIMIT_BAL", "SEX", "EDUCATION", "MARRIAGE", "AGE", "PAY_0", "PAY_2", "PAY_3", "PAY_4", "PAY_5",
           "PAY_6", "BILL_AMT1", "BILL_AMT2", "BILL_AMT3", "BILL_AMT4", "BILL_AMT5", "BILL_AMT6", "PAY_AMT1",
           "PAY_AMT2", "PAY_AMT3", "PAY_AMT4", "PAY_AMT5", "PAY_AMT6"),
          ("SEX", "AGE"), ("no default", "default"), "dice",
          "Default of credit card clients (Taiwan, 30,000 rows) as preprocessed by DICE. Label 1 = default "
          "next month. DICE's published bounds do not contain the data for several columns "
          "(LIMIT_BAL, BILL_AMT*, PAY_AMT*); there the bounds are the data min/max.",
          bounds=((1, 100), (0, 1), (0, 6), (0, 3), (2, 7), (0, 10), (0, 10), (0, 10), (0, 10), (0, 10),
                  (0, 10), (-16, 96), (-6, 98), (-15, 166), (-17, 89), (-8, 92), (-33, 96), (0, 87), (0, 168),
                  (0, 89), (0, 62), (0, 42), (0, 52)),
          trust_bounds=False, aliases=("default_dice",)),
)
_BY_NAME = {s.name: s for s in _SPECS}
_ALIASES = {a: s.name for s in _SPECS for a in s.aliases}
MISSING_OPTIONS = ("clip", "drop", "category")


def available() -> list[str]:
    """Names accepted by :func:`load` (aliases such as ``census_eidig`` are accepted too)."""
    return [s.name for s in _SPECS]


def _spec(name: str) -> _Spec:
    key = str(name).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _BY_NAME:
        raise ValueError(f"unknown dataset {name!r}; choose from {available()} "
                         f"(aliases: {sorted(_ALIASES)}), or use fairnb.datasets.make_synthetic()")
    return _BY_NAME[key]


def adf_sens_param_to_index(dataset: str, sens_param: int) -> int:
    """The 0-based column of an ADF-family 1-based ``sens_param`` (e.g. census_adf: 9 -> 8, ``sex``)."""
    spec = _spec(dataset)
    if not 1 <= int(sens_param) <= len(spec.names):
        raise ValueError(f"sens_param {sens_param} is outside 1..{len(spec.names)} for {spec.name} "
                         "(ADF's sens_param is 1-based)")
    return int(sens_param) - 1


def resolve_data_dir(data_dir=None) -> Path:
    """``data_dir`` if given, else ``$FAIRNB_DATA``; a missing folder raises ``FileNotFoundError``."""
    if data_dir is None:
        data_dir = data_folder()
    if not data_dir:
        raise FileNotFoundError(
            "no benchmark data folder given: pass data_dir='path/to/data' or set the environment variable "
            "FAIRNB_DATA to the folder holding census_eidig/, credit_eidig/, ... (census and german can also "
            "come from the raw UCI files: run fairnb.datasets.uci.download('adult') or ('german') once, then "
            "load them without a folder)")
    path = Path(data_dir).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"benchmark data folder {str(path)!r} does not exist; pass data_dir= or set "
                                "FAIRNB_DATA to the folder holding census_eidig/, credit_eidig/, ...")
    return path


def _find_file(spec: _Spec, root: Path) -> Path | None:
    for cand in (root / spec.folder / spec.file, root / spec.file):
        if cand.is_file():
            return cand
    return None


def _read_csv(path: Path, spec: _Spec) -> tuple[pd.DataFrame, np.ndarray]:
    try:
        df = pd.read_csv(path)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"{path} is not a CSV file of the {spec.name} data set: {e}") from None
    expected = len(spec.names) + 1
    if df.shape[1] != expected:
        raise ValueError(f"{path} has {df.shape[1]} columns; the {spec.name} data set has {expected} "
                         f"({len(spec.names)} features + label). Is this the right file?")
    _check_header(path, spec, [str(c) for c in df.columns])
    if df.empty:
        raise ValueError(f"{path} has a header but no rows: the {spec.name} data set's file holds one row per "
                         "person below it. Is the file truncated?")
    values = df.apply(pd.to_numeric, errors="coerce")
    if values.isna().any().any() or not np.allclose(values, np.rint(values)):
        raise ValueError(f"{path} holds non-integer or missing entries; the {spec.name} data set is integer-encoded")
    values = values.to_numpy(dtype=np.int64)
    y = values[:, 0] if spec.label_first else values[:, -1]
    X = values[:, 1:] if spec.label_first else values[:, :-1]
    if not np.isin(y, (0, 1)).all():
        raise ValueError(f"{path}: the label column holds values other than 0/1. Is this the right file?")
    return pd.DataFrame(X, columns=list(spec.names)), y


def _check_header(path: Path, spec: _Spec, header: list[str]) -> None:
    """The published files name their columns ``a, b, c, ...`` (read by position) or by the features'
    names (checked); a headerless file or one with its columns in another order is refused."""
    features = header[1:] if spec.label_first else header[:-1]
    if header == [chr(ord("a") + i) for i in range(len(header))] or features == list(spec.names):
        return
    if all(_is_number(h) for h in header):
        raise ValueError(f"{path} has no header row (its first line holds data); the {spec.name} data set's file "
                         f"starts with a header: {', '.join(spec.names)} and the label")
    if sorted(features) == sorted(spec.names):
        raise ValueError(f"{path} has the {spec.name} columns in another order ({', '.join(features)}); expected "
                         f"{', '.join(spec.names)}")
    raise ValueError(f"{path}: header {header} does not name the {spec.name} data set's columns "
                     f"({', '.join(spec.names)} and the label) nor a, b, c, ... Is this the right file?")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _handle_missing(spec: _Spec, X: pd.DataFrame, y: np.ndarray, missing: str):
    """Bring rows outside the published bounds into the domain; returns ``X, y, bounds, info``."""
    lo = np.array([b[0] for b in spec.bounds])
    hi = np.array([b[1] for b in spec.bounds])
    A = X.to_numpy().copy()
    is_missing = A == spec.missing_code if spec.missing_code is not None else np.zeros_like(A, bool)
    outside = ((A < lo) | (A > hi)) & ~is_missing
    info = {"missing_entries": int(is_missing.sum()), "out_of_bounds_entries": int(outside.sum())}
    if missing == "clip":
        A = np.clip(A, lo, hi)
    elif missing == "drop":
        keep = ~(is_missing | outside).any(axis=1)
        A, y = A[keep], y[keep]
        info["dropped_rows"] = int((~keep).sum())
    else:  # "category": bounds widened to the data, then missing -> one new value above the bound
        present = np.where(is_missing, lo, A)
        lo, hi = np.minimum(lo, present.min(axis=0)), np.maximum(hi, present.max(axis=0))
        cols = np.flatnonzero(is_missing.any(axis=0))
        hi[cols] += 1
        A = np.where(is_missing, hi, A)
        info["missing_category"] = {spec.names[c]: int(hi[c]) for c in cols}
    return pd.DataFrame(A, columns=list(spec.names)), y, list(zip(lo.tolist(), hi.tolist())), info


def _bounds(spec: _Spec, X: pd.DataFrame, y: np.ndarray, missing: str):
    """``X, y, bounds, info`` with every row inside the bounds."""
    if spec.bounds is None:
        return X, y, list(zip(X.min().tolist(), X.max().tolist())), {}
    if spec.missing_code is not None:
        return _handle_missing(spec, X, y, missing)
    lo, hi = X.min().to_numpy(), X.max().to_numpy()
    bounds, replaced = [], []
    for name, (a, b), dlo, dhi in zip(spec.names, spec.bounds, lo, hi):
        if a <= dlo and dhi <= b:
            bounds.append((a, b))
        elif spec.trust_bounds:
            raise ValueError(f"{spec.name}: column {name} ranges over {dlo}..{dhi}, outside the published "
                             f"bounds [{a}, {b}]. Is this the right file?")
        else:
            bounds.append((int(dlo), int(dhi)))
            replaced.append(name)
    return X, y, bounds, ({"bounds_from_data": replaced} if replaced else {})


def load(name: str, data_dir=None, *, missing: str = "clip") -> Dataset:
    """Load a benchmark data set from ``data_dir`` (default ``$FAIRNB_DATA``).

    ``missing`` (ADF census only, where ``?`` is coded as 100 and a few values exceed ADF's
    ``input_bounds``) decides how those rows enter the domain, so that every row is a valid seed:

    * ``"clip"`` (default): clip into the published bounds. All 32,561 rows are kept and the domain
      is ADF's; this is what ADF's generated samples (always clipped) effectively see.
    * ``"drop"``: drop rows with a missing or out-of-bounds entry.
    * ``"category"``: widen the bounds to the data and code a missing entry as one extra value
      above the upper bound (``info["missing_category"]`` says which).
    """
    spec = _spec(name)
    if missing not in MISSING_OPTIONS:
        raise ValueError(f"missing must be one of {MISSING_OPTIONS}, got {missing!r}")
    root = _root(spec, data_dir)
    path = _find_file(spec, root) if root is not None else None
    if path is None:
        X, y, source = _from_raw(spec, root)
    else:
        (X, y), source = _read_csv(path, spec), str(path)
    X, y, bounds, info = _bounds(spec, X, y, missing)
    features = [Feature(n, int(a), int(b), labels=_fit_labels(spec.labels.get(n), a, b))
                for n, (a, b) in zip(spec.names, bounds)]
    info.update(family=spec.family, source=source,
                published_bounds=[list(b) for b in spec.bounds] if spec.bounds else None)
    if spec.family in ("adf", "dice"):
        info["sens_param"] = {p: spec.names.index(p) + 1 for p in spec.protected}
    return Dataset(spec.name, X, y, TabularDomain(features, spec.protected), spec.label_names,
                   test_size=spec.test_size, random_state=42, description=spec.description, info=info)


def _fit_labels(labels, low, high):
    """Value labels only when they cover exactly ``low..high``."""
    return tuple(labels) if labels is not None and len(labels) == high - low + 1 else None


def _root(spec: _Spec, data_dir) -> Path | None:
    """The data folder; ``None`` when there is none but the raw UCI files are in the download cache."""
    try:
        return resolve_data_dir(data_dir)
    except FileNotFoundError:
        if data_dir is None and spec.name in _RAW and uci.cached_files(_RAW[spec.name][0]) is not None:
            return None
        raise


def _from_raw(spec: _Spec, root: Path | None):
    """Build ``census``/``german`` from the raw UCI files in ``root/raw_uci``, ``root`` or the cache."""
    if spec.name not in _RAW:
        raise FileNotFoundError(f"{spec.name}: file {spec.folder}/{spec.file} not found in {str(root)!r}; "
                                "point data_dir= (or FAIRNB_DATA) at the benchmark data folder")
    raw, preprocess = _RAW[spec.name]
    for folder in ([root / "raw_uci", root] if root is not None else []) + [None]:
        files = uci.local_files(raw, folder)
        if files is not None:
            X, y = preprocess(*files)
            return X, y, f"raw UCI files {[str(f) for f in files]} (preprocessed)"
    raise FileNotFoundError(
        f"{spec.name}: neither {spec.folder}/{spec.file} nor the raw UCI files {list(uci.DATASETS[raw])} found in "
        f"{str(root)!r} or the cache; point data_dir= (or FAIRNB_DATA) at the benchmark data folder, or run "
        f"fairnb.datasets.uci.download({raw!r}) once (it downloads, or takes folder='path' with the UCI files)")


_RAW = {"census": ("adult", uci.preprocess_adult), "german": ("german", uci.preprocess_german)}

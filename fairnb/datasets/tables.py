"""Your own table as a fairnb Dataset, in one call: ``from_frame(df, ...)`` or ``from_csv(path, ...)``.

Every feature becomes integer codes, which is what searches change and what the model is trained on
(``data.X``); ``data.domain.decode`` shows them as the original values:

* **categorical**: string, boolean and pandas ``category`` columns (and the columns named in
  ``categorical=``) get codes ``0..k-1`` in sorted order (a pandas category keeps its own order); the
  values are kept as labels.
* **ordinal**: integer columns (floats whose values are all whole numbers too) keep their values;
  bounds are the data's min and max.
* **continuous**: a column with fractional values must be declared, never silently floored:
  ``continuous={"income": 0.5}`` puts it on a grid of step 0.5 (code ``k`` is the value ``k * 0.5``,
  values rounded to the nearest grid point), or ``bins={"income": 5}`` (equal-width bins, or a list
  of edges) makes it ordinal with interval labels.

The label column becomes 0/1 (``positive=`` names the favourable value; otherwise the larger one),
and the split is the usual train/test split with an optional validation share of the training rows
(``data.seed_inputs()`` is the training split without it, where MAFT's and EIDIG's seeds come from).

Example
-------
>>> import pandas as pd
>>> df = pd.DataFrame({"sex": ["f", "m", "m", "f"], "age": [23, 45, 31, 60],
...                    "income": [1.5, 2.25, 0.75, 3.0], "hired": ["no", "yes", "yes", "no"]})
>>> data = from_frame(df, label="hired", protected="sex", continuous={"income": 0.25}, test_size=0.5)
>>> data.domain.describe()[["feature", "low", "high", "kind"]].values.tolist()
[['sex', 0, 1, 'categorical'], ['age', 23, 60, 'ordinal'], ['income', 3, 12, 'continuous']]
>>> data.domain.decode(data.X[:2]).values.tolist(), data.label_names
([['f', 23, 1.5], ['m', 45, 2.25]], ('no', 'yes'))
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..domains import Feature, TabularDomain
from .base import Dataset


def from_csv(path, label: str, protected, *, names=None, **options) -> Dataset:
    """``from_frame`` on a CSV file (``sep=`` and other ``pandas.read_csv`` options go in ``read_csv={...}``).

    ``names`` renames the file's columns in order (a list or a comma-separated string; e.g. for a file written
    from an array, whose header is ``0,1,...``); ``label`` and ``protected`` then use the new names. The data
    set is named after the file unless ``name=`` is given.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no CSV file {str(path)!r}")
    try:
        df = pd.read_csv(path, skipinitialspace=True, **options.pop("read_csv", {}))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ValueError(f"cannot read {str(path)!r} as CSV: {e}") from None
    if df.empty:
        raise ValueError(f"{str(path)!r} has a header but no rows: nothing to build a data set from")
    if names is not None:
        names = [str(n) for n in _names(names)]
        if len(names) != df.shape[1] or len(set(names)) != len(names):
            raise ValueError(f"names: {str(path)!r} has {df.shape[1]} columns, so names needs {df.shape[1]} distinct "
                             f"names; got {len(names)}: {names}")
        df.columns = names
    options.setdefault("name", path.stem)
    options.setdefault("description", f"read from {path}")
    return from_frame(df, label, protected, **options)


def from_frame(df: pd.DataFrame, label: str, protected, *, features=None, categorical=(), continuous=None,
               bins=None, positive=None, name: str = "data", test_size: float = 0.2, validation_size: float = 0.0,
               random_state: int = 42, description: str = "") -> Dataset:
    """Encode ``df`` (see the module docstring) into a Dataset whose domain has ``protected`` attributes.

    Parameters
    ----------
    label : the column with the decision (two values).
    protected : the protected attribute(s): a name, a comma-separated string or a list.
    features : the feature columns (default: every column but ``label``).
    categorical : numeric columns to treat as unordered categories.
    continuous : ``{column: step}`` for columns with fractional values kept as numbers on a grid.
    bins : ``{column: n_bins or edges}`` for columns cut into intervals.
    positive : the favourable label value (class 1); default the larger of the two.
    test_size, validation_size, random_state : the split (``validation_size`` is a share of the training rows).
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}; for a CSV file use from_csv(path, ...)")
    df = df.rename(columns=str)
    if len(df) == 0:
        raise ValueError("the table has no rows")
    if label not in df.columns:
        raise ValueError(f"label={label!r} is not a column; the columns are {list(df.columns)}")
    features = [c for c in df.columns if c != label] if features is None else [str(c) for c in _names(features)]
    if not features:
        raise ValueError("the table has no feature column besides the label")
    continuous, bins, categorical = dict(continuous or {}), dict(bins or {}), set(_names(categorical))
    for arg, cols in (("features", features), ("categorical", categorical), ("continuous", continuous), ("bins", bins)):
        unknown = [c for c in cols if c not in df.columns or c == label]
        if unknown:
            raise ValueError(f"{arg} names {unknown}, which are not feature columns; the columns are {list(df.columns)}")
    twice = (set(continuous) & set(bins)) | (categorical & (set(continuous) | set(bins)))
    if twice:
        raise ValueError(f"columns {sorted(twice)} are declared twice (categorical, continuous and bins exclude each other)")
    encoded, specs = {}, []
    for col in features:
        values = df[col]
        if values.isna().any():
            rows = np.flatnonzero(values.isna().to_numpy())[:5].tolist()
            raise ValueError(f"column {col!r} has missing values (rows {rows}...); drop or fill them first "
                             "(df.dropna() or df.fillna(...))")
        if col in continuous:
            codes, feature = _grid(col, values, continuous[col])
        elif col in bins:
            codes, feature = _binned(col, values, bins[col])
        elif col in categorical or not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            codes, feature = _categories(col, values)
        else:
            codes, feature = _integers(col, values)
        encoded[col] = codes
        specs.append(feature)
    y, label_names = _binary_label(df[label], label, positive)
    X = pd.DataFrame(encoded, index=range(len(df)))
    domain = TabularDomain(specs, protected)
    return Dataset(name, X, y, domain, label_names, test_size=test_size, random_state=random_state,
                   description=description or f"table with {len(df)} rows, label {label!r}",
                   info={"label": label, "source": "from_frame"}, validation_size=validation_size)


def _names(items) -> list:
    return [s.strip() for s in items.split(",") if s.strip()] if isinstance(items, str) else list(items)


def _sorted(values) -> list:
    """Distinct values in sorted order (by their text when they are of mixed types)."""
    distinct = list(values.unique())
    try:
        return sorted(distinct)
    except TypeError:
        return sorted(distinct, key=str)


def _integers(col, values):
    x = values.to_numpy(dtype=float)
    if not np.isfinite(x).all():
        raise ValueError(f"column {col!r} has infinite values; drop or fill them first")
    if (x != np.rint(x)).any():
        example = x[x != np.rint(x)][0]
        raise ValueError(f"column {col!r} has fractional values (e.g. {example:g}); fairnb does not floor them "
                         f"silently: declare continuous={{{col!r}: step}} (a grid, values rounded to the nearest "
                         f"step) or bins={{{col!r}: n}} (intervals)")
    codes = x.astype(np.int64)
    return codes, Feature(col, int(codes.min()), int(codes.max()))


def _categories(col, values):
    if isinstance(values.dtype, pd.CategoricalDtype):
        cats = [c for c in values.cat.categories if c in set(values)]
    else:
        cats = _sorted(values)
    if len(cats) > 1000:
        raise ValueError(f"column {col!r} has {len(cats)} distinct values, too many for a categorical feature; "
                         "give it as numbers (continuous=/bins=) or drop it (features=[...])")
    index = {c: i for i, c in enumerate(cats)}
    codes = values.map(index).to_numpy(dtype=np.int64)
    labels = [f"{c:g}" if isinstance(c, (float, np.floating)) else str(c) for c in cats]
    return codes, Feature(col, 0, len(cats) - 1, labels=labels, kind="categorical")


def _number_column(col, values, arg):
    try:
        x = values.to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{arg}={{{col!r}: ...}}: column {col!r} is not numeric") from None
    if not np.isfinite(x).all():
        raise ValueError(f"column {col!r} has infinite values; drop or fill them first")
    return x


def _grid(col, values, step):
    if isinstance(step, bool) or not isinstance(step, (int, float, np.integer, np.floating)) \
            or not np.isfinite(step) or step <= 0:
        raise ValueError(f"continuous={{{col!r}: {step!r}}}: the step must be a positive number")
    codes = np.rint(_number_column(col, values, "continuous") / step).astype(np.int64)
    return codes, Feature(col, int(codes.min()), int(codes.max()), kind="continuous", step=float(step))


def _binned(col, values, spec):
    x = _number_column(col, values, "bins")
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        if spec < 2:
            raise ValueError(f"bins={{{col!r}: {spec}}}: need at least 2 bins")
        edges = np.linspace(x.min(), x.max(), spec + 1)
    else:
        edges = np.asarray(spec, dtype=float)
        if edges.ndim != 1 or len(edges) < 3 or (np.diff(edges) <= 0).any():
            raise ValueError(f"bins={{{col!r}: ...}} must be a number of bins or at least 3 increasing edges")
        outside = (x < edges[0]) | (x > edges[-1])
        if outside.any():
            raise ValueError(f"column {col!r} has values outside the bin edges [{edges[0]:g}, {edges[-1]:g}] "
                             f"(e.g. {x[outside][0]:g}); widen the edges")
    codes = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(edges) - 2)
    labels = [f"[{a:g}, {b:g})" for a, b in zip(edges[:-1], edges[1:])]
    labels[-1] = labels[-1][:-1] + "]"
    return codes.astype(np.int64), Feature(col, 0, len(edges) - 2, labels=labels)


def _binary_label(values, label, positive):
    if values.isna().any():
        raise ValueError(f"label column {label!r} has missing values; drop those rows first")
    distinct = _sorted(values)
    if positive is not None:
        same = [v for v in distinct if v == positive or str(v) == str(positive)]   # "1" from the command line
        if not same:
            raise ValueError(f"positive={positive!r} is not a value of {label!r}; its values are {distinct[:10]}")
        positive = same[0]
        negatives = [v for v in distinct if v != positive]
        if len(negatives) != 1:
            raise ValueError(f"label {label!r} has {len(distinct)} values; fairnb audits two-class decisions: "
                             "map them to two values first")
        distinct = [negatives[0], positive]
    if len(distinct) != 2:
        raise ValueError(f"label {label!r} has {len(distinct)} distinct value(s) {distinct[:10]}; fairnb audits "
                         "two-class decisions: map them to two values first")
    y = (values == distinct[1]).to_numpy(dtype=np.int64)
    return y, tuple(f"{v:g}" if isinstance(v, (float, np.floating)) else str(v) for v in distinct)

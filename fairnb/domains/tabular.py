"""Tabular input domains: integer features with bounds, labels and protected attributes.

A *domain* tells the search engine what a valid input is and what "the same input with another
protected value" means. ``TabularDomain`` implements the ``fairnb.domains.base.Domain`` protocol
(documented there) and the optional bounded-integer capabilities; its main members:

``n_features``
    width of one encoded input row (the model's input width).
``validate(X) -> ndarray``
    check a batch (shape, NaN, bounds) and return it as a float array, or raise ``ValueError``
    naming the problem.
``variants(X) -> ndarray``  of shape ``(n, m, n_features)``
    every protected variant of every input, the input's own protected values included, so that the
    oracle can query all ``n * m`` rows in one model call.
``clip(X)``, ``sample(n, rng)``
    project onto / draw uniformly from the domain.
``protected``
    the indices of the protected columns; search steps never change them.
``decode(X) -> DataFrame``
    human-readable values for display.
``key(X, convention)``, ``encode(X)``, ``describe_pair(x, c)``, ``to_config()``/``from_config``,
``item_shape``, ``to_columns``/``from_columns``, ``pair_columns``
    the rest of the protocol (de-duplication keys, model input, display, storage).

Example
-------
>>> from fairnb.domains import Feature, TabularDomain
>>> dom = TabularDomain([Feature("age", 1, 9), Feature("sex", 0, 1, labels=("female", "male")),
...                      Feature("hours", 0, 99)], protected=["sex"])
>>> dom.variants([[3, 0, 40]]).tolist()
[[[3.0, 0.0, 40.0], [3.0, 1.0, 40.0]]]
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from .base import check_convention, check_feature_names, register_domain


KINDS = ("categorical", "ordinal", "continuous")


@dataclass(frozen=True)
class Feature:
    """One integer-encoded feature: ``low <= code <= high``.

    ``labels`` optionally names the codes ``low, low+1, ...`` (e.g. ``("female", "male")``) for display.
    ``kind`` says what the codes mean: ``"ordinal"`` (ordered integers, the default), ``"categorical"``
    (unordered categories, e.g. an encoded string column) or ``"continuous"`` (a number on a grid:
    code ``k`` stands for the value ``k * step``). Every search works on the integer codes.

    >>> Feature("income", 0, 40, kind="continuous", step=2.5).value(3)
    7.5
    >>> Feature("sex", 0, 1, labels="fm")
    Traceback (most recent call last):
    ...
    TypeError: feature 'sex': labels is the string 'fm'; pass one label per value, e.g. labels=('f', 'm')
    """

    name: str
    low: int
    high: int
    labels: tuple[str, ...] | None = None
    kind: str = "ordinal"
    step: float = 1.0

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"feature name must be a non-empty string, got {self.name!r}")
        for bound in ("low", "high"):
            object.__setattr__(self, bound, _integer_bound(self.name, bound, getattr(self, bound)))
        if self.high < self.low:
            raise ValueError(f"feature {self.name!r}: high {self.high} is below low {self.low}")
        if self.kind not in KINDS:
            raise ValueError(f"feature {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}")
        step = self.step
        if isinstance(step, bool) or not isinstance(step, (int, float, np.integer, np.floating)) \
                or not np.isfinite(step) or step <= 0:
            raise ValueError(f"feature {self.name!r}: step must be a positive finite number, got {step!r}")
        if step != 1 and self.kind != "continuous":
            raise ValueError(f"feature {self.name!r}: a step other than 1 needs kind='continuous'")
        object.__setattr__(self, "step", float(step))
        if self.labels is not None:
            if isinstance(self.labels, str):
                raise TypeError(f"feature {self.name!r}: labels is the string {self.labels!r}; pass one label per "
                                f"value, e.g. labels={tuple(self.labels)!r}")
            object.__setattr__(self, "labels", tuple(str(s) for s in self.labels))
            if len(self.labels) != self.high - self.low + 1:
                raise ValueError(
                    f"feature {self.name!r}: {len(self.labels)} labels for "
                    f"{self.high - self.low + 1} values {self.low}..{self.high}"
                )

    @property
    def values(self) -> np.ndarray:
        return np.arange(self.low, self.high + 1)

    def value(self, code):
        """The number a code stands for: the code itself, or ``code * step`` for a continuous feature."""
        code = int(round(float(code)))
        return code * self.step if self.kind == "continuous" else code

    def label(self, value) -> str:
        v = int(round(float(value)))
        if self.labels is not None and self.low <= v <= self.high:
            return self.labels[v - self.low]
        return f"{self.value(v):g}" if self.kind == "continuous" else str(v)


def _integer_bound(name: str, which: str, value) -> int:
    """``value`` as an int, or a ValueError/TypeError naming the feature, the bound and the fix."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"feature {name!r}: {which} must be an integer, got {value!r} ({type(value).__name__})")
    if not np.isfinite(value) or value != int(value):
        raise ValueError(f"feature {name!r}: {which} must be a finite integer code, got {value!r}; encode the "
                         "feature as integers (a number on a grid: kind='continuous' with a step)")
    return int(value)


def protected_list(protected) -> list:
    """``protected`` as a list of names or indices: one name, a comma-separated string, or a sequence.

    >>> protected_list("sex, race"), protected_list(["sex"]), protected_list(2)
    (['sex', 'race'], ['sex'], [2])
    """
    if isinstance(protected, (bool, np.bool_)):
        raise TypeError(f"protected must name attributes (e.g. protected=['sex']), got {protected!r}")
    if isinstance(protected, str):
        names = [p.strip() for p in protected.split(",") if p.strip()]
        if not names:
            raise ValueError(f"protected={protected!r} names no attribute; pass e.g. protected=['sex']")
        return names
    if isinstance(protected, (int, np.integer)):
        return [int(protected)]
    try:
        items = list(protected)
    except TypeError:
        raise TypeError(f"protected must be names or indices of features, got {protected!r}") from None
    for p in items:
        if isinstance(p, (bool, np.bool_)) or not isinstance(p, (str, int, np.integer)):
            raise TypeError(f"protected must be names or indices of features, got {p!r} in {protected!r}")
    return items


@register_domain
class TabularDomain:
    """Integer-encoded tabular inputs with one or several protected attributes.

    Parameters
    ----------
    features : sequence of Feature
    protected : names or 0-based indices of the protected attributes (or one name, or a
        comma-separated string). With several, their variants are the Cartesian product of their
        values (as in EIDIG).
    class_names : what the model's decisions 0, 1, ... mean (e.g. ``("<=50K", ">50K")``), shown in
        results; None: the numbers.
    """

    kind = "tabular"

    def __init__(self, features: Sequence[Feature], protected: Iterable[str | int] = (), class_names=None):
        self.features = tuple(features)
        self.class_names = None if class_names is None else tuple(str(c) for c in class_names)
        if not self.features:
            raise ValueError("a domain needs at least one feature")
        names = [f.name for f in self.features]
        if len(set(names)) != len(names):
            raise ValueError(f"feature names must be unique, got {names}")
        check_feature_names(names)
        self.names = tuple(names)
        self.lower = np.array([f.low for f in self.features], dtype=float)
        self.upper = np.array([f.high for f in self.features], dtype=float)
        self.protected = tuple(self.index(p) for p in protected_list(protected))
        if len(set(self.protected)) != len(self.protected):
            raise ValueError("a protected attribute is named twice")
        if self.protected and len(self.protected) == len(self.features):
            raise ValueError(f"every feature is protected ({list(names)}): a discriminatory pair differs only in "
                             "protected attributes, so at least one feature must be unprotected")
        self._protected_values = (
            np.array(list(itertools.product(*(self.features[i].values for i in self.protected))), dtype=float)
            if self.protected
            else np.zeros((1, 0))
        )

    # ------------------------------------------------------------------ description
    @property
    def n_features(self) -> int:
        return len(self.features)

    @property
    def item_shape(self) -> tuple[int]:
        """The shape of one input: ``(n_features,)``."""
        return (self.n_features,)

    @property
    def protected_names(self) -> tuple[str, ...]:
        return tuple(self.names[i] for i in self.protected)

    protected_columns = protected_names

    @property
    def non_protected(self) -> np.ndarray:
        """Indices of the columns a search may change."""
        return np.array([i for i in range(self.n_features) if i not in self.protected], dtype=int)

    @property
    def protected_values(self) -> np.ndarray:
        """All ``m`` combinations of protected values, shape ``(m, len(protected))``."""
        return self._protected_values

    @property
    def size(self) -> float:
        """Number of distinct inputs in the domain (a float: it can be huge)."""
        return float(np.prod(self.upper - self.lower + 1))

    def index(self, feature: str | int) -> int:
        """0-based column index of a feature given by name or index."""
        if isinstance(feature, (int, np.integer)):
            if not 0 <= feature < self.n_features:
                raise ValueError(f"feature index {feature} is outside 0..{self.n_features - 1}")
            return int(feature)
        try:
            return self.names.index(feature)
        except ValueError:
            raise ValueError(f"unknown feature {feature!r}; the domain has {list(self.names)}") from None

    def with_protected(self, protected: Iterable[str | int]) -> "TabularDomain":
        """The same features (and class names) with other protected attributes."""
        return TabularDomain(self.features, protected, self.class_names)

    def __repr__(self):
        return (f"TabularDomain({self.n_features} features, protected={list(self.protected_names)}, "
                f"{len(self._protected_values)} protected variants)")

    # ------------------------------------------------------------------ inputs
    def validate(self, X, *, what: str = "input") -> np.ndarray:
        """Return ``X`` as a 2-D float array, or raise ``ValueError`` naming the problem."""
        if np.iscomplexobj(X):
            raise ValueError(f"{what} has complex values; pass real numbers (e.g. X.real if the imaginary parts are 0)")
        try:
            X = np.asarray(X, dtype=float)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{what} is not numeric: {e}") from None
        if X.ndim == 1 and X.shape[0] == self.n_features:
            X = X[None, :]
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(
                f"{what} has shape {X.shape}; expected (n, {self.n_features}) for features {list(self.names)}"
            )
        if np.isnan(X).any():
            rows = np.flatnonzero(np.isnan(X).any(axis=1))[:5].tolist()
            raise ValueError(f"{what} contains NaN (rows {rows}...)")
        bad = (X < self.lower) | (X > self.upper)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise ValueError(
                f"{what} row {r}: {self.names[c]}={X[r, c]:g} is outside its bounds "
                f"[{self.lower[c]:g}, {self.upper[c]:g}] ({int(bad.sum())} values out of bounds in all); "
                "use domain.clip(X) to project onto the domain"
            )
        return X

    def clip(self, X) -> np.ndarray:
        """Round to integers and clip into the bounds."""
        return np.clip(np.rint(np.asarray(X, dtype=float)), self.lower, self.upper)

    def sample(self, n: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """``n`` inputs drawn uniformly from the domain."""
        rng = np.random.default_rng(rng)
        return rng.integers(self.lower.astype(np.int64), self.upper.astype(np.int64) + 1,
                            size=(n, self.n_features)).astype(float)

    def variants(self, X) -> np.ndarray:
        """All protected variants of each input, shape ``(n, m, n_features)``.

        Variant ``j`` of every input sets the protected columns to ``protected_values[j]``; one of
        them is the input itself.
        """
        if not self.protected:
            raise ValueError("the domain has no protected attribute; pass protected=[...]")
        X = np.asarray(X, dtype=float)
        out = np.repeat(X[:, None, :], len(self._protected_values), axis=1)
        out[:, :, list(self.protected)] = self._protected_values[None, :, :]
        return out

    def own_variant(self, X) -> np.ndarray:
        """Index of each input's own protected combination within ``protected_values``."""
        X = np.asarray(X, dtype=float)
        if len(self.protected) == 1:          # one protected column: no (n, m, 1) comparison to reduce
            return (X[:, self.protected[0], None] == self._protected_values[None, :, 0]).argmax(axis=1)
        eq = (X[:, None, list(self.protected)] == self._protected_values[None, :, :]).all(axis=2)
        return eq.argmax(axis=1)

    def encode(self, X) -> np.ndarray:
        """The model's input: the rows themselves, as floats."""
        return np.asarray(X, dtype=float)

    def key(self, X, convention: str) -> np.ndarray:
        """De-duplication keys, one int64 row per input: the full row (``"eidig"``) or the row
        without the protected columns (``"adf"``).

        >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
        >>> dom.key([[1, 3]], "eidig").tolist(), dom.key([[1, 3]], "adf").tolist()
        ([[1, 3]], [[3]])
        """
        X = np.asarray(X, dtype=float)
        if check_convention(convention) == "adf":
            X = np.delete(X, list(self.protected), axis=1)
        return np.ascontiguousarray(np.rint(X).astype(np.int64))

    # ------------------------------------------------------------------ storage
    def to_config(self) -> dict:
        """A JSON-able description; ``TabularDomain.from_config`` rebuilds the domain from it.

        >>> dom = TabularDomain([Feature("sex", 0, 1, labels=("f", "m")), Feature("x", 0, 9)], protected="sex")
        >>> TabularDomain.from_config(dom.to_config()).describe().equals(dom.describe())
        True
        """
        return {"kind": self.kind,
                "features": [[f.name, f.low, f.high, list(f.labels) if f.labels else None, f.kind, f.step]
                             for f in self.features],
                "protected": list(self.protected),
                "class_names": None if self.class_names is None else list(self.class_names)}

    @classmethod
    def from_config(cls, config: dict) -> "TabularDomain":
        """The domain that ``config`` describes (also the format of results saved before 0.3, without
        ``kind``; ``kind`` and ``step`` of a feature since 0.2)."""
        return cls([Feature(n, lo, hi, tuple(lb) if lb else None, *kind_step)
                    for n, lo, hi, lb, *kind_step in config["features"]], config["protected"],
                   config.get("class_names"))

    # ------------------------------------------------------------------ display
    def describe_pair(self, x, counterpart) -> dict:
        """The pair in words: ``{"changed": {feature: (value, counterpart value)}, "input": {feature: value}}``.

        >>> dom = TabularDomain([Feature("sex", 0, 1, labels=("f", "m")), Feature("x", 0, 9)], protected="sex")
        >>> dom.describe_pair([0, 4], [1, 4])["changed"]
        {'sex': ('f', 'm')}
        """
        left, right = self.decode([x]).iloc[0], self.decode([counterpart]).iloc[0]
        changed = {str(n): (str(left[n]), str(right[n])) for n in self.names if left[n] != right[n]}
        return {"changed": changed, "input": {str(n): str(left[n]) for n in self.names}}

    def decode(self, X) -> pd.DataFrame:
        """Human-readable values (category labels where known) as a DataFrame."""
        X = np.asarray(X, dtype=float).reshape(-1, self.n_features)
        cols = {}
        for j, f in enumerate(self.features):
            if f.labels is None and f.kind == "continuous":
                cols[f.name] = np.rint(X[:, j]) * f.step
            elif f.labels is None:
                cols[f.name] = X[:, j].astype(np.int64)
            else:
                cols[f.name] = [f.label(v) for v in X[:, j]]
        return pd.DataFrame(cols)

    def to_columns(self, X) -> pd.DataFrame:
        """The stored form of inputs: one numeric column per feature (``from_columns`` reads it back).

        >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected="sex")
        >>> dom.from_columns(dom.to_columns([[1, 4]])).tolist()
        [[1.0, 4.0]]
        """
        return pd.DataFrame(np.asarray(X, dtype=float).reshape(-1, self.n_features), columns=list(self.names))

    def from_columns(self, frame: pd.DataFrame) -> np.ndarray:
        """Inputs from the columns ``to_columns`` wrote."""
        return frame[list(self.names)].to_numpy(float)

    def pair_columns(self, X, C) -> dict:
        """What the counterparts change, for ``result.pairs``: ``<protected>'`` with the counterparts'
        decoded protected values."""
        right = self.decode(C)
        return {f"{n}'": right[n].to_numpy() for n in self.protected_names}

    def describe(self) -> pd.DataFrame:
        """One row per feature: bounds, number of values, protected or not."""
        return pd.DataFrame({
            "feature": self.names,
            "low": self.lower.astype(int),
            "high": self.upper.astype(int),
            "values": (self.upper - self.lower + 1).astype(int),
            "kind": [f.kind for f in self.features],
            "protected": [i in self.protected for i in range(self.n_features)],
        })

    @classmethod
    def from_data(cls, X: pd.DataFrame | np.ndarray, protected: Iterable[str | int] = (),
                  names: Sequence[str] | None = None) -> "TabularDomain":
        """A domain whose bounds are the data's min/max per column (the EIDIG convention).

        ``X`` holds integer codes (a DataFrame or an array); column labels become feature names
        (as strings). For a raw table with strings or fractional numbers use
        ``fairnb.datasets.from_frame``, which encodes them.

        >>> TabularDomain.from_data(pd.DataFrame({"sex": [0, 1], "age": [20, 70]}), protected="sex")
        TabularDomain(2 features, protected=['sex'], 2 protected variants)
        """
        if isinstance(X, pd.DataFrame):
            names = list(X.columns) if names is None else names
            X = X.to_numpy()
        if np.iscomplexobj(X):
            raise ValueError("X has complex values; pass real numbers")
        try:
            X = np.asarray(X, dtype=float)
        except (TypeError, ValueError):
            raise ValueError("X has non-numeric values; encode them first, e.g. with "
                             "fairnb.datasets.from_frame(df, label=..., protected=...)") from None
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X has shape {X.shape}; a domain needs at least one row and one column")
        names = [str(n) for n in (names if names is not None else [f"x{j}" for j in range(X.shape[1])])]
        if len(names) != X.shape[1]:
            raise ValueError(f"{len(names)} names for {X.shape[1]} columns")
        for j, name in enumerate(names):
            column = X[:, j]
            if not np.isfinite(column).all():
                raise ValueError(f"column {name!r} has NaN or infinite values; drop or fill them first "
                                 "(df.dropna() or df.fillna(...))")
            if (column != np.rint(column)).any():
                raise ValueError(f"column {name!r} has fractional values; fairnb does not round them silently: "
                                 "use fairnb.datasets.from_frame(..., continuous={{{name!r}: step}}) or bins=...")
        lo, hi = X.min(axis=0).astype(int), X.max(axis=0).astype(int)
        return cls([Feature(n, int(a), int(b)) for n, a, b in zip(names, lo, hi)], protected)

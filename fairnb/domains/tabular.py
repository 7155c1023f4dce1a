"""Tabular input domains: integer features with bounds, labels and protected attributes.

A *domain* tells the search engine what a valid input is and what "the same input with another
protected value" means. Every domain (tabular here; text and images later) offers the same small
interface, which is all a search strategy or the oracle may rely on:

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


@dataclass(frozen=True)
class Feature:
    """One integer-encoded feature: ``low <= value <= high``.

    ``labels`` optionally names the values ``low, low+1, ...`` (e.g. ``("female", "male")``) and is
    used only for display.
    """

    name: str
    low: int
    high: int
    labels: tuple[str, ...] | None = None

    def __post_init__(self):
        if self.high < self.low:
            raise ValueError(f"feature {self.name!r}: high {self.high} is below low {self.low}")
        if self.labels is not None:
            object.__setattr__(self, "labels", tuple(str(s) for s in self.labels))
            if len(self.labels) != self.high - self.low + 1:
                raise ValueError(
                    f"feature {self.name!r}: {len(self.labels)} labels for "
                    f"{self.high - self.low + 1} values {self.low}..{self.high}"
                )

    @property
    def values(self) -> np.ndarray:
        return np.arange(self.low, self.high + 1)

    def label(self, value) -> str:
        v = int(round(float(value)))
        if self.labels is not None and self.low <= v <= self.high:
            return self.labels[v - self.low]
        return str(v)


class TabularDomain:
    """Integer-encoded tabular inputs with one or several protected attributes.

    Parameters
    ----------
    features : sequence of Feature
    protected : names or 0-based indices of the protected attributes. With several, their
        variants are the Cartesian product of their values (as in EIDIG).
    """

    def __init__(self, features: Sequence[Feature], protected: Iterable[str | int] = ()):
        self.features = tuple(features)
        if not self.features:
            raise ValueError("a domain needs at least one feature")
        names = [f.name for f in self.features]
        if len(set(names)) != len(names):
            raise ValueError(f"feature names must be unique, got {names}")
        self.names = tuple(names)
        self.lower = np.array([f.low for f in self.features], dtype=float)
        self.upper = np.array([f.high for f in self.features], dtype=float)
        self.protected = tuple(self.index(p) for p in protected)
        if len(set(self.protected)) != len(self.protected):
            raise ValueError("a protected attribute is named twice")
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
    def protected_names(self) -> tuple[str, ...]:
        return tuple(self.names[i] for i in self.protected)

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
        """The same features with other protected attributes."""
        return TabularDomain(self.features, protected)

    def __repr__(self):
        return (f"TabularDomain({self.n_features} features, protected={list(self.protected_names)}, "
                f"{len(self._protected_values)} protected variants)")

    # ------------------------------------------------------------------ inputs
    def validate(self, X, *, what: str = "input") -> np.ndarray:
        """Return ``X`` as a 2-D float array, or raise ``ValueError`` naming the problem."""
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
        eq = (X[:, None, list(self.protected)] == self._protected_values[None, :, :]).all(axis=2)
        return eq.argmax(axis=1)

    # ------------------------------------------------------------------ display
    def decode(self, X) -> pd.DataFrame:
        """Human-readable values (category labels where known) as a DataFrame."""
        X = np.asarray(X, dtype=float).reshape(-1, self.n_features)
        cols = {}
        for j, f in enumerate(self.features):
            if f.labels is None:
                cols[f.name] = X[:, j].astype(np.int64)
            else:
                cols[f.name] = [f.label(v) for v in X[:, j]]
        return pd.DataFrame(cols)

    def describe(self) -> pd.DataFrame:
        """One row per feature: bounds, number of values, protected or not."""
        return pd.DataFrame({
            "feature": self.names,
            "low": self.lower.astype(int),
            "high": self.upper.astype(int),
            "values": (self.upper - self.lower + 1).astype(int),
            "protected": [i in self.protected for i in range(self.n_features)],
        })

    @classmethod
    def from_data(cls, X: pd.DataFrame | np.ndarray, protected: Iterable[str | int] = (),
                  names: Sequence[str] | None = None) -> "TabularDomain":
        """A domain whose bounds are the data's min/max per column (the EIDIG convention)."""
        if isinstance(X, pd.DataFrame):
            names = list(X.columns) if names is None else names
            X = X.to_numpy()
        X = np.asarray(X, dtype=float)
        names = names or [f"x{j}" for j in range(X.shape[1])]
        lo, hi = np.floor(X.min(axis=0)).astype(int), np.ceil(X.max(axis=0)).astype(int)
        return cls([Feature(str(n), int(a), int(b)) for n, a, b in zip(names, lo, hi)], protected)

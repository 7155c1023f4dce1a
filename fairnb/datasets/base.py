"""The Dataset: encoded features, labels, a domain, and the published train/test split.

Example
-------
>>> from fairnb.datasets import make_synthetic
>>> data = make_synthetic(n=1000, random_state=0)
>>> X_train, X_test, y_train, y_test = data.split()
>>> len(X_train), len(X_test)
(800, 200)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..domains import TabularDomain


@dataclass
class Dataset:
    """An integer-encoded tabular data set.

    ``X`` is a DataFrame (columns = ``domain.names``), ``y`` the 0/1 labels, ``label_names`` what
    0 and 1 mean. ``test_size`` and ``random_state`` define the published split
    (``sklearn.model_selection.train_test_split``).
    """

    name: str
    X: pd.DataFrame
    y: np.ndarray
    domain: TabularDomain
    label_names: tuple[str, str] = ("0", "1")
    test_size: float = 0.2
    random_state: int = 42
    description: str = ""
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        if list(self.X.columns) != list(self.domain.names):
            raise ValueError(f"{self.name}: columns {list(self.X.columns)} != domain {list(self.domain.names)}")
        self.y = np.asarray(self.y).astype(np.int64)
        if len(self.y) != len(self.X):
            raise ValueError(f"{self.name}: {len(self.X)} rows but {len(self.y)} labels")
        if getattr(self.domain, "class_names", None) is None and tuple(self.label_names) != ("0", "1"):
            self.domain.class_names = tuple(self.label_names)   # results of searches on this domain name decisions

    def __len__(self):
        return len(self.X)

    def __repr__(self):
        return (f"Dataset({self.name!r}, {len(self)} rows, {self.domain.n_features} features, "
                f"protected={list(self.domain.protected_names)})")

    def split(self, test_size: float | None = None, random_state: int | None = None):
        """``X_train, X_test, y_train, y_test`` as float arrays (the published split by default)."""
        from sklearn.model_selection import train_test_split

        return train_test_split(self.X.to_numpy(dtype=float), self.y,
                                test_size=self.test_size if test_size is None else test_size,
                                random_state=self.random_state if random_state is None else random_state)

    def with_protected(self, protected) -> "Dataset":
        """The same data with other protected attributes (names or 0-based indices)."""
        if isinstance(protected, str):
            protected = [p.strip() for p in protected.split(",") if p.strip()]
        return Dataset(self.name, self.X, self.y, self.domain.with_protected(protected), self.label_names,
                       self.test_size, self.random_state, self.description, dict(self.info))

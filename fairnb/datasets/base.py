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

from dataclasses import dataclass, field, replace

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

    validation_size: float = 0.0

    def __post_init__(self):
        names = list(self.domain.names)
        if not isinstance(self.X, pd.DataFrame):
            X = np.asarray(self.X)
            if X.ndim != 2 or X.shape[1] != len(names):
                raise ValueError(f"{self.name}: X has shape {X.shape}; expected (n, {len(names)}) for {names}")
            self.X = pd.DataFrame(X, columns=names)
        elif [str(c) for c in self.X.columns] != names:
            raise ValueError(f"{self.name}: columns {list(self.X.columns)} != domain {names}")
        else:
            self.X = self.X.set_axis(names, axis=1)   # e.g. integer column labels named "0", "1", ... by the domain
        self.y = np.asarray(self.y).astype(np.int64)
        if len(self.y) != len(self.X):
            raise ValueError(f"{self.name}: {len(self.X)} rows but {len(self.y)} labels")
        for arg in ("test_size", "validation_size"):
            v = getattr(self, arg)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 1 or (arg == "test_size" and v == 0):
                raise ValueError(f"{self.name}: {arg} must be a share in [0, 1) (test_size above 0), got {v!r}")
        if getattr(self.domain, "class_names", None) is None and tuple(self.label_names) != ("0", "1"):
            self.domain.class_names = tuple(self.label_names)   # results of searches on this domain name decisions

    def __len__(self):
        return len(self.X)

    def __repr__(self):
        return (f"Dataset({self.name!r}, {len(self)} rows, {self.domain.n_features} features, "
                f"protected={list(self.domain.protected_names)})")

    def split(self, test_size: float | None = None, random_state: int | None = None):
        """``X_train, X_test, y_train, y_test`` as float arrays (the published split by default).

        The training split includes the validation rows; ``split_validation()`` separates them."""
        from sklearn.model_selection import train_test_split

        return train_test_split(self.X.to_numpy(dtype=float), self.y,
                                test_size=self.test_size if test_size is None else test_size,
                                random_state=self.random_state if random_state is None else random_state)

    def split_validation(self):
        """``X_fit, X_val, y_fit, y_val``: the training split without and with only its ``validation_size``
        share (MAFT's and EIDIG's scripts train on ``X_fit`` and draw their seeds from it).

        >>> from fairnb.datasets import make_synthetic
        >>> data = make_synthetic(n=1000, random_state=0)
        >>> [len(a) for a in data.with_split(validation_size=0.25).split_validation()[:2]]
        [600, 200]
        """
        from sklearn.model_selection import train_test_split

        X_train, _, y_train, _ = self.split()
        if not self.validation_size:
            return X_train, X_train[:0], y_train, y_train[:0]
        return train_test_split(X_train, y_train, test_size=self.validation_size, random_state=self.random_state)

    def seed_inputs(self) -> np.ndarray:
        """The inputs searches start from: the training split without its validation rows."""
        return self.split_validation()[0]

    def with_split(self, *, test_size: float | None = None, validation_size: float | None = None,
                   random_state: int | None = None) -> "Dataset":
        """The same data with another train/validation/test split."""
        return replace(self, test_size=self.test_size if test_size is None else test_size,
                       validation_size=self.validation_size if validation_size is None else validation_size,
                       random_state=self.random_state if random_state is None else random_state,
                       info=dict(self.info))

    def with_protected(self, protected) -> "Dataset":
        """The same data with other protected attributes (names or 0-based indices, or a comma-separated string)."""
        return replace(self, domain=self.domain.with_protected(protected), info=dict(self.info))

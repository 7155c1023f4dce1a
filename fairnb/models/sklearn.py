"""scikit-learn classifiers as black-box models."""
from __future__ import annotations

import numpy as np

from .base import as_probability_matrix


class SklearnModel:
    """Wrap a fitted scikit-learn classifier.

    Uses ``predict_proba`` when the estimator has it; otherwise ``predict``, one-hot encoded (a
    label-only model: gradient estimates on it are almost always zero). An estimator fitted on a
    DataFrame (e.g. ``data.X``) gets its inputs as a DataFrame with the same column names.

    Example
    -------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    >>> SklearnModel(LogisticRegression().fit(X, y)).predict_proba(X).shape
    (4, 2)
    """

    def __init__(self, estimator):
        if not hasattr(estimator, "predict"):
            raise TypeError(f"{type(estimator).__name__} is not a scikit-learn classifier (no predict)")
        if _is_regressor(estimator) or not (hasattr(estimator, "predict_proba") or hasattr(estimator, "classes_")):
            raise TypeError(f"{type(estimator).__name__} is a regressor (continuous predict, no predict_proba or "
                            "classes_), not a classifier; fairnb tests classifiers: fit a classifier, or pass a "
                            "function that returns class probabilities")
        self.estimator = estimator
        self.classes_ = getattr(estimator, "classes_", None)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        names = getattr(self.estimator, "feature_names_in_", None)
        if names is not None and len(names) == X.shape[-1]:
            import pandas as pd

            X = pd.DataFrame(X, columns=names)
        name = type(self.estimator).__name__
        if hasattr(self.estimator, "predict_proba"):
            return as_probability_matrix(self.estimator.predict_proba(X), len(X), source=name)
        labels = np.asarray(self.estimator.predict(X))
        classes = self.classes_ if self.classes_ is not None else np.unique(labels)
        return (labels[:, None] == np.asarray(classes)[None, :]).astype(float)

    def __repr__(self):
        return f"SklearnModel({type(self.estimator).__name__})"


def _is_regressor(estimator) -> bool:
    from sklearn.base import is_regressor

    try:
        return bool(is_regressor(estimator))
    except (AttributeError, TypeError):   # not a scikit-learn estimator: judged by its methods
        return False

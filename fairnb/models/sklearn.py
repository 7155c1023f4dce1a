"""scikit-learn classifiers as black-box models."""
from __future__ import annotations

import warnings

import numpy as np

from .base import as_probability_matrix
from .sklearn_tables import BoostingTables, tables_reason
from .sklearn_trees import BOOSTING, FORESTS, CompiledTrees, compile_reason

#: ``compiled="auto"``: the largest batch that random forests, extra-trees and gradient boosting models evaluate
#: through :class:`~fairnb.models.sklearn_trees.CompiledTrees`; larger batches, and single trees, go to the
#: estimator's own ``predict_proba``, which is as fast or faster there (benchmarks/results/model_limits.md); binary
#: gradient boosting that :class:`~fairnb.models.sklearn_tables.BoostingTables` takes uses its tables on every batch
COMPILED_ROWS = 1024
_SAID: set = set()      # the fallbacks already said, (estimator class, reason)


class SklearnModel:
    """Wrap a fitted scikit-learn classifier.

    Uses ``predict_proba`` when the estimator has it; otherwise ``predict``, one-hot encoded (a
    label-only model: gradient estimates on it are almost always zero). An estimator fitted on a
    DataFrame (e.g. ``data.X``) gets its inputs as a DataFrame with the same column names.

    A binary ``LogisticRegression`` (``compiled`` not False) is evaluated by its own operations
    (``X @ coef_.T + intercept_``, ``expit``, ``[1 - p, p]``: the same probabilities, bit for bit) without
    ``predict_proba``'s per-call input validation; inputs it would refuse (another width, NaN or infinite
    values) still go to ``predict_proba``, which says why.

    ``compiled``: whether tree models are evaluated by :class:`~fairnb.models.sklearn_trees.CompiledTrees` (the
    same probabilities, by array operations over all trees, without ``predict_proba``'s per-call and per-tree
    overhead). ``"auto"`` (the default): random forests, extra-trees and gradient boosting models, on batches of
    at most ``COMPILED_ROWS`` rows; a model of those kinds that the path cannot take is said once (a
    ``RuntimeWarning`` naming why) and uses ``predict_proba``. ``True``: every batch of any tree model (a
    ``ValueError`` for a model it cannot take); ``False``: never. A binary gradient boosting model that
    :class:`~fairnb.models.sklearn_tables.BoostingTables` takes (few distinct thresholds, shallow trees: integer
    codes in small ranges) is evaluated by its lookup tables on every batch (``"auto"`` or ``True``; the same
    decisions, probabilities up to the order of float64 additions, about 4 times the rows per CPU second of
    ``predict_proba``); one it cannot take is said once and walks its trees as above.

    Example
    -------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    >>> SklearnModel(LogisticRegression().fit(X, y)).predict_proba(X).shape
    (4, 2)
    """

    outputs_checked = True      # every path returns a valid (n, k) probability matrix: the oracle checks it no more

    def __init__(self, estimator, compiled="auto"):
        if compiled not in ("auto", True, False):
            raise ValueError(f"compiled must be 'auto', True or False, got {compiled!r}")
        if not hasattr(estimator, "predict"):
            raise TypeError(f"{type(estimator).__name__} is not a scikit-learn classifier (no predict)")
        if _is_regressor(estimator) or not (hasattr(estimator, "predict_proba") or hasattr(estimator, "classes_")):
            raise TypeError(f"{type(estimator).__name__} is a regressor (continuous predict, no predict_proba or "
                            "classes_), not a classifier; fairnb tests classifiers: fit a classifier, or pass a "
                            "function that returns class probabilities")
        self.estimator = estimator
        self.classes_ = getattr(estimator, "classes_", None)
        self.compiled = compiled
        self._compiled = None              # the CompiledTrees or BoostingTables, made at the first batch using it
        kind = type(estimator).__name__
        if compiled is True:
            reason = compile_reason(estimator)
            if reason is not None:
                raise ValueError(f"compiled=True: {reason}")
            self._rows = np.inf
        elif compiled == "auto" and kind in FORESTS + BOOSTING and type(estimator).__module__.startswith("sklearn."):
            reason = compile_reason(estimator)
            self._rows = COMPILED_ROWS if reason is None else 0
            if reason is not None:
                _say_once(kind, reason)
        else:
            self._rows = 0
        self._tables = False
        if self._rows and kind in BOOSTING:
            reason = tables_reason(estimator)
            self._tables = reason is None
            if self._tables:
                self._rows = np.inf
            else:
                _say_once(kind, reason, "by walking its trees, not by lookup tables")
        self._linear = compiled is not False and _binary_logistic(estimator)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        if self._linear:
            P = _logistic_proba(self.estimator, X)
            if P is not None:
                return P
        if 0 < len(X) <= self._rows:
            if self._compiled is None or not self._compiled.is_current():     # compiled again after a new fit
                self._compiled = (BoostingTables if self._tables else CompiledTrees)(self.estimator)
            return self._compiled.predict_proba(X)
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

    def __getstate__(self):                # a copy shipped elsewhere compiles its own
        return {**self.__dict__, "_compiled": None}

    def __repr__(self):
        return f"SklearnModel({type(self.estimator).__name__})"


def _binary_logistic(estimator) -> bool:
    """Whether ``estimator`` is scikit-learn's own ``LogisticRegression`` fitted on two classes, one-vs-rest
    (older scikit-learn releases took ``multi_class="multinomial"``, whose binary probabilities are a softmax)."""
    return (type(estimator).__name__ == "LogisticRegression" and type(estimator).__module__.startswith("sklearn.")
            and len(getattr(estimator, "classes_", ())) == 2
            and getattr(estimator, "multi_class", "auto") in ("auto", "ovr", "deprecated", "warn"))


def _logistic_proba(estimator, X: np.ndarray) -> np.ndarray | None:
    """``predict_proba`` of a binary ``LogisticRegression`` by the operations it performs, or None where the
    estimator should answer itself (a sparse ``coef_``, another input width, a score that is not finite)."""
    from scipy.special import expit

    coef = estimator.coef_
    if not isinstance(coef, np.ndarray) or X.ndim != 2 or X.shape[1] != coef.shape[1]:
        return None
    scores = (X @ coef.T + estimator.intercept_).reshape(-1)
    if not np.isfinite(scores).all():
        return None
    p = expit(scores)
    return np.stack([1 - p, p], axis=1)


def _say_once(kind: str, reason: str, how: str = "with its own predict_proba, not the compiled tree path"):
    """Warn, once a process for each class and reason, that a tree model is evaluated ``how``."""
    if (kind, reason) not in _SAID:
        _SAID.add((kind, reason))
        warnings.warn(f"fairnb evaluates this {kind} {how}: {reason}", RuntimeWarning, stacklevel=3)


def _is_regressor(estimator) -> bool:
    from sklearn.base import is_regressor

    try:
        return bool(is_regressor(estimator))
    except (AttributeError, TypeError):   # not a scikit-learn estimator: judged by its methods
        return False

"""Labelling rules: which label a generated discriminatory input gets when it joins the training data.

The papers differ, so the rule is a named option:

``"vote"``      majority (soft) vote of several classifiers trained on the training split *without* the
                protected attributes (ADF's ICSE version: "majority voting over several models"; EIDIG's
                retraining: KNN, MLP, SVM, random forest and naive Bayes). The default of every
                individual-discrimination method. The SVM is replaced by a logistic regression by
                default (an SVM with probabilities takes minutes on census); pass ``voters=`` to change.
``"variants"``  the model's own decision averaged over all protected variants of the input (mean class
                probability, then argmax): what the model says when the protected value is unknown.
``"seed"``      the true label of the training record the input was generated from (NeuronFair's
                option (i)); needs a Result whose seeds are training records.
``"model"``     the model's decision on the input itself (TestSGD's rule: its in-group samples keep the
                label the original model gives them).
a callable      ``f(X) -> labels``.

Example
-------
>>> import numpy as np
>>> from fairnb.domains import Feature, TabularDomain
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 3)], protected=["sex"])
>>> model = lambda X: 0.2 + 0.7 * X[:, 0] * (X[:, 1] > 1)        # P(y=1): 0.2, or 0.9 for sex=1 and x>1
>>> variants_label(model, dom, np.array([[1.0, 3.0]])).tolist()  # mean P(y=1) over sex=0,1: 0.55
[1]
"""
from __future__ import annotations

import numpy as np

from ..models import wrap

RULES = ("vote", "variants", "seed", "model")


def default_voters(random_state: int | None = 0) -> list:
    """EIDIG's labelling ensemble (KNN, MLP, random forest, naive Bayes), with a logistic regression for
    its SVM; inputs standardised where the learner needs it."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return [make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=15)),
            make_pipeline(StandardScaler(), MLPClassifier((32,), max_iter=20, batch_size=256,
                                                          random_state=random_state)),
            make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)),
            RandomForestClassifier(n_estimators=50, min_samples_leaf=5, n_jobs=1, random_state=random_state),
            GaussianNB()]


class VoteLabeller:
    """Soft vote of ``voters`` fitted on training records with the ``protected`` columns removed.

    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.array([[0, 0], [1, 0], [0, 3], [1, 3]] * 5, dtype=float); y = (X[:, 1] > 1).astype(int)
    >>> lab = VoteLabeller([DecisionTreeClassifier()], protected=[0]).fit(X, y)
    >>> lab.predict(np.array([[1.0, 0.0], [0.0, 3.0]])).tolist()     # column 0 is never seen
    [0, 1]
    """

    def __init__(self, voters=None, protected=(), random_state: int | None = 0):
        self.voters = voters
        self.protected = tuple(protected)
        self.random_state = random_state

    def _keep(self, X):
        return np.delete(np.asarray(X, dtype=float), list(self.protected), axis=1)

    def fit(self, X, y) -> "VoteLabeller":
        import warnings

        from sklearn.base import clone

        voters = default_voters(self.random_state) if self.voters is None else self.voters
        if not voters:
            raise ValueError("voters is empty; give at least one scikit-learn classifier")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.fitted_ = [clone(v).fit(self._keep(X), y) for v in voters]
        self.classes_ = np.unique(y)
        return self

    def predict(self, X) -> np.ndarray:
        Z = self._keep(X)
        P = np.mean([_proba(v, Z, self.classes_) for v in self.fitted_], axis=0)
        return self.classes_[P.argmax(axis=1)]


def _proba(estimator, X, classes) -> np.ndarray:
    """Class probabilities in the order of ``classes`` (hard votes for estimators without predict_proba)."""
    if hasattr(estimator, "predict_proba"):
        P = estimator.predict_proba(X)
        cols = list(estimator.classes_)
        return np.column_stack([P[:, cols.index(c)] if c in cols else np.zeros(len(X)) for c in classes])
    return (estimator.predict(X)[:, None] == classes[None, :]).astype(float)


def variants_label(model, domain, X) -> np.ndarray:
    """The model's decision averaged over every protected variant of each row of ``X``."""
    X = np.asarray(X, dtype=float)
    V = domain.variants(X)
    n, m, d = V.shape
    P = wrap(model).predict_proba(V.reshape(n * m, d)).reshape(n, m, -1)
    return P.mean(axis=1).argmax(axis=1)


def seed_label(result, rows, X_train, y_train) -> np.ndarray:
    """The training label of the seed each of ``result``'s pairs ``rows`` descends from."""
    seeds = result.extras.get("seeds")
    ids = result.to_frame(decoded=False)["seed"].to_numpy()[rows]
    if seeds is None or (ids < 0).any():
        raise ValueError(f"labels='seed' needs pairs generated from seed records, but this {result.method!r} "
                         "result has pairs without a seed (random sampling has none); use labels='vote'")
    lookup = {row.tobytes(): label for row, label in zip(np.asarray(X_train, dtype=float), y_train)}
    keys = [np.asarray(seeds, dtype=float)[i].tobytes() for i in ids]
    missing = sum(k not in lookup for k in keys)
    if missing:
        raise ValueError(f"labels='seed': {missing} of {len(keys)} seeds are not records of the training split, "
                         "so they have no true label; search from the training split or use labels='vote'")
    return np.array([lookup[k] for k in keys], dtype=np.int64)

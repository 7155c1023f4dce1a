"""The embedded default: synthetic census-like data with planted, known discrimination.

The label is drawn from a logistic model of the non-protected features plus a planted effect of
the protected attribute::

    score = w . x_non_protected - b  +  strength * [x_protected == advantaged_value]
    P(y = 1 | x) = sigmoid(score)

With ``strength=0`` the protected attribute has no effect at all. The generating probability is
available as ``data.info["true_model"]`` (a fairnb model), so the ground truth is known: an input is
truly discriminatory when flipping the protected attribute moves ``score`` across 0.

Example
-------
>>> data = make_synthetic(n=1000, strength=2.0, random_state=1)
>>> data.domain.protected_names
('sex',)
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..domains import Feature, TabularDomain
from ..models import FunctionModel
from .base import Dataset

FEATURES = (
    Feature("age", 1, 9, labels=tuple(f"{10 * a}-{10 * a + 9}" for a in range(1, 10))),
    Feature("sex", 0, 1, labels=("female", "male")),
    Feature("race", 0, 4, labels=("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black")),
    Feature("education", 1, 16),
    Feature("occupation", 0, 9, labels=("Clerical", "Craft", "Exec", "Farming", "Handlers", "Machine-op",
                                        "Prof-specialty", "Sales", "Service", "Tech-support")),
    Feature("hours_per_week", 1, 9, labels=tuple(f"{10 * h}-{10 * h + 9}h" for h in range(1, 10))),
    Feature("capital_gain", 0, 4),
)
# weights of the non-protected features in the score (protected ones get 0)
_WEIGHTS = {"age": 0.35, "education": 0.30, "occupation": 0.08, "hours_per_week": 0.30, "capital_gain": 0.6}
_OFFSET = 7.6


def _score(X: np.ndarray, protected: int, advantaged: int, strength: float) -> np.ndarray:
    w = np.array([_WEIGHTS.get(f.name, 0.0) for f in FEATURES])
    return X @ w - _OFFSET + strength * (X[:, protected] == advantaged)


def make_synthetic(n: int = 5000, *, protected: str = "sex", advantaged: int | None = None,
                   strength: float = 2.0, random_state: int | None = 0) -> Dataset:
    """Synthetic census-like data whose label depends on ``protected`` with effect ``strength``.

    ``advantaged`` is the protected value that gets the bonus (default: the highest value).
    Deterministic given ``random_state``.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive number of rows, got {n!r}")
    names = [f.name for f in FEATURES]
    if protected not in names or protected not in ("sex", "race", "age"):
        raise ValueError(f"unknown protected attribute {protected!r}; choose from sex, race, age")
    p = names.index(protected)
    adv = FEATURES[p].high if advantaged is None else int(advantaged)
    if not FEATURES[p].low <= adv <= FEATURES[p].high:
        raise ValueError(f"advantaged value {adv} is not a value of {protected!r}")
    rng = np.random.default_rng(random_state)
    X = np.column_stack([
        rng.integers(1, 8, n) + rng.integers(0, 3, n),            # age, mid-heavy
        rng.integers(0, 2, n),                                    # sex
        rng.choice(5, n, p=[0.7, 0.08, 0.04, 0.04, 0.14]),         # race
        np.clip(np.rint(rng.normal(10, 3, n)), 1, 16),           # education
        rng.integers(0, 10, n),                                   # occupation
        np.clip(np.rint(rng.normal(4.5, 1.5, n)), 1, 9),         # hours
        rng.choice(5, n, p=[0.8, 0.08, 0.06, 0.04, 0.02]),         # capital gain
    ]).astype(float)
    X[:, 0] = np.clip(X[:, 0], 1, 9)
    s = _score(X, p, adv, strength)
    y = (rng.random(n) < 1 / (1 + np.exp(-s))).astype(np.int64)
    domain = TabularDomain(FEATURES, protected=[protected])
    true_model = FunctionModel(lambda Z: 1 / (1 + np.exp(-_score(np.asarray(Z, float), p, adv, strength))),
                               name=f"true P(y=1) of synthetic data (strength {strength})")
    description = (f"Synthetic census-like data (n={n}). Planted discrimination: {protected}="
                   f"{FEATURES[p].label(adv)} adds {strength} to the logit of the positive label.")
    return Dataset("synthetic", pd.DataFrame(X, columns=names).astype(np.int64), y, domain,
                   label_names=("<=50K", ">50K"), description=description,
                   info={"true_model": true_model, "strength": strength, "advantaged": adv,
                         "planted_attribute": protected})

"""Synthetic data with a planted *group* (a conjunction over sensitive features) that is treated apart.

The features are those of ``fairnb.datasets.make_synthetic`` with sex, race and age sensitive.
The label's logit is the fair synthetic logit plus ``strength`` inside the planted group
``sex = female and race in {Asian-Pac-Islander, Amer-Indian-Eskimo}`` (about 6% of the records):
with ``strength > 0`` the group gets the positive label far more often than everyone else (about
30% of whom are positive), with ``strength < 0`` far less. ``data.info`` holds the group's rule
text (``"planted_group"``), a membership test on encoded rows (``"in_group"``) and the generating
probability (``"true_model"``).

Example
-------
>>> data = make_planted_group(n=1000, random_state=0)
>>> data.info["planted_group"]
'sex = female and race in {Asian-Pac-Islander, Amer-Indian-Eskimo}'
>>> round(float(data.info["in_group"](data.X.to_numpy()).mean()), 2)
0.06
"""
from __future__ import annotations

import numpy as np

from ..datasets import Dataset, make_synthetic
from ..models import FunctionModel

SENSITIVE = ("sex", "race", "age")
_SEX, _RACE = 1, 2            # column indices in make_synthetic's features
_GROUP_RACES = (1, 2)         # Asian-Pac-Islander, Amer-Indian-Eskimo


def in_planted_group(X) -> np.ndarray:
    """Membership of encoded rows in the planted group (female, Asian-Pac-Islander or Amer-Indian-Eskimo)."""
    X = np.asarray(X, dtype=float)
    return (X[:, _SEX] == 0) & np.isin(X[:, _RACE], _GROUP_RACES)


def make_planted_group(n: int = 5000, *, strength: float = 3.0, random_state: int | None = 0) -> Dataset:
    """Census-like data whose label has ``strength`` more logit of the positive class inside the planted group."""
    base = make_synthetic(n, strength=0.0, random_state=random_state)
    fair = base.info["true_model"]

    def proba(X):
        p = np.clip(fair.predict_proba(np.asarray(X, dtype=float))[:, 1], 1e-12, 1 - 1e-12)
        return 1 / (1 + np.exp(-(np.log(p / (1 - p)) + strength * in_planted_group(X))))

    X = base.X.to_numpy(dtype=float)
    y = (np.random.default_rng(None if random_state is None else random_state + 1).random(n) < proba(X))
    text = "sex = female and race in {Asian-Pac-Islander, Amer-Indian-Eskimo}"
    return Dataset("planted-group", base.X, y.astype(np.int64), base.domain.with_protected(SENSITIVE),
                   label_names=base.label_names,
                   description=f"{base.description.split('.')[0]}. Planted group discrimination: records with "
                               f"{text} have {strength:+g} logit of the positive label.",
                   info={"planted_group": text, "in_group": in_planted_group, "strength": strength,
                         "true_model": FunctionModel(proba, name=f"true P(y=1), planted group (strength {strength})")})

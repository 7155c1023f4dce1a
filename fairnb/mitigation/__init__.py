"""Mitigation: retrain a model with what a fairness test found, and measure the discrimination left.

One API for every generator's Result and for TestSGD's GroupResult:

>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=1000, random_state=0)
>>> model = fairnb.train_demo_model(data, max_iter=50)
>>> found = fairnb.run_search(model, data.domain, method="random", n_samples=2000, random_state=0)
>>> report = fairnb.mitigate(model, found, data, labels="variants", epochs=2, n_samples=2000)
>>> report.frame.columns[:5].tolist()
['method', 'measure', 'before', 'after', 'change']

``mitigate(model, {"adf": r1, "sg": r2}, data)`` compares several methods in one report;
``Retrainer`` is the same as a scikit-learn-style estimator. The measures work on any model without
retraining: ``discrimination_rate`` (random-sample share with a 95 % interval), ``idi_count`` (a fresh
search under the same budget), ``group_score`` (TestSGD). Parts: ``labels`` (labelling rules),
``retrain_model`` (Keras, NumpyMLP, scikit-learn, or your function), ``MitigationReport``, and
``RuleGuidedMitigation`` (TestSGD's retraining with in-group samples, which ``mitigate`` runs for a GroupResult).
"""
from __future__ import annotations

from .labels import RULES as LABEL_RULES
from .labels import VoteLabeller, default_voters
from .measures import Estimate, discrimination_rate, group_score, idi_count
from .report import MitigationReport
from .retrain import retrain_model
from .retrainer import Retrainer, mitigate
from .rule_guided import RuleGuidedMitigation

__all__ = ["mitigate", "Retrainer", "MitigationReport", "discrimination_rate", "idi_count", "group_score",
           "Estimate", "retrain_model", "LABEL_RULES", "VoteLabeller", "default_voters", "RuleGuidedMitigation"]

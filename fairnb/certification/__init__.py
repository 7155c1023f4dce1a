"""Certified individual fairness of ReLU networks and tree models: the shares of a domain proven fair, unfair, undecided.

A search answers "here are inputs on which the model discriminates"; when it finds few, a reader cannot
tell a fair model from a weak search. ``certify`` answers for the *whole* integer domain: it splits the
domain into boxes and proves, for each, that the decision is the same for every protected value at every
input of the box (certified), that it differs at every input (falsified), or leaves it undecided at the
budget (after FairQuant, ICSE 2025; the method in ``docs/methods/certify.md``). Modules: ``bounds``
(symbolic interval bounds of the network and of the pair difference), ``boxes`` (integer boxes),
``certifying`` (the refinement loop), ``result`` (the :class:`Certificate`), ``trees`` (scikit-learn tree models,
certified by their own boxes).

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=1000, random_state=0)
>>> fair = fairnb.train_demo_model(data, hidden=(8,), max_iter=50, ignore_protected=True)
>>> fairnb.certify(fair, data.domain).summary()["certified_share"]
1.0
"""
from __future__ import annotations

from .certifying import certify
from .result import Certificate

__all__ = ["certify", "Certificate"]

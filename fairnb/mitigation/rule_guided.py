"""Rule-guided mitigation (TestSGD, phase 3): retrain with in-group samples of the label the group lacks.

For the top rule set R* of a TestSGD run (or one you name):

1. the *under-assigned* label y* is the favourable label when the group gets it less often than
   everyone else (``phi_in < phi_out``), the other label otherwise;
2. in-group samples are drawn as in scoring (copy a training record in R*, nudge one non-sensitive
   feature), and those the **original** model labels y* are kept, labelled y*;
3. for each amount of the schedule (``start``, doubling, up to ``max_fraction`` of the training
   set: 50, 100, 200, ..., 10% in the paper) the model is retrained on the training split plus
   that many samples, R* is re-scored with the same TestSGD settings, and the test accuracy measured;
4. the amount with the lowest score whose accuracy is at most ``max_accuracy_drop`` below the
   original is kept (none, if no amount qualifies).

Retraining is ``fairnb.mitigation.retrain_model`` (``mode="finetune"`` continues from the current
weights, ``"scratch"`` starts afresh; Keras, NumpyMLP and scikit-learn built in, ``retrain=f(model, X, y)``
for anything else). ``fairnb.mitigate(model, group_result, data)`` runs this procedure and reports it
beside the individual-discrimination methods.

Example
-------
>>> import fairnb
>>> from fairnb.group import TestSGD
>>> from fairnb.group.planted import make_planted_group
>>> data = make_planted_group(n=2000, random_state=0)
>>> model = fairnb.train_demo_model(data, max_iter=100)
>>> tester = TestSGD(random_state=0)
>>> out = RuleGuidedMitigation(tester, random_state=0).run(model, data, sensitive=["sex", "race"])  # doctest: +SKIP
>>> out.after["score"] < out.before["score"]  # doctest: +SKIP
True
"""
from __future__ import annotations

import html
import time
import warnings
from numbers import Real

import numpy as np
import pandas as pd

from ..group.testsgd import TestSGD, cell_covers
from ..models import wrap
from ..models.training import accuracy
from ..params import COUNT, POSITIVE, RANDOM_STATE, SHARE, Estimator, Interval, Options
from .measures import group_score
from .retrain import MODES, retrain_model


class RuleGuidedMitigation(Estimator):
    """Retrain a model with generated in-group samples until its worst group's score drops.

    Parameters
    ----------
    tester : the TestSGD whose settings find and re-score the rule set (default: ``TestSGD()``).
    max_fraction : most samples added, as a share of the training set (10%).
    start : first amount of the schedule (50); it doubles until ``max_fraction``.
    mode : ``"finetune"`` (continue from the current weights) or ``"scratch"``.
    epochs : training epochs of each retraining.
    learning_rate : optimiser step size of the retraining (Adam).
    max_accuracy_drop : largest accepted drop of test accuracy, as a fraction (0.01 = 1 point).
    max_draws : most in-group samples drawn, as a multiple of the samples needed.
    retrain : optional ``f(model, X, y) -> model`` replacing the built-in retraining.
    random_state : seed of the sampling and of the retraining.
    """

    _parameter_constraints = {"tester": [None, TestSGD], "max_fraction": [Interval(Real, 0, 1, closed="right")],
                              "start": [COUNT], "mode": [Options(MODES)], "epochs": [COUNT],
                              "learning_rate": [POSITIVE], "max_accuracy_drop": [SHARE], "max_draws": [COUNT],
                              "retrain": [None, callable], "random_state": RANDOM_STATE}

    def __init__(self, tester: TestSGD | None = None, max_fraction: float = 0.1, start: int = 50,
                 mode: str = "finetune", epochs: int = 10, learning_rate: float = 1e-3,
                 max_accuracy_drop: float = 0.01, max_draws: int = 200, retrain=None,
                 random_state: int | None = None):
        self.tester = tester
        self.max_fraction = max_fraction
        self.start = start
        self.mode = mode
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.max_accuracy_drop = max_accuracy_drop
        self.max_draws = max_draws
        self.retrain = retrain
        self.random_state = random_state

    def schedule(self, n_train: int) -> list[int]:
        """Amounts tried: ``start``, doubling, then ``max_fraction * n_train``.

        >>> RuleGuidedMitigation().schedule(4000)
        [50, 100, 200, 400]
        """
        cap = int(self.max_fraction * n_train)
        out, k = [], int(self.start)
        while k < cap:
            out.append(k)
            k *= 2
        return out + [cap] if cap >= 1 else out

    def run(self, model, data, rule_set=None, *, sensitive=None) -> "MitigationResult":
        """Mitigate ``model`` on the Dataset ``data`` for ``rule_set`` (default: TestSGD's top one)."""
        self._validate_params()
        if not (hasattr(data, "split") and hasattr(data, "domain")):
            raise TypeError("mitigation needs a fairnb Dataset (training labels and a test split)")
        t0 = time.perf_counter()
        tester = self.tester or TestSGD(random_state=self.random_state)
        original = wrap(model)
        X_train, _, y_train, _ = data.split()
        if rule_set is None:
            rule_set = tester.run(original, data, sensitive=sensitive).best
        before = _row(tester, original, data, rule_set, sensitive)
        fav = tester.favourable                  # binary labels 0/1: the other label is 1 - fav
        target = fav if before["phi_in"] < before["phi_out"] else 1 - fav
        amounts = self.schedule(len(X_train))
        X_new = self._in_group_samples(tester, original, data, rule_set, target, amounts[-1] if amounts else 0,
                                       sensitive)
        rows = [{"added": 0, **before, "kept": True}]
        models = {0: model}
        if amounts and len(X_new) < amounts[-1]:
            warnings.warn(f"found {len(X_new)} in-group samples labelled {target} by the model in "
                          f"{self.max_draws} x {amounts[-1]} draws; the schedule asked for {amounts[-1]}")
        plan = [a for a in amounts if a <= len(X_new)]
        if amounts and 0 < len(X_new) < amounts[-1] and len(X_new) not in plan:
            plan.append(len(X_new))        # fewer samples found than the schedule asks for
        for k in plan:
            X_aug = np.concatenate([X_train, X_new[:k]])
            y_aug = np.concatenate([y_train, np.full(k, target)])
            new = self._retrain(model, X_aug, y_aug)
            models[k] = new
            rows.append({"added": k, **_row(tester, wrap(new), data, rule_set, sensitive)})
        steps = pd.DataFrame(rows)
        ok = steps["accuracy"] >= before["accuracy"] - self.max_accuracy_drop - 1e-12
        best = int(steps[ok].sort_values(["score", "added"]).iloc[0]["added"])
        steps["kept"] = steps["added"] == best
        return MitigationResult(rule_set.text, int(target), steps, models[best], X_new[:best],
                                len(X_new), time.perf_counter() - t0, self.get_params())

    # ------------------------------------------------------------------ parts
    def _in_group_samples(self, tester, model, data, rule_set, target: int, needed: int, sensitive) -> np.ndarray:
        """Up to ``needed`` in-group samples the original model labels ``target``."""
        _, feats, sampler = tester.setup(data, sensitive=sensitive)
        cover = cell_covers(sampler, feats, [rule_set])
        rng = np.random.default_rng(self.random_state)
        kept, drawn = [], 0
        chunk = max(1000, 4 * needed)
        while sum(len(k) for k in kept) < needed and drawn < self.max_draws * max(needed, 1):
            X = sampler.sample(cover, True, chunk, rng)
            drawn += chunk
            kept.append(X[model.predict_proba(X).argmax(axis=1) == target])
        X = np.concatenate(kept) if kept else np.zeros((0, data.domain.n_features))
        return X[:needed]

    def _retrain(self, model, X, y):
        return retrain_model(model, X, y, mode=self.mode, epochs=self.epochs, learning_rate=self.learning_rate,
                             random_state=self.random_state, retrain=self.retrain)


def _row(tester, model, data, rule_set, sensitive) -> dict:
    """Score of ``rule_set`` on ``model`` and the model's test accuracy."""
    _, X_test, _, y_test = data.split()
    return {**group_score(model, data, rule_set, tester, sensitive=sensitive),
            "accuracy": accuracy(model, X_test, y_test)}


class MitigationResult:
    """Before/after numbers of a rule-guided mitigation.

    ``steps`` has one row per amount tried (the kept one flagged), ``model`` is the kept model and
    ``samples`` the generated in-group inputs added to its training data, all labelled ``label``.
    """

    def __init__(self, rule_set: str, label: int, steps: pd.DataFrame, model, samples: np.ndarray, generated: int,
                 elapsed: float, params: dict):
        self.rule_set = rule_set
        self.label = label
        self.steps = steps
        self.model = model
        self.samples = samples
        self.generated = generated
        self.elapsed = elapsed
        self.params = params
        self.before = steps.iloc[0].to_dict()
        self.after = steps[steps["kept"]].iloc[0].to_dict()

    def summary(self) -> dict:
        b, a = self.before, self.after
        return {"rule_set": self.rule_set, "added_label": self.label, "added": int(a["added"]),
                "score_before": round(b["score"], 6), "score_after": round(a["score"], 6),
                "eps_before": round(b["eps"], 6), "eps_after": round(a["eps"], 6),
                "accuracy_before": round(b["accuracy"], 6), "accuracy_after": round(a["accuracy"], 6),
                "generated": self.generated, "seconds": round(self.elapsed, 3)}

    def __repr__(self):
        s = self.summary()
        return (f"MitigationResult({s['rule_set']!r}: score {s['score_before']:.3f} -> {s['score_after']:.3f}, "
                f"accuracy {s['accuracy_before']:.3f} -> {s['accuracy_after']:.3f}, {s['added']} samples added)")

    def _repr_html_(self) -> str:
        s = self.summary()
        table = self.steps.to_html(index=False, float_format=lambda v: f"{v:.3f}", escape=True)
        return (f"<div class='fairnb-mitigation'><b>Rule-guided mitigation of {html.escape(s['rule_set'])}</b>"
                f"<p>score {s['score_before']:.1%} &rarr; {s['score_after']:.1%}, accuracy "
                f"{s['accuracy_before']:.1%} &rarr; {s['accuracy_after']:.1%} with {s['added']} samples labelled "
                f"{s['added_label']}</p>{table}</div>")

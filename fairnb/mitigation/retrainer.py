"""Retrain a model with what a fairness test found, and measure the discrimination left.

``Retrainer(...).fit(model, result, data)`` (or ``fairnb.mitigate(model, result, data, ...)``) works
for the Result of every individual-discrimination search (random, AEQUITAS, SG, ADF, EIDIG,
NeuronFair, MAFT) and for TestSGD's GroupResult; give a dict ``{name: result}`` to compare several
methods in one call. For an individual-discrimination Result, each repeat

1. **selects** a random ``fraction`` of its discriminatory inputs (ADF, EIDIG: 5 %; NeuronFair: 10 %),
2. **labels** them by a named rule (``fairnb.mitigation.labels``; default ``"vote"``),
3. **augments** the training split with them (``augment="input"``: the inputs, as the papers do;
   ``"pair"``: also their counterparts; ``"variants"``: every protected variant, all with the same label),
4. **retrains** the model (``fairnb.mitigation.retrain_model``: ``mode="finetune"`` or ``"scratch"``,
   or your ``retrain=f(model, X, y)``),
5. **measures** accuracy on the held-out split and the discrimination left: the random-sample share
   (always) and, with ``fresh_search=True``, the IDIs a fresh run of the same search finds.

For an image search's Result (``neuronfair_image``, ``adf_image``, ``eidig_image``) ``data`` is the
``ImageDataset`` searched, the seeds should be its training faces, and the defaults follow NeuronFair's
Table 11: all IDIs (``fraction=1``), each labelled with its seed's label (``labels="seed"``: face);
the measures are the detector's ``attribute_auc`` (``fairnb.images.attribute_effect`` on the held-out
faces and their flips by the result's flipper), its ``detection_rate`` and ``accuracy``.

For a GroupResult it runs TestSGD's rule-guided mitigation (``fairnb.mitigation.rule_guided``) on the top
rule set, with ``fraction`` of the training set as the largest amount (10 % in the paper).

The held-out split (``data.split()``'s test rows) never sees a generated sample: the labelling
ensemble is fitted on the training split only, and generated samples identical to a held-out row
are dropped (``report.runs["dropped"]`` counts them).

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> model = fairnb.train_demo_model(data, max_iter=60)
>>> found = fairnb.run_search(model, data.domain, method="random", n_samples=3000, random_state=0)
>>> report = Retrainer(fraction=1.0, labels="variants", epochs=20, n_samples=3000).fit(model, found, data).report_
>>> before, after = report.value("random", "discrimination")
>>> after < before
True
"""
from __future__ import annotations

import time
from numbers import Real

import numpy as np
import pandas as pd

from .. import heap
from ..models import wrap
from ..models.training import accuracy
from ..params import COUNT, POSITIVE, RANDOM_STATE, Estimator, Interval, Options
from .labels import RULES, VoteLabeller, seed_label, variants_label
from .measures import discrimination_rate, idi_count
from .report import MitigationReport
from .retrain import MODES, retrain_model

#: The papers' share of a method's IDIs added to the training data (ADF Table XII and EIDIG: 5 %;
#: NeuronFair Table 7: 10 %); methods without a retraining experiment use ADF's.
PAPER_FRACTION = {"neuronfair": 0.10, "neuronfair_image": 1.0, "adf_image": 1.0, "eidig_image": 1.0}
DEFAULT_FRACTION = 0.05
GROUP_FRACTION = 0.10             # TestSGD: from 50 up to 10 % of the training set
AUGMENT = ("input", "pair", "variants")


class Retrainer(Estimator):
    """Retrain ``model`` with generated samples and report the discrimination before and after.

    Parameters
    ----------
    fraction : share of the result's discriminatory inputs added per repeat, in (0, 1]; default the
        paper's (see ``PAPER_FRACTION``). For a GroupResult: the largest amount, as a share of the
        training set (10 %).
    repeats : independent selections, each retrained and measured (the papers: 5, averaged; default 3, so the
        report has an interval over repeats to set against the control's).
    labels : labelling rule, one of ``"vote"`` (default), ``"variants"``, ``"seed"``, ``"model"``, or
        ``f(X) -> labels`` (see ``fairnb.mitigation.labels``). A GroupResult always uses TestSGD's rule.
    voters : scikit-learn classifiers of the ``"vote"`` rule (default ``labels.default_voters()``).
    augment : ``"input"``, ``"pair"`` or ``"variants"``: what joins the training data.
    mode, epochs, learning_rate, retrain : how the model is retrained (``retrain_model``).
    n_samples : size of the uniform random sample that measures the discrimination share (or ``"all"``).
    fresh_search : also count the IDIs a fresh run of the same search finds (slow: one search per model).
    control : also retrain without any generated sample, the same way and with the same seeds (a row
        ``"control"``, on by default): what retraining alone changes; the report says of each method whether
        it beats that (``MitigationReport.versus_control``) or shows "no effect distinguishable from
        retraining alone".
    keep_samples : keep each repeat's added samples in ``samples_`` (``mitigate``, which returns only the
        report, does not: on images they are the largest thing a retraining holds, ~13 MiB a repeat in tutorial 05).
    random_state : seeds the selection, the retraining and the random sample (the same sample before
        and after, so the comparison is paired).
    """

    _parameter_constraints = {
        "fraction": [None, Interval(Real, 0, 1, closed="right")], "repeats": [COUNT],
        "labels": [None, Options(RULES), callable], "voters": [None, list, tuple], "augment": [Options(AUGMENT)],
        "mode": [Options(MODES)], "epochs": [COUNT], "learning_rate": [POSITIVE], "retrain": [None, callable],
        "n_samples": [COUNT, Options(("all",))], "fresh_search": [bool], "control": [bool],
        "keep_samples": [bool], "random_state": RANDOM_STATE}

    def __init__(self, fraction: float | None = None, repeats: int = 3, labels=None, voters=None,
                 augment: str = "input", mode: str = "finetune", epochs: int = 10, learning_rate: float = 1e-3,
                 retrain=None, n_samples: int | str = 10_000, fresh_search: bool = False, control: bool = True,
                 keep_samples: bool = True, random_state: int | None = 0):
        self.fraction = fraction
        self.repeats = repeats
        self.labels = labels
        self.voters = voters
        self.augment = augment
        self.mode = mode
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.retrain = retrain
        self.n_samples = n_samples
        self.fresh_search = fresh_search
        self.control = control
        self.keep_samples = keep_samples
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting
    def fit(self, model, results, data) -> "Retrainer":
        """Mitigate ``model`` with ``results`` (a Result, a GroupResult, or a dict ``{name: result}``) on
        the Dataset ``data``; sets ``report_`` (a MitigationReport), ``models_`` and ``samples_``
        (per name, one retrained model and one ``(X, y)`` of added samples per repeat; ``samples_`` is empty
        unless ``keep_samples``)."""
        self._validate_params()
        named = _named(results)
        images = any(_is_image(r) for r in named.values())
        if not (hasattr(data, "split") and (hasattr(data, "domain") or images)):
            raise TypeError(f"data must be a fairnb Dataset (training labels and a held-out split), got "
                            f"{type(data).__name__}; e.g. fairnb.datasets.load('census_adf') (images: the ImageDataset)")
        for name, result in named.items():
            _check_result(name, result, data)
        if self.control:
            if "control" in named:
                raise ValueError("a result is named 'control', the name of the control row; rename it")
            named["control"] = _Control(next(iter(named.values())), data)
        X_train, X_test, y_train, y_test = data.split()
        self._split = (X_train, X_test, y_train, y_test)
        if getattr(self, "_voter_data", None) is not data:      # a refit on the same data reuses the ensemble
            self._voter, self._voter_data = None, data
        self._before = {}
        rows, self.models_, self.samples_ = [], {}, {}
        for name, result in named.items():
            t0 = time.perf_counter()
            if isinstance(result, _Control):
                runs = self._fit_control(model, result, data)
            elif _is_group(result):
                runs = self._fit_group(model, result, data)
            else:
                runs = self._fit_individual(model, result, data)
            heap.release()        # the retrainings' copies of the training data are freed: give their pages back
            self.models_[name] = [r.pop("model") for r in runs]
            samples = [r.pop("samples") for r in runs]
            if self.keep_samples:
                self.samples_[name] = samples
            before = self._measure_before(model, result.result if isinstance(result, _Control) else result, data)
            seconds = time.perf_counter() - t0
            rows.append({"method": name, "stage": "before", "repeat": 0, "added": 0, "dropped": 0, **before})
            rows += [{"method": name, "stage": "after", "repeat": i, **r, "seconds": seconds / len(runs)}
                     for i, r in enumerate(runs)]
        self.report_ = MitigationReport(pd.DataFrame(rows), self.get_params(), models=self.models_)
        return self

    def _measure_before(self, model, result, data) -> dict:
        per_result = _is_group(result) or self.fresh_search      # these measures depend on the result
        key = (_domain(result, data).protected_names, id(result) if per_result else None)
        if key not in self._before:
            self._before[key] = self._measure(model, result, data)
        return self._before[key]

    def _measure(self, model, result, data, group_row=None) -> dict:
        """Accuracy on the held-out split and the discrimination measures of ``model``."""
        X_train, X_test, _, y_test = self._split
        domain, model = _domain(result, data), wrap(model)
        if _is_image(result):
            from ..images.fairness import measure_detector

            found = measure_detector(model, data, domain.flipper)
            return {"accuracy": accuracy(model, X_test, y_test), "attribute_auc": found["auc"],
                    "detection_rate": found["detection_rate"], "decisions_changed": found["decisions_changed"]}
        est = discrimination_rate(model, domain, self.n_samples, random_state=self.random_state)
        out = {"accuracy": accuracy(model, X_test, y_test), "discrimination": est.value,
               "discrimination_low": est.low, "discrimination_high": est.high, "samples": est.n}
        if self.fresh_search and not _is_group(result):
            out["idis"] = idi_count(model, result, X_train)
        if _is_group(result):
            from .measures import group_score
            from ..group.testsgd import TestSGD

            g = group_row or group_score(model, data, result.best, TestSGD(**result.params),
                                         sensitive=result.info.get("sensitive"))
            out.update(group_score=g["score"], group_eps=g["eps"])
        return out

    def _fit_control(self, model, control, data) -> list[dict]:
        X_train, _, y_train, _ = self._split
        runs = []
        for seed in self._seeds():
            new = retrain_model(model, X_train, y_train, mode=self.mode, epochs=self.epochs,
                                learning_rate=self.learning_rate, random_state=seed, retrain=self.retrain)
            runs.append({"added": 0, "dropped": 0, "labels": "", **self._measure(new, control.result, data),
                         "model": new, "samples": self._kept(X_train[:0], y_train[:0])})
        return runs

    def _kept(self, X_add, y_add):
        """A repeat's added samples as ``samples_`` keeps them, or None (``keep_samples=False``: let them go)."""
        return (X_add, y_add) if self.keep_samples else None

    def _seeds(self) -> list:
        return [None if self.random_state is None else self.random_state + i for i in range(self.repeats)]

    def _fit_individual(self, model, result, data) -> list[dict]:
        X_train, X_test, y_train, _ = self._split
        fraction = self.fraction or PAPER_FRACTION.get(result.method, DEFAULT_FRACTION)
        n = len(result)
        k = max(1, int(round(fraction * n)))
        rule = self.labels or ("seed" if _is_image(result) else "vote")
        held_out = {row.tobytes() for row in np.asarray(X_test, dtype=float)}
        runs = []
        for seed in self._seeds():
            rows = np.sort(np.random.default_rng(seed).choice(n, size=k, replace=False))
            X_sel, C_sel = result.inputs[rows], result.counterparts[rows]
            y_sel = self._label(rule, model, result, rows, X_sel)
            X_add, y_add = _augment(self.augment, result.domain, X_sel, C_sel, y_sel)
            keep = np.array([row.tobytes() not in held_out for row in X_add], dtype=bool)
            X_add, y_add = _like(X_add[keep], X_train), y_add[keep]
            new = retrain_model(model, np.concatenate([X_train, X_add]), np.concatenate([y_train, y_add]),
                                mode=self.mode, epochs=self.epochs, learning_rate=self.learning_rate,
                                random_state=seed, retrain=self.retrain)
            runs.append({"added": len(X_add), "dropped": int((~keep).sum()), "labels": _rule_name(rule),
                         **self._measure(new, result, data), "model": new, "samples": self._kept(X_add, y_add)})
        return runs

    def _label(self, rule, model, result, rows, X) -> np.ndarray:
        X_train, _, y_train, _ = self._split
        if callable(rule):
            y = np.asarray(rule(X)).astype(np.int64).reshape(-1)
            if y.shape != (len(X),):
                raise ValueError(f"the labels function returned {y.shape[0]} labels for {len(X)} inputs")
            return y
        if rule == "vote":
            v = self._voter
            if v is None or v.protected != tuple(result.domain.protected) or v.voters is not self.voters:
                self._voter = VoteLabeller(self.voters, result.domain.protected, self.random_state).fit(
                    X_train, y_train)
            return self._voter.predict(X).astype(np.int64)
        if rule == "variants":
            return variants_label(model, result.domain, X)
        if rule == "seed":
            return seed_label(result, rows, X_train, y_train)
        return wrap(model).predict_proba(X).argmax(axis=1)          # "model"

    def _fit_group(self, model, result, data) -> list[dict]:
        from ..group.testsgd import TestSGD
        from .rule_guided import RuleGuidedMitigation

        if self.labels not in (None, "model"):
            raise ValueError("a TestSGD GroupResult is mitigated with TestSGD's rule (samples keep the label the "
                             "original model gives them); leave labels unset or 'model'")
        if self.augment != "input":
            raise ValueError("augment must be 'input' for a GroupResult (protected variants would leave the group)")
        runs = []
        for seed in self._seeds():
            mit = RuleGuidedMitigation(TestSGD(**result.params), max_fraction=self.fraction or GROUP_FRACTION,
                                       mode=self.mode, epochs=self.epochs, learning_rate=self.learning_rate,
                                       retrain=self.retrain, random_state=seed)
            out = mit.run(model, data, result.best, sensitive=result.info.get("sensitive"))
            after = self._measure(out.model, result, data, group_row=out.after)
            runs.append({"added": int(out.after["added"]), "dropped": 0, "labels": "model", **after,
                         "model": out.model, "samples": self._kept(out.samples, np.full(len(out.samples), out.label))})
        return runs


def mitigate(model, results, data, **params) -> MitigationReport:
    """``Retrainer(**params).fit(model, results, data).report_``: retrain with what ``results`` found
    (one Result or GroupResult, or a dict ``{name: result}`` to compare methods) and report. The added samples
    are not kept (``Retrainer(keep_samples=True)`` has them)."""
    return Retrainer(**{"keep_samples": False, **params}).fit(model, results, data).report_


# ---------------------------------------------------------------------------------------------- helpers


class _Control:
    """The control row: retraining without generated samples, measured like ``result``."""

    def __init__(self, result, data):
        self.result = result


def _is_image(result) -> bool:
    return getattr(getattr(result, "domain", None), "kind", None) == "image"


def _is_group(result) -> bool:
    return hasattr(result, "rule_sets") and hasattr(result, "best")


def _named(results) -> dict:
    if isinstance(results, dict):
        if not results:
            raise ValueError("results is an empty dict; give {name: result} for at least one method")
        return {str(k): v for k, v in results.items()}
    if isinstance(results, (list, tuple)):
        raise TypeError("give several results as a dict {name: result}, so that the report can name them")
    name = "testsgd" if _is_group(results) else (getattr(results, "method", "") or "search")
    return {name: results}


def _check_result(name, result, data):
    if _is_group(result):
        if not len(result):
            raise ValueError(f"result {name!r}: the TestSGD run scored no rule set, so there is nothing to mitigate")
        return
    if not (hasattr(result, "inputs") and hasattr(result, "domain")):
        raise TypeError(f"result {name!r} is a {type(result).__name__}; expected a fairnb Result (from "
                        "fairnb.run_search) or a TestSGD GroupResult")
    if len(result) == 0:
        raise ValueError(f"result {name!r} holds no discriminatory input, so there is nothing to retrain with; "
                         "search longer or with another method")
    if _is_image(result):
        if tuple(result.domain.item_shape) != tuple(data.X.shape[1:]):
            raise ValueError(f"result {name!r} holds images {result.domain.item_shape}, data's are {data.X.shape[1:]}")
        if result.domain.flipper is None:
            raise ValueError(f"result {name!r} has no attribute flipper to measure the detector with (a loaded "
                             "Result?): result.domain = result.domain.with_flipper(flipper, data)")
        return
    a, b = result.domain, data.domain
    if tuple(a.names) != tuple(b.names) or not (np.array_equal(a.lower, b.lower) and np.array_equal(a.upper, b.upper)):
        raise ValueError(f"result {name!r} was found on another domain ({a.n_features} features {list(a.names)[:4]}"
                         f"...) than data's ({b.n_features} features {list(b.names)[:4]}...); search the model "
                         "on data.domain (or data.with_protected(...).domain)")


def _domain(result, data):
    if _is_group(result):
        return data.domain.with_protected(result.info.get("sensitive") or data.domain.protected)
    return result.domain


def _like(X_add, X_train) -> np.ndarray:
    """The added samples in the training data's float type: float32 images stay float32 (the retrained copy and
    the samples kept per repeat take half the memory; Keras trains in float32 anyway), tables stay float64.

    >>> _like(np.array([[0.1]]), np.zeros((1, 1), np.float32)).dtype, _like(np.array([[1.0]]), np.zeros((1, 1))).dtype
    (dtype('float32'), dtype('float64'))
    """
    floating = np.issubdtype(X_train.dtype, np.floating) and X_train.dtype.itemsize < X_add.dtype.itemsize
    return X_add.astype(X_train.dtype) if floating else X_add


def _augment(how, domain, X, C, y):
    if how == "input":
        return X, y
    if how == "pair":
        return np.concatenate([X, C]), np.concatenate([y, y])
    V = domain.variants(X)
    return V.reshape((-1,) + V.shape[2:]), np.repeat(y, V.shape[1])


def _rule_name(rule) -> str:
    return rule if isinstance(rule, str) else getattr(rule, "__name__", "function")

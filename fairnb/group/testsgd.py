"""TestSGD: find the groups, defined by rules over sensitive features, that a model treats differently.

``TestSGD(...).run(model, data)`` enumerates the frequent rule sets of the training data
(``fairnb.group.rules``), estimates each one's group fairness score by batched sampling with an
error bound (``fairnb.group.scoring``), and returns a ``GroupResult`` ranked by score.

Example
-------
>>> import numpy as np
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0).with_protected(["sex", "race"])
>>> planted = lambda X: ((X[:, 1] == 1) & (X[:, 2] <= 1)).astype(float)   # male and race in {0, 1}
>>> result = TestSGD(random_state=0).run(planted, data)
>>> result.top(1)[["rule_set", "score", "eps"]].to_dict("records")
[{'rule_set': 'sex = male and race in {White, Asian-Pac-Islander}', 'score': 1.0, 'eps': 0.0}]
"""
from __future__ import annotations

import threading
import time
import warnings
from numbers import Integral, Real

import numpy as np

from .. import heap
from ..interrupts import deferred_interrupts
from ..models import wrap
from ..params import COUNT, RANDOM_STATE, SHARE, Estimator, Interval, Options, Satisfies
from .result import GroupResult
from .rules import TooManyRuleSets, count_candidates, frequent_rule_sets, sensitive_features
from .screening import screen
from .scoring import GroupSampler, score_groups


OPEN_UNIT = Interval(Real, 0, 1, closed="neither")


class TestSGD(Estimator):
    """Interpretable testing for subtle group discrimination (Zhang et al., TestSGD), batched.

    The defaults are the paper's.

    Parameters
    ----------
    theta : support threshold; rule sets covering fewer training records are dropped (5%), and so
        are those whose complement (the records outside the group) is below it: comparing a group
        with a handful of records outside it measures noise (see ``fairnb.group.screening``).
    n_bins : equal-width bins of a continuous sensitive feature (K = 10).
    continuous : ``"auto"`` (a feature with more than ``n_bins`` values is continuous) or the names
        of the sensitive features to treat as continuous (interval rules); see ``fairnb.group.rules``.
    error_threshold : stop sampling a rule set when the summed margin is at most this (0.05).
    confidence : per-side confidence; z is its normal quantile rounded to two decimals as in the
        paper (95% gives z = 1.96); the bound on the score holds with ``confidence**2`` (90.25%).
    min_samples : samples per side before the first stopping check (1,000).
    max_samples : hard cap per side (default: ``ceil((z / error_threshold)^2)``, where it surely stops).
    favourable : the label whose rate is compared (1, the positive class).
    step : perturbation of the one non-sensitive feature changed per sample (1 for integer codes).
    round_size : samples per side added per round after the first (batching only; no effect on results' law).
    batch_size : most rows per model call.
    top_k : rule sets shown first in reports (3 in the paper).
    random_state : seed of the sampling.
    """

    __test__ = False   # not a pytest test class, despite the name
    DUPLICATE_OVERLAP = 0.95   # rule sets selecting >= 95% the same records are one group, scored once
    WARN_CANDIDATES = 100_000
    MAX_RULE_SETS = 100_000    # frequent rule sets beyond this are refused (memory and ~2 x min_samples queries each)
    _parameter_constraints = {
        "theta": [SHARE], "n_bins": [Interval(Integral, 2, None, closed="left")],
        "continuous": [Options(("auto",)), list, tuple], "error_threshold": [OPEN_UNIT], "confidence": [OPEN_UNIT],
        "min_samples": [COUNT], "max_samples": [None, COUNT],
        "favourable": [Interval(Integral, 0, None, closed="left")],
        "step": [Satisfies(lambda v: not isinstance(v, bool) and v > 0 and float(v).is_integer(),
                           "a positive whole number (features are integer codes)")],
        "round_size": [COUNT], "batch_size": [COUNT], "top_k": [COUNT], "random_state": RANDOM_STATE}

    def __init__(self, theta: float = 0.05, n_bins: int = 10, continuous="auto", error_threshold: float = 0.05,
                 confidence: float = 0.95, min_samples: int = 1000, max_samples: int | None = None,
                 favourable: int = 1, step: float = 1.0, round_size: int = 128, batch_size: int = 200_000,
                 top_k: int = 3, random_state: int | None = None):
        self.theta = theta
        self.n_bins = n_bins
        self.continuous = continuous
        self.error_threshold = error_threshold
        self.confidence = confidence
        self.min_samples = min_samples
        self.max_samples = max_samples
        self.favourable = favourable
        self.step = step
        self.round_size = round_size
        self.batch_size = batch_size
        self.top_k = top_k
        self.random_state = random_state
        self._stop_event = threading.Event()

    @property
    def z(self) -> float:
        from statistics import NormalDist

        return round(NormalDist().inv_cdf((1 + self.confidence) / 2), 2)

    def stop(self):
        """End a running ``run`` between model calls (safe from another thread); scored rule sets are kept."""
        self._stop_event.set()

    def setup(self, data, domain=None, sensitive=None):
        """``(domain, features, sampler)`` for ``data``: what scoring needs besides the model and rule sets.

        ``data`` is a fairnb ``Dataset`` (its published training split is used) or an array/DataFrame
        of training records, with ``domain`` then required. ``sensitive`` defaults to the domain's
        protected attributes. The parameters are checked here (``_parameter_constraints``).
        """
        self._validate_params()
        X, domain = _training_records(data, domain)
        feats = sensitive_features(domain, sensitive, n_bins=self.n_bins, continuous=self.continuous)
        bins = np.column_stack([f.bins(X[:, f.index]) for f in feats])
        return domain, feats, GroupSampler(X, bins, domain, [f.index for f in feats], self.step)

    def rule_sets(self, data, domain=None, sensitive=None) -> list:
        """The frequent rule sets of ``data`` (Algorithm 1), without scoring them."""
        _, feats, sampler = self.setup(data, domain, sensitive)
        return self._frequent(sampler, feats)

    def _frequent(self, sampler, feats) -> list:
        """The frequent rule sets, or a ``TooManyRuleSets`` error (before memory runs out) saying what to change."""
        try:
            return frequent_rule_sets(sampler.cells, feats, self.theta, weights=sampler.counts,
                                      max_rule_sets=self.MAX_RULE_SETS)
        except TooManyRuleSets as e:
            raise TooManyRuleSets(
                f"TestSGD: {e}; scoring each takes at least {2 * int(self.min_samples):,} model queries. Use fewer "
                f"sensitive features (sensitive=[...]), fewer values per feature (n_bins, or recode a categorical "
                f"feature), a higher theta (now {self.theta:g}), or score chosen ones: run(..., rule_sets=...). "
                f"TestSGD.MAX_RULE_SETS raises the cap.") from None

    def run(self, model, data, domain=None, sensitive=None, *, rule_sets=None, listeners=()) -> GroupResult:
        """Score every frequent rule set of ``data`` (or the given ``rule_sets``) on ``model``.

        Returns the ranked ``GroupResult``. ``listeners`` are called with
        ``(scored, total, elapsed_seconds)`` after every sampling round. Ctrl-C (or ``stop()``) ends the
        scoring early: the ranking of the rule sets scored so far comes back, with ``info["status"]``
        ``"interrupted"`` (or ``"stopped"``) and ``info["partial"]`` True. If the model raises, that
        exception is raised with the partial ``GroupResult`` as its ``.result``. More than
        ``WARN_CANDIDATES`` candidate rule sets give a warning with the estimated count first; more than
        ``MAX_RULE_SETS`` frequent ones raise ``TooManyRuleSets`` (a ``ValueError``) while they are
        enumerated, before memory runs out.
        """
        t0 = time.perf_counter()
        self._stop_event = threading.Event()
        domain, feats, sampler = self.setup(data, domain, sensitive)
        model = wrap(model)
        if rule_sets is None:
            n_candidates = count_candidates(feats)
            if n_candidates > self.WARN_CANDIDATES:
                warnings.warn(f"TestSGD: {len(feats)} sensitive features give {n_candidates:,} candidate rule sets "
                              "before support pruning; enumerating and scoring them may take very long. Use fewer "
                              "sensitive features, fewer bins (n_bins) or a higher theta.", UserWarning, stacklevel=2)
            rule_sets = self._frequent(sampler, feats)
        covers = cell_covers(sampler, feats, rule_sets)
        verdict = screen(covers, sampler.counts, theta=self.theta, overlap=self.DUPLICATE_OVERLAP)
        ok = verdict == "keep"
        skipped = [rs.text for rs, v in zip(rule_sets, verdict) if v in ("empty", "complement below support")]
        aliases = {}   # kept rule set -> the near-identical ones not scored separately
        for rs, v in zip(rule_sets, verdict):
            if v.startswith("duplicate of "):
                aliases.setdefault(rule_sets[int(v.rsplit(" ", 1)[1])].text, []).append(rs.text)
        scorable = [rs for rs, good in zip(rule_sets, ok) if good]
        info = {"n_candidates": count_candidates(feats), "n_frequent": len(rule_sets),
                "skipped": skipped, "aliases": aliases, "class_names": getattr(domain, "class_names", None),
                "training_records": int(sampler.counts.sum()),
                "sensitive": [f.name for f in feats], "kinds": {f.name: f.kind for f in feats}}
        return self._score(model, sampler, covers[ok], scorable, info, t0, listeners)

    def _score(self, model, sampler, rows, rule_sets, info: dict, t0: float, listeners) -> GroupResult:
        """Algorithm 2 for every rule set (``rows[i]`` is what ``sampler.sample`` needs to draw rule set
        ``i``'s samples), ranked into a ``GroupResult`` whose ``info`` adds the run's counters to ``info``."""
        rng = np.random.default_rng(self.random_state)

        def on_round(done):
            for listen in listeners:
                listen(done, len(rule_sets), time.perf_counter() - t0)

        scores = score_groups(model, sampler, rows, rng, favourable=self.favourable, z=self.z,
                              error_threshold=self.error_threshold, min_samples=int(self.min_samples),
                              max_samples=self.max_samples, round_size=int(self.round_size),
                              batch_size=int(self.batch_size), should_stop=self._stop_event.is_set,
                              on_round=on_round)
        info = {**info, "queries": scores.queries,
                "status": scores.ended if scores.ended != "completed" else
                ("stopped" if self._stop_event.is_set() else "completed")}
        info["partial"] = info["status"] != "completed"
        result = GroupResult(rule_sets, scores, z=self.z, confidence=self.confidence, top_k=self.top_k,
                             params=self.get_params(), elapsed=time.perf_counter() - t0, info=info)
        if result.elapsed >= heap.RELEASE_AFTER_S:    # the samples' arrays are freed: give their pages back
            with deferred_interrupts(reraise=False):  # a Ctrl-C now finds the ranking done: it is returned
                heap.release()
        if scores.error is not None:
            scores.error.result = result
            raise scores.error
        return result


def cell_covers(sampler: GroupSampler, features, rule_sets) -> np.ndarray:
    """(r, U) which of the sampler's cells (distinct sensitive-bin combinations) each rule set covers."""
    pos_of = {f.name: p for p, f in enumerate(features)}
    missing = {n for rs in rule_sets for n in rs.features} - set(pos_of)
    if missing:
        raise ValueError(f"rule sets use {sorted(missing)}, which are not among the sensitive features "
                         f"{sorted(pos_of)}")
    for rs in rule_sets:
        for rule in rs.rules:
            f = features[pos_of[rule.feature.name]]
            if (rule.feature.kind, rule.feature.n_bins) != (f.kind, f.n_bins):
                raise ValueError(f"rule {rule.text!r} was made for {rule.feature.n_bins} {rule.feature.kind} bins, "
                                 f"but {f.name!r} now has {f.n_bins} {f.kind} bins (other n_bins or continuous?)")
    covers = [rs.covers(sampler.cells, [pos_of[n] for n in rs.features]) for rs in rule_sets]
    return np.array(covers, dtype=bool).reshape(len(rule_sets), len(sampler.cells))


def _training_records(data, domain):
    """``(X, domain)`` from a Dataset (its training split) or from records plus a domain.

    Records are not checked against the domain's bounds: real encoded data sets have a few values
    outside them, and only the perturbed feature of a sample is clipped.
    """
    if hasattr(data, "split") and hasattr(data, "domain"):
        X, domain = data.split()[0], domain or data.domain
    elif domain is None:
        raise TypeError("pass a fairnb Dataset, or training records together with domain=")
    else:
        X = getattr(data, "values", data)
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as e:
        raise ValueError(f"training records are not numeric: {e}") from None
    if np.isnan(X).any():
        raise ValueError("training records contain NaN")
    if X.ndim != 2 or X.shape[1] != domain.n_features:
        raise ValueError(f"training records have shape {X.shape}; expected (n, {domain.n_features})")
    return X, domain

"""Found pairs as a regression suite: save what a search found, re-check any model on it later.

A *suite* is a saved Result (``result.save_suite(path)``, the files ``Result.save`` writes: the pairs' inputs
and counterparts with the searched model's decisions, the domain, the method and its budget, the seeds, and
the SHA-256 of each file). :func:`check` re-checks a model on it, e.g. the model after a retraining: which
pairs still discriminate the way they did (``same``), which still discriminate the other way (``reversed``:
the counterpart is now the favoured one) and which became fair (``fair``), and the *natural rate* of the
suite's seeds on the model (the share of them discriminatory as they are, with its 95 % Wilson interval)
beside the rate the search measured on the model it searched. A suite whose files changed after saving is
refused, naming the file.

The natural rate is measured on the inputs the search measured it on: the data's rows
(``result.extras["natural_inputs"]``, ``fairnb.search.engine.natural``), else the seeds it kept. A search without
seeds (``random``) measured it on uniform samples of the domain; the check then draws as many (at most
``NATURAL_SAMPLES``) from the domain with a fixed random state, the same inputs at every check. The pair
constraints a search applied are not re-applied: the rate counts every seed with a protected variant that
gets another decision. An image suite's domain is saved without its attribute flipper, which makes the variants:
give ``check`` the domain with it (``domain=suite_domain.with_flipper(flipper)``) to measure its natural rate.

Example
-------
>>> import fairnb, tempfile, os
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> biased = fairnb.train_demo_model(data, random_state=0)
>>> fair = fairnb.train_demo_model(data, ignore_protected=True, random_state=0)
>>> r = fairnb.run_search(biased, data.domain, method="aequitas", n_seeds=200, n_local=20, random_state=0,
...                       seeds=data.seed_inputs())
>>> path = r.save_suite(os.path.join(tempfile.mkdtemp(), "suite.parquet"))
>>> again, now = check(biased, path), check(fair, path)
>>> again.counts()["same"] == len(r), now.counts()["fair"] == len(r), now.natural()["natural_rate"]
(True, True, 0.0)
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from .stats import wilson_interval

NATURAL_SAMPLES = 10_000     # inputs drawn for the natural rate of a suite without seeds
STATUSES = ("same", "reversed", "fair")


def save_suite(result, path) -> Path:
    """Save ``result`` as a suite at ``path`` (``.parquet`` or ``.csv``): ``result.save_suite(path)``, whose
    files hold everything :func:`check` needs and the checksums it verifies."""
    return result.save_suite(path)


def load_suite(path):
    """The Result saved at ``path``, its checksums verified (a changed file is refused, named)."""
    from .results import Result

    return Result.load(path)


class SuiteCheck:
    """A model re-checked on a suite (see :func:`check`): per pair ``status`` (``same``, ``reversed``,
    ``fair``) and the model's class probabilities now (``P_now``, ``PC_now``), the natural rate now and when
    the suite was found, and the suite's ``method``, ``params`` and ``sha256``."""

    def __init__(self, suite, path: Path, P_now: np.ndarray, PC_now: np.ndarray, status: np.ndarray,
                 natural_now: dict):
        self.suite, self.path = suite, path
        self.P_now, self.PC_now, self.status = P_now, PC_now, status
        self._natural_now = natural_now

    @property
    def method(self) -> str:
        return self.suite.method

    @property
    def params(self) -> dict:
        return dict(self.suite.params)

    @property
    def sha256(self) -> str | None:
        """The SHA-256 of the suite's description, which records the SHA-256 of its pairs and seeds (``None`` for
        a suite checked from memory)."""
        return None if self.path is None else json.loads(Path(str(self.path) + ".json").read_text())["sha256"]

    def counts(self) -> dict:
        """``{"pairs", "still", "same", "reversed", "fair"}``: ``still`` = ``same`` + ``reversed``."""
        n = {s: int((self.status == s).sum()) for s in STATUSES}
        return {"pairs": len(self.status), "still": n["same"] + n["reversed"], **n}

    def natural(self) -> dict:
        """The natural rate of the suite's seeds on the checked model (``natural_rate``, ``natural_low``,
        ``natural_high``, ``natural_n``, ``natural_idis``; empty when the suite's domain gives no inputs to
        check) and, as ``found_natural_*``, the rate the search measured on the model it searched."""
        found = {f"found_{k}": v for k, v in self.suite.natural().items() if not k.startswith("control_")}
        return {**self._natural_now, **found}

    def summary(self) -> dict:
        """The check's numbers as a flat, JSON-ready dict."""
        return {"suite": None if self.path is None else str(self.path), "sha256": self.sha256, "method": self.method,
                "protected": list(getattr(self.suite.domain, "protected_names", ())), **self.counts(),
                **self.natural()}

    def worst(self, k: int = 5) -> pd.DataFrame:
        """The ``k`` pairs that still discriminate with the largest gap between their two decisions now
        (decoded, with ``p_now``, ``p'_now``, ``gap_now`` and ``status``), the worst first."""
        gap = np.abs(self.P_now - self.PC_now).sum(axis=1) / 2
        still = np.flatnonzero(self.status != "fair")
        ids = still[np.argsort(-gap[still], kind="stable")[:k]]
        return self.table(ids).assign(gap_now=gap[ids]).sort_values("gap_now", ascending=False, kind="stable")

    def table(self, ids=None) -> pd.DataFrame:
        """The pairs ``ids`` (default all) as ``result.pairs`` shows them, with their probabilities of class 1
        now (``p_now``, ``p'_now``; the top class's for more classes) and ``status``, indexed by pair id."""
        ids = np.arange(len(self.status)) if ids is None else np.asarray(ids, dtype=np.int64)
        frame = self.suite.pairs.iloc[ids].copy()
        k = self.P_now.shape[1]
        frame["p_now"] = self.P_now[ids, 1] if k == 2 else self.P_now[ids].max(axis=1)
        frame["p'_now"] = self.PC_now[ids, 1] if k == 2 else self.PC_now[ids].max(axis=1)
        frame["status"] = self.status[ids]
        return frame.set_axis(pd.Index(ids, name="pair"))

    def __repr__(self):
        c, n = self.counts(), self.natural()
        rate = "" if "natural_rate" not in n else (f"; natural rate {n['natural_rate']:.1%} "
                                                   f"({n['natural_low']:.1%} to {n['natural_high']:.1%})")
        return (f"SuiteCheck({c['still']:,} of {c['pairs']:,} pairs still discriminate ({c['same']:,} the same way, "
                f"{c['reversed']:,} reversed), {c['fair']:,} became fair{rate})")


def check(model, suite, *, oracle=None, domain=None) -> SuiteCheck:
    """Re-check ``model`` (anything ``fairnb.models.wrap`` takes, or a model file's path) on ``suite`` (a path
    :func:`save_suite` wrote, or a Result): every pair in two model calls, the suite's seeds in a few more.

    ``oracle``: the :class:`fairnb.Oracle` to decide with (default: a label flip, as the searches); ``domain``:
    the domain whose variants the natural rate is measured with (default the suite's; needed for an image suite,
    saved without its flipper)."""
    from .models import load_model
    from .oracle import Oracle, in_pieces
    from .results import Result

    if isinstance(suite, Result):
        result, path = suite, None
    else:
        path = Path(suite)
        result = load_suite(path)
    if isinstance(model, (str, Path)):
        model = load_model(model)
    oracle = oracle or Oracle(model, result.domain, validate=False)
    X, C = result.inputs, result.counterparts
    if len(X):      # in pieces that keep each model call within the oracle's memory budget (100,000 images)
        row_bytes = int(np.prod(getattr(result.domain, "item_shape", (1,)))) * 8
        P, PC = (in_pieces(lambda rows: oracle.predict_proba(result.domain.encode(rows)), items, row_bytes=row_bytes)
                 for items in (X, C))
    else:
        P = PC = np.zeros((0, 2))
    a = result._arrays()
    differs = oracle.differs(P, PC[:, None, :])[:, 0] if len(X) else np.zeros(0, bool)
    was = (a["P"].argmax(axis=1), a["PC"].argmax(axis=1))
    same = differs & (P.argmax(axis=1) == was[0]) & (PC.argmax(axis=1) == was[1])
    status = np.where(~differs, "fair", np.where(same, "same", "reversed")).astype(object)
    if domain is not None or getattr(result.domain, "flipper", True) is not None:
        natural = natural_rate(Oracle(oracle.model, domain or result.domain, validate=False, decide=oracle.decide),
                               natural_inputs(result))
    else:
        natural = {}        # an image domain loaded without its flipper cannot make the seeds' variants
    return SuiteCheck(result, path, P, PC, status, natural)


def natural_inputs(result):
    """The inputs whose natural rate a check measures: the data's rows the search measured it on, else the suite's
    seeds, else (a search without seeds) as
    many samples of the domain as the search checked, at most ``NATURAL_SAMPLES``, drawn with random state 0;
    ``None`` when neither is available."""
    for kept in ("natural_inputs", "seeds"):     # the data's rows the search measured, else its seeds
        inputs = result.extras.get(kept)
        if inputs is not None and len(inputs):
            return inputs
    n = min(int(result.extras.get("natural_n") or 0) or NATURAL_SAMPLES, NATURAL_SAMPLES)
    return result.domain.sample(n, np.random.default_rng(0)) if hasattr(result.domain, "sample") else None


def natural_rate(oracle, X, chunk: int = 4096) -> dict:
    """``natural_rate``, ``natural_low``, ``natural_high`` (95 % Wilson), ``natural_n`` (inputs with a protected
    variant) and ``natural_idis`` of the inputs ``X`` as they are; ``{}`` for ``X`` None or empty."""
    if X is None or not len(X):
        return {}
    n = found = 0
    for start in range(0, len(X), chunk):
        verdict = oracle.check(X[start:start + chunk])
        n += int(verdict.comparable.sum())
        found += int(verdict.discriminatory.sum())
    if not n:
        return {}
    low, high = wilson_interval(found, n)
    return {"natural_rate": round(found / n, 6), "natural_low": round(low, 6), "natural_high": round(high, 6),
            "natural_n": n, "natural_idis": found}

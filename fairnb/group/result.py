"""The result of TestSGD: scored rule sets ranked by group fairness score, as a DataFrame.

Columns of ``result.frame`` (one row per rule set, best first):

``rule_set`` readable conjunction; ``n_rules``; ``support`` share of training records in the group;
``n`` samples per side; ``pos_in`` / ``pos_out`` favourable predictions among them;
``phi_in`` / ``phi_out`` the two rates; ``diff = phi_in - phi_out``; ``score = |diff|``;
``eps_in`` / ``eps_out`` / ``eps`` the Wald margins and their sum (the bound on ``score`` at
``confidence**2``); ``converged`` whether ``eps`` reached the threshold.

Ties in score are broken by smaller ``eps``, larger support, then the rule text.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..results import jsonable
from .display import html_table, plot_scores
from .scoring import wald_margin


class GroupResult:
    """Scored rule sets of one TestSGD run; ``frame`` is the ranked DataFrame, ``rule_sets`` the objects."""

    def __init__(self, rule_sets, scores, *, z: float, confidence: float, top_k: int = 3, params=None,
                 elapsed: float = 0.0, info=None):
        n = np.asarray(scores.n)
        scored = n > 0
        n_safe = np.maximum(n, 1)
        phi_in, phi_out = scores.pos_in / n_safe, scores.pos_out / n_safe
        eps_in, eps_out = wald_margin(phi_in, n_safe, z), wald_margin(phi_out, n_safe, z)
        frame = pd.DataFrame({
            "rule_set": [rs.text for rs in rule_sets],
            "n_rules": [len(rs.rules) for rs in rule_sets],
            "support": [rs.support for rs in rule_sets],
            "n": n, "pos_in": scores.pos_in, "pos_out": scores.pos_out,
            "phi_in": phi_in, "phi_out": phi_out, "diff": phi_in - phi_out, "score": np.abs(phi_in - phi_out),
            "eps_in": eps_in, "eps_out": eps_out, "eps": eps_in + eps_out, "converged": scores.converged,
        })[scored]
        frame = frame.sort_values(["score", "eps", "support", "rule_set"], ascending=[False, True, False, True],
                                  kind="mergesort")
        self.rule_sets = [rule_sets[i] for i in frame.index]
        self.frame = frame.reset_index(drop=True)
        self.frame.index = pd.RangeIndex(1, len(frame) + 1, name="rank")
        self.z = z
        self.confidence = confidence
        self.top_k = top_k
        self.params = dict(params or {})
        self.elapsed = float(elapsed)
        self.info = dict(info or {})
        self.info["unscored"] = int((~scored).sum())

    def __len__(self):
        return len(self.frame)

    def __repr__(self):
        head = f"GroupResult({len(self)} rule sets scored in {self.elapsed:.1f} s"
        if not len(self):
            return head + ")"
        top = self.frame.iloc[0]
        return head + f"; top: {top.rule_set!r}, score {top.score:.3f} +- {top.eps:.3f})"

    @property
    def best(self):
        """The top-ranked RuleSet."""
        if not self.rule_sets:
            raise ValueError("no rule set was scored")
        return self.rule_sets[0]

    def top(self, k: int | None = None) -> pd.DataFrame:
        """The ``k`` (default ``top_k``) highest-scoring rule sets."""
        return self.frame.head(self.top_k if k is None else k)

    def summary(self) -> dict:
        """Headline numbers as a JSON-ready dict."""
        out = {"method": "testsgd", "rule_sets_scored": len(self), "candidates": self.info.get("n_candidates"),
               "frequent": self.info.get("n_frequent"), "queries": self.info.get("queries"),
               "seconds": round(self.elapsed, 3), "confidence": round(self.confidence ** 2, 4),
               "status": self.info.get("status", "completed")}
        if len(self):
            top = self.frame.iloc[0]
            out.update({"top_rule_set": top.rule_set, "score": round(float(top.score), 6),
                        "eps": round(float(top.eps), 6), "phi_in": round(float(top.phi_in), 6),
                        "phi_out": round(float(top.phi_out), 6), "support": round(float(top.support), 6),
                        "n": int(top.n)})
        return out

    def to_dict(self) -> dict:
        """Everything (parameters, counters, every scored rule set) as JSON-ready data."""
        return {"summary": self.summary(), "params": jsonable(self.params), "info": jsonable(self.info),
                "rule_sets": jsonable(self.frame.reset_index().to_dict("records"))}

    def save(self, path) -> Path:
        """Write ``to_dict()`` as JSON."""
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=1))
        return path

    def _repr_html_(self) -> str:
        return html_table(self)

    def plot(self, ax=None, top: int = 15):
        """Bar chart of the ``top`` scores with their error bounds; returns the matplotlib Axes."""
        return plot_scores(self, ax=ax, top=top)


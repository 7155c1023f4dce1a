"""Rules over sensitive features, rule sets, and the frequent rule sets of TestSGD (Algorithm 1).

A **rule** constrains one sensitive feature:

* a *categorical* feature with ``k`` values gets one rule per non-empty proper subset of its values
  (``2**k - 2`` rules: race with 5 values gives 30);
* a *continuous* (ordered) feature is cut into ``n_bins`` equal-width bins (``K = 10`` in the paper)
  and gets one rule per run of adjacent bins, the run covering every bin excluded (always true):
  ``K (K + 1) / 2 - 1`` rules, 54 for ``K = 10``. A feature with at most ``n_bins`` integer values
  gets one bin per value.

Which sensitive features are continuous: the ``continuous`` argument names them; ``"auto"`` (the
default) treats a feature as continuous when it has more than ``n_bins`` values and as categorical
otherwise. Encoded data sets often bin ages into a few codes (EIDIG's census age has 4): name such
features in ``continuous`` to get interval rules ("age in [25, 45)") instead of arbitrary subsets.

A **rule set** is a conjunction with at most one rule per sensitive feature; it is *frequent* when
its support (share of training rows satisfying every rule, Eq. 2) is at least ``theta``. Support is
anti-monotone (adding a rule never raises it), so ``frequent_rule_sets`` builds them level by level
(Apriori) and returns exactly what brute-force filtering of all ``prod(|R_s| + 1) - 1`` candidates
would.

Example
-------
>>> import numpy as np
>>> from fairnb.domains import Feature, TabularDomain
>>> dom = TabularDomain([Feature("sex", 0, 1, labels=("female", "male")),
...                      Feature("race", 0, 4, labels=("White", "Asian", "Amer-Indian", "Other", "Black")),
...                      Feature("age", 0, 99), Feature("hours", 0, 99)])
>>> feats = sensitive_features(dom, ["sex", "race", "age"])
>>> [len(f.rules()) for f in feats]
[2, 30, 54]
>>> [r.text for r in feats[2].rules()[8:12]]
['age < 90', 'age in [10, 20)', 'age in [10, 30)', 'age in [10, 40)']
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

KINDS = ("categorical", "continuous")


@dataclass(frozen=True, eq=False)
class SensitiveFeature:
    """A sensitive column of a tabular domain, cut into bins that rules select from.

    ``edges`` holds the ``n_bins + 1`` bin boundaries of a continuous feature (``None`` for a
    categorical one, whose bins are its values).
    """

    index: int
    name: str
    kind: str
    low: int
    high: int
    n_bins: int
    edges: tuple[float, ...] | None = None
    labels: tuple[str, ...] | None = None

    def bins(self, column) -> np.ndarray:
        """Bin number of each value of ``column`` (values outside the bounds go to the end bins)."""
        v = np.asarray(column, dtype=float)
        if self.edges is None or self.n_bins == self.high - self.low + 1:
            b = np.rint(v - self.low)
        else:
            b = np.floor((v - self.low) / ((self.high + 1 - self.low) / self.n_bins))
        return np.clip(b, 0, self.n_bins - 1).astype(np.int64)

    def rules(self) -> list["Rule"]:
        """Every one-feature rule: proper non-empty value subsets, or proper runs of adjacent bins."""
        if self.kind == "categorical":
            chosen = itertools.chain.from_iterable(
                itertools.combinations(range(self.n_bins), k) for k in range(1, self.n_bins))
        else:
            chosen = (tuple(range(a, b)) for a in range(self.n_bins) for b in range(a + 1, self.n_bins + 1)
                      if b - a < self.n_bins)
        return [Rule(self, frozenset(c)) for c in chosen]

    def _value_label(self, b: int) -> str:
        return self.labels[b] if self.labels is not None else str(self.low + b)

    def _edge(self, i: int) -> str:
        return f"{self.edges[i]:.4g}"


@dataclass(frozen=True)
class Rule:
    """``feature`` takes a value in one of the bins ``bins``."""

    feature: SensitiveFeature
    bins: frozenset

    @property
    def mask(self) -> np.ndarray:
        """Boolean over the feature's bins: which bins satisfy the rule."""
        m = np.zeros(self.feature.n_bins, dtype=bool)
        m[sorted(self.bins)] = True
        return m

    @property
    def text(self) -> str:
        """Readable form, e.g. ``race in {Black, Other}``, ``sex = male``, ``age in [20, 40)``, ``age >= 60``.

        A continuous feature with one labelled bin per value shows its labels: ``age in 25-44 .. 45-64``.
        """
        f, chosen = self.feature, sorted(self.bins)
        names = [f._value_label(b) for b in chosen]
        if len(names) == 1 and (f.kind == "categorical" or f.labels is not None):
            return f"{f.name} = {names[0]}"
        if f.kind == "categorical":
            return f"{f.name} in {{{', '.join(names)}}}"
        if f.labels is not None and f.n_bins == f.high - f.low + 1:
            return f"{f.name} in {names[0]} .. {names[-1]}"
        lo, hi = chosen[0], chosen[-1] + 1
        if hi == f.n_bins:
            return f"{f.name} >= {f._edge(lo)}"
        if lo == 0:
            return f"{f.name} < {f._edge(hi)}"
        return f"{f.name} in [{f._edge(lo)}, {f._edge(hi)})"

    def __repr__(self):
        return f"Rule({self.text!r})"


@dataclass(frozen=True)
class RuleSet:
    """A conjunction of rules on distinct sensitive features, with its support in the training data."""

    rules: tuple[Rule, ...]
    support: float = float("nan")

    @property
    def text(self) -> str:
        return " and ".join(r.text for r in self.rules)

    @property
    def features(self) -> tuple[str, ...]:
        return tuple(r.feature.name for r in self.rules)

    def covers(self, bin_rows: np.ndarray, positions: Sequence[int]) -> np.ndarray:
        """Which rows of ``bin_rows`` (bin numbers, one column per sensitive feature) satisfy every rule.

        ``positions[i]`` is the column of ``bin_rows`` holding the feature of ``rules[i]``.
        """
        ok = np.ones(len(bin_rows), dtype=bool)
        for rule, p in zip(self.rules, positions):
            ok &= rule.mask[bin_rows[:, p]]
        return ok

    def __repr__(self):
        return f"RuleSet({self.text!r}, support={self.support:.3f})"


def sensitive_features(domain, sensitive: Iterable[str | int] | None = None, *, n_bins: int = 10,
                       continuous: str | Iterable[str | int] = "auto") -> list[SensitiveFeature]:
    """Describe the sensitive columns of ``domain`` (default: its protected attributes) for rule making.

    ``continuous``: ``"auto"`` (more than ``n_bins`` values means continuous), or the names/indices
    of the features to treat as continuous (every other one is categorical). A feature of kind
    ``"categorical"`` (e.g. an encoded string column) has no order: it always gets set rules, and naming
    it in ``continuous`` is an error.
    """
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 2:
        raise ValueError(f"n_bins must be an integer >= 2, got {n_bins!r}")
    idx = list(domain.protected) if sensitive is None else [domain.index(s) for s in _names(sensitive)]
    if not idx:
        raise ValueError("no sensitive features: pass sensitive=[...] or give the domain protected attributes")
    if len(set(idx)) != len(idx):
        raise ValueError("a sensitive feature is named twice")
    auto = isinstance(continuous, str)
    if auto and continuous != "auto":
        raise ValueError(f"continuous must be 'auto' or a list of feature names, got {continuous!r}")
    cont = set() if auto else {domain.index(c) for c in _names(continuous)}
    unordered = [domain.names[i] for i in sorted(cont) if domain.features[i].kind == "categorical"]
    if unordered:
        raise ValueError(f"continuous={unordered}: categorical features have no order for interval rules; "
                         "leave them out of continuous (they get set rules)")
    out = []
    for i in idx:
        f = domain.features[i]
        n_values = f.high - f.low + 1
        is_cont = (n_values > n_bins and f.kind != "categorical") if auto else i in cont
        if n_values < 2:
            raise ValueError(f"sensitive feature {f.name!r} has a single value; it defines no group")
        if is_cont:
            k = min(n_bins, n_values)
            edges = tuple(np.linspace(f.low, f.high + 1, k + 1)) if k < n_values else \
                tuple(float(v) for v in range(f.low, f.high + 2))
            out.append(SensitiveFeature(i, f.name, "continuous", f.low, f.high, k, edges, f.labels))
        else:
            if n_values > 16:
                raise ValueError(f"categorical feature {f.name!r} has {n_values} values (2**{n_values} - 2 rules); "
                                 "treat it as continuous (continuous=[...]) or recode it")
            out.append(SensitiveFeature(i, f.name, "categorical", f.low, f.high, n_values, None, f.labels))
    return out


def _names(items) -> list:
    if isinstance(items, str):
        return [s.strip() for s in items.split(",") if s.strip()]
    return list(items)


def count_candidates(features: Sequence[SensitiveFeature]) -> int:
    """Number of candidate rule sets before support pruning: ``prod(|R_s| + 1) - 1``."""
    return int(np.prod([len(f.rules()) + 1 for f in features], dtype=object)) - 1


def frequent_rule_sets(bin_rows: np.ndarray, features: Sequence[SensitiveFeature], theta: float = 0.05,
                       weights: np.ndarray | None = None) -> list[RuleSet]:
    """All rule sets whose support in ``bin_rows`` is at least ``theta`` (Algorithm 1, Apriori order).

    ``bin_rows`` has one row per training record (or per distinct record, with ``weights`` its
    count) and one column of bin numbers per feature of ``features``. Rule sets come out level by
    level (one rule, two rules, ...), each level in feature order.

    >>> from fairnb.domains import Feature, TabularDomain
    >>> dom = TabularDomain([Feature("a", 0, 1), Feature("b", 0, 2)])
    >>> feats = sensitive_features(dom, ["a", "b"])
    >>> rows = np.array([[0, 0], [0, 1], [1, 2], [1, 2]])
    >>> found = frequent_rule_sets(rows, feats, theta=0.5)
    >>> len(found), [r.text for r in found if len(r.rules) == 2][:2]
    (10, ['a = 0 and b in {0, 1}', 'a = 1 and b = 2'])
    """
    if not 0.0 <= theta <= 1.0:
        raise ValueError(f"theta (support threshold) must be in [0, 1], got {theta!r}")
    bin_rows = np.asarray(bin_rows, dtype=np.int64)
    if bin_rows.ndim != 2 or bin_rows.shape[1] != len(features):
        raise ValueError(f"bin_rows must have one column per feature ({len(features)}), got shape {bin_rows.shape}")
    if len(bin_rows) and ((bin_rows < 0) | (bin_rows >= [f.n_bins for f in features])).any():
        raise ValueError("bin_rows holds bin numbers outside 0..n_bins-1 of their feature (use feature.bins(values))")
    w = np.ones(len(bin_rows)) if weights is None else np.asarray(weights, dtype=float)
    total = w.sum()
    if total <= 0:
        raise ValueError("no training rows to compute supports from")
    need = theta * total - 1e-9 * total
    singles = []     # per feature: list of (rule, cover) frequent on their own
    for p, f in enumerate(features):
        singles.append([(r, c) for r in f.rules() if w[c := r.mask[bin_rows[:, p]]].sum() >= need])
    level = {((p, j),): c for p, rules in enumerate(singles) for j, (_, c) in enumerate(rules)}
    found = list(level.items())
    while level:
        nxt = {}
        for key, cover in level.items():
            for p in range(key[-1][0] + 1, len(features)):
                for j, (_, c) in enumerate(singles[p]):
                    cand = key + ((p, j),)
                    if any(cand[:i] + cand[i + 1:] not in level for i in range(len(cand) - 1)):
                        continue
                    both = cover & c
                    if w[both].sum() >= need:
                        nxt[cand] = both
        found += nxt.items()
        level = nxt
    return [RuleSet(tuple(singles[p][j][0] for p, j in key), float(w[cover].sum() / total))
            for key, cover in found]

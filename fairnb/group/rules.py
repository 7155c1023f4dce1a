"""Rules over sensitive features, rule sets, and the frequent rule sets of TestSGD (Algorithm 1).

A **rule** constrains one sensitive feature:

* a *categorical* feature with ``k`` values gets one rule per non-empty proper subset of its values
  (``2**k - 2`` rules: race with 5 values gives 30);
* a *continuous* (ordered) feature is cut into ``n_bins`` equal-width bins (``K = 10`` in the paper)
  and gets one rule per run of adjacent bins, the run covering every bin excluded (always true):
  ``K (K + 1) / 2 - 1`` rules, 54 for ``K = 10``. A feature with at most ``n_bins`` integer values
  gets one bin per value.

Which sensitive features are continuous: the ``continuous`` argument names them; ``"auto"`` (the
default) treats a feature as continuous when it has more than ``n_bins`` values, or when its value labels
are numeric intervals (encoded data sets often bin ages into a few codes: EIDIG's census age has 4,
labelled "16-25", "26-45", "46-65", "66+"; ``from_frame(bins=...)`` labels them "[25, 45)"), and as
categorical otherwise. Name features in ``continuous`` (or give ``continuous=[]``) to decide yourself.

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
import re
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
        ordered = n_values > n_bins or interval_labels(f.labels)
        is_cont = (ordered and f.kind != "categorical") if auto else i in cont
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


_NUMBER = r"[-+]?\d+(?:\.\d+)?"
_INTERVAL = re.compile(rf"\s*(?:{_NUMBER}\s*[-\u2013]\s*{_NUMBER}|{_NUMBER}\s*\+|[<>]=?\s*{_NUMBER}"
                       rf"|[\[(]\s*{_NUMBER}\s*,\s*{_NUMBER}\s*[\])])\s*")


def interval_labels(labels) -> bool:
    """True when every value label names a numeric interval (a binned, ordered feature).

    >>> interval_labels(("16-25", "26-45", "46-65", "66+")), interval_labels(("[0, 2.5)", "[2.5, 5]"))
    (True, True)
    >>> interval_labels(("White", "Black")), interval_labels(None)
    (False, False)
    """
    return bool(labels) and all(_INTERVAL.fullmatch(str(label)) for label in labels)


def _names(items) -> list:
    if isinstance(items, str):
        return [s.strip() for s in items.split(",") if s.strip()]
    return list(items)


def count_candidates(features: Sequence[SensitiveFeature]) -> int:
    """Number of candidate rule sets before support pruning: ``prod(|R_s| + 1) - 1``."""
    return int(np.prod([len(f.rules()) + 1 for f in features], dtype=object)) - 1


def frequent_rule_sets(bin_rows: np.ndarray, features: Sequence[SensitiveFeature], theta: float = 0.05,
                       weights: np.ndarray | None = None, max_rule_sets: int | None = None) -> list[RuleSet]:
    """All rule sets whose support in ``bin_rows`` is at least ``theta`` (Algorithm 1, Apriori order).

    ``bin_rows`` has one row per training record (or per distinct record, with ``weights`` its
    count) and one column of bin numbers per feature of ``features``. Rule sets come out level by
    level (one rule, two rules, ...), each level in feature order. More than ``max_rule_sets`` frequent
    rule sets raise ``TooManyRuleSets`` as soon as the count passes it; covers (``len(bin_rows)`` bytes
    each) are kept for one level at a time, so memory stays within about ``max_rule_sets`` of them.

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
    singles = []     # per feature: the rules frequent on their own, and their covers (rules x rows, float)
    for p, f in enumerate(features):
        covers = np.array([r.mask[bin_rows[:, p]] for r in f.rules()], dtype=float).reshape(-1, len(bin_rows))
        keep = covers @ w >= need
        singles.append(([r for r, k in zip(f.rules(), keep) if k], covers[keep]))
    keys = np.array([(p, j) for p, (rules, _) in enumerate(singles) for j in range(len(rules))], np.int64)
    _check_count(len(keys), max_rule_sets, features, 1)
    level = (keys.reshape(-1, 1, 2), np.concatenate([c for _, c in singles]).astype(bool),
             np.concatenate([c @ w for _, c in singles]))
    found, n_found = [(level[0], level[2])], len(keys)      # keys and supports; covers of the last level only
    while len(level[0]):
        level = _extend(level, singles, w, need, lambda n_new, before=n_found, size=level[0].shape[1] + 1:
                        _check_count(before + n_new, max_rule_sets, features, size))
        n_found += len(level[0])
        found.append((level[0], level[2]))
    return [RuleSet(tuple(singles[p][0][j] for p, j in key), float(s / total))
            for keys, sums in found for key, s in zip(keys.tolist(), sums)]


class TooManyRuleSets(ValueError):
    """More frequent rule sets than allowed (``max_rule_sets``): raised while enumerating, before they are kept."""


def _check_count(n_found: int, max_rule_sets: int | None, features, size: int) -> None:
    if max_rule_sets is not None and n_found > max_rule_sets:
        raise TooManyRuleSets(f"more than {max_rule_sets:,} frequent rule sets (already {n_found:,} with up to "
                              f"{size} of the {len(features)} sensitive features, out of {count_candidates(features):,} "
                              "candidates)")


def _extend(level, singles, w: np.ndarray, need: float, on_count=lambda n_new: None):
    """The frequent rule sets one rule larger than those of ``level`` (keys ``(n, size, 2)`` of (feature,
    rule) pairs, covers ``(n, rows)``, weighted supports ``(n,)``), in the order of the keys, then
    feature, then rule. ``on_count`` is told the running number of new ones (and may raise) before
    their covers are built.

    Support is anti-monotone, so extending only frequent rule sets finds every frequent one. The
    supports of a chunk of rule sets extended by every rule of a later feature are one matrix product;
    chunks keep that product within ``fairnb.oracle.MEMORY_BUDGET``.
    """
    from ..oracle import rows_per_call

    keys, covers, _ = level
    flat = np.concatenate([c for _, c in singles]).astype(bool)          # every frequent single rule's cover
    offset = np.cumsum([0] + [len(r) for r, _ in singles])
    step = rows_per_call(8 * (covers.shape[1] + max(len(r) for r, _ in singles)))
    parts, n_new = [], 0
    for a in range(0, len(keys), step):
        K, C = keys[a:a + step], covers[a:a + step]
        weighted = C * w
        hits = []          # (row in chunk, feature, rule, support)
        for p in range(K[:, -1, 0].min() + 1, len(singles)):
            rows = np.flatnonzero(K[:, -1, 0] < p)
            if len(rows) and len(singles[p][0]):
                S = weighted[rows] @ singles[p][1].T
                r, j = np.nonzero(S >= need)
                hits.append(np.column_stack([rows[r], np.full(len(r), p), j, S[r, j]]))
                n_new += len(r)
                on_count(n_new)
        h = np.concatenate(hits) if hits else np.zeros((0, 4))
        h = h[np.lexsort((h[:, 2], h[:, 1], h[:, 0]))]
        row, p, j = h[:, :3].astype(np.int64).T
        parts.append((np.concatenate([K[row], np.column_stack([p, j])[:, None, :]], axis=1),
                      C[row] & flat[offset[p] + j], h[:, 3]))
    return tuple(np.concatenate(x) for x in zip(*parts))

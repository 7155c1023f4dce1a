"""Decision-tree paths as constraints, and SG's two ways of negating them.

A *predicate* is ``x[feature] <= threshold`` or ``x[feature] > threshold`` with a confidence in
[0, 1]: the share of the parent node's samples that went to the branch the predicate selects (the
branch-sample fraction of the ADF re-implementation). A *path* is the list of predicates from the
root to the leaf an input falls in; a *constraint* is a conjunction of predicates (a tuple).

``global_constraints`` (Algorithm 2, lines 23-34): for each non-protected predicate ``c_k`` from the
top, stop at the first with confidence below ``threshold`` (T1), else emit ``c_1 .. c_{k-1} and
not c_k`` (a prefix; protected predicates are neither negated nor kept in the prefix).
``local_constraints`` (lines 10-18): the whole path with one non-protected predicate negated.

``rank`` is the mean confidence of a constraint's predicates. The negated predicate keeps its
original confidence (the paper's text) or gets ``1 - confidence`` (``negated_confidence=
"complement"``, the ADF re-implementation).

Example
-------
>>> path = (Predicate(0, "<=", 4.5, 0.9), Predicate(1, ">", 0.5, 0.2))
>>> [str(c) for c in global_constraints(path, protected=(), threshold=0.3)]
['x0 > 4.5']
>>> [str(c) for c in local_constraints(path, protected=())]
['x0 > 4.5 and x1 > 0.5', 'x0 <= 4.5 and x1 <= 0.5']
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Predicate:
    """``x[feature] <= threshold`` (op ``"<="``) or ``x[feature] > threshold`` (op ``">"``)."""

    feature: int
    op: str
    threshold: float
    confidence: float = 1.0

    def __post_init__(self):
        if self.op not in ("<=", ">"):
            raise ValueError(f"predicate op must be '<=' or '>', got {self.op!r}")

    def negated(self, confidence: float | None = None) -> "Predicate":
        """The opposite predicate (with ``confidence``, default: the same)."""
        return Predicate(self.feature, ">" if self.op == "<=" else "<=", self.threshold,
                         self.confidence if confidence is None else confidence)

    def holds(self, X) -> np.ndarray | bool:
        """Whether rows (or one row) of ``X`` satisfy the predicate."""
        v = np.asarray(X, dtype=float)[..., self.feature]
        return v <= self.threshold if self.op == "<=" else v > self.threshold

    def integer_bounds(self) -> tuple[float, float]:
        """The integer interval the predicate allows: ``x <= t`` is ``x <= floor(t)``, ``x > t`` is ``x >= floor(t) + 1``."""
        t = math.floor(self.threshold)
        return (-math.inf, t) if self.op == "<=" else (t + 1, math.inf)

    def __str__(self):
        return f"x{self.feature} {self.op} {self.threshold:g}"


class Constraint(tuple):
    """A conjunction of predicates; ``str`` joins them with ``and``."""

    def __str__(self):
        return " and ".join(str(p) for p in self)


def tree_path(tree, x) -> tuple[Predicate, ...]:
    """The predicates on the root-to-leaf path of ``x`` in a fitted scikit-learn decision tree.

    The tree decides with ``float32`` inputs; so does this walk, so that ``x`` satisfies every
    predicate of its own path.
    """
    t = tree.tree_
    x32 = np.asarray(x, dtype=np.float32)
    node, path = 0, []
    while t.children_left[node] != -1:
        f, th = int(t.feature[node]), float(t.threshold[node])
        left = bool(x32[f] <= th)
        child = t.children_left[node] if left else t.children_right[node]
        path.append(Predicate(f, "<=" if left else ">", th, float(t.n_node_samples[child] / t.n_node_samples[node])))
        node = child
    return tuple(path)


def _negate(c: Predicate, negated_confidence: str) -> Predicate:
    if negated_confidence == "original":
        return c.negated()
    if negated_confidence == "complement":
        return c.negated(1.0 - c.confidence)
    raise ValueError(f"negated_confidence must be 'original' or 'complement', got {negated_confidence!r}")


def global_constraints(path, protected, threshold: float = 0.3,
                       negated_confidence: str = "original") -> list[Constraint]:
    """SG's global search: prefix and one negated predicate, stopping at confidence < ``threshold``."""
    prefix, out = [], []
    for c in path:
        if c.feature in protected:
            continue
        if c.confidence < threshold:
            break
        out.append(Constraint(prefix + [_negate(c, negated_confidence)]))
        prefix.append(c)
    return out


def local_constraints(path, protected, negated_confidence: str = "original") -> list[Constraint]:
    """SG's local search: the whole path with one non-protected predicate negated (no threshold)."""
    path = list(path)
    return [Constraint(path[:k] + [_negate(c, negated_confidence)] + path[k + 1:])
            for k, c in enumerate(path) if c.feature not in protected]


def rank(constraint) -> float:
    """Mean confidence of the constraint's predicates."""
    return float(np.mean([p.confidence for p in constraint])) if len(constraint) else 0.0


def box(constraint, lower, upper) -> tuple[np.ndarray, np.ndarray]:
    """The integer box ``lo <= x <= hi`` a constraint allows within the bounds (empty when some ``lo > hi``).

    Used as the constraint's identity in SG's visited set: constraints that allow the same integer
    inputs are the same constraint.
    """
    lo, hi = np.array(lower, dtype=float), np.array(upper, dtype=float)
    for p in constraint:
        a, b = p.integer_bounds()
        lo[p.feature] = max(lo[p.feature], a)
        hi[p.feature] = min(hi[p.feature], b)
    return lo, hi

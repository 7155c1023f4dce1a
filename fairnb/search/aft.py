"""AFT (Zhao, Toda, Kitamura, ASE 2024): a decision tree approximates the model; its paths say where to look.

Each loop trains a decision tree (entropy, at most ``max_leaf_nodes`` leaves) on labelled inputs: ``n_train``
uniform random inputs labelled by the model, plus every input the tree has mispredicted since. A leaf is a box of
inputs (one integer interval per feature). Where the tree splits on a protected attribute, a leaf on one side and
a leaf on the other form a *path pair*; a pair can hold discrimination when the two leaves predict different
classes, their protected intervals are disjoint and their other intervals overlap. Up to ``max_paths`` leaves are
taken in random order and their pairs kept, up to ``max_pairs``. Each pair is then sampled: the non-protected
attributes uniformly from the overlap, the protected ones from the first leaf's interval; the oracle checks every
protected variant of the sample (the second leaf's side included). A pair is sampled until ``max_misses`` samples
were mispredicted by the tree or ``max_samples`` were drawn. The mispredicted samples join the training inputs. The
loop starts again from fresh random inputs when it found no pair, no discrimination, or (five loops running) no
misprediction. Only the model's outputs are used. ``docs/methods/aft.md`` is the digest.

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> r = AFT(n_loops=3, n_train=1000, random_state=0).run(fairnb.train_demo_model(data), data.domain)
>>> r.count() > 0 and r.extras["loops"] == 3
True
"""
from __future__ import annotations

from numbers import Integral

import numpy as np

from ..counting import UniqueCounter
from ..params import COUNT, Interval
from ..results import Count, Distinct
from .engine import Batch, Search

STALE_LOOPS = 5    # loops without a misprediction before AFT starts again from fresh random inputs


def leaf_boxes(tree, lower, upper) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """A fitted sklearn tree's leaves as integer boxes: ``(low, high, label, pairs)`` with ``low``/``high`` of shape
    ``(leaves, d)``, each leaf's predicted class, and per internal node ``(feature, left leaves, right leaves)``."""
    t = tree.tree_
    low, high, label, ids = [], [], [], {}
    splits = []

    def walk(node, lo, hi):
        if t.children_left[node] < 0:
            ids[node] = len(low)
            low.append(lo), high.append(hi), label.append(int(np.argmax(t.value[node][0])))
            return [ids[node]]
        f, cut = t.feature[node], int(np.floor(t.threshold[node]))
        left = walk(t.children_left[node], lo, np.where(np.arange(len(hi)) == f, np.minimum(hi, cut), hi))
        right = walk(t.children_right[node], np.where(np.arange(len(lo)) == f, np.maximum(lo, cut + 1), lo), hi)
        splits.append((f, left, right))
        return left + right

    walk(0, np.asarray(lower, dtype=float), np.asarray(upper, dtype=float))
    return np.array(low), np.array(high), np.array(label), splits


class TreeApproximation(Search):
    """The loop that AFT and VBT-X share: decision trees trained on uniform random inputs labelled by the model.

    ``n_loops`` (``None``: until a budget ends the search, ``DEFAULT_LOOPS`` when none is set) and ``n_train`` (the
    random inputs of a fresh start) are the subclasses' parameters."""

    DEFAULT_LOOPS = 20
    domain_needs = ("sample", "bounded")

    def _loops(self) -> int | None:
        if self.n_loops is None and self.max_time is None and self.max_tried is None and self.max_found is None:
            return self.DEFAULT_LOOPS
        return self.n_loops

    @staticmethod
    def _more_loops(ctx, loops: int, n_loops: int | None) -> bool:
        """Another loop? Not past ``n_loops``, nor past a budget: a loop that finds nothing to try yields no batch,
        so the engine, which checks its budgets at each batch, would not end the search."""
        return (n_loops is None or loops < n_loops) and ctx.engine.out_of_budget() is None

    def _labelled(self, ctx, X) -> np.ndarray:
        return ctx.oracle.predict_proba(ctx.domain.encode(X)).argmax(axis=1)

    def _tree(self, X, y, rng):
        """The loop's decision tree, imitating the model's labels ``y`` of ``X`` (entropy splits, at most
        ``max_leaf_nodes`` leaves, its random state drawn from ``rng``)."""
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(criterion="entropy", max_leaf_nodes=self.max_leaf_nodes,
                                      random_state=int(rng.integers(2 ** 31))).fit(X, y)

    def _fresh_start(self, ctx, first: bool) -> tuple[np.ndarray, np.ndarray]:
        """``n_train`` random inputs and their labels; the first ones are also checked as they are, for the
        Result's headline (the share of uniform random inputs discriminatory as they are)."""
        X = ctx.domain.sample(self.n_train, ctx.rng)
        if first:
            ctx.engine.measure_natural(X)
        return X, self._labelled(ctx, X)


class AFT(TreeApproximation):
    """AFT black-box search: path pairs of a decision tree that approximates the model, sampled.

    Parameters
    ----------
    n_loops : loops (tree, pairs, sampling); ``None`` runs until another budget (``max_time``, ``max_tried``,
        ``max_found``) ends the search, or ``DEFAULT_LOOPS`` when none is set (the artifact runs until its time budget).
    n_train : random inputs labelled by the model when AFT (re)starts (5000).
    max_leaf_nodes : leaves of the approximating tree (1000).
    max_paths, max_pairs : leaves examined per loop (10000) and path pairs kept (100).
    max_misses, max_samples : a pair is sampled until the tree mispredicted ``max_misses`` samples (10) or
        ``max_samples`` were drawn (100).
    """

    name = "aft"
    _parameter_constraints = {**Search._parameter_constraints, "n_loops": [None, COUNT], "n_train": [COUNT],
                              "max_leaf_nodes": [Interval(Integral, 2, None, closed="left")], "max_paths": [COUNT],
                              "max_pairs": [COUNT], "max_misses": [COUNT], "max_samples": [COUNT]}

    def __init__(self, n_loops: int | None = None, n_train: int = 5000, max_leaf_nodes: int = 1000,
                 max_paths: int = 10000, max_pairs: int = 100, max_misses: int = 10, max_samples: int = 100, *,
                 max_time: float | None = None, max_tried: int | None = None, max_found: int | None = None,
                 random_state: int | None = None, progress: bool | None = None, constraints="default"):
        self.n_loops, self.n_train, self.max_leaf_nodes = n_loops, n_train, max_leaf_nodes
        self.max_paths, self.max_pairs, self.max_misses, self.max_samples = max_paths, max_pairs, max_misses, max_samples
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress, constraints=constraints)

    def _generate(self, ctx):
        n_loops = self._loops()
        dom, rng = ctx.domain, ctx.rng
        seen, found = UniqueCounter(dom, "eidig"), UniqueCounter(dom, "eidig")
        loops = fresh_starts = stale = 0
        X = y = None
        try:
            while self._more_loops(ctx, loops, n_loops):
                loops += 1
                if X is None:
                    (X, y), fresh_starts = self._fresh_start(ctx, first=not fresh_starts), fresh_starts + 1
                tree = self._tree(X, y, rng)
                pairs = self._pairs(tree, dom, rng)
                if not len(pairs[0]):
                    X = None
                    continue
                missed, hits = yield from self._sample(ctx, pairs, seen, found)
                ctx.result.tally(path_pairs=Count(len(pairs[0])))
                if not hits:
                    X = None
                    continue
                stale = 0 if len(missed) else stale + 1
                if stale >= STALE_LOOPS:
                    X, stale = None, 0
                    continue
                if len(missed):
                    X, y = np.vstack([X, missed]), np.concatenate([y, self._labelled(ctx, missed)])
        finally:
            ctx.result.tally(generated=Distinct(seen), loops=Count(loops), fresh_starts=Count(fresh_starts))

    def _pairs(self, tree, dom, rng):
        """Up to ``max_pairs`` path pairs, as ``(first leaves, second leaves, boxes)``, from up to ``max_paths``
        leaves in random order (each leaf left of a protected split, with its leaves right of that split)."""
        low, high, label, splits = leaf_boxes(tree, dom.lower, dom.upper)
        protected = list(dom.protected)
        partners = {}
        for f, left, right in splits:
            if f in protected:
                for leaf in left:
                    partners.setdefault(leaf, []).extend(right)
        free = dom.non_protected
        first, second = [], []
        for leaf in rng.permutation(len(low))[:self.max_paths]:
            others = np.array(partners.get(int(leaf), []), dtype=int)
            if not len(others):
                continue
            ok = label[others] != label[leaf]
            ok &= (np.maximum(low[others][:, protected], low[leaf, protected])
                   > np.minimum(high[others][:, protected], high[leaf, protected])).any(axis=1)
            ok &= (np.maximum(low[others][:, free], low[leaf, free])
                   <= np.minimum(high[others][:, free], high[leaf, free])).all(axis=1)
            first.extend([leaf] * int(ok.sum()))
            second.extend(others[ok])
            if len(first) >= self.max_pairs:
                break
        first, second = np.array(first[:self.max_pairs], int), np.array(second[:self.max_pairs], int)
        return first, second, (low, high, label)

    def _sample(self, ctx, pairs, seen, found):
        """Sample every pair, one sample per pair and oracle call, until each pair is done; returns the samples the
        tree mispredicted and how many samples were discriminatory."""
        dom, rng = ctx.domain, ctx.rng
        first, second, (low, high, label) = pairs
        P = list(dom.protected)
        lo, hi = np.maximum(low[first], low[second]), np.minimum(high[first], high[second])
        lo[:, P], hi[:, P] = low[first][:, P], high[first][:, P]
        lo2, hi2 = low[second][:, P], high[second][:, P]
        misses, drawn = np.zeros(len(first), int), np.zeros(len(first), int)
        missed, hits = [np.zeros((0, lo.shape[1]))], 0
        while True:
            active = np.flatnonzero((misses < self.max_misses) & (drawn < self.max_samples))
            if not len(active):
                return np.vstack(missed), hits
            x = rng.integers(lo[active].astype(np.int64), hi[active].astype(np.int64) + 1).astype(float)
            x2 = x.copy()      # the second leaf's side: its protected values drawn from that leaf's intervals
            x2[:, P] = rng.integers(lo2[active].astype(np.int64), hi2[active].astype(np.int64) + 1)
            verdict = yield Batch(x, phase="local", seed_ids=-1)
            drawn[active] += 1
            seen.add(x)
            hits += int(verdict.discriminatory.sum())
            found.add(x[verdict.discriminatory])
            y1 = verdict.proba.argmax(axis=1)
            y2 = verdict.variant_proba[np.arange(len(active)), dom.own_variant(x2)].argmax(axis=1)
            wrong1, wrong2 = y1 != label[first[active]], y2 != label[second[active]]
            misses[active] += wrong1.astype(int) + wrong2.astype(int)
            missed += [x[wrong1], x2[wrong2]]

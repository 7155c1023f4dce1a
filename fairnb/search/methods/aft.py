"""AFT (Zhao, Toda, Kitamura, ASE 2024): a decision tree approximates the model; its paths say where to look.

Each loop trains a decision tree (entropy, at most ``max_leaf_nodes`` leaves) on labelled inputs: ``n_train``
uniform random inputs labelled by the model, plus every input the tree has mispredicted since. A leaf is a box of
inputs (one integer interval per feature). Where the tree splits on a protected attribute, a leaf on one side and
a leaf on the other form a *path pair*; a pair can hold discrimination when the two leaves predict different
classes, their protected intervals are disjoint and their other intervals overlap. Up to ``max_paths`` leaves are
taken in random order and their pairs kept, up to ``max_pairs``. Each pair is then sampled: the non-protected
attributes uniformly from the overlap, the protected ones from the first leaf's interval; the oracle checks every
protected variant of the sample (the second leaf's side included). A pair is sampled until ``max_misses`` samples
were mispredicted by the tree or ``max_samples`` were drawn; all pairs are sampled together, in rounds of one oracle
call each, and the samples past a pair's stop are dropped unseen. The mispredicted samples join the training inputs. The
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

from ...counting import UniqueCounter
from ...oracle import rows_per_call, variant_bytes
from ...params import COUNT, Interval
from ...results import Count, Distinct
from ..engine.estimator import Search
from ..engine.types import Batch
from ..engine.sizes import require_fits

STALE_LOOPS = 5    # loops without a misprediction before AFT starts again from fresh random inputs


def leaf_boxes(tree, lower, upper) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A fitted sklearn tree's leaves as integer boxes: ``(low, high, label, splits)``.

    ``low``/``high`` have shape ``(leaves, d)`` (``x <= t`` on the left of a split, ``x >= floor(t) + 1`` on the
    right), ``label`` is each leaf's predicted class (an index into ``tree.classes_``), and ``splits`` holds one row
    ``(feature, start, middle, stop)`` per internal node: the leaves below it are ``start:stop``, those left of its
    split ``start:middle`` and those right of it ``middle:stop`` (the leaves are numbered depth first, left first).
    Computed a tree level at a time from the tree's arrays.

    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.array([[a, s] for a in range(10) for s in (0, 1)], dtype=float)
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, ((X[:, 0] > 4) & (X[:, 1] == 1)).astype(int))
    >>> low, high, label, splits = leaf_boxes(tree, [0, 0], [9, 1])
    >>> low.tolist(), high.tolist(), label.tolist()
    ([[0.0, 0.0], [0.0, 1.0], [5.0, 1.0]], [[9.0, 0.0], [4.0, 1.0], [9.0, 1.0]], [0, 0, 1])
    >>> splits.tolist()      # the root splits feature 1: leaf 0 left, leaves 1 and 2 right; then feature 0
    [[1, 0, 1, 3], [0, 1, 2, 3]]
    """
    t = tree.tree_
    left, right, feature = t.children_left, t.children_right, t.feature
    low, high = np.empty((t.node_count, len(lower))), np.empty((t.node_count, len(lower)))
    low[0], high[0] = lower, upper
    levels, level = [], np.array([0])
    while len(level):                       # top down: each child's box is its parent's, cut at the split
        inner = level[left[level] >= 0]
        levels.append(inner)
        f, cut, a, b = feature[inner], np.floor(t.threshold[inner]), left[inner], right[inner]
        low[a], high[a], low[b], high[b] = low[inner], high[inner], low[inner], high[inner]
        high[a, f] = np.minimum(high[inner, f], cut)
        low[b, f] = np.maximum(low[inner, f], cut + 1)
        level = np.concatenate([a, b])
    leaves = (left < 0).astype(int)         # bottom up: the number of leaves below each node
    for inner in reversed(levels):
        leaves[inner] = leaves[left[inner]] + leaves[right[inner]]
    start = np.zeros(t.node_count, int)     # top down: the depth-first number of each node's first leaf
    for inner in levels:
        start[left[inner]], start[right[inner]] = start[inner], start[inner] + leaves[left[inner]]
    leaf = np.flatnonzero(left < 0)
    leaf = leaf[np.argsort(start[leaf])]
    inner = np.flatnonzero(left >= 0)
    splits = np.column_stack([feature[inner], start[inner], start[right[inner]], start[inner] + leaves[inner]])
    return low[leaf], high[leaf], t.value[leaf, 0].argmax(axis=1), splits


class TreeApproximation(Search):
    """The loop that AFT and VBT-X share: decision trees trained on uniform random inputs labelled by the model.

    Each loop fits a tree and hands it to the subclass's ``_explore(ctx, tree, seen, counts)``, a generator of batches that
    returns the inputs the tree mispredicted and the model's labels of them, or ``None`` when the tree gave nothing
    to build on (the loop then starts again from fresh random inputs, as it does after ``STALE_LOOPS`` loops without
    a misprediction); it adds to ``counts`` (named in the subclass's ``loop_counts``, summed over the loops, in ``extras``) and
    to ``seen`` (the inputs tried). ``n_loops`` (``None``: until a budget ends the search, ``DEFAULT_LOOPS`` when none is set)
    and ``n_train`` (the random inputs of a fresh start) are the subclasses' parameters."""

    DEFAULT_LOOPS = 20
    loop_counts: tuple[str, ...] = ()
    domain_needs = ("sample", "bounded")

    def _loops(self) -> int | None:
        if self.n_loops is None and self.max_time is None and self.max_tried is None and self.max_found is None:
            return self.DEFAULT_LOOPS
        return self.n_loops

    def _generate(self, ctx):
        n_loops = self._loops()
        # the training inputs, their float copy and the tree's float32 copy exist at once
        require_fits(self.name, "n_train", self.n_train, row_bytes=20 * ctx.domain.n_features,
                     what="random inputs labelled to train the tree")
        seen, counts = UniqueCounter(ctx.domain, "eidig"), dict.fromkeys(self.loop_counts, 0)
        loops = fresh_starts = stale = 0
        X = y = None
        try:
            while self._more_loops(ctx, loops, n_loops):
                loops += 1
                if X is None:
                    (X, y), fresh_starts = self._fresh_start(ctx, first=not fresh_starts), fresh_starts + 1
                outcome = yield from self._explore(ctx, self._tree(X, y, ctx.rng), seen, counts)
                if outcome is None:
                    X = None
                    continue
                missed, labels = outcome
                stale = 0 if len(missed) else stale + 1
                if stale >= STALE_LOOPS:
                    X, stale = None, 0
                elif len(missed):
                    X, y = np.vstack([X, missed]), np.concatenate([y, labels])
        finally:
            ctx.result.tally(generated=Distinct(seen), loops=Count(loops), fresh_starts=Count(fresh_starts),
                             **{name: Count(n) for name, n in counts.items()})

    def _explore(self, ctx, tree, seen, counts):
        raise NotImplementedError

    @staticmethod
    def _more_loops(ctx, loops: int, n_loops: int | None) -> bool:
        """Another loop? Not past ``n_loops``, nor past a budget: a loop that finds nothing to try yields no batch,
        so the engine, which checks its budgets at each batch, would not end the search."""
        return (n_loops is None or loops < n_loops) and ctx.engine.out_of_budget() is None

    def _labelled(self, ctx, X) -> np.ndarray:
        return ctx.oracle.predict_proba(ctx.domain.encode(X)).argmax(axis=1)

    def _tree(self, X, y, rng):
        """The loop's decision tree, imitating the model's labels ``y`` of ``X`` (entropy splits, at most
        ``max_leaf_nodes`` leaves, its random state drawn from ``rng``). A tree on n rows has at most n leaves:
        a larger bound is n (scikit-learn sizes the tree's node array by the bound: 10**12 raised MemoryError)."""
        from sklearn.tree import DecisionTreeClassifier

        leaves = None if self.max_leaf_nodes is None else min(self.max_leaf_nodes, max(len(X), 2))
        return DecisionTreeClassifier(criterion="entropy", max_leaf_nodes=leaves,
                                      random_state=int(rng.integers(2 ** 31))).fit(X, y)

    def _fresh_start(self, ctx, first: bool) -> tuple[np.ndarray, np.ndarray]:
        """``n_train`` random inputs and their labels; the first ones are also checked as they are, as random
        draws (``random_rate``: the share of uniform random inputs discriminatory as they are)."""
        X = ctx.domain.sample(self.n_train, ctx.rng)
        if first:
            ctx.engine.measure_random(X)
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
    loop_counts = ("path_pairs",)
    _parameter_constraints = {**Search._parameter_constraints, "n_loops": [None, COUNT], "n_train": [COUNT],
                              "max_leaf_nodes": [Interval(Integral, 2, None, closed="left")], "max_paths": [COUNT],
                              "max_pairs": [COUNT], "max_misses": [COUNT], "max_samples": [COUNT]}

    def __init__(self, n_loops: int | None = None, n_train: int = 5000, max_leaf_nodes: int = 1000,
                 max_paths: int = 10000, max_pairs: int = 100, max_misses: int = 10, max_samples: int = 100, *,
                 max_time: float | None = None, max_tried: int | None = None, max_found: int | None = None,
                 random_state: int | None = None, progress: bool | None = None, constraints="default", control=None):
        self.n_loops, self.n_train, self.max_leaf_nodes = n_loops, n_train, max_leaf_nodes
        self.max_paths, self.max_pairs, self.max_misses, self.max_samples = max_paths, max_pairs, max_misses, max_samples
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress, constraints=constraints, control=control)

    def _explore(self, ctx, tree, seen, counts):
        pairs = self._pairs(tree, ctx.domain, ctx.rng)
        if not len(pairs[0]):
            return None
        counts["path_pairs"] += len(pairs[0])
        missed, labels, hits = yield from self._sample(ctx, pairs, seen)
        return (missed, labels) if hits else None

    def _pairs(self, tree, dom, rng):
        """Up to ``max_pairs`` path pairs, as ``(first leaves, second leaves, boxes)``, from up to ``max_paths``
        leaves in random order (each leaf left of a protected split, with the leaves right of that split, the
        deepest split first)."""
        low, high, label, splits = leaf_boxes(tree, dom.lower, dom.upper)
        protected, free = list(dom.protected), dom.non_protected
        flips = splits[np.isin(splits[:, 0], protected)]
        flips = flips[np.argsort(flips[:, 3] - flips[:, 1], kind="stable")]     # a leaf's deepest split first
        has_flip = np.zeros(len(low), bool)
        for _, start, middle, _ in flips:
            has_flip[start:middle] = True
        first, second = [], []
        leaves = rng.permutation(len(low))[:self.max_paths]
        for leaf in leaves[has_flip[leaves]]:
            others = np.concatenate([np.arange(middle, stop) for _, start, middle, stop in flips
                                     if start <= leaf < middle])
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

    def _sample(self, ctx, pairs, seen):
        """Sample every pair until it is done: ``max_misses`` of its samples mispredicted by the tree, or
        ``max_samples`` drawn. In rounds: each draws the next samples of every unfinished pair, half
        ``max_misses`` of them in the first round (none can be done sooner) and twice as many each round after
        (fewer where a round's rows would pass one model call's ``fairnb.oracle.MEMORY_BUDGET``), all in one oracle
        call that keeps each pair's samples up to its stop and drops the rest unseen, so every
        pair gets the samples that drawing one at a time would give it. Returns the samples the tree mispredicted,
        the model's labels of them, and how many samples were discriminatory."""
        dom, rng = ctx.domain, ctx.rng
        first, second, (low, high, label) = pairs
        P = list(dom.protected)
        lo, hi = np.maximum(low[first], low[second]), np.minimum(high[first], high[second])
        lo[:, P], hi[:, P] = low[first][:, P], high[first][:, P]
        lo2, hi2 = low[second][:, P], high[second][:, P]
        misses, drawn = np.zeros(len(first), int), np.zeros(len(first), int)
        missed, labels, hits = [np.zeros((0, lo.shape[1]))], [np.zeros(0, int)], 0
        chunk, most = -(-self.max_misses // 2), rows_per_call(2 * variant_bytes(dom))   # a round: one model call
        while len(active := np.flatnonzero((misses < self.max_misses) & (drawn < self.max_samples))):
            chunk = min(chunk, max(1, most // len(active)))
            pair = np.repeat(active, np.minimum(chunk, self.max_samples - drawn[active]))
            x = rng.integers(lo[pair].astype(np.int64), hi[pair].astype(np.int64) + 1).astype(float)
            x2 = x.copy()      # the second leaf's side: its protected values drawn from that leaf's intervals
            x2[:, P] = rng.integers(lo2[pair].astype(np.int64), hi2[pair].astype(np.int64) + 1)
            cut = _StopAtMisses(pair, label[first[pair]], label[second[pair]], x2, misses, self.max_misses,
                                ctx.engine.remaining_tried, dom)
            verdict = yield Batch(x, phase="local", seed_ids=-1, keep=cut)
            kept = cut.kept
            drawn += np.bincount(pair[kept], minlength=len(drawn))
            misses += np.bincount(pair[kept], weights=cut.wrong[kept], minlength=len(misses)).astype(int)
            seen.add(x[kept])
            hits += int(verdict.discriminatory.sum())
            one, two = kept & cut.wrong1, kept & cut.wrong2
            missed += [x[one], x2[two]]
            labels += [cut.y1[one], cut.y2[two]]
            chunk *= 2
        return np.vstack(missed), np.concatenate(labels), hits


def drawn_before_stop(pair, wrong, misses, max_misses: int) -> np.ndarray:
    """Which samples a pair draws before it stops at ``max_misses`` mispredictions: ``pair`` (rows grouped by pair,
    in drawing order) names each sample's pair, ``wrong`` its mispredictions (0 to 2), ``misses[pair]`` the pair's
    before these. A sample is drawn while its pair's misses before it are under ``max_misses``.

    >>> drawn_before_stop(np.array([0, 0, 0, 1]), np.array([1, 1, 0, 1]), np.array([0, 9]), 2).tolist()
    [True, True, False, False]
    """
    total = np.cumsum(wrong)
    starts = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]])
    before_group = np.repeat(total[starts] - wrong[starts], np.diff(np.r_[starts, len(wrong)]))
    return misses[pair] + total - wrong - before_group < max_misses


class _StopAtMisses:
    """``Batch.keep`` for a round of AFT's samples: keeps each pair's samples up to its stop
    (:func:`drawn_before_stop`), and no more rows than ``room``; remembers what it saw for the round's bookkeeping
    (``kept``, ``wrong1``/``wrong2``: the tree mispredicted the first/second input, ``wrong``: their sum, and the
    model's labels ``y1``/``y2``)."""

    def __init__(self, pair, label1, label2, x2, misses, max_misses: int, room: float, dom):
        self.pair, self.label1, self.label2, self.x2, self.dom = pair, label1, label2, x2, dom
        self.misses, self.max_misses, self.room = misses, max_misses, room

    def __call__(self, verdict) -> np.ndarray:
        self.y1 = verdict.labels
        self.y2 = verdict.variant_proba[np.arange(len(verdict)), self.dom.own_variant(self.x2)].argmax(axis=1)
        self.wrong1, self.wrong2 = self.y1 != self.label1, self.y2 != self.label2
        self.wrong = self.wrong1.astype(int) + self.wrong2
        kept = drawn_before_stop(self.pair, self.wrong, self.misses, self.max_misses)
        self.kept = kept & (np.cumsum(kept) <= self.room)
        return self.kept

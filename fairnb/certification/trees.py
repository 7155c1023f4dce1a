"""Tree models certified by their own boxes: a box is cut only where a tree cuts the domain.

A fitted scikit-learn tree sends every input down one path to one leaf, and each leaf is a box of inputs. A box of
the domain is *pure* when, for every protected value, each tree of the model sends all its inputs to one leaf:
every input of it then gets the same output under that value, and one input of it, checked by the oracle with each
protected value, decides the whole box, certified (the same decision under every protected value) or falsified
(discriminatory at every input). Before that, bounds can decide a box: for a two-class model the decision is the
sign of a score summed over the trees (``StackedTrees``), and the leaves a tree can still reach from the box bound
what it adds; the box is certified when every protected value's score is provably on one side and the same side,
falsified when one value's is provably above 0 and another's below (its low corner confirmed by the oracle, as
``certify`` does for networks). Any other box is cut where a tree parts it, between ``floor(t)`` and
``floor(t) + 1`` (an integer ``x`` goes left exactly when ``x <= t``): the cut the tree itself makes, on the
parting node whose subtree's scores spread most. For a single tree a complete run's boxes are at most the
common refinement of its partitions under each protected value; a run that ends on its own leaves nothing
undecided, and its falsified boxes hold every discriminatory input (``Certificate.sample(n, "falsified")``
draws from them). An ensemble's refinement can be far larger than a budget allows: the boxes left are
undecided, as for networks, and the bounds hold at any time.

The idea, the input space partitioned by the trees' own boxes with bounds that hold at any time, is BoxQTE's
(Zhao, Toda, Kitamura, "Quantitative Verification of Fairness in Tree Ensembles", arXiv 2512.16386, 2025), which
encodes an ensemble's path tuples for an SMT solver; fairnb walks boxes down the trees with numpy instead
(``docs/methods/certify.md``, section 7).

scikit-learn compares float32 copies of the inputs with the thresholds, so the cut above is the trees' own only
where float32 holds every integer of the domain exactly: bounds within ``FLOAT32_EXACT``.

Example
-------
>>> import numpy as np
>>> from sklearn.tree import DecisionTreeClassifier
>>> X = np.array([[a, s] for a in range(10) for s in (0, 1)], dtype=float)
>>> tree = DecisionTreeClassifier(random_state=0).fit(X, ((X[:, 0] > 4) & (X[:, 1] == 1)).astype(int))
>>> low, high, feature, cut = StackedTrees(tree).cuts(np.array([[0.0, 0.0]]), np.array([[9.0, 1.0]]),
...                                                   np.array([[0.0], [1.0]]), [1])
>>> low.tolist(), high.tolist()          # sex 0: class 0 for sure; sex 1: either class
([[-1.0, -1.0]], [[-1.0, 1.0]])
>>> feature.tolist(), cut.tolist()       # under sex 1 the tree parts the box at a <= 4
([0], [4.0])
"""
from __future__ import annotations

import numpy as np

#: the largest magnitude of a domain bound for a tree: float32 holds every integer up to it exactly
FLOAT32_EXACT = 2 ** 24


def tree_model(model):
    """The fitted scikit-learn tree model that ``model`` is, bare or in fairnb's ``SklearnModel``: a decision tree,
    extra tree, random forest, extra-trees or gradient boosting classifier that
    :class:`~fairnb.models.sklearn_trees.CompiledTrees` takes; None for any other model.

    >>> from sklearn.tree import DecisionTreeClassifier
    >>> tree = DecisionTreeClassifier().fit([[0], [1]], [0, 1])
    >>> tree_model(tree) is tree, tree_model(lambda X: X)
    (True, None)
    """
    from ..models.sklearn import SklearnModel
    from ..models.sklearn_trees import compile_reason

    estimator = model.estimator if isinstance(model, SklearnModel) else model
    if not type(estimator).__module__.startswith("sklearn.") or compile_reason(estimator) is not None:
        return None
    return estimator


class StackedTrees:
    """The trees of a scikit-learn tree model, stacked (``CompiledTrees``), with the bounds of its decision score.

    For a two-class model the decision is class 1 exactly when the score, ``offset`` plus what the leaf reached in
    each tree adds, is above 0 (a forest's or a tree's leaf adds its class-1 fraction minus its class-0 fraction;
    a boosting stage adds ``learning_rate`` times its leaf's value to the initial raw score); ``low`` and ``high``
    hold, per node, the least and the most a leaf below it adds. For more classes there is no such score
    (``low = -inf``, ``high = inf``) and only pure boxes are decided.
    """

    def __init__(self, estimator):
        from ..models.sklearn_trees import CompiledTrees

        c = CompiledTrees(estimator)
        self.n_features, self.roots, self.is_leaf = c.n_features, c.roots, c.is_leaf
        self.feature, self.threshold = c.feature, c.threshold
        self.left, self.right = c.children[0::2], c.children[1::2]
        if c.kind == "boosting":
            binary, adds, self.offset = len(c.init_raw) == 1, c.scaled, float(c.init_raw[0])
        else:
            binary, self.offset = c.n_classes == 2, 0.0
            adds = c.value[:, 1] - c.value[:, 0] if binary else None
        if not binary:
            self.low, self.high = np.full(len(self.feature), -np.inf), np.full(len(self.feature), np.inf)
            return
        self.low = np.where(self.is_leaf, adds, np.inf)
        self.high = np.where(self.is_leaf, adds, -np.inf)
        inner = np.flatnonzero(~self.is_leaf)
        for _ in range(c.depth):                            # a level further up each pass
            self.low[inner] = np.minimum(self.low[self.left[inner]], self.low[self.right[inner]])
            self.high[inner] = np.maximum(self.high[self.left[inner]], self.high[self.right[inner]])

    def cuts(self, lows, highs, values, protected):
        """Bounds and cuts for boxes ``(n, d)``: ``(low, high, feature, cut)``. Under each row of ``values`` (the
        protected columns ``protected`` set to it) every tree walks the box down while all its inputs go one way;
        ``low``/``high`` ``(n, m)`` bound the score by the nodes reached (a leaf, or the node that parts the box),
        ``feature[i] = -1`` when no tree parts box ``i`` under any value (the box is *pure*: every input of it gets
        the same leaves), else the feature and integer cut (``x <= cut`` on one side) of the parting node whose
        subtree's scores spread most (the first one for a model of more classes)."""
        n, m, T, d = len(lows), len(values), len(self.roots), lows.shape[1]
        fixed = np.zeros((m, d))
        fixed[:, list(protected)] = values
        is_protected = np.zeros(d, dtype=bool)
        is_protected[list(protected)] = True
        box, combo = np.repeat(np.arange(n), m * T), np.tile(np.repeat(np.arange(m), T), n)
        node = np.tile(self.roots, n * m)
        parted_feature, parted_cut = np.full(len(node), -1), np.zeros(len(node))
        active = np.flatnonzero(~self.is_leaf[node])
        while len(active):
            at = node[active]
            f, cut = self.feature[at], np.floor(self.threshold[at])
            b, own = box[active], is_protected[f]
            value = fixed[combo[active], f]
            low, high = np.where(own, value, lows[b, f]), np.where(own, value, highs[b, f])
            go_left, go_right = high <= cut, low > cut
            parted = ~go_left & ~go_right
            parted_feature[active[parted]], parted_cut[active[parted]] = f[parted], cut[parted]
            node[active] = np.where(parted, at, np.where(go_left, self.left[at], self.right[at]))
            active = active[~parted]
            active = active[~self.is_leaf[node[active]]]
        low = self.low[node].reshape(n, m, T).sum(axis=2) + self.offset
        high = self.high[node].reshape(n, m, T).sum(axis=2) + self.offset
        spread = np.where(parted_feature >= 0, np.nan_to_num(self.high[node] - self.low[node], posinf=1.0), -1.0)
        pick = np.argmax(spread.reshape(n, m * T), axis=1)
        rows = np.arange(n)
        return (low, high, parted_feature.reshape(n, m * T)[rows, pick], parted_cut.reshape(n, m * T)[rows, pick])


def check_bounds(domain) -> None:
    """The domain's bounds are where the trees' cuts are exact (float32 holds every integer)."""
    reach = max(np.abs(domain.lower).max(), np.abs(domain.upper).max())
    if reach > FLOAT32_EXACT:
        raise ValueError(f"certify cuts a tree's boxes exactly only where float32 holds every integer (bounds within "
                         f"±{FLOAT32_EXACT:,}); this domain reaches {reach:,.0f}")

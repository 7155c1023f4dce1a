"""scikit-learn trees and tree ensembles evaluated by array operations: the same probabilities, fewer calls.

:class:`CompiledTrees` stacks the node arrays of every tree of a fitted ``DecisionTreeClassifier``,
``ExtraTreeClassifier``, ``RandomForestClassifier``, ``ExtraTreesClassifier`` or ``GradientBoostingClassifier``
and walks all rows through all trees together, one numpy step per tree level (rows that reached a leaf are
dropped every few steps). It computes what ``predict_proba`` computes, in the same order:

* the input cast to float32 and compared as ``x <= threshold`` with the float64 thresholds (as the trees do);
* a forest's probabilities are its trees' leaf class fractions summed tree after tree, then divided by the
  number of trees; a tree's are its leaf's fractions;
* a gradient boosting model's raw score is its init estimator's (a constant: the class prior, or zero) plus
  ``learning_rate * leaf value`` added stage after stage, then the model's own loss turns it into
  probabilities (sigmoid, softmax).

Inputs with NaN or infinite values go to the estimator's own ``predict_proba``. :func:`compile_reason` says why
an estimator cannot be compiled (``None`` when it can).

Example
-------
>>> import numpy as np
>>> from sklearn.ensemble import GradientBoostingClassifier
>>> rng = np.random.default_rng(0)
>>> X = rng.integers(0, 10, (200, 3)).astype(float); y = (X[:, 0] + X[:, 1] > 9).astype(int)
>>> gb = GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y)
>>> compiled = CompiledTrees(gb)
>>> bool(np.abs(compiled.predict_proba(X) - gb.predict_proba(X)).max() < 1e-12)
True
"""
from __future__ import annotations

import numpy as np

TREES = ("DecisionTreeClassifier", "ExtraTreeClassifier")
FORESTS = ("RandomForestClassifier", "ExtraTreesClassifier")
BOOSTING = ("GradientBoostingClassifier",)
CHUNK = 2048            # rows walked together: the (rows x trees) index arrays stay in cache
DROP_EVERY = 3          # levels between two removals of the rows that reached a leaf
# SUMMED: numpy reduces an axis other than the last one row after row (its pairwise summation is for the last,
# contiguous axis only), so a sum over axis 0 adds the trees in their order: the forest's and boosting's order.


def compile_reason(estimator) -> str | None:
    """Why ``estimator`` cannot take the compiled path, or ``None`` when it can."""
    kind = type(estimator).__name__
    if not type(estimator).__module__.startswith("sklearn.") or kind not in TREES + FORESTS + BOOSTING:
        return f"{kind} is not a scikit-learn tree, random forest, extra-trees or gradient boosting classifier"
    if not hasattr(estimator, "n_features_in_"):
        return f"{kind} is not fitted"
    if getattr(estimator, "n_outputs_", 1) != 1:
        return f"{kind} has {estimator.n_outputs_} outputs (multi-output); the compiled path takes one"
    if kind in BOOSTING:
        init = estimator.init_
        if not (isinstance(init, str) and init == "zero") and not (
                type(init).__name__ == "DummyClassifier" and init.strategy == "prior"):
            return f"{kind}'s init estimator {type(init).__name__} is not the default class prior (or 'zero')"
        if not (callable(getattr(getattr(estimator, "_loss", None), "predict_proba", None))
                and callable(getattr(estimator, "_raw_predict_init", None))):
            return f"{kind} has no _loss.predict_proba or _raw_predict_init (this scikit-learn version differs)"
    return None


class CompiledTrees:
    """``predict_proba`` of a fitted scikit-learn tree model by array operations (see the module docstring).

    Raises ``ValueError`` naming the reason for an estimator it cannot take (:func:`compile_reason`).
    """

    def __init__(self, estimator):
        reason = compile_reason(estimator)
        if reason is not None:
            raise ValueError(f"cannot compile: {reason}")
        self.estimator = estimator
        kind = type(estimator).__name__
        self.kind = "tree" if kind in TREES else "forest" if kind in FORESTS else "boosting"
        if self.kind == "tree":
            trees = [estimator]
        elif self.kind == "forest":
            trees = list(estimator.estimators_)
        else:
            trees = list(np.asarray(estimator.estimators_).ravel())   # stage after stage, class after class
        self.n_features = int(estimator.n_features_in_)
        self._fitted = _fitted_part(estimator)
        self._stack([t.tree_ for t in trees])
        if self.kind == "boosting":
            K = estimator.estimators_.shape[1]
            self.columns = np.tile(np.arange(K), estimator.estimators_.shape[0])   # the raw column of each tree
            self.learning_rate = float(estimator.learning_rate)
            self.init_raw = estimator._raw_predict_init(np.zeros((1, self.n_features)))[0]   # a constant row
            self.scaled = self.learning_rate * self.value[:, 0]     # what each leaf adds, as sklearn scales it
        else:
            self.n_classes = int(estimator.n_classes_)

    def is_current(self) -> bool:
        """Whether the estimator still holds the trees compiled here (a new ``fit`` replaces them)."""
        return _fitted_part(self.estimator) is self._fitted

    def _stack(self, trees):
        """One array per node field over all trees: a leaf points to itself (a walk that reached it stays)."""
        features, thresholds, children, roots, leaves, values = [], [], [], [], [], []
        offset = 0
        for tree in trees:
            n = tree.node_count
            leaf = tree.children_left < 0
            own = np.arange(n) + offset
            left = np.where(leaf, own, tree.children_left + offset)
            right = np.where(leaf, own, tree.children_right + offset)
            features.append(np.where(leaf, 0, tree.feature))
            thresholds.append(np.where(leaf, np.inf, tree.threshold))
            children.append(np.stack([left, right], axis=1).ravel())
            values.append(tree.value[:, 0, :])
            roots.append(offset)
            leaves.append(leaf)
            offset += n
        self.feature = np.concatenate(features).astype(np.intp)
        self.threshold = np.concatenate(thresholds).astype(np.float64)
        self.children = np.concatenate(children).astype(np.intp)    # node i's left at 2i, right at 2i + 1
        self.roots = np.asarray(roots, dtype=np.intp)
        self.is_leaf = np.concatenate(leaves)
        self.value = np.concatenate(values).astype(np.float64)
        self.depth = max(int(tree.max_depth) for tree in trees)

    def leaves(self, X32: np.ndarray) -> np.ndarray:
        """``(trees, n)``: the stacked index of the leaf each row of ``X32`` (float32 values) reaches in each tree."""
        m, d = X32.shape
        T = len(self.roots)
        X = np.asarray(X32, dtype=np.float64)
        # the roots' level: one column of X for each tree; then tree-major, each tree's rows side by side
        right = X.T.take(self.feature.take(self.roots), axis=0) > self.threshold.take(self.roots)[:, None]
        node = self.children.take(2 * self.roots[:, None] + right).ravel()
        flat, row = X.ravel(), np.tile(np.arange(m) * d, T)
        out = pending = None                             # ``pending``: positions still walking, once some stopped
        for step in range(1, self.depth):
            right = flat.take(row + self.feature.take(node)) > self.threshold.take(node)
            node = self.children.take(2 * node + right)
            if step % DROP_EVERY == DROP_EVERY - 1 and step < self.depth - 1:
                done = self.is_leaf.take(node)
                if pending is None:
                    out, pending = node.copy(), np.flatnonzero(~done)
                else:
                    out[pending[done]] = node[done]
                    pending = pending[~done]
                node, row = node[~done], row[~done]
                if not len(node):
                    break
        if pending is None:
            out = node
        else:
            out[pending] = node
        return out.reshape(T, m)

    def predict_proba(self, X) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X has shape {X.shape}; {type(self.estimator).__name__} takes "
                             f"(n, {self.n_features}) inputs")
        X32 = X.astype(np.float32)
        if not np.isfinite(X32).all():           # NaN (missing-value routing) and infinities: the estimator's own
            return self.estimator.predict_proba(X)
        if self.kind == "boosting":
            raw = np.concatenate([self._raw(X32[s:s + CHUNK]) for s in range(0, len(X32), CHUNK)]) if len(X32) \
                else np.zeros((0, len(self.init_raw)))
            return self.estimator._loss.predict_proba(raw[:, 0] if raw.shape[1] == 1 else raw)
        if not len(X32):
            return np.zeros((0, self.n_classes))
        return np.concatenate([self._proba(X32[s:s + CHUNK]) for s in range(0, len(X32), CHUNK)])

    def _proba(self, X32: np.ndarray) -> np.ndarray:
        terms = self.value.take(self.leaves(X32), axis=0)      # (trees, rows, classes)
        if self.kind == "tree":
            return terms[0, :, :self.n_classes]
        total = np.add.reduce(terms, axis=0)[:, :self.n_classes]    # tree after tree (SUMMED), as the forest adds
        total /= len(self.roots)
        return total

    def _raw(self, X32: np.ndarray) -> np.ndarray:
        leaves = self.leaves(X32)
        raw = np.empty((len(X32), len(self.init_raw)))
        for k, init in enumerate(self.init_raw):
            mine = leaves[self.columns == k] if len(self.init_raw) > 1 else leaves
            terms = np.empty((len(mine) + 1, len(X32)))
            terms[0] = init
            self.scaled.take(mine, out=terms[1:])
            raw[:, k] = np.add.reduce(terms, axis=0)           # stage after stage (SUMMED), as predict_stages adds
        return raw

    def __repr__(self):
        return f"CompiledTrees({type(self.estimator).__name__}, {len(self.roots)} trees, depth {self.depth})"


def _fitted_part(estimator):
    """The object a ``fit`` of ``estimator`` replaces: its trees (``estimators_``) or its one tree (``tree_``)."""
    return estimator.estimators_ if hasattr(estimator, "estimators_") else estimator.tree_

"""Binary gradient boosting evaluated by lookup tables: a few gathers a row instead of a walk through every tree.

A ``GradientBoostingClassifier`` fitted on integer codes in small ranges splits each feature at a few distinct
thresholds, and each shallow tree reads a few features. :class:`BoostingTables` sorts the thresholds of every
feature (a row's *bin* on a feature: how many of them its value exceeds, which is all a tree asks of it), puts the
trees in groups whose features' bins span a small grid, and stores for each group one table: over every cell of
its grid, the sum of its trees' scaled leaf values. A row's raw score is then the init constant plus one table
entry per group. The cell of each group is one float32 matrix product: the row's threshold comparisons
(``x > t``, 0 or 1) times each comparison's step in each group's flat index (integers, exact in float32).

It computes what ``predict_proba`` computes up to the order of the additions (the raw score within
``2 (T + 1) u`` of the sum of the absolute leaf values and init, ``u = 2**-53``, from scikit-learn's stage after
stage sum): every row whose raw score lies within that bound (plus 1e-12) of 0, where the decision could turn,
is evaluated again by :class:`~fairnb.models.sklearn_trees.CompiledTrees` (scikit-learn's own order), so the
decisions are ``predict_proba``'s and the probabilities within a quarter of that bound of its (1e-13 or less for
a hundred trees of Adult's codes). Comparisons are those of the trees:
the input cast to float32, ``x <= threshold`` with float64 thresholds (compared here with each threshold
rounded down to float32, the same outcome). Inputs with NaN or infinite values go to the estimator's own
``predict_proba``. :func:`tables_reason` says why a model is not taken (``None`` when it is).

Example
-------
>>> import numpy as np
>>> from sklearn.ensemble import GradientBoostingClassifier
>>> rng = np.random.default_rng(0)
>>> X = rng.integers(0, 10, (200, 3)).astype(float); y = (X[:, 0] + X[:, 1] > 9).astype(int)
>>> gb = GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y)
>>> tables = BoostingTables(gb)
>>> P = tables.predict_proba(X)
>>> bool(np.abs(P - gb.predict_proba(X)).max() < 1e-12), bool((P.argmax(1) == gb.predict(X)).all())
(True, True)
"""
from __future__ import annotations

import numpy as np

from .sklearn_trees import BOOSTING, CompiledTrees, _fitted_part, compile_reason

MERGE_ENTRIES = 4096        # a group's table grows by taking further trees up to this many entries
TREE_ENTRIES = 65536        # the most entries the table of one tree alone may take
TOTAL_ENTRIES = 1 << 21     # all tables together (flat indices stay exact in float32)
THRESHOLDS = 1024           # distinct (feature, threshold) pairs: the width of the comparison matrix
CHUNK = 1024                # rows evaluated together
_BLAS = None                # threadpoolctl's controller: the products run on one BLAS thread (see predict_proba)


def tables_reason(estimator) -> str | None:
    """Why ``estimator`` cannot be evaluated by :class:`BoostingTables`, or ``None`` when it can."""
    reason = compile_reason(estimator)
    if reason is not None:
        return reason
    kind = type(estimator).__name__
    if kind not in BOOSTING:
        return f"{kind} is not gradient boosting"
    if estimator.estimators_.shape[1] != 1:
        return f"{kind} has {estimator.estimators_.shape[1]} classes; the tables take binary models"
    return _plan(estimator)[1]


def _plan(estimator):
    """``(thresholds, None)``, ``thresholds`` each feature's sorted distinct thresholds, with the groups: a list of
    ``(ranks, trees)`` (``ranks``: feature -> the sorted global ranks of the group's thresholds on it), in the
    order the first tree of each was placed; or ``(None, reason)`` when the tables would be too large."""
    trees = [t.tree_ for t in estimator.estimators_[:, 0]]
    d = int(estimator.n_features_in_)
    inner = [t.feature >= 0 for t in trees]
    thresholds = [np.unique(np.concatenate([t.threshold[t.feature == f] for t in trees])) for f in range(d)]
    width = sum(len(u) for u in thresholds)
    if width > THRESHOLDS:
        return None, f"its trees split at {width} distinct thresholds (the tables take at most {THRESHOLDS})"
    needs = []
    for t, split in zip(trees, inner):
        ranks: dict[int, set] = {}
        for f, th in zip(t.feature[split], t.threshold[split]):
            ranks.setdefault(int(f), set()).add(int(np.searchsorted(thresholds[f], th)))
        if _entries(ranks) > TREE_ENTRIES:
            return None, f"one of its trees alone would need a table of {_entries(ranks):,} entries " \
                         f"(at most {TREE_ENTRIES:,})"
        needs.append(ranks)
    groups: list = []
    for i in sorted(range(len(trees)), key=lambda i: -_entries(needs[i])):   # largest first, then first fit
        best = None
        for group in groups:
            merged = {f: group[0].get(f, set()) | needs[i].get(f, set()) for f in {*group[0], *needs[i]}}
            size = _entries(merged)
            if size <= MERGE_ENTRIES and (best is None or (len(merged), size) < best[0]):
                best = ((len(merged), size), group, merged)
        if best is None:
            groups.append([needs[i], [i]])
        else:
            best[1][0] = best[2]
            best[1][1].append(i)
    total = sum(_entries(ranks) for ranks, _ in groups)
    if total > TOTAL_ENTRIES:
        return None, f"its tables would take {total:,} entries (at most {TOTAL_ENTRIES:,})"
    return (thresholds, [({f: np.array(sorted(r)) for f, r in ranks.items()}, sorted(ids))
                         for ranks, ids in groups]), None


def _entries(ranks: dict) -> int:
    return int(np.prod([len(r) + 1 for r in ranks.values()], dtype=object)) if ranks else 1


class BoostingTables:
    """``predict_proba`` of a fitted binary ``GradientBoostingClassifier`` by lookup tables (see the module
    docstring). Raises ``ValueError`` naming the reason for a model it cannot take (:func:`tables_reason`)."""

    def __init__(self, estimator):
        reason = tables_reason(estimator)
        if reason is not None:
            raise ValueError(f"cannot tabulate: {reason}")
        (thresholds, groups), _ = _plan(estimator)
        self.estimator = estimator
        self.n_features = int(estimator.n_features_in_)
        self.walk = CompiledTrees(estimator)              # scikit-learn's order, for rows near the decision
        self._fitted = _fitted_part(estimator)
        trees = [t.tree_ for t in estimator.estimators_[:, 0]]
        lr = float(estimator.learning_rate)
        self.init = float(self.walk.init_raw[0])
        # each feature's thresholds rounded down to float32 (x32 > t exactly when x32 > t32) and, for each of its
        # bins, a float32 value inside it (the table's cells are evaluated there)
        down = [_round_down32(u) for u in thresholds]
        inside = [np.concatenate([down_f[:1], np.nextafter(down_f, np.float32(np.inf))]) for down_f in down]
        self.columns = np.concatenate([np.full(len(u), f) for f, u in enumerate(thresholds)]).astype(np.intp)
        self.thresholds32 = np.concatenate(down).astype(np.float32) if len(self.columns) else np.zeros(0, np.float32)
        first = np.concatenate([[0], np.cumsum([len(u) for u in thresholds])])   # feature f's first column
        steps = np.zeros((len(self.columns), len(groups)), dtype=np.float32)
        offsets, tables = np.zeros(len(groups), dtype=np.intp), []
        start = 0
        for g, (ranks, ids) in enumerate(groups):
            feats = sorted(ranks)
            shape = [len(ranks[f]) + 1 for f in feats]
            cells = np.indices(shape).reshape(len(feats), -1) if feats else np.zeros((0, 1), dtype=np.intp)
            X = np.zeros((cells.shape[1], self.n_features), dtype=np.float32)
            stride = 1
            for j in reversed(range(len(feats))):        # C order: the last feature varies fastest
                f, R = feats[j], ranks[feats[j]]
                X[:, f] = inside[f][np.concatenate([[0], R + 1])[cells[j]]]
                # crossing global threshold r of feature f moves the cell by ``stride`` when r is one of the group's
                steps[first[f] + R, g] = stride
                stride *= shape[j]
            table = np.zeros(cells.shape[1])
            for i in ids:                                # stage after stage
                table += lr * trees[i].value[_leaves(trees[i], X), 0, 0]
            tables.append(table)
            offsets[g] = start
            start += len(table)
        self.steps, self.offsets = steps, offsets
        self.table = np.concatenate(tables)
        terms = abs(self.init) + sum(float(np.abs(lr * t.value[t.feature < 0, 0, 0]).max()) for t in trees)
        n = len(trees) + 1
        self.band = 2 * n * 2.0 ** -53 / (1 - n * 2.0 ** -53) * terms + 1e-12

    def is_current(self) -> bool:
        """Whether the estimator still holds the trees tabulated here (a new ``fit`` replaces them)."""
        return _fitted_part(self.estimator) is self._fitted

    def predict_proba(self, X) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X has shape {X.shape}; {type(self.estimator).__name__} takes "
                             f"(n, {self.n_features}) inputs")
        X32 = X.astype(np.float32)
        if not np.isfinite(X32).all():           # NaN (missing-value routing) and infinities: the estimator's own
            return self.estimator.predict_proba(X)
        # a chunk's product is large enough for OpenBLAS to share it among threads, whose waits cost more CPU
        # than the product on a busy machine (40 times: 1,024 rows at 3.0 M rows a CPU s on one, 0.13 M on two)
        with _one_blas_thread():
            raw = np.concatenate([self._raw(X32[s:s + CHUNK]) for s in range(0, len(X32), CHUNK)]) if len(X32) \
                else np.zeros(0)
        near = np.flatnonzero(np.abs(raw) <= self.band)
        if len(near):                            # where the decision could turn: scikit-learn's order of additions
            raw[near] = self.walk._raw(X32[near])[:, 0]
        return self.estimator._loss.predict_proba(raw)

    def _raw(self, X32: np.ndarray) -> np.ndarray:
        above = np.greater(X32.take(self.columns, axis=1), self.thresholds32).astype(np.float32)
        cells = (above @ self.steps).astype(np.intp)
        cells += self.offsets
        return self.table.take(cells).sum(axis=1) + self.init

    def __repr__(self):
        return f"BoostingTables({type(self.estimator).__name__}, {len(self.offsets)} tables, " \
               f"{len(self.table):,} entries)"


def _one_blas_thread():
    """A context in which BLAS runs on one thread (as scikit-learn's KMeans does), restored after it."""
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


def _round_down32(values: np.ndarray) -> np.ndarray:
    """The largest float32 at most each float64 value."""
    out = values.astype(np.float32)
    over = out.astype(np.float64) > values
    out[over] = np.nextafter(out[over], np.float32(-np.inf))
    return out


def _leaves(tree, X32: np.ndarray) -> np.ndarray:
    """The leaf of ``tree`` (a fitted ``tree_``) each row of ``X32`` reaches, compared as the tree compares."""
    node = np.zeros(len(X32), dtype=np.intp)
    rows = np.arange(len(X32))
    for _ in range(tree.max_depth):
        split = tree.feature[node] >= 0
        right = X32[rows, np.where(split, tree.feature[node], 0)].astype(np.float64) > tree.threshold[node]
        node = np.where(split, np.where(right, tree.children_right[node], tree.children_left[node]), node)
    return node

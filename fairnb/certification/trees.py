"""A single decision tree, certified exactly: boxes are cut only where the tree cuts the domain.

A fitted scikit-learn decision tree sends every input down one path to one leaf, and each leaf is a box of
inputs. So a box of the domain is decided as soon as, for every protected value, the tree sends all its inputs to
one leaf (the box is *pure*): every input of it then gets that leaf's output under that value, and one input of it,
checked by the oracle with each protected value, decides the whole box, certified (the same decision under every
protected value) or falsified (discriminatory at every input). A box that is not pure is cut where the first path
that parts it crosses a threshold, between ``floor(t)`` and ``floor(t) + 1`` (an integer ``x`` goes left exactly
when ``x <= t``), the cut the tree itself makes. A complete run leaves no box undecided: its boxes are the common
refinement of the tree's partitions under each protected value, and the falsified ones are every region where the
tree discriminates (``Certificate.sample(n, "falsified")`` draws discriminatory inputs from them).

The idea, the input space partitioned by the tree's own boxes and the regions where the protected values disagree
found exactly, is BoxQTE's (Zhao, Toda, Kitamura, "Quantitative Verification of Fairness in Tree Ensembles",
arXiv 2512.16386, 2025) in its one-tree case; ensembles, which BoxQTE handles by SMT, are not taken here
(``docs/methods/certify.md``, "Decision trees").

scikit-learn compares float32 copies of the inputs with the thresholds, so the cut above is the tree's own only
where float32 holds every integer of the domain exactly: bounds within ``FLOAT32_EXACT``.

Example
-------
>>> import numpy as np
>>> from sklearn.tree import DecisionTreeClassifier
>>> X = np.array([[a, s] for a in range(10) for s in (0, 1)], dtype=float)
>>> tree = DecisionTreeClassifier(random_state=0).fit(X, ((X[:, 0] > 4) & (X[:, 1] == 1)).astype(int))
>>> feature, cut = tree_cuts(tree, np.array([[0.0, 0.0]]), np.array([[9.0, 1.0]]), np.array([[0.0], [1.0]]), [1])
>>> feature.tolist(), cut.tolist()          # under sex 1 the tree parts the box at a <= 4
([0], [4.0])
"""
from __future__ import annotations

import numpy as np

#: the largest magnitude of a domain bound for a tree: float32 holds every integer up to it exactly
FLOAT32_EXACT = 2 ** 24


def single_tree(model):
    """The fitted scikit-learn decision tree (``DecisionTreeClassifier``, ``ExtraTreeClassifier``) that ``model``
    is, bare or in fairnb's ``SklearnModel``; None for any other model.

    >>> from sklearn.tree import DecisionTreeClassifier
    >>> tree = DecisionTreeClassifier().fit([[0], [1]], [0, 1])
    >>> single_tree(tree) is tree, single_tree(lambda X: X)
    (True, None)
    """
    from ..models.sklearn import SklearnModel

    estimator = model.estimator if isinstance(model, SklearnModel) else model
    tree = getattr(estimator, "tree_", None)
    if tree is None or not hasattr(estimator, "predict_proba") or not hasattr(tree, "children_left"):
        return None
    return estimator


def tree_cuts(tree, lows, highs, values, protected) -> tuple[np.ndarray, np.ndarray]:
    """Where the tree parts each box: ``(feature, cut)`` of shape ``(n,)``, ``feature[i] = -1`` when box ``i``
    is pure (under each row of ``values``, the protected columns ``protected`` set to it, the tree sends every
    input of the box to one leaf), else the feature and integer cut (``x <= cut`` on one side) of the first
    threshold that parts it, under the first protected value that is not pure. All boxes and protected values go
    down the tree together, a level at a time."""
    t = tree.tree_
    left, right, feature, threshold = t.children_left, t.children_right, t.feature, t.threshold
    n, m, d = len(lows), len(values), lows.shape[1]
    fixed = np.zeros((m, d))
    fixed[:, list(protected)] = values
    is_protected = np.zeros(d, dtype=bool)
    is_protected[list(protected)] = True
    box, combo = np.repeat(np.arange(n), m), np.tile(np.arange(m), n)     # entry k: box k // m, value k % m
    node = np.zeros(n * m, dtype=np.int64)
    parted_feature, parted_cut = np.full(n * m, -1), np.zeros(n * m)
    active = np.flatnonzero(left[node] >= 0)
    while len(active):
        at = node[active]
        f, cut = feature[at], np.floor(threshold[at])
        b, own = box[active], is_protected[f]
        value = fixed[combo[active], f]
        low, high = np.where(own, value, lows[b, f]), np.where(own, value, highs[b, f])
        go_left, go_right = high <= cut, low > cut
        parted = ~go_left & ~go_right
        parted_feature[active[parted]], parted_cut[active[parted]] = f[parted], cut[parted]
        node[active] = np.where(go_left, left[at], right[at])
        active = active[~parted]
        active = active[left[node[active]] >= 0]
    parted_feature, parted_cut = parted_feature.reshape(n, m), parted_cut.reshape(n, m)
    first = np.argmax(parted_feature >= 0, axis=1)                          # the first value that parts the box
    rows = np.arange(n)
    return parted_feature[rows, first], parted_cut[rows, first]


def cut_boxes(lows, highs, feature, cut) -> tuple[np.ndarray, np.ndarray]:
    """Both parts of every box, cut on ``feature[i]`` between ``cut[i]`` and ``cut[i] + 1``: ``(lows, highs)`` of
    ``2 n`` boxes, the lower parts first.

    >>> cut_boxes(np.array([[0.0, 0.0]]), np.array([[9.0, 1.0]]), np.array([0]), np.array([4.0]))[1].tolist()
    [[4.0, 1.0], [9.0, 1.0]]
    """
    rows = np.arange(len(lows))
    upper_lows, lower_highs = lows.copy(), highs.copy()
    lower_highs[rows, feature] = cut
    upper_lows[rows, feature] = cut + 1
    return np.concatenate([lows, upper_lows]), np.concatenate([lower_highs, highs])


def check_tree(tree, domain) -> None:
    """The tree takes the domain's rows as they are, within the bounds where its cuts are exact."""
    if tree.n_features_in_ != domain.n_features:
        raise ValueError(f"the model takes {tree.n_features_in_} inputs but the domain has {domain.n_features} "
                         "features")
    if max(np.abs(domain.lower).max(), np.abs(domain.upper).max()) > FLOAT32_EXACT:
        raise ValueError(f"certify cuts a tree's boxes exactly only where float32 holds every integer (bounds within "
                         f"±{FLOAT32_EXACT:,}); this domain reaches {max(np.abs(domain.lower).max(), np.abs(domain.upper).max()):,.0f}")

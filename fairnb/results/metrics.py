"""The field's metrics of a search's pairs: precision, coverage and diversity (docs/methods/metrics.md).

The harnesses that compare the newer generators (AFT, VBT-X, ExpGA, ...) report, beside how many
discriminatory instances a method found, how many it found per test case generated (*precision*) and how
widely they spread over the input space (*coverage*, *diversity*). fairnb derives them from a Result's
pairs and counters, so every Result has them (also one loaded from a file):

``unique_idi_pairs``
    distinct discriminatory pairs counted as the field counts them, unordered: a pair ``{x, x'}`` and its
    reverse ``{x', x}`` are one. fairnb's two conventions count inputs instead: ``unique_idis_eidig``
    (distinct full inputs, so ``x`` and ``x'`` both found count twice) and ``unique_idis_adf`` (distinct
    inputs without the protected attributes, so every pair that shares them counts once).
``precision``
    ``unique_idi_pairs / tried``: discriminatory pairs per candidate the oracle checked.
``coverage_<k>`` (tabular domains)
    the number of distinct grid cells the found inputs occupy when the range of every non-protected
    feature is cut into ``k`` equal-width bins (a feature with fewer than ``k`` values: one bin per value),
    for ``k`` in ``GRANULARITIES``; at most ``coverage_cells(domain, k)``.
``diversity_distance`` (tabular domains)
    the mean distance between two distinct found inputs over the non-protected features, each feature's
    difference divided by its range and the sum by the number of features (range-normalised L1, in
    [0, 1]), computed exactly over all pairs of inputs.

Text and image domains have no grid of feature ranges: their Results give ``unique_idi_pairs`` and
``precision`` only.

Example
-------
>>> import numpy as np
>>> from fairnb.domains import Feature, TabularDomain
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9), Feature("y", 0, 1)], protected=["sex"])
>>> X = np.array([[0, 0, 0], [1, 0, 0], [0, 9, 1]]); C = np.array([[1, 0, 0], [0, 0, 0], [1, 9, 1]])
>>> unique_pairs(dom, X, C)                      # the first two are one pair and its reverse
2
>>> coverage(dom, X, 2), round(diversity_distance(dom, X), 3)
(2, 1.0)
"""
from __future__ import annotations

import numpy as np

from ..counting import first_occurrences, hashable_keys

GRANULARITIES = (2, 4)      # bins per non-protected feature of the coverage grids


def unique_pairs(domain, X, C) -> int:
    """Distinct unordered pairs ``{X[i], C[i]}`` (a pair and its reverse count once)."""
    return len(pair_rows(domain, X, C))


def pair_rows(domain, X, C) -> np.ndarray:
    """The index of each distinct unordered pair ``{X[i], C[i]}``'s first row: the rows ``unique_idi_pairs``
    counts, so that counts of the pairs' kinds (material, immaterial) add up to it.

    >>> from fairnb.domains import Feature, TabularDomain
    >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
    >>> pair_rows(dom, np.array([[0, 1], [1, 1], [0, 2]]), np.array([[1, 1], [0, 1], [1, 2]])).tolist()
    [0, 2]
    """
    if not len(X):
        return np.zeros(0, np.int64)
    if is_gridded(domain):
        lower, sizes = np.asarray(domain.lower, float), np.asarray(domain.upper, float) - domain.lower + 1
        a, b = _row_codes(np.asarray(X) - lower, sizes), _row_codes(np.asarray(C) - lower, sizes)
        if a is not None:
            return first_occurrences(np.sort(np.column_stack([a, b]), axis=1))
    a, b = hashable_keys(domain.key(X, "eidig")), hashable_keys(domain.key(C, "eidig"))
    return first_occurrences([(p, q) if p <= q else (q, p) for p, q in zip(a, b)])


def _row_codes(M, sizes) -> np.ndarray | None:
    """One int64 per row of ``M`` (non-negative integers below ``sizes`` per column, in mixed radix), or None
    when the codes would not fit in an int64 (then rows are compared as rows).

    >>> _row_codes(np.array([[0, 1], [2, 3]]), np.array([3, 4])).tolist()
    [1, 11]
    """
    sizes = np.asarray(sizes, dtype=float)
    if np.log2(np.maximum(sizes, 1)).sum() >= 62:
        return None
    place = np.ones(len(sizes), dtype=np.int64)          # the product of the sizes of the columns after each
    place[:-1] = np.cumprod(sizes[::-1].astype(np.int64))[::-1][1:]
    return np.rint(np.asarray(M, dtype=float)).astype(np.int64) @ place


def _distinct_rows(M, sizes) -> np.ndarray:
    """The distinct rows of the integer matrix ``M`` (values below ``sizes`` per column)."""
    codes = _row_codes(M, sizes)
    if codes is None:
        return np.unique(M, axis=0)
    return M[np.unique(codes, return_index=True)[1]]


def is_gridded(domain) -> bool:
    """Whether ``domain`` has feature ranges to cut into a grid (a bounded tabular domain)."""
    return all(hasattr(domain, m) for m in ("lower", "upper", "non_protected"))


def _grid(domain, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(columns, lower, values, bins)`` of the non-protected features in a grid of ``k`` bins per feature."""
    cols = np.asarray(domain.non_protected, dtype=int)
    lower = np.asarray(domain.lower, dtype=float)[cols]
    values = np.asarray(domain.upper, dtype=float)[cols] - lower + 1
    return cols, lower, values, np.minimum(k, values)


def grid_cells(domain, X, k: int) -> np.ndarray:
    """``(n, d')`` the grid cell of each input: its bin in each non-protected feature, ``k`` equal-width bins
    over the feature's values (one per value when it has fewer than ``k``).

    >>> from fairnb.domains import Feature, TabularDomain
    >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("age", 10, 19), Feature("y", 0, 1)], protected=["sex"])
    >>> grid_cells(dom, [[0, 10, 0], [1, 14, 1], [0, 15, 1], [0, 19, 0]], 2).tolist()
    [[0, 0], [0, 1], [1, 1], [1, 0]]
    """
    cols, lower, values, bins = _grid(domain, k)
    X = np.asarray(X, dtype=float).reshape(-1, len(domain.lower))[:, cols]
    return np.minimum(np.floor((X - lower) * bins / values), bins - 1).astype(np.int64)


def coverage(domain, X, k: int) -> int:
    """Distinct grid cells (``grid_cells``) that the inputs ``X`` occupy."""
    if not len(X):
        return 0
    return len(_distinct_rows(grid_cells(domain, X, k), _grid(domain, k)[3]))


def coverage_cells(domain, k: int) -> float:
    """How many cells the grid of ``k`` bins per non-protected feature has (a float: it may exceed int64).

    >>> from fairnb.domains import Feature, TabularDomain
    >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9), Feature("y", 0, 2)], protected=["sex"])
    >>> coverage_cells(dom, 4)                       # x: 4 bins, y: its 3 values
    12.0
    """
    return float(np.prod(_grid(domain, k)[3]))


def diversity_distance(domain, X) -> float:
    """Mean range-normalised L1 distance between two distinct inputs of ``X`` over the non-protected
    features (0.0 with fewer than two). Exact over all pairs: per feature, the sum of the differences of
    all pairs of sorted values ``v`` is ``sum_i v_i (2i - n + 1)``.

    >>> from fairnb.domains import Feature, TabularDomain
    >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 4)], protected=["sex"])
    >>> diversity_distance(dom, [[0, 0], [0, 2], [1, 4]])     # |0-2| + |0-4| + |2-4| = 8 over 3 pairs, range 4
    0.6666666666666666
    """
    cols, lower, values, _ = _grid(domain, 1)
    X = _distinct_rows(np.asarray(X, dtype=float).reshape(-1, len(domain.lower))[:, cols] - lower, values)
    n = len(X)
    if n < 2 or not len(cols):
        return 0.0
    span = values - 1
    weights = 2 * np.arange(n) - n + 1
    total = weights @ np.sort(X, axis=0)               # per feature: the sum over all pairs of |difference|
    per_feature = np.divide(total, span, out=np.zeros_like(total), where=span > 0)
    return float(per_feature.sum() / len(cols) / (n * (n - 1) / 2))


def spread(domain, X, C) -> dict:
    """The metrics of the pairs ``(X[i], C[i])`` themselves, as ``summary()`` keys: ``unique_idi_pairs``,
    and on a tabular domain ``coverage_<k>`` and ``diversity_distance`` (see the module docstring); and
    ``pair_rows`` (no summary key): the rows ``unique_idi_pairs`` counts (``pair_rows``)."""
    rows = pair_rows(domain, X, C)
    out = {"unique_idi_pairs": len(rows), "pair_rows": rows}
    if is_gridded(domain):
        out.update({f"coverage_{k}": coverage(domain, X, k) for k in GRANULARITIES})
        out["diversity_distance"] = round(diversity_distance(domain, X), 6)
    return out


def precision(pairs: int, tried: int) -> float:
    """Discriminatory pairs per candidate checked (0.0 before any).

    >>> precision(25, 1000)
    0.025
    """
    return round(pairs / tried, 6) if tried else 0.0


def naturalness(found, reference, *, domain=None, categorical=None, random_state: int = 0) -> dict:
    """LIMI's naturalness of the inputs ``found`` (a Result's found inputs, or rows in the domain's column
    order) against real ``reference`` rows (e.g. the training data): SDMetrics' single-table quality score as
    its version 0.7 computes it, the score the LIMI artifact reports (``docs/methods/limi.md`` §5). In [0, 1],
    higher is more like the data; ``{"naturalness", "column_shapes", "column_pair_trends"}``, NaN without inputs.

    * **column shapes**: per numerical feature ``1 - KS`` (the two-sample Kolmogorov-Smirnov statistic), per
      categorical feature ``1 - TVD`` (total variation distance of the value frequencies); the mean of the two
      groups' means;
    * **column pair trends**: per pair of numerical features ``1 - |r_real - r_found| / 2`` (Pearson's r; a pair
      constant on either side is left out), per other pair ``1 - TVD`` of the two joint frequency tables, a
      numerical feature cut into the 10 equal-width bins of ``numpy.histogram_bin_edges`` over its reference
      values; the mean of the two groups' means;
    * **naturalness**: the mean of the two.

    More ``found`` rows than reference rows are subsampled to as many (``random_state``), as the artifact does.
    ``categorical`` names the categorical features (default: those of kind ``"categorical"``); the others are
    numerical.

    >>> from fairnb.domains import Feature, TabularDomain
    >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
    >>> real = np.array([[i % 2, i % 10] for i in range(100)])
    >>> naturalness(real, real, domain=dom)["naturalness"]
    1.0
    >>> round(naturalness(np.array([[0, 9]] * 50), real, domain=dom)["column_shapes"], 3)   # 1 - KS: 0.5 (sex), 0.1 (x)
    0.3
    """
    from scipy.stats import ks_2samp

    if hasattr(found, "inputs"):                   # a Result
        domain, found = domain or found.domain, found.inputs
    elif domain is None:
        raise TypeError("naturalness: give a Result, or rows of inputs with their domain=...")
    names = [str(n) for n in domain.names]
    if categorical is None:
        categorical = [f.name for f in domain.features if f.kind == "categorical"]
    unknown = sorted(set(categorical) - set(names))
    if unknown:
        raise ValueError(f"naturalness: categorical={unknown} are not features of the domain; its features are {names}")
    X, R = np.asarray(found, dtype=float).reshape(-1, len(names)), np.asarray(reference, dtype=float)
    if R.ndim != 2 or R.shape[1] != len(names) or not len(R):
        raise ValueError(f"naturalness: reference must be rows of {len(names)} features, got shape {R.shape}")
    if not len(X):
        return {"naturalness": float("nan"), "column_shapes": float("nan"), "column_pair_trends": float("nan")}
    if len(X) > len(R):
        X = X[np.random.default_rng(random_state).choice(len(X), len(R), replace=False)]
    is_cat = np.array([n in set(categorical) for n in names])
    shapes = [[1 - ks_2samp(R[:, j], X[:, j]).statistic for j in np.flatnonzero(~is_cat)],
              [_tv_complement(R[:, [j]], X[:, [j]]) for j in np.flatnonzero(is_cat)]]
    binned_R, binned_X = R.copy(), X.copy()
    for j in np.flatnonzero(~is_cat):
        edges = np.histogram_bin_edges(R[:, j])
        binned_R[:, j], binned_X[:, j] = np.digitize(R[:, j], edges), np.digitize(X[:, j], edges)
    correlation, contingency = [], []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            if is_cat[i] or is_cat[j]:
                contingency.append(_tv_complement(binned_R[:, [i, j]], binned_X[:, [i, j]]))
            elif min(np.ptp(R[:, i]), np.ptp(R[:, j]), np.ptp(X[:, i]), np.ptp(X[:, j])) > 0:
                r_real, r_found = np.corrcoef(R[:, i], R[:, j])[0, 1], np.corrcoef(X[:, i], X[:, j])[0, 1]
                correlation.append(1 - abs(r_real - r_found) / 2)
    groups = lambda parts: float(np.mean([np.mean(p) for p in parts if len(p)]))
    shape, trend = groups(shapes), groups([correlation, contingency]) if correlation or contingency else float("nan")
    return {"naturalness": float(np.nanmean([shape, trend])), "column_shapes": shape, "column_pair_trends": trend}


def _tv_complement(R, X) -> float:
    """``1 - TVD`` of the frequencies of the rows of ``R`` and of ``X`` (over the rows either holds)."""
    _, inverse = np.unique(np.concatenate([R, X]), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    p = np.bincount(inverse[:len(R)], minlength=inverse.max() + 1) / len(R)
    q = np.bincount(inverse[len(R):], minlength=inverse.max() + 1) / len(X)
    return float(1 - 0.5 * np.abs(p - q).sum())

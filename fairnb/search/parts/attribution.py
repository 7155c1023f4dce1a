"""Which features a model's decision on an input depends on: LIME's tabular and text explanations, batched.

``lime_ranks`` ranks the features of many inputs at once the way ``lime.LimeTabularExplainer`` with
``discretize_continuous=False`` does for one: samples from N(mean, scale) of reference data (not around the
instance), the instance as the first sample, distances on the standardised samples, the kernel
``sqrt(exp(-dist² / (0.75·sqrt(d))²))`` as sample weights, and a weighted ridge regression (alpha 1, with an
intercept) of the probability of class ``label`` on the standardised samples; features ranked by the absolute
coefficient. One sample set serves every input of a call (LIME draws a fresh one per explanation, from the same
distribution), so a batch costs one model call on the samples plus one on the inputs.

``lime_text_coefficients`` explains token-id rows as LIME's text explainer does (positions as features, words
masked by an unknown word); each text needs its own samples.

Example
-------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> predict = lambda X: np.column_stack([1 - X[:, 2] / 9, X[:, 2] / 9])     # decided by feature 2 alone
>>> X = rng.integers(0, 10, (3, 4)).astype(float)
>>> lime_ranks(predict, X, mean=np.full(4, 4.5), scale=np.full(4, 2.9), rng=rng)[:, 2].tolist()
[0, 0, 0]
"""
from __future__ import annotations

import numpy as np

KERNEL_WIDTH = 0.75     # LIME's kernel width, times sqrt(number of features)
#: multiply-adds of one ``lime_coefficients`` call at most, for a caller that chunks its inputs (``lime_rows``): about
#: a tenth of a second, so that a search between two chunks checks its time budget often enough
LIME_WORK = 2 * 10 ** 8
RIDGE_ALPHA = 1.0       # LIME's default regressor: Ridge(alpha=1)


def _ridge(total, sum_x, sum_y, sum_xx, sum_xy, alpha: float) -> np.ndarray:
    """Per input, the coefficients of a weighted ridge regression with an intercept, from its weighted sums:
    ``total`` (n,) the weights', ``sum_x`` (n, d), ``sum_y`` (n,), ``sum_xx`` (n, d, d) and ``sum_xy`` (n, d)."""
    mean_x, mean_y = sum_x / total[:, None], sum_y / total
    cov = sum_xx - total[:, None, None] * np.einsum("nd,ne->nde", mean_x, mean_x)
    cross = sum_xy - total[:, None] * mean_x * mean_y[:, None]
    return np.linalg.solve(cov + alpha * np.eye(mean_x.shape[1]), cross[..., None])[..., 0]


def lime_coefficients(P_samples, P_inputs, S, s0, *, alpha: float = RIDGE_ALPHA) -> np.ndarray:
    """Per input, the coefficients of LIME's weighted ridge regression: ``S`` (N, d) the standardised samples and
    ``P_samples`` (N,) their outputs, ``s0`` (n, d) the standardised inputs and ``P_inputs`` (n,) theirs. Each
    input's regression uses its own row plus the samples, weighted by LIME's kernel of the distance to it."""
    n, d = s0.shape
    width = KERNEL_WIDTH * np.sqrt(d)
    dist2 = (S ** 2).sum(1)[None, :] - 2 * s0 @ S.T + (s0 ** 2).sum(1)[:, None]        # (n, N)
    w = np.sqrt(np.exp(-np.maximum(dist2, 0) / width ** 2))
    sum_xx = np.einsum("nj,jd,je->nde", w, S, S) + np.einsum("nd,ne->nde", s0, s0)     # the input's own weight is 1
    return _ridge(w.sum(1) + 1.0, w @ S + s0, w @ P_samples + P_inputs, sum_xx,
                  w @ (S * P_samples[:, None]) + s0 * P_inputs[:, None], alpha)


def lime_rows(n_samples: int, n_features: int) -> int:
    """Inputs per ``lime_coefficients`` call within ``LIME_WORK`` (its per-input work: the samples' weighted
    outer products, ``n_samples x n_features^2``); at least 1.

    >>> lime_rows(5000, 32), lime_rows(5000, 7)
    (39, 816)
    """
    return max(1, LIME_WORK // (n_samples * n_features ** 2))


def lime_ranks(predict_proba, X, mean, scale, *, rng, n_samples: int = 5000, label: int = 1,
               lower=None, upper=None) -> np.ndarray:
    """(n, d) each feature's rank in each input's explanation (0: the largest |coefficient|).

    ``predict_proba`` maps (m, d) inputs to (m, k) probabilities; ``mean`` and ``scale`` are the reference data's
    per-feature mean and standard deviation (a zero scale counts as 1, as in scikit-learn's StandardScaler).
    With ``lower`` and ``upper`` the samples are rounded and clipped into those bounds, so the model only sees
    valid inputs."""
    X = np.asarray(X, dtype=float)
    mean, scale = np.asarray(mean, dtype=float), np.where(np.asarray(scale, dtype=float) > 0, scale, 1.0)
    Z = rng.normal(size=(n_samples - 1, X.shape[1])) * scale + mean
    if lower is not None:
        Z = np.clip(np.rint(Z), lower, upper)
    P_samples = np.asarray(predict_proba(Z), dtype=float)[:, label]
    P_inputs = np.asarray(predict_proba(X), dtype=float)[:, label]
    coef = lime_coefficients(P_samples, P_inputs, (Z - mean) / scale, (X - mean) / scale)
    order = np.argsort(-np.abs(coef), axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(X.shape[1])[None, :].repeat(len(X), 0), axis=1)
    return ranks


TEXT_KERNEL_WIDTH = 25.0    # LimeTextExplainer's kernel width, on the cosine distance times 100
TEXT_ROWS = 65536           # masked texts per model call of ``lime_text_coefficients``


def lime_text_coefficients(predict_proba, X, *, rng, n_samples: int = 5000, mask_id: int = 1,
                           pad_id: int = 0) -> np.ndarray:
    """(n, L) each token's coefficient in LIME's text explanation of each of the token-id rows ``X``, for the
    class the model gives the text (0 at padding).

    As ``lime.LimeTextExplainer(bow=False)``: the features are the text's token positions; each of the
    ``n_samples - 1`` samples replaces ``r`` of them, ``r`` uniform in ``1 .. words - 1``, chosen at random, by
    ``mask_id`` (an unknown word; the text itself is the first sample); the sample's weight is LIME's kernel
    ``sqrt(exp(-dist² / 25²))`` of ``dist = 100 (1 - cos)``, the cosine distance of its binary vector of kept
    words to the text's; a weighted ridge regression (alpha 1) of the probability on that binary vector gives
    the coefficients. Every text draws its own samples, so a text costs ``n_samples`` model rows.

    >>> w = np.array([0.0, 0.0, 0.0, 2.0, -1.0])             # token 2 weighs nothing, 3 and 4 do
    >>> predict = lambda ids: (lambda p: np.column_stack([1 - p, p]))(1 / (1 + np.exp(-w[ids.astype(int)].sum(1))))
    >>> coef = lime_text_coefficients(predict, np.array([[0, 2, 3, 4]]), rng=np.random.default_rng(0), n_samples=500)
    >>> np.argsort(-np.abs(coef[0])).tolist()[:3], float(coef[0, 0])          # padding (position 0): none
    ([2, 3, 1], 0.0)
    """
    X = np.asarray(X).astype(np.int64)
    n, L = X.shape
    words = X != pad_id
    labels = np.asarray(predict_proba(X), dtype=float).argmax(axis=1)
    out = np.zeros((n, L))
    per_call = max(1, TEXT_ROWS // n_samples)
    for start in range(0, n, per_call):
        rows = slice(start, start + per_call)
        out[rows] = _text_chunk(predict_proba, X[rows], words[rows], labels[rows], rng, n_samples, mask_id)
    return out


def _text_chunk(predict_proba, X, words, labels, rng, n_samples, mask_id) -> np.ndarray:
    c, L = X.shape
    d = words.sum(1)                                                                   # (c,)
    removed_n = np.floor(rng.random((c, n_samples)) * np.maximum(d - 1, 1)[:, None]).astype(int) + 1
    removed_n[:, 0] = 0                                                                # the text itself
    keys = np.where(words[:, None, :], rng.random((c, n_samples, L)), 2.0)
    order = np.argsort(keys, axis=2)
    place = np.empty_like(order)
    np.put_along_axis(place, order, np.arange(L)[None, None, :].repeat(c, 0).repeat(n_samples, 1), axis=2)
    kept = ~(place < removed_n[:, :, None])                                            # (c, N, L); padding kept
    masked = np.where(kept, X[:, None, :], mask_id).reshape(-1, L)
    P = np.asarray(predict_proba(masked), dtype=float).reshape(c, n_samples, -1)
    y = P[np.arange(c), :, labels]                                                     # (c, N)
    Z = (kept & words[:, None, :]).astype(float)                                       # padding: 0, constant
    cos = np.sqrt(Z.sum(2) / np.maximum(d, 1)[:, None])
    w = np.sqrt(np.exp(-((1 - cos) * 100) ** 2 / TEXT_KERNEL_WIDTH ** 2))
    Zw = Z * w[:, :, None]
    return _ridge(w.sum(1), Zw.sum(1), (w * y).sum(1), np.matmul(Zw.transpose(0, 2, 1), Z),
                  np.einsum("cnl,cn->cl", Zw, y), RIDGE_ALPHA) * words

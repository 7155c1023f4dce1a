"""Which features a model's decision on an input depends on: LIME's tabular explanation, batched.

``lime_ranks`` ranks the features of many inputs at once the way ``lime.LimeTabularExplainer`` with
``discretize_continuous=False`` does for one: samples from N(mean, scale) of reference data (not around the
instance), the instance as the first sample, distances on the standardised samples, the kernel
``sqrt(exp(-dist² / (0.75·sqrt(d))²))`` as sample weights, and a weighted ridge regression (alpha 1, with an
intercept) of the probability of class ``label`` on the standardised samples; features ranked by the absolute
coefficient. One sample set serves every input of a call (LIME draws a fresh one per explanation, from the same
distribution), so a batch costs one model call on the samples plus one on the inputs.

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
RIDGE_ALPHA = 1.0       # LIME's default regressor: Ridge(alpha=1)


def lime_coefficients(P_samples, P_inputs, S, s0, *, alpha: float = RIDGE_ALPHA) -> np.ndarray:
    """Per input, the coefficients of LIME's weighted ridge regression: ``S`` (N, d) the standardised samples and
    ``P_samples`` (N,) their outputs, ``s0`` (n, d) the standardised inputs and ``P_inputs`` (n,) theirs. Each
    input's regression uses its own row plus the samples, weighted by LIME's kernel of the distance to it."""
    n, d = s0.shape
    width = KERNEL_WIDTH * np.sqrt(d)
    dist2 = (S ** 2).sum(1)[None, :] - 2 * s0 @ S.T + (s0 ** 2).sum(1)[:, None]        # (n, N)
    w = np.sqrt(np.exp(-np.maximum(dist2, 0) / width ** 2))
    total = w.sum(1) + 1.0                                                              # the input's own weight is 1
    mean_x = (w @ S + s0) / total[:, None]
    mean_y = (w @ P_samples + P_inputs) / total
    cov = np.einsum("nj,jd,je->nde", w, S, S) + np.einsum("nd,ne->nde", s0, s0)
    cov -= total[:, None, None] * np.einsum("nd,ne->nde", mean_x, mean_x)
    cross = w @ (S * P_samples[:, None]) + s0 * P_inputs[:, None] - total[:, None] * mean_x * mean_y[:, None]
    return np.linalg.solve(cov + alpha * np.eye(d), cross[..., None])[..., 0]


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

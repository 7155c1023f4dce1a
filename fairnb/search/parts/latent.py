"""A generative model of tabular data with a latent space: the part LIMI searches in.

LIMI (``fairnb.search.methods.limi``) needs a generator ``G`` that maps latent codes ``z ~ N(0, I)`` to natural
inputs, so that a surrogate of the model's decision boundary can be learned, and moved along, in the space of
``z``. The paper trains a CTGAN; fairnb's default is a **Gaussian copula**, the lighter stand-in that
SDV (the library CTGAN ships in) also offers as a tabular synthesizer: it fits in a fraction of a second
on census-sized data with numpy and scipy, decodes deterministically, and every decoded value is a value the
data holds, so decoded inputs are integer codes inside the domain.

The model (``docs/methods/limi.md`` §3):

* each feature's *normal scores*: ``Phi^-1`` of its mid-rank empirical CDF in the data (ties share a score);
* their correlation matrix ``R`` and its Cholesky factor ``L`` (``R = L L^T``);
* ``decode(z)``: ``u = L z`` (correlated standard normals), ``p = Phi(u)``, and per feature the empirical
  quantile ``x_j = Q_j(p_j)``: the smallest data value whose empirical CDF reaches ``p_j``.

So ``decode`` of ``z ~ N(0, I)`` reproduces each feature's distribution in the data and their rank
correlations. Any object with ``fit(X)``, ``decode(Z)`` and ``latent_dim`` (after ``fit``) can take its
place (``LIMI(generator=...)``): a VAE's decoder, a GAN's generator.

Example
-------
>>> import numpy as np
>>> X = np.random.default_rng(0).integers(0, 5, (500, 3)).astype(float); X[:, 2] = X[:, 0]   # x2 copies x0
>>> g = GaussianCopula().fit(X)
>>> Z = np.random.default_rng(1).standard_normal((1000, g.latent_dim))
>>> D = g.decode(Z)
>>> bool(np.isin(D, X).all()), bool((D[:, 2] == D[:, 0]).mean() > 0.95)
(True, True)
"""
from __future__ import annotations

import numpy as np

JITTER = 1e-6       # added to R's diagonal so that its Cholesky factor exists for copied or constant features


class GaussianCopula:
    """A Gaussian copula over the data's empirical marginals, with ``z ~ N(0, I)`` as its latent space.

    Attributes after ``fit``: ``latent_dim`` (the number of features), ``values_`` (each feature's sorted
    data values), ``cdf_`` (their empirical CDFs), ``cholesky_`` (``L``).
    """

    def fit(self, X) -> "GaussianCopula":
        """Learn the marginals and the correlation of the normal scores of ``X`` (rows of inputs)."""
        from scipy.special import ndtri

        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or len(X) < 2:
            raise ValueError(f"a generative model needs at least two rows of inputs to learn from, got shape {X.shape}")
        n, d = X.shape
        self.values_, self.cdf_, scores = [], [], np.empty_like(X)
        for j in range(d):
            values, counts = np.unique(X[:, j], return_counts=True)
            cdf = np.cumsum(counts) / n
            self.values_.append(values)
            self.cdf_.append(cdf)
            mid = cdf - counts / (2 * n)                       # the mid-rank of each value
            scores[:, j] = ndtri(mid)[np.searchsorted(values, X[:, j])]
        R = np.corrcoef(scores, rowvar=False) if d > 1 else np.ones((1, 1))
        R = np.nan_to_num(R, nan=0.0)
        np.fill_diagonal(R, 1.0)
        self.cholesky_ = np.linalg.cholesky(R + JITTER * np.eye(d))
        self.latent_dim = d
        return self

    def decode(self, Z) -> np.ndarray:
        """The inputs of the latent codes ``Z`` (``(n, latent_dim)``): data values, one per feature."""
        from scipy.special import ndtr        # the standard normal CDF

        P = ndtr(np.asarray(Z, dtype=float) @ self.cholesky_.T)
        out = np.empty_like(P)
        for j, (values, cdf) in enumerate(zip(self.values_, self.cdf_)):
            out[:, j] = values[np.minimum(np.searchsorted(cdf, P[:, j]), len(values) - 1)]
        return out

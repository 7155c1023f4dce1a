"""Group fairness scores by sampling, with TestSGD's error bound (Algorithm 2), batched over rule sets.

For a rule set R the score is ``f = |P(M(x) = l | x in R) - P(M(x) = l | x not in R)|`` for the
favourable label ``l``. Both rates are estimated from ``n`` samples per side, drawn in pairs: copy a
training record that satisfies (violates) R, then move one random non-sensitive feature by
``+-step`` and clip it into its bounds, so the sensitive features and thus group membership never
change. Sampling stops at the first ``n >= min_samples`` where the summed Wald margin

    eps = z sqrt(phi_in (1 - phi_in) / n) + z sqrt(phi_out (1 - phi_out) / n)

is at most ``error_threshold``; with the defaults (z = 1.96, 0.05) that happens by n = 1,537 at the
latest, since ``eps <= z / sqrt(n)``. The bound holds with confidence ``0.95**2 = 90.25%``.

Batching: every rule set advances at the same time. The first round draws ``min_samples`` per side
for all rule sets; later rounds add ``round_size`` per side to the rule sets still running. Prefix
sums then find the exact first ``n`` at which the sequential loop of the paper would have stopped,
so the result has the same distribution as the one-sample-at-a-time algorithm. Model calls hold up
to ``batch_size`` rows, however many rule sets that spans.

Conventions fixed here (see the digest, section 7): the first check happens at ``n = min_samples``
(so the paper's worked example with 1,000 samples stops there), seeds are drawn uniformly with
replacement from the training records of each side, and duplicates count.

Example (the paper's worked example)
-------
>>> round(float(combined_margin(283, 91, 1000)), 4), round(abs(283 / 1000 - 91 / 1000), 3)
(0.0457, 0.192)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..interrupts import deferred_interrupts
from ..models import as_probability_matrix


def wald_margin(phi, n, z: float = 1.96):
    """Normal-approximation margin ``z sqrt(phi (1 - phi) / n)`` of a proportion (Eq. 7).

    >>> round(float(wald_margin(0.283, 1000)), 5)
    0.02792
    """
    phi, n = np.asarray(phi, dtype=float), np.asarray(n, dtype=float)
    return z * np.sqrt(phi * (1.0 - phi) / n)


def combined_margin(pos_in, pos_out, n, z: float = 1.96):
    """Summed margins of the in-group and out-of-group rates from positive counts out of ``n`` each."""
    n = np.asarray(n, dtype=float)
    return wald_margin(np.asarray(pos_in) / n, n, z) + wald_margin(np.asarray(pos_out) / n, n, z)


def max_samples_needed(z: float = 1.96, error_threshold: float = 0.05) -> int:
    """Samples per side after which the margin is certainly below the threshold: ``ceil((z / thr)^2)``.

    >>> max_samples_needed()
    1537
    """
    return math.ceil((z / error_threshold) ** 2 - 1e-9)


def first_stop(pos_in_cum: np.ndarray, pos_out_cum: np.ndarray, n0: int, min_samples: int,
               error_threshold: float, z: float) -> np.ndarray:
    """Row-wise first sample count at which sampling stops, or -1 where it does not stop in this block.

    ``pos_*_cum[r, i]`` are positive counts after ``n0 + i + 1`` samples for rule set ``r``.
    """
    n = n0 + 1 + np.arange(pos_in_cum.shape[1])
    eps = combined_margin(pos_in_cum, pos_out_cum, n[None, :], z)
    ok = (eps <= error_threshold + 1e-12) & (n >= min_samples)[None, :]
    hit = ok.any(axis=1)
    return np.where(hit, n[ok.argmax(axis=1)], -1)


class GroupSampler:
    """Draws perturbed copies of training records inside or outside many groups at once.

    Parameters
    ----------
    X : training records (n, d), the seeds.
    bin_rows : (n, s) bin numbers of each record's sensitive features.
    domain : the tabular domain (its bounds clip the perturbed feature).
    sensitive : column indices of the sensitive features (never perturbed).
    step : perturbation size (1 for integer-encoded features).
    """

    def __init__(self, X: np.ndarray, bin_rows: np.ndarray, domain, sensitive, step: float = 1.0):
        keys, inverse, counts = np.unique(bin_rows, axis=0, return_inverse=True, return_counts=True)
        order = np.argsort(inverse.reshape(-1), kind="stable")
        self.X = np.asarray(X, dtype=float)[order]
        self.cells = keys                       # (U, s) distinct bin combinations
        self.counts = counts.astype(np.int64)   # (U,) records per combination
        self.starts = np.concatenate([[0], np.cumsum(self.counts)[:-1]])
        self.free = np.array([j for j in range(self.X.shape[1]) if j not in set(sensitive)], dtype=np.int64)
        if not len(self.free):
            raise ValueError("every feature is sensitive: there is no non-sensitive feature to perturb")
        self.lower, self.upper = domain.lower, domain.upper
        self.step = float(step)

    def sizes(self, covers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Records inside and outside each group; ``covers`` is (r, U) membership of the cells."""
        inside = (covers * self.counts).sum(axis=1)
        return inside, self.counts.sum() - inside

    def sample(self, covers: np.ndarray, inside: bool, m: int, rng: np.random.Generator) -> np.ndarray:
        """``m`` samples per group, inside (or outside) each group: shape (r * m, d), group-major."""
        w = np.where(covers if inside else ~covers, self.counts, 0)              # (r, U)
        cum = np.cumsum(w, axis=1)
        total = cum[:, -1]
        if (total == 0).any():
            raise ValueError("a group has no training record on this side; it cannot be sampled")
        r, u = w.shape
        k = np.floor(rng.random((r, m)) * total[:, None]).astype(np.int64)      # position in the pool
        offset = (np.arange(r) * (self.counts.sum() + 1))[:, None]
        cell = np.searchsorted((cum + offset).ravel(), (k + offset).ravel(), side="right") - np.repeat(
            np.arange(r) * u, m)
        rows = np.repeat(np.arange(r), m)
        before = cum[rows, cell] - w[rows, cell]
        X = self.X[self.starts[cell] + k.ravel() - before].copy()
        j = self.free[rng.integers(len(self.free), size=len(X))]
        i = np.arange(len(X))
        X[i, j] = np.clip(X[i, j] + rng.choice((-self.step, self.step), size=len(X)), self.lower[j], self.upper[j])
        return X


@dataclass
class Scores:
    """Per rule set: samples per side, favourable predictions inside and outside, converged or not."""

    n: np.ndarray
    pos_in: np.ndarray
    pos_out: np.ndarray
    converged: np.ndarray
    queries: int
    ended: str = "completed"            # "completed", "interrupted" (Ctrl-C) or "failed" (see ``error``)
    error: BaseException | None = None


def score_groups(model, sampler: GroupSampler, covers: np.ndarray, rng: np.random.Generator, *,
                 favourable: int = 1, z: float = 1.96, error_threshold: float = 0.05,
                 min_samples: int = 1000, max_samples: int | None = None, round_size: int = 128,
                 batch_size: int = 200_000, should_stop=lambda: False, on_round=lambda done: None) -> Scores:
    """Run Algorithm 2 for every group of ``covers`` (r, U) together; see the module docstring.

    ``max_samples`` caps the samples per side (default: ``max_samples_needed``, where it surely
    stops); ``should_stop()`` is polled between model calls, ``on_round(done)`` told the number of
    finished groups after each round.
    """
    cap = max_samples_needed(z, error_threshold) if max_samples is None else int(max_samples)
    cap = max(cap, min_samples)
    r = len(covers)
    n = np.zeros(r, dtype=np.int64)
    pos_in = np.zeros(r, dtype=np.int64)
    pos_out = np.zeros(r, dtype=np.int64)
    done = np.zeros(r, dtype=bool)
    converged = np.zeros(r, dtype=bool)
    queries = [0]
    try:
        _score_rounds(model, sampler, covers, rng, favourable, z, error_threshold, min_samples, cap, round_size,
                      batch_size, should_stop, on_round, n, pos_in, pos_out, done, converged, queries)
    except KeyboardInterrupt:           # the rule sets scored so far are kept (a partial ranking)
        return Scores(n, pos_in, pos_out, converged, queries[0], "interrupted")
    except Exception as e:              # noqa: BLE001 - kept with the partial scores; TestSGD re-raises it
        return Scores(n, pos_in, pos_out, converged, queries[0], "failed", e)
    return Scores(n, pos_in, pos_out, converged, queries[0])


def _score_rounds(model, sampler, covers, rng, favourable, z, error_threshold, min_samples, cap, round_size,
                  batch_size, should_stop, on_round, n, pos_in, pos_out, done, converged, queries):
    """The sampling rounds of ``score_groups``; updates its arrays in place (each group's in one step)."""
    while not done.all() and not should_stop():
        active = np.flatnonzero(~done)
        m = min(min_samples if n[active[0]] == 0 else round_size, cap - int(n[active[0]]))
        per_call = max(1, batch_size // (2 * m))
        for c0 in range(0, len(active), per_call):
            if should_stop():
                break
            ids = active[c0:c0 + per_call]
            X = np.concatenate([sampler.sample(covers[ids], True, m, rng), sampler.sample(covers[ids], False, m, rng)])
            P = as_probability_matrix(model.predict_proba(X), len(X))
            if not 0 <= favourable < P.shape[1]:
                raise ValueError(f"favourable={favourable!r} is not one of the model's labels 0..{P.shape[1] - 1}")
            hit = (P.argmax(axis=1) == favourable).reshape(2, len(ids), m)
            cin = pos_in[ids, None] + np.cumsum(hit[0], axis=1)
            cout = pos_out[ids, None] + np.cumsum(hit[1], axis=1)
            stop = first_stop(cin, cout, int(n[ids[0]]), min_samples, error_threshold, z)
            stopped = stop > 0
            last = np.where(stopped, stop - n[ids] - 1, m - 1)
            with deferred_interrupts():
                queries[0] += len(X)
                pos_in[ids] = cin[np.arange(len(ids)), last]
                pos_out[ids] = cout[np.arange(len(ids)), last]
                n[ids] += last + 1
                converged[ids] = stopped
                done[ids] = stopped | (n[ids] >= cap)
        on_round(int(done.sum()))

"""The discrimination oracle: is an input individually discriminatory?

An input ``x`` is *individually discriminatory* (an IDI) when some variant ``x'`` that differs from
``x`` only in protected attributes gets another decision (``argmax`` of the class probabilities).
The oracle checks many inputs at once: all ``n`` inputs times all ``m`` protected variants go to the
model in **one** ``predict_proba`` call, or in as few calls as keep each call's input within
``MEMORY_BUDGET`` bytes (so a protected attribute with 100,000 values, or 100,000 seeds, does not
build gigabytes of variants at once).

Counting conventions of the literature (every count in fairnb says which it used):

* ``"adf"``: unique *without* the protected attributes (ADF, NeuronFair): two IDIs that differ only
  in a protected value are one.
* ``"eidig"``: unique full instances (EIDIG, MAFT).

Example
-------
>>> import numpy as np
>>> from fairnb.domains import Feature, TabularDomain
>>> from fairnb.models import FunctionModel
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 3)], protected=["sex"])
>>> oracle = Oracle(FunctionModel(lambda X: X[:, 0] * (X[:, 1] > 1)), dom)
>>> oracle.check([[0, 3], [1, 0]]).discriminatory.tolist()
[True, False]
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .models import as_probability_matrix, wrap

MEMORY_BUDGET = 64 * 2 ** 20   # bytes of float64 model input per model call (override: fairnb.oracle.MEMORY_BUDGET)


def rows_per_call(row_bytes: int, budget: int | None = None) -> int:
    """Rows of ``row_bytes`` each that fit one call under ``budget`` (default ``MEMORY_BUDGET``); at least 1.

    >>> rows_per_call(8 * 100, budget=8000)
    10
    """
    return max(1, int((MEMORY_BUDGET if budget is None else budget) // max(row_bytes, 1)))


def variant_bytes(domain) -> int:
    """Bytes of model input that one input's variants take (for a ragged domain: its own row only).

    >>> from fairnb.domains import Feature, TabularDomain
    >>> variant_bytes(TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 3)], protected=["sex"]))
    32
    """
    return len(getattr(domain, "protected_values", (None,))) * int(np.prod(domain.item_shape)) * 8


def in_pieces(f, *arrays, row_bytes: int):
    """``f(*arrays)`` computed on consecutive row slices that each stay within ``MEMORY_BUDGET`` (at
    ``row_bytes`` per row), the pieces concatenated; ``f`` may return an array or a tuple of arrays.

    >>> in_pieces(lambda a, b: a + b, np.arange(5.0), np.ones(5), row_bytes=MEMORY_BUDGET // 2).tolist()
    [1.0, 2.0, 3.0, 4.0, 5.0]
    """
    n = len(arrays[0])
    step = rows_per_call(row_bytes)
    if n <= step:
        return f(*arrays)
    parts = [f(*(a[i:i + step] for a in arrays)) for i in range(0, n, step)]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate(p) for p in zip(*parts))
    return np.concatenate(parts)


def flatten_variants(variants, n: int) -> tuple[object, np.ndarray, int]:
    """``(flat, owner, m)``: the variants of ``n`` inputs as one flat batch for the model, the input
    each flat row belongs to, and the most variants any input has.

    ``variants`` is what ``domain.variants`` returns: an array ``(n, m, ...)``, a list of ``n``
    sequences (ragged: any number of variants per input), or a pair ``(flat, owner)``.

    >>> flat, owner, m = flatten_variants([["ab", "Ab"], ["cd"]], 2)
    >>> list(flat), owner.tolist(), m
    (['ab', 'Ab', 'cd'], [0, 0, 1], 2)
    """
    if isinstance(variants, np.ndarray):
        if variants.ndim < 2 or len(variants) != n:
            raise ValueError(f"domain.variants returned shape {variants.shape}; expected ({n}, m, ...)")
        m = variants.shape[1]
        return variants.reshape((n * m,) + variants.shape[2:]), np.repeat(np.arange(n), m), m
    if isinstance(variants, tuple) and len(variants) == 2:
        flat, owner = variants
        owner = np.asarray(owner, dtype=np.int64)
        if len(owner) != len(flat) or (len(owner) and (owner.min() < 0 or owner.max() >= n)):
            raise ValueError("domain.variants returned (flat, owner) whose owner does not index the inputs")
        counts = np.bincount(owner, minlength=n)
    else:
        groups = list(variants)
        if len(groups) != n:
            raise ValueError(f"domain.variants returned {len(groups)} groups for {n} inputs")
        counts = np.array([len(g) for g in groups], dtype=np.int64)
        owner = np.repeat(np.arange(n), counts)
        items = [v for g in groups for v in g]
        flat = items if not items or not isinstance(items[0], np.ndarray) else np.stack(items)
    if n and counts.min() < 1:
        raise ValueError("domain.variants gave an input no variant; each input's own variant must be among them")
    return flat, owner, int(counts.max()) if n else 0


def group_outputs(Q: np.ndarray, owner: np.ndarray, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The model outputs ``Q`` of flattened variants regrouped per input: ``(n, m, k)`` padded with
    NaN, and the ``(n, m)`` mask of real variants.

    >>> P, real = group_outputs(np.array([[1.0, 0], [0, 1], [1, 0]]), np.array([0, 0, 1]), 2, 2)
    >>> P[1].tolist(), real.tolist()
    ([[1.0, 0.0], [nan, nan]], [[True, True], [True, False]])
    """
    order = np.argsort(owner, kind="stable")
    owner = owner[order]
    starts = np.searchsorted(owner, np.arange(n))
    slot = np.arange(len(owner)) - starts[owner]
    P = np.full((n, m, Q.shape[1]), np.nan)
    P[owner, slot] = Q[order]
    real = np.zeros((n, m), bool)
    real[owner, slot] = True
    return P, real


def label_flip(P: np.ndarray, P_all: np.ndarray) -> np.ndarray:
    """The default notion of discrimination: ``(n, m)`` True where a variant gets another decision
    (``argmax``) than the input.

    >>> label_flip(np.array([[0.5, 0.5]]), np.array([[[0.5, 0.5], [0.4, 0.6]]])).tolist()   # a tie decides 0
    [[False, True]]
    """
    if P.shape[-1] == 2:        # two classes: the argmax is whether class 1 beats class 0 (a tie: 0)
        return (P_all[..., 1] > P_all[..., 0]) != (P[:, 1] > P[:, 0])[:, None]
    return P_all.argmax(axis=2) != P.argmax(axis=1)[:, None]


class ProbabilityGap:
    """A variant discriminates when its outputs differ from the input's by more than ``threshold``
    (half the L1 distance: for two classes, the gap between the probabilities of class 1), as some
    papers use instead of a label flip; pass as ``Oracle(..., decide=ProbabilityGap(0.2))``.

    >>> ProbabilityGap(0.2)(np.array([[0.6, 0.4]]), np.array([[[0.6, 0.4], [0.3, 0.7]]])).tolist()
    [[False, True]]
    """

    def __init__(self, threshold: float):
        if not 0 <= threshold < 1:
            raise ValueError(f"threshold must be in [0, 1), got {threshold!r}")
        self.threshold = threshold

    def __call__(self, P: np.ndarray, P_all: np.ndarray) -> np.ndarray:
        return np.abs(P_all - P[:, None, :]).sum(axis=2) / 2 > self.threshold


@dataclass
class Verdict:
    """The oracle's answer for a batch of ``n`` inputs with up to ``m`` variants each."""

    X: np.ndarray                  # (n, d) the inputs
    proba: np.ndarray              # (n, k) model output on X
    protected: list                # the domain's protected columns
    protected_values: np.ndarray | None   # (m, len(protected)) the values of the m variants (tabular)
    variant_proba: np.ndarray      # (n, m, k); a missing variant of a ragged input repeats the input's output
    discriminatory: np.ndarray     # (n,) bool
    counterpart_index: np.ndarray  # (n,) variant chosen as counterpart (-1 when none)
    variant_items: list | None = None   # per input, its variants (domains without protected_values)

    @property
    def labels(self) -> np.ndarray:
        return self.proba.argmax(axis=1)

    @property
    def counterpart(self) -> np.ndarray:
        """(n, ...) the counterpart of each input (the input itself where there is none)."""
        if self.variant_items is not None:
            return np.array([v[j] if j >= 0 else x for x, v, j in
                             zip(self.X, self.variant_items, self.counterpart_index)]).reshape(self.X.shape)
        out = self.X.copy()
        d = self.discriminatory
        out[np.ix_(d, self.protected)] = self.protected_values[self.counterpart_index[d]]
        return out

    @property
    def counterpart_proba(self) -> np.ndarray:
        idx = np.where(self.counterpart_index < 0, 0, self.counterpart_index)
        return np.where(self.discriminatory[:, None], _row_of_each(self.variant_proba, idx), self.proba)

    @property
    def comparable(self) -> np.ndarray:
        """(n,) True where an input has a protected variant besides itself, so it can be discriminatory (a
        text without a sensitive term has none)."""
        if self.variant_items is None:
            return np.full(len(self.X), len(self.variant_proba[0]) > 1 if len(self.X) else False)
        return np.array([len(v) > 1 for v in self.variant_items], dtype=bool)

    @property
    def max_difference_index(self) -> np.ndarray:
        """(n,) the variant whose output differs most from the input's (ADF's global counterpart)."""
        diff = np.abs(self.variant_proba - self.proba[:, None, :]).sum(axis=2)
        return diff.argmax(axis=1)

    def __len__(self):
        return len(self.X)

    def take(self, rows) -> "Verdict":
        """The verdict of the inputs ``rows`` (indices or a boolean mask), in that order.

        >>> from fairnb.domains import Feature, TabularDomain
        >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 3)], protected=["sex"])
        >>> v = Oracle(lambda X: X[:, 1] * X[:, 0] / 3, dom).check([[0, 3], [0, 0], [1, 2]])
        >>> part = v.take([2, 0])
        >>> part.X.tolist(), part.discriminatory.tolist()
        ([[1.0, 2.0], [0.0, 3.0]], [True, True])
        """
        rows = np.flatnonzero(rows) if np.asarray(rows).dtype == bool else np.asarray(rows, dtype=int)
        items = None if self.variant_items is None else [self.variant_items[i] for i in rows]
        return Verdict(self.X[rows], self.proba[rows], self.protected, self.protected_values,
                       self.variant_proba[rows], self.discriminatory[rows], self.counterpart_index[rows], items)


class Oracle:
    """Checks batches of inputs for individual discrimination against ``domain.protected``.

    Parameters
    ----------
    model : anything ``fairnb.models.wrap`` accepts.
    domain : a domain with at least one protected attribute (see ``fairnb.domains.base.Domain``); its
        variants may be ragged (any number per input).
    validate : check inputs (shape, NaN, bounds) before querying; searches that construct their own
        candidates inside the domain turn it off on the hot path.
    decide : the notion of discrimination: ``decide(P, P_all) -> (n, m) bool`` from the inputs' outputs
        ``(n, k)`` and their variants' ``(n, m, k)``; default ``label_flip``, e.g. ``ProbabilityGap(0.2)``.
        A subclass may override ``differs`` instead.
    """

    def __init__(self, model, domain, *, validate: bool = True, decide=None):
        if not getattr(domain, "protected", ()):
            raise ValueError("the domain has no protected attribute; pass protected=[...]")
        if decide is not None and not callable(decide):
            raise TypeError(f"decide must be a callable decide(P, P_all) -> (n, m) bool, got {decide!r}")
        self.model = wrap(model)
        self.domain = domain
        self.validate = validate
        self.decide = decide
        self.rows_queried = 0
        self.n_classes: int | None = None     # the model's number of outputs, fixed by its first answer

    def predict_proba(self, X) -> np.ndarray:
        """One model call on encoded inputs (its rows counted in ``rows_queried``), its output checked to be
        an ``(n, k)`` probability matrix with the same ``k`` as every earlier call (by ``as_probability_matrix``,
        unless the model's ``outputs_checked`` says that its own ``predict_proba`` already did)."""
        X = np.asarray(X, dtype=float)
        self.rows_queried += len(X)
        P = self.model.predict_proba(X)
        if not (getattr(self.model, "outputs_checked", False) and isinstance(P, np.ndarray) and P.ndim == 2
                and len(P) == len(X)):
            P = as_probability_matrix(P, len(X), source="the model")
        if self.n_classes is None:
            self.n_classes = P.shape[1]
        elif P.shape[1] != self.n_classes:
            raise ValueError(f"the model returned {P.shape[1]} class probabilities per input after returning "
                             f"{self.n_classes} before: a classifier's outputs must keep the same classes on "
                             "every call")
        return P

    def differs(self, P: np.ndarray, P_all: np.ndarray) -> np.ndarray:
        """(n, m) True where a variant is treated differently from its input (``decide``, else a label flip)."""
        return (self.decide or label_flip)(P, P_all)

    def check(self, X, variants=None) -> Verdict:
        """Decide for every input of ``X`` whether it is discriminatory, in as few model calls as
        ``MEMORY_BUDGET`` allows (one for ordinary batches). ``variants``: the inputs' protected variants
        as ``domain.variants(X)`` would give them (an array or one sequence per input), when the caller
        knows them (``Batch.variants``); None asks the domain."""
        X = self.domain.validate(X) if self.validate else np.asarray(X, dtype=float)
        n = len(X)
        values = getattr(self.domain, "protected_values", None)
        prot = list(self.domain.protected)
        if n == 0:
            return Verdict(X, np.zeros((0, 2)), prot, values, np.zeros((0, 0 if values is None else len(values), 2)),
                           np.zeros(0, bool), np.zeros(0, int), None if values is not None else [])
        step = rows_per_call(variant_bytes(self.domain))
        parts = [self._outputs(X[i:i + step], values is None, None if variants is None else variants[i:i + step])
                 for i in range(0, n, step)]
        m = max(p[0].shape[1] for p in parts)
        P_all = np.concatenate([_pad(p[0], m) for p in parts])
        items = None if values is not None else [v for p in parts for v in p[1]]
        own = np.asarray(self.domain.own_variant(X))
        P = _row_of_each(P_all, own)
        if np.isnan(P_all).any():                 # ragged: a missing variant repeats the input's output
            P_all = np.where(np.isnan(P_all), P[:, None, :], P_all)
        differs = self.differs(P, P_all)  # (n, m)
        disc = _any_per_row(differs)
        idx = np.full(n, -1)
        rows = np.flatnonzero(disc)       # each discriminatory input's counterpart: its most different variant
        if len(rows):
            gap = np.abs(P_all[rows] - P[rows, None, :])
            gap = gap[..., 0] + gap[..., 1] if gap.shape[2] == 2 else gap.sum(axis=2)
            idx[rows] = np.where(differs[rows], gap, -1.0).argmax(axis=1)
        return Verdict(X, P, prot, values, P_all, disc, idx, items)

    def _outputs(self, rows, keep_items: bool, variants=None):
        """Model outputs of every variant of ``rows`` (``variants``, else the domain's), ``(len(rows), m, k)``,
        in one call; with ``keep_items`` also the variants per input."""
        variants = self.domain.variants(rows) if variants is None else variants
        flat, owner, m = flatten_variants(variants, len(rows))
        Q = self.predict_proba(self.domain.encode(flat))
        if not keep_items and len(owner) == len(rows) * m:   # the same number of variants for every input
            return Q.reshape(len(rows), m, -1), None
        P_all, _ = group_outputs(Q, owner, len(rows), m)
        if not keep_items:
            return P_all, None
        starts = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=len(rows)))])
        order = np.argsort(owner, kind="stable")
        return P_all, [[flat[k] for k in order[a:b]] for a, b in zip(starts[:-1], starts[1:])]

    def is_discriminatory(self, X) -> np.ndarray:
        return self.check(X).discriminatory


def make_oracle(oracle, model, domain) -> Oracle:
    """The oracle of a search: ``oracle`` is None (a label flip), a ``decide`` callable or an ``Oracle`` subclass.

    >>> from fairnb.domains import Feature, TabularDomain
    >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 3)], protected=["sex"])
    >>> make_oracle(ProbabilityGap(0.3), lambda X: X[:, 1] / 3, dom).decide.threshold
    0.3
    >>> make_oracle("flip", lambda X: X[:, 1] / 3, dom)
    Traceback (most recent call last):
    ...
    TypeError: oracle must be a decide(P, P_all) callable or an Oracle subclass, got 'flip'
    """
    if isinstance(oracle, type) and issubclass(oracle, Oracle):
        return oracle(model, domain, validate=False)
    if oracle is not None and (isinstance(oracle, type) or not callable(oracle)):
        raise TypeError(f"oracle must be a decide(P, P_all) callable or an Oracle subclass, got {oracle!r}")
    return Oracle(model, domain, validate=False, decide=oracle)


def _row_of_each(P: np.ndarray, j: np.ndarray) -> np.ndarray:
    """``P[i, j[i]]`` for every ``i`` of an ``(n, m, k)`` array: ``(n, k)``, by one row gather (a fancy index
    over two axes is several times slower).

    >>> _row_of_each(np.arange(8.0).reshape(2, 2, 2), np.array([1, 0])).tolist()
    [[2.0, 3.0], [4.0, 5.0]]
    """
    n, m = P.shape[:2]
    return P.reshape((n * m,) + P.shape[2:]).take(np.arange(n) * m + j, axis=0)


def _any_per_row(mask: np.ndarray) -> np.ndarray:
    """``mask.any(axis=1)`` of an ``(n, m)`` bool array, column by column when ``m`` is small (a reduction over
    a short axis is several times slower).

    >>> _any_per_row(np.array([[False, True], [False, False]])).tolist()
    [True, False]
    """
    if mask.shape[1] > 16 or not mask.shape[1]:
        return mask.any(axis=1)
    out = mask[:, 0].copy()
    for j in range(1, mask.shape[1]):
        out |= mask[:, j]
    return out


def _pad(P: np.ndarray, m: int) -> np.ndarray:
    """``(n, m', k)`` padded with NaN to ``(n, m, k)``."""
    if P.shape[1] == m:
        return P
    return np.concatenate([P, np.full((len(P), m - P.shape[1], P.shape[2]), np.nan)], axis=1)

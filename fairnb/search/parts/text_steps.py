"""The substitution rules of ADF's text search (digest A5, A6, A8, A10, A12 and §7.2), on whole batches.

Every rule works on ``n`` texts at once: ``G`` (and ``GC``, the counterparts' gradients) are ``(n, L, d)``
loss gradients w.r.t. the token embeddings, ``cand`` the ``(n, L, k)`` candidate ids of each position
(-1: none; sensitive positions and padding have none), ``E`` the ``(V, d)`` embedding matrix. A rule
returns ``(position, choice, scores)``: the position to substitute (-1 where a text has none), the index
of the chosen candidate, and the ``(n, k)`` scores of that position's candidates (NaN where a rule has
none). The same substitution is applied to ``x`` and, through it, to ``x'``.

* ASC (Papernot et al.; ADF Alg 5): the position with the largest ``||g_a - g'_a||_inf`` (ADF) or
  ``||g_a||_inf`` (plain ASC); the candidate whose direction agrees with the gradient's signs in the most
  dimensions: ``sign(c - x_a) = sign(g_a)`` ("toward-boundary": up the loss, the default) or the printed
  ``sign(x_a - c) = sign(g_a)`` ("papernot-literal").
* HotFlip (Ebrahimi et al.; ADF Alg 6 with its printed bugs fixed: a running maximum, one substitution per
  iteration): the (position, candidate) with the largest first-order widening of the gap ``J(x) - J(x')``,
  ``sign(gap) (g_a - g'_a) . (c - x_a)`` (ADF; ``score="absolute"``: the printed ``|(g_a - g'_a) . (x_a - c)|``)
  or the largest first-order loss increase ``g_a . (c - x_a)`` (plain HotFlip).
* random (RP, ADF's baseline): a uniform position, a uniform candidate.
* local (ADF Alg 7, 8, 10): a position drawn with probability proportional to
  ``1 / (||g_a||_inf + ||g'_a||_inf)`` (low-impact tokens first), a uniform candidate.

Example (ASC's choice on the digest's 2-d toy, §7.4.11)
-------
>>> E = np.array([[0, 0], [0, 0], [0.0, 0.0], [-1.0, 1.0], [1.0, -1.0]])   # ids 2 = x_a, 3, 4 = candidates
>>> G = np.array([[[1.0, -1.0]]])
>>> cand = np.array([[[3, 4]]])
>>> asc_step(np.array([[2]]), G, None, cand, E)[1].tolist(), asc_step(np.array([[2]]), G, None, cand, E,
...          convention="papernot-literal")[1].tolist()
([1], [0])
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .transformations import checked_variant

SIGN_CONVENTIONS = ("toward-boundary", "papernot-literal")
EPSILON = 1e-12
CHUNK_BYTES = 32 * 2 ** 20      # float32 bytes of (texts, positions, candidates, dims) per HotFlip chunk


def token_saliency(G: np.ndarray) -> np.ndarray:
    """``(n, L)``: the L-infinity norm of each token's embedding gradient."""
    return np.abs(G).max(axis=2)


def _argmax_position(importance: np.ndarray, cand: np.ndarray) -> np.ndarray:
    usable = (cand >= 0).any(axis=2)
    score = np.where(usable, importance, -np.inf)
    return np.where(usable.any(axis=1), score.argmax(axis=1), -1)


def _at(a: np.ndarray, pos: np.ndarray) -> np.ndarray:
    return a[np.arange(len(pos)), np.maximum(pos, 0)]


def asc_step(X, G, GC, cand, E, *, convention: str = "toward-boundary"):
    """ASC: ADF's (``GC`` given) or the plain attack's (``GC=None``) position, then the sign-agreement choice.

    Scores are the number of embedding dimensions where the candidate's direction agrees with ``sign(g_a)``.
    """
    if convention not in SIGN_CONVENTIONS:
        raise ValueError(f"sign_convention must be one of {SIGN_CONVENTIONS}, got {convention!r}")
    importance = token_saliency(G if GC is None else G - GC)
    pos = _argmax_position(importance, cand)
    c = _at(cand, pos)                                   # (n, k)
    x_vec = E[_at(X, pos)]                               # (n, d)
    c_vec = E[np.maximum(c, 0)]                          # (n, k, d)
    direction = np.sign(c_vec - x_vec[:, None, :])
    if convention == "papernot-literal":
        direction = -direction
    scores = (direction == np.sign(_at(G, pos))[:, None, :]).sum(axis=2).astype(float)
    scores = np.where(c >= 0, scores, np.nan)
    choice = np.where(c >= 0, scores, -np.inf).argmax(axis=1)
    return pos, choice, scores


HF_SCORES = ("widen", "absolute")


def hotflip_step(X, G, GC, cand, E, *, gap=None, score: str = "widen"):
    """HotFlip, maximised over every position and candidate at once (one substitution).

    Plain (``GC=None``): the first-order loss increase ``g_a . (c - x_a)``. ADF (``GC`` given): the first-order
    change of ``J(x) - J(x')``, ``(g_a - g'_a) . (c - x_a)``, scored ``"widen"`` (the default: times the sign
    of the current ``gap = J(x) - J(x')``, so the substitution widens the gap between the pair, Eq. 4's
    intent; a zero gap counts as positive) or ``"absolute"`` (the printed ``|(g - g') . (x_a - c)|``, which
    also rewards closing the gap).
    """
    if score not in HF_SCORES:
        raise ValueError(f"hf_score must be one of {HF_SCORES}, got {score!r}")
    n, L, k = cand.shape
    D = G if GC is None else G - GC
    if GC is not None and score == "widen":
        if gap is None:
            raise ValueError("hotflip_step: score='widen' needs gap = J(x) - J(x') per text")
        D = D * np.where(np.asarray(gap) < 0, -1.0, 1.0)[:, None, None]
    best = np.full((n, L, k), -np.inf)
    rows = max(1, CHUNK_BYTES // max(L * k * E.shape[1] * 4, 1))
    for s in range(0, n, rows):
        sl = slice(s, s + rows)
        c = cand[sl]
        delta = E[np.maximum(c, 0)] - E[X[sl]][:, :, None, :]                 # c - x_a, (r, L, k, d)
        first_order = np.einsum("rld,rlkd->rlk", D[sl].astype(np.float32), delta.astype(np.float32))
        value = np.abs(first_order) if GC is not None and score == "absolute" else first_order
        best[sl] = np.where(c >= 0, value, -np.inf)
    flat = best.reshape(n, L * k)
    top = flat.argmax(axis=1)
    has = np.isfinite(flat[np.arange(n), top])
    pos = np.where(has, top // k, -1)
    scores = _at(best, pos)
    return pos, np.where(has, top % k, 0), np.where(np.isfinite(scores), scores, np.nan)


def _uniform_candidate(c: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    valid = c >= 0
    return np.where(valid, rng.random(c.shape), -1.0).argmax(axis=1)


def random_step(cand, rng: np.random.Generator):
    """RP: a uniform usable position, a uniform candidate (no scores)."""
    usable = (cand >= 0).any(axis=2)
    pos = np.where(usable.any(axis=1), np.where(usable, rng.random(usable.shape), -1.0).argmax(axis=1), -1)
    return pos, _uniform_candidate(_at(cand, pos), rng), np.full(cand.shape[::2], np.nan)


def local_probabilities(G, GC, usable) -> np.ndarray:
    """ADF's local position probabilities ``1 / (||g_a||_inf + ||g'_a||_inf)`` on the ``usable`` positions
    (uniform where all are zero); ``G=None`` gives RP's uniform choice."""
    if G is None:
        weight = usable.astype(float)
    else:
        weight = np.where(usable, 1.0 / (token_saliency(G) + token_saliency(GC) + EPSILON), 0.0)
    total = weight.sum(axis=1, keepdims=True)
    return np.where(total > 0, weight / np.where(total > 0, total, 1.0), 0.0)


def local_draw(prob, cand, rng: np.random.Generator):
    """A position drawn with the probabilities ``prob`` (-1 where a text has no usable one), a uniform candidate."""
    usable = (cand >= 0).any(axis=2)
    c = np.cumsum(prob, axis=1)
    pos = np.minimum((c < rng.random((len(c), 1)) * c[:, -1:]).sum(axis=1), cand.shape[1] - 1)
    pos = np.where(usable.any(axis=1), pos, -1)
    return pos, _uniform_candidate(_at(cand, pos), rng), np.full(cand.shape[::2], np.nan)


def local_step(G, GC, cand, rng: np.random.Generator):
    """ADF's local move: position probabilities ``1 / (||g_a||_inf + ||g'_a||_inf)`` on the usable positions
    (uniform where all are zero), a uniform candidate. ``G=None`` gives RP's uniform local move."""
    return local_draw(local_probabilities(G, GC, (cand >= 0).any(axis=2)), cand, rng)


@dataclass
class SwapTrace:
    """What ``WordSwap`` records per text: the ``origin`` seed, the substitution ``chains`` that separate the
    text from it (``(phase, iteration, position, old, new, candidates, scores)`` each) and the ``saliency``
    (``||g||_inf`` per token) of the state it was produced from (NaN: none)."""

    origin: np.ndarray
    chains: list
    saliency: np.ndarray

    def take(self, idx) -> "SwapTrace":
        idx = np.asarray(idx)
        return SwapTrace(self.origin[idx], [self.chains[i] for i in idx], self.saliency[idx])

    def replace(self, mask, other: "SwapTrace") -> "SwapTrace":
        """The rows of ``other`` where ``mask``, these elsewhere."""
        return SwapTrace(np.where(mask[:, None], other.origin, self.origin),
                         [b if m else a for a, b, m in zip(self.chains, other.chains, mask)],
                         np.where(mask[:, None], other.saliency, self.saliency))

    @classmethod
    def concat(cls, parts: list["SwapTrace"]) -> "SwapTrace":
        return cls(np.concatenate([p.origin for p in parts]), [c for p in parts for c in p.chains],
                   np.concatenate([p.saliency for p in parts]))


class WordSwap:
    """The transformation of the text searches: a word swapped for one of its embedding neighbours (the
    domain's ``candidates``: never a sensitive position, never a term of a protected group), the
    counterpart a swap of the sensitive term (the protected variants). See ``fairnb.search.parts.transformations``
    for the members a search asks for.

    >>> from fairnb.text import Vocabulary
    >>> from fairnb.domains import TextDomain
    >>> vocab = Vocabulary.build([["the", "muslim", "christian", "cook", "chef"]])
    >>> E = np.random.default_rng(0).normal(size=(len(vocab), 4))
    >>> dom = TextDomain.with_embedding_neighbours(vocab, E, {"religion": ["muslim", "christian"]}, 3, k=2)
    >>> swap = WordSwap(dom, E)
    >>> X = dom.encode_texts(["the muslim cook"])
    >>> swap.movable(X).tolist()             # "muslim" is protected; "the" has no neighbour outside the terms
    [[False, False, True]]
    >>> dom.strings(swap.pair(X, dom.encode_texts(["a christian chef"])))   # the counterpart's term, x's words
    ['the christian cook']
    """

    def __init__(self, domain, embedding=None):
        self.domain = domain
        self.embedding = None if embedding is None else np.asarray(embedding, dtype=np.float64)

    def candidates(self, X) -> np.ndarray:
        """``(n, L, k)`` the substitutes of every token (-1: none)."""
        return self.domain.candidates(X)

    def movable(self, X) -> np.ndarray:
        """``(n, L)``: the positions with at least one substitute."""
        return (self.candidates(X) >= 0).any(axis=2)

    def start(self, X, ids=None) -> SwapTrace:
        return SwapTrace(np.array(X), [()] * len(X), np.full(np.shape(X), np.nan))

    def own_variant(self, X) -> np.ndarray:
        return self.domain.own_variant(X)

    def variant(self, X, j, verdict, rows) -> np.ndarray:
        """The ``j``-th of the protected variants the oracle checked for ``verdict``'s ``rows``."""
        return self.domain.ids(np.array(checked_variant(verdict, rows, j)))

    def pair(self, X, C) -> np.ndarray:
        """``X`` with the sensitive terms of ``C`` (sensitive positions never change)."""
        return np.where(self.domain.sensitive_mask(X), C, X)

    def swap(self, X, pos, choice, scores, cand, trace: SwapTrace, phase: str, t: int, saliency=None):
        """``X`` with one substitution per row (where ``pos >= 0``), and its trace (a copy of each)."""
        X = X.copy()
        rows = np.flatnonzero(pos >= 0)
        c = cand[rows, pos[rows]]
        new = c[np.arange(len(rows)), choice[rows]]
        old = X[rows, pos[rows]].copy()
        X[rows, pos[rows]] = new
        chains = list(trace.chains)
        for j, r in enumerate(rows):
            kept = tuple(e for e in chains[r] if e[2] != pos[r])      # an earlier change at the same position
            if new[j] != trace.origin[r, pos[r]]:
                kept += ((phase, t, int(pos[r]), int(old[j]), int(new[j]), c[j].tolist(), scores[r].tolist()),)
            chains[r] = kept
        return X, SwapTrace(trace.origin, chains, trace.saliency if saliency is None else saliency)

    def random_step(self, X, prob, rng: np.random.Generator, trace: SwapTrace, t: int, saliency=None):
        """Each text with one position, drawn with the row's probabilities ``prob``, swapped for a uniform choice
        among its substitutes: ``(X', moved, trace')`` (``moved``: the texts that had a position to swap)."""
        cand = self.candidates(X)
        pos, choice, scores = local_draw(prob, cand, rng)
        X, trace = self.swap(X, pos, choice, scores, cand, trace, "local", t, saliency)
        return X, pos >= 0, trace

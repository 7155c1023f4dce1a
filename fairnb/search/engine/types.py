"""What flows through a search's loop: the ``Batch`` of candidates a strategy yields to the engine, the ``Event``s
the engine publishes to listeners, and the ``Budget`` whose first limit reached ends a run.

Example
-------
>>> Budget(max_time=5.0).reached(elapsed=5.2, tried=100, found=0)
('max_time', 5.0)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...results import Result


@dataclass
class Batch:
    """Candidates for the oracle. ``seed_ids`` tells which seed each row descends from; ``info``, if
    given, holds one JSON-able dict of details per row, kept with the pairs the Result stores
    (``result.details(i)``: e.g. a text search's substitution chain), or is a callable
    ``info(verdict, rows) -> list of dicts`` (or of their compact JSON text) that the engine calls for the discriminatory rows only
    (details that depend on the oracle's counterparts, built once per batch for just those rows).

    ``keep``, if given, is a callable ``keep(verdict) -> (n,) bool`` that the engine calls with the oracle's
    answer before anything is counted: only the rows it keeps are counted, recorded and sent back to the strategy
    (a strategy that samples ahead of a stopping rule, such as AFT's, drops the samples past the stop unseen).

    ``variants``, if given, are the candidates' protected variants as the strategy knows them, in the form
    and order of the domain's ``variants(X)`` (an ``(n, m, ...)`` array or ``n`` sequences): the oracle checks
    these instead of asking the domain. An image search keeps each seed's flip fixed while it moves the seed:

    >>> X = np.zeros((2, 2, 2, 3)); C = X + 0.5                  # two images and their fixed flips
    >>> Batch(X, variants=np.stack([X, C], axis=1)).variants.shape
    (2, 2, 2, 2, 3)
    """

    X: np.ndarray
    phase: str = "global"
    seed_ids: np.ndarray | int = -1
    info: list | Callable | None = None
    variants: np.ndarray | list | None = None
    keep: Callable | None = None


@dataclass
class Event:
    """What listeners receive: ``kind`` is ``"prepare"`` (the model is being made ready, before the clock
    starts), ``"start"``, ``"progress"``, ``"phase"`` or ``"done"``."""

    kind: str
    elapsed: float
    tried: int
    found: int
    found_adf: int
    phase: str
    new: int
    result: Result = field(repr=False)

    @property
    def rate(self) -> float:
        """Unique IDIs per second so far."""
        return self.found / self.elapsed if self.elapsed > 0 else 0.0


@dataclass(frozen=True)
class Budget:
    """A run's budgets (None: no limit) and the first of them that what it spent has reached: the rule of
    the engine's loop, and of a sharded run's client for the whole run.

    >>> Budget(max_tried=100, max_found=5).reached(elapsed=1.0, tried=40, found=5)
    ('max_found', 5)
    """

    max_time: float | None = None
    max_tried: int | None = None
    max_found: int | None = None

    def reached(self, elapsed: float, tried: int, found: int) -> tuple[str, float] | None:
        """``(budget, limit)`` of the first budget reached, else None."""
        for name, spent in (("max_time", elapsed), ("max_tried", tried), ("max_found", found)):
            limit = getattr(self, name)
            if limit is not None and spent >= limit:
                return name, limit
        return None

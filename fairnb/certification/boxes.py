"""Boxes of integer inputs: counts, the share of the real domain they stand for, splitting, enumerating.

A box is a pair of integer rows ``low <= x <= high`` over every feature of a ``TabularDomain``; it holds the
integer inputs in it. Splitting a box on a feature cuts it between two integers (``[lo, mid]`` and
``[mid + 1, hi]``), so the two halves hold all its integer inputs and no box holds a fractional point.
Protected columns span their whole range in every box (a box's verdict is about all protected values).

Example
-------
>>> import numpy as np
>>> lows, highs = np.array([[0.0, 0.0]]), np.array([[3.0, 1.0]])
>>> points(lows, highs).tolist()
[8.0]
>>> split(lows, highs, np.array([0]))
(array([[0., 0.],
       [2., 0.]]), array([[1., 1.],
       [3., 1.]]))
"""
from __future__ import annotations

import numpy as np


def points(lows, highs, columns=None) -> np.ndarray:
    """``(B,)`` the number of integer inputs in each box (over ``columns``, default all), as floats."""
    widths = np.asarray(highs, dtype=float) - np.asarray(lows, dtype=float) + 1
    return np.prod(widths if columns is None else widths[:, columns], axis=1)


def volumes(lows, highs, lower, upper, columns) -> np.ndarray:
    """``(B,)`` the share of the real box ``[lower, upper]`` (over ``columns``) that each box stands for when
    every integer input stands for the reals that round to it (the cell ``[v - 0.5, v + 0.5]``, cut at the
    domain's ends: an end value stands for half a cell). A column with one value counts as 1.

    >>> volumes(np.array([[0.0], [1.0]]), np.array([[0.0], [2.0]]), np.array([0.0]), np.array([2.0]), [0]).tolist()
    [0.25, 0.75]
    """
    lows, highs = np.asarray(lows, dtype=float)[:, columns], np.asarray(highs, dtype=float)[:, columns]
    lower, upper = np.asarray(lower, dtype=float)[columns], np.asarray(upper, dtype=float)[columns]
    span = upper - lower
    cells = np.minimum(highs + 0.5, upper) - np.maximum(lows - 0.5, lower)
    return np.prod(np.where(span > 0, cells / np.where(span > 0, span, 1.0), 1.0), axis=1)


def split(lows, highs, feature, cut=None) -> tuple[np.ndarray, np.ndarray]:
    """Both parts of every box, cut on ``feature[i]`` (a column where box ``i`` holds at least two values) between
    ``cut[i]`` and ``cut[i] + 1`` (default: its middle): ``(lows, highs)`` of ``2 B`` boxes, the lower parts first."""
    rows = np.arange(len(lows))
    mid = np.floor((lows[rows, feature] + highs[rows, feature]) / 2) if cut is None else cut
    upper_half_lows, lower_half_highs = lows.copy(), highs.copy()
    lower_half_highs[rows, feature] = mid
    upper_half_lows[rows, feature] = mid + 1
    return np.concatenate([lows, upper_half_lows]), np.concatenate([lower_half_highs, highs])


def enumerate_points(lows, highs, columns) -> tuple[np.ndarray, np.ndarray]:
    """Every integer input of the boxes over ``columns`` (the other columns at the box's low end): ``(X, owner)``
    with ``owner[j]`` the box of row ``j``.

    >>> X, owner = enumerate_points(np.array([[0.0, 5.0]]), np.array([[1.0, 5.0]]), [0])
    >>> X.tolist(), owner.tolist()
    ([[0.0, 5.0], [1.0, 5.0]], [0, 0])
    """
    rows, owners = [], []
    for i, (lo, hi) in enumerate(zip(lows, highs)):
        grids = np.meshgrid(*(np.arange(lo[c], hi[c] + 1) for c in columns), indexing="ij")
        block = np.repeat(lo[None, :], grids[0].size if grids else 1, axis=0)
        for c, g in zip(columns, grids):
            block[:, c] = g.ravel()
        rows.append(block)
        owners.append(np.full(len(block), i))
    if not rows:
        return np.zeros((0, lows.shape[1])), np.zeros(0, dtype=int)
    return np.concatenate(rows), np.concatenate(owners)


class SizeQueue:
    """Boxes waiting to be decided, by size class (``floor(log2(inputs))``), so that taking the largest costs only
    what is taken, not a sort of the whole queue. ``peek(n)`` shows up to ``n`` boxes of the largest classes
    (within a class, the last pushed first) without removing them; ``drop(n)`` removes those same boxes.

    >>> q = SizeQueue(np.array([[0.0], [0.0]]), np.array([[0.0], [7.0]]), [0])    # boxes of 1 and 8 inputs
    >>> q.peek(1)[1].tolist(), len(q)
    ([[7.0]], 2)
    >>> q.drop(1); q.boxes()[1].tolist()
    [[0.0]]
    """

    def __init__(self, lows, highs, columns):
        self.columns, self.levels, self._count = list(columns), {}, 0
        self.width = np.asarray(lows).shape[1]
        self.push(lows, highs)

    def __len__(self) -> int:
        return self._count

    def push(self, lows, highs) -> None:
        if not len(lows):
            return
        level = np.floor(np.log2(points(lows, highs, self.columns))).astype(int)
        for value in np.unique(level):
            mine = level == value
            self.levels.setdefault(int(value), []).append((lows[mine], highs[mine]))
        self._count += len(lows)

    def _first(self, n: int):
        """``(level, chunk, k)``: take the last ``k`` boxes of that chunk, largest classes first, ``n`` in all."""
        for level in sorted(self.levels, reverse=True):
            chunks = self.levels[level]
            for i in range(len(chunks) - 1, -1, -1):
                if n <= 0:
                    return
                k = min(n, len(chunks[i][0]))
                yield level, i, k
                n -= k

    def peek(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        parts = [(self.levels[lv][i][0][-k:], self.levels[lv][i][1][-k:]) for lv, i, k in self._first(n)]
        return _joined(parts, self.width)

    def drop(self, n: int) -> None:
        for level, i, k in list(self._first(n)):
            lo, hi = self.levels[level][i]
            self.levels[level][i] = (lo[:-k], hi[:-k])
            self._count -= k
        self.levels = {lv: kept for lv, chunks in self.levels.items() if (kept := [c for c in chunks if len(c[0])])}

    def boxes(self) -> tuple[np.ndarray, np.ndarray]:
        """Every box in the queue, ``(lows, highs)``."""
        return _joined([c for chunks in self.levels.values() for c in chunks], self.width)


def _joined(parts, width: int) -> tuple[np.ndarray, np.ndarray]:
    if not parts:
        return np.zeros((0, width)), np.zeros((0, width))
    return np.concatenate([lo for lo, _ in parts]), np.concatenate([hi for _, hi in parts])

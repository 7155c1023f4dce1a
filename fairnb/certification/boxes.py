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


def split(lows, highs, feature) -> tuple[np.ndarray, np.ndarray]:
    """Both halves of every box, cut on ``feature[i]`` (a column where box ``i`` holds at least two values):
    ``(lows, highs)`` of ``2 B`` boxes, the lower halves first."""
    rows = np.arange(len(lows))
    mid = np.floor((lows[rows, feature] + highs[rows, feature]) / 2)
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

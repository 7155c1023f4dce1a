"""A Result's pairs as tables: ``result.pairs`` (decoded, human-readable) and ``result.to_frame()``.

Example
-------
>>> import numpy as np
>>> near_threshold(np.array([[0.5, 0.5]]), np.array([[0.9, 0.1]])).tolist()
[True]
"""
from __future__ import annotations

import numpy as np
import pandas as pd

NEAR_THRESHOLD = 1e-6
MATERIAL_MARGIN = 0.1   # a pair whose two probabilities are closer than this is marked immaterial


class PairTables:
    """The tables of a Result's pairs (a part of ``fairnb.results.Result``)."""

    @property
    def pairs(self) -> pd.DataFrame:
        """One row per discriminatory pair, with decoded (human-readable) values."""
        return self.to_frame(decoded=True)

    def to_frame(self, decoded: bool = True) -> pd.DataFrame:
        """Pairs as a DataFrame: the input's columns (``decoded``: ``domain.decode``, human-readable,
        followed by ``domain.pair_columns``, what the counterpart changes, e.g. ``sex'``; else the stored
        form ``domain.to_columns`` of the input and, primed, of the counterpart), then outputs (``p``,
        ``p'`` = probability of class 1 for binary models), labels, the ``difference`` of the outputs,
        ``near_threshold`` (True where a decision is within ``NEAR_THRESHOLD`` of flipping, so float32
        and float64 rounding may decide it), ``material`` (False where the two outputs differ by less than
        ``MATERIAL_MARGIN``: both sit at the decision threshold, boundary noise a fair model has too), phase,
        seed id and the time found. A Result column whose
        name an input column already has is prefixed ``result:`` (e.g. ``result:p`` beside a feature
        called ``p``)."""
        a = self._arrays()
        dom = self.domain
        if decoded:
            left = dom.decode(a["X"]).reset_index(drop=True)
            own = dict(dom.pair_columns(a["X"], a["C"])) if hasattr(dom, "pair_columns") else {}
        else:
            left = dom.to_columns(a["X"]).reset_index(drop=True)
            own = {f"{c}'": v.to_numpy() for c, v in dom.to_columns(a["C"]).items()}
        names = [str(n) for n in left.columns]
        k = a["P"].shape[1]
        col = 1 if k == 2 else slice(None)
        own["p"] = a["P"][:, col] if k == 2 else a["P"].max(axis=1)
        own["p'"] = a["PC"][:, col] if k == 2 else a["PC"].max(axis=1)
        own["label"] = a["P"].argmax(axis=1)
        own["label'"] = a["PC"].argmax(axis=1)
        own["difference"] = np.abs(a["P"] - a["PC"]).sum(axis=1) / 2
        own["near_threshold"] = near_threshold(a["P"], a["PC"])
        own["material"] = material(a["P"], a["PC"])
        own["phase"] = a["phase"]
        own["seed"] = a["seed"]
        own["time"] = a["time"]
        taken = set(names)
        frame = left.copy()
        for name, values in own.items():
            frame[f"result:{name}" if name in taken else name] = values
        return frame


def material(P: np.ndarray, PC: np.ndarray, margin: float = MATERIAL_MARGIN) -> np.ndarray:
    """(n,) True where a pair's two outputs differ by at least ``margin`` (half the L1 distance of the
    probability vectors: ``|p - p'|`` for two classes). A label flip between 0.49 and 0.51 is a finding no
    reader should act on; it is counted apart (``summary()["immaterial_pairs"]``).

    >>> material(np.array([[0.49, 0.51], [0.2, 0.8]]), np.array([[0.51, 0.49], [0.7, 0.3]])).tolist()
    [False, True]
    """
    return np.abs(np.asarray(P) - np.asarray(PC)).sum(axis=1) / 2 >= margin


def near_threshold(P: np.ndarray, PC: np.ndarray, tol: float = NEAR_THRESHOLD) -> np.ndarray:
    """(n,) True where the input's or the counterpart's decision is within ``tol`` of the threshold
    (two classes: ``p`` within ``tol`` of 0.5; in general the top two outputs closer than ``2 tol``),
    so that float32 and float64 arithmetic may decide it differently.

    >>> near_threshold(np.array([[0.5 - 1e-7, 0.5 + 1e-7], [0.2, 0.8]]), np.array([[0.9, 0.1], [0.9, 0.1]])).tolist()
    [True, False]
    """
    def margin(Q):
        if Q.shape[1] < 2:
            return np.full(len(Q), np.inf)
        top = np.sort(Q, axis=1)[:, -2:]
        return top[:, 1] - top[:, 0]

    return (margin(P) < 2 * tol) | (margin(PC) < 2 * tol)

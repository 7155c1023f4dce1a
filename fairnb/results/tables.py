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

from ..domains.base import protected_columns

NEAR_THRESHOLD = 1e-6
MATERIAL_MARGIN = 0.1   # a pair whose two probabilities are closer than this is marked immaterial


class PairTables:
    """The tables of a Result's pairs (a part of ``fairnb.results.Result``)."""

    @property
    def pairs(self) -> pd.DataFrame:
        """One row per discriminatory pair, with decoded (human-readable) values."""
        return self.to_frame(decoded=True)

    def directions(self) -> pd.DataFrame:
        """Which way the decisions move per protected value or term swapped to (see ``directions``)."""
        return directions(self.pairs, protected_columns(self.domain), self.class_names) if len(self) else \
            directions(pd.DataFrame(), ())

    def to_frame(self, decoded: bool = True) -> pd.DataFrame:
        """Pairs as a DataFrame: the input's columns (``decoded``: ``domain.decode``, human-readable,
        followed by ``domain.pair_columns``, what the counterpart changes, e.g. ``sex'``; else the stored
        form ``domain.to_columns`` of the input and, primed, of the counterpart), then outputs (``p``,
        ``p'`` = probability of class 1 for binary models), labels, the ``difference`` of the outputs,
        ``near_threshold`` (True where a decision is within ``NEAR_THRESHOLD`` of flipping, so float32
        and float64 rounding may decide it), ``material`` (False where the two outputs differ by less than
        ``MATERIAL_MARGIN``: both sit at the decision threshold, boundary noise a fair model has too), phase,
        seed id and the time found (no feature takes one of these names: ``domains.base.PAIR_OUTPUTS``)."""
        a = self._arrays()
        dom = self.domain
        if decoded:
            left = dom.decode(a["X"]).reset_index(drop=True)
            own = dict(dom.pair_columns(a["X"], a["C"])) if hasattr(dom, "pair_columns") else {}
        else:
            left = dom.to_columns(a["X"]).reset_index(drop=True)
            own = {f"{c}'": v.to_numpy() for c, v in dom.to_columns(a["C"]).items()}
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
        return left.assign(**own)


def directions(pairs: pd.DataFrame, columns, class_names=None) -> pd.DataFrame:
    """Which way decisions move, per protected value or term swapped *to*: from ``pairs`` (``result.pairs``),
    for each protected column ``c`` of ``columns`` (its counterpart ``c'``), one row per value of ``c'``:
    ``pairs``, ``to_class_1`` (the share of them where swapping to this value turns the decision into class
    1, named in ``decision`` when ``class_names`` are known), ``to_class_0``, ``mean_change`` (mean
    ``|p - p'|``) and ``material`` (how many of them move the output by at least ``MATERIAL_MARGIN``, the
    pairs the headline counts). A value most pairs move *towards* class 1 is favoured or disfavoured by the
    model, depending on what class 1 means. Rows come most material first: a value with many pairs at the
    decision threshold is boundary noise, not what the headline found.

    >>> pairs = pd.DataFrame({"sex": ["f", "m", "m"], "sex'": ["m", "f", "f"], "label": [0, 1, 1],
    ...                       "label'": [1, 0, 0], "difference": [0.4, 0.05, 0.5]})
    >>> directions(pairs, ["sex"]).to_dict("records")[0]        # doctest: +NORMALIZE_WHITESPACE
    {'attribute': 'sex', 'to': 'f', 'pairs': 2, 'to_class_1': 0.0, 'to_class_0': 1.0, 'mean_change': 0.275,
     'material': 1}
    """
    rows = []
    for col in columns:
        other = f"{col}'"
        if col not in pairs or other not in pairs or not len(pairs):
            continue
        up = (pairs["label'"] > pairs["label"]).to_numpy()
        down = (pairs["label'"] < pairs["label"]).to_numpy()
        change = pairs["difference"].to_numpy()
        kept = change >= MATERIAL_MARGIN       # as ``material``: the difference is half the L1 distance
        to = pairs[other].astype(str).to_numpy()
        for value in sorted(set(to), key=lambda v: (-int(kept[to == v].sum()), -int((to == v).sum()), v)):
            mine = to == value
            rows.append({"attribute": str(col), "to": value, "pairs": int(mine.sum()),
                         "to_class_1": round(float(up[mine].mean()), 4),
                         "to_class_0": round(float(down[mine].mean()), 4),
                         "mean_change": round(float(change[mine].mean()), 4), "material": int(kept[mine].sum())})
    out = pd.DataFrame(rows, columns=["attribute", "to", "pairs", "to_class_1", "to_class_0", "mean_change", "material"])
    if class_names is not None and len(class_names) == 2:
        out.attrs["decision"] = tuple(str(c) for c in class_names)
    return out


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

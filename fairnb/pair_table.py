"""Filtering, sorting and paging of discriminatory pairs, in the kernel (no browser needed).

The pair inspector sends the browser one page at a time; this class decides which rows that page
holds. Rows keep their position in ``result.pairs`` as their id, whatever the filter and order.

Filters are per column. A filter is text matched case-insensitively anywhere in the shown value
(``"fem"`` matches ``female``), ``=text`` for an exact match, or on numeric columns a comparison
``>0.5``, ``<=3``, ``=2``, ``!=0`` or a range ``1..5`` (on a labelled feature numbers compare the
encoded value).

Example
-------
>>> import pandas as pd
>>> shown = pd.DataFrame({"sex": ["female", "male", "male"], "p": [0.2, 0.9, 0.6]})
>>> table = PairTable(shown, shown)
>>> table.query(filters={"sex": "=male"}, sort_by="p")
[2, 1]
>>> table.query(filters={"p": ">0.5"}, sort_by="p", descending=True)
[1, 2]
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_COMPARE = re.compile(rf"(<=|>=|!=|==|<|>|=)\s*({_NUMBER})")
_RANGE = re.compile(rf"({_NUMBER})\s*\.\.\s*({_NUMBER})")
CHANGED = "changed from seed"
_OUTPUTS = ("p", "p'", "label", "label'", "difference")
_OPS = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
        "=": np.equal, "==": np.equal, "!=": np.not_equal}


class PairTable:
    """Rows of ``shown`` (what the user reads) ordered and compared by ``raw`` (same shape: numbers
    where ``shown`` has labels)."""

    def __init__(self, shown: pd.DataFrame, raw: pd.DataFrame | None = None):
        raw = shown if raw is None else raw
        if list(raw.columns) != list(shown.columns) or len(raw) != len(shown):
            raise ValueError("PairTable needs shown and raw frames with the same columns and rows")
        self.shown = shown.reset_index(drop=True)
        self.raw = raw.reset_index(drop=True)
        self._lower: dict[str, pd.Series] = {}
        self._cache: tuple | None = None

    @property
    def columns(self) -> list[str]:
        return list(self.shown.columns)

    def __len__(self):
        return len(self.shown)

    def _text(self, col: str) -> pd.Series:
        if col not in self._lower:
            self._lower[col] = self.shown[col].astype(str).str.lower()
        return self._lower[col]

    def mask(self, col: str, text: str) -> np.ndarray:
        """Boolean mask of the rows whose column ``col`` matches the filter ``text``."""
        if col not in self.shown.columns:
            raise ValueError(f"unknown column {col!r}; the table has {self.columns}")
        text = str(text).strip()
        if not text:
            return np.ones(len(self), bool)
        numeric = pd.api.types.is_numeric_dtype(self.raw[col])
        if numeric:
            values = self.raw[col].to_numpy(float)
            m = _COMPARE.fullmatch(text)
            if m:
                return _OPS[m.group(1)](values, float(m.group(2)))
            m = _RANGE.fullmatch(text)
            if m:
                lo, hi = sorted((float(m.group(1)), float(m.group(2))))
                return (values >= lo) & (values <= hi)
        if text.startswith("="):
            return (self._text(col) == text.lstrip("=").strip().lower()).to_numpy(bool)
        return self._text(col).str.contains(text.lower(), regex=False).to_numpy(bool)

    def query(self, filters: dict | None = None, sort_by: str = "", descending: bool = False) -> list[int]:
        """Ids of the rows that pass every filter, in the requested order."""
        key = (tuple(sorted((filters or {}).items())), sort_by, descending)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        keep = np.ones(len(self), bool)
        for col, text in (filters or {}).items():
            keep &= self.mask(col, text)
        ids = np.flatnonzero(keep)
        if sort_by:
            if sort_by not in self.raw.columns:
                raise ValueError(f"cannot sort by unknown column {sort_by!r}; the table has {self.columns}")
            ordered = self.raw[sort_by].iloc[ids].sort_values(ascending=not descending, kind="stable")
            ids = ordered.index.to_numpy()
        out = ids.tolist()
        self._cache = (key, out)
        return out

    def page(self, ids: list[int], page: int, page_size: int) -> list[dict]:
        """The rows of one page as ``{"id": row id, "cells": [text, ...]}``."""
        if page_size < 1 or page < 0:
            raise ValueError("page must be >= 0 and page_size >= 1")
        chosen = ids[page * page_size:(page + 1) * page_size]
        frame = self.shown.iloc[chosen]
        return [{"id": int(i), "cells": [format_cell(v) for v in row]}
                for i, row in zip(chosen, frame.itertuples(index=False, name=None))]


def format_cell(value) -> str:
    """Text for one cell: floats with 3 decimals, everything else as ``str``.

    >>> format_cell(0.123456), format_cell(3), format_cell("<b>")
    ('0.123', '3', '<b>')
    """
    if isinstance(value, (float, np.floating)):
        return f"{value:.3f}"
    return str(value)


def decision_text(label, class_names=None) -> str:
    """A decision by its meaning when ``class_names`` are known, else its number.

    >>> decision_text(1, ("<=50K", ">50K")), decision_text(1)
    ('>50K', '1')
    """
    label = int(label)
    return class_names[label] if class_names and 0 <= label < len(class_names) else str(label)


def first_columns(columns: list[str], protected: set) -> list[str]:
    """The protected attributes, their counterparts and the outputs first, then the other features.

    >>> first_columns(["age", "sex", "sex'", "p", "p'", "label", "label'", "difference", "seed"], {"sex"})
    ['sex', "sex'", 'p', "p'", 'label', "label'", 'difference', 'age', 'seed']
    """
    rank = {"protected": 0, "counterpart": 0, "output": 1, "feature": 2, "meta": 3}
    return sorted(columns, key=lambda c: rank[column_kind(c, protected)])


def column_kind(column: str, protected: set) -> str:
    """How the inspector highlights a column of ``result.pairs``: protected, counterpart, output, feature or meta."""
    if column in protected:
        return "protected"
    if column.endswith("'") and column[:-1] in protected:
        return "counterpart"
    if column in _OUTPUTS:
        return "output"
    if column in ("phase", "seed", "time", CHANGED):
        return "meta"
    return "feature"

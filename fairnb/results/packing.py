"""A Result's pairs in compact form: as a Result stores them (``stored_form``: inputs and counterparts in the
smallest dtype that holds them exactly, read back as floats through ``PairFields``) and as a shard's Result
travels to the client (``pack_pairs``, ``Result.__getstate__``).

Example
-------
>>> import numpy as np
>>> unpack_pairs(pack_pairs({"X": np.ones((1, 2)), "phase": np.array(["g"], object),
...                          "info": np.array([None])}))["phase"].tolist()
['g']
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

_FLOAT_FIELDS = ("X", "C", "P", "PC", "time")
#: the integer dtypes ``compact`` tries, narrowest first, with their ranges
_EXACT_RANGES = [(t, np.iinfo(t).min, np.iinfo(t).max) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32)]


def compact(A: np.ndarray) -> np.ndarray:
    """``A`` in the smallest dtype that holds every value exactly: an integer type for whole numbers in
    its range (a tabular domain's codes: int8), else float32 where that is exact (images), else ``A``.

    >>> compact(np.array([0.0, 3.0, -2.0])).dtype, compact(np.array([0.5, 0.25])).dtype, compact(np.array([0.1])).dtype
    (dtype('int8'), dtype('float32'), dtype('float64'))
    """
    if not A.size or A.dtype.kind not in "fiu":
        return A
    lo, hi = A.min(), A.max()
    if A.dtype.kind in "iu" or (math.isfinite(lo) and math.isfinite(hi) and (np.rint(A) == A).all()):
        for dtype, low, high in _EXACT_RANGES:
            if low <= lo and hi <= high:
                return A.astype(dtype)
    if A.dtype == np.float64:
        f32 = A.astype(np.float32)
        if np.array_equal(f32, A):
            return f32
    return A


def pack_pairs(a: dict) -> dict:
    """The pair arrays ``a`` (``Result._arrays()``) in compact form: numbers by ``compact``, phases as
    small integer codes and their labels, details only when some pair has them; ``unpack_pairs`` inverts it.

    >>> a = {"X": np.ones((2, 3)), "phase": np.array(["global", "local"], object), "info": np.array([None, None])}
    >>> p = pack_pairs(a); p["X"].dtype, p["phase"], p["info"]
    (dtype('int8'), (array([0, 1], dtype=int8), ['global', 'local']), None)
    >>> unpack_pairs(p)["X"].dtype, unpack_pairs(p)["phase"].tolist()
    (dtype('float64'), ['global', 'local'])
    """
    out = {k: compact(v) for k, v in a.items() if k not in ("phase", "info")}
    codes, labels = pd.factorize(a["phase"])
    out["phase"] = (compact(codes), list(labels))
    has_info = a["info"] != None  # noqa: E711 - element-wise on an object array
    out["info"] = a["info"] if has_info.any() else None
    return out


def unpack_pairs(p: dict) -> dict:
    """The pair arrays that ``pack_pairs`` packed, in their usual dtypes."""
    out = {k: v.astype(_usual_dtype(k)) for k, v in p.items() if k not in ("phase", "info")}
    codes, labels = p["phase"]
    out["phase"] = np.array(labels, dtype=object)[codes]
    out["info"] = p["info"] if p["info"] is not None else np.empty(len(codes), dtype=object)
    return out


def stored_form(a: dict) -> dict:
    """The pair arrays ``a`` as a Result keeps them: inputs, counterparts and seed ids by ``compact`` (a tabular
    domain's codes: one byte each where they were eight), the rest as they are; ``PairFields`` reads them back.

    >>> s = stored_form({"X": np.array([[3.0, 40.0]]), "C": np.array([[2.0, 40.0]]), "seed": np.array([7])})
    >>> s["X"].dtype, PairFields([s])["X"].dtype, PairFields([s])["X"].tolist()
    (dtype('int8'), dtype('float64'), [[3.0, 40.0]])
    """
    return {k: compact(v) if k in ("X", "C", "seed") else v for k, v in a.items()}


class PairFields(Mapping):
    """The fields of pairs stored in chunks (``stored_form``), each joined over the chunks when read: in its
    usual dtype (inputs, counterparts, probabilities and times as floats, seed ids as int64), or as stored
    (``usual=False``). Nothing read is kept, so the pairs are held once, compactly, however often they are read.

    >>> chunks = [stored_form({"X": np.array([[1.0]]), "seed": np.array([3])})] * 2
    >>> PairFields(chunks)["X"].tolist(), PairFields(chunks, usual=False)["X"].dtype
    ([[1.0], [1.0]], dtype('int8'))
    """

    def __init__(self, chunks: list, usual: bool = True):
        self.chunks, self.usual = chunks, usual

    def __getitem__(self, key):
        parts = [c[key] for c in self.chunks]
        dtype = _usual_dtype(key) if self.usual else None
        if len(parts) == 1:
            return parts[0] if dtype is None else parts[0].astype(dtype, copy=False)
        return np.concatenate(parts, dtype=dtype)

    def __iter__(self):
        return iter(self.chunks[0])

    def __len__(self):
        return len(self.chunks[0])


def _usual_dtype(key: str):
    """The usual dtype of a pair field (None: as stored)."""
    return float if key in _FLOAT_FIELDS else np.int64 if key == "seed" else None

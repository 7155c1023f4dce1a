"""The JSON forms of a Result's contents: per-pair details as compact text, extras and parameters as JSON.

Example
-------
>>> import numpy as np
>>> _info_column([{"a": np.int64(1)}, None], 2).tolist()
['{"a":1}', None]
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..constraints import Constraint


def _info_column(info, n: int) -> np.ndarray:
    """``(n,)`` object array of the per-input details as compact JSON text (None where there are none).

    Kept as text, not dicts: a text search's details (substitution chain, candidates, saliency) take a
    few hundred bytes as JSON and ten times that as Python objects, which is the difference between
    100,000 pairs fitting in Binder's 2 GB or not. ``Result.details(i)`` parses one on demand."""
    out = np.empty(n, dtype=object)
    if info is None:
        return out
    if len(info) != n:
        raise ValueError(f"info has {len(info)} entries for {n} inputs; give one dict per input")
    out[:] = [d if d is None or isinstance(d, str) else json.dumps(jsonable(d), separators=(",", ":"))
              for d in info]
    return out


def jsonable(obj):
    """Best-effort conversion of numpy values, DataFrames and constraints (their class and settings) for JSON."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, pd.DataFrame):
        return {"__frame__": obj.to_dict(orient="split")}
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, Constraint):
        return {"constraint": type(obj).__name__, **jsonable(obj.get_config())}
    return obj

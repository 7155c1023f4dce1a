"""Jupyter widgets: the live progress panel, the pair inspector, and static comparison plots.

The widgets are anywidget classes whose front ends are bundled from ``js/`` into ``fairnb/static``
when the package is built. Everything here loads lazily, so ``import fairnb`` does not import
ipywidgets.

>>> from fairnb import widgets
>>> sorted(widgets.__all__)
['BackgroundSearch', 'Comparison', 'PairInspector', 'PairTable', 'ProgressPanel', 'compare']
"""
from __future__ import annotations

import importlib

_WHERE = {
    "ProgressPanel": "progress",
    "PairInspector": "inspector",
    "PairTable": "table",
    "BackgroundSearch": "runner",
    "compare": "compare",
    "Comparison": "compare",
}
__all__ = list(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

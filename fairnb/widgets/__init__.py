"""Jupyter widgets: the live progress panel, the pair and image inspectors, and static comparison plots.

The widgets are anywidget classes whose front ends are bundled from ``js/`` into ``fairnb/static``
when the package is built. Everything here loads lazily, so ``import fairnb`` does not import
ipywidgets. This package registers the widgets with the core (``fairnb.views``): the progress panel
that searches show in notebooks and the inspector of each domain kind.

>>> from fairnb import widgets
>>> sorted(widgets.__all__)
['Comparison', 'ImageInspector', 'PairInspector', 'PairTable', 'ProgressPanel', 'TextInspector', 'compare', 'register_inspector']
"""
from __future__ import annotations

import importlib

from ..views import register_inspector, register_progress_panel

_WHERE = {
    "ProgressPanel": ".progress",
    "PairInspector": ".inspector",
    "ImageInspector": ".image_inspector",
    "TextInspector": ".text_inspector",
    "PairTable": "..pair_table",      # the kernel-side table model (no widget), here for convenience
    "compare": ".compare",
    "Comparison": ".compare",
}
__all__ = list(_WHERE) + ["register_inspector"]

register_progress_panel(f"{__name__}.progress:ProgressPanel")
register_inspector("*", f"{__name__}.inspector:PairInspector")     # every kind: feature rows or describe_pair
register_inspector("image", f"{__name__}.image_inspector:ImageInspector")
register_inspector("text", f"{__name__}.text_inspector:TextInspector")


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

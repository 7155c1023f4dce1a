"""Where the core finds its displays: the inspector for each domain kind and the live progress panel.

The core (searches, oracle, domains, results) imports no widget. It asks this registry, which holds
targets as ``"module:attribute"`` strings (imported on first use) or as objects; ``fairnb.widgets``
fills it with fairnb's own widgets, and a new input kind adds its inspector with one call.

Example
-------
>>> from fairnb import views
>>> views.register_inspector("toy-doctest", "collections:OrderedDict")
>>> views.inspector_for("toy-doctest").__name__
'OrderedDict'
>>> views.inspector_for("a-kind-without-its-own").__name__     # the default: fairnb's pair inspector
'PairInspector'
"""
from __future__ import annotations

import importlib
import sys

_INSPECTORS: dict[str, object] = {}
_PROGRESS: list[object] = []


def resolve_target(target):
    """``target`` itself, or the object a ``"module:name"`` string names (imported now: registrations stay lazy).

    >>> resolve_target("math:pi") > 3
    True
    """
    if not isinstance(target, str):
        return target
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def register_inspector(kind: str, target) -> None:
    """Use ``target`` (a class, or ``"module:Class"`` imported on first use) to inspect Results of
    domains of this ``kind`` (``"*"``: of every kind without its own); ``Result.inspect(seeds, **kw)``
    calls ``target(result, seeds, **kw)``."""
    _INSPECTORS[kind] = target


def inspector_for(kind: str):
    """The inspector class registered for ``kind``, else the default one (``"*"``); a LookupError
    naming the registered kinds if neither is."""
    kind = kind if kind in _INSPECTORS else "*"
    if kind not in _INSPECTORS:
        raise LookupError(f"no inspector for domain kind {kind!r} (registered: {', '.join(sorted(_INSPECTORS))}); "
                          "add one with fairnb.views.register_inspector")
    return resolve_target(_INSPECTORS[kind])


def register_progress_panel(target) -> None:
    """Use ``target`` (a class or ``"module:Class"``) as the live progress display in notebooks: it is
    called as ``target(search, stoppable=...)`` and its ``show()`` returns the event listener; a blocking call
    that is not a search (``fairnb.certify``) enters ``target.live(run)``, a context giving its listener."""
    _PROGRESS[:] = [target]


def in_notebook() -> bool:
    """True inside a Jupyter kernel (asked before any display is imported: a script imports no widget)."""
    ip = sys.modules.get("IPython")
    shell = ip.get_ipython() if ip is not None and hasattr(ip, "get_ipython") else None
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def progress_panel():
    """The registered progress display class, or None (then searches show a tqdm bar)."""
    return resolve_target(_PROGRESS[0]) if _PROGRESS else None

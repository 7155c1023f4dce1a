"""Where ``Search.run(..., executor=...)`` (or ``client=...``) finds who runs a search elsewhere, in shards.

The search core imports no executor. An executor registers the class of client it serves by name
(``"module:Class"``, matched over the client's classes without importing anything) with its entry
point (a callable, or ``"module:function"`` imported on first use); ``fairnb.distributed`` registers
every ``concurrent.futures.Executor`` (its shard driver) and Dask's ``distributed.Client``. The entry
point is called as::

    execute(search, model, domain, seeds, *, client, n_shards, listeners, oracle, should_stop) -> Result

with the model wrapped and the seeds validated (``Search.run`` checks them first), the listeners
including the search's progress display, and ``should_stop()`` saying whether ``search.stop()`` (or the
panel's Stop button) asked the run to end. Each part of the work runs ``Search.run`` on its workers.

Example
-------
>>> from fairnb.search.engine import executors
>>> class MyClient: pass
>>> executors.register_executor(f"{__name__}:MyClient", lambda search, *a, **kw: "ran elsewhere")
>>> executors.executor_for(MyClient())(None, None, None, None)
'ran elsewhere'
>>> executors.executor_for(object())
Traceback (most recent call last):
...
TypeError: client: no executor runs searches on a object; registered clients: ..., ...MyClient
"""
from __future__ import annotations

from ...views import resolve_target

_EXECUTORS: dict[str, object] = {}


def register_executor(client_class: str, target) -> None:
    """Run searches given a ``client`` of class ``client_class`` (``"module:Class"``, or a subclass of it)
    with ``target`` (a callable or ``"module:function"``; see the module docstring for its arguments)."""
    _EXECUTORS[client_class] = target


def executor_for(client):
    """The entry point registered for ``client``'s class (or the nearest of its base classes); a TypeError
    naming the registered client classes if there is none."""
    for cls in type(client).__mro__:
        target = _EXECUTORS.get(f"{cls.__module__}:{cls.__qualname__}")
        if target is not None:
            return resolve_target(target)
    raise TypeError(f"client: no executor runs searches on a {type(client).__name__}; registered clients: "
                    f"{', '.join(sorted(_EXECUTORS))}")


def one_executor(client, executor):
    """The run's executor: ``executor`` or ``client`` (two names for one thing; a Dask client is one executor),
    or None; a ValueError when both are given.

    >>> one_executor(None, "pool"), one_executor(None, None)
    ('pool', None)
    """
    if client is not None and executor is not None:
        raise ValueError("executor and client: give one of them (both name who runs the shards)")
    return executor if executor is not None else client

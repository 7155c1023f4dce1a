"""What a constraint is, and how a search's constraints are chosen.

A **constraint** is one part of a search (as TextAttack composes an attack from a goal, constraints, a
transformation and a search): it decides, for a batch of candidates, which ones keep a finding what a reader
believes it is, e.g. a text that still holds the same identity terms as its seed, a face still within a small
pixel change of the photo it came from. Two stages:

* ``"candidate"``: ``allowed(domain, X, seeds)`` sees the candidates and the seed each descends from (``None``
  where the search names no seed) before the oracle judges them;
* ``"pair"``: ``allowed(domain, X, seeds, counterparts)`` also sees the counterpart the oracle found (e.g.
  the attribute classifier must see the two faces differently).

A candidate that a constraint refuses is never reported: the search sees it as not discriminatory, and the
Result counts it under the constraint's ``name``. Every constraint has a ``name``, a one-line ``describe()``
and a JSON-able ``get_config()``, kept in the Result's parameters.

``resolve(spec, domain)`` turns a search's ``constraints`` parameter into a list: ``"default"`` (the domain's
``default_constraints()``), ``"paper"`` (none: the paper's unconstrained search), or a list of constraints,
in which the string ``"default"`` stands for the domain's defaults (``["default", MyConstraint()]`` adds one).

Example
-------
>>> import numpy as np
>>> class SmallSteps(Constraint):
...     name = "small_steps"
...     def allowed(self, domain, X, seeds, counterparts=None):
...         return np.abs(X - seeds).max(axis=1) <= 1
>>> SmallSteps().allowed(None, np.array([[0, 2], [1, 1]]), np.zeros((2, 2)))
array([False,  True])
>>> [c.name for c in resolve(["default", SmallSteps()], domain=None)]
['small_steps']
"""
from __future__ import annotations

import reprlib

import numpy as np

STAGES = ("candidate", "pair")


class Constraint:
    """Base class of the constraints (see the module docstring)."""

    name = "constraint"
    stage = "candidate"

    def allowed(self, domain, X, seeds, counterparts=None) -> np.ndarray:
        """``(n,)`` bool: the candidates ``X`` (seeds: the seed row of each, or None) this constraint allows."""
        raise NotImplementedError

    def describe(self) -> str:
        """What the constraint keeps, in one sentence a student understands."""
        return self.name

    def get_config(self) -> dict:
        """The constraint's settings, JSON-able (kept in the Result's ``params``)."""
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}

    def __repr__(self):
        settings = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({settings})"


def apply(constraint: Constraint, domain, X, seeds, counterparts=None) -> np.ndarray:
    """``constraint.allowed(...)`` checked: one bool per candidate of ``X``, else a ``TypeError`` naming the
    constraint and what it returned (``True``, ``None`` or an index array would silently keep or refuse them all).

    >>> class Everything(Constraint):
    ...     name = "everything"
    ...     def allowed(self, domain, X, seeds, counterparts=None):
    ...         return True
    >>> apply(Everything(), None, np.zeros((2, 1)), None)
    Traceback (most recent call last):
    TypeError: constraint 'everything' (Everything.allowed) must return one bool per candidate, a bool array of shape (2,); it returned True
    """
    mask = constraint.allowed(domain, X, seeds, counterparts)
    array = np.asarray(mask) if isinstance(mask, (list, tuple)) or hasattr(mask, "__array__") else None
    if array is None or array.dtype != bool or array.shape != (len(X),):
        got = (f"a {array.dtype} array of shape {array.shape}" if array is not None and array.dtype != object
               else reprlib.repr(mask))
        raise TypeError(f"constraint {constraint.name!r} ({type(constraint).__name__}.allowed) must return one bool "
                        f"per candidate, a bool array of shape ({len(X)},); it returned {got}")
    return array


def resolve(spec, domain) -> list[Constraint]:
    """The constraints a search's ``constraints`` parameter names (see the module docstring)."""
    if isinstance(spec, str):
        if spec not in ("default", "paper"):
            raise ValueError(f"constraints must be 'default', 'paper' or a list of constraints, got {spec!r}")
        spec = [spec]
    if spec is None:
        raise ValueError("constraints must be 'default', 'paper' or a list of constraints, got None")
    out: list[Constraint] = []
    for item in spec:
        if item == "default":
            out += list(getattr(domain, "default_constraints", lambda: [])())
        elif item == "paper":
            continue
        elif isinstance(item, Constraint):
            out.append(item)
        else:
            raise TypeError(f"constraints: {item!r} is not a fairnb.constraints.Constraint (nor 'default' or 'paper')")
    names = [c.name for c in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"constraints: {twice} given twice; each constraint once")
    return out


def seed_rows(seeds, seed_ids, X) -> np.ndarray | None:
    """The seed row of each candidate of ``X`` (``seeds[seed_ids]``), or None when the search named no seeds;
    a candidate with no seed (id -1) gets its own row, so "changed from the seed" reads 0 for it.

    >>> seed_rows(np.array([[1, 1], [2, 2]]), np.array([1, -1]), np.array([[5, 5], [7, 7]])).tolist()
    [[2, 2], [7, 7]]
    """
    if seeds is None or not len(seeds):
        return None
    ids = np.broadcast_to(np.asarray(seed_ids), (len(X),))
    if (ids < 0).all():
        return None
    rows = np.asarray(seeds)[np.clip(ids, 0, len(seeds) - 1)]
    mine = ids < 0
    if mine.any():
        rows = rows.astype(np.result_type(rows, X), copy=True)
        rows[mine] = np.asarray(X)[mine]
    return rows

"""One estimator convention: scikit-learn's ``BaseEstimator`` with per-class parameter constraints.

Every search (``fairnb.search.Search``), ``fairnb.group.TestSGD`` and ``fairnb.mitigation.Retrainer``
is an ``Estimator``: ``__init__`` lists its parameters explicitly and only stores them (subclasses pass
the inherited ones on with ``super().__init__(name=name, ...)``), and the class attribute
``_parameter_constraints`` maps each parameter to the values it allows, in the style of scikit-learn's
private ``sklearn.utils._param_validation``. A parameter may be any value of its list:

* ``Interval(Integral or Real, left, right, closed=...)``: a number in a range (``None``: unbounded;
  never a bool). A ``Real`` interval refuses NaN, and infinity unless it is closed at that unbounded
  end: ``Interval(Real, 0, None, closed="neither")`` is a finite positive number,
  ``closed="right"`` allows ``float("inf")`` too;
* ``Options({...})``: one of these values;
* ``None``; ``bool`` (also numpy's bools); another type (``list``, ``str``, ...); ``callable``;
* ``Satisfies(predicate, description)``: what the others cannot say.

Subclasses extend their parent's dict, ``{**Parent._parameter_constraints, "new": [...]}``.
The constraints are checked when the estimator runs or fits (scikit-learn's convention, so that
``set_params`` and ``clone`` never validate), by one function, ``check_params``, which raises
``InvalidParameterError`` (both a ``ValueError`` and a ``TypeError``) naming the class, the parameter
and what it allows. A misspelt keyword in the constructor (``TypeError``) or in ``set_params``
(``ValueError``) names the closest valid parameters.

Example
-------
>>> from numbers import Integral, Real
>>> class Walk(Estimator):
...     _parameter_constraints = {"steps": [Interval(Integral, 1, None, closed="left")],
...                               "rate": [Interval(Real, 0, 1, closed="right"), None]}
...     def __init__(self, steps: int = 10, rate: float | None = None):
...         self.steps = steps
...         self.rate = rate
>>> Walk(steps=5)
Walk(steps=5)
>>> check_params(Walk(steps=5, rate=0.5))
>>> check_params(Walk(rate=float("nan")))
Traceback (most recent call last):
...
fairnb.params.InvalidParameterError: Walk: rate must be a number in (0, 1] or None, got nan
>>> Walk(step=3)
Traceback (most recent call last):
...
TypeError: Walk has no parameter 'step' (did you mean 'steps'?); valid parameters: steps, rate
"""
from __future__ import annotations

import difflib
import inspect
import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator


class InvalidParameterError(ValueError, TypeError):
    """A parameter value its estimator does not allow (a ValueError and a TypeError, as scikit-learn's)."""


class Interval:
    """A number of ``type`` (``Integral`` or ``Real``) between ``left`` and ``right`` (None: unbounded).

    ``closed`` is ``"left"``, ``"right"``, ``"both"`` or ``"neither"``: which ends belong to it. Bools
    never do; a ``Real`` interval never holds NaN, and holds an infinity only at an unbounded, closed end.

    >>> Interval(Real, 0, None, closed="neither").is_satisfied_by(float("inf"))
    False
    >>> str(Interval(Real, 0, None, closed="right")), str(Interval(Integral, 0, 10, closed="both"))
    ('a number > 0 or inf', 'an integer in [0, 10]')
    """

    def __init__(self, type, left, right, *, closed: str):
        if type not in (Integral, Real) or closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"Interval(type, left, right, closed=...) needs Integral or Real and closed one of "
                             f"'left', 'right', 'both', 'neither'; got {type!r}, closed={closed!r}")
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def is_satisfied_by(self, value) -> bool:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, self.type) or value != value:
            return False
        left_in, right_in = self.closed in ("left", "both"), self.closed in ("right", "both")
        low = -math.inf if self.left is None else self.left
        high = math.inf if self.right is None else self.right
        return (value >= low if left_in else value > low) and (value <= high if right_in else value < high)

    def __str__(self):
        left_in, right_in = self.closed in ("left", "both"), self.closed in ("right", "both")
        what = "an integer" if self.type is Integral else "a number"
        if self.left is None and self.right is None:
            return what if self.type is Integral or self.closed == "both" else "a finite number"
        if self.left is not None and self.right is not None:
            return f"{what} in {'[' if left_in else '('}{self.left}, {self.right}{']' if right_in else ')'}"
        bound = (f">{'=' if left_in else ''} {self.left}" if self.left is not None
                 else f"<{'=' if right_in else ''} {self.right}")
        unbounded_in = right_in if self.left is not None else left_in   # does the interval reach infinity?
        if self.type is Integral:
            return f"{what} {bound}"
        return f"{what} {bound} or {'inf' if self.left is not None else '-inf'}" if unbounded_in else \
            f"a finite number {bound}"


class Options:
    """One of ``options`` (e.g. the names of a method's variants).

    >>> str(Options(("all", "reset"))), Options(("all", "reset")).is_satisfied_by(["all"])
    ("one of ('all', 'reset')", False)
    """

    def __init__(self, options):
        self.options = tuple(options)

    def is_satisfied_by(self, value) -> bool:
        try:
            return any(value == o and isinstance(value, type(o)) for o in self.options)
        except (TypeError, ValueError):
            return False

    def __str__(self):
        return f"one of {self.options}"


class Satisfies:
    """A value for which ``predicate(value)`` is true, described as ``description`` in errors.

    >>> Satisfies(lambda v: v % 2 == 0, "an even number").is_satisfied_by(4)
    True
    """

    def __init__(self, predicate, description: str):
        self.predicate, self.description = predicate, description

    def is_satisfied_by(self, value) -> bool:
        try:
            return bool(self.predicate(value))
        except (TypeError, ValueError, ArithmeticError):
            return False

    def __str__(self):
        return self.description


class _Is:
    """``None``, ``bool``, ``callable`` or another type, as a constraint."""

    def __init__(self, allowed):
        self.allowed = allowed

    def is_satisfied_by(self, value) -> bool:
        if self.allowed is None:
            return value is None
        if self.allowed is callable:
            return callable(value)
        if self.allowed is bool:
            return isinstance(value, (bool, np.bool_))
        return isinstance(value, self.allowed)

    def __str__(self):
        names = {None: "None", bool: "True or False", callable: "a callable"}
        return names.get(self.allowed) or f"a {self.allowed.__name__}"


#: constraints that many parameters share
COUNT = Interval(Integral, 1, None, closed="left")           # a positive count: seeds, a batch size
STEPS = Interval(Integral, 0, None, closed="left")           # a number of steps (0: none)
POSITIVE = Interval(Real, 0, None, closed="neither")         # a finite positive number: a step size
SHARE = Interval(Real, 0, 1, closed="both")                  # a probability or a share
FINITE = Interval(Real, None, None, closed="neither")        # any finite number
#: ``random_state`` of every estimator: a seed that numpy's generators and scikit-learn's K-Means accept,
#: or a ``SeedSequence`` (what ``fairnb.distributed`` gives each shard of a sharded run)
RANDOM_STATE = [None, Interval(Integral, 0, 2**32 - 1, closed="both"), np.random.SeedSequence]


def _constraint(c):
    return c if hasattr(c, "is_satisfied_by") else _Is(c)


def _label(cls) -> str:
    """How messages name an estimator class: a search also by its method name."""
    name = getattr(cls, "name", None)
    return f"{cls.__name__} ({name!r})" if isinstance(name, str) else cls.__name__


def check_params(estimator) -> None:
    """Check every parameter of ``estimator`` against its class's ``_parameter_constraints``.

    Raises ``InvalidParameterError`` for the first value that none of its constraints allows (a
    parameter without constraints is not checked).

    >>> from fairnb.search import RandomSearch
    >>> check_params(RandomSearch(n_samples=0))
    Traceback (most recent call last):
    ...
    fairnb.params.InvalidParameterError: RandomSearch ('random'): n_samples must be an integer >= 1 or None, got 0
    """
    constraints = type(estimator)._parameter_constraints
    for name, value in estimator.get_params(deep=False).items():
        allowed = [_constraint(c) for c in constraints.get(name, ())]
        if allowed and not any(c.is_satisfied_by(value) for c in allowed):
            allowed.sort(key=lambda c: isinstance(c, _Is) and c.allowed is None)      # "... or None" last
            said = [str(c) for c in allowed]
            said = said[0] if len(said) == 1 else f"{', '.join(said[:-1])} or {said[-1]}"
            raise InvalidParameterError(f"{_label(type(estimator))}: {name} must be {said}, got {value!r}")


def unknown_parameters(cls, names) -> str:
    """The message for parameters ``cls`` does not have: the class, the closest valid names, all valid names.

    >>> from fairnb.search import RandomSearch
    >>> unknown_parameters(RandomSearch, ["n_sample"])
    "RandomSearch ('random') has no parameter 'n_sample' (did you mean 'n_samples'?); valid parameters: n_samples, batch_size, max_time, max_tried, max_found, random_state, progress, constraints, control"
    """
    valid = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]    # in the signature's order
    parts = []
    for name in names:
        close = difflib.get_close_matches(str(name), valid, n=1)
        parts.append(repr(name) + (f" (did you mean {close[0]!r}?)" if close else ""))
    return f"{_label(cls)} has no parameter {', '.join(parts)}; valid parameters: {', '.join(valid)}"


class Estimator(BaseEstimator):
    """scikit-learn's ``BaseEstimator`` (``get_params``, ``set_params``, ``clone``, repr) with fairnb's
    parameter constraints (``_parameter_constraints``, checked by ``_validate_params``) and, for a
    misspelt parameter, a message with the closest valid names (see the module docstring)."""

    _parameter_constraints: dict = {}

    def __new__(cls, *args, **params):
        # a misspelt keyword gets the closest valid names, instead of Python's bare "unexpected keyword argument"
        unknown = [k for k in params if k not in cls._get_param_names()]
        if unknown:
            raise TypeError(unknown_parameters(cls, unknown))
        return super().__new__(cls)

    def set_params(self, **params):
        """Set parameters, as scikit-learn's ``set_params``; an unknown name raises ``ValueError`` naming
        the closest valid ones."""
        unknown = [k for k in params if k.partition("__")[0] not in self._get_param_names()]
        if unknown:
            raise ValueError(unknown_parameters(type(self), unknown))
        return super().set_params(**params)

    def _validate_params(self):
        """Check the parameters against ``_parameter_constraints`` (``check_params``); ``run``/``fit`` call it."""
        check_params(self)

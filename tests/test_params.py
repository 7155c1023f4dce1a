"""One estimator convention (issue 23, item 4): every search, TestSGD and Retrainer is a scikit-learn
estimator whose parameters are declared in ``_parameter_constraints`` and checked by one function when it
runs; a value it does not allow (a wrong type, NaN, infinity where a finite number is needed, a number
outside its range, an unknown option) raises an error naming the class, the parameter and what is allowed."""
from __future__ import annotations

import math
import subprocess
import sys
from numbers import Integral, Real

import pytest
from sklearn.base import BaseEstimator, clone

from fairnb.group import TestSGD
from fairnb.mitigation import RuleGuidedMitigation
from fairnb.group.text import TextTestSGD
from fairnb.mitigation import Retrainer
from fairnb.params import Interval, InvalidParameterError, Options, _constraint
from fairnb.search import METHODS, get_method

ESTIMATORS = sorted({get_method(name) for name in METHODS} | {TestSGD, TextTestSGD, Retrainer, RuleGuidedMitigation},
                    key=lambda c: c.__name__)


@pytest.fixture(params=ESTIMATORS, ids=lambda c: c.__name__)
def cls(request):
    return request.param


def bad_values(constraints) -> list:
    """Values that none of ``constraints`` allows: wrong types, and for each interval NaN, infinities and
    numbers just outside it (a fraction for an integer), for each set of options an unknown one."""
    values = ["abc", object(), [1]]
    for c in constraints:
        if isinstance(c, Interval):
            values += [math.nan, math.inf, -math.inf] if c.type is Real else [0.5 + (c.left or 0)]
            if c.left is not None:
                values += [c.left - 1, c.left]
            if c.right is not None:
                values += [c.right + 1, c.right]
        elif isinstance(c, Options):
            values.append("no-such-option")
    return [v for v in values if not any(_constraint(k).is_satisfied_by(v) for k in constraints)]


def test_every_parameter_is_constrained_and_the_defaults_are_allowed(cls):
    names = cls._get_param_names()
    assert set(names) <= set(cls._parameter_constraints), f"{cls.__name__}: parameters without constraints"
    cls()._validate_params()


def test_a_disallowed_value_names_the_class_and_the_parameter(cls):
    checked = 0
    for name in cls._get_param_names():
        constraints = cls._parameter_constraints[name]
        numeric = [c for c in constraints if isinstance(c, Interval)]
        values = bad_values(constraints)
        if numeric:       # a wrong type, NaN and an out-of-range number are among them
            assert "abc" in values and any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
            assert all(c.type is Integral for c in numeric) or any(v != v for v in values if isinstance(v, float))
        for value in values:
            search = cls().set_params(**{name: value})
            with pytest.raises(InvalidParameterError, match=rf"^{cls.__name__}\b.*: {name} must be .*, got ") as e:
                search._validate_params()
            assert isinstance(e.value, ValueError) and isinstance(e.value, TypeError)
            checked += 1
    assert checked


def test_scikit_learn_estimator_round_trip(cls):
    assert issubclass(cls, BaseEstimator)
    names = cls._get_param_names()
    est = cls()
    deep = est.get_params(deep=True)
    assert deep == est.get_params(deep=False) and list(deep) == sorted(names)
    changed = {"random_state": 7} if "random_state" in names else {}
    tuned = clone(est).set_params(**changed)
    copy = clone(tuned)
    assert copy is not tuned and copy.get_params() == tuned.get_params()
    assert repr(copy) == f"{cls.__name__}({'random_state=7' if changed else ''})"


def test_misspelt_parameters_get_the_closest_names(cls):
    name = cls._get_param_names()[0]
    with pytest.raises(TypeError, match=rf"{cls.__name__}\b.* has no parameter '{name}x' \(did you mean '{name}'\?\)"):
        cls(**{name + "x": 1})
    with pytest.raises(ValueError, match=rf"has no parameter '{name}x' \(did you mean '{name}'\?\)"):
        cls().set_params(**{name + "x": 1})


def test_the_estimators_load_lazily_and_build_on_scikit_learn():
    """``import fairnb`` stays light (no scikit-learn); the search classes load it on first use."""
    code = ("import sys, fairnb; assert 'sklearn' not in sys.modules, 'import fairnb loaded scikit-learn'; "
            "from fairnb.search import RandomSearch; from sklearn.base import BaseEstimator; "
            "assert issubclass(RandomSearch, BaseEstimator)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr

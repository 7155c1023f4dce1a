"""Property-based: whatever goes into a Feature, a TabularDomain's protected attributes or a search's seeds,
the answer is a working object or a ValueError/TypeError that names the argument, never another exception
and never a silent repair (fractional bounds are not floored, strings are not split into characters)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairnb import Feature, TabularDomain

anything = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True),
                     st.text(max_size=4), st.complex_numbers(max_magnitude=10), st.lists(st.integers(0, 3), max_size=3))


@settings(max_examples=150, deadline=None)
@given(low=anything, high=anything)
def test_feature_bounds_are_integers_or_a_named_error(low, high):
    try:
        f = Feature("age", low, high)
    except (ValueError, TypeError) as e:
        assert "'age'" in str(e) and ("low" in str(e) or "high" in str(e))
        return
    for given_bound, bound in ((low, f.low), (high, f.high)):
        assert isinstance(bound, int) and not isinstance(given_bound, bool)
        assert float(given_bound) == bound and math.isfinite(float(given_bound))
    assert f.low <= f.high


@settings(max_examples=100, deadline=None)
@given(labels=st.one_of(st.text(max_size=3), st.lists(st.text(max_size=2), max_size=3)))
def test_labels_are_one_per_value_or_a_named_error(labels):
    try:
        f = Feature("sex", 0, 1, labels=labels)
    except (ValueError, TypeError) as e:
        assert "'sex'" in str(e) and "labels" in str(e)
        return
    assert not isinstance(labels, str) and f.labels == tuple(labels) and len(labels) == 2


FEATURES = [Feature("sex", 0, 1), Feature("race", 0, 4), Feature("age", 1, 9)]


@settings(max_examples=100, deadline=None)
@given(protected=st.one_of(anything, st.sampled_from(["sex", "sex,race", "", " ", "age,sex,race", "sx"]),
                           st.lists(st.sampled_from(["sex", "race", "age", 0, 1, 5, True]), max_size=3)))
def test_protected_attributes_are_named_features_or_a_named_error(protected):
    try:
        dom = TabularDomain(FEATURES, protected)
    except (ValueError, TypeError) as e:
        assert "protected" in str(e) or "feature" in str(e)
        return
    assert 0 <= len(dom.protected) < len(FEATURES) and len(set(dom.protected)) == len(dom.protected)
    if isinstance(protected, str):
        assert set(dom.protected_names) == {p.strip() for p in protected.split(",")}


@settings(max_examples=150, deadline=None)
@given(seeds=st.lists(st.lists(st.one_of(st.integers(-2, 10), st.floats(allow_nan=True),
                                         st.complex_numbers(max_magnitude=5)), min_size=3, max_size=3),
                      min_size=1, max_size=4))
def test_seeds_are_validated_with_a_named_error(seeds):
    dom = TabularDomain(FEATURES, ["sex"])
    try:
        X = dom.validate(np.array(seeds, dtype=object) if seeds else seeds, what="seeds")
    except ValueError as e:
        assert str(e).startswith("seeds")
        return
    assert np.isrealobj(X) and np.isfinite(X).all() and ((X >= dom.lower) & (X <= dom.upper)).all()


def test_a_string_protected_attribute_is_never_split_into_characters():
    with pytest.raises(ValueError, match="unknown feature 'sx'"):
        TabularDomain(FEATURES, "sx")


@pytest.mark.parametrize("names, protected, bad", [
    (["p", "age"], ["p"], "p"), (["sex", "p"], ["sex"], "p"), (["sex", "label'"], ["sex"], "label'"),
    (["sex", "time"], ["sex"], "time"), (["sex", "seed", "x"], ["sex"], "seed"),
    (["sex", "sex'"], ["sex"], "sex'"), (["sex", "age", "age'"], ["sex"], "age'")])
def test_a_feature_named_as_a_column_of_the_pairs_is_refused(names, protected, bad):
    # issue #34: a protected feature `p` gave result.pairs one p' (the probabilities), and directions() read the
    # probabilities as protected values (1,856 rows instead of 2)
    with pytest.raises(ValueError, match=rf"feature {bad!r}: result.pairs names its own columns p, p', label.*"
                                         r"rename the feature"):
        TabularDomain([Feature(n, 0, 1) for n in names], protected=protected)


def test_a_feature_may_hold_a_pair_column_name_inside_its_own():
    dom = TabularDomain([Feature(n, 0, 1) for n in ["sex", "p_value", "label_0", "a'b", "time'"]], protected=["sex"])
    assert dom.names[1:] == ("p_value", "label_0", "a'b", "time'")

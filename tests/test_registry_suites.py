"""A method registered from outside fairnb is held to every suite that iterates the registry: the conformance
checks (``tests/test_search_conformance.py``: estimator conventions, the record and its labels, seeds used or
refused, two shards against one), and the Ctrl-C and failing-model checks (``tests/test_reliability.py``).
The toy method is defined here, registered for each check and unregistered after it."""
from __future__ import annotations

import inspect

import pytest

import test_reliability as reliability
import test_search_conformance as conformance
from fairnb.search import METHODS, RandomSearch, get_method
from fairnb.search.registry import MethodRecord, method_record, register, unregister
from test_reliability import text_bench  # noqa: F401 - fixtures the checks ask for
from test_search_conformance import image_case, tabular_case, text_case  # noqa: F401


class ToyRandom(RandomSearch):
    """A user's method: uniform random sampling under a name of its own."""

    name = "toy_random"


TOY = MethodRecord("toy_random", f"{__name__}:ToyRandom", divided=("n_samples",), takes_seeds=False,
                   fast={"n_samples": 3000, "batch_size": 500})


@pytest.fixture
def toy():
    register(TOY)
    try:
        yield TOY.load()
    finally:
        unregister(TOY.name)


def registry_checks(module, argument: str, over=None) -> list:
    """The tests of ``module`` that take a registered method as ``argument`` (parametrized ``over`` those names,
    if given), each with the values of its other parametrized arguments: ``[(test, {name: value}), ...]``."""
    checks = []
    for name, test in sorted(vars(module).items()):
        if not name.startswith("test_") or argument not in inspect.signature(test).parameters:
            continue
        marks = [m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]
        if over is not None and not any(m.args[0] == argument and list(m.args[1]) == list(over) for m in marks):
            continue
        grid = [{}]
        for mark in (m for m in marks if m.args[0] != argument):
            grid = [{**g, mark.args[0]: value} for g in grid for value in mark.args[1]]
        checks += [(test, params) for params in grid]
    return checks


def check_id(check) -> str:
    test, params = check
    return "-".join([test.__name__, *map(str, params.values())])


def call(test, given: dict, request):
    """``test`` with ``given`` arguments, the others its fixtures."""
    return test(**{name: given[name] if name in given else request.getfixturevalue(name)
                   for name in inspect.signature(test).parameters})


@pytest.mark.parametrize("check", registry_checks(conformance, "cls"), ids=check_id)
def test_conformance(check, toy, request):
    test, params = check
    call(test, {**params, "cls": toy, "case": conformance.case_for(toy, request)}, request)


@pytest.mark.parametrize("check", registry_checks(reliability, "method", over=reliability.METHODS), ids=check_id)
def test_reliability(check, toy, request):
    test, params = check
    call(test, {**params, "method": TOY.name}, request)


def test_the_reliability_checks_over_every_method_are_found():
    names = {test.__name__ for test, _ in registry_checks(reliability, "method", over=reliability.METHODS)}
    assert names == {"test_ctrl_c_returns_the_result", "test_double_ctrl_c_still_returns_the_result",
                     "test_a_model_failing_midway_keeps_the_partial_result"}


def test_registering_and_unregistering(toy):
    assert get_method("toy_random") is toy and method_record(toy()) is TOY and "toy_random" in METHODS
    assert conformance.fast(toy).n_samples == 3000
    with pytest.raises(ValueError, match="already registered"):
        register(TOY)


def test_an_unregistered_toy_is_unknown():
    assert "toy_random" not in METHODS
    with pytest.raises(ValueError, match="unknown method 'toy_random'"):
        get_method("toy_random")


def test_a_record_says_which_field_is_wrong():
    with pytest.raises(ValueError, match="MethodRecord 'bad': inputs must be one of"):
        MethodRecord("bad", "m:C", inputs="audio")
    with pytest.raises(ValueError, match="MethodRecord 'bad': target must be 'module:Class'"):
        MethodRecord("bad", "m.C")


def test_a_record_missing_its_fast_configuration_fails_the_conformance_check_naming_it(request):
    register(MethodRecord("toy_random", TOY.target, divided=("n_samples",), takes_seeds=False))
    try:
        with pytest.raises(AssertionError, match="toy_random: its record has no 'fast' configuration"):
            conformance.test_the_record_is_complete_and_agrees_with_the_class(ToyRandom)
    finally:
        unregister("toy_random")

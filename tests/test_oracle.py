import numpy as np
import pytest

from fairnb.domains import Feature, TabularDomain
from fairnb.models import FunctionModel
from fairnb.counting import UniqueCounter
from fairnb.oracle import Oracle


@pytest.fixture
def dom():
    return TabularDomain([Feature("g", 0, 2), Feature("x", 0, 9), Feature("y", 0, 9)], protected=["g"])


def test_one_model_call_for_all_inputs_and_variants(dom, rng):
    calls = []
    model = FunctionModel(lambda X: calls.append(len(X)) or (X[:, 1] + X[:, 0] > 5).astype(float))
    X = dom.sample(100, rng)
    v = Oracle(model, dom).check(X)
    assert calls == [300]
    # brute-force ground truth
    for i in range(100):
        labels = {int(X[i, 1] + g > 5) for g in range(3)}
        assert v.discriminatory[i] == (len(labels) > 1)
    d = v.discriminatory
    assert (v.counterpart[d][:, 1:] == X[d][:, 1:]).all()
    assert (v.counterpart_proba.argmax(1)[d] != v.labels[d]).all()
    assert (v.counterpart[~d] == X[~d]).all()


def test_model_ignoring_protected_attribute_is_never_discriminatory(dom, rng):
    v = Oracle(FunctionModel(lambda X: (X[:, 1] > X[:, 2]).astype(float)), dom).check(dom.sample(500, rng))
    assert not v.discriminatory.any()


def test_outputs_that_are_not_probabilities_are_rejected(dom):
    X = np.zeros((2, 3))
    with pytest.raises(ValueError, match="not a probability"):
        Oracle(FunctionModel(lambda X: X[:, 1] * 0 + 3.0), dom).check(X)
    with pytest.raises(ValueError, match="do not sum to 1"):
        Oracle(FunctionModel(lambda X: np.full((len(X), 2), 0.7)), dom).check(X)
    with pytest.raises(ValueError, match="NaN"):
        Oracle(FunctionModel(lambda X: np.full(len(X), np.nan)), dom).check(X)
    with pytest.raises(ValueError, match="shape"):
        Oracle(FunctionModel(lambda X: np.ones(3)), dom).check(X)


def test_bad_inputs_are_rejected(dom):
    o = Oracle(FunctionModel(lambda X: X[:, 1] / 9), dom)
    with pytest.raises(ValueError, match="outside its bounds"):
        o.check([[0, 10, 0]])
    with pytest.raises(ValueError, match="no protected attribute"):
        Oracle(FunctionModel(lambda X: X[:, 1] / 9), TabularDomain(dom.features))


def test_counting_conventions():
    dom = TabularDomain([Feature("g", 0, 1), Feature("x", 0, 9)], protected=["g"])
    X = np.array([[0, 1], [1, 1], [0, 1], [0, 2]], float)
    eidig, adf = UniqueCounter(dom, "eidig"), UniqueCounter(dom, "adf")
    assert eidig.add(X).tolist() == [True, True, False, True] and len(eidig) == 3
    assert adf.add(X).tolist() == [True, False, False, True] and len(adf) == 2
    assert adf.add(X[:1]).tolist() == [False]
    with pytest.raises(ValueError, match="convention"):
        UniqueCounter(dom, "other")


def test_max_difference_counterpart(dom):
    model = FunctionModel(lambda X: 0.1 + 0.15 * X[:, 0])  # never flips; g moves the output
    v = Oracle(model, dom, validate=False).check(np.array([[0, 200, 0]], float))
    assert not v.discriminatory[0]
    assert v.max_difference_index[0] == 2

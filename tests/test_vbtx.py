"""VBT-X's own oracles (docs/methods/vbtx.md §7): the formula's solutions are pairs that the tree discriminates,
inside the domain; XOR hashing draws many distinct pairs where z3 alone repeats one; planted discrimination is found
and re-checks, a model that ignores the attribute yields nothing; bad arguments are named."""
import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from fairnb.search.methods.aft import AFT
from fairnb.search.methods.vbtx import VBTX, PairFormula

from blackbox_checks import assert_pairs_rechecked


@pytest.fixture(scope="module")
def formula_and_tree(synthetic, biased_model):
    dom = synthetic.domain
    X = dom.sample(3000, np.random.default_rng(0))
    tree = DecisionTreeClassifier(criterion="entropy", max_leaf_nodes=60, random_state=0).fit(
        X, biased_model.predict_proba(X).argmax(1))
    return PairFormula(tree, dom.lower, dom.upper, dom.protected), tree


def assert_discriminatory_in_tree(X1, X2, tree, dom):
    P, free = list(dom.protected), dom.non_protected
    dom.validate(X1), dom.validate(X2)            # inside the bounds (the artifact's formula has none)
    assert (X1[:, free] == X2[:, free]).all()
    assert (X1[:, P] > X2[:, P]).any(axis=1).all()
    assert (tree.predict(X1) != tree.predict(X2)).all()


def test_solutions_are_pairs_the_tree_discriminates(synthetic, formula_and_tree):
    formula, tree = formula_and_tree
    X1, X2 = formula.sample(np.random.default_rng(1), max_solutions=40)
    assert len(X1) == 40
    assert_discriminatory_in_tree(X1, X2, tree, synthetic.domain)
    S1, S2 = formula.spread(X1, X2, np.random.default_rng(2))       # cell_values="uniform": same cells, new values
    assert_discriminatory_in_tree(S1, S2, tree, synthetic.domain)
    assert (S1 != X1).any()
    for f, cuts in formula.atoms.items():
        assert all(((S1[:, f] <= c) == (X1[:, f] <= c)).all() for c in cuts)


def test_xor_hashing_draws_more_distinct_pairs_than_z3_alone(formula_and_tree):
    formula, _ = formula_and_tree
    hashed, _ = formula.sample(np.random.default_rng(3), max_solutions=30)
    alone, _ = formula.sample(np.random.default_rng(3), n_xor=0, calibrate=False, max_solutions=30)
    assert len(hashed) == len(alone) == 30
    assert len(np.unique(hashed, axis=0)) >= 5 * len(np.unique(alone, axis=0))


def test_a_tree_without_discrimination_has_no_solution(synthetic, fair_model):
    dom = synthetic.domain
    X = dom.sample(3000, np.random.default_rng(0))
    tree = DecisionTreeClassifier(max_depth=3).fit(X, fair_model.predict_proba(X).argmax(1))
    assert not any(tree.tree_.feature[tree.tree_.feature >= 0] == dom.protected[0])
    X1, X2 = PairFormula(tree, dom.lower, dom.upper, dom.protected).sample(np.random.default_rng(0))
    assert X1.shape == X2.shape == (0, dom.n_features)


def test_finds_planted_discrimination_and_nothing_in_a_fair_model(synthetic, biased_model, fair_model):
    r = VBTX(n_loops=4, n_train=2000, max_solutions=30, random_state=0).run(biased_model, synthetic.domain)
    assert r.status == "completed" and r.count() > 20 and r.extras["loops"] == 4
    assert_pairs_rechecked(r, biased_model, synthetic.domain)
    uniform = VBTX(n_loops=4, n_train=2000, max_solutions=30, cell_values="uniform",
                   random_state=0).run(biased_model, synthetic.domain)
    assert uniform.count() > 20
    assert_pairs_rechecked(uniform, biased_model, synthetic.domain)
    fair = VBTX(n_loops=4, n_train=2000, max_solutions=30, random_state=0).run(fair_model, synthetic.domain)
    assert fair.count() == 0 and fair.extras["fresh_starts"] >= 1


@pytest.mark.parametrize("name, value", [("cell_values", "random"), ("n_xor", -1), ("max_leaf_nodes", 1),
                                         ("calibrate", "yes"), ("max_solutions", 0), ("max_tries", 1.5)])
def test_bad_arguments_name_the_parameter(name, value, synthetic, biased_model):
    with pytest.raises(ValueError, match=rf"VBTX \('vbtx'\): {name} must be .*, got "):
        VBTX(n_loops=1, **{name: value}).run(biased_model, synthetic.domain)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("method", [VBTX, AFT])
def test_a_budget_ends_a_search_whose_trees_never_discriminate(method, synthetic):
    """A constant model gives one-leaf trees: no loop yields a batch, and the budget must still end the run
    (it ran forever before)."""
    r = method(n_train=200, max_time=1, random_state=0).run(lambda X: np.full(len(X), 0.2), synthetic.domain)
    assert r.status == "budget" and r.tried == 0 and r.extras["fresh_starts"] >= 1

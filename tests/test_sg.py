import math

import numpy as np
import pytest

from fairnb.domains import Feature, TabularDomain
from fairnb.models import FunctionModel
from fairnb.search.engine.seeds import cluster_seeds
from fairnb.search.methods.sg import SymbolicGeneration
from fairnb.search.parts.symbolic import (LimeSampler, Predicate, PriorityQueue, Z3Solver, global_constraints,
                                    local_constraints, rank, tree_path)

from blackbox_checks import assert_pairs_rechecked, rows_searched

FAST = dict(n_samples=400, batch_size=8)


# ---------------------------------------------------------------- constraints (digest oracle O7)
C1, C2, C3, C4 = (Predicate(0, "<=", 4.5, 0.9), Predicate(1, ">", 0.5, 0.1),   # c2 is on the protected x1
                  Predicate(2, ">", 2.5, 0.2), Predicate(3, "<=", 7.5, 0.8))
PATH = (C1, C2, C3, C4)
N = Predicate.negated


def test_global_constraints_of_a_hand_built_path():
    assert global_constraints(PATH, protected={1}, threshold=0.3) == [(N(C1),)]
    assert global_constraints(PATH, protected={1}, threshold=0.0) == [(N(C1),), (C1, N(C3)), (C1, C3, N(C4))]
    assert global_constraints(PATH, protected={1}, threshold=1.5) == []


def test_local_constraints_of_a_hand_built_path():
    assert local_constraints(PATH, protected={1}) == [(N(C1), C2, C3, C4), (C1, C2, N(C3), C4), (C1, C2, C3, N(C4))]


def test_rank_uses_the_original_or_the_complement_confidence():
    assert rank(global_constraints(PATH, {1}, 0.0)[1]) == pytest.approx((0.9 + 0.2) / 2)
    assert rank(global_constraints(PATH, {1}, 0.0, negated_confidence="complement")[1]) == pytest.approx((0.9 + 0.8) / 2)
    with pytest.raises(ValueError, match="negated_confidence"):
        global_constraints(PATH, {1}, negated_confidence="flip")


def test_candidates_local_first_then_global_and_the_visited_set_is_shared():
    dom = TabularDomain([Feature(f"x{i}", 0, 9) for i in range(4)], protected=["x1"])
    sg = SymbolicGeneration(threshold=0.3)
    visited = set()
    got = sg.candidates(PATH, True, dom, visited)
    assert [(c, origin) for c, _, _, origin in got] == (
        [(c, "local") for c in local_constraints(PATH, {1})] + [((N(C1),), "global")])
    assert all(sticky == (origin == "local") for _, sticky, _, origin in got)
    assert sg.candidates(PATH, True, dom, visited) == []          # all visited now
    # one-predicate path: local and global constraint coincide; solved once, with the local key
    visited = set()
    one = sg.candidates((C1,), True, dom, visited)
    assert len(one) == 1 and one[0][3] == "local" and one[0][2] == pytest.approx(10 - 0.9)
    # equal integer boxes are the same constraint: x0 <= 4.5 and x0 <= 4.9 allow the same integers
    assert sg.candidates((Predicate(0, "<=", 4.9, 0.9),), True, dom, visited) == []
    # non-discriminatory input: global only
    assert [o for *_, o in sg.candidates(PATH, False, dom, set())] == ["global"]


# ---------------------------------------------------------------- surrogate path (O6)
def test_tree_path_is_satisfied_by_its_input_and_confidences_are_branch_fractions(rng):
    from sklearn.tree import DecisionTreeClassifier

    X = rng.integers(0, 10, (600, 4)).astype(float)
    y = ((X[:, 0] > 4) ^ (X[:, 2] > 6)).astype(int)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    t = tree.tree_
    for x in X[:30]:
        path = tree_path(tree, x)
        assert len(path) > 0 and all(p.holds(x) for p in path)
        node = 0
        for p in path:
            left, right = t.children_left[node], t.children_right[node]
            assert p.feature == t.feature[node] and p.threshold == t.threshold[node]
            child = left if p.op == "<=" else right
            other = right if p.op == "<=" else left
            assert p.confidence == pytest.approx(t.n_node_samples[child] / t.n_node_samples[node])
            assert p.confidence + t.n_node_samples[other] / t.n_node_samples[node] == pytest.approx(1.0)
            node = child
        assert t.children_left[node] == -1  # ended in a leaf


# ---------------------------------------------------------------- z3 (O8)
def _interval(constraint, f, lo, hi):
    """Closed-form integer interval of feature f allowed by the constraint (independent of the solver)."""
    a, b = lo, hi
    for p in constraint:
        if p.feature == f:
            if p.op == "<=":
                b = min(b, math.floor(p.threshold))
            else:
                a = max(a, math.floor(p.threshold) + 1)
    return a, b


@pytest.mark.parametrize("prescreen", [True, False])
def test_z3_answers_satisfy_their_constraints_and_agree_with_interval_arithmetic(rng, prescreen):
    lower, upper = np.zeros(5), np.array([9, 3, 20, 1, 6.0])
    constraints, anchors, nearest = [], [], []
    for _ in range(60):
        k = rng.integers(1, 6)
        constraints.append(tuple(Predicate(int(f), "<=" if rng.random() < 0.5 else ">", float(rng.integers(-2, 22) + rng.choice([0.5, 0.25, 0.0])))
                                 for f in rng.integers(0, 5, k)))
        anchors.append(np.array([rng.integers(0, u + 1) for u in upper], dtype=float))
        nearest.append(bool(rng.random() < 0.5))
    solver = Z3Solver(lower, upper, prescreen=prescreen)
    answers = solver.solve(constraints, np.array(anchors), nearest)
    n_sat = 0
    for c, a, near, x in zip(constraints, anchors, nearest, answers):
        boxes = {f: _interval(c, f, lower[f], upper[f]) for f in {p.feature for p in c}}
        if any(lo > hi for lo, hi in boxes.values()):
            assert x is None
            continue
        n_sat += 1
        assert x is not None and all(p.holds(x) for p in c)
        assert ((x >= lower) & (x <= upper)).all() and np.array_equal(x, np.rint(x))
        free = [f for f in range(5) if f not in boxes]
        assert np.array_equal(x[free], a[free])
        if near:  # sticky: the clamp of the anchor into the interval
            assert all(x[f] == min(max(a[f], lo), hi) for f, (lo, hi) in boxes.items())
    assert 0 < n_sat < 60 and solver.sat == n_sat and solver.unsat == 60 - n_sat
    assert solver.checks == (1 if prescreen else 60)


def test_sticky_local_solution_changes_only_the_toggled_feature():
    path = (Predicate(0, "<=", 6.5, 0.7), Predicate(2, ">", 1.5, 0.6), Predicate(0, ">", 2.5, 0.5))
    t = np.array([4.0, 1.0, 3.0])
    constraints = local_constraints(path, protected={1})
    assert len(constraints) == len(path)                      # every negation is satisfiable in the bounds
    for k, c in enumerate(constraints):
        (x,) = Z3Solver([0, 0, 0], [9, 1, 9]).solve([c], t[None], [True])
        assert x is not None
        changed = np.flatnonzero(x != t)
        assert len(changed) == 1 and changed[0] == path[k].feature
    # negating x0 <= 6.5 while keeping x0 > 2.5: nearest is 7; negating x0 > 2.5 keeping x0 <= 6.5: nearest is 2
    got = Z3Solver([0, 0, 0], [9, 1, 9]).solve(local_constraints(path, {1}), np.array([t] * 3), [True] * 3)
    assert got[0].tolist() == [7, 1, 3] and got[1].tolist() == [4, 1, 1] and got[2].tolist() == [2, 1, 3]


# ---------------------------------------------------------------- queue (O10)
def test_queue_order_local_ascending_then_seeds_fifo_then_global_descending():
    sg = SymbolicGeneration()
    q = PriorityQueue()
    q.push(sg.rank_seed, "s1")
    q.push(sg.rank_global + 0.9, "g-high")
    q.push(sg.rank_local - 0.8, "l-high-conf")
    q.push(sg.rank_seed, "s2")
    q.push(sg.rank_global + 0.2, "g-low")
    q.push(sg.rank_local - 0.1, "l-low-conf")
    q.push(sg.rank_seed, "s3")
    assert [q.pop() for _ in range(len(q))] == ["l-low-conf", "l-high-conf", "s1", "s2", "s3", "g-high", "g-low"]
    with pytest.raises(IndexError):
        q.pop()


# ---------------------------------------------------------------- sampler
def test_lime_sampler(rng):
    data = np.column_stack([rng.integers(0, 3, 200), rng.choice([10, 20], 200, p=[0.9, 0.1])]).astype(float)
    X = np.array([[2.0, 20.0], [0.0, 15.0]])
    S = LimeSampler(data, [0, 0], [5, 30], n_samples=3000).sample(X, rng)
    assert S.shape == (2, 3000, 2) and np.array_equal(S[:, 0], X)
    assert set(np.unique(S[:, 1:, 1])) == {10.0, 20.0}
    assert abs((S[:, 1:, 1] == 10).mean() - (data[:, 1] == 10).mean()) < 0.03
    G = LimeSampler(data, [0, 0], [5, 30], n_samples=500, mode="gaussian").sample(X, rng)
    assert G.min() >= 0 and G[..., 1].max() <= 30 and np.array_equal(G, np.rint(G))
    with pytest.raises(ValueError, match="mode"):
        LimeSampler(data, [0, 0], [5, 30], mode="quartile")


# ---------------------------------------------------------------- the search
class Logged:
    """A callable model that logs every batch it is asked about."""

    def __init__(self, fn):
        self.fn, self.calls = fn, []

    def __call__(self, X):
        self.calls.append(np.array(X))
        return self.fn(X)


def test_finds_planted_discrimination_with_honest_counts(synthetic, biased_model):
    r = SymbolicGeneration(limit=120, random_state=0, **FAST).run(biased_model, synthetic.domain, seeds=synthetic.X)
    e = r.extras
    assert e["stop_reason"] == "limit" and r.tried == e["test_cases_generated"] == 120
    assert e["successful_test_cases"] == r.count("adf") == r.count("eidig") > 30
    assert e["success_rate"] == pytest.approx(e["successful_test_cases"] / 120, abs=1e-6)
    for k in ("generated", "successful"):
        assert sum(e[f"{o}_{k}"] for o in ("seed", "local", "global")) == e[f"test_cases_{k}" if k == "generated" else "successful_test_cases"]
    assert e["local_generated"] > 50 and e["local_successful"] / e["local_generated"] > 0.3
    assert set(r.pairs["phase"]) <= {"seed", "local", "global"}
    assert_pairs_rechecked(r, biased_model, synthetic.domain)



def test_always_discriminatory_model_gives_success_rate_one():
    dom = TabularDomain([Feature("s", 0, 1), Feature("a", 0, 9), Feature("b", 0, 9)], protected=["s"])
    data = np.random.default_rng(0).integers(0, 10, (300, 3)).astype(float)
    data[:, 0] = data[:, 0] % 2
    model = FunctionModel(lambda X: (X[:, 0] == 1).astype(float))
    r = SymbolicGeneration(limit=60, random_state=0, **FAST).run(model, dom, seeds=data)
    # the surrogate splits only on the protected attribute, so no constraint is ever negated: seeds only
    assert r.extras["success_rate"] == 1.0 and r.extras["test_cases_generated"] == r.extras["seed_generated"] > 30


def test_no_constraint_is_solved_twice_and_tested_tuples_are_unique(synthetic, biased_model, monkeypatch):
    from fairnb.search.parts.symbolic.constraints import box

    seen = []
    original = Z3Solver.solve

    def spy(self, constraints, anchors, nearest):
        for c in constraints:
            lo, hi = box(c, synthetic.domain.lower, synthetic.domain.upper)
            seen.append(lo.tobytes() + hi.tobytes())
        return original(self, constraints, anchors, nearest)

    monkeypatch.setattr(Z3Solver, "solve", spy)
    model = Logged(biased_model.predict_proba)
    r = SymbolicGeneration(limit=100, random_state=0, **FAST).run(model, synthetic.domain, seeds=synthetic.X)
    assert len(seen) == len(set(seen)) == r.extras["constraints_solved"] > 50
    assert r.extras["unsat"] > 0 and r.extras["sat"] + r.extras["unsat"] == len(seen)
    m = len(synthetic.domain.protected_values)
    tested = np.concatenate([c[::m] for c in model.calls if len(c) <= 2 * FAST["batch_size"] * m])
    keys = np.delete(tested, synthetic.domain.protected, axis=1)
    assert len(np.unique(keys, axis=0)) == len(keys) == 100


def test_same_random_state_same_sequence(synthetic, biased_model):
    runs = []
    for _ in range(2):
        model = Logged(biased_model.predict_proba)
        SymbolicGeneration(limit=50, random_state=7, **FAST).run(model, synthetic.domain, seeds=synthetic.X)
        runs.append(model.calls)
    # the same inputs in the same order; the natural rate's calls are sized by the model's pace (the machine's load)
    assert np.array_equal(np.concatenate(runs[0]), np.concatenate(runs[1]))


def test_seeds_only_follow_the_round_robin_order(synthetic, biased_model):
    model = Logged(biased_model.predict_proba)
    X = synthetic.X.to_numpy(float)
    r = SymbolicGeneration(limit=40, enable_local=False, enable_global=False, random_state=0, **FAST).run(
        model, synthetic.domain, seeds=X)
    m = len(synthetic.domain.protected_values)
    prot = synthetic.domain.protected
    tested = np.delete(rows_searched(model, r)[::m], prot, axis=1)       # after the natural rate's calls
    expected = np.delete(cluster_seeds(X, 40, c_num=4, order="ascending"), prot, axis=1)
    _, first = np.unique(expected, axis=0, return_index=True)
    expected = expected[np.sort(first)]   # duplicate test cases are dropped without counting
    assert np.array_equal(tested, expected) and r.extras["seed_generated"] == len(expected)
    assert r.extras["stop_reason"] == "queue_empty"


def test_ablation_switches(synthetic, biased_model):
    kw = dict(limit=60, random_state=0, **FAST)
    r = SymbolicGeneration(enable_local=False, **kw).run(biased_model, synthetic.domain, seeds=synthetic.X)
    assert r.extras["local_generated"] == 0
    r = SymbolicGeneration(threshold=1.01, n_seeds=10, **kw).run(biased_model, synthetic.domain, seeds=synthetic.X)
    assert r.extras["global_generated"] == 0
    r = SymbolicGeneration(enable_local=False, rank_global=6, n_seeds=20, **kw).run(
        biased_model, synthetic.domain, seeds=synthetic.X)      # Table 10: global before seeds
    assert r.extras["global_generated"] > 0 and r.extras["local_generated"] == 0



def test_budget_and_bad_input(synthetic, biased_model):
    r = SymbolicGeneration(limit=None, max_tried=30, random_state=0, **FAST).run(
        biased_model, synthetic.domain, seeds=synthetic.X)
    assert r.status == "budget" and r.extras["stop_reason"] == "engine" and 30 <= r.tried <= 30 + FAST["batch_size"]
    with pytest.raises(ValueError, match="needs seed data"):
        SymbolicGeneration().run(biased_model, synthetic.domain)
    with pytest.raises(ValueError, match="seed_order"):
        SymbolicGeneration(seed_order="shuffled").run(biased_model, synthetic.domain, seeds=synthetic.X)


@pytest.mark.tf
@pytest.mark.slow
def test_sg_and_aequitas_on_a_keras_model(synthetic):
    keras = pytest.importorskip("keras")
    from fairnb.search.methods.aequitas import Aequitas

    X, _, y, _ = synthetic.split()
    model = keras.Sequential([keras.Input((X.shape[1],)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.Dense(1, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy")
    model.fit(X, y, epochs=3, verbose=0)
    r = SymbolicGeneration(limit=20, random_state=0, **FAST).run(model, synthetic.domain, seeds=X)
    assert r.extras["test_cases_generated"] == 20
    r = Aequitas(n_seeds=200, n_local=10, random_state=0).run(model, synthetic.domain)
    assert r.extras["global_generated"] > 0

"""fairnb.certify: sound bounds, exact verdicts on hand-made networks, integer boxes, Stop and Ctrl-C, and
agreement with the searches (issue #40)."""
import signal
import threading

import numpy as np
import pytest

import fairnb
from fairnb.certification import Certificate, certify
from fairnb.certification.bounds import backsubstituted_bounds, difference_bounds, relu_layers, score_bounds
from fairnb.certification.boxes import SizeQueue, enumerate_points, points, split
from fairnb.domains import Feature, TabularDomain
from fairnb.models import NumpyMLP
from fairnb.oracle import Oracle


def score(layers, X):
    a = np.asarray(X, dtype=float)
    for i, (W, b) in enumerate(layers):
        a = a @ W + b
        if i < len(layers) - 1:
            a = np.maximum(a, 0.0)
    return a[:, 0]


def random_net(rng, widths, output="sigmoid", loud=(1,)):
    """A random ReLU network; the inputs ``loud`` (the protected ones) weigh three times as much."""
    sizes = [*widths, 1 if output == "sigmoid" else 2]
    weights = [rng.normal(size=(a, b)) for a, b in zip(sizes[:-1], sizes[1:])]
    weights[0][list(loud)] *= 3
    biases = [rng.normal(size=b) for b in sizes[1:]]
    return NumpyMLP(weights, biases, output=output)


def every_input(domain):
    return enumerate_points(domain.lower[None], domain.upper[None], list(range(domain.n_features)))[0]


def brute_force(model, domain):
    """Each integer input of the domain (protected values at their lowest) and whether it is discriminatory."""
    X = every_input(domain)
    X = X[(X[:, list(domain.protected)] == domain.lower[list(domain.protected)]).all(axis=1)]
    return X, Oracle(model, domain).check(X).discriminatory


SMALL = TabularDomain([Feature("a", 0, 5), Feature("sex", 0, 1), Feature("b", -3, 4), Feature("c", 0, 3)],
                      protected=["sex"])


# ------------------------------------------------------------------------------------------------ bounds
@pytest.mark.parametrize("bound", [score_bounds, backsubstituted_bounds])
@pytest.mark.parametrize("seed", range(6))
def test_bounds_hold_every_sampled_output_and_difference(seed, bound):
    rng = np.random.default_rng(seed)
    net = random_net(rng, [4, 8, 6, 5], output="softmax" if seed % 2 else "sigmoid")
    layers = relu_layers(net)
    lows = rng.integers(-3, 3, size=(20, 4)).astype(float)
    highs = lows + rng.integers(0, 4, size=(20, 4))
    highs[:, 1] = lows[:, 1]                                    # column 1 plays the protected attribute
    shift = np.zeros_like(lows)
    shift[:, 1] = rng.integers(-2, 3, size=20)
    lower, upper, _, ranges = bound(layers, lows, highs)
    moved = bound(layers, lows + shift, highs + shift)
    dlow, dhigh = difference_bounds(layers, shift, moved[3], ranges)
    X = lows[:, None, :] + rng.random((20, 500, 4)) * (highs - lows)[:, None, :]      # real points in each box
    s = score(layers, X.reshape(-1, 4)).reshape(20, 500)
    ds = score(layers, (X + shift[:, None, :]).reshape(-1, 4)).reshape(20, 500) - s
    assert (s >= lower[:, None] - 1e-9).all() and (s <= upper[:, None] + 1e-9).all()
    assert (ds >= dlow[:, None] - 1e-9).all() and (ds <= dhigh[:, None] + 1e-9).all()
    p1 = net.predict_proba(X.reshape(-1, 4))[:, 1].reshape(20, 500)          # the score decides the class
    assert ((s > 1e-9) <= (p1 > 0.5)).all() and ((s < -1e-9) <= (p1 < 0.5)).all()


def test_a_network_ignoring_the_protected_input_has_exactly_zero_difference():
    rng = np.random.default_rng(0)
    net = random_net(rng, [3, 5, 5])
    net.weights[0][1, :] = 0.0
    layers = relu_layers(net)
    box = np.array([[-2.0, 0.0, -2.0]]), np.array([[2.0, 0.0, 2.0]])
    shift = np.array([[0.0, 1.0, 0.0]])
    ra, rb = score_bounds(layers, box[0] + shift, box[1] + shift)[3], score_bounds(layers, *box)[3]
    assert difference_bounds(layers, shift, ra, rb) == (np.zeros(1), np.zeros(1))


def test_only_dense_relu_networks_with_two_classes_are_taken():
    with pytest.raises(TypeError, match="dense ReLU network"):
        relu_layers(lambda X: X[:, 0])
    rng = np.random.default_rng(0)
    tanh = NumpyMLP([rng.normal(size=(2, 3)), rng.normal(size=(3, 1))], [np.zeros(3), np.zeros(1)], activation="tanh")
    with pytest.raises(ValueError, match="ReLU hidden layers"):
        relu_layers(tanh)
    with pytest.raises(ValueError, match="two-class"):
        relu_layers(random_net(rng, [2, 3], output="softmax").__class__(
            [rng.normal(size=(2, 3)), rng.normal(size=(3, 3))], [np.zeros(3), np.zeros(3)]))
    with pytest.raises(ValueError, match="4 features"):
        certify(random_net(rng, [3, 4]), SMALL)


@pytest.mark.parametrize("kwargs, message", [
    ({"batch_size": 0}, "batch_size must be a positive integer"), ({"enumerate_at": 2.5}, "enumerate_at must be"),
    ({"max_time": "1 min"}, "max_time must be a non-negative number"), ({"max_boxes": -1}, "max_boxes must be"),
    ({"split_by": "gradient"}, "split_by must be one of"), ({"margin": float("nan")}, "margin must be"),
])
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        certify(random_net(np.random.default_rng(0), [4, 3]), SMALL, **kwargs)
    with pytest.raises(ValueError, match="TabularDomain with protected attributes"):
        certify(random_net(np.random.default_rng(0), [4, 3]), SMALL.with_protected([]))


def test_a_domain_that_encodes_its_rows_otherwise_is_refused():
    class Scaled(TabularDomain):
        def encode(self, X):
            return 2 * np.asarray(X, dtype=float)

    scaled = Scaled(SMALL.features, protected=["sex"])
    with pytest.raises(ValueError, match="Scaled encodes them"):
        certify(random_net(np.random.default_rng(0), [4, 3]), scaled)


# ------------------------------------------------------------------------------------------------ boxes
def test_splitting_keeps_every_integer_input_once_and_no_fraction():
    lows, highs = np.array([[0.0, -3.0], [5.0, 1.0]]), np.array([[4.0, 3.0], [6.0, 1.0]])
    lo2, hi2 = split(lows, highs, np.array([1, 0]))
    assert points(lo2, hi2).sum() == points(lows, highs).sum()
    assert (lo2 == np.round(lo2)).all() and (hi2 == np.round(hi2)).all() and (lo2 <= hi2).all()
    before = {tuple(x) for x in enumerate_points(lows, highs, [0, 1])[0]}
    after = [tuple(x) for x in enumerate_points(lo2, hi2, [0, 1])[0]]
    assert sorted(after) == sorted(before) and len(after) == len(set(after))


def test_the_size_queue_gives_the_largest_boxes_first_and_loses_none():
    rng = np.random.default_rng(0)
    lows = rng.integers(0, 50, (300, 3)).astype(float)
    highs = lows + rng.integers(0, 40, (300, 3))
    queue = SizeQueue(lows, highs, [0, 1, 2])
    taken_lo, taken_hi = queue.peek(40)
    assert len(queue) == 300                       # peek removes nothing
    queue.drop(40)
    rest_lo, rest_hi = queue.boxes()
    assert len(rest_lo) == 260 and len(queue) == 260
    assert points(taken_lo, taken_hi).min() > points(rest_lo, rest_hi).max() / 2     # within one size class
    together = sorted(map(tuple, np.hstack([np.concatenate([taken_lo, rest_lo]), np.concatenate([taken_hi, rest_hi])])))
    assert together == sorted(map(tuple, np.hstack([lows, highs])))
    queue.push(taken_lo[:5], taken_hi[:5])
    assert len(queue) == 265 and (queue.peek(5)[0] == taken_lo[:5]).all()    # the last pushed first in its class

# ------------------------------------------------------------------------------------------------ verdicts
def test_linear_score_is_falsified_exactly_where_the_protected_term_flips_the_sign():
    """s = a + b - 2 c + 2.5 sex - 1.25: the decision differs between the sexes exactly where -1.25 < a + b - 2c <= 1.25
    (sex 0 decides 0, sex 1 decides 1) and the boxes not touching that band are certified."""
    net = NumpyMLP([np.array([[1.0], [2.5], [1.0], [-2.0]])], [np.array([-1.25])])
    cert = certify(net, SMALL, enumerate_at=1)
    X = every_input(SMALL)
    t = X[:, 0] + X[:, 2] - 2 * X[:, 3]
    verdicts = cert.verdicts(X)
    assert cert.status == "completed"
    assert ((verdicts == "falsified") == ((t > -1.25) & (t <= 1.25))).all()
    assert set(verdicts) == {"certified", "falsified"}
    assert cert.bounded > 0 and len(cert.boxes["certified"][0]) < len(X) / 4      # whole boxes, not inputs


@pytest.mark.parametrize("bounds", ["backsubstitution", "symbolic"])
@pytest.mark.parametrize("split_by", ["slope", "width"])
@pytest.mark.parametrize("seed", [1, 2, 4])
def test_a_completed_certificate_is_the_exact_truth_on_every_input(seed, split_by, bounds):
    """Two-layer ReLU networks, one or two protected attributes with 2-3 values: the complete run says
    'falsified' exactly for the inputs the oracle finds discriminatory, and the shares are theirs."""
    rng = np.random.default_rng(seed)
    features = [Feature("a", 0, 6), Feature("sex", 0, 1), Feature("b", 0, 5), Feature("race", 0, 2), Feature("c", 1, 4)]
    domain = TabularDomain(features, protected=["sex", "race"] if seed % 2 else ["race"])
    net = random_net(rng, [5, 12, 8], output="softmax" if seed == 2 else "sigmoid", loud=domain.protected)
    cert = certify(net, domain, enumerate_at=1 + seed, split_by=split_by, bounds=bounds, batch_size=16)
    X, unfair = brute_force(net, domain)
    assert cert.status == "completed" and cert.summary()["undecided_share"] == 0
    assert (cert.verdicts(X) == np.where(unfair, "falsified", "certified")).all()
    assert cert.summary()["falsified_share"] == pytest.approx(unfair.mean())
    assert 0 < unfair.mean() < 1


def test_shares_sum_to_one_and_the_decided_boxes_tile_the_domain_at_a_budget():
    net = random_net(np.random.default_rng(1), [4, 10, 10])
    cert = certify(net, SMALL, max_boxes=6, batch_size=2)
    out = cert.summary()
    assert cert.status == "budget" and cert.ended_by == ("max_boxes", 6)
    assert out["certified_share"] + out["falsified_share"] + out["undecided_share"] == pytest.approx(1.0)
    assert out["certified_volume"] + out["falsified_volume"] + out["undecided_volume"] == pytest.approx(1.0)
    assert 0 <= out["witness_boxes_share"] <= out["undecided_share"] and out["undecided_share"] > 0
    X, unfair = brute_force(net, SMALL)
    verdicts = cert.verdicts(X)
    assert (verdicts != "").all()
    assert not unfair[verdicts == "certified"].any() and unfair[verdicts == "falsified"].all()
    counted = sum(points(*cert.boxes[v], SMALL.non_protected).sum() for v in cert.boxes)
    assert counted == len(X)                                  # no input in two boxes


def test_witnesses_are_confirmed_discriminatory_pairs():
    net = random_net(np.random.default_rng(2), [4, 8])
    cert = certify(net, SMALL, max_boxes=4, batch_size=2)
    pairs = cert.witnesses
    assert len(pairs) > 0 and set(cert.pairs["phase"]) <= {"exact", "falsified", "undecided"}
    assert pairs.status == "budget" and pairs.ended_by == ("max_boxes", 4) and pairs.tried >= len(pairs)
    verdict = Oracle(net, SMALL).check(pairs.inputs)
    assert verdict.discriminatory.all()
    assert (net.predict_proba(pairs.inputs).argmax(1) != net.predict_proba(pairs.counterparts).argmax(1)).all()


def test_a_model_that_ignores_the_protected_attribute_is_certified_in_one_box():
    net = random_net(np.random.default_rng(3), [4, 16, 16])
    net.weights[0][1, :] = 0.0
    cert = certify(net, SMALL)
    assert cert.summary()["certified_share"] == 1.0 and cert.bounded == 1 and len(cert.witnesses) == 0


def test_scikit_learn_relu_pipelines_are_certified_as_themselves():
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, _ = brute_force(lambda X: X[:, 0] / 5, SMALL)
    X = np.repeat(X, 2, axis=0)
    X[1::2, 1] = 1
    y = (X[:, 0] + 2 * X[:, 1] - X[:, 3] > 3).astype(int)
    mlp = MLPClassifier((6,), solver="lbfgs", max_iter=200, random_state=0)
    pipe = make_pipeline(StandardScaler(), mlp).fit(X, y)
    cert = certify(pipe, SMALL, enumerate_at=2)
    grid, unfair = brute_force(pipe, SMALL)
    assert (cert.verdicts(grid) == np.where(unfair, "falsified", "certified")).all()


# ------------------------------------------------------------------------------------------------ Stop, Ctrl-C
def test_stop_keeps_every_decided_box():
    net = random_net(np.random.default_rng(1), [4, 10, 10])
    polls = iter(range(100))
    cert = certify(net, SMALL, batch_size=2, stop=lambda: next(polls) >= 12)
    assert cert.status == "stopped" and cert.bounded > 0
    out = cert.summary()
    assert out["certified_share"] + out["falsified_share"] > 0
    assert out["certified_share"] + out["falsified_share"] + out["undecided_share"] == pytest.approx(1.0)
    event = threading.Event()
    event.set()
    assert certify(net, SMALL, stop=event).summary()["undecided_share"] == 1.0


def test_ctrl_c_keeps_every_decided_box_also_inside_a_step():
    net = random_net(np.random.default_rng(1), [4, 10, 10])
    polls = iter(range(100))

    def press():
        if next(polls) == 12:
            signal.raise_signal(signal.SIGINT)
        return False

    pressed = certify(net, SMALL, batch_size=2, stop=press)
    assert pressed.status == "interrupted" and pressed.bounded > 0

    calls = iter(range(100))

    class Breaking(NumpyMLP):                      # Ctrl-C inside the oracle's model call, mid-step
        def predict_proba(self, X):
            if next(calls) == 3:
                raise KeyboardInterrupt
            return super().predict_proba(X)

    breaking = Breaking(net.weights, net.biases)
    cut = certify(breaking, SMALL, batch_size=2, enumerate_at=4)
    X, _ = brute_force(net, SMALL)
    assert cut.status == "interrupted"
    for cert in (pressed, cut):
        out = cert.summary()
        assert out["certified_share"] + out["falsified_share"] > 0
        assert (cert.verdicts(X) != "").all()
        assert sum(points(*cert.boxes[v], SMALL.non_protected).sum() for v in cert.boxes) == len(X)


# ------------------------------------------------------------------------------------------------ storage, display
def test_save_and_load_keep_boxes_shares_and_witnesses(tmp_path):
    net = random_net(np.random.default_rng(2), [4, 8])
    cert = certify(net, SMALL, max_boxes=5, batch_size=2)
    back = Certificate.load(cert.save(tmp_path / "cert.npz"))
    assert back.summary() == cert.summary()
    assert all((a == b).all() for v in cert.boxes for a, b in zip(cert.boxes[v], back.boxes[v]))
    assert back.pairs.equals(cert.pairs)
    assert "certified (inputs / volume)" in cert._repr_html_() and "witness pairs:" in cert._repr_html_() and repr(cert).startswith("<Certificate budget:")
    with pytest.raises(ValueError, match=".npz"):
        cert.save(tmp_path / "cert.json")


def test_certify_loads_lazily():
    import subprocess
    import sys

    code = "import sys, fairnb; assert 'fairnb.certification' not in sys.modules; fairnb.certify; print('ok')"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "ok"


# ------------------------------------------------------------------------------------------------ the searches
@pytest.mark.parametrize("method", ["random", "aequitas", "adf", "eidig"])
def test_no_idi_a_search_finds_lies_in_a_certified_box(method, synthetic, biased_model):
    cert = _partial_certificate(biased_model, synthetic.domain)
    from fairnb.search.registry import method_record

    record = method_record(method)
    search = fairnb.search.get_method(method)(**record.fast, random_state=0, progress=False)
    seeds = synthetic.X.to_numpy(float)[:400] if record.takes_seeds else None
    result = search.run(biased_model, synthetic.domain, seeds)
    assert result.count() > 0
    verdicts = cert.verdicts(result.inputs)
    assert "certified" not in set(verdicts) and (verdicts != "").all()


def test_a_search_seeded_from_the_undecided_boxes_searches_only_where_the_certificate_could_not_decide(
        synthetic, biased_model):
    cert = _partial_certificate(biased_model, synthetic.domain)
    assert cert.summary()["undecided_share"] > 0
    seeds = cert.sample(300, random_state=0)
    assert seeds.shape == (300, synthetic.domain.n_features) and (np.round(seeds) == seeds).all()
    assert (cert.verdicts(seeds) == "undecided").all()
    assert (seeds >= synthetic.domain.lower).all() and (seeds <= synthetic.domain.upper).all()
    assert np.array_equal(cert.sample(300, random_state=0), seeds) and len(cert.sample(0)) == 0
    result = fairnb.run_search(biased_model, synthetic.domain, method="eidig", seeds=seeds, n_seeds=100,
                               n_local=20, random_state=0, progress=False)
    assert result.count() > 0 and "certified" not in set(cert.verdicts(result.inputs))
    with pytest.raises(ValueError, match="verdict must be one of"):
        cert.sample(5, "fair")


@pytest.mark.slow
def test_the_complete_certificate_of_the_planted_model_is_the_brute_force_truth(synthetic, biased_model):
    cert = certify(biased_model, synthetic.domain, max_time=None)
    X, unfair = brute_force(biased_model, synthetic.domain)
    assert cert.status == "completed" and 0.05 < unfair.mean() < 0.95
    assert cert.summary()["falsified_share"] == pytest.approx(unfair.mean())
    found = fairnb.run_search(biased_model, synthetic.domain, method="random", max_tried=5000, random_state=0,
                              progress=False)
    assert (cert.verdicts(found.inputs) == "falsified").all()


def test_the_fair_twin_is_certified_everywhere(synthetic, fair_model):
    cert = certify(fair_model, synthetic.domain)
    assert cert.status == "completed" and cert.summary()["certified_share"] == 1.0


_CERTIFICATES = {}


def _partial_certificate(model, domain):
    key = id(model)
    if key not in _CERTIFICATES:
        _CERTIFICATES[key] = certify(model, domain, max_boxes=3000, batch_size=256)
        assert _CERTIFICATES[key].summary()["certified_share"] > 0.1
    return _CERTIFICATES[key]


@pytest.mark.slow
def test_a_keras_dense_relu_stack_is_certified_as_itself():
    import keras

    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.Dense(2, activation="softmax")])
    first = model.layers[0]
    kernel, bias = first.get_weights()
    kernel[1] *= 6                                           # sex matters
    first.set_weights([kernel, bias])
    cert = certify(model, SMALL, enumerate_at=2)
    X, unfair = brute_force(model, SMALL)
    assert 0 < unfair.mean() < 1
    assert (cert.verdicts(X) == np.where(unfair, "falsified", "certified")).all()


def test_backsubstitution_is_tighter_on_deep_networks():
    rng = np.random.default_rng(7)
    lows = rng.integers(-3, 3, size=(100, 4)).astype(float)
    highs = lows + rng.integers(0, 4, size=(100, 4))
    deep = relu_layers(random_net(rng, [4, 10, 10, 10, 10]))
    a, b = score_bounds(deep, lows, highs), backsubstituted_bounds(deep, lows, highs)
    assert (b[1] - b[0]).mean() < (a[1] - a[0]).mean()
    with pytest.raises(ValueError, match="bounds must be one of"):
        certify(random_net(rng, [4, 3]), SMALL, bounds="deeppoly")


# ------------------------------------------------------------------------------------------------ decision trees
def tree_on(domain, seed, depth=None, uses_protected=True, frame=False):
    """A decision tree fitted on random inputs of ``domain`` whose label leans on the protected columns."""
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(seed)
    X = rng.integers(domain.lower, domain.upper + 1, (2000, domain.n_features)).astype(float)
    prot = list(domain.protected)
    score = X @ rng.normal(size=domain.n_features) + (1.5 * X[:, prot].sum(axis=1) if uses_protected else 0)
    y = (score + rng.normal(0, 1, len(X)) > np.median(score)).astype(int)
    if not uses_protected:
        X[:, prot] = domain.lower[prot]               # the tree never sees the protected columns vary
    if frame:
        import pandas as pd

        X = pd.DataFrame(X, columns=[f.name for f in domain.features])
    return DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(X, y)


@pytest.mark.parametrize("depth", [5, 8, None])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_decision_tree_is_certified_exactly_on_every_input(seed, depth):
    """The tree's boxes: a complete run with nothing undecided, 'falsified' exactly where the oracle finds the
    input discriminatory, one or two protected attributes of 2-3 values."""
    features = [Feature("a", 0, 6), Feature("sex", 0, 1), Feature("b", -3, 5), Feature("race", 0, 2), Feature("c", 1, 4)]
    domain = TabularDomain(features, protected=["sex", "race"] if seed % 2 else ["race"])
    tree = tree_on(domain, seed, depth)
    cert = certify(tree, domain, enumerate_at=1 + seed, batch_size=8)
    X, unfair = brute_force(tree, domain)
    assert cert.status == "completed" and cert.summary()["undecided_share"] == 0
    assert (cert.verdicts(X) == np.where(unfair, "falsified", "certified")).all()
    assert cert.summary()["falsified_share"] == pytest.approx(unfair.mean()) and 0 < unfair.mean() < 1
    assert sum(points(*cert.boxes[v], domain.non_protected).sum() for v in cert.boxes) == len(X)
    assert Oracle(tree, domain).check(cert.sample(500, "falsified", random_state=seed)).discriminatory.all()
    assert Oracle(tree, domain).check(cert.witnesses.inputs).discriminatory.all()


def test_a_tree_that_never_splits_on_the_protected_attribute_is_certified_fair_leaf_by_leaf():
    tree = tree_on(SMALL, 0, depth=5, uses_protected=False)
    assert 1 not in tree.tree_.feature
    cert = certify(tree, SMALL, enumerate_at=1)
    assert cert.summary()["certified_share"] == 1.0 and len(cert.witnesses) == 0
    assert len(cert.boxes["certified"][0]) <= tree.get_n_leaves()      # cut only where it cuts


def test_a_tree_behind_fairnbs_adapter_or_fitted_on_a_frame_is_certified_as_itself():
    from fairnb.models import SklearnModel

    tree = tree_on(SMALL, 1, depth=6, frame=True)
    X, unfair = brute_force(tree, SMALL)
    for model in (tree, SklearnModel(tree)):
        cert = certify(model, SMALL)
        assert (cert.verdicts(X) == np.where(unfair, "falsified", "certified")).all()


def test_trees_at_a_budget_keep_exact_decided_boxes_and_stop_between_steps():
    tree = tree_on(SMALL, 2)
    X, unfair = brute_force(tree, SMALL)
    cert = certify(tree, SMALL, max_boxes=3, batch_size=1, enumerate_at=1)
    verdicts = cert.verdicts(X)
    assert cert.status == "budget" and cert.summary()["undecided_share"] > 0
    assert not unfair[verdicts == "certified"].any() and unfair[verdicts == "falsified"].all()
    polls = iter(range(100))
    stopped = certify(tree, SMALL, batch_size=1, enumerate_at=1, stop=lambda: next(polls) >= 2)
    assert stopped.status == "stopped" and (stopped.verdicts(X) != "").all()


def test_what_certify_cannot_read_as_a_tree_is_refused_by_name():
    from sklearn.ensemble import HistGradientBoostingClassifier

    X, _ = brute_force(lambda X: X[:, 0] / 5, SMALL)
    boosting = HistGradientBoostingClassifier(max_iter=3).fit(X, X[:, 0] > 2)
    with pytest.raises(TypeError, match="gradient boosting classifier\\); got a SklearnModel"):
        certify(boosting, SMALL)
    with pytest.raises(ValueError, match="takes 4 inputs but the domain has 5"):
        certify(tree_on(SMALL, 0, depth=2), TabularDomain([*SMALL.features, Feature("d", 0, 1)], protected=["sex"]))
    wide = TabularDomain([Feature("a", 0, 2 ** 25), Feature("sex", 0, 1), Feature("b", -3, 4), Feature("c", 0, 3)],
                         protected=["sex"])
    with pytest.raises(ValueError, match="float32 holds every integer"):
        certify(tree_on(SMALL, 0, depth=2), wide)


def ensemble_on(kind, domain, seed, classes=2):
    from sklearn.ensemble import ExtraTreesClassifier, GradientBoostingClassifier, RandomForestClassifier

    rng = np.random.default_rng(seed)
    X = rng.integers(domain.lower, domain.upper + 1, (1500, domain.n_features)).astype(float)
    score = X @ rng.normal(size=domain.n_features) + 1.5 * X[:, list(domain.protected)].sum(axis=1)
    y = np.digitize(score + rng.normal(0, 1, len(X)), np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    model = {"forest": RandomForestClassifier(n_estimators=7, max_depth=6, random_state=seed),
             "extra": ExtraTreesClassifier(n_estimators=5, max_depth=5, random_state=seed),
             "boosting": GradientBoostingClassifier(n_estimators=15, max_depth=3, random_state=seed)}[kind]
    return model.fit(X, y)


@pytest.mark.parametrize("kind, classes", [("forest", 2), ("extra", 2), ("boosting", 2), ("forest", 3)])
@pytest.mark.parametrize("seed", [0, 1])
def test_tree_ensembles_are_certified_exactly_on_every_input(kind, classes, seed):
    """Forests, extra-trees and boosting: the bounds of the trees' summed scores decide boxes before they are pure
    (two classes), pure boxes are decided by the oracle; a completed run is the brute-force truth."""
    domain = TabularDomain([Feature("a", 0, 5), Feature("sex", 0, 1), Feature("b", -2, 3), Feature("c", 0, 3)],
                           protected=["sex"])
    model = ensemble_on(kind, domain, seed, classes)
    cert = certify(model, domain, enumerate_at=1, batch_size=16)
    X, unfair = brute_force(model, domain)
    assert cert.status == "completed" and cert.summary()["undecided_share"] == 0 and 0 < unfair.mean() < 1
    assert (cert.verdicts(X) == np.where(unfair, "falsified", "certified")).all()
    assert Oracle(model, domain).check(cert.witnesses.inputs).discriminatory.all()


def test_a_tree_ensemble_at_a_budget_keeps_exact_boxes_and_its_bounds_decide_large_ones():
    domain = TabularDomain([Feature("a", 0, 40), Feature("sex", 0, 1), Feature("b", -20, 30), Feature("c", 0, 30)],
                           protected=["sex"])
    model = ensemble_on("boosting", domain, 0)
    cert = certify(model, domain, max_boxes=10, batch_size=5)
    X = domain.clip(np.random.default_rng(0).integers(domain.lower, domain.upper + 1, (3000, 4)).astype(float))
    X[:, 1] = 0
    unfair = Oracle(model, domain).check(X).discriminatory
    verdicts = cert.verdicts(X)
    assert cert.status == "budget" and (verdicts != "").all()
    assert not unfair[verdicts == "certified"].any() and unfair[verdicts == "falsified"].all()
    sizes = points(*cert.boxes["certified"], domain.non_protected)
    assert sizes.max() > 100             # the bounds certified boxes of many inputs, not only pure ones


def test_a_logistic_regression_is_certified_as_a_network_of_one_layer():
    from sklearn.linear_model import LogisticRegression

    from fairnb.models import SklearnModel

    rng = np.random.default_rng(0)
    X = rng.integers(SMALL.lower, SMALL.upper + 1, (2000, SMALL.n_features)).astype(float)
    y = (X[:, 0] - X[:, 2] + 1.5 * X[:, 1] + rng.normal(0, 1, len(X)) > 1).astype(int)
    logreg = LogisticRegression().fit(X, y)
    grid, unfair = brute_force(logreg, SMALL)
    for model in (logreg, SklearnModel(logreg)):
        cert = certify(model, SMALL, enumerate_at=1)
        assert cert.status == "completed" and 0 < unfair.mean() < 1
        assert (cert.verdicts(grid) == np.where(unfair, "falsified", "certified")).all()
    with pytest.raises(ValueError, match="two-class decisions; this logistic regression has 3 classes"):
        certify(LogisticRegression().fit(X, np.digitize(X[:, 0], [2, 4])), SMALL)

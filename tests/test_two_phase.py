"""The contract every two-phase generator keeps (ADF, EIDIG, MAFT, NeuronFair): planted discrimination is
found and re-checks, a model that ignores the protected attribute yields nothing, interruption keeps the
partial Result, budgets and bad input are handled."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb.search.methods.adf import ADF
from fairnb.search.methods.eidig import EIDIG
from fairnb.search.methods.maft import MAFT
from fairnb.search.methods.neuronfair import NeuronFair
from blackbox_checks import assert_pairs_rechecked
from two_phase_checks import assert_sound_run

# (class, extra parameters, planted IDIs expected at 40 seeds x 40 local steps, a bad parameter)
METHODS = {
    "adf": (ADF, {}, 200, {"acceptance": "sometimes"}),
    "adf-metropolis": (ADF, {"acceptance": "metropolis"}, 200, {"max_iter": -1}),
    "adf-reset": (ADF, {"acceptance": "reset"}, 200, {"global_step": 0}),
    "eidig": (EIDIG, {}, 200, {"decay": 1.5}),
    "maft": (MAFT, {}, 200, {"h": 0}),
    "neuronfair": (NeuronFair, {}, 100, {"local": "ours"}),
    "neuronfair-paper": (NeuronFair, {"local": "paper"}, 20, {"random_share": 2}),
}


@pytest.fixture(params=sorted(METHODS))
def method(request):
    """A method; seeds are taken as given (K-Means seed selection is tested in test_eidig)."""
    cls, params, expected, bad = METHODS[request.param]
    return cls, {"seed_selection": "as_given", **params}, expected, bad


def test_planted_found_fair_clean(method, synthetic, biased_model, fair_model):
    cls, params, expected, _ = method
    params = {"n_seeds": 40, "n_local": 40, "random_state": 0, **params}
    biased = assert_sound_run(cls(**params), biased_model, synthetic, min_found=expected)
    assert biased.extras["gsr"] > 0
    fair = cls(**params).run(fair_model, synthetic.domain, seeds=synthetic.X)
    assert fair.count() == 0 and fair.status == "completed"


def test_several_protected_attributes(method, synthetic, biased_model):
    cls, params, _, _ = method
    data = synthetic.with_protected(["sex", "race"])          # Cartesian product: 10 variants per input
    r = assert_sound_run(cls(n_seeds=30, n_local=30, random_state=0, **params), biased_model, data, min_found=10)
    assert r.count("adf") <= r.count("eidig")


def test_interruption_keeps_partial_result(method, synthetic, biased_model):
    """stop() from a listener and KeyboardInterrupt raised in a listener both return the partial Result."""
    cls, params, _, _ = method
    params = {"n_seeds": 40, "n_local": 200, "random_state": 0, **params}
    full = cls(**params).run(biased_model, synthetic.domain, seeds=synthetic.X)
    search = cls(**params)

    def stop_in_local(event):
        if event.kind == "progress" and event.phase == "local" and event.found > 0:
            search.stop()

    def interrupt(event):
        if event.kind == "progress" and event.phase == "local":
            raise KeyboardInterrupt

    stopped = search.run(biased_model, synthetic.domain, seeds=synthetic.X, listeners=[stop_in_local])
    interrupted = cls(**params).run(biased_model, synthetic.domain, seeds=synthetic.X, listeners=[interrupt])
    for partial, status in ((stopped, "stopped"), (interrupted, "interrupted")):
        assert partial.status == status
        assert 0 < partial.count() < full.count()
        assert "generated" in partial.extras
        assert_pairs_rechecked(partial, biased_model, synthetic.domain)


def test_budgets_and_bad_input(method, synthetic, biased_model):
    """max_tried ends the search within one batch of the budget; bad parameters and missing seeds are refused."""
    cls, params, _, bad = method
    r = cls(n_seeds=40, n_local=500, max_tried=3000, random_state=0, **params).run(
        biased_model, synthetic.domain, seeds=synthetic.X)
    assert r.status == "budget" and 3000 <= r.tried < 3000 + 40
    with pytest.raises(ValueError, match="seed"):
        cls(**params).run(biased_model, synthetic.domain)
    with pytest.raises(ValueError, match="seed_selection"):
        cls(**{**params, "seed_selection": "first"}).run(biased_model, synthetic.domain, seeds=synthetic.X)
    (name, value), = bad.items()
    with pytest.raises(ValueError, match=name):
        cls(**{**params, name: value}).run(biased_model, synthetic.domain, seeds=synthetic.X)


def test_same_random_state_same_result(method, synthetic, biased_model):
    cls, params, _, _ = method
    a, b = (cls(n_seeds=30, n_local=30, random_state=3, **params).run(biased_model, synthetic.domain,
                                                                        seeds=synthetic.X) for _ in range(2))
    assert a.count() == b.count() and np.array_equal(a.inputs, b.inputs)


@pytest.mark.tf
@pytest.mark.shared
@pytest.mark.slow
def test_keras_and_numpy_backends_agree(data_dir, models_dir):
    """The published census model as a Keras model and as a NumpyMLP: the same IDIs for every method
    (white-box gradients and activations through TensorFlow, MAFT through predict_proba only)."""
    from fairnb.bench import load_benchmark
    from fairnb.models import load_model

    _, data, numpy_model, X_train = load_benchmark("C-g", data_dir=data_dir, models_dir=models_dir)
    keras_model = load_model(models_dir / "adult_model.h5", backend="keras")
    seeds = X_train[:30]
    for name, (cls, params, _, _) in METHODS.items():
        runs = [cls(n_seeds=30, n_local=20, seed_selection="as_given", random_state=0, **params).run(
            m, data.domain, seeds=seeds) for m in (numpy_model, keras_model)]
        assert runs[0].count() == runs[1].count(), name
        assert np.array_equal(runs[0].inputs, runs[1].inputs), name


def test_many_seeds_go_through_the_global_phase_in_chunks(method, synthetic, biased_model, monkeypatch):
    """Seeds beyond the memory budget go through the global phase in chunks (issue 11, item 12): no global
    batch is larger than a chunk, the run stays sound, and where the global phase draws no random numbers
    (all but NeuronFair's random neurons) it checks exactly the rows it checks in one piece."""
    import fairnb.oracle
    from fairnb.search.methods.two_phase import GLOBAL_STATE_COPIES
    from two_phase_checks import record_batches

    cls, params, _, _ = method
    params = {"n_seeds": 40, "n_local": 5, "random_state": 0, **params}
    whole = cls(**params)
    whole_batches = record_batches(whole)
    whole.run(biased_model, synthetic.domain, seeds=synthetic.X)
    dom = synthetic.domain
    monkeypatch.setattr(fairnb.oracle, "MEMORY_BUDGET",
                        7 * 8 * dom.n_features * (len(dom.protected_values) + GLOBAL_STATE_COPIES))
    chunked = cls(**params)
    assert chunked._global_chunk(dom) == 7
    chunked_batches = record_batches(chunked)
    assert_sound_run(chunked, biased_model, synthetic)
    sizes = [len(X) for X, phase, _ in chunked_batches if phase == "global"]
    assert max(sizes) == 7 and max(len(X) for X, phase, _ in whole_batches if phase == "global") == 40

    def global_rows(batches):
        return sorted(map(tuple, np.vstack([np.column_stack([ids, X]) for X, phase, ids in batches if phase == "global"])))

    if cls is not NeuronFair:
        assert global_rows(chunked_batches) == global_rows(whole_batches)


def test_the_gradient_source_is_a_part_eidig_with_forward_differences_finds_mafts_pairs(synthetic, biased_model):
    # MAFT is EIDIG with the ForwardDifference source: swapping the part into EIDIG gives MAFT's run, pair for pair
    from fairnb.search.parts.gradients import ForwardDifference

    class EIDIGForward(EIDIG):
        def gradient_source(self):
            return ForwardDifference(h=1.0)

    kw = dict(n_seeds=30, n_local=30, seed_selection="as_given", random_state=4)
    a = EIDIGForward(**kw).run(biased_model, synthetic.domain, seeds=synthetic.X)
    b = MAFT(**kw).run(biased_model, synthetic.domain, seeds=synthetic.X)
    assert a.count() > 0 and np.array_equal(a.inputs, b.inputs) and np.array_equal(a.counterparts, b.counterparts)


def test_acceptance_is_a_part_adf_with_the_reset_rule_finds_its_reset_options_pairs(synthetic, biased_model):
    # ADF(acceptance="reset") names the ResetOnFailure part: plugging the part in gives its run, pair for pair, and
    # a rule that keeps no step leaves every walker at its global IDI (each local find one unit step from one)
    from fairnb.search.parts.acceptance import ResetOnFailure

    class ADFReset(ADF):
        def acceptance_rule(self):
            return ResetOnFailure()

    class Stay:
        def start(self, start):
            return None

        def decide(self, rng, verdict, state):
            n = len(verdict.discriminatory)
            return np.zeros(n, bool), np.zeros(n, bool)

    class ADFStay(ADF):
        def acceptance_rule(self):
            return Stay()

    kw = dict(n_seeds=30, n_local=30, seed_selection="as_given", random_state=4)
    a = ADFReset(**kw).run(biased_model, synthetic.domain, seeds=synthetic.X)
    b = ADF(acceptance="reset", **kw).run(biased_model, synthetic.domain, seeds=synthetic.X)
    keep_all = ADF(**kw).run(biased_model, synthetic.domain, seeds=synthetic.X)
    assert a.count() > 0 and np.array_equal(a.inputs, b.inputs) and np.array_equal(a.counterparts, b.counterparts)
    assert not np.array_equal(a.inputs, keep_all.inputs)
    stay = ADFStay(**kw).run(biased_model, synthetic.domain, seeds=synthetic.X)
    phase = stay.pairs["phase"].to_numpy()
    local, starts = stay.inputs[phase == "local"], stay.inputs[phase == "global"]
    assert len(local) and np.abs(local[:, None, :] - starts[None, :, :]).sum(axis=2).min(axis=1).max() == 1


def test_a_part_follows_set_params(synthetic, biased_model):
    # the parts are built from the parameters as a run starts: set_params and clone never leave a stale part
    from sklearn.base import clone

    search = MAFT(n_seeds=20, n_local=20, seed_selection="as_given", random_state=0)
    search.run(biased_model, synthetic.domain, seeds=synthetic.X)
    assert search._gradient.h == 1.0
    clone(search).set_params(h=2.0)
    search.set_params(h=3.0).run(biased_model, synthetic.domain, seeds=synthetic.X)
    assert search._gradient.h == 3.0


def test_image_searches_are_recipes_not_tabular_mixins():
    from fairnb.search.methods.image_flip import ADFImage, EIDIGImage, ImageFlipSearch, NeuronFairImage
    from fairnb.search.methods.two_phase import TwoPhase, TwoPhaseSearch
    from fairnb.search.methods.zero_order_image import ZeroOrderImage

    for cls in (ADFImage, EIDIGImage, NeuronFairImage, ZeroOrderImage):
        assert issubclass(cls, ImageFlipSearch) and issubclass(cls, TwoPhase) and not issubclass(cls, TwoPhaseSearch)
        assert {"n_local", "c_num", "local_step", "seed_selection"}.isdisjoint(cls._parameter_constraints)

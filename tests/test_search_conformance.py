"""The contract of every registered search method, checked generically (in the spirit of scikit-learn's
estimator checks): ``check_search(cls)`` runs over each class in ``fairnb.search.METHODS``, so a new method
is held to it by registering it.

What every method keeps: it is registered under its own name; it is a scikit-learn style estimator
(explicit ``__init__``, ``get_params``/``set_params``, ``sklearn.base.clone``, no run state set in
``__init__``); a model that ignores the protected attribute yields nothing; the same ``random_state``
gives the same pairs; black-box methods run on scikit-learn models and plain callables (and gradient
methods refuse them with a clear error); ``stop()`` from another thread keeps what was found.
"""
from __future__ import annotations

import inspect
import threading
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from fairnb.models import wrap
from fairnb.search import METHODS, get_method
from blackbox_checks import assert_pairs_rechecked
from text_checks import assert_text_pairs_valid, bench, biased_linear, ignoring_linear
from image_checks import assert_image_pairs_rechecked, detector, domain, seed_images

# Small sizes per method so that a run takes well under a second.
FAST = {
    "RandomSearch": dict(n_samples=3000, batch_size=500),
    "ADF": dict(n_seeds=30, n_local=20, seed_selection="as_given"),
    "EIDIG": dict(n_seeds=30, n_local=20, seed_selection="as_given"),
    "MAFT": dict(n_seeds=30, n_local=20, seed_selection="as_given"),
    "NeuronFair": dict(n_seeds=30, n_local=20, seed_selection="as_given", interpret_rows=500),
    "Aequitas": dict(n_seeds=300, n_local=30),
    "AequitasSemiDirected": dict(n_seeds=300, n_local=30),
    "AequitasRandom": dict(n_seeds=300, n_local=30),
    "Kosei": dict(n_seeds=300, n_local=300),
    "AFT": dict(n_loops=3, n_train=1000, max_pairs=30, max_samples=20),
    "VBTX": dict(n_loops=3, n_train=1000, max_solutions=20),
    "GRFT": dict(n_seeds=30, n_local=20, seed_selection="as_given"),
    "DICE": dict(n_seeds=30, n_local=20, seed_selection="as_given", debug_rows=500),
    "LIMI": dict(n_latent=500, n_boundary=3000, batch_size=250),
    "ExpGA": dict(n_candidates=300, n_seeds=50, n_local=30, lime_samples=300),
    "ExpGAText": dict(n_candidates=60, n_local=5, lime_samples=200),
    "SymbolicGeneration": dict(limit=60, n_samples=400, batch_size=8),
    "ADFTextASC": dict(n_seeds=60, n_local=10),
    "TextASC": dict(n_seeds=60, n_local=10),
    "ADFTextHotFlip": dict(n_seeds=60, n_local=10),
    "TextHotFlip": dict(n_seeds=60, n_local=10),
    "TextRandom": dict(n_seeds=60, n_local=10),
    "NeuronFairImage": dict(n_seeds=60),
    "ADFImage": dict(n_seeds=60),
    "EIDIGImage": dict(n_seeds=60),
    "ZeroOrderImage": dict(n_seeds=60),
}
IMAGE_CLASSES = ("NeuronFairImage", "ADFImage", "EIDIGImage", "ZeroOrderImage")
CLASSES = sorted({get_method(name) for name in METHODS}, key=lambda c: c.__name__)


@pytest.fixture(params=CLASSES, ids=lambda c: c.__name__)
def cls(request):
    return request.param


def fast(cls, **params):
    return cls(**{**FAST[cls.__name__], **params})


@pytest.fixture(scope="module")
def text_case():
    from fairnb.text import wrap_text_model

    dom, texts, E = bench(bias=1.0)
    labels = np.array(["muslim" in t for t in texts], dtype=int)
    black_boxes = (make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(texts, labels),
                   lambda ts: [0.9 if "muslim" in t else 0.1 for t in ts])
    return SimpleNamespace(domain=dom, seeds=texts, biased=biased_linear(dom, E), fair=ignoring_linear(dom, E),
                           black_boxes=black_boxes,
                           recheck=lambda r, model, dom: assert_text_pairs_valid(r, wrap_text_model(model, dom.vocab), dom))


@pytest.fixture(scope="module")
def image_case():
    return SimpleNamespace(domain=domain(), seeds=seed_images(3000), biased=detector(red=1.0), fair=detector(red=0.0),
                           black_boxes=(detector(red=1.0).predict_proba,),
                           recheck=lambda r, model, dom: assert_image_pairs_rechecked(r, wrap(model), dom))


@pytest.fixture
def case(cls, request, synthetic, biased_model, fair_model):
    """What ``cls`` searches: a text bench for the text methods, small images for the image methods, the
    synthetic census for the others."""
    if "substitutions" in cls.domain_needs:
        return request.getfixturevalue("text_case")
    if cls.__name__ in IMAGE_CLASSES:
        return request.getfixturevalue("image_case")
    X, _, y, _ = synthetic.split()
    return SimpleNamespace(domain=synthetic.domain, seeds=synthetic.X, biased=biased_model, fair=fair_model,
                           black_boxes=(LogisticRegression(max_iter=500).fit(X, y),
                                        synthetic.info["true_model"].predict_proba),
                           recheck=assert_pairs_rechecked)


def test_every_registered_class_has_fast_parameters():
    assert {c.__name__ for c in CLASSES} == set(FAST)


def test_registered_under_its_own_name(cls):
    names = [n for n in METHODS if get_method(n) is cls]
    assert cls.name in names


def test_scikit_learn_estimator_conventions(cls):
    sig = inspect.signature(cls.__init__)
    assert all(p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in sig.parameters.values())
    names = [p for p in sig.parameters if p != "self"]
    assert {"max_time", "max_tried", "max_found", "random_state", "progress"} <= set(names)
    search = cls()
    # nothing public besides the parameters is set in __init__ (a run's state belongs to the run)
    assert sorted(k for k in vars(search) if not k.startswith("_")) == sorted(names)
    assert repr(search) == f"{cls.__name__}()"
    params = search.get_params(deep=True)
    assert params == search.get_params(deep=False) and list(params) == sorted(names)   # scikit-learn's order
    tuned = clone(search).set_params(random_state=7, max_time=3.0)
    copy = clone(tuned)
    assert copy is not tuned and copy.get_params() == tuned.get_params()
    assert copy.random_state == 7 and copy._stop_event is not tuned._stop_event
    with pytest.raises(ValueError, match="has no parameter 'bogus'"):
        search.set_params(bogus=1)
    with pytest.raises(TypeError, match=r"has no parameter 'random_stat' \(did you mean 'random_state'\?\)"):
        cls(random_stat=0)


def test_fair_model_finds_nothing(cls, case):
    r = fast(cls, random_state=0).run(case.fair, case.domain, seeds=case.seeds)
    outcomes = r.seed_outcomes
    assert r.status == "completed"
    # a search that checked nothing says why for each of its seeds (ExpGA: no explanation ranks the attribute)
    assert r.tried > 0 or (len(outcomes) and (outcomes["outcome"] == "skipped").all() and outcomes["reason"].all())
    assert r.count() == 0 and r.hits == 0


def test_deterministic_given_random_state(cls, case):
    a = fast(cls, random_state=3).run(case.biased, case.domain, seeds=case.seeds)
    b = fast(cls, random_state=3).run(case.biased, case.domain, seeds=case.seeds)
    assert a.count() > 0
    assert np.array_equal(a.inputs, b.inputs) and np.array_equal(a.counterparts, b.counterparts)
    assert a.tried == b.tried


def assert_pairs_keep_their_constraints(result):
    """Every reported pair, re-checked from its inputs (not from fairnb's bookkeeping) against the domain's
    default constraints: the seed each descends from, its counterpart."""
    from fairnb.constraints import resolve, seed_rows

    if not len(result):
        return
    X, C = result.inputs, result.counterparts
    seeds = seed_rows(result.extras.get("seeds"), result.seed_ids, X)
    for constraint in resolve("default", result.domain):
        ok = constraint.allowed(result.domain, X, seeds, C)
        assert ok.all(), f"{result.method}: {int((~ok).sum())} pairs break {constraint.name}"


def test_reported_pairs_keep_the_default_constraints_and_lead_with_the_natural_rate(cls, case):
    biased = fast(cls, random_state=0).run(case.biased, case.domain, seeds=case.seeds)
    fair = fast(cls, random_state=0).run(case.fair, case.domain, seeds=case.seeds)
    assert biased.count() > 0
    assert_pairs_keep_their_constraints(biased)
    head, summary = list(biased.summary()), biased.summary()
    assert head.index("natural_rate") < head.index("unique_idis_eidig")
    assert summary["natural_low"] <= summary["natural_rate"] <= summary["natural_high"]
    assert summary["natural_n"] > 0 and fair.summary()["natural_rate"] == 0
    assert fair.summary()["natural_high"] < summary["natural_low"]          # the headline tells them apart
    assert biased.extras["constraints"] == (", ".join(c.name for c in resolve_default(case.domain)) or "none")


def test_every_seed_ends_with_one_outcome_that_survives_save_and_load(cls, case, tmp_path):
    from fairnb.results import Result

    for r in (fast(cls, random_state=0).run(case.biased, case.domain, seeds=case.seeds),
              fast(cls, random_state=0, max_tried=40).run(case.biased, case.domain, seeds=case.seeds)):
        table, n = r.seed_outcomes, r.extras.get("seeds_used", 0)
        assert table["seed"].tolist() == list(range(n)) and set(table["outcome"]) <= {"found", "exhausted", "skipped"}
        counts = table["outcome"].value_counts()
        assert [r.extras.get(f"seeds_{o}", 0) for o in ("found", "exhausted", "skipped")] == \
            [int(counts.get(o, 0)) for o in ("found", "exhausted", "skipped")] and counts.sum() == n
        assert set(table["seed"][table["outcome"] == "found"]) == {int(s) for s in r.seed_ids if s >= 0}
        assert (table["reason"][table["outcome"] == "skipped"] != "").all()
        assert r.summary().get("seeds_skipped", 0) == int(counts.get("skipped", 0))
        pd.testing.assert_frame_equal(Result.load(r.save(tmp_path / f"{r.status}.csv")).seed_outcomes, table)


def resolve_default(domain):
    from fairnb.constraints import resolve

    return resolve("default", domain)


def test_sklearn_models_and_plain_callables(cls, case):
    for model in case.black_boxes:
        search = fast(cls, random_state=0)
        if cls.needs_gradients or cls.needs_activations or getattr(cls, "uses_gradients", False):
            with pytest.raises(TypeError, match=f"{cls.name} needs"):
                search.run(model, case.domain, seeds=case.seeds)
            continue
        r = search.run(model, case.domain, seeds=case.seeds)
        assert r.status == "completed" and r.count() > 0
        case.recheck(r, model, case.domain)


def test_stop_from_another_thread_keeps_what_was_found(cls, case):
    """Run without a natural end (a large size, a long time budget); another thread stops it once a pair is found."""
    big = {"RandomSearch": dict(n_samples=None), "SymbolicGeneration": dict(limit=None), "AFT": dict(n_loops=None),
           "LIMI": dict(n_latent=None),
           "VBTX": dict(n_loops=None),
           **{name: dict(n_seeds=None, batch_size=1) for name in IMAGE_CLASSES}}.get(
        cls.__name__, dict(n_seeds=4000, n_local=1000))
    search = fast(cls, max_time=120, random_state=0, **big)
    seen = threading.Event()
    out = {}

    def run():
        out["r"] = search.run(case.biased, case.domain, seeds=case.seeds,
                              listeners=[lambda e: e.found > 0 and seen.set()])

    t = threading.Thread(target=run)
    t.start()
    assert seen.wait(60)
    search.stop()
    t.join(60)
    r = out["r"]
    assert r.status == "stopped" and r.count() > 0 and r.elapsed < 60
    case.recheck(r, case.biased, case.domain)


def test_testsgd_is_a_scikit_learn_estimator():
    from fairnb.group import TestSGD

    search = TestSGD(theta=0.1, random_state=4)
    copy = clone(search)
    assert copy is not search and copy.get_params() == search.get_params() and copy.theta == 0.1
    assert sorted(k for k in vars(copy) if not k.startswith("_")) == sorted(copy.get_params())


def test_names_a_newcomer_can_guess():
    """``fairnb.search`` is the subpackage of the methods (also after ``import fairnb.search``); the function
    that runs a method by name is ``fairnb.run_search``."""
    import importlib

    import fairnb
    import fairnb.search as search_package

    assert search_package is importlib.import_module("fairnb.search") is fairnb.search
    assert fairnb.search.RandomSearch is get_method("random")
    assert fairnb.run_search is search_package.run_search and callable(fairnb.run_search)

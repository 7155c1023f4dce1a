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
from fairnb.search.registry import RECORDS, method_record, seeds_for
from blackbox_checks import assert_pairs_rechecked, same_pairs
from text_checks import assert_text_pairs_valid, bench, biased_linear, ignoring_linear
from image_checks import assert_image_pairs_rechecked, detector, domain, seed_images

NAMES = sorted(RECORDS)       # one per method (aliases left out); each record's ``fast`` sizes a run well under a second


@pytest.fixture(params=NAMES)
def cls(request):
    return get_method(request.param)


def fast(cls, **params):
    return cls(**{**method_record(cls).fast, **params})


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


@pytest.fixture(scope="module")
def tabular_case(synthetic, biased_model, fair_model):
    X, _, y, _ = synthetic.split()
    return SimpleNamespace(domain=synthetic.domain, seeds=synthetic.X, biased=biased_model, fair=fair_model,
                           black_boxes=(LogisticRegression(max_iter=500).fit(X, y),
                                        synthetic.info["true_model"].predict_proba),
                           recheck=assert_pairs_rechecked)


def case_for(cls, request):
    """What ``cls`` searches (its record's ``inputs``): the synthetic census, a text bench or small images;
    ``seeds`` are None for a method that takes none (``all_seeds`` are the bench's)."""
    bench_case = request.getfixturevalue(f"{method_record(cls).inputs}_case")
    return SimpleNamespace(**{**vars(bench_case), "seeds": seeds_for(cls, bench_case.seeds),
                              "all_seeds": bench_case.seeds})


@pytest.fixture
def case(cls, request):
    return case_for(cls, request)


def test_registered_under_its_own_name(cls):
    names = [n for n in METHODS if get_method(n) is cls]
    assert cls.name in names and method_record(cls).name == cls.name


def test_scikit_learn_estimator_conventions(cls):
    sig = inspect.signature(cls.__init__)
    assert all(p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in sig.parameters.values())
    names = [p for p in sig.parameters if p != "self"]
    assert {"max_time", "max_tried", "max_found", "random_state", "progress"} <= set(names)
    assert set(cls._parameter_constraints) <= set(names), "constraints on parameters the method does not have"
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
    rate = "natural" if "natural_rate" in summary else "random"    # a method given no data: its random draws' rate
    assert rate == "natural" or not method_record(cls).takes_seeds
    assert head.index(f"{rate}_rate") < head.index("unique_idis_eidig")
    assert summary[f"{rate}_low"] <= summary[f"{rate}_rate"] <= summary[f"{rate}_high"]
    assert summary[f"{rate}_n"] > 0 and fair.summary()[f"{rate}_rate"] == 0
    assert fair.summary()[f"{rate}_high"] < summary[f"{rate}_low"]          # the headline tells them apart
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
        if method_record(cls).needs:
            with pytest.raises(TypeError, match=f"{cls.name} needs"):
                search.run(model, case.domain, seeds=case.seeds)
            continue
        r = search.run(model, case.domain, seeds=case.seeds)
        assert r.status == "completed" and r.count() > 0
        case.recheck(r, model, case.domain)


def test_stop_from_another_thread_keeps_what_was_found(cls, case):
    """Run without a natural end (a large size, a long time budget); another thread stops it once a pair is found."""
    big = {"RandomSearch": dict(n_samples=None), "SymbolicGeneration": dict(limit=None), "AFT": dict(n_loops=None),
           "LIMI": dict(n_latent=None), "VBTX": dict(n_loops=None)}
    if method_record(cls).inputs == "image":
        big = dict(n_seeds=None, batch_size=1)
    else:          # a subclass of one of those (a user's method) runs as its base does
        big = next((big[c.__name__] for c in cls.__mro__ if c.__name__ in big), dict(n_seeds=4000, n_local=1000))
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


# ---------------------------------------------------------------------------------------------- the record
def test_the_record_is_complete_and_agrees_with_the_class(cls):
    """Each field of the method's registry record is there and true of its class (the suites trust them)."""
    from fairnb.summaries import LABELS, TERMS

    record, params = method_record(cls), set(cls._get_param_names())
    name = record.name
    assert record.fast, f"{name}: its record has no 'fast' configuration (small parameters for the test suites)"
    assert set(record.fast) <= params, f"{name}: 'fast' sets {sorted(set(record.fast) - params)}, not parameters"
    assert set(record.divided) <= params, f"{name}: 'divided' names {sorted(set(record.divided) - params)}"
    needs = {"gradients": cls.needs_gradients or getattr(cls, "uses_gradients", False),
             "activations": cls.needs_activations}
    assert set(record.needs) == {k for k, v in needs.items() if v}, f"{name}: 'needs' is not what {cls.__name__} needs"
    assert (record.inputs == "text") == ("substitutions" in cls.domain_needs), f"{name}: 'inputs' {record.inputs!r}"
    for key in record.summary_keys:
        assert key in LABELS and key in TERMS, f"{name}: 'summary_keys' has {key!r}, without a label and glossary term"


def test_the_summary_has_the_methods_own_keys(cls, case):
    summary = fast(cls, random_state=0).run(case.biased, case.domain, seeds=case.seeds).summary()
    missing = set(method_record(cls).summary_keys) - set(summary)
    assert not missing, f"{cls.name}: 'summary_keys' {sorted(missing)} are not in its summary"


def test_seeds_are_used_or_refused(cls, case):
    """A method that takes ``seeds=`` uses them (it needs them, or its run differs without them); one that
    does not refuses them, naming itself, rather than ignore them."""
    if not method_record(cls).takes_seeds:
        with pytest.raises(ValueError, match=f"{cls.name} draws its own inputs and does not use seeds; leave"):
            fast(cls, random_state=0).run(case.biased, case.domain, seeds=case.all_seeds)
        return
    given = fast(cls, random_state=0).run(case.biased, case.domain, seeds=case.seeds)
    try:
        without = fast(cls, random_state=0).run(case.biased, case.domain)
    except ValueError as refusal:
        assert "seeds" in str(refusal)
        return
    assert (given.tried, given.count(), given.summary().get("natural_n")) != \
        (without.tried, without.count(), without.summary().get("natural_n")), f"{cls.name} ignores its seeds"


def run_in_shards(search, model, domain, seeds, n_shards: int):
    """The merged Result of ``search`` cut into ``n_shards`` shards by the shard driver (``fairnb.distributed.driver``),
    run one after another on one thread."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return type(search)(**search.get_params()).run(model, domain, seeds, executor=pool, n_shards=n_shards)


def test_one_shard_is_the_local_run(cls, case):
    """One shard through the shard driver draws from the run's own stream: the local run, pair for pair."""
    local = fast(cls, random_state=0, progress=False).run(case.biased, case.domain, case.seeds)
    one = run_in_shards(fast(cls, random_state=0, progress=False), case.biased, case.domain, case.seeds, 1)
    assert (one.tried, one.status) == (local.tried, local.status)
    assert same_pairs(one, local), cls.name


@pytest.mark.parametrize("budget", [{}, {"max_tried": 2000}], ids=["own budgets", "max_tried"])
def test_two_shards_try_what_one_does(cls, case, budget):
    """Under the same count budgets, two shards check as many candidates as one (within 10 %): the record's
    ``divided`` budgets are cut between them."""
    search = fast(cls, random_state=0, progress=False, **budget)
    one = run_in_shards(search, case.biased, case.domain, case.seeds, 1)
    two = run_in_shards(search, case.biased, case.domain, case.seeds, 2)
    tried1, tried2 = one.tried, two.tried
    assert len(one.extras["shards"]) == 1 and tried1 > 0
    assert abs(tried2 - tried1) <= 0.1 * tried1, \
        f"{cls.name}: 2 shards tried {tried2}, 1 shard {tried1} (divided: {method_record(cls).divided})"

"""Nothing lost, nothing silent (issue 11): interruption, failing models, live reads, bad files and
bad input, for every registered method and TestSGD. Fault injection lives in ``tests/faults.py``."""
from __future__ import annotations

import json
import signal
import sys
import threading
import time
import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import fairnb
from fairnb.domains import Feature, TabularDomain
from fairnb.group import TestSGD
from fairnb.results import Result
from fairnb.search.registry import RECORDS, method_record, seeds_for

from faults import FailingModel, InterruptAt, LiveReader, assert_sound, fast_search, sigint_soon

METHODS = sorted(m for m, r in RECORDS.items() if r.inputs != "image")   # tables, texts (images: test_images_search.py)

pytestmark = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                                reason="SIGINT tests need the main thread")


def _run(search, model, data, **kw):
    try:
        return search.run(model, data.domain, seeds=seeds_for(search, data.X), **kw)
    except KeyboardInterrupt:
        pytest.fail("KeyboardInterrupt escaped run(): the Result was lost")


@pytest.fixture(scope="module")
def text_bench():
    from text_checks import bench, biased_linear

    dom, texts, E = bench(bias=1.0)
    return biased_linear(dom, E), SimpleNamespace(domain=dom, X=texts)


def _bench(method, synthetic, biased_model, text_bench):
    """``(model, data)`` that ``method`` searches: the text bench for text methods, else the synthetic census."""
    return text_bench if method_record(method).inputs == "text" else (biased_model, synthetic)


# ---------------------------------------------------------------------------------------------- Ctrl-C
@pytest.mark.parametrize("method", METHODS)
def test_ctrl_c_returns_the_result(method, synthetic, biased_model, text_bench):
    model, data = _bench(method, synthetic, biased_model, text_bench)
    result = _run(fast_search(method), model, data, listeners=[InterruptAt(at=2)])
    assert result.status == "interrupted"
    assert result.tried > 0
    assert_sound(result, model, data.domain)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("gap", [0.0005, 0.003, 0.01])
def test_double_ctrl_c_still_returns_the_result(method, gap, synthetic, biased_model, text_bench):
    model, data = _bench(method, synthetic, biased_model, text_bench)
    result = _run(fast_search(method), model, data, listeners=[InterruptAt(at=2, second=gap)])
    assert result.status == "interrupted"
    assert_sound(result, model, data.domain)


@pytest.mark.parametrize("method", ["random", "eidig", "maft", "neuronfair", "sg", "aequitas"])
def test_ctrl_c_at_random_moments(method, synthetic, biased_model, monkeypatch):
    """SIGINT from another thread at a random moment (also inside z3, K-Means, Result.record), then a
    second one a few ms later; every run returns a whole Result. (A SIGINT that lands in a ``__del__``,
    e.g. z3's, is dropped by Python as "unraisable"; pytest's hook for those is silenced here.)"""
    from threadpoolctl import threadpool_info

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: None)
    rng = np.random.default_rng(sum(map(ord, method)))
    threads = blas_threads()
    for delay in rng.uniform(0.0, 0.3, size=4):
        # a budget far beyond the SIGINTs' delay: even on a loaded machine the Ctrl-C, not the budget, ends it
        search = fast_search(method, max_time=60, **({"n_samples": None} if method == "random" else {}))
        gap = rng.uniform(0.0005, 0.01)
        timers = []

        def press_twice(event):   # both land between the search's start and the end of its "done" event
            if event.kind == "start":
                timers.extend([sigint_soon(delay), sigint_soon(delay + gap)])
            elif event.kind == "done":
                for t in timers:
                    t.join()
                time.sleep(0.01)

        _drain([])   # a SIGINT of an earlier run that a loaded machine delivers late must not hit this one
        started = []
        try:
            result = search.run(biased_model, synthetic.domain, seeds=seeds_for(search, synthetic.X),
                                listeners=[lambda event: started.append(event.kind), press_twice])
        except KeyboardInterrupt:
            _drain(timers)
            if not started:   # before the search began nothing can be lost: KeyboardInterrupt is right
                continue
            pytest.fail("KeyboardInterrupt escaped run() after the search had started")
        assert result.status in ("interrupted", "completed")
        assert_sound(result, biased_model, synthetic.domain)
        assert blas_threads() == threads     # the search's one-thread limit is given back, Ctrl-C or not


def _drain(timers):
    """Let pending SIGINT timers fire (or cancel them) before the test goes on."""
    for t in timers:
        t.cancel()
    while True:
        try:
            for t in timers:
                t.join()
            time.sleep(0.02)
            return
        except KeyboardInterrupt:
            continue


def test_sigint_in_the_wind_down_is_absorbed(synthetic, biased_model):
    def press_twice_at_the_end(event):
        if event.kind == "done":
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)

    result = _run(fast_search("eidig", n_seeds=10, n_local=5), biased_model, synthetic,
                  listeners=[press_twice_at_the_end])
    assert result.status == "completed" and result.extras["generated"] > 0
    assert_sound(result, biased_model, synthetic.domain)


def test_record_is_atomic_under_ctrl_c(synthetic, biased_model):
    """A SIGINT during Result.record is held until the batch is committed: count == stored pairs."""
    import fairnb.counting as counting

    original = counting.UniqueCounter.keys
    calls = {"n": 0}

    def slow_keys(*a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            signal.raise_signal(signal.SIGINT)      # lands between computing and committing the batch
        return original(*a, **k)

    counting.UniqueCounter.keys = slow_keys
    try:
        result = _run(fast_search("random"), biased_model, synthetic)
    finally:
        counting.UniqueCounter.keys = original
    assert result.status == "interrupted"
    assert_sound(result, biased_model, synthetic.domain)


# ---------------------------------------------------------------------------------------------- failing models
@pytest.mark.parametrize("method", METHODS)
def test_a_model_failing_midway_keeps_the_partial_result(method, synthetic, biased_model, text_bench):
    inner, data = _bench(method, synthetic, biased_model, text_bench)
    model = FailingModel(inner, fail_on=2, midway=True)
    with pytest.raises(RuntimeError, match="injected") as info:
        fast_search(method).run(model, data.domain, seeds=seeds_for(method, data.X), listeners=[model.listener])
    result = info.value.result
    assert result.status == "failed" and result.error is info.value
    assert result.tried > 0
    assert_sound(result, inner, data.domain)
    with pytest.raises(RuntimeError, match="injected"):
        result.raise_for_status()


@pytest.mark.parametrize("method", ["random", "eidig", "sg"])
def test_a_model_raising_keyboard_interrupt_is_an_interruption(method, synthetic, biased_model):
    model = FailingModel(biased_model, fail_on=4, error=KeyboardInterrupt())
    result = _run(fast_search(method), model, synthetic)
    assert result.status == "interrupted"
    assert_sound(result, biased_model, synthetic.domain)


def test_background_wait_gives_the_partial_result_of_a_failure(synthetic, biased_model):
    run = fast_search("random").start(FailingModel(biased_model, fail_on=5), synthetic.domain)
    with pytest.raises(RuntimeError, match="injected") as info:
        run.wait(timeout=30)
    assert info.value.result is run.result
    assert run.result.status == "failed" and run.result.count() == len(run.result.pairs)


def test_ctrl_c_while_waiting_for_a_background_search_interrupts_it(synthetic, biased_model, monkeypatch):
    from fairnb.search.engine import background

    def interrupted_join(thread, timeout):
        raise KeyboardInterrupt

    run = fast_search("random", n_samples=None, max_time=60).start(biased_model, synthetic.domain)
    monkeypatch.setattr(background, "_join", interrupted_join)
    result = run.wait()
    assert run.done and result is run.result
    assert result.status == "interrupted" and result.elapsed < 30
    assert_sound(result, biased_model, synthetic.domain)


# ---------------------------------------------------------------------------------------------- live reads
@pytest.mark.parametrize("method", ["random", "eidig", "sg"])
def test_live_reads_see_consistent_snapshots(method, synthetic, biased_model):
    search = fast_search(method, max_time=1.5, **({"n_samples": None} if method == "random" else {}))
    reader = LiveReader(search)
    result = search.run(biased_model, synthetic.domain, seeds=seeds_for(search, synthetic.X))
    reader.stop()
    assert not reader.errors, reader.errors[0]
    assert reader.reads > 0
    assert_sound(result, biased_model, synthetic.domain)


# ---------------------------------------------------------------------------------------------- TestSGD
@pytest.fixture(scope="module")
def sgd_data():
    return fairnb.datasets.make_synthetic(n=2000, random_state=0).with_protected(["sex", "race"])


def test_testsgd_ctrl_c_returns_the_partial_ranking(sgd_data, biased_model):
    rounds = {"n": 0}

    def press(done, total, elapsed):
        rounds["n"] += 1
        if rounds["n"] == 2:
            signal.raise_signal(signal.SIGINT)

    try:
        res = TestSGD(random_state=0, min_samples=100, max_samples=400, round_size=64, batch_size=2000).run(
            biased_model, sgd_data, listeners=[press])
    except KeyboardInterrupt:
        pytest.fail("KeyboardInterrupt escaped TestSGD.run")
    assert res.info["status"] == "interrupted" and res.info["partial"]
    assert len(res) > 0 and (res.frame["n"] > 0).all()


def test_testsgd_model_failure_carries_the_partial_ranking(sgd_data, biased_model):
    for error, status in ((KeyboardInterrupt(), "interrupted"), (RuntimeError("injected"), "failed")):
        model = FailingModel(biased_model, fail_on=3, error=error)
        search = TestSGD(random_state=0, min_samples=100, max_samples=400, round_size=64, batch_size=2000)
        if status == "interrupted":
            res = search.run(model, sgd_data)
        else:
            with pytest.raises(RuntimeError, match="injected") as info:
                search.run(model, sgd_data)
            res = info.value.result
        assert res.info["status"] == status and res.info["partial"]
        assert len(res) > 0


def test_testsgd_refuses_a_favourable_label_the_model_lacks(sgd_data, biased_model):
    with pytest.raises(ValueError, match="favourable=5"):
        TestSGD(favourable=5, random_state=0, min_samples=100).run(biased_model, sgd_data)
    with pytest.raises(ValueError, match="step"):
        TestSGD(step=0.5).run(biased_model, sgd_data)


def test_testsgd_warns_before_a_huge_enumeration(sgd_data, biased_model, monkeypatch):
    monkeypatch.setattr(TestSGD, "WARN_CANDIDATES", 10)
    with pytest.warns(UserWarning, match="candidate rule sets"):
        TestSGD(random_state=0, min_samples=50, max_samples=50).run(biased_model, sgd_data)


def test_testsgd_refuses_millions_of_rule_sets_before_memory_runs_out():
    """3 sensitive attributes of 8 values: 13.6 million of the 16.6 million candidate rule sets are frequent
    (every value subset covers k/8 of the records), which ran out of 8 GB; now a clear error comes within
    seconds, before the model is called, and says what to change."""
    rng = np.random.default_rng(0)
    dom = TabularDomain([Feature(f"s{i}", 0, 7) for i in range(3)] + [Feature("x", 0, 9)],
                        protected=["s0", "s1", "s2"])
    X = np.column_stack([rng.integers(0, 8, (20_000, 3)), rng.integers(0, 10, 20_000)]).astype(float)

    def never(Z):
        raise AssertionError("the model was called")

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # the candidate-count warning
        with pytest.raises(ValueError, match=r"more than 100,000 frequent rule sets.*16,581,374 candidates.*theta"):
            TestSGD(random_state=0).run(never, X, domain=dom)
    assert time.perf_counter() - t0 < 30


# ---------------------------------------------------------------------------------------------- SG and z3
def test_a_ctrl_c_that_z3s_finaliser_swallows_still_ends_sg(synthetic, biased_model, monkeypatch):
    """SIGINT while z3 frees an expression: Python raises the KeyboardInterrupt inside ``AstRef.__del__`` and
    drops it there ("Exception ignored"); the search used to run on to its budget (1 run in 16)."""
    import z3

    original, calls = z3.AstRef.__del__, {"n": 0}

    def finaliser(self):
        calls["n"] += 1
        if calls["n"] == 50:
            signal.raise_signal(signal.SIGINT)        # handled on the next line, inside this finaliser
        original(self)

    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: dropped.append(unraisable.exc_type))
    monkeypatch.setattr(z3.AstRef, "__del__", finaliser)
    result = _run(fast_search("sg", limit=None, max_tried=1_000), biased_model, synthetic)
    assert dropped == [KeyboardInterrupt]             # the interrupt really was lost where it landed
    assert result.status == "interrupted" and result.tried < 1_000
    assert_sound(result, biased_model, synthetic.domain)


def test_a_ctrl_c_lost_in_a_finaliser_during_the_last_batch_still_reads_interrupted(synthetic, biased_model,
                                                                                    monkeypatch):
    """The Ctrl-C lands in a finaliser (dropped there) while the last batch is recorded, and the search then
    ends on its own: it used to read "completed" (or "budget"), as if nobody had pressed anything."""
    class PressesWhenFreed:
        def __del__(self):
            signal.raise_signal(signal.SIGINT)        # handled inside this finaliser, and dropped there

    def on_last_batch(event):
        if event.kind == "progress" and event.tried >= 2_000:
            PressesWhenFreed()

    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: dropped.append(unraisable.exc_type))
    result = _run(fast_search("random", n_samples=2_000, batch_size=500), biased_model, synthetic,
                  listeners=[on_last_batch])
    assert dropped == [KeyboardInterrupt] and result.tried == 2_000
    assert result.status == "interrupted"
    assert_sound(result, biased_model, synthetic.domain)


def test_an_interrupt_noted_inside_a_deferred_block_reaches_the_noting_block():
    from fairnb.interrupts import deferred_interrupts, noted_interrupts

    with noted_interrupts() as pressed:
        with deferred_interrupts(reraise=False) as held:
            signal.raise_signal(signal.SIGINT)
    assert held.arrived and pressed.arrived
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_interruptible_block_ends_at_the_press_even_inside_a_deferred_block():
    from fairnb.interrupts import deferred_interrupts, interruptible, noted_interrupts

    steps = []
    with noted_interrupts() as pressed:
        with deferred_interrupts(reraise=False) as held:
            with interruptible() as dropped:
                steps.append("before")
                signal.raise_signal(signal.SIGINT)
                steps.append("after")             # never reached: the press ends the block here
            steps.append("held block goes on")
    assert steps == ["before", "held block goes on"]
    assert dropped.arrived and held.arrived and pressed.arrived
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_deferred_block_inside_an_interruptible_one_finishes_first():
    from fairnb.interrupts import deferred_interrupts, interruptible

    steps = []
    with interruptible() as dropped:
        with deferred_interrupts():
            signal.raise_signal(signal.SIGINT)
            steps.append("bookkeeping finished")
        steps.append("after")
    assert steps == ["bookkeeping finished"] and dropped.arrived
    with pytest.raises(KeyboardInterrupt):         # a KeyboardInterrupt that no Ctrl-C sent is not absorbed
        with interruptible():
            raise KeyboardInterrupt


def test_an_interrupted_z3_call_is_not_unsat():
    import z3

    from fairnb.search.parts.symbolic.solver import Z3Solver

    class Cancelled(z3.Solver):
        def check(self, *a):
            return z3.unknown

        def reason_unknown(self):
            return "canceled"

    solver = Z3Solver(np.zeros(2), np.full(2, 5.0))
    original = z3.SimpleSolver
    z3.SimpleSolver = Cancelled
    try:
        with pytest.raises(KeyboardInterrupt):
            solver._solve_together([0], [("(declare-const v0_0 Int)(assert (>= v0_0 1))", [0])], np.zeros((1, 2)))
    finally:
        z3.SimpleSolver = original


# ---------------------------------------------------------------------------------------------- budgets
@pytest.mark.parametrize("kw", [dict(max_time=float("nan")), dict(max_tried=float("nan")), dict(batch_size=0.5),
                                dict(n_samples=2.5), dict(max_found=0), dict(max_time=-1), dict(max_tried=True)])
def test_budgets_that_are_not_numbers_are_refused(kw, synthetic, biased_model):
    name = next(iter(kw))
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=name):
        fairnb.run_search(biased_model, synthetic.domain, method="random", progress=False, **kw)
    assert time.perf_counter() - t0 < 5


def test_max_time_inf_is_allowed_and_said(synthetic, biased_model, capsys):
    r = fairnb.run_search(biased_model, synthetic.domain, method="random", max_time=float("inf"), n_samples=300,
                      progress=True)
    assert r.status == "completed" and r.tried == 300
    assert "no time limit" in capsys.readouterr().err


def test_max_found_keeps_at_most_that_many(synthetic, biased_model):
    for method in ("random", "eidig"):
        r = fast_search(method, max_found=1).run(biased_model, synthetic.domain, seeds=seeds_for(method, synthetic.X))
        assert r.count() == 1 == len(r.pairs) and r.status == "budget"


def test_step_size_and_seeds_stay_integer(synthetic, biased_model):
    with pytest.raises(ValueError, match="step_size"):
        fast_search("aequitas", step_size=0.5).run(biased_model, synthetic.domain)
    with pytest.raises(ValueError, match="fractional"):
        fast_search("eidig").run(biased_model, synthetic.domain, seeds=synthetic.X + 0.5 * (synthetic.X < 1))


def test_seed_frames_are_aligned_by_name(synthetic, biased_model):
    frame = pd.DataFrame(synthetic.X, columns=list(synthetic.domain.names))
    shuffled = frame[list(reversed(frame.columns))]
    a = fast_search("eidig", seed_selection="as_given").run(biased_model, synthetic.domain, seeds=frame)
    b = fast_search("eidig", seed_selection="as_given").run(biased_model, synthetic.domain, seeds=shuffled)
    np.testing.assert_array_equal(a.extras["seeds"], b.extras["seeds"])
    with pytest.raises(ValueError, match="missing"):
        fast_search("eidig").run(biased_model, synthetic.domain, seeds=frame.rename(columns={frame.columns[0]: "x"}))


def test_a_model_whose_classes_change_between_calls_fails_the_search_keeping_its_pairs(synthetic, biased_model):
    """A model that returns 2 columns, then 3: the search reported 4,984 IDIs, then ``result.pairs`` raised."""
    calls = []

    def shifting(X):
        calls.append(len(X))
        P = biased_model.predict_proba(X)
        return P if len(calls) < 3 else np.column_stack([P * 0.9, np.full(len(P), 0.1)])

    with pytest.raises(ValueError, match="returned 3 class probabilities per input after returning 2") as info:
        fairnb.run_search(shifting, synthetic.domain, max_tried=20_000, batch_size=1000, random_state=0)
    result = info.value.result
    assert result.status == "failed" and result.count() > 0 and len(result.pairs) == result.count()


def test_a_regressor_is_not_a_classifier(synthetic):
    from sklearn.linear_model import LinearRegression

    with pytest.raises(TypeError, match="regressor"):
        fairnb.run_search(LinearRegression().fit(synthetic.X, synthetic.y), synthetic.domain, max_tried=100)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["eidig", "neuronfair"])
def test_max_time_is_kept_on_a_32_feature_domain(method):
    """Loose form of benchmarks/budgets.py: past max_time by at most about one batch's time (the
    distinct-input counting of 2^64-input domains used to add as much again as the search took)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "budgets.py"
    spec = importlib.util.spec_from_file_location("budgets", path)
    budgets = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(budgets)
    dom, model, seeds = budgets.wide_problem(n_seeds=5000)
    search = fast_search(method, n_seeds=5000, n_local=1000, batch_size=4096, max_time=3)
    t0 = time.perf_counter()
    result = search.run(model, dom, seeds=seeds)
    wall = time.perf_counter() - t0
    longest = np.diff(result.timeline["elapsed"].to_numpy()).max()
    assert result.status == "budget" and result.extras["generated"] > 0
    assert wall - 3 < max(1.0, 2 * longest)


# ---------------------------------------------------------------------------------------------- K-Means stop
def test_stop_during_kmeans_answers_within_a_second(synthetic, biased_model, monkeypatch):
    """K-Means over 100k x 200 seeds takes a minute; here a K-Means that takes 20 s stands in for it."""
    from sklearn.cluster import KMeans

    monkeypatch.setattr(KMeans, "fit_predict", lambda self, X: time.sleep(20))
    for method in ("eidig", "sg"):
        run = fast_search(method, **({"seed_selection": "kmeans"} if method == "eidig" else {})).start(
            biased_model, synthetic.domain, synthetic.X)
        time.sleep(0.3)
        t0 = time.perf_counter()
        result = run.stop(timeout=5)
        assert time.perf_counter() - t0 < 1.0
        assert result.status == "stopped" and result.tried == 0


# ---------------------------------------------------------------------------------------------- save / load
# names a file's own columns could take (result.pairs' own names are refused: test_bad_domain_input.py)
RESERVED = ["p_1", "p_2", "a", "fairnb:p_0", "fairnb:x_0", "result:p", "P", "info"]


@pytest.fixture(scope="module")
def reserved_result():
    feats = [Feature("sex", 0, 1)] + [Feature(n, 0, 3) for n in RESERVED]
    dom = TabularDomain(feats, protected=["sex"])
    model = fairnb.models.FunctionModel(lambda X: X[:, 0] * (X[:, 1] >= 1) * 0.8 + 0.1)
    return fairnb.run_search(model, dom, method="random", n_samples=3000, random_state=0, progress=False)


@pytest.mark.parametrize("ext", [".csv", ".parquet"])
def test_round_trip_with_reserved_feature_names(reserved_result, tmp_path, ext):
    r = reserved_result
    assert r.count() > 16
    back = Result.load(r.save(tmp_path / f"r{ext}"))
    assert back.count() == r.count() and back.count("adf") == r.count("adf")
    np.testing.assert_array_equal(back.inputs, r.inputs)
    np.testing.assert_array_equal(back.counterparts, r.counterparts)
    pd.testing.assert_frame_equal(back.pairs, r.pairs)


def test_pairs_keep_every_feature_and_their_own_columns(reserved_result):
    pairs = reserved_result.pairs
    for name in RESERVED:
        np.testing.assert_array_equal(pairs[name].to_numpy(float),
                                      reserved_result.inputs[:, list(reserved_result.domain.names).index(name)])
    assert {"p", "p'", "label", "difference", "seed", "near_threshold"} <= set(pairs.columns)


def test_load_says_what_is_wrong(reserved_result, tmp_path):
    path = reserved_result.save(tmp_path / "r.csv")
    text = path.read_text().splitlines()
    path.write_text("\n".join(text[: len(text) // 2]) + "\n")           # truncated
    with pytest.raises(ValueError, match="r.csv has .* pairs but r.csv.json says"):
        Result.load(path)
    reserved_result.save(path)
    meta = json.loads((tmp_path / "r.csv.json").read_text())
    frame = pd.read_csv(path).drop(columns=[meta["columns"]["phase"]])   # a column missing
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError, match="lacks the columns"):
        Result.load(path)
    reserved_result.save(path)
    (tmp_path / "r.csv.json").write_text('{"method": "random", "params"')    # damaged JSON
    with pytest.raises(ValueError, match=r"r.csv.json is not a fairnb result description \(JSONDecodeError"):
        Result.load(path)
    reserved_result.save(path)
    frame = pd.read_csv(path)
    frame.loc[0, meta["columns"]["X"][3]] = 99                             # outside the domain
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError, match="outside its bounds"):
        Result.load(path)
    path.write_text("")                                                    # empty
    with pytest.raises(ValueError, match="cannot be read"):
        Result.load(path)


def test_an_interrupted_save_leaves_the_earlier_file_whole(reserved_result, tmp_path, monkeypatch):
    path = reserved_result.save(tmp_path / "r.csv")
    before = path.read_bytes(), (tmp_path / "r.csv.json").read_bytes()
    original = pd.DataFrame.to_csv

    def interrupted(self, *a, **k):
        original(self, *a, **k)
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        reserved_result.save(path)
    monkeypatch.undo()
    assert (path.read_bytes(), (tmp_path / "r.csv.json").read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.csv.json"]


# ---------------------------------------------------------------------------------------------- near threshold
def test_near_threshold_pairs_are_marked(synthetic):
    dom = synthetic.domain
    sex = list(dom.names).index("sex")

    def model(X):       # p = 0.5 + 4e-7 for sex = 1 on odd x, a firm 0.9 / 0.1 otherwise
        odd = X[:, sex - 1 if sex else 1] % 2 == 1
        return np.where(X[:, sex] == 1, np.where(odd, 0.5 + 4e-7, 0.9), 0.1)

    r = fairnb.run_search(model, dom, method="random", n_samples=4000, random_state=0, progress=False)
    near = r.pairs["near_threshold"].to_numpy()
    assert 0 < near.sum() < len(near)
    p = r.pairs[["p", "p'"]].to_numpy()
    np.testing.assert_array_equal(near, (np.abs(p - 0.5) < 1e-6).any(axis=1))
    from fairnb.results.metrics import pair_rows

    rows = pair_rows(dom, r.inputs, r.counterparts)      # the summary counts unordered pairs, once each
    assert r.summary()["near_threshold"] == near[rows].sum() <= near.sum()


# ---------------------------------------------------------------------------------------------- files and plots
def test_damaged_model_files_say_what_is_wrong(tmp_path, models_dir):
    h5 = next(models_dir.rglob("*.h5"))
    data = bytearray(h5.read_bytes())
    for i in range(200, len(data), 97):
        data[i] ^= 0xFF
    bad = tmp_path / "flipped.h5"
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="flipped.h5"):
        fairnb.models.load_model(bad)
    trunc = tmp_path / "half.keras"
    trunc.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ValueError, match="half.keras: cannot be read as a Keras 3"):
        fairnb.models.load_model(trunc)


def test_benchmark_csv_headers_are_checked(tmp_path, data_dir):
    src = data_dir / "census_eidig" / "census_eidig.csv"
    frame = pd.read_csv(src, nrows=200)
    cols = list(frame.columns)
    swapped = tmp_path / "census_eidig"
    swapped.mkdir()
    frame[[cols[1], cols[0]] + cols[2:]].to_csv(swapped / "census_eidig.csv", index=False)
    with pytest.raises(ValueError, match="another order"):
        fairnb.datasets.load("census", data_dir=tmp_path)
    frame.to_csv(swapped / "census_eidig.csv", index=False, header=False)
    with pytest.raises(ValueError, match="no header row"):
        fairnb.datasets.load("census", data_dir=tmp_path)


def test_dollar_labels_plot(tmp_path, synthetic, biased_model):
    import matplotlib

    matplotlib.use("Agg")
    r = fairnb.run_search(biased_model, synthetic.domain, method="random", n_samples=500, progress=False)
    cmp = fairnb.compare({"under_$50k": r, "over_$50k and $x$": r}, title="cost $ and $")
    cmp.savefig(tmp_path / "c.png")
    labels = [t.get_text() for t in cmp.figure.axes[1].get_yticklabels()]
    assert labels == [r"under_\$50k", r"over_\$50k and \$x\$"]


def test_the_panel_says_why_a_search_failed(synthetic, biased_model):
    from fairnb.widgets import ProgressPanel

    search = fast_search("random")
    panel = ProgressPanel(search, min_interval=0)
    with pytest.raises(RuntimeError, match="injected"):
        search.run(FailingModel(biased_model, fail_on=3), synthetic.domain, listeners=[panel])
    assert panel.status == "failed" and "injected" in panel.message


def test_max_found_counts_in_the_methods_convention(synthetic, biased_model):
    """ADF counts IDIs without the protected attributes: max_found caps that count, and the panel shows it."""
    events = []
    r = fast_search("adf", max_found=50).run(biased_model, synthetic.domain, seeds=synthetic.X,
                                             listeners=[events.append])
    assert r.count("adf") == 50 < r.count("eidig") and r.status == "budget"   # here 51 full instances
    assert events[-1].found == 50


def test_a_ctrl_c_before_a_second_run_starts_is_not_answered_with_the_first_runs_result(synthetic, biased_model,
                                                                                     monkeypatch):
    import contextlib

    from fairnb.search.engine import estimator

    search = fairnb.search.RandomSearch(max_tried=300, random_state=0, progress=False)
    first = search.run(biased_model, synthetic.domain)

    @contextlib.contextmanager
    def pressed_on_the_way_in():
        signal.raise_signal(signal.SIGINT)
        yield

    monkeypatch.setattr(estimator, "busy_while_blocking", pressed_on_the_way_in)
    with pytest.raises(KeyboardInterrupt):
        search.run(biased_model, synthetic.domain)
    assert first.status == "budget" and not search._busy.locked()

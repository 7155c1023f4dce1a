"""Searches sharded on a Dask LocalCluster (fairnb.distributed): merging, reproducibility, one shard ==
the local run, Stop, a killed worker, Keras and scikit-learn models on worker processes."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import fairnb
from fairnb import Oracle
from fairnb.search import RandomSearch
from fairnb.search.methods.aequitas import Aequitas
from fairnb.search.methods.eidig import EIDIG
from fairnb.search.registry import seeds_for

distributed = pytest.importorskip("distributed")
from fairnb.distributed import local_cluster  # noqa: E402
from blackbox_checks import same_pairs


@pytest.fixture(scope="module")
def client():
    """Two worker processes of one thread; a worker that dies loses its shard at once (allowed-failures 0),
    so the killed-worker test sees a lost shard instead of Dask's re-run."""
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        c = local_cluster(n_workers=2, threads_per_worker=1, processes=True)
    yield c
    fairnb.distributed.close(c)


def confirmed(result, model) -> bool:
    """Every reported pair is discriminatory when the oracle checks it again."""
    return bool(Oracle(model, result.domain).check(result.inputs).discriminatory.all())


def unique_keys(domain, X, convention) -> int:
    return len(np.unique(domain.key(X, convention), axis=0)) if len(X) else 0


def wait_until_running(run, shards: int, timeout: float = 60) -> None:
    """Wait until ``shards`` shards of the background run ``run`` have reported progress twice."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not run.done:
        table = run.result.extras.get("shards") if run.result is not None else None   # live: per shard
        if table is not None and "worker" in table and sum((table["status"] == "running") & (table["tried"] > 0)) >= shards:
            return
        time.sleep(0.05)
    raise AssertionError(f"the shards did not start in {timeout} s: {run}")


# ---------------------------------------------------------------------- without a cluster
def test_importing_fairnb_does_not_import_dask():
    code = "import sys, fairnb; print(sorted(k for k in sys.modules if k.split('.')[0] in ('dask', 'distributed')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ---------------------------------------------------------------------- on a LocalCluster
def test_a_local_cluster_leaves_this_process_environment_as_it_was():
    """Dask's nannies write the workers' environment (MALLOC_TRIM_THRESHOLD_, OMP_NUM_THREADS, ...) into their
    parent's os.environ; every process started later inherited it (a MALLOC_* variable turns off glibc's dynamic
    thresholds: test_heap's megabyte test failed after this module ran in the same worker)."""
    import os

    before = dict(os.environ)
    c = local_cluster(n_workers=1, threads_per_worker=1, processes=True)
    try:
        assert dict(os.environ) == before
        worker_env = c.run(lambda: {k: os.environ.get(k) for k in ("MALLOC_TRIM_THRESHOLD_", "OMP_NUM_THREADS")})
        assert list(worker_env.values()) == [{"MALLOC_TRIM_THRESHOLD_": str(fairnb.distributed.WORKER_MALLOC_TRIM),
                                               "OMP_NUM_THREADS": "1"}]    # the workers still get theirs
    finally:
        fairnb.distributed.close(c)


def test_local_clusters_side_by_side_take_no_fixed_port():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clients = [local_cluster(n_workers=1, processes=False) for _ in range(2)]
        for c in clients:
            fairnb.distributed.close(c)
    assert not [w for w in caught if "already in use" in str(w.message)]


def test_local_cluster_workers_keep_freed_memory_for_numpy(client):
    # Dask's nanny sets MALLOC_TRIM_THRESHOLD_=65536, which made a search cost ~40 % more CPU on a worker. A function
    # that reads the worker's environment: client.run(os.environ.get, ...) pickles this process's os.environ with
    # its bound method, and read this process's (where Dask had left the variable until local_cluster put it back)
    values = client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_"))
    assert set(values.values()) == {str(fairnb.distributed.WORKER_MALLOC_TRIM)}


def test_one_shard_is_the_local_run(client, synthetic, biased_model):
    for search in (lambda: EIDIG(n_seeds=40, n_local=30, random_state=3, progress=False),
                   lambda: RandomSearch(n_samples=3000, random_state=3, progress=False),
                   lambda: Aequitas(n_seeds=50, n_local=20, random_state=3, progress=False)):
        seeds = seeds_for(search(), synthetic.X)
        local = search().run(biased_model, synthetic.domain, seeds)
        sharded = search().run(biased_model, synthetic.domain, seeds, client=client, n_shards=1)
        assert local.count() > 0 and same_pairs(local, sharded), type(search()).__name__
        assert (local.tried, local.count("adf")) == (sharded.tried, sharded.count("adf"))


def test_dasks_plain_executor_runs_the_same_shards(client, synthetic, biased_model):
    """``client.get_executor()`` is a plain ``concurrent.futures.Executor`` to the shard driver (no progress topic,
    no plugin): the same shards find the same pairs as ``client=``."""
    search = lambda: RandomSearch(n_samples=4000, random_state=2, progress=False)  # noqa: E731
    by_client = search().run(biased_model, synthetic.domain, client=client, n_shards=2)
    by_executor = search().run(biased_model, synthetic.domain, executor=client.get_executor(), n_shards=2)
    assert by_client.count() > 0 and same_pairs(by_client, by_executor) and by_client.tried == by_executor.tried
    assert list(by_executor.extras["shards"]["status"]) == ["completed", "completed"]


def test_sharded_runs_are_reproducible_and_merged_without_duplicates(client, synthetic, biased_model):
    # two shards start from the same 30 seeds: their global phases find the same IDIs, counted once
    seeds = np.vstack([synthetic.X[:30], synthetic.X[:30]])
    run = lambda: EIDIG(n_seeds=60, n_local=20, seed_selection="as_given", random_state=7,  # noqa: E731
                        progress=False).run(biased_model, synthetic.domain, seeds, client=client, n_shards=2)
    first, again = run(), run()
    assert same_pairs(first, again) and first.tried == again.tried
    shards = first.extras["shards"]
    assert first.count() < shards["unique_idis"].sum()
    for convention in ("eidig", "adf"):
        assert first.count(convention) == unique_keys(synthetic.domain, first.inputs, convention)
    assert first.extras["seeds"].shape == (60, synthetic.X.shape[1]) and first.pairs["seed"].max() >= 30
    assert confirmed(first, biased_model)


@pytest.mark.parametrize("method", ["random", "adf"])
def test_live_counters_never_decrease_and_end_at_the_merged_counts(client, synthetic, biased_model, method):
    # the shards find many of the same inputs (a small domain): a sum of their counts would overshoot
    # and run long enough for several progress messages (shards report at most 10 a second; 60,000 random inputs
    # took 0.15 s on a quiet machine, one message)
    params = {"random": {"n_samples": 600_000, "batch_size": 500}, "adf": {"n_seeds": 60, "n_local": 300}}[method]
    search = fairnb.search.get_method(method)(random_state=0, progress=False, **params)
    events = []
    result = search.run(biased_model, synthetic.domain, seeds_for(search, synthetic.X), client=client, n_shards=2,
                        listeners=[events.append])
    assert [e.kind for e in events][::len(events) - 1] == ["start", "done"] and len(events) > 3
    for name in ("tried", "found", "found_adf"):
        values = [getattr(e, name) for e in events]
        assert values == sorted(values), name
    last = events[-1]
    assert (last.tried, last.found, last.found_adf) == (result.tried, result.count(search.dedup), result.count("adf"))
    timeline = result.timeline
    assert timeline["tried"].is_monotonic_increasing and timeline["found"].is_monotonic_increasing
    assert timeline["found"].iloc[-1] == result.count() and timeline["tried"].iloc[-1] == result.tried


def test_sharded_run_keeps_max_found(client, synthetic, biased_model):
    search = RandomSearch(n_samples=None, max_found=150, batch_size=200, random_state=0, progress=False)
    events = []
    result = search.run(biased_model, synthetic.domain, client=client, n_shards=2, listeners=[events.append])
    assert result.count() == 150 == events[-1].found and result.ended_by == ("max_found", 150)
    assert max(e.found for e in events) == 150 and confirmed(result, biased_model)


def test_sharded_run_ends_at_its_time_budget(client, synthetic, biased_model):
    search = RandomSearch(n_samples=None, max_time=1.0, batch_size=200, random_state=0, progress=False)
    result = search.run(biased_model, synthetic.domain, client=client, n_shards=2)
    assert result.status == "budget" and result.ended_by == ("max_time", 1.0) and 1.0 <= result.elapsed < 10


def test_stop_ends_every_shard_and_keeps_what_each_found(client, synthetic, biased_model):
    search = RandomSearch(n_samples=None, max_time=float("inf"), batch_size=200, random_state=0, progress=False)
    events = []
    run = search.start(biased_model, synthetic.domain, client=client, n_shards=2, listeners=[events.append])
    wait_until_running(run, 2)
    t = time.monotonic()
    result = run.stop()
    assert time.monotonic() - t < 10
    assert result.status == "stopped" and result.count() > 0 and confirmed(result, biased_model)
    assert list(result.extras["shards"]["status"]) == ["stopped", "stopped"]
    assert result.tried == result.extras["shards"]["tried"].sum()
    progress = [e for e in events if e.kind == "progress"]
    assert progress and max(e.tried for e in progress) > 0 and events[-1].kind == "done"


def test_a_non_tabular_domain_shards_through_the_domain_protocol(client):
    import cloudpickle
    import test_toy_domain
    from test_toy_domain import ToyStrings, more_x_than_y

    cloudpickle.register_pickle_by_value(test_toy_domain)     # the workers cannot import this test module
    try:
        dom, model = ToyStrings(), fairnb.models.FunctionModel(more_x_than_y)
        local = RandomSearch(n_samples=600, random_state=0, progress=False).run(model, dom)
        one = RandomSearch(n_samples=600, random_state=0, progress=False).run(model, dom, client=client, n_shards=1)
        three = RandomSearch(n_samples=600, random_state=0, progress=False).run(model, dom, client=client, n_shards=3)
    finally:
        cloudpickle.unregister_pickle_by_value(test_toy_domain)
    assert same_pairs(local, one)
    texts = [dom.text(x) for x in three.inputs]
    assert three.tried == 600 and three.count("eidig") == len(set(texts)) == len(texts)
    assert three.count("adf") == len({t.replace("X", "_").replace("Y", "_") for t in texts}) < len(texts)
    assert confirmed(three, model)


def test_the_control_models_counts_merge_over_shards(client, synthetic, biased_model, fair_model):
    """Each shard checks the data's seeds on the control model too; the merged run counts them once, as the local
    run does, and records the control in words."""
    search = lambda: EIDIG(n_seeds=60, n_local=10, random_state=5, progress=False, control=fair_model)  # noqa: E731
    local = search().run(biased_model, synthetic.domain, synthetic.X)
    sharded = search().run(biased_model, synthetic.domain, synthetic.X, client=client, n_shards=2)
    keys = ("natural_n", "natural_idis", "control_natural_n", "control_natural_idis")
    assert [sharded.extras[k] for k in keys] == [local.extras[k] for k in keys] and local.extras["control_natural_n"] == len(
        np.unique(synthetic.X.to_numpy(float), axis=0))
    assert sharded.summary()["control_natural_high"] < sharded.summary()["natural_low"]
    assert sharded.params["control"] == local.params["control"] == repr(fairnb.models.wrap(fair_model))


def test_sklearn_model_runs_on_workers(client, synthetic):
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(max_iter=500).fit(synthetic.X, synthetic.y)
    search = lambda: Aequitas(n_seeds=40, n_local=30, random_state=1, progress=False)  # noqa: E731
    local = search().run(model, synthetic.domain, synthetic.X)
    sharded = search().run(model, synthetic.domain, synthetic.X, client=client, n_shards=1)
    assert local.count() > 0 and same_pairs(local, sharded)


def test_failed_model_raises_with_the_partial_result(client, synthetic, biased_model):
    def breaks_late(X, calls=[0]):  # noqa: B006 - a per-process call counter
        calls[0] += 1
        if calls[0] > 3:
            raise RuntimeError("model went away")
        return biased_model.predict_proba(X)

    with pytest.raises(RuntimeError, match="model went away") as err:
        RandomSearch(n_samples=20_000, batch_size=500, random_state=0, progress=False).run(
            breaks_late, synthetic.domain, client=client, n_shards=2)
    assert err.value.result.status == "failed" and err.value.result.tried > 0


@pytest.fixture
def by_value():
    """The workers cannot import the tests' helper modules: cloudpickle sends their models by value."""
    import cloudpickle
    import image_checks
    import text_checks

    for module in (text_checks, image_checks):
        cloudpickle.register_pickle_by_value(module)
    yield
    for module in (text_checks, image_checks):
        cloudpickle.unregister_pickle_by_value(module)


def same_details(a, b) -> bool:
    return [a.details(i) for i in range(len(a))] == [b.details(i) for i in range(len(b))]


@pytest.mark.parametrize("method", ["adf_asc", "rp"])
def test_text_searches_shard_with_their_details_and_extras(client, by_value, method):
    from fairnb.search import get_method
    from text_checks import RELIGION, bench, biased_linear

    dom, texts, E = bench(bias=1.0, n=120)
    model = biased_linear(dom, E)
    if method == "rp":                      # a black box on strings, pickled by value
        ids_model = model
        model = lambda strings: ids_model.predict_proba(dom.validate(list(strings)))  # noqa: E731
    search = lambda: get_method(method)(n_seeds=24, max_iter=3, n_local=4, random_state=2,  # noqa: E731
                                        progress=False)
    local = search().run(model, dom, texts)
    one = search().run(model, dom, texts, client=client, n_shards=1)
    assert local.count() > 0 and same_pairs(local, one) and same_details(local, one)
    assert {k: one.extras[k] for k in ("raw_idis", "global_idis", "local_idis", "local_generated")} == \
        {k: local.extras[k] for k in ("raw_idis", "global_idis", "local_idis", "local_generated")}
    two = search().run(model, dom, texts, client=client, n_shards=2)
    shards = two.extras["shards"]
    assert list(shards["status"]) == ["completed", "completed"] and two.extras["seeds"].shape == (24, dom.max_len)
    assert two.count("adf") == unique_keys(dom, two.inputs, "adf") and confirmed(two, model)
    details = [two.details(i) for i in range(len(two))]
    assert all(d["term"] in RELIGION and d["term_counterpart"] in RELIGION and d["term"] != d["term_counterpart"]
               for d in details)
    # each pair's seed id points at its own seed among the merged seeds: the changes counted on the worker match
    seeds = two.extras["seeds"][two.pairs["seed"].to_numpy()]
    assert [d["validity"]["l0"] for d in details] == (seeds != two.inputs).sum(axis=1).tolist()
    assert two.pairs["seed"].max() >= 12                 # the second shard's seeds are among them
    assert two.extras["raw_idis"] == local.extras["raw_idis"]            # the seeds checked as they are
    if method != "rp":    # RP's global steps draw from the run's random stream, which two shards split differently
        assert two.extras["global_idis"] == local.extras["global_idis"]
    assert two.extras["skipped_seeds"] == local.extras["skipped_seeds"]
    rate = two.extras["local_idis"] / two.extras["local_generated"]
    assert two.extras["local_success_rate"] == round(rate, 6)


def test_image_searches_shard_with_their_details(client, by_value):
    from fairnb.search import get_method
    from image_checks import detector, domain, seed_images

    seeds, model, dom = seed_images(30), detector(red=1.0), domain()
    for method in ("eidig_image", "neuronfair_image"):
        search = lambda: get_method(method)(random_state=0, progress=False)  # noqa: E731
        local = search().run(model, dom, seeds)
        one = search().run(model, dom, seeds, client=client, n_shards=1)
        assert local.count() > 0 and same_pairs(local, one) and same_details(local, one), method
        assert one.extras["generated"] == local.extras["generated"]
    # the image searches' steps draw nothing at random: two shards find the local run's pairs, details included
    local = get_method("eidig_image")(random_state=0, progress=False).run(model, dom, seeds)
    two = get_method("eidig_image")(random_state=0, progress=False).run(model, dom, seeds, client=client, n_shards=2)
    assert two.count() == local.count() and confirmed(two, model)
    ordered = lambda r: sorted((r.inputs[i].tobytes(), json.dumps(r.details(i))) for i in range(len(r)))  # noqa: E731
    assert ordered(two) == ordered(local)
    assert {k: two.extras[k] for k in ("global_idis", "strict_idis", "generated", "gsr")} == \
        {k: local.extras[k] for k in ("global_idis", "strict_idis", "generated", "gsr")}


def test_generated_counts_are_distinct_over_shards_whose_seeds_overlap(client, by_value, synthetic, biased_model):
    from fairnb.search import get_method
    from image_checks import detector, domain, seed_images

    # both shards get the same seeds; the global phases draw nothing at random, so they generate the same inputs
    seeds = synthetic.X.to_numpy(float)[:40]
    eidig = lambda n: EIDIG(n_seeds=n, n_local=0, seed_selection="as_given", random_state=0,  # noqa: E731
                            progress=False)
    local = eidig(40).run(biased_model, synthetic.domain, seeds)
    two = eidig(80).run(biased_model, synthetic.domain, np.vstack([seeds, seeds]), client=client, n_shards=2)
    assert local.extras["generated"] > local.extras["global_idis"] > 0
    assert list(two.extras["shards"]["tried"]) == [local.tried, local.tried]
    for name in ("generated", "generated_adf", "global_idis"):
        assert two.extras[name] == local.extras[name], name
    assert two.extras["gsr"] == local.extras["gsr"] and two.count() == local.count()
    images, model, dom = seed_images(20), detector(red=1.0), domain()
    local = get_method("eidig_image")(random_state=0, progress=False).run(model, dom, images)
    two = get_method("eidig_image")(random_state=0, progress=False).run(model, dom, np.concatenate([images, images]),
                                                                        client=client, n_shards=2)
    assert two.extras["generated"] == local.extras["generated"] > 0 and two.tried == 2 * local.tried


@pytest.mark.slow
def test_killed_worker_loses_only_its_shard(client, synthetic, biased_model):
    search = EIDIG(n_seeds=40, n_local=10**6, seed_selection="as_given", batch_size=8, random_state=0, progress=False)
    run = search.start(biased_model, synthetic.domain, synthetic.X, client=client, n_shards=2)
    wait_until_running(run, 2)
    victim = run.result.extras["shards"]["worker"][0]
    pid = client.run(os.getpid, workers=[victim])[victim]
    with pytest.warns(RuntimeWarning, match="lost"):
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and run.result.extras["shards"]["status"][0] != "lost":
            time.sleep(0.05)
        result = run.stop()
    assert result.extras["lost_shards"] == [0] and result.extras["lost_seeds"] == [[0, 20]]
    assert result.count() > 0 and confirmed(result, biased_model)
    assert result.pairs["seed"].min() >= 20              # what shard 1 found is kept
    client.wait_for_workers(2, timeout=60)               # the nanny restarts the worker


@pytest.mark.slow
@pytest.mark.tf
@pytest.mark.shared
def test_keras_model_is_loaded_on_worker_processes(client, data_dir, models_dir):
    model = fairnb.models.load_model(models_dir / "adult_model.h5", backend="keras")
    model.numpy_below = 0                                 # every batch through TensorFlow, also on the workers
    census = fairnb.datasets.load("census", data_dir=data_dir).with_protected("gender")
    search = lambda: EIDIG(n_seeds=10, n_local=20, random_state=0, progress=False)  # noqa: E731
    local = search().run(model, census.domain, census.X[:2000])
    sharded = search().run(model, census.domain, census.X[:2000], client=client, n_shards=1)
    assert local.count() > 0 and same_pairs(local, sharded)


@pytest.mark.slow
@pytest.mark.tf
def test_keras_text_model_and_its_domain_are_loaded_on_worker_processes(client, by_value):
    from fairnb.search import get_method
    from fairnb.text.keras_model import KerasTextModel, build_text_classifier
    from text_checks import bench

    dom, texts, E = bench(bias=1.0, n=80)
    model = KerasTextModel(build_text_classifier(E.astype(np.float32), dom.max_len))
    search = lambda: get_method("adf_hf")(n_seeds=12, max_iter=2, n_local=3, random_state=0,  # noqa: E731
                                          progress=False)
    local = search().run(model, dom, texts)
    sharded = search().run(model, dom, texts, client=client, n_shards=1)
    assert local.tried > 0 and same_pairs(local, sharded) and same_details(local, sharded)
    assert sharded.extras["gradient_rows"] == local.extras["gradient_rows"] > 0


@pytest.mark.slow
@pytest.mark.tf
def test_keras_detector_and_fgsm_attribute_classifier_are_loaded_on_worker_processes(client):
    import keras

    from fairnb.domains import ImageDomain
    from fairnb.images import FGSMFlip
    from fairnb.search import get_method

    keras.utils.set_random_seed(0)
    layers = lambda: [keras.Input((4, 4, 3)), keras.layers.Flatten()]  # noqa: E731
    f_sa = keras.Sequential(layers() + [keras.layers.Dense(1, activation="sigmoid")])
    detector = keras.Sequential(layers() + [keras.layers.Dense(4, activation="tanh"),
                                            keras.layers.Dense(2, activation="softmax")])
    dom = ImageDomain((4, 4, 3), FGSMFlip(step=0.05, attribute_model=fairnb.models.wrap(f_sa)))
    seeds = np.random.default_rng(0).random((16, 4, 4, 3))
    search = lambda: get_method("adf_image")(max_iter=5, random_state=0, progress=False)  # noqa: E731
    local = search().run(detector, dom, seeds)
    sharded = search().run(detector, dom, seeds, client=client, n_shards=1)
    assert local.tried > len(seeds) and same_pairs(local, sharded) and same_details(local, sharded)
    assert sharded.extras["flip"] == local.extras["flip"]

"""One shard driver for any ``concurrent.futures.Executor`` (``fairnb.distributed.driver``): a one-shard run is
the local run, shards on processes divide the budget, Stop and Ctrl-C keep what every shard found, a failing
shard keeps the others' pairs."""
from __future__ import annotations

import functools
import multiprocessing
import threading
import time
import warnings
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

import fairnb
from fairnb import Oracle
from fairnb.distributed import ShardedExecutor
from fairnb.search import RandomSearch
from fairnb.search.methods.aequitas import Aequitas
from fairnb.search.methods.eidig import EIDIG
from fairnb.search.registry import seeds_for
from blackbox_checks import same_pairs


# processes started fresh: a fork of this worker (TensorFlow's threads, pytest-timeout's) may wait for ever on a lock
Processes = functools.partial(ProcessPoolExecutor, mp_context=multiprocessing.get_context("spawn"))


def confirmed(result, model) -> bool:
    return bool(Oracle(model, result.domain).check(result.inputs).discriminatory.all())


def wait_until_running(run, shards: int, timeout: float = 30) -> None:
    """Wait until ``shards`` shards of the background run ``run`` have reported candidates tried."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not run.done:
        table = run.result.extras.get("shards") if run.result is not None else None
        running = 0 if table is None else sum((table["status"] == "running") & (table["tried"] > 0))
        if running >= shards:
            return
        time.sleep(0.02)
    raise AssertionError(f"the shards did not start in {timeout} s: {run}")


@pytest.fixture(scope="module")
def threads():
    with ThreadPoolExecutor(2) as pool:
        yield pool


def test_one_shard_on_threads_is_the_local_run(threads, synthetic, biased_model):
    for search in (lambda: EIDIG(n_seeds=40, n_local=30, random_state=3, progress=False),
                   lambda: RandomSearch(n_samples=3000, random_state=3, progress=False),
                   lambda: Aequitas(n_seeds=50, n_local=20, random_state=3, progress=False)):
        seeds = seeds_for(search(), synthetic.X)
        local = search().run(biased_model, synthetic.domain, seeds)
        sharded = search().run(biased_model, synthetic.domain, seeds, executor=threads, n_shards=1)
        assert local.count() > 0 and same_pairs(local, sharded), type(search()).__name__
        assert (local.tried, local.count("adf")) == (sharded.tried, sharded.count("adf"))
        assert list(sharded.extras["shards"]["status"]) == [local.status]


def test_two_shards_on_processes_divide_the_count_budget(synthetic, biased_model):
    search = lambda: EIDIG(n_seeds=60, n_local=40, random_state=1, progress=False)  # noqa: E731
    seeds = synthetic.X[:400]
    one = search().run(biased_model, synthetic.domain, seeds)
    with Processes(2) as pool:
        two = search().run(biased_model, synthetic.domain, seeds, executor=pool, n_shards=2)
    assert list(two.extras["shards"]["status"]) == ["completed", "completed"]
    assert abs(two.tried - one.tried) <= 0.1 * one.tried
    assert two.count() > 0 and confirmed(two, biased_model)
    assert two.count("adf") == len(np.unique(synthetic.domain.key(two.inputs, "adf"), axis=0))
    assert two.extras["seeds"].shape[0] == 60 and two.pairs["seed"].max() >= 30    # both shards' seeds


def test_n_shards_on_the_executor(threads, synthetic, biased_model):
    run = lambda executor, **kw: fairnb.run_search(biased_model, synthetic.domain, method="random",  # noqa: E731
                                                   n_samples=900, random_state=0, progress=False,
                                                   executor=executor, **kw)
    assert len(run(ShardedExecutor(threads, n_shards=3)).extras["shards"]) == 3
    assert len(run(ShardedExecutor(threads, n_shards=3), n_shards=2).extras["shards"]) == 2   # the run's wins
    assert len(run(threads).extras["shards"]) == 2                      # one per worker of the pool
    with pytest.raises(ValueError, match="n_shards"):
        ShardedExecutor(threads, n_shards=0)
    with pytest.raises(ValueError, match="executor and client"):
        run(threads, client=threads)


class OneShardFails(Executor):
    """Runs tasks on ``pool``, but the shard numbered ``failing`` raises before it searches (a plain Executor:
    neither a thread nor a process pool, so the driver neither calls back nor stops its shards)."""

    def __init__(self, pool, failing: int):
        self.pool, self.failing, self.submitted = pool, failing, 0

    def submit(self, fn, /, *args, **kwargs):
        self.submitted += 1
        if self.submitted - 1 == self.failing:
            return self.pool.submit(_fail)
        return self.pool.submit(fn, *args, **kwargs)


def _fail():
    raise RuntimeError("shard went away")


def test_a_failing_shard_keeps_the_others_pairs(threads, synthetic, biased_model):
    search = EIDIG(n_seeds=40, n_local=20, seed_selection="as_given", random_state=0, progress=False)
    seeds = synthetic.X.to_numpy(float)[:40]
    with pytest.raises(RuntimeError, match="shard went away") as err:
        search.run(biased_model, synthetic.domain, seeds, executor=OneShardFails(threads, failing=1), n_shards=2)
    result = err.value.result
    assert result.status == "failed" and result.extras["failed_shards"] == [1]
    assert result.count() > 0 and confirmed(result, biased_model)
    assert result.pairs["seed"].max() < 20                     # shard 0's pairs (seeds 0-19), all of them
    alone = EIDIG(n_seeds=20, n_local=20, seed_selection="as_given", progress=False,
                  random_state=np.random.SeedSequence(0).spawn(2)[0]).run(biased_model, synthetic.domain, seeds,
                                                                          selected_seeds=seeds[:20])
    assert result.count() == alone.count()


@pytest.mark.parametrize("pool", [ThreadPoolExecutor, Processes])
def test_stop_ends_every_shard_and_keeps_what_each_found(synthetic, biased_model, pool):
    search = RandomSearch(n_samples=None, max_time=float("inf"), batch_size=200, random_state=0, progress=False)
    events = []
    with pool(2) as executor:
        run = search.start(biased_model, synthetic.domain, executor=executor, n_shards=2, listeners=[events.append])
        wait_until_running(run, 2)                   # the shards' progress reached the driver while they ran
        result = run.stop()
    assert result.status == "stopped" and result.count() > 0 and confirmed(result, biased_model)
    assert list(result.extras["shards"]["status"]) == ["stopped", "stopped"]
    assert result.tried == result.extras["shards"]["tried"].sum()
    found = [e.found for e in events]
    assert found == sorted(found) and events[-1].kind == "done" and events[-1].found == result.count()


def test_ctrl_c_keeps_what_every_shard_found(threads, synthetic, biased_model):
    interrupted = []

    def ctrl_c(event):                   # Ctrl-C on the driver's thread, once the shards found something
        if event.kind == "progress" and event.found > 0 and not interrupted:
            interrupted.append(event.found)
            raise KeyboardInterrupt

    search = RandomSearch(n_samples=None, max_time=float("inf"), batch_size=200, random_state=0, progress=False)
    result = search.run(biased_model, synthetic.domain, executor=threads, n_shards=2, listeners=[ctrl_c])
    assert result.status == "interrupted" and result.count() >= interrupted[0] and confirmed(result, biased_model)
    assert set(result.extras["shards"]["status"]) == {"stopped"}


def test_a_model_that_does_not_pickle_is_refused_for_processes_by_name(synthetic, biased_model):
    class Locked:                          # holds a lock: no pickler sends it to another process
        lock = None

        def __init__(self):
            self.lock = threading.Lock()

        def __call__(self, X):
            return biased_model.predict_proba(X)

    with Processes(1) as pool, pytest.raises(TypeError, match="cannot be sent to other processes"):
        RandomSearch(n_samples=100, progress=False).run(Locked(), synthetic.domain, executor=pool)


def test_a_pool_that_forks_a_threaded_process_is_warned_of():
    """A fork copies the locks other threads hold: the user is told to spawn instead (the pools are only read
    here, never started)."""
    from fairnb.distributed.pools import warn_if_forking

    forking, spawning = (ProcessPoolExecutor(1, mp_context=multiprocessing.get_context(m)) for m in ("fork", "spawn"))
    busy = threading.Event()
    other = threading.Thread(target=busy.wait)
    other.start()
    try:
        with pytest.warns(RuntimeWarning, match=r"get_context\('spawn'\)"):
            warn_if_forking(forking)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warn_if_forking(spawning)
    finally:
        busy.set()
        other.join()

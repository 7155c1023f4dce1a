"""Searches sharded on any ``concurrent.futures.Executor``, or on a Dask cluster (``pip install fairnb[dask]``;
Dask is imported only here).

``search.run(model, domain, seeds, executor=pool)`` (a thread or process pool, ``ShardedExecutor(pool,
n_shards=4)``, ...) or ``search.run(model, domain, seeds, client=client)`` (a Dask client; also
``fairnb.run_search(..., executor=...)``) cuts the search into shards (``n_shards``, default one per worker),
runs the same strategy on each shard and merges their Results, de-duplicated under both counting conventions
(one driver for every executor: ``fairnb.distributed.driver``; Dask's own parts: ``fairnb.distributed.runner``):

* strategies that start from seeds (ADF, EIDIG, MAFT, NeuronFair, SG, AEQUITAS given seeds, the text and
  image searches) choose them once on the client (``select_seeds``, which sees the domain) and give each
  shard a slice; random sampling and AEQUITAS without seeds
  divide their budget (``n_samples``, ``n_seeds``); ``max_tried`` is divided, ``max_time`` is wall-clock
  for the whole run (see ``fairnb.distributed.plan``);
* every shard draws from its own stream, ``numpy.random.SeedSequence(random_state).spawn(n_shards)``;
  a one-shard run is the local run, pair for pair;
* on Dask, the model and the domain are shipped once per worker: every Keras model among them (also a text model,
  an image flipper's f_sa) as its ``.keras`` file, loaded by a ``WorkerPlugin``; numpy and scikit-learn
  models and callables pickled;
* a shard's Result travels packed and the client merges with numpy; distinct counts (``generated``, ...)
  count the union of the shards' keys (see ``fairnb.results.merging``);
* the progress panel and tqdm show the totals over all shards; Stop (``search.stop()``, the panel of
  ``search.start(..., executor=...)``, Ctrl-C, the time budget) ends every shard after its current
  batch and keeps what each returned (on executors that reach this process: threads, process pools,
  Dask); a shard that fails leaves the others' pairs in the Result (status ``"failed"``); a Dask worker
  that dies loses at most its current shard, which Dask runs again elsewhere (or, past
  ``distributed.scheduler.allowed-failures``, is reported in ``result.extras["lost_seeds"]``).

A demo cluster on this machine: ``client = fairnb.distributed.local_cluster(n_workers=2)``. On
Binder (2 GB), worker processes that load TensorFlow (~650 MB each) do not fit: use
``local_cluster(processes=False)`` (threads in the kernel's process) or no client at all.

Example
-------
>>> import fairnb, fairnb.distributed
>>> client = fairnb.distributed.local_cluster(n_workers=2, processes=False)
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> result = fairnb.run_search(data.info["true_model"], data.domain, method="random", n_samples=4000,
...                            random_state=0, client=client)
>>> result.tried, len(result.extras["shards"])
(4000, 2)
>>> fairnb.distributed.close(client)
"""
from __future__ import annotations

import os

from ..results import merge_results
from ..search.engine.executors import register_executor
from .plan import Shard, plan_shards

register_executor("distributed.client:Client", f"{__name__}.runner:run_sharded")   # search.run(client=...)
register_executor("concurrent.futures._base:Executor", f"{__name__}.pools:run_on_executor")   # (executor=...)

WORKER_MALLOC_TRIM = 128 * 2**20   # bytes; see local_cluster

__all__ = ["local_cluster", "close", "run_sharded", "ShardedExecutor", "plan_shards", "Shard", "merge_results"]


def __getattr__(name):
    if name == "run_sharded":      # imports Dask: only when asked for
        from .runner import run_sharded

        return run_sharded
    if name == "ShardedExecutor":  # the search engine loads on first use (``import fairnb`` stays light)
        from .pools import ShardedExecutor

        return ShardedExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def local_cluster(n_workers: int = 2, threads_per_worker: int = 1, processes: bool = True, **kwargs):
    """A ``dask.distributed.Client`` of a new ``LocalCluster`` on this machine, for ``client=``.

    ``processes=False`` runs the workers as threads of this process (on Binder: no extra memory
    for TensorFlow per worker); other arguments go to ``LocalCluster`` (``memory_limit``, ...). The
    dashboard is off unless ``dashboard_address`` is given. ``close(client)`` ends both.

    Worker processes get glibc's ``MALLOC_TRIM_THRESHOLD_`` = 128 MiB instead of Dask's 64 KiB: with
    Dask's value the same search took about 40 % more CPU in a worker than in this process (C-a EIDIG
    300 x 300: 0.74-0.87 CPU s against 0.51-0.53; with 128 MiB, 0.51 against 0.50). For clusters
    started elsewhere set the same in the Dask config ``distributed.nanny.pre-spawn-environ``.
    """
    import dask
    from distributed import Client, LocalCluster

    if isinstance(n_workers, bool) or not isinstance(n_workers, int) or n_workers < 1:
        raise ValueError(f"n_workers must be a positive integer, got {n_workers!r}")
    if "dashboard_address" not in kwargs:   # no dashboard, and the scheduler's health routes on a free port, not 8787
        kwargs["dashboard_address"] = None
        kwargs["scheduler_kwargs"] = {"dashboard": False, "dashboard_address": ":0", **kwargs.get("scheduler_kwargs", {})}
    environ = {**dask.config.get("distributed.nanny.pre-spawn-environ", {}),
               "MALLOC_TRIM_THRESHOLD_": WORKER_MALLOC_TRIM}
    before = dict(os.environ)
    try:
        with dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):
            cluster = LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker, processes=processes,
                                   **kwargs)
    finally:
        _restore_environ(before)
    return Client(cluster)


def _restore_environ(before: dict) -> None:
    """Put this process's environment back as ``before``: Dask's nannies write the workers' environment
    (``MALLOC_TRIM_THRESHOLD_``, ``OMP_NUM_THREADS`` = 1, ...) into their parent's ``os.environ`` to spawn them, and
    leave it there, where every process the kernel starts later would inherit it (a ``MALLOC_*`` variable, for one,
    turns off glibc's dynamic thresholds that ``fairnb.heap.steady`` relies on)."""
    for key in [k for k in os.environ if k not in before]:
        del os.environ[key]
    for key, value in before.items():
        if os.environ.get(key) != value:
            os.environ[key] = value


def close(client) -> None:
    """Close ``client`` and the cluster it started (``local_cluster``)."""
    cluster = client.cluster
    client.close()
    if cluster is not None:
        cluster.close()

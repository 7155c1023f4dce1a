"""Dask as one executor of the shard driver (``fairnb.distributed.driver``): what only Dask does.

* The model and the domain go once to every worker in a ``WorkerPlugin`` (``ModelPlugin``: ``setup`` runs
  on every worker, also on workers that join later; ``shipping.py`` packs them), and the seeds are
  scattered to every worker once.
* Each shard publishes its progress messages on the run's topic (``Worker.log_event``; the client
  receives them with ``Client.subscribe_topic``) and reads Stop from a cluster-wide ``distributed.Event``.
* A worker that dies takes its current shard with it: Dask runs the shard again on another worker (up to
  ``distributed.scheduler.allowed-failures`` times; a shard's stream is fixed, so it finds the same pairs),
  and a shard it gives up on is reported in ``extras["lost_shards"]`` and ``extras["lost_seeds"]`` (with a
  warning); the other shards' pairs are kept.

The rest (planning, merging, the live totals, Stop, failures) is the driver's, as for any executor.
"""
from __future__ import annotations

import threading
import uuid

from distributed import WorkerPlugin, get_worker

from .driver import drive
from .shipping import Shipped


class ModelPlugin(WorkerPlugin):
    """Loads a run's model and domain once on every worker; shards find them by the plugin's ``name``
    (``worker_model``), which is new for every run."""

    def __init__(self, model, domain=None):
        self.shipped = Shipped((model, domain))
        self.name = f"fairnb-model-{uuid.uuid4().hex}"
        self.loaded = None

    def setup(self, worker):
        self.loaded = self.shipped.load()

    def __getstate__(self):
        return {"shipped": self.shipped, "name": self.name}

    def __setstate__(self, state):
        self.shipped, self.name, self.loaded = state["shipped"], state["name"], None


def worker_model(plugin_name: str):
    """On a worker: ``(model, domain)`` that its plugin ``plugin_name`` loaded."""
    plugin = get_worker().plugins.get(plugin_name)
    if plugin is None or plugin.loaded is None:
        raise RuntimeError(f"this worker has no model under {plugin_name!r}: the run's plugin was removed")
    return plugin.loaded


class FromPlugin:
    """A shard's ``(model, domain)``: those its worker's plugin loaded."""

    def __init__(self, plugin_name: str):
        self.plugin_name = plugin_name

    def __call__(self):
        return worker_model(self.plugin_name)


class DaskLink:
    """A shard's way to the client: messages on the run's topic, Stop as a cluster-wide ``distributed.Event``."""

    def __init__(self, client, on_message, run_id: str):
        from distributed import Event as StopEvent

        self.topic, self.stop_name = f"fairnb-progress-{run_id}", f"fairnb-stop-{run_id}"
        self._client, self._stop = client, StopEvent(self.stop_name, client=client)
        client.subscribe_topic(self.topic, lambda event: on_message(event[1]))

    def __getstate__(self):
        return {"topic": self.topic, "stop_name": self.stop_name}

    def open(self):
        """On a worker: ``(send, stop, worker address)``."""
        from distributed import Event as StopEvent, get_client

        worker, topic = get_worker(), self.topic
        stop = StopEvent(self.stop_name, client=get_client())   # explicit: it is used from another thread
        return (lambda msg: worker.log_event(topic, msg)), stop, worker.address

    def poll(self) -> None:
        pass                   # the client's event loop brings the messages

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        self._client.unsubscribe_topic(self.topic)


class DaskBackend:
    """The driver's backend for a ``distributed.Client``: a shard per worker thread by default."""

    def __init__(self, client):
        self.client, self.plugin, self.link = client, None, None
        self.wake = threading.Event()

    def default_shards(self) -> int:
        threads = sum(self.client.nthreads().values())
        if threads < 1:
            raise ValueError("client: the Dask cluster has no workers; start some (fairnb.distributed.local_cluster)")
        return threads

    def start(self, run, model, domain, seeds):
        self.plugin = ModelPlugin(model, domain)
        self.client.register_plugin(self.plugin)
        self.link = DaskLink(self.client, run.on_message, uuid.uuid4().hex)
        data = self.client.scatter(seeds, broadcast=True, hash=False) if seeds is not None else None
        return FromPlugin(self.plugin.name), data, self.link

    def submit(self, task: tuple, index: int, run_id: str):
        from .shard import run_shard

        f = self.client.submit(run_shard, *task, key=f"fairnb-shard-{index}-{run_id}", pure=False)
        f.add_done_callback(lambda _: self.wake.set())
        return f

    def wait_any(self, pending: set, timeout: float) -> None:
        self.wake.wait(timeout)
        self.wake.clear()

    def cancel_waiting(self, run, futures: dict, pending: set) -> None:
        with run.lock:         # a Dask future that runs would be cancelled too: only those not started
            waiting = [f for f in pending if run.state[futures[f]] == "waiting"]
        self.client.cancel(waiting)

    def give_up(self, pending: set) -> set:
        self.client.cancel(list(pending))
        return pending         # they end cancelled: wait for that

    def lost(self, error: BaseException) -> bool:
        return True            # a shard's own failure returns its Result: an error is its worker's

    def close(self, futures) -> None:
        if self.link is not None:
            self.link.close()
        if self.plugin is not None:
            self.client.unregister_worker_plugin(self.plugin.name)
        self.client.cancel(list(futures))


def run_sharded(search, model, domain, seeds=None, *, client, n_shards=None, listeners=(), oracle=None,
                should_stop=lambda: False):
    """Run ``search`` in shards on ``client``'s cluster; returns the merged Result.

    The entry point of ``search.run(..., client=client)`` for a Dask client (``fairnb.search.engine.executors``):
    ``model`` wrapped and ``seeds`` validated by the search, ``listeners`` told the cluster's totals,
    ``should_stop()`` polled to end every shard; ``n_shards`` default one per worker thread."""
    return drive(DaskBackend(client), search, model, domain, seeds, n_shards=n_shards, listeners=listeners,
                 oracle=oracle, should_stop=should_stop)
